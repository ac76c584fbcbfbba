// The monitor's planning: every starting strategy and its boundary
// (inclusive / exclusive), end snapshots, overwrite and delete snapshots
// (stop or skip), empty tables, split packing and its state form.

#include <set>

#include <gtest/gtest.h>

#include "floe/iceberg/tests/scan_test_util.h"
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

/// The snapshot of each split, in order.
std::vector<SnapshotId> Snapshots(const std::vector<IcebergSplit>& splits) {
  std::vector<SnapshotId> out;
  for (const auto& s : splits) out.push_back(s.snapshot_id);
  return out;
}

class PlannerTest : public ::testing::Test {
 protected:
  PlannerTest() : t_("planner", IdStringSchema()) {}

  void SetUp() override {
    for (int i = 0; i < 3; ++i) s_.push_back(Append(i));
  }
  SnapshotId Append(int i) {
    DataFile f = t_.WriteData({{Value::Int64(i), Str("x")}});
    return t_.Commit("append", {{f}});
  }
  Result<PlanRound> Plan(const PlanOptions& o, const PlanPosition& from = {}) {
    return PlanNextRound(t_.io(), t_.metadata(), "db.t", o, from);
  }
  PlanRound MustPlan(const PlanOptions& o, const PlanPosition& from = {}) {
    auto r = Plan(o, from);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r ? std::move(*r) : PlanRound{};
  }

  TestTable t_;
  std::vector<SnapshotId> s_;
};

TEST_F(PlannerTest, TableScanThenIncrementalReadsTheCurrentSnapshotWhole) {
  PlanOptions o;  // batch
  PlanRound r = MustPlan(o);
  // Three small files weigh 3 x 4 MiB (open cost): one split of the current snapshot.
  ASSERT_EQ(r.splits.size(), 1u);
  EXPECT_EQ(r.splits[0].snapshot_id, s_[2]);
  EXPECT_EQ(r.splits[0].tasks.size(), 3u);
  EXPECT_TRUE(r.next.finished);
  EXPECT_EQ(r.next.last_planned, s_[2]);

  o.streaming = true;
  r = MustPlan(o);
  EXPECT_FALSE(r.next.finished);
  SnapshotId s4 = Append(4);
  PlanRound r2 = MustPlan(o, r.next);
  EXPECT_EQ(Snapshots(r2.splits), std::vector<SnapshotId>{s4});
  EXPECT_EQ(r2.next.last_planned, s4);
  // Nothing new: nothing planned.
  EXPECT_TRUE(MustPlan(o, r2.next).splits.empty());
}

TEST_F(PlannerTest, IncrementalStrategiesAndTheirBoundaries) {
  PlanOptions o;
  o.streaming = true;
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  EXPECT_EQ(Snapshots(MustPlan(o).splits), (std::vector<SnapshotId>{s_[0], s_[1], s_[2]}));
  o.strategy = StartingStrategy::kIncrementalFromLatestSnapshot;
  EXPECT_EQ(Snapshots(MustPlan(o).splits), std::vector<SnapshotId>{s_[2]});
  o.strategy = StartingStrategy::kIncrementalFromLatestSnapshotExclusive;
  PlanRound exclusive = MustPlan(o);
  EXPECT_TRUE(exclusive.splits.empty());
  EXPECT_EQ(exclusive.next.last_planned, s_[2]);

  o.strategy = StartingStrategy::kIncrementalFromSnapshotId;
  o.start_snapshot_id = s_[1];
  EXPECT_EQ(Snapshots(MustPlan(o).splits), (std::vector<SnapshotId>{s_[1], s_[2]}));
  o.start_snapshot_id = 12345;
  auto missing = Plan(o);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  o.start_snapshot_id.reset();

  o.strategy = StartingStrategy::kIncrementalFromSnapshotTimestamp;
  const int64_t t1 = t_.metadata().SnapshotById(s_[1])->timestamp_ms;
  o.start_snapshot_timestamp_ms = t1;  // exactly at s2: inclusive
  EXPECT_EQ(Snapshots(MustPlan(o).splits), (std::vector<SnapshotId>{s_[1], s_[2]}));
  o.start_snapshot_timestamp_ms = t1 - 1;  // between s1 and s2: the later one
  EXPECT_EQ(Snapshots(MustPlan(o).splits), (std::vector<SnapshotId>{s_[1], s_[2]}));
  o.start_snapshot_timestamp_ms = t1 + 1'000'000;  // after every snapshot: only new ones
  EXPECT_TRUE(MustPlan(o).splits.empty());
}

TEST_F(PlannerTest, TheFirstRoundRecordsItsOriginAndAReplayPlansTheSameSplits) {
  PlanOptions o;
  o.streaming = true;
  PlanRound whole = MustPlan(o);
  ASSERT_TRUE(whole.next.origin.has_value());
  EXPECT_EQ(*whole.next.origin, (PlanOrigin{true, s_[2]}));
  o.strategy = StartingStrategy::kIncrementalFromSnapshotId;
  o.start_snapshot_id = s_[1];
  PlanRound incremental = MustPlan(o);
  EXPECT_EQ(incremental.next.origin, (PlanOrigin{false, s_[0]}));
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  o.start_snapshot_id.reset();
  EXPECT_EQ(MustPlan(o).next.origin, (PlanOrigin{false, std::nullopt}));

  // Later snapshots: a replay of either origin plans what the first round and
  // the rounds after it planned, whatever the strategy says now.
  const SnapshotId s4 = Append(4);
  o.strategy = StartingStrategy::kIncrementalFromLatestSnapshotExclusive;
  o.replay_origin = whole.next.origin;
  PlanRound replayed = MustPlan(o);
  ASSERT_EQ(replayed.splits.size(), 2u);
  EXPECT_TRUE(replayed.splits[0].whole_table);
  EXPECT_EQ(replayed.splits[0].snapshot_id, s_[2]);
  EXPECT_EQ(replayed.splits[0].tasks.size(), 3u);
  EXPECT_EQ(replayed.splits[1].snapshot_id, s4);
  EXPECT_EQ(replayed.next.origin, whole.next.origin);
  o.replay_origin = incremental.next.origin;
  EXPECT_EQ(Snapshots(MustPlan(o).splits), (std::vector<SnapshotId>{s_[1], s_[2], s4}));

  // An origin snapshot that is gone cannot be planned again.
  o.replay_origin = PlanOrigin{true, 12345};
  auto gone = Plan(o);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound);
}

TEST_F(PlannerTest, EndSnapshotAndPlanningCountBoundARound) {
  PlanOptions o;
  o.streaming = true;
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  o.end_snapshot_id = s_[1];
  PlanRound r = MustPlan(o);
  EXPECT_EQ(Snapshots(r.splits), (std::vector<SnapshotId>{s_[0], s_[1]}));
  EXPECT_TRUE(r.next.finished);

  o.end_snapshot_id.reset();
  o.max_planning_snapshot_count = 2;
  r = MustPlan(o);
  EXPECT_EQ(Snapshots(r.splits), (std::vector<SnapshotId>{s_[0], s_[1]}));
  EXPECT_EQ(Snapshots(MustPlan(o, r.next).splits), std::vector<SnapshotId>{s_[2]});
}

TEST_F(PlannerTest, OverwriteStopsPlanningAfterTheSnapshotsBeforeIt) {
  DataFile f = t_.WriteData({{Value::Int64(9), Str("y")}});
  SnapshotId overwrite = t_.Commit("overwrite", {{f}});
  SnapshotId after = Append(10);
  PlanOptions o;
  o.streaming = true;
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  PlanRound r = MustPlan(o);
  EXPECT_EQ(Snapshots(r.splits), (std::vector<SnapshotId>{s_[0], s_[1], s_[2]}));
  ASSERT_TRUE(r.stopped_by.has_value());
  EXPECT_EQ(r.stopped_by->code(), ErrorCode::kNotSupported);
  EXPECT_NE(r.stopped_by->message().find(std::to_string(overwrite)), std::string::npos);
  EXPECT_NE(r.stopped_by->message().find("--streaming-skip-overwrite-snapshots"),
            std::string::npos);
  EXPECT_EQ(r.next.last_planned, s_[2]);

  o.skip_overwrite_snapshots = true;
  r = MustPlan(o);
  EXPECT_FALSE(r.stopped_by.has_value());
  EXPECT_EQ(Snapshots(r.splits), (std::vector<SnapshotId>{s_[0], s_[1], s_[2], after}));
}

TEST_F(PlannerTest, BranchesAndTags) {
  t_.metadata().refs["audit"] = iceberg::SnapshotRef::Branch(s_[1]);
  t_.metadata().refs["v1"] = iceberg::SnapshotRef::Tag(s_[0]);
  PlanOptions o;
  o.streaming = true;
  o.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  o.branch = "audit";  // its head is s2: s3 on main is not on it
  PlanRound r = MustPlan(o);
  EXPECT_EQ(Snapshots(r.splits), (std::vector<SnapshotId>{s_[0], s_[1]}));
  EXPECT_EQ(r.next.last_planned, s_[1]);
  o.branch = "v1";  // a tag is not a branch
  EXPECT_EQ(Plan(o).error().code(), ErrorCode::kNotFound);

  PlanOptions tag;
  tag.tag = "v1";  // batch, table scan of the tagged snapshot
  r = MustPlan(tag);
  EXPECT_EQ(Snapshots(r.splits), std::vector<SnapshotId>{s_[0]});
  EXPECT_EQ(r.splits[0].tasks.size(), 1u);
  EXPECT_TRUE(r.next.finished);
  tag.streaming = true;
  EXPECT_FALSE(ValidatePlanOptions(tag).has_value());
}

TEST(PlannerEmptyTable, BatchEndsStreamingWaits) {
  TestTable t("planner_empty", IdStringSchema());
  PlanOptions o;
  auto r = PlanNextRound(t.io(), t.metadata(), "db.t", o, {});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->splits.empty());
  EXPECT_TRUE(r->next.finished);
  o.streaming = true;
  r = PlanNextRound(t.io(), t.metadata(), "db.t", o, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->next.finished);
  EXPECT_FALSE(r->next.last_planned.has_value());
  // The first snapshot of the table is then read (nothing before it).
  DataFile f = t.WriteData({{Value::Int64(1), Str("a")}});
  SnapshotId first = t.Commit("append", {{f}});
  auto r2 = PlanNextRound(t.io(), t.metadata(), "db.t", o, r->next);
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(Snapshots(r2->splits), std::vector<SnapshotId>{first});
}

TEST(PlannerOptions, StrategyNamesAndStartValues) {
  EXPECT_EQ(*ParseStartingStrategy("TABLE_SCAN_THEN_INCREMENTAL"),
            StartingStrategy::kTableScanThenIncremental);
  EXPECT_EQ(*ParseStartingStrategy("incremental-from-latest-snapshot-exclusive"),
            StartingStrategy::kIncrementalFromLatestSnapshotExclusive);
  EXPECT_FALSE(ParseStartingStrategy("latest").has_value());
  PlanOptions o;
  o.strategy = StartingStrategy::kIncrementalFromSnapshotId;
  EXPECT_FALSE(ValidatePlanOptions(o).has_value());
  o.start_snapshot_id = 1;
  EXPECT_TRUE(ValidatePlanOptions(o).has_value());
  o.start_snapshot_timestamp_ms = 1;
  EXPECT_FALSE(ValidatePlanOptions(o).has_value());
}

TEST(Splits, PackedByWeightWithTheOpenCost) {
  std::vector<iceberg::FileScanTask> tasks(5);
  const int64_t sizes[] = {10, 60, 30, 200, 5};
  for (size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].data_file.file_path = "f" + std::to_string(i);
    tasks[i].data_file.file_size_in_bytes = sizes[i];
  }
  SplitOptions o{100, 20, 1};  // target 100, every file weighs at least 20, one open split
  auto splits = PackSplits(7, 0, tasks, o);
  // [20 + 60 = 80]; f2 opens [30] and the fuller [80] closes; f3 opens [200],
  // which closes at once; f4 joins [30].
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[0].tasks.size(), 2u);
  EXPECT_EQ(splits[1].tasks[0].data_file.file_path, "f3");
  EXPECT_EQ(splits[2].tasks.size(), 2u);
  EXPECT_EQ(splits[2].tasks[1].data_file.file_path, "f4");
  EXPECT_TRUE(PackSplits(7, 0, {}, o).empty());

  SplitOptions props = SplitOptionsFor(
      {{"read.split.target-size", "1000"}, {"read.split.planning-lookback", "3"}}, {0, 50});
  EXPECT_EQ(props.target_size, 1000);
  EXPECT_EQ(props.open_file_cost, 50);
  EXPECT_EQ(props.lookback, 3);
  EXPECT_EQ(SplitOptionsFor({{"read.split.planning-lookback", "3"}}, {0, 0, 7}).lookback, 7);
}

TEST(Splits, ALookBackFillsEarlierSplits) {
  std::vector<iceberg::FileScanTask> tasks(5);
  const int64_t sizes[] = {10, 60, 30, 200, 5};
  for (size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].data_file.file_path = "f" + std::to_string(i);
    tasks[i].data_file.file_size_in_bytes = sizes[i];
  }
  // Look-back 10: f4 (weight 20) still fits the first split [20 + 60].
  auto splits = PackSplits(7, 0, tasks, SplitOptions{100, 20, 10});
  ASSERT_EQ(splits.size(), 3u);
  std::vector<std::string> first;
  for (const auto& t : splits[0].tasks) first.push_back(t.data_file.file_path);
  EXPECT_EQ(first, (std::vector<std::string>{"f0", "f1", "f4"}));
  EXPECT_EQ(splits[1].tasks[0].data_file.file_path, "f2");
  EXPECT_EQ(splits[2].tasks[0].data_file.file_path, "f3");
  // Look-back 2: the third open split (f3's, 200) is the fullest and closes at once.
  splits = PackSplits(7, 0, tasks, SplitOptions{100, 20, 2});
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[0].tasks[0].data_file.file_path, "f3");
  EXPECT_EQ(splits[1].tasks.size(), 3u);  // f0, f1, f4
  EXPECT_EQ(splits[2].tasks[0].data_file.file_path, "f2");
}

TEST(Splits, MoreReadersThanSplitsGetSmallerSplits) {
  std::vector<iceberg::FileScanTask> tasks(2);
  for (size_t i = 0; i < tasks.size(); ++i) {
    tasks[i].data_file.file_path = "f" + std::to_string(i);
    tasks[i].data_file.file_size_in_bytes = 40;
  }
  EXPECT_EQ(PackSplits(7, 0, tasks, SplitOptions{128, 4}).size(), 1u);
  SplitOptions two{128, 4};
  two.min_splits = 2;
  EXPECT_EQ(PackSplits(7, 0, tasks, two).size(), 2u);
  // Applies only when the target size is not given.
  EXPECT_EQ(SplitOptionsFor({}, {0, 0, 0, 4}).min_splits, 4);
  EXPECT_EQ(SplitOptionsFor({}, {64, 0, 0, 4}).min_splits, 1);
}

TEST(Splits, LargeFilesAreCutAtSplitOffsets) {
  std::vector<iceberg::FileScanTask> tasks(1);
  tasks[0].data_file.file_size_in_bytes = 1000;
  tasks[0].data_file.split_offsets = {4, 300, 500, 700, 900};
  auto splits = PackSplits(7, 0, tasks, SplitOptions{400, 20});
  // Parts [0, 500) [500, 900) [900, end): every row group start is in one.
  ASSERT_EQ(splits.size(), 3u);
  EXPECT_EQ(splits[0].RangeOf(0).start, 0);
  EXPECT_EQ(splits[0].RangeOf(0).end, 500);
  EXPECT_EQ(splits[1].RangeOf(0).start, 500);
  EXPECT_EQ(splits[1].RangeOf(0).end, 900);
  EXPECT_EQ(splits[2].RangeOf(0).start, 900);
  EXPECT_FALSE(splits[2].RangeOf(0).end.has_value());
  auto back = SplitFromJson(SplitToJson(splits[1]));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->RangeOf(0).start, 500);
  EXPECT_EQ(back->RangeOf(0).end, 900);
  // Unsorted or single offsets: the file is one part.
  tasks[0].data_file.split_offsets = {500, 4};
  EXPECT_EQ(PackSplits(7, 0, tasks, SplitOptions{400, 20}).size(), 1u);
}

TEST_F(PlannerTest, PartsOfAFileReadEveryRowOnce) {
  std::vector<iceberg::scantest::RowValues> rows;
  for (int i = 0; i < 3000; ++i) rows.push_back({Value::Int64(1000 + i), Str("part")});
  format::parquet::WriterOptions small;
  small.row_group_size_bytes = 4096;  // many row groups
  DataFile big = t_.WriteData(rows, {}, small);
  {  // the split offsets a writer records: where each row group starts
    auto input = t_.io().OpenInput(big.file_path);
    ASSERT_TRUE(input.has_value());
    auto footer = format::parquet::ParquetReader::Open(std::move(*input));
    ASSERT_TRUE(footer.has_value());
    for (const auto& rg : (*footer)->metadata().row_groups) {
      big.split_offsets.push_back(iceberg::RowGroupOffset(rg));
    }
  }
  ASSERT_GT(big.split_offsets.size(), 3u);
  SnapshotId s = t_.Commit("append", {{big}});
  PlanOptions o;
  o.streaming = true;
  o.strategy = StartingStrategy::kIncrementalFromLatestSnapshot;
  o.split_overrides = {big.file_size_in_bytes / 3, 1};
  PlanRound r = MustPlan(o);
  ASSERT_GE(r.splits.size(), 2u);
  std::multiset<int64_t> ids;
  for (const IcebergSplit& split : r.splits) {
    EXPECT_EQ(split.snapshot_id, s);
    for (size_t i = 0; i < split.tasks.size(); ++i) {
      iceberg::DataReaderOptions ro;
      ro.split_start = split.RangeOf(i).start;
      ro.split_end = split.RangeOf(i).end;
      auto reader =
          iceberg::DataReader::Open(t_.io(), split.tasks[i], t_.schema(), t_.schema(), nullptr, ro);
      ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
      Arena arena;
      std::vector<Value> values;
      while (true) {
        values.clear();
        auto n = (*reader)->ReadBatch(&arena, &values);
        ASSERT_TRUE(n.has_value());
        if (*n == 0) break;
        for (size_t k = 0; k < *n; ++k) ids.insert(values[k * 2].i64);
      }
    }
  }
  std::multiset<int64_t> want;
  for (int i = 0; i < 3000; ++i) want.insert(1000 + i);
  EXPECT_EQ(ids, want);
}

TEST(Splits, StateRoundTrip) {
  IcebergSplit split;
  split.snapshot_id = 42;
  split.schema_id = 3;
  iceberg::FileScanTask task;
  task.data_file.file_path = "/w/data/a.parquet";
  task.data_file.record_count = 9;
  task.spec_id = 1;
  task.data_sequence_number = 5;
  auto del = std::make_shared<iceberg::DeleteFileEntry>();
  del->file.content = iceberg::DataFileContent::kEqualityDeletes;
  del->file.file_path = "/w/data/eq.parquet";
  del->file.equality_ids = {1, 2};
  del->data_sequence_number = 6;
  task.deletes.push_back(del);
  split.tasks.push_back(task);
  auto back = SplitFromJson(SplitToJson(split));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(back->snapshot_id, 42);
  EXPECT_EQ(back->schema_id, 3);
  ASSERT_EQ(back->tasks.size(), 1u);
  EXPECT_EQ(back->tasks[0].data_file.file_path, "/w/data/a.parquet");
  EXPECT_EQ(back->tasks[0].data_sequence_number, 5);
  ASSERT_EQ(back->tasks[0].deletes.size(), 1u);
  EXPECT_EQ(back->tasks[0].deletes[0]->file.equality_ids, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(back->tasks[0].deletes[0]->data_sequence_number, 6);
  EXPECT_FALSE(SplitFromJson(nlohmann::json::parse(R"({"snapshot":1})")).has_value());
}

}  // namespace
}  // namespace floe::source
