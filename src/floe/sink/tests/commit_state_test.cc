#include "floe/sink/commit_state.h"

#include <gtest/gtest.h>

#include "floe/common/json_dump.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/sink/committer_operator.h"
#include "floe/types/schema_json.h"

namespace floe::sink {
namespace {

CommitState SampleState() {
  CommitState state;
  PendingCheckpoint c;
  c.id = 7;
  c.source_position = "events.jsonl:1234";
  StagedTable t;
  t.id = {{"db", "eu"}, "orders"};
  t.manifests.push_back({"/w/db/eu/orders/metadata/floe-commit-7-a-s0-data.avro", 4096, 0,
                         iceberg::ManifestContent::kData, 3, 300});
  t.manifests.push_back({"/w/db/eu/orders/metadata/floe-commit-7-a-s0-deletes.avro", 2048, 0,
                         iceberg::ManifestContent::kDeletes, 1, 10});
  t.referenced_data_files = {"/w/db/eu/orders/data/x.parquet"};
  t.data_files = 3;
  t.delete_files = 1;
  t.records = 300;
  t.deleted_records = 10;
  c.tables.emplace(t.id.ToString(), t);
  StagedTable empty;
  empty.id = {{"db"}, "quiet"};
  empty.overwrite = true;
  c.tables.emplace(empty.id.ToString(), empty);
  state.pending.emplace(7, c);
  PendingCheckpoint d;
  d.id = 8;
  d.tables.emplace(t.id.ToString(), t);
  state.pending.emplace(8, d);
  state.known_tables["db.quiet"] = {{{"db"}, "quiet"}, 4};
  state.known_tables["db.eu.orders"] = {t.id, 0};
  return state;
}

TEST(CommitStateTest, RoundTrips) {
  CommitState state = SampleState();
  std::string text = SerializeCommitState(state);
  auto parsed = ParseCommitState(text, "committer/0");
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_EQ(*parsed, state);
  // The namespace levels survive (not re-split at dots).
  EXPECT_EQ(parsed->pending.at(7).tables.at("db.eu.orders").id.ns,
            (iceberg::Namespace{"db", "eu"}));
  auto empty = ParseCommitState("", "committer/0");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->pending.empty());
}

TEST(CommitStateTest, BadStatesAreCorruptionNamingTheProblem) {
  struct Case {
    std::string text;
    std::string expect;
  };
  std::vector<Case> cases = {
      {"{", "not valid JSON"},
      {R"({"format": 2, "pending": [], "known-tables": []})", "format 2"},
      {R"({"format": 1, "known-tables": []})", "'pending'"},
      {R"({"format": 1, "pending": [{"checkpoint-id": "x", "source-position": ""}], "known-tables": []})",
       "'checkpoint-id' is not an integer"},
      {R"({"format": 1, "pending": [{"checkpoint-id": 3, "source-position": "", "tables": [
           {"namespace": ["n"], "name": "t", "referenced-data-files": [], "data-files": 0,
            "delete-files": 0, "records": 0, "deleted-records": 0, "overwrite": false,
            "manifests": [{"path": "m", "length": 1, "spec-id": 0, "content": "bogus",
                           "files": 1, "records": 1}]}]}], "known-tables": []})",
       "manifest content 'bogus'"},
      {R"({"format": 1, "pending": [{"checkpoint-id": 3, "source-position": "", "tables": [
           {"namespace": ["n"], "name": "t", "referenced-data-files": [], "data-files": 0,
            "delete-files": 0, "records": 0, "deleted-records": 0, "overwrite": false,
            "manifests": [{"path": "m", "length": 1, "spec-id": 4294967296, "content": "data",
                           "files": 1, "records": 1}]}]}], "known-tables": []})",
       "'spec-id' is out of range"},
      {R"({"format": 1, "pending": [{"checkpoint-id": 18446744073709551615, "source-position": ""}],
           "known-tables": []})",
       "'checkpoint-id' is out of range"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseCommitState(c.text, "committer/1");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kCorruption);
    EXPECT_NE(parsed.error().message().find(c.expect), std::string::npos)
        << parsed.error().message();
    EXPECT_NE(parsed.error().message().find("committer/1"), std::string::npos);
  }
}

TEST(CommitStateTest, MergeKeepsOnlyTheTablesOfThisSubtask) {
  CommitState a = SampleState();
  CommitState b;
  PendingCheckpoint c;
  c.id = 7;
  c.source_position = "events.jsonl:1234";
  StagedTable other;
  other.id = {{"db"}, "other"};
  c.tables.emplace("db.other", other);
  b.pending.emplace(7, c);
  std::vector<std::string> states = {SerializeCommitState(a), SerializeCommitState(b)};

  auto all = MergeCommitStates(states, [](const std::string&) { return true; });
  ASSERT_TRUE(all) << all.error().ToString();
  EXPECT_EQ(all->pending.at(7).tables.size(), 3u);
  EXPECT_EQ(all->pending.at(7).source_position, "events.jsonl:1234");

  auto only = MergeCommitStates(states, [](const std::string& key) { return key == "db.other"; });
  ASSERT_TRUE(only);
  ASSERT_EQ(only->pending.size(), 1u);
  EXPECT_EQ(only->pending.at(7).tables.size(), 1u);
  EXPECT_TRUE(only->known_tables.empty());
}

TEST(CommitStateTest, RouteIsStableAndSpreadsTables) {
  // Fixed values: the route must not change between builds, or a restored
  // state would be committed by the wrong subtask (or twice).
  EXPECT_EQ(CommitterSubtaskOf("db.orders", 1), 0u);
  size_t first = CommitterSubtaskOf("db.orders", 7);
  EXPECT_EQ(CommitterSubtaskOf("db.orders", 7), first);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 400; ++i) ++counts[CommitterSubtaskOf("db.t" + std::to_string(i), 4)];
  for (int c : counts) EXPECT_GT(c, 60);
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c.
  EXPECT_EQ(CommitterSubtaskOf("a", 1000), 0xaf63dc4c8601ec8cULL % 1000);
}

// Every JSON writer on names and state from outside floe, given bytes that
// are not UTF-8 (C1-C3: nlohmann's dump threw and the process aborted, at
// every checkpoint). Each must write without throwing, keep the bytes as
// \udcXX escapes, and a strict reader must refuse the text rather than read
// something else.
TEST(CommitStateTest, EveryJsonWriterSurvivesInvalidUtf8) {
  const std::string bad("caf\xE9", 4);

  CommitState state = SampleState();
  state.pending.at(7).source_position = bad + ".jsonl:12";
  StagedTable t;
  t.id = {{"db"}, bad};
  state.pending.at(7).tables.emplace(t.id.ToString(), t);
  std::string commit_text;
  ASSERT_NO_THROW(commit_text = SerializeCommitState(state));
  EXPECT_NE(commit_text.find("caf\\udce9.jsonl:12"), std::string::npos);
  auto parsed = ParseCommitState(commit_text, "committer/0");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code(), ErrorCode::kCorruption);

  engine::CompletedCheckpoint checkpoint{3, 1000, {{"source/0", "{\"file\":\"" + bad + "\"}"}}};
  std::string checkpoint_text;
  ASSERT_NO_THROW(checkpoint_text = engine::CheckpointStore::Serialize(checkpoint));
  EXPECT_NE(checkpoint_text.find("caf\\udce9"), std::string::npos);
  EXPECT_FALSE(engine::CheckpointStore::Parse(checkpoint_text, "checkpoint-3.json"));

  types::Schema schema({types::NestedField{1, bad, false, types::Type::Long(), bad}});
  std::string schema_text;
  ASSERT_NO_THROW(schema_text = DumpJson(types::SchemaToJson(schema), 2));
  EXPECT_NE(schema_text.find("\"name\": \"caf\\udce9\""), std::string::npos);
}

}  // namespace
}  // namespace floe::sink
