// Faults inside a job: an operator that fails while it aligns a barrier or
// while a checkpoint is in flight, a sink that never acknowledges a
// checkpoint, one that acknowledges too late, a failure while every channel
// is full, and the restore that follows a failure. Each job runs under a
// deadline: a job that does not return in time is a hang, and the test
// binary stops with a message rather than waiting for ever.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "floe/engine/job.h"
#include "floe/testing/temp_dir.h"

namespace floe::engine {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

/// Runs the job; a job that has not returned after `limit` is a hang, and the
/// process stops (its threads cannot be joined).
Status RunBounded(Job& job, milliseconds limit = milliseconds(5000)) {
  std::promise<Status> done;
  std::future<Status> result = done.get_future();
  std::thread runner([&] { done.set_value(job.Run()); });
  if (result.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "job did not return within %lld ms: hang\n",
                 static_cast<long long>(limit.count()));
    std::abort();
  }
  runner.join();
  return result.get();
}

/// Waits up to `limit` for `ready()`; returns whether it came.
template <typename Fn>
bool WaitFor(Fn ready, milliseconds limit = milliseconds(2000)) {
  auto until = Clock::now() + limit;
  while (!ready()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

/// A switch one thread opens and another waits on.
class Latch {
 public:
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool Wait(milliseconds limit) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

class JobFaultTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = std::make_unique<CheckpointStore>(&io_, dir_.string(), 3); }

  /// The id of the newest checkpoint in the store, 0 if none.
  CheckpointId StoredCheckpoint() {
    auto latest = store_->LoadLatest();
    EXPECT_TRUE(latest);
    return latest && *latest ? (*latest)->id : 0;
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"job_fault_test"};
  std::filesystem::path dir_ = temp_dir_.path();
  std::unique_ptr<CheckpointStore> store_;
};

// --- A failure during barrier alignment ------------------------------------

struct AlignmentProbe {
  std::atomic<bool> early_input_past_barrier{false};
  std::mutex mu;
  std::vector<int> processed;
  std::atomic<CheckpointId> max_notified{0};
};

// Two subtasks into one operator (channels of capacity 1). Subtask 0, once it
// has sent barrier 2, emits 2001: on a full channel that Emit returns only
// once the operator has taken barrier 2, so 2001 waits behind the barrier
// while the operator aligns. Subtask 1 sends barrier 1 and then, in its next
// Poll, waits for that moment and emits 1, which the operator rejects: the
// failure comes during the alignment of checkpoint 2, before subtask 1's
// barrier 2.
class AlignmentSource final : public SourceOperator<int> {
 public:
  AlignmentSource(int subtask, AlignmentProbe* probe) : subtask_(subtask), probe_(probe) {}
  Result<bool> Poll(Collector<int>& out) override {
    if (!started_) {
      for (int i = 0; i < 3; ++i) FLOE_RETURN_IF_ERROR(out.Emit(10 * (subtask_ + 1) + i));
      started_ = true;
    } else if (subtask_ == 0 && snapshot_ >= 2 && !sent_) {
      FLOE_RETURN_IF_ERROR(out.Emit(2001));
      sent_ = true;
      probe_->early_input_past_barrier = true;
    } else if (subtask_ == 1 && snapshot_ >= 1 && !sent_) {
      if (!WaitFor([&] { return probe_->early_input_past_barrier.load(); })) {
        return IoError("subtask 0 never passed barrier 2");
      }
      FLOE_RETURN_IF_ERROR(out.Emit(1));
      sent_ = true;
    }
    std::this_thread::sleep_for(milliseconds(1));
    return true;
  }
  Result<std::string> SnapshotState(CheckpointId id) override {
    snapshot_ = id;
    return std::to_string(id);
  }
  Status NotifyCheckpointComplete(CheckpointId id) override {
    probe_->max_notified = std::max(probe_->max_notified.load(), id);
    return Ok();
  }

 private:
  int subtask_;
  AlignmentProbe* probe_;
  bool started_ = false;
  bool sent_ = false;
  CheckpointId snapshot_ = 0;
};

class RejectingOperator final : public Operator<int, Nothing> {
 public:
  explicit RejectingOperator(AlignmentProbe* probe) : probe_(probe) {}
  Status Process(int record, Collector<Nothing>&) override {
    if (record == 1) return IoError("rejected record {}", record);
    std::lock_guard lock(probe_->mu);
    probe_->processed.push_back(record);
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId id, Collector<Nothing>&) override {
    return "aligner@" + std::to_string(id);
  }
  Status NotifyCheckpointComplete(CheckpointId id, Collector<Nothing>&) override {
    probe_->max_notified = std::max(probe_->max_notified.load(), id);
    return Ok();
  }

 private:
  AlignmentProbe* probe_;
};

TEST_F(JobFaultTest, FailureDuringBarrierAlignmentFailsTheJobAndCompletesNoCheckpoint) {
  AlignmentProbe probe;
  JobOptions options;
  options.checkpoint_interval = milliseconds(5);
  options.channel_capacity = 1;
  options.store = store_.get();
  Job job(options);
  auto numbers = job.AddSource<int>(
      "source", 2, [&](int i) { return std::make_unique<AlignmentSource>(i, &probe); });
  job.AddOperator<int, Nothing>("aligner", 1, numbers, nullptr,
                                [&](int) { return std::make_unique<RejectingOperator>(&probe); });
  Status s = RunBounded(job);

  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kIo);
  EXPECT_NE(s.error().message().find("aligner/0"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().message().find("rejected record 1"), std::string::npos)
      << s.error().message();
  std::vector<int> processed = probe.processed;
  std::sort(processed.begin(), processed.end());
  // Everything before the barriers was processed; 2001, behind barrier 2 on
  // the input that was blocked for alignment, never was.
  EXPECT_EQ(processed, (std::vector<int>{10, 11, 12, 20, 21, 22}));
  // Checkpoint 1 completed; checkpoint 2, whose alignment failed, did not, and
  // nothing was told of it.
  EXPECT_EQ(job.last_completed_checkpoint(), 1);
  EXPECT_EQ(StoredCheckpoint(), 1);
  EXPECT_EQ(probe.max_notified.load(), 1);
}

// --- A sink that never acknowledges ----------------------------------------

struct StuckProbe {
  Latch release;  // the stuck call returns when this opens
  std::atomic<bool> cancelled{false};
  Clock::time_point stuck_at;
  Clock::time_point cancelled_at;
};

// Emits numbers until its Emit fails, and records when that happened.
class EndlessSource final : public SourceOperator<int> {
 public:
  explicit EndlessSource(StuckProbe* probe) : probe_(probe) {}
  Result<bool> Poll(Collector<int>& out) override {
    for (int i = 0; i < 10; ++i) {
      if (Status s = out.Emit(next_++); !s) {
        probe_->cancelled_at = Clock::now();
        probe_->cancelled = true;
        return std::unexpected(s.error());
      }
    }
    return true;
  }
  Result<std::string> SnapshotState(CheckpointId) override { return std::to_string(next_); }

 private:
  StuckProbe* probe_;
  int next_ = 1;
};

// Takes its first barrier and does not return from SnapshotState (as a sink
// whose remote store hangs) until released.
class StuckSink final : public Operator<int, Nothing> {
 public:
  explicit StuckSink(StuckProbe* probe) : probe_(probe) {}
  Status Process(int, Collector<Nothing>&) override { return Ok(); }
  Result<std::string> SnapshotState(CheckpointId, Collector<Nothing>&) override {
    probe_->stuck_at = Clock::now();
    if (!probe_->release.Wait(milliseconds(5000))) return IoError("never released");
    return std::string();
  }

 private:
  StuckProbe* probe_;
};

TEST_F(JobFaultTest, StuckSinkTimesOutItsCheckpointsAndTheJobFails) {
  StuckProbe probe;
  JobOptions options;
  options.checkpoint_interval = milliseconds(5);
  options.checkpoint_timeout = milliseconds(60);
  options.tolerable_checkpoint_failures = 2;
  options.channel_capacity = 4;
  options.store = store_.get();
  Job job(options);
  auto numbers =
      job.AddSource<int>("source", 1, [&](int) { return std::make_unique<EndlessSource>(&probe); });
  job.AddOperator<int, Nothing>("sink", 1, numbers, nullptr,
                                [&](int) { return std::make_unique<StuckSink>(&probe); });
  // The engine cannot interrupt the stuck call: it fails the job and cancels
  // the channels (the source's blocked Emit returns), and Run returns once
  // the call does. The stuck store gives up once the job is cancelled.
  std::thread store([&] {
    WaitFor([&] { return probe.cancelled.load(); });
    probe.release.Open();
  });
  Status s = RunBounded(job);
  store.join();

  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kTimedOut);
  // Checkpoints 1 and 2 were aborted (2 tolerated), the third abort fails.
  EXPECT_NE(s.error().message().find("checkpoint 3 did not complete within 60 ms"),
            std::string::npos)
      << s.error().message();
  ASSERT_TRUE(probe.cancelled.load());
  auto waited = probe.cancelled_at - probe.stuck_at;
  EXPECT_GE(waited, milliseconds(3 * 60 - 10));
  EXPECT_LT(waited, milliseconds(1000));
  EXPECT_EQ(job.last_completed_checkpoint(), 0);
  EXPECT_EQ(StoredCheckpoint(), 0);
}

// --- A sink slow once: its checkpoint is aborted, the next one covers it ----

// Stages its input per checkpoint and "commits" everything staged up to a
// checkpoint when told it completed. Its SnapshotState of checkpoint 1 takes
// longer than the checkpoint timeout.
class SlowOnceSink final : public Operator<int, Nothing> {
 public:
  SlowOnceSink(std::vector<int>* committed, std::vector<CheckpointId>* notified)
      : committed_(committed), notified_(notified) {}
  Status Process(int record, Collector<Nothing>&) override {
    pending_.push_back(record);
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId id, Collector<Nothing>&) override {
    if (id == 1) std::this_thread::sleep_for(milliseconds(150));
    staged_[id] = std::move(pending_);
    pending_.clear();
    return std::string();
  }
  Status NotifyCheckpointComplete(CheckpointId id, Collector<Nothing>&) override {
    notified_->push_back(id);
    for (auto it = staged_.begin(); it != staged_.end() && it->first <= id;) {
      committed_->insert(committed_->end(), it->second.begin(), it->second.end());
      it = staged_.erase(it);
    }
    return Ok();
  }

 private:
  std::vector<int>* committed_;
  std::vector<CheckpointId>* notified_;
  std::vector<int> pending_;
  std::map<CheckpointId, std::vector<int>> staged_;
};

// Emits 1..limit slowly enough that the job outlives checkpoint 1's timeout.
class TrickleSource final : public SourceOperator<int> {
 public:
  explicit TrickleSource(int limit) : limit_(limit) {}
  Result<bool> Poll(Collector<int>& out) override {
    FLOE_RETURN_IF_ERROR(out.Emit(next_++));
    std::this_thread::sleep_for(milliseconds(1));
    return next_ <= limit_;
  }
  Result<std::string> SnapshotState(CheckpointId) override { return std::to_string(next_); }

 private:
  int limit_;
  int next_ = 1;
};

TEST_F(JobFaultTest, AbortedCheckpointIsCoveredByTheNextOne) {
  std::vector<int> committed;
  std::vector<CheckpointId> notified;
  JobOptions options;
  options.checkpoint_interval = milliseconds(5);
  options.checkpoint_timeout = milliseconds(100);
  options.tolerable_checkpoint_failures = 1;
  options.store = store_.get();
  Job job(options);
  auto numbers =
      job.AddSource<int>("source", 1, [](int) { return std::make_unique<TrickleSource>(300); });
  job.AddOperator<int, Nothing>("sink", 1, numbers, nullptr, [&](int) {
    return std::make_unique<SlowOnceSink>(&committed, &notified);
  });
  ASSERT_TRUE(RunBounded(job));

  // Checkpoint 1 was aborted (its late acknowledgement ignored, nothing told
  // of it); a later checkpoint committed what the sink staged for it.
  ASSERT_FALSE(notified.empty());
  EXPECT_EQ(std::count(notified.begin(), notified.end(), 1), 0);
  EXPECT_GE(notified.front(), 2);
  EXPECT_EQ(job.last_completed_checkpoint(), notified.back());
  std::sort(committed.begin(), committed.end());
  ASSERT_EQ(committed.size(), 300u) << "lost or repeated rows";
  for (int i = 0; i < 300; ++i) ASSERT_EQ(committed[i], i + 1);
}

// --- A failure while a checkpoint is in flight, and the restore after it ----

constexpr CheckpointId kFailDuring = 2;

/// What every subtask returned from SnapshotState, by "name/subtask" and
/// checkpoint, and what each subtask's Open got back.
struct StateLedger {
  std::mutex mu;
  std::map<std::pair<std::string, CheckpointId>, std::string> snapshots;
  std::map<std::string, RestoredState> restored;
  std::atomic<CheckpointId> max_notified{0};
  std::atomic<CheckpointId> in_flight{0};  // set when a batcher snapshots kFailDuring

  void Snapshot(const OperatorContext& c, CheckpointId id, const std::string& state) {
    std::lock_guard lock(mu);
    snapshots[{c.name + "/" + std::to_string(c.subtask), id}] = state;
  }
  void Restored(const OperatorContext& c, const RestoredState& state) {
    std::lock_guard lock(mu);
    restored[c.name + "/" + std::to_string(c.subtask)] = state;
  }
  void Notified(CheckpointId id) {
    CheckpointId seen = max_notified.load();
    while (id > seen && !max_notified.compare_exchange_weak(seen, id)) {
    }
  }
};

struct Table {
  std::mutex mu;
  std::vector<int> rows;
  CheckpointId max_committed = 0;
};

// Emits 1..limit, and ends only after its first checkpoint of the run (so
// that checkpoint is never the final one); state: the next number.
class LedgerSource final : public SourceOperator<int> {
 public:
  LedgerSource(int limit, StateLedger* ledger) : limit_(limit), ledger_(ledger) {}
  Status Open(const OperatorContext& c, const RestoredState& state) override {
    context_ = c;
    ledger_->Restored(c, state);
    if (state.own) next_ = std::stoi(*state.own);
    return Ok();
  }
  Result<bool> Poll(Collector<int>& out) override {
    for (int i = 0; i < 5 && next_ <= limit_; ++i) FLOE_RETURN_IF_ERROR(out.Emit(next_++));
    if (next_ > limit_ && !snapshotted_) std::this_thread::sleep_for(milliseconds(1));
    return next_ <= limit_ || !snapshotted_;
  }
  Result<std::string> SnapshotState(CheckpointId id) override {
    snapshotted_ = true;
    std::string state = std::to_string(next_);
    ledger_->Snapshot(context_, id, state);
    return state;
  }
  Status NotifyCheckpointComplete(CheckpointId id) override {
    ledger_->Notified(id);
    return Ok();
  }

 private:
  int limit_;
  StateLedger* ledger_;
  OperatorContext context_;
  int next_ = 1;
  bool snapshotted_ = false;
};

// Hands its rows on at each barrier (always a batch, maybe empty); its state
// names the subtask, the checkpoint and how many rows it has seen in all.
class LedgerBatcher final : public Operator<int, std::vector<int>> {
 public:
  explicit LedgerBatcher(StateLedger* ledger) : ledger_(ledger) {}
  Status Open(const OperatorContext& c, const RestoredState& state) override {
    context_ = c;
    ledger_->Restored(c, state);
    return Ok();
  }
  Status Process(int record, Collector<std::vector<int>>&) override {
    buffer_.push_back(record);
    ++seen_;
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId id, Collector<std::vector<int>>& out) override {
    if (id == kFailDuring) ledger_->in_flight = id;
    FLOE_RETURN_IF_ERROR(out.Emit(std::move(buffer_)));
    buffer_.clear();
    std::string state = context_.name + "/" + std::to_string(context_.subtask) + "@" +
                        std::to_string(id) + ":" + std::to_string(seen_);
    ledger_->Snapshot(context_, id, state);
    return state;
  }
  Status NotifyCheckpointComplete(CheckpointId id, Collector<std::vector<int>>&) override {
    ledger_->Notified(id);
    return Ok();
  }

 private:
  StateLedger* ledger_;
  OperatorContext context_;
  std::vector<int> buffer_;
  int64_t seen_ = 0;
};

// Stages rows per checkpoint and commits them to the table when the
// checkpoint completes; a restore commits what the table lacks. State: the
// staged rows, "id:r,r;id:r;". With `fail_in_flight` it fails on the first
// batch it receives once a batcher has snapshotted kFailDuring.
class LedgerCommitter final : public Operator<std::vector<int>, Nothing> {
 public:
  LedgerCommitter(StateLedger* ledger, Table* table, bool fail_in_flight)
      : ledger_(ledger), table_(table), fail_in_flight_(fail_in_flight) {}
  Status Open(const OperatorContext& c, const RestoredState& state) override {
    context_ = c;
    ledger_->Restored(c, state);
    std::string_view s = state.own ? std::string_view(*state.own) : std::string_view();
    while (!s.empty()) {
      size_t colon = s.find(':'), semi = s.find(';');
      CheckpointId id = std::stoll(std::string(s.substr(0, colon)));
      std::string_view list = s.substr(colon + 1, semi - colon - 1);
      std::vector<int>& rows = staged_[id];
      while (!list.empty()) {
        size_t comma = list.find(',');
        rows.push_back(std::stoi(std::string(list.substr(0, comma))));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      }
      s = s.substr(semi + 1);
    }
    return CommitThrough(state.checkpoint_id);
  }
  Status Process(std::vector<int> batch, Collector<Nothing>&) override {
    if (fail_in_flight_ && ledger_->in_flight.load() == kFailDuring) {
      return IoError("commit store unavailable during checkpoint {}", kFailDuring);
    }
    pending_.insert(pending_.end(), batch.begin(), batch.end());
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId id, Collector<Nothing>&) override {
    staged_[id].insert(staged_[id].end(), pending_.begin(), pending_.end());
    pending_.clear();
    std::string state;
    for (const auto& [cid, rows] : staged_) {
      state += std::to_string(cid) + ":";
      for (size_t i = 0; i < rows.size(); ++i) state += (i ? "," : "") + std::to_string(rows[i]);
      state += ";";
    }
    ledger_->Snapshot(context_, id, state);
    return state;
  }
  Status NotifyCheckpointComplete(CheckpointId id, Collector<Nothing>&) override {
    ledger_->Notified(id);
    return CommitThrough(id);
  }

 private:
  Status CommitThrough(CheckpointId id) {
    for (auto it = staged_.begin(); it != staged_.end() && it->first <= id;) {
      std::lock_guard lock(table_->mu);
      if (it->first > table_->max_committed) {
        table_->rows.insert(table_->rows.end(), it->second.begin(), it->second.end());
        table_->max_committed = it->first;
      }
      it = staged_.erase(it);
    }
    return Ok();
  }

  StateLedger* ledger_;
  Table* table_;
  bool fail_in_flight_;
  OperatorContext context_;
  std::vector<int> pending_;
  std::map<CheckpointId, std::vector<int>> staged_;
};

class InFlightTest : public JobFaultTest {
 protected:
  static constexpr int kRows = 3000;

  /// source (1) -> batcher (`batchers`, by value) -> committer (1).
  Status RunLedgerJob(StateLedger* ledger, Table* table, int batchers, bool fail_in_flight,
                      Job** running = nullptr) {
    JobOptions options;
    options.checkpoint_interval = milliseconds(5);
    options.channel_capacity = 4;
    options.store = store_.get();
    Job job(options);
    auto numbers = job.AddSource<int>(
        "source", 1, [&](int) { return std::make_unique<LedgerSource>(kRows, ledger); });
    auto batches = job.AddOperator<int, std::vector<int>>(
        "batcher", batchers, numbers, HashBy<int>([](int x) { return x; }),
        [&](int) { return std::make_unique<LedgerBatcher>(ledger); });
    job.AddOperator<std::vector<int>, Nothing>("committer", 1, batches, nullptr, [&](int) {
      return std::make_unique<LedgerCommitter>(ledger, table, fail_in_flight);
    });
    Status s = RunBounded(job);
    last_completed_ = job.last_completed_checkpoint();
    return s;
  }

  CheckpointId last_completed_ = 0;
};

TEST_F(InFlightTest, OperatorFailingWhileACheckpointIsInFlightCompletesNoLaterCheckpoint) {
  StateLedger ledger;
  Table table;
  Status s = RunLedgerJob(&ledger, &table, 2, /*fail_in_flight=*/true);

  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("committer/0"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().message().find("commit store unavailable during checkpoint 2"),
            std::string::npos)
      << s.error().message();
  // Checkpoint 2 was in flight (the source and a batcher had snapshotted it)
  // and never completed: nothing is stored or committed past checkpoint 1.
  {
    std::lock_guard lock(ledger.mu);
    EXPECT_TRUE(ledger.snapshots.count({"source/0", kFailDuring}));
    EXPECT_FALSE(ledger.snapshots.count({"committer/0", kFailDuring}));
  }
  EXPECT_EQ(last_completed_, 1);
  EXPECT_EQ(StoredCheckpoint(), 1);
  EXPECT_EQ(ledger.max_notified.load(), 1);
  // The table holds exactly the rows before checkpoint 1's source position.
  int position = std::stoi(ledger.snapshots.at({"source/0", 1}));
  std::vector<int> rows = table.rows;
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), static_cast<size_t>(position - 1));
  for (int i = 0; i < position - 1; ++i) ASSERT_EQ(rows[i], i + 1);
  EXPECT_EQ(table.max_committed, 1);
}

TEST_F(InFlightTest, RestoreAfterAFailureGivesEachSubtaskBackItsState) {
  Table table;
  StateLedger failed;
  ASSERT_FALSE(RunLedgerJob(&failed, &table, 2, /*fail_in_flight=*/true));
  ASSERT_EQ(last_completed_, 1);

  // The restart runs the batcher with one subtask more.
  StateLedger restarted;
  ASSERT_TRUE(RunLedgerJob(&restarted, &table, 3, /*fail_in_flight=*/false));

  auto at1 = [&](const std::string& key) { return failed.snapshots.at({key, 1}); };
  const auto& restored = restarted.restored;
  ASSERT_EQ(restored.size(), 5u);  // source, three batchers, committer
  for (const auto& [key, state] : restored) {
    SCOPED_TRACE(key);
    EXPECT_EQ(state.checkpoint_id, 1);
  }
  EXPECT_EQ(restored.at("source/0").own, at1("source/0"));
  EXPECT_EQ(restored.at("committer/0").own, at1("committer/0"));
  EXPECT_EQ(restored.at("batcher/0").own, at1("batcher/0"));
  EXPECT_EQ(restored.at("batcher/1").own, at1("batcher/1"));
  EXPECT_FALSE(restored.at("batcher/2").own.has_value());  // new: no state of its own
  std::vector<std::string> batchers = {at1("batcher/0"), at1("batcher/1")};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(restored.at("batcher/" + std::to_string(i)).all, batchers) << "batcher/" << i;
  }
  EXPECT_EQ(restored.at("source/0").all, std::vector<std::string>{at1("source/0")});
  // Checkpoint ids go on after the restored one, and every row is in the
  // table once.
  EXPECT_GT(last_completed_, 1);
  std::vector<int> rows = table.rows;
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRows)) << "lost or repeated rows";
  for (int i = 0; i < kRows; ++i) ASSERT_EQ(rows[i], i + 1);
}

// --- Cancellation while every channel is full -------------------------------

struct FullProbe {
  std::atomic<int> source_attempts{0};
  std::atomic<int> relay_attempts{0};
  std::atomic<int> source_emitted{0};
  std::atomic<bool> source_cancelled{false};
  std::atomic<bool> relay_cancelled{false};
};

class FloodSource final : public SourceOperator<int> {
 public:
  explicit FloodSource(FullProbe* probe) : probe_(probe) {}
  Result<bool> Poll(Collector<int>& out) override {
    ++probe_->source_attempts;
    Status s = out.Emit(next_++);
    if (!s) {
      probe_->source_cancelled = s.error().code() == ErrorCode::kCancelled;
      return std::unexpected(s.error());
    }
    ++probe_->source_emitted;
    return true;
  }

 private:
  FullProbe* probe_;
  int next_ = 1;
};

class Relay final : public Operator<int, int> {
 public:
  explicit Relay(FullProbe* probe) : probe_(probe) {}
  Status Process(int record, Collector<int>& out) override {
    ++probe_->relay_attempts;
    Status s = out.Emit(record);
    if (!s) probe_->relay_cancelled = s.error().code() == ErrorCode::kCancelled;
    return s;
  }

 private:
  FullProbe* probe_;
};

// Holds its first record until both channels before it are full, then fails.
class FailingWhenFullSink final : public Operator<int, Nothing> {
 public:
  explicit FailingWhenFullSink(FullProbe* probe) : probe_(probe) {}
  Status Process(int record, Collector<Nothing>&) override {
    // Channels hold 2: the relay is blocked emitting its 4th record (1 here,
    // 2 and 3 queued), the source emitting its 7th (4 at the relay, 5 and 6
    // queued).
    if (!WaitFor([&] { return probe_->relay_attempts >= 4 && probe_->source_attempts >= 7; })) {
      return IoError("channels never filled");
    }
    return IoError("sink failed at record {}", record);
  }

 private:
  FullProbe* probe_;
};

TEST_F(JobFaultTest, FailureWhileEveryChannelIsFullCancelsTheBlockedEmits) {
  FullProbe probe;
  JobOptions options;
  options.checkpoint_interval = milliseconds(1'000'000);  // no barriers in the channels
  options.channel_capacity = 2;
  Job job(options);
  auto numbers =
      job.AddSource<int>("source", 1, [&](int) { return std::make_unique<FloodSource>(&probe); });
  auto relayed = job.AddOperator<int, int>("relay", 1, numbers, nullptr,
                                           [&](int) { return std::make_unique<Relay>(&probe); });
  job.AddOperator<int, Nothing>("sink", 1, relayed, nullptr,
                                [&](int) { return std::make_unique<FailingWhenFullSink>(&probe); });
  auto started = Clock::now();
  Status s = RunBounded(job);

  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("sink/0"), std::string::npos) << s.error().message();
  EXPECT_NE(s.error().message().find("sink failed at record 1"), std::string::npos)
      << s.error().message();
  EXPECT_LT(Clock::now() - started, milliseconds(1000));
  // Both blocked Emits returned Cancelled; the blocked records went nowhere.
  EXPECT_TRUE(probe.source_cancelled.load());
  EXPECT_TRUE(probe.relay_cancelled.load());
  EXPECT_EQ(probe.source_emitted.load(), 6);
  EXPECT_EQ(probe.relay_attempts.load(), 4);
}

}  // namespace
}  // namespace floe::engine
