// Changelogs of snapshots: appends, position deletes, an upsert commit
// (equality delete + new row: an update pair by identifier field), a
// copy-on-write rewrite (unchanged rows cancel out), a removed file.

#include <gtest/gtest.h>

#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/source/change_format.h"
#include "floe/source/changelog.h"
#include "floe/source/split_planner.h"
#include "floe/testing/small_tables.h"

namespace floe::source {
namespace {

using iceberg::DataFile;
using iceberg::SnapshotId;
using iceberg::scantest::Str;
using iceberg::scantest::TestTable;
using types::Value;

using floe::testing::IdStringSchema;

std::vector<std::string> Lines(const Result<std::vector<RowChangeLine>>& changes) {
  EXPECT_TRUE(changes.has_value()) << changes.error().ToString();
  std::vector<std::string> out;
  if (!changes) return out;
  for (const auto& c : *changes) out.push_back(std::string(ChangeKindName(c.kind)) + " " + c.row);
  return out;
}

TEST(Changelog, DeletesUpsertsRewritesAndRemovals) {
  TestTable t("changelog", IdStringSchema(/*keyed=*/true));
  DataFile f1 = t.WriteData(
      {{Value::Int64(1), Str("a")}, {Value::Int64(2), Str("b")}, {Value::Int64(3), Str("c")}});
  SnapshotId s1 = t.Commit("append", {{f1}});
  auto changes = [&](SnapshotId parent, SnapshotId s) {
    return Lines(ComputeChangelog(t.io(), t.metadata(), parent, s, nullptr, true));
  };
  EXPECT_EQ(Lines(ComputeChangelog(t.io(), t.metadata(), std::nullopt, s1, nullptr, true)),
            (std::vector<std::string>{R"(insert {"id":1,"s":"a"})", R"(insert {"id":2,"s":"b"})",
                                      R"(insert {"id":3,"s":"c"})"}));

  // A position delete of row 1 (id 2).
  DataFile pos = t.WritePositionDeletes({{f1.file_path, 1}});
  SnapshotId s2 = t.Commit("delete", {{pos}});
  EXPECT_EQ(changes(s1, s2), std::vector<std::string>{R"(delete {"id":2,"s":"b"})"});

  // An upsert of id 3: an equality delete of key 3 and the new row, and a new id 4.
  DataFile eq = t.WriteEqualityDeletes({1}, {{Value::Int64(3)}});
  DataFile f2 = t.WriteData({{Value::Int64(3), Str("c2")}, {Value::Int64(4), Str("d")}});
  SnapshotId s3 = t.Commit("overwrite", {{eq}, {f2}});
  EXPECT_EQ(changes(s2, s3), (std::vector<std::string>{R"(update_before {"id":3,"s":"c"})",
                                                       R"(update_after {"id":3,"s":"c2"})",
                                                       R"(insert {"id":4,"s":"d"})"}));

  // Printed columns: the rows are still compared whole.
  EXPECT_EQ(Lines(ComputeChangelog(t.io(), t.metadata(), s2, s3, nullptr, true, {"s"})),
            (std::vector<std::string>{R"(update_before {"s":"c"})", R"(update_after {"s":"c2"})",
                                      R"(insert {"s":"d"})"}));
  EXPECT_FALSE(ComputeChangelog(t.io(), t.metadata(), s2, s3, nullptr, true, {"nope"}).has_value());

  // Copy-on-write: f2 rewritten as f3 with id 4 changed; id 3 moves unchanged.
  DataFile f3 = t.WriteData({{Value::Int64(3), Str("c2")}, {Value::Int64(4), Str("d2")}});
  SnapshotId s4 = t.Commit("overwrite", {{f3}}, {f2.file_path});
  EXPECT_EQ(changes(s3, s4), (std::vector<std::string>{R"(update_before {"id":4,"s":"d"})",
                                                       R"(update_after {"id":4,"s":"d2"})"}));

  // The whole of f1 removed: its live row (id 1) is deleted.
  SnapshotId s5 = t.Commit("delete", {}, {f1.file_path});
  EXPECT_EQ(changes(s4, s5), std::vector<std::string>{R"(delete {"id":1,"s":"a"})"});

  // The planner makes overwrite and delete snapshots changelog splits.
  PlanOptions o;
  o.streaming = true;
  o.changelog = true;
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  auto round = PlanNextRound(t.io(), t.metadata(), "db.t", o, {});
  ASSERT_TRUE(round.has_value()) << round.error().ToString();
  EXPECT_FALSE(round->stopped_by.has_value());
  ASSERT_EQ(round->splits.size(), 5u);
  EXPECT_FALSE(round->splits[0].changelog);
  EXPECT_TRUE(round->splits[1].changelog);
  EXPECT_EQ(round->splits[1].parent, s1);
  auto back = SplitFromJson(SplitToJson(round->splits[1]));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->changelog);
  EXPECT_EQ(back->parent, s1);

  std::string event;
  ChangeOrigin origin{"a.b", "t", 5, 2, 1000};
  AppendDebeziumEvent('u', R"({"id":1})", R"({"id":2})", origin, &event);
  EXPECT_EQ(event,
            R"({"before":{"id":1},"after":{"id":2},"op":"u","source":{"connector":"iceberg",)"
            R"("name":"floe","db":"a.b","table":"t","snapshot_id":5,"sequence_number":2,)"
            R"("ts_ms":1000},"ts_ms":1000})");
  EXPECT_EQ(*ParseOutputFormat("debezium-json"), OutputFormat::kDebeziumJson);
  EXPECT_FALSE(ParseOutputFormat("avro").has_value());

  std::string line;
  AppendChangeJson(ChangeKind::kUpdateAfter, 7, R"({"id":1})", &line);
  EXPECT_EQ(line, R"({"op":"update_after","snapshot_id":7,"row":{"id":1}})");
}

}  // namespace
}  // namespace floe::source
