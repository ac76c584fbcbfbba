#include "floe/engine/job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "floe/testing/temp_dir.h"

namespace floe::engine {
namespace {

// An external "table" the committer writes to, with its max committed
// checkpoint id recorded in the same atomic step (as Iceberg snapshot
// summaries do).
struct FakeTable {
  std::mutex mu;
  std::vector<int> rows;
  CheckpointId max_committed = 0;
  std::set<CheckpointId> committed_ids;
  int duplicate_commits = 0;

  void Commit(CheckpointId id, const std::vector<int>& batch) {
    std::lock_guard lock(mu);
    if (!committed_ids.insert(id).second) ++duplicate_commits;
    rows.insert(rows.end(), batch.begin(), batch.end());
    max_committed = std::max(max_committed, id);
  }
};

// Emits 1..limit in batches; its state is the next number to emit.
class CountingSource : public SourceOperator<int> {
 public:
  explicit CountingSource(int limit) : limit_(limit) {}
  Status Open(const OperatorContext&, const RestoredState& state) override {
    if (state.own) next_ = std::stoi(*state.own);
    return Ok();
  }
  Result<bool> Poll(Collector<int>& out) override {
    for (int i = 0; i < 7 && next_ <= limit_; ++i) FLOE_RETURN_IF_ERROR(out.Emit(next_++));
    return next_ <= limit_;
  }
  Result<std::string> SnapshotState(CheckpointId) override { return std::to_string(next_); }

 private:
  int limit_;
  int next_ = 1;
};

// Buffers rows and hands them downstream at each barrier (like a writer
// completing its files); fails once after `fail_after` rows if set.
class BatchingOperator : public Operator<int, std::vector<int>> {
 public:
  explicit BatchingOperator(std::atomic<int>* fail_after) : fail_after_(fail_after) {}
  Status Process(int record, Collector<std::vector<int>>&) override {
    if (fail_after_ != nullptr && fail_after_->fetch_sub(1) == 1) {
      return IoError("injected failure at row {}", record);
    }
    buffer_.push_back(record);
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId, Collector<std::vector<int>>& out) override {
    if (!buffer_.empty()) FLOE_RETURN_IF_ERROR(out.Emit(std::move(buffer_)));
    buffer_.clear();
    return std::string();
  }

 private:
  std::atomic<int>* fail_after_;
  std::vector<int> buffer_;
};

// Keeps results per checkpoint in its state and commits them when the
// checkpoint is complete; on restore re-commits what the table lacks.
class Committer : public Operator<std::vector<int>, Nothing> {
 public:
  explicit Committer(FakeTable* table) : table_(table) {}
  Status Open(const OperatorContext&, const RestoredState& state) override {
    if (!state.own || state.own->empty()) return Ok();
    // State: "id:r,r,r;id:r,r;"
    std::string_view s = *state.own;
    while (!s.empty()) {
      size_t colon = s.find(':'), semi = s.find(';');
      CheckpointId id = std::stoll(std::string(s.substr(0, colon)));
      std::vector<int> rows;
      std::string_view list = s.substr(colon + 1, semi - colon - 1);
      while (!list.empty()) {
        size_t comma = list.find(',');
        rows.push_back(std::stoi(std::string(list.substr(0, comma))));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      }
      staged_[id] = std::move(rows);
      s = s.substr(semi + 1);
    }
    return CommitUpTo(state.checkpoint_id);
  }
  Status Process(std::vector<int> batch, Collector<Nothing>&) override {
    pending_.insert(pending_.end(), batch.begin(), batch.end());
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId id, Collector<Nothing>&) override {
    if (!pending_.empty()) staged_[id] = std::move(pending_);
    pending_.clear();
    std::string state;
    for (auto& [cid, rows] : staged_) {
      state += std::to_string(cid) + ":";
      for (size_t i = 0; i < rows.size(); ++i) state += (i ? "," : "") + std::to_string(rows[i]);
      state += ";";
    }
    return state;
  }
  Status NotifyCheckpointComplete(CheckpointId id, Collector<Nothing>&) override {
    return CommitUpTo(id);
  }

 private:
  Status CommitUpTo(CheckpointId id) {
    for (auto it = staged_.begin(); it != staged_.end() && it->first <= id;) {
      CheckpointId max_committed;
      {
        std::lock_guard lock(table_->mu);
        max_committed = table_->max_committed;
      }
      if (it->first > max_committed) table_->Commit(it->first, it->second);
      it = staged_.erase(it);
    }
    return Ok();
  }
  FakeTable* table_;
  std::vector<int> pending_;
  std::map<CheckpointId, std::vector<int>> staged_;
};

class JobTest : public ::testing::Test {
 protected:
  Status RunPipeline(int limit, std::atomic<int>* fail_after, FakeTable* table,
                     CheckpointId* last_completed = nullptr) {
    CheckpointStore store(&io_, dir_.string(), 2);
    JobOptions options;
    options.checkpoint_interval = std::chrono::milliseconds(5);
    options.channel_capacity = 4;  // small, to exercise back-pressure
    options.store = &store;
    Job job(options);
    auto numbers = job.AddSource<int>("source", 1,
                                      [&](int) { return std::make_unique<CountingSource>(limit); });
    auto batches = job.AddOperator<int, std::vector<int>>(
        "batcher", 3, numbers, HashBy<int>([](int x) { return x; }),
        [&](int) { return std::make_unique<BatchingOperator>(fail_after); });
    job.AddOperator<std::vector<int>, Nothing>(
        "committer", 1, batches, nullptr, [&](int) { return std::make_unique<Committer>(table); });
    Status s = job.Run();
    if (last_completed) *last_completed = job.last_completed_checkpoint();
    return s;
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"job_test"};
  std::filesystem::path dir_ = temp_dir_.path();
};

TEST_F(JobTest, DeliversEveryRecordOnceAndTakesAFinalCheckpoint) {
  FakeTable table;
  CheckpointId last = 0;
  ASSERT_TRUE(RunPipeline(5000, nullptr, &table, &last));
  std::vector<int> rows = table.rows;
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(rows[i], i + 1);
  EXPECT_GT(last, 0);
  EXPECT_EQ(table.max_committed, last);  // the final checkpoint committed the tail
  EXPECT_EQ(table.duplicate_commits, 0);
}

TEST_F(JobTest, RecoversExactlyOnceAfterFailures) {
  FakeTable table;
  // Fail three runs at different points, then let one finish.
  for (int fail_at : {1500, 2500, 700}) {
    std::atomic<int> fail_after(fail_at);
    Status s = RunPipeline(20000, &fail_after, &table);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message().find("injected failure"), std::string::npos);
    EXPECT_NE(s.error().message().find("batcher/"), std::string::npos) << s.error().message();
  }
  ASSERT_TRUE(RunPipeline(20000, nullptr, &table));
  std::vector<int> rows = table.rows;
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), 20000u) << "lost or duplicated rows";
  for (int i = 0; i < 20000; ++i) ASSERT_EQ(rows[i], i + 1);
  EXPECT_EQ(table.duplicate_commits, 0);
}

TEST_F(JobTest, StopRequestEndsWithAFinalCheckpoint) {
  FakeTable table;
  CheckpointStore store(&io_, dir_.string(), 2);
  JobOptions options;
  options.checkpoint_interval = std::chrono::milliseconds(1000000);  // only the final one
  options.store = &store;
  Job job(options);
  auto numbers = job.AddSource<int>(
      "source", 1, [&](int) { return std::make_unique<CountingSource>(INT32_MAX); });
  auto batches = job.AddOperator<int, std::vector<int>>("batcher", 2, numbers, nullptr, [&](int) {
    return std::make_unique<BatchingOperator>(nullptr);
  });
  job.AddOperator<std::vector<int>, Nothing>(
      "committer", 1, batches, nullptr, [&](int) { return std::make_unique<Committer>(&table); });
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    job.RequestStop();
  });
  ASSERT_TRUE(job.Run());
  stopper.join();
  EXPECT_EQ(job.last_completed_checkpoint(), 1);
  auto saved = store.LoadLatest();
  ASSERT_TRUE(saved && *saved);
  EXPECT_EQ((*saved)->id, 1);
  // The source's stored position is exactly past the last committed row.
  EXPECT_EQ(std::stoul((*saved)->states.at("source/0")), table.rows.size() + 1);
}

TEST_F(JobTest, MinCheckpointIdRaisesTheFirstId) {
  // A restore from an older checkpoint must not reuse ids its destinations
  // have committed: ids start above JobOptions::min_checkpoint_id.
  FakeTable table;
  JobOptions options;
  options.checkpoint_interval = std::chrono::milliseconds(5);
  options.min_checkpoint_id = 100;
  Job job(options);
  auto numbers =
      job.AddSource<int>("source", 1, [](int) { return std::make_unique<CountingSource>(50); });
  auto batches = job.AddOperator<int, std::vector<int>>("batcher", 1, numbers, nullptr, [](int) {
    return std::make_unique<BatchingOperator>(nullptr);
  });
  job.AddOperator<std::vector<int>, Nothing>(
      "committer", 1, batches, nullptr, [&](int) { return std::make_unique<Committer>(&table); });
  ASSERT_TRUE(job.Run());
  EXPECT_EQ(table.rows.size(), 50u);
  ASSERT_FALSE(table.committed_ids.empty());
  EXPECT_GT(*table.committed_ids.begin(), 100);
}

// A source that asks for a checkpoint after its first records and waits,
// emitting nothing more, until that checkpoint completed (as floe run's
// source does before a schema change that must follow committed rows).
class RequestingSource : public SourceOperator<int> {
 public:
  Status Open(const OperatorContext& context, const RestoredState&) override {
    request_ = context.request_checkpoint;
    return Ok();
  }
  Result<bool> Poll(Collector<int>& out) override {
    if (next_ == 1) {
      for (; next_ <= 10; ++next_) FLOE_RETURN_IF_ERROR(out.Emit(next_));
      requested_at_ = std::chrono::steady_clock::now();
      request_();
      return true;
    }
    if (completed_ == 0) {  // waiting
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return true;
    }
    return false;
  }
  Result<std::string> SnapshotState(CheckpointId) override { return std::to_string(next_); }
  Status NotifyCheckpointComplete(CheckpointId id) override {
    if (completed_ == 0) waited_ = std::chrono::steady_clock::now() - requested_at_;
    completed_ = id;
    return Ok();
  }

  std::function<void()> request_;
  int next_ = 1;
  CheckpointId completed_ = 0;
  std::chrono::steady_clock::time_point requested_at_;
  std::chrono::steady_clock::duration waited_{};
};

TEST_F(JobTest, SourceRequestsACheckpointBeforeTheInterval) {
  FakeTable table;
  JobOptions options;
  options.checkpoint_interval = std::chrono::milliseconds(1000000);
  Job job(options);
  RequestingSource* source = nullptr;
  auto numbers = job.AddSource<int>("source", 1, [&](int) {
    auto s = std::make_unique<RequestingSource>();
    source = s.get();
    return s;
  });
  auto batches = job.AddOperator<int, std::vector<int>>("batcher", 1, numbers, nullptr, [](int) {
    return std::make_unique<BatchingOperator>(nullptr);
  });
  job.AddOperator<std::vector<int>, Nothing>(
      "committer", 1, batches, nullptr, [&](int) { return std::make_unique<Committer>(&table); });
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(job.Run());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->completed_, 2);  // the requested one, then the final one
  EXPECT_LT(source->waited_, std::chrono::seconds(5));
  EXPECT_EQ(table.committed_ids, (std::set<CheckpointId>{1}));  // the rows, by the requested one
  EXPECT_EQ(table.rows.size(), 10u);
}

TEST(CheckpointStoreTest, KeepsTheLastNAndSkipsTornFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("floe_ckpt_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  io::LocalFileIO io;
  CheckpointStore store(&io, dir.string(), 2);
  for (CheckpointId id = 1; id <= 4; ++id) {
    ASSERT_TRUE(store.Save({id, 1000 + id, {{"op/0", "state" + std::to_string(id)}}}));
  }
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
  // A torn newer file (cannot come from Save, but a disk can do anything) is skipped.
  ASSERT_TRUE(
      io.WriteAtomically((dir / "checkpoint-00000000000000000009.json").string(), "{\"chec"));
  std::string warning;
  auto latest = store.LoadLatest(&warning);
  ASSERT_TRUE(latest && *latest);
  EXPECT_EQ((*latest)->id, 4);
  EXPECT_EQ((*latest)->states.at("op/0"), "state4");
  EXPECT_NE(warning.find("checkpoint-00000000000000000009.json"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::engine
