// The stream settings of a postgres source, from its pipeline file: the
// table selection (tables, tables.exclude, schema-name), the publication
// mode, the snapshot and the heartbeat.

#include "floe/run/postgres_source.h"

#include <gtest/gtest.h>

namespace floe::run {
namespace {

Result<pipeline::PipelineDefinition> Parse(std::vector<std::string> overrides) {
  constexpr std::string_view kFile = R"(source:
  type: postgres
  hostname: db.example
  port: 5433
  username: floe
  password: secret
  database-name: shop
  tables: public.orders_\.*, sales.\.*
  tables.exclude: public.orders_tmp
  slot.name: floe_shop
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///lake/catalog.db", warehouse: "file:///lake/warehouse"}
)";
  return pipeline::ParsePipelineDefinition(kFile, "shop.yaml", pipeline::Environment::FromMap({}),
                                           overrides);
}

TEST(PostgresStreamOptionsTest, TakesTheConnectionSlotAndSelection) {
  auto definition = Parse({});
  ASSERT_TRUE(definition) << definition.error().message();
  auto options = PostgresStreamOptions(definition->source.postgres);
  ASSERT_TRUE(options) << options.error().message();
  EXPECT_EQ(options->client.host, "db.example");
  EXPECT_EQ(options->client.port, 5433);
  EXPECT_EQ(options->client.user, "floe");
  EXPECT_EQ(options->client.password, "secret");
  EXPECT_EQ(options->client.database, "shop");
  EXPECT_EQ(options->client.slot, "floe_shop");
  EXPECT_EQ(options->client.publication, "dbz_publication");
  EXPECT_EQ(options->client.autocreate, cdc::postgres::PublicationAutocreate::kAllTables);
  EXPECT_TRUE(options->snapshot);  // initial, the default
  EXPECT_EQ(options->heartbeat_interval, std::chrono::seconds(30));
  EXPECT_TRUE(options->selector("public", "orders_2024"));
  EXPECT_TRUE(options->selector("sales", "invoices"));
  EXPECT_FALSE(options->selector("public", "orders_tmp"));
  EXPECT_FALSE(options->selector("public", "customers"));
}

TEST(PostgresStreamOptionsTest, SchemaNameNarrowsTheTablesAndModesMap) {
  auto definition =
      Parse({"source.schema-name=sales", "source.scan.startup.mode=latest-offset",
             "source.publication.autocreate.mode=filtered", "source.heartbeat.interval=2s"});
  ASSERT_TRUE(definition) << definition.error().message();
  auto options = PostgresStreamOptions(definition->source.postgres);
  ASSERT_TRUE(options) << options.error().message();
  EXPECT_FALSE(options->selector("public", "orders_2024"));
  EXPECT_TRUE(options->selector("sales", "invoices"));
  EXPECT_FALSE(options->snapshot);
  EXPECT_EQ(options->client.autocreate, cdc::postgres::PublicationAutocreate::kFiltered);
  EXPECT_EQ(options->heartbeat_interval, std::chrono::seconds(2));
}

TEST(PostgresStreamOptionsTest, TheRunsOptionsOpenAPostgresStream) {
  auto definition = Parse({});
  ASSERT_TRUE(definition) << definition.error().message();
  auto options = MakeCaptureSourceOptions(*definition, "");
  ASSERT_TRUE(options) << options.error().message();
  EXPECT_TRUE(options->open_stream);
}

}  // namespace
}  // namespace floe::run
