// `source: type: postgres` of a pipeline file: its keys (Flink CDC's and
// Debezium's names), defaults, the refusals (unknown keys, another decoding
// plugin, a startup mode that is not built) and the description.

#include <gtest/gtest.h>

#include "floe/pipeline/pipeline_definition.h"

namespace floe::pipeline {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kPostgres = R"(source:
  type: postgres
  hostname: 127.0.0.1
  port: 5433
  username: floe
  password: ${PG_PASSWORD}
  database-name: shop
  tables: public.orders_\.*, public.items
  tables.exclude: public.orders_tmp
  slot.name: floe_shop
  scan.startup.mode: latest-offset
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///lake/catalog.db", warehouse: "file:///lake/warehouse"}
)";

Result<PipelineDefinition> Parse(std::string_view text, std::vector<std::string> overrides = {}) {
  return ParsePipelineDefinition(
      text, "shop.yaml", Environment::FromMap({{"PG_PASSWORD", "hunter2-very-secret"}}), overrides);
}

std::string ErrorOf(const Result<PipelineDefinition>& result) {
  EXPECT_FALSE(result) << "expected an error";
  return result ? std::string() : result.error().message();
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

TEST(PostgresSourceTest, ReadsTheKeysAndDefaults) {
  auto parsed = Parse(kPostgres);
  ASSERT_TRUE(parsed) << parsed.error().message();
  ASSERT_TRUE(parsed->source.is_postgres());
  const PostgresSourceDefinition& s = parsed->source.postgres;
  EXPECT_EQ(s.hostname, "127.0.0.1");
  EXPECT_EQ(s.port, 5433);
  EXPECT_EQ(s.username, "floe");
  EXPECT_EQ(s.password.value, "hunter2-very-secret");
  EXPECT_TRUE(s.password.secret);
  EXPECT_EQ(s.database_name, "shop");
  EXPECT_EQ(s.slot_name, "floe_shop");
  EXPECT_EQ(s.decoding_plugin_name, "pgoutput");
  EXPECT_EQ(s.publication_name, "dbz_publication");
  EXPECT_EQ(s.publication_autocreate_mode, "all_tables");
  EXPECT_EQ(s.startup_mode, StartupMode::kLatestOffset);
  EXPECT_EQ(s.heartbeat_interval, milliseconds(30000));
  EXPECT_TRUE(s.schema_name.empty());
  // schema.table patterns, as the mysql source's db.table.
  EXPECT_TRUE(parsed->MatchesSourceTable("public", "orders_2024"));
  EXPECT_TRUE(parsed->MatchesSourceTable("public", "items"));
  EXPECT_FALSE(parsed->MatchesSourceTable("public", "orders_tmp"));
  EXPECT_FALSE(parsed->MatchesSourceTable("crm", "items"));
  // The schema is the sink namespace by default.
  auto sink = parsed->RouteFor("public", "items");
  ASSERT_TRUE(sink);
  EXPECT_EQ(sink->ToString(), "public.items");

  auto all =
      Parse(kPostgres, {"source.schema-name=pub.*", "source.publication.name=p1",
                        "source.publication.autocreate.mode=filtered",
                        "source.decoding.plugin.name=pgoutput", "source.heartbeat.interval=5s"});
  ASSERT_TRUE(all) << all.error().message();
  EXPECT_EQ(all->source.postgres.schema_name, "pub.*");
  EXPECT_EQ(all->source.postgres.publication_name, "p1");
  EXPECT_EQ(all->source.postgres.publication_autocreate_mode, "filtered");
  EXPECT_EQ(all->source.postgres.heartbeat_interval, milliseconds(5000));
}

TEST(PostgresSourceTest, DescribesWithoutSecretsAndReadsItsDescriptionBack) {
  auto parsed = Parse(kPostgres);
  ASSERT_TRUE(parsed) << parsed.error().message();
  std::string described = parsed->Describe();
  EXPECT_FALSE(Contains(described, "hunter2-very-secret")) << described;
  EXPECT_TRUE(Contains(described, "slot.name: floe_shop")) << described;
  EXPECT_TRUE(Contains(described, "decoding.plugin.name: pgoutput")) << described;
  EXPECT_TRUE(Contains(described, "scan.startup.mode: latest-offset")) << described;
  auto again = ParsePipelineDefinition(described, "shop.yaml", Environment::FromMap({}), {});
  ASSERT_TRUE(again) << again.error().message() << "\n" << described;
  EXPECT_EQ(again->Describe(), described);
  EXPECT_EQ(parsed->Redact("password hunter2-very-secret"), "password ****");
}

TEST(PostgresSourceTest, RefusesUnknownKeysAndOtherPlugins) {
  std::string typo = ErrorOf(Parse(kPostgres, {"source.slot-name=x"}));
  EXPECT_TRUE(Contains(typo, "slot-name")) << typo;
  EXPECT_TRUE(Contains(typo, "slot.name")) << typo;  // the nearest known key
  std::string mysql_key = ErrorOf(Parse(kPostgres, {"source.server-id=5400"}));
  EXPECT_TRUE(Contains(mysql_key, "server-id")) << mysql_key;
  std::string debezium = ErrorOf(Parse(kPostgres, {"source.debezium.snapshot.mode=never"}));
  EXPECT_TRUE(Contains(debezium, "without Debezium")) << debezium;

  std::string plugin = ErrorOf(Parse(kPostgres, {"source.decoding.plugin.name=decoderbufs"}));
  EXPECT_TRUE(Contains(plugin, "decoding.plugin.name")) << plugin;
  EXPECT_TRUE(Contains(plugin, "'decoderbufs' is not supported")) << plugin;
  EXPECT_TRUE(Contains(plugin, "pgoutput")) << plugin;
  std::string mode = ErrorOf(Parse(kPostgres, {"source.publication.autocreate.mode=some"}));
  EXPECT_TRUE(Contains(mode, "publication.autocreate.mode")) << mode;
  std::string schema = ErrorOf(Parse(kPostgres, {"source.schema-name=("}));
  EXPECT_TRUE(Contains(schema, "schema-name")) << schema;
}

TEST(PostgresSourceTest, StartupModesAreInitialAndLatestOffset) {
  auto initial = Parse(kPostgres, {"source.scan.startup.mode=initial"});
  ASSERT_TRUE(initial) << initial.error().message();
  EXPECT_EQ(initial->source.postgres.startup_mode, StartupMode::kInitial);
  // initial is Flink CDC's default.
  std::string text(kPostgres);
  text.erase(text.find("  scan.startup.mode: latest-offset\n"),
             std::string_view("  scan.startup.mode: latest-offset\n").size());
  auto by_default = Parse(text);
  ASSERT_TRUE(by_default) << by_default.error().message();
  EXPECT_EQ(by_default->source.postgres.startup_mode, StartupMode::kInitial);
  for (const char* mode : {"timestamp", "snapshot", "earliest-offset", "specific-offset"}) {
    std::string other =
        ErrorOf(Parse(kPostgres, {std::string("source.scan.startup.mode=") + mode}));
    EXPECT_TRUE(Contains(other, "not a mode of a postgres source")) << other;
  }
}

TEST(PostgresSourceTest, NeedsItsRequiredKeys) {
  std::string text(kPostgres);
  auto without = [&](std::string_view line) {
    std::string out = text;
    out.erase(out.find(line), line.size() + 1);
    return Parse(out);
  };
  EXPECT_TRUE(Contains(ErrorOf(without("  slot.name: floe_shop")), "slot.name"));
  EXPECT_TRUE(Contains(ErrorOf(without("  database-name: shop")), "database-name"));
  EXPECT_TRUE(Contains(ErrorOf(without("  hostname: 127.0.0.1")), "hostname"));
  EXPECT_TRUE(Contains(ErrorOf(without("  tables: public.orders_\\.*, public.items")), "tables"));
}

}  // namespace
}  // namespace floe::pipeline
