// End to end: `floe ingest`'s job (source -> writers -> committers ->
// check-commit sink) over a Hadoop catalog in a temporary folder, the result
// read back with floe's table scan.

#include "floe/ingest/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/ingest/tests/test_catalog.h"
#include "floe/types/row_json.h"

namespace floe::ingest {
namespace {

/// A Debezium event (Kafka Connect wrapper) of table db.<table> with columns
/// id (long, key), name (string) and, from `version` 2 on, qty (int).
std::string Event(std::string_view table, std::string_view op, std::string_view before,
                  std::string_view after, int version = 1) {
  std::string fields =
      R"([{"type":"int64","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"})";
  if (version >= 2) fields += R"(,{"type":"int32","optional":true,"field":"qty"})";
  fields += "]";
  auto row = [&](std::string_view name) {
    return fmt::format(R"({{"type":"struct","optional":true,"field":"{}","fields":{}}})", name,
                       fields);
  };
  return fmt::format(
      R"({{"schema":{{"type":"struct","optional":false,"fields":[{},{},)"
      R"({{"type":"struct","optional":false,"field":"source","fields":[{{"type":"string","field":"db"}},{{"type":"string","field":"table"}}]}},)"
      R"({{"type":"string","optional":false,"field":"op"}}]}},)"
      R"("payload":{{"before":{},"after":{},"source":{{"db":"db","table":"{}"}},"op":"{}"}}}})",
      row("before"), row("after"), before, after, table, op);
}

/// Every row of a table's current snapshot as JSON text, sorted.
std::vector<std::string> ReadTable(iceberg::Catalog& catalog, const iceberg::TableIdentifier& id) {
  auto loaded = catalog.LoadTable(id);
  EXPECT_TRUE(loaded.has_value()) << loaded.error().ToString();
  if (!loaded) return {};
  auto scan = iceberg::TableScan::Make(catalog.file_io(), loaded->metadata, {});
  EXPECT_TRUE(scan.has_value()) << scan.error().ToString();
  auto tasks = scan->PlanFiles();
  EXPECT_TRUE(tasks.has_value()) << tasks.error().ToString();
  std::vector<std::string> rows;
  for (const auto& task : *tasks) {
    auto reader = iceberg::DataReader::Open(catalog.file_io(), task, scan->schema(),
                                            scan->projected_schema(), nullptr);
    EXPECT_TRUE(reader.has_value()) << reader.error().ToString();
    if (!reader) return {};
    const types::Schema& schema = (*reader)->schema();
    size_t width = schema.fields().size();
    while (true) {
      Arena arena;
      std::vector<types::Value> values;
      auto n = (*reader)->ReadBatch(&arena, &values);
      EXPECT_TRUE(n.has_value()) << n.error().ToString();
      if (!n || *n == 0) break;
      for (size_t r = 0; r < *n; ++r) {
        std::string text;
        types::AppendRowJson(schema, types::Row(values.data() + r * width, width), &text);
        rows.push_back(std::move(text));
      }
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// The floe.checkpoint-id of every snapshot of a table, in order.
std::vector<int64_t> CommittedCheckpoints(iceberg::Catalog& catalog,
                                          const iceberg::TableIdentifier& id,
                                          std::string* last_position = nullptr) {
  std::vector<int64_t> ids;
  auto loaded = catalog.LoadTable(id);
  if (!loaded) return ids;
  for (const auto& snapshot : loaded->metadata.snapshots) {
    auto it = snapshot.summary.find(std::string(sink::kSummaryCheckpointId));
    if (it != snapshot.summary.end()) ids.push_back(std::stoll(it->second));
    auto pos = snapshot.summary.find(std::string(sink::kSummarySourcePosition));
    if (last_position != nullptr && pos != snapshot.summary.end()) *last_position = pos->second;
  }
  return ids;
}

class PipelineTest : public ::testing::Test {
 protected:
  PipelineTest() : catalog_(testing::MakeHadoopCatalog(dir_ / "warehouse")) {
    input_ = dir_ / "changes.jsonl";
  }

  IngestOptions Options() {
    IngestOptions o;
    o.inputs = {input_};
    o.route = "lake.{db}_{table}";
    o.primary_key = {"id"};
    o.catalog = [c = catalog_]() -> Result<std::shared_ptr<iceberg::Catalog>> { return c; };
    o.checkpoint_interval = std::chrono::milliseconds(50);
    o.parallelism = 2;
    return o;
  }

  void Append(const std::vector<std::string>& lines) {
    std::ofstream out(input_, std::ios::app | std::ios::binary);
    for (const auto& l : lines) out << l << "\n";
  }

  testing::TempDir dir_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  std::string input_;
};

TEST_F(PipelineTest, ChangesSchemaEvolutionAndResumeAfterRestart) {
  Append({
      Event("a", "c", "null", R"({"id":1,"name":"one"})"),
      Event("a", "c", "null", R"({"id":2,"name":"two"})"),
      Event("b", "r", "null", R"({"id":10,"name":"ten"})"),
      Event("a", "u", R"({"id":1,"name":"one"})", R"({"id":1,"name":"uno"})"),
      "null",
      // A new column mid-stream.
      Event("a", "c", "null", R"({"id":3,"name":"three","qty":7})", 2),
      Event("a", "d", R"({"id":2,"name":"two"})", "null"),
  });
  IngestStats stats;
  auto first = RunIngest(Options(), &stats);
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  EXPECT_EQ(first->events, 7);
  EXPECT_EQ(first->skipped, 1);
  EXPECT_EQ(first->tables_created, 2);
  EXPECT_EQ(first->schema_changes, 1);
  EXPECT_GE(first->commits, 2);
  EXPECT_EQ(first->rows_per_table["lake.db_a"], 6);  // 2 inserts, -U/+U, insert, delete
  EXPECT_EQ(first->state_dir, input_ + ".floe-state");
  EXPECT_TRUE(std::filesystem::exists(first->state_dir + "/pipeline-id"));

  iceberg::TableIdentifier a{{"lake"}, "db_a"};
  iceberg::TableIdentifier b{{"lake"}, "db_b"};
  EXPECT_EQ(ReadTable(*catalog_, a),
            (std::vector<std::string>{R"({"id":1,"name":"uno","qty":null})",
                                      R"({"id":3,"name":"three","qty":7})"}));
  EXPECT_EQ(ReadTable(*catalog_, b), (std::vector<std::string>{R"({"id":10,"name":"ten"})"}));
  std::string position;
  auto ids_a = CommittedCheckpoints(*catalog_, a, &position);
  ASSERT_FALSE(ids_a.empty());
  EXPECT_EQ(position, input_ + ":" + std::to_string(std::filesystem::file_size(input_)));

  // Run again with the same arguments after the file grew: only the new
  // events are applied, with new checkpoint ids.
  Append({Event("b", "u", R"({"id":10,"name":"ten"})", R"({"id":10,"name":"TEN"})"),
          Event("a", "c", "null", R"({"id":4,"name":"four","qty":1})", 2)});
  IngestStats stats2;
  auto second = RunIngest(Options(), &stats2);
  ASSERT_TRUE(second.has_value()) << second.error().ToString();
  EXPECT_EQ(second->events, 2);
  EXPECT_EQ(second->pipeline_id, first->pipeline_id);
  EXPECT_EQ(ReadTable(*catalog_, a),
            (std::vector<std::string>{R"({"id":1,"name":"uno","qty":null})",
                                      R"({"id":3,"name":"three","qty":7})",
                                      R"({"id":4,"name":"four","qty":1})"}));
  EXPECT_EQ(ReadTable(*catalog_, b), (std::vector<std::string>{R"({"id":10,"name":"TEN"})"}));
  auto ids_after = CommittedCheckpoints(*catalog_, a);
  std::set<int64_t> unique(ids_after.begin(), ids_after.end());
  EXPECT_EQ(unique.size(), ids_after.size()) << "a checkpoint id committed twice";
  EXPECT_GT(ids_after.back(), ids_a.back());

  // Nothing new: a third run reads nothing and changes no table.
  auto third = RunIngest(Options());
  ASSERT_TRUE(third.has_value()) << third.error().ToString();
  EXPECT_EQ(third->events, 0);
  EXPECT_EQ(ReadTable(*catalog_, b), (std::vector<std::string>{R"({"id":10,"name":"TEN"})"}));
}

TEST_F(PipelineTest, BadEventFailsThenSkipLosesNothing) {
  std::vector<std::string> good;
  for (int i = 1; i <= 50; ++i) {
    good.push_back(Event("t", "c", "null", fmt::format(R"({{"id":{},"name":"n{}"}})", i, i)));
  }
  std::vector<std::string> lines(good.begin(), good.begin() + 30);
  lines.push_back(Event("t", "c", "null", R"({"id":"x","name":"bad"})"));
  lines.insert(lines.end(), good.begin() + 30, good.end());
  Append(lines);
  int64_t bad_offset = 0;
  for (int i = 0; i < 30; ++i) bad_offset += static_cast<int64_t>(lines[i].size()) + 1;

  auto failed = RunIngest(Options());
  ASSERT_FALSE(failed.has_value());
  const std::string text = failed.error().ToString();
  EXPECT_NE(text.find(fmt::format("changes.jsonl:31 (offset {})", bad_offset)), std::string::npos)
      << text;
  EXPECT_NE(text.find("payload.after.id"), std::string::npos) << text;

  auto options = Options();
  options.on_error = OnError::kSkip;
  auto skipped = RunIngest(options);
  ASSERT_TRUE(skipped.has_value()) << skipped.error().ToString();
  EXPECT_EQ(skipped->dead_letters, 1);
  auto rows = ReadTable(*catalog_, {{"lake"}, "db_t"});
  EXPECT_EQ(rows.size(), 50u);
  std::ifstream letters(input_ + ".floe-state/dead-letter.jsonl");
  std::string letter;
  ASSERT_TRUE(std::getline(letters, letter));
  EXPECT_NE(letter.find("\"line\":31"), std::string::npos) << letter;
  EXPECT_FALSE(std::getline(letters, letter)) << "one dead letter only";
}

TEST_F(PipelineTest, UpsertKeepsTheLastImageOfEachKey) {
  std::vector<std::string> lines;
  for (int i = 1; i <= 20; ++i) {
    lines.push_back(Event("u", "c", "null", fmt::format(R"({{"id":{},"name":"v0"}})", i)));
  }
  for (int round = 1; round <= 3; ++round) {
    for (int i = 1; i <= 20; i += 2) {
      lines.push_back(
          Event("u", "u", "null", fmt::format(R"({{"id":{},"name":"v{}"}})", i, round)));
    }
  }
  lines.push_back(Event("u", "d", R"({"id":20,"name":"v0"})", "null"));
  Append(lines);
  auto options = Options();
  options.upsert = true;
  auto run = RunIngest(options);
  ASSERT_TRUE(run.has_value()) << run.error().ToString();
  auto rows = ReadTable(*catalog_, {{"lake"}, "db_u"});
  ASSERT_EQ(rows.size(), 19u);
  std::vector<std::string> expected;
  for (int i = 1; i <= 19; ++i) {
    expected.push_back(fmt::format(R"({{"id":{},"name":"{}"}})", i, i % 2 == 1 ? "v3" : "v0"));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(rows, expected);
}

TEST_F(PipelineTest, JsonRowsIntoAFixedTable) {
  std::ofstream(dir_ / "schema.json")
      << R"({"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"},)"
         R"({"id":2,"name":"v","required":false,"type":"double"}]})";
  for (int i = 0; i < 100; ++i) Append({fmt::format(R"({{"id":{},"v":{}.5}})", i, i)});
  IngestOptions o = Options();
  o.route.clear();
  o.table = "raw.points";
  o.format = InputFormat::kJson;
  o.schema_file = dir_ / "schema.json";
  o.partition_by = "bucket(4, id)";
  auto run = RunIngest(o);
  ASSERT_TRUE(run.has_value()) << run.error().ToString();
  EXPECT_EQ(run->rows, 100);
  auto rows = ReadTable(*catalog_, {{"raw"}, "points"});
  ASSERT_EQ(rows.size(), 100u);
  EXPECT_EQ(rows[0], R"({"id":0,"v":0.5})");
}

TEST_F(PipelineTest, StopRequestEndsAFollowedRunWithAFinalCheckpoint) {
  Append({Event("f", "c", "null", R"({"id":1,"name":"a"})")});
  auto options = Options();
  options.follow = true;
  std::atomic<bool> stop{false};
  IngestStats stats;
  std::thread stopper([&] {
    for (int i = 0; i < 200 && stats.events_read.load() < 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    Append({Event("f", "c", "null", R"({"id":2,"name":"b"})")});
    for (int i = 0; i < 200 && stats.events_read.load() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stop = true;
  });
  auto run = RunIngest(options, &stats, &stop);
  stopper.join();
  ASSERT_TRUE(run.has_value()) << run.error().ToString();
  EXPECT_EQ(ReadTable(*catalog_, {{"lake"}, "db_f"}),
            (std::vector<std::string>{R"({"id":1,"name":"a"})", R"({"id":2,"name":"b"})"}));
}

TEST_F(PipelineTest, OptionsAreChecked) {
  auto o = Options();
  o.table = "x.y";
  EXPECT_FALSE(ResolveIngestOptions(o).has_value());  // table and route
  o = Options();
  o.upsert = true;
  o.overwrite = true;
  EXPECT_FALSE(ResolveIngestOptions(o).has_value());
  o = Options();
  o.inputs = {"-"};
  auto r = ResolveIngestOptions(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("--state-dir"), std::string::npos);
  o = Options();
  o.pipeline_id = "mine";
  auto resolved = ResolveIngestOptions(o);
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(resolved->sink.pipeline_id, "mine");
}

/// Debezium's op "t" for table db.<table>.
std::string TruncateEvent(std::string_view table) {
  return fmt::format(
      R"({{"schema":null,"payload":{{"before":null,"after":null,)"
      R"("source":{{"connector":"mysql","db":"db","table":"{}"}},"op":"t","ts_ms":1}}}})",
      table);
}

/// `floe capture`'s schema-change event for TRUNCATE TABLE db.<table>.
std::string CaptureTruncateEvent(std::string_view table) {
  return fmt::format(R"({{"source":{{"connector":"mysql","db":"db","table":"{0}"}},"ts_ms":1,)"
                     R"("databaseName":"db","schemaName":null,"ddl":"TRUNCATE TABLE {0}",)"
                     R"("floe":{{"kind":"truncate_table"}},"tableChanges":[{{"type":"ALTER",)"
                     R"("id":"\"db\".\"{0}\"","table":null,"comment":null}}]}})",
                     table);
}

std::string Insert(std::string_view table, int id, std::string_view name) {
  return Event(table, "c", "null", fmt::format(R"({{"id":{},"name":"{}"}})", id, name));
}

TEST_F(PipelineTest, TruncateWithinOneCheckpointKeepsOnlyTheRowsAfterIt) {
  // One Poll reads everything: rows, truncation and rows share a checkpoint.
  Append({Insert("w", 1, "one"), Insert("w", 2, "two"), Insert("w", 3, "three"),
          Event("w", "u", R"({"id":2,"name":"two"})", R"({"id":2,"name":"TWO"})"),
          Insert("keep", 1, "k"), TruncateEvent("w"), Insert("w", 4, "four"),
          // An update of a key from before the truncation: its delete finds
          // nothing, its new image stays.
          Event("w", "u", R"({"id":1,"name":"one"})", R"({"id":1,"name":"uno"})"),
          Insert("w", 5, "five"), Event("w", "d", R"({"id":5,"name":"five"})", "null"),
          TruncateEvent("missing")});
  auto options = Options();
  options.checkpoint_interval = std::chrono::milliseconds(60000);  // the final checkpoint only
  IngestStats stats;
  auto run = RunIngest(options, &stats);
  ASSERT_TRUE(run.has_value()) << run.error().ToString();
  EXPECT_EQ(stats.truncates.load(), 1);
  EXPECT_EQ(run->truncates, 1);
  EXPECT_EQ(run->skipped, 1);  // the truncation of a table that does not exist
  iceberg::TableIdentifier w{{"lake"}, "db_w"};
  EXPECT_EQ(ReadTable(*catalog_, w),
            (std::vector<std::string>{R"({"id":1,"name":"uno"})", R"({"id":4,"name":"four"})"}));
  EXPECT_EQ(CommittedCheckpoints(*catalog_, w).size(), 1u);
  EXPECT_EQ(ReadTable(*catalog_, {{"lake"}, "db_keep"}),
            (std::vector<std::string>{R"({"id":1,"name":"k"})"}));
  EXPECT_FALSE(catalog_->LoadTable({{"lake"}, "db_missing"}).has_value());
}

TEST_F(PipelineTest, TruncateAcrossCheckpointsAndRunsRemovesCommittedRows) {
  Append({Insert("x", 1, "one"), Insert("x", 2, "two"),
          Event("x", "u", R"({"id":2,"name":"two"})", R"({"id":2,"name":"TWO"})")});
  auto first = RunIngest(Options());
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  iceberg::TableIdentifier x{{"lake"}, "db_x"};
  ASSERT_EQ(ReadTable(*catalog_, x).size(), 2u);

  // A later run truncates the committed rows (op t) and adds new ones.
  Append({TruncateEvent("x"), Insert("x", 3, "three"), Insert("x", 2, "again")});
  auto second = RunIngest(Options());
  ASSERT_TRUE(second.has_value()) << second.error().ToString();
  EXPECT_EQ(ReadTable(*catalog_, x),
            (std::vector<std::string>{R"({"id":2,"name":"again"})", R"({"id":3,"name":"three"})"}));
  auto loaded = catalog_->LoadTable(x);
  ASSERT_TRUE(loaded.has_value());
  bool overwrite = false;
  for (const auto& s : loaded->metadata.snapshots) overwrite |= s.operation == "overwrite";
  EXPECT_TRUE(overwrite) << "the truncation and the new rows are one overwrite snapshot";

  // floe capture's TRUNCATE TABLE, then more rows in later checkpoints.
  std::vector<std::string> lines = {CaptureTruncateEvent("x")};
  for (int i = 10; i < 20; ++i) lines.push_back(Insert("x", i, "n"));
  Append(lines);
  auto third = RunIngest(Options());
  ASSERT_TRUE(third.has_value()) << third.error().ToString();
  auto rows = ReadTable(*catalog_, x);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.front(), R"({"id":10,"name":"n"})");
  auto ids = CommittedCheckpoints(*catalog_, x);
  std::set<int64_t> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size()) << "a checkpoint id committed twice";

  // A truncation as the last event of a run, and nothing after it.
  Append({TruncateEvent("x")});
  auto fourth = RunIngest(Options());
  ASSERT_TRUE(fourth.has_value()) << fourth.error().ToString();
  EXPECT_TRUE(ReadTable(*catalog_, x).empty());
}

}  // namespace
}  // namespace floe::ingest
