// The split protocol and the checkpointed state of the Iceberg source: a
// reader ahead of a checkpoint gets no split, the monitor's state goes with
// the last reader's, a restore resumes splits at their positions; and a
// read stopped again and again (each time with a final checkpoint, mid-split)
// and restored emits every row exactly once.

#include <set>

#include <gtest/gtest.h>

#include "floe/engine/job.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/source/split_enumerator.h"
#include "floe/source/split_reader.h"
#include "floe/testing/small_tables.h"

namespace floe::source {
namespace {

using iceberg::DataFile;
using iceberg::SnapshotId;
using iceberg::scantest::Str;
using iceberg::scantest::TestTable;
using types::Value;

using floe::testing::IdStringSchema;

EnumeratorOptions Options(TestTable& t, int readers) {
  EnumeratorOptions o;
  o.table_name = "db.t";
  o.load = [&t]() -> Result<iceberg::TableMetadata> { return t.metadata(); };
  o.io = &t.io();
  o.plan.strategy = StartingStrategy::kIncrementalFromEarliestSnapshot;
  o.monitor_interval = std::chrono::milliseconds(10);
  o.readers = readers;
  return o;
}

/// Appends `snapshots` snapshots of `files` files of `rows` rows (ids 0, 1, ...).
int64_t Fill(TestTable& t, int snapshots, int files, int rows) {
  int64_t id = 0;
  for (int s = 0; s < snapshots; ++s) {
    std::vector<TestTable::Added> added;
    for (int f = 0; f < files; ++f) {
      std::vector<iceberg::scantest::RowValues> values;
      for (int r = 0; r < rows; ++r) values.push_back({Value::Int64(id++), Str("row")});
      added.push_back({t.WriteData(values)});
    }
    t.Commit("append", std::move(added));
  }
  return id;
}

TEST(SplitEnumerator, ReaderAheadOfACheckpointWaitsAndTheLastCarriesTheMonitor) {
  TestTable t("enum_protocol", IdStringSchema());
  Fill(t, 3, 1, 2);
  EnumeratorOptions o = Options(t, 2);
  o.plan.split_overrides = {1, 1};  // a split per file
  SplitEnumerator e(o);
  ASSERT_TRUE(e.Start({}).has_value());
  EXPECT_EQ(e.pending_splits(), 3u);

  bool finished = false;
  auto a = e.Next(0, &finished);
  ASSERT_TRUE(a.has_value() && a->has_value());
  SplitAssignment at_five = **a;
  at_five.position = 5;
  std::string s0 = e.SnapshotState(0, 1, at_five);
  EXPECT_EQ(s0.find("monitor"), std::string::npos);
  // Reader 0 snapshotted checkpoint 1, reader 1 not yet: no split for reader 0.
  auto held = e.Next(0, &finished);
  ASSERT_TRUE(held.has_value());
  EXPECT_FALSE(held->has_value());
  EXPECT_FALSE(finished);
  auto b = e.Next(1, &finished);
  ASSERT_TRUE(b.has_value() && b->has_value());
  std::string s1 = e.SnapshotState(1, 1, **b);
  EXPECT_NE(s1.find("monitor"), std::string::npos);
  auto c = e.Next(0, &finished);
  ASSERT_TRUE(c.has_value() && c->has_value());

  // The restore: the splits being read first, at their positions, then the pending one.
  SplitEnumerator restored(o);
  ASSERT_TRUE(restored.Start({s0, s1}).has_value());
  EXPECT_EQ(restored.pending_splits(), 3u);
  auto first = restored.Next(0, &finished);
  ASSERT_TRUE(first.has_value() && first->has_value());
  EXPECT_EQ((*first)->position, 5);
  EXPECT_EQ((*first)->split.snapshot_id, at_five.split.snapshot_id);
  // A checkpoint without the monitor's state is refused.
  SplitEnumerator broken(o);
  auto bad = broken.Start({s0});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
}

TEST(SplitEnumerator, PlanningFailuresAreRetriedUpToTheLimit) {
  TestTable t("enum_failures", IdStringSchema());
  Fill(t, 1, 1, 2);
  EnumeratorOptions o = Options(t, 1);
  o.plan.streaming = true;
  o.monitor_interval = std::chrono::milliseconds(0);  // a round at every Next
  o.max_allowed_planning_failures = 2;
  std::vector<bool> fail;  // per load after the first
  size_t loads = 0;
  o.load = [&]() -> Result<iceberg::TableMetadata> {
    const size_t n = loads++;
    if (n > 0 && n - 1 < fail.size() && fail[n - 1]) return IoError("catalog unreachable");
    return t.metadata();
  };
  fail = {true, false, true, true, true};
  SplitEnumerator e(o);
  ASSERT_TRUE(e.Start({}).has_value());
  bool finished = false;
  EXPECT_TRUE(e.Next(0, &finished).has_value());  // failure 1: retried
  EXPECT_TRUE(e.Next(0, &finished).has_value());  // success: the count starts again
  EXPECT_TRUE(e.Next(0, &finished).has_value());  // failure 1
  EXPECT_TRUE(e.Next(0, &finished).has_value());  // failure 2
  auto failed = e.Next(0, &finished);             // failure 3: beyond the limit
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code(), ErrorCode::kIo);
  EXPECT_FALSE(e.Next(0, &finished).has_value());  // sticky
}

/// Collects JSON lines; its state is how many it holds (a restore keeps
/// that many), and it asks the job to stop after `stop_after` new rows.
class Collect final : public engine::Operator<RowChunk, engine::Nothing> {
 public:
  Collect(std::vector<std::string>* lines, int64_t stop_after, std::function<void()> stop)
      : lines_(lines), stop_after_(stop_after), stop_(std::move(stop)) {}
  Status Open(const engine::OperatorContext&, const engine::RestoredState& state) override {
    lines_->resize(state.own ? std::stoul(*state.own) : 0);
    return Ok();
  }
  Status Process(RowChunk chunk, engine::Collector<engine::Nothing>&) override {
    size_t start = 0;
    while (start < chunk.text.size()) {
      size_t end = chunk.text.find('\n', start);
      lines_->push_back(chunk.text.substr(start, end - start));
      start = end + 1;
    }
    received_ += chunk.rows;
    if (received_ >= stop_after_ && !stopped_) {
      stopped_ = true;
      stop_();
    }
    return Ok();
  }
  Result<std::string> SnapshotState(engine::CheckpointId,
                                    engine::Collector<engine::Nothing>&) override {
    return std::to_string(lines_->size());
  }

 private:
  std::vector<std::string>* lines_;
  int64_t stop_after_;
  std::function<void()> stop_;
  int64_t received_ = 0;
  bool stopped_ = false;
};

/// Reads `t` (incremental from the earliest snapshot, batch) in `runs` runs
/// that each stop after a few rows with a final checkpoint, then once to the
/// end; returns the collected lines.
std::vector<std::string> ReadWithRestarts(TestTable& t, const std::string& name, bool changelog,
                                          int runs) {
  const std::string dir = iceberg::scantest::TempRoot(name);
  io::LocalFileIO state_io;
  std::vector<std::string> lines;
  auto run = [&](int64_t stop_after, int parallelism) {
    engine::CheckpointStore store(&state_io, dir);
    auto latest = store.LoadLatest();
    ASSERT_TRUE(latest.has_value());
    std::vector<std::string> states;
    engine::CheckpointId restored = 0;
    if (*latest) {
      restored = (*latest)->id;
      for (const auto& [key, value] : (*latest)->states) {
        if (key.starts_with("read/")) states.push_back(value);
      }
    }
    EnumeratorOptions eo = Options(t, parallelism);
    eo.plan.split_overrides = {1, 1};
    eo.plan.changelog = changelog;
    auto enumerator = std::make_shared<SplitEnumerator>(eo);
    ASSERT_TRUE(enumerator->Start(states).has_value());
    engine::JobOptions jo;
    jo.store = &store;
    jo.checkpoint_interval = std::chrono::milliseconds(3);
    engine::Job job(jo);
    SplitReaderOptions ro;
    ro.batch_rows = 3;  // chunks of 3 rows: checkpoints land inside files
    ro.restored_checkpoint = restored;
    ro.changelog = changelog;
    auto rows = job.AddSource<RowChunk>("read", parallelism, [&](int) {
      return std::make_unique<IcebergSplitReader>(enumerator, &t.io(), ro);
    });
    job.AddOperator<RowChunk, engine::Nothing>("collect", 1, rows, nullptr, [&](int) {
      return std::make_unique<Collect>(&lines, stop_after, [&job] { job.RequestStop(); });
    });
    auto s = job.Run();
    ASSERT_TRUE(s.has_value()) << s.error().ToString();
  };
  for (int i = 0; i < runs; ++i) run(4 + i % 5, 1 + i % 3);
  run(int64_t{1} << 40, 2);  // to the end
  std::filesystem::remove_all(dir);
  return lines;
}

TEST(IcebergSource, StoppedAndRestoredManyTimesEveryRowOnce) {
  TestTable t("source_restarts", IdStringSchema());
  const int64_t total = Fill(t, 4, 3, 7);
  std::vector<std::string> lines = ReadWithRestarts(t, "source_restarts_state", false, 12);
  std::multiset<std::string> got(lines.begin(), lines.end());
  std::multiset<std::string> want;
  for (int64_t id = 0; id < total; ++id)
    want.insert(R"({"id":)" + std::to_string(id) + R"(,"s":"row"})");
  EXPECT_EQ(got, want);
}

TEST(IcebergSource, ChangelogStoppedAndRestoredEqualsOneRun) {
  TestTable t("source_changelog_restarts", IdStringSchema());
  Fill(t, 2, 2, 7);
  // Remove one file of the first snapshot, then delete positions of another.
  const iceberg::Snapshot* first = t.metadata().SnapshotById(100);
  ASSERT_NE(first, nullptr);
  auto plan = iceberg::TableScan::Make(t.io(), t.metadata(), {});
  ASSERT_TRUE(plan.has_value());
  auto tasks = plan->PlanFiles();
  ASSERT_TRUE(tasks.has_value() && tasks->size() == 4u);
  t.Commit("delete", {}, {(*tasks)[0].data_file.file_path});
  DataFile pos = t.WritePositionDeletes(
      {{(*tasks)[1].data_file.file_path, 0}, {(*tasks)[1].data_file.file_path, 5}});
  t.Commit("delete", {{pos}});
  std::vector<std::string> once = ReadWithRestarts(t, "source_changelog_once", true, 0);
  std::vector<std::string> restarted =
      ReadWithRestarts(t, "source_changelog_restarts_state", true, 10);
  EXPECT_EQ(once.size(), 28u + 7u + 2u);  // 28 inserts, a file's 7 rows and 2 rows deleted
  EXPECT_EQ(std::multiset<std::string>(restarted.begin(), restarted.end()),
            std::multiset<std::string>(once.begin(), once.end()));
}

}  // namespace
}  // namespace floe::source
