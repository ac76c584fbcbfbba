// The kafka source's settings as `floe run` makes them from a pipeline file,
// and its position text. Its reading, checkpoints and restarts are tested
// against the test broker by tests/interop/ingest/test_run_kafka.py.

#include "floe/run/kafka_source.h"

#include <gtest/gtest.h>

#include "floe/pipeline/pipeline_definition.h"
#include "floe/run/run_pipeline.h"

namespace floe::run {
namespace {

constexpr std::string_view kPipeline = R"(source:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9092,127.0.0.1:9094
  topic: shop;crm
  properties.group.id: floe-shop
  scan.startup.mode: specific-offsets
  scan.startup.specific-offsets: partition:0,offset:42;partition:1,offset:7
  properties.security.protocol: SASL_PLAINTEXT
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///lake/catalog.db", warehouse: lake/warehouse}
pipeline:
  name: shop
)";

Result<KafkaSourceOptions> Make(std::vector<std::string> overrides = {}) {
  auto definition = pipeline::ParsePipelineDefinition(
      kPipeline, "shop.yaml", pipeline::Environment::FromMap({}), overrides);
  if (!definition) return std::unexpected(definition.error());
  return MakeKafkaSourceOptions(*definition, "");
}

TEST(RunKafkaSourceTest, TheConnectorKeysBecomeTheConsumersOptions) {
  auto options = Make();
  ASSERT_TRUE(options) << options.error().ToString();
  const kafka::KafkaSourceOptions& c = options->consumer;
  EXPECT_EQ(c.bootstrap_servers, "127.0.0.1:9092,127.0.0.1:9094");
  EXPECT_EQ(c.topics, (std::vector<std::string>{"shop", "crm"}));
  EXPECT_EQ(c.group_id, "floe-shop");
  EXPECT_EQ(c.startup_mode, kafka::StartupMode::kSpecificOffsets);
  EXPECT_EQ(c.specific_offsets, (std::map<int32_t, int64_t>{{0, 42}, {1, 7}}));
  EXPECT_EQ(c.client_properties.at("security.protocol"), "SASL_PLAINTEXT");
  EXPECT_FALSE(c.client_properties.contains("bootstrap.servers"));
  EXPECT_EQ(options->format, ingest::InputFormat::kDebeziumJson);
  EXPECT_EQ(options->sink.pipeline_id, "run-shop");
  EXPECT_TRUE(options->tables.route_function);
  EXPECT_TRUE(options->tables.evolve_schemas);

  auto canal = Make({"source.value.format=canal-json", "pipeline.schema.change.behavior=ignore"});
  ASSERT_TRUE(canal) << canal.error().ToString();
  EXPECT_EQ(canal->format, ingest::InputFormat::kCanalJson);
  EXPECT_FALSE(canal->tables.evolve_schemas);
}

TEST(RunKafkaSourceTest, SettingsTheSourceOwnsOrLacksAreRefusedByName) {
  auto owned = Make({"source.properties.enable.auto.commit=true"});
  ASSERT_FALSE(owned);
  EXPECT_NE(owned.error().message().find("properties.enable.auto.commit"), std::string::npos)
      << owned.error().message();
  auto offsets = Make({"source.scan.startup.specific-offsets=partition:x"});
  ASSERT_FALSE(offsets);
  EXPECT_NE(offsets.error().message().find("scan.startup.specific-offsets"), std::string::npos)
      << offsets.error().message();
  auto behavior = Make({"pipeline.schema.change.behavior=exception"});
  ASSERT_FALSE(behavior);
  EXPECT_EQ(behavior.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(behavior.error().message().find("with a kafka source"), std::string::npos)
      << behavior.error().message();
}

TEST(RunKafkaSourceTest, ValidationRefusesJsonRowsAndAMissingCatalog) {
  auto options = Make();
  ASSERT_TRUE(options) << options.error().ToString();
  KafkaSourceOptions json = *options;
  json.format = ingest::InputFormat::kJson;
  EXPECT_FALSE(ValidateKafkaSourceOptions(json));
  KafkaSourceOptions no_catalog = *options;
  no_catalog.sink.catalog = nullptr;
  EXPECT_FALSE(ValidateKafkaSourceOptions(no_catalog));
  EXPECT_TRUE(ValidateKafkaSourceOptions(*options));
}

TEST(RunKafkaSourceTest, ThePositionTextListsPartitionsInOrder) {
  kafka::PartitionOffsets offsets{{{"shop", 1}, 300}, {{"crm", 0}, 5}, {{"shop", 0}, 42}};
  EXPECT_EQ(KafkaPositionText(offsets), "crm[0]:5,shop[0]:42,shop[1]:300");
  EXPECT_EQ(KafkaPositionText({}), "");
}

TEST(RunKafkaSourceTest, ThePositionTextReadsBack) {
  kafka::PartitionOffsets offsets{{{"shop.v2", 1}, 300}, {{"crm_x", 0}, 5}, {{"shop-a", 0}, 0}};
  auto parsed = ParseKafkaPositionText(KafkaPositionText(offsets));
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_EQ(*parsed, offsets);
  auto empty = ParseKafkaPositionText("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  // Two source subtasks' positions, joined by CheckpointPositions.
  auto joined = ParseKafkaPositionText("a[0]:1;a[1]:2");
  ASSERT_TRUE(joined) << joined.error().ToString();
  EXPECT_EQ(joined->size(), 2u);
  for (std::string_view bad : {"a[0]", "a[0]:", "[0]:1", "a[]:1", "a[-1]:1", "a[0]:-1", "a[0]:1x",
                               "a[x]:1", "a[0]:1,", "mysql-bin.000003:4"}) {
    auto refused = ParseKafkaPositionText(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().code(), ErrorCode::kCorruption) << bad;
  }
}

TEST(RunKafkaSourceTest, OnErrorAndTheDeadLetterFolderComeFromTheSourceSection) {
  auto fail = Make();
  ASSERT_TRUE(fail) << fail.error().ToString();
  EXPECT_EQ(fail->on_error, ingest::OnError::kFail);
  EXPECT_TRUE(fail->dead_letter_dir.empty());
  auto skip = Make({"source.on-error=skip", "source.dead-letter.path=s3://bucket/letters"});
  ASSERT_TRUE(skip) << skip.error().ToString();
  EXPECT_EQ(skip->on_error, ingest::OnError::kSkip);
  EXPECT_EQ(skip->dead_letter_dir, "s3://bucket/letters");
  auto unknown = Make({"source.on-error=ignore"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("on-error"), std::string::npos)
      << unknown.error().message();
}

}  // namespace
}  // namespace floe::run
