// Exactly once through the engine: a source of inserts and deletes over
// three tables -> writers (parallel 2, by key) -> committers (parallel 2, by
// table) -> check-commit sink, with faults injected through the FileIO and
// the catalog at every step of the protocol, then a restart. Afterwards each
// table holds exactly the rows of the effective event stream, and no
// checkpoint id is in two snapshots of a table.

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "floe/engine/job.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/expire_snapshots.h"
#include "floe/sink/check_commit_sink.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/committer_operator.h"
#include "floe/sink/tests/commit_test_util.h"

namespace floe::sink::testing {
namespace {

using engine::CheckpointId;

constexpr int kTables = 3;

struct Event {
  int64_t position = 0;
  int table = 0;
  bool is_delete = false;
  int64_t key = 0;
};

/// The events whose effect the tables must show: a source records every event
/// it emits at its position, and a restore forgets those at or after the
/// restored position (they are emitted again).
struct Ledger {
  std::mutex mu;
  std::map<int64_t, Event> events;
  void Rewind(int64_t position) {
    std::lock_guard lock(mu);
    events.erase(events.lower_bound(position), events.end());
  }
  void Add(const Event& e) {
    std::lock_guard lock(mu);
    events[e.position] = e;
  }
  std::vector<Rows> Expected() {
    std::lock_guard lock(mu);
    std::vector<std::map<int64_t, std::string>> live(kTables);
    for (const auto& [pos, e] : events) {
      if (e.is_delete) {
        live[e.table].erase(e.key);
      } else {
        live[e.table][e.key] = "v" + std::to_string(e.key);
      }
    }
    std::vector<Rows> out(kTables);
    for (int t = 0; t < kTables; ++t) out[t] = Rows(live[t].begin(), live[t].end());
    return out;
  }
};

/// Event i goes to table i % 3; every fourth event deletes the oldest key of
/// its table that was emitted before the source's last checkpoint (so the
/// equality delete is committed after the row); the others insert key i.
/// State: "next;keys of table 0;keys of table 1;keys of table 2".
class EventSource final : public engine::SourceOperator<Event> {
 public:
  EventSource(int64_t limit, bool deletes, Ledger* ledger,
              std::shared_ptr<CheckpointPositions> positions)
      : limit_(limit), deletes_(deletes), ledger_(ledger), positions_(std::move(positions)) {}

  Status Open(const engine::OperatorContext&, const engine::RestoredState& state) override {
    if (state.own && !state.own->empty()) {
      std::vector<std::string> parts;
      std::string_view s = *state.own;
      while (true) {
        size_t semi = s.find(';');
        parts.emplace_back(s.substr(0, semi));
        if (semi == std::string_view::npos) break;
        s = s.substr(semi + 1);
      }
      if (parts.size() != kTables + 1) return Corruption("bad source state '{}'", *state.own);
      next_ = std::stoll(parts[0]);
      for (int t = 0; t < kTables; ++t) {
        std::string_view list = parts[t + 1];
        while (!list.empty()) {
          size_t comma = list.find(',');
          deletable_[t].push_back(std::stoll(std::string(list.substr(0, comma))));
          list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        }
      }
    }
    ledger_->Rewind(next_);
    return Ok();
  }
  Result<bool> Poll(engine::Collector<Event>& out) override {
    // A slow source, so that a run spans many checkpoints.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (int i = 0; i < 7 && next_ < limit_; ++i, ++next_) {
      Event e;
      e.position = next_;
      e.table = static_cast<int>(next_ % kTables);
      if (deletes_ && next_ % 4 == 3 && !deletable_[e.table].empty()) {
        e.is_delete = true;
        e.key = deletable_[e.table].front();
        deletable_[e.table].erase(deletable_[e.table].begin());
      } else {
        e.key = next_;
        fresh_[e.table].push_back(next_);
      }
      ledger_->Add(e);
      FLOE_RETURN_IF_ERROR(out.Emit(e));
    }
    return next_ < limit_;
  }
  Result<std::string> SnapshotState(CheckpointId id) override {
    std::string state = std::to_string(next_);
    for (int t = 0; t < kTables; ++t) {
      for (int64_t k : fresh_[t]) deletable_[t].push_back(k);
      fresh_[t].clear();
      state += ';';
      for (size_t i = 0; i < deletable_[t].size(); ++i) {
        state += (i ? "," : "") + std::to_string(deletable_[t][i]);
      }
    }
    positions_->Put(id, 0, "events:" + std::to_string(next_));
    return state;
  }

 private:
  int64_t limit_;
  bool deletes_;
  Ledger* ledger_;
  std::shared_ptr<CheckpointPositions> positions_;
  int64_t next_ = 0;
  std::vector<int64_t> deletable_[kTables];
  std::vector<int64_t> fresh_[kTables];
};

/// Buffers inserts and deletes per table and writes them at each barrier:
/// one data file set and one equality delete file set per table.
class EventWriter final : public engine::Operator<Event, WriteResult> {
 public:
  EventWriter(io::FileIO* io, const std::vector<TableTargetPtr>* targets)
      : io_(io), targets_(targets) {}
  Status Process(Event e, engine::Collector<WriteResult>&) override {
    if (e.is_delete) {
      deletes_[e.table].push_back(e.key);
    } else {
      rows_[e.table].emplace_back(e.key, "v" + std::to_string(e.key));
    }
    return Ok();
  }
  Result<std::string> SnapshotState(CheckpointId, engine::Collector<WriteResult>& out) override {
    for (int t = 0; t < kTables; ++t) {
      if (rows_[t].empty() && deletes_[t].empty()) continue;
      const TableTargetPtr& target = (*targets_)[t];
      WriteResult r;
      r.target = target;
      r.spec_id = target->metadata->default_spec_id;
      if (!rows_[t].empty()) {
        FLOE_ASSIGN_OR_RETURN(r.data_files, WriteRowsTo(*io_, *target, rows_[t]));
      }
      if (!deletes_[t].empty()) {
        FLOE_ASSIGN_OR_RETURN(r.delete_files, WriteEqualityDeletesTo(*io_, *target, deletes_[t]));
      }
      rows_[t].clear();
      deletes_[t].clear();
      FLOE_RETURN_IF_ERROR(out.Emit(std::move(r)));
    }
    return std::string();
  }

 private:
  io::FileIO* io_;
  const std::vector<TableTargetPtr>* targets_;
  std::vector<std::pair<int64_t, std::string>> rows_[kTables];
  std::vector<int64_t> deletes_[kTables];
};

class FaultInjectionTest : public CommitFixture {
 protected:
  void SetUp() override {
    CommitFixture::SetUp();
    // Small manifests are merged every few commits, so that commits write
    // manifests of their own (the staged ones are committed as they are).
    const std::map<std::string, std::string> merge_often = {
        {"commit.manifest.min-count-to-merge", "4"}};
    targets_.push_back(CreateTable("t0", "", /*upsert=*/true, merge_often));
    targets_.push_back(CreateTable("t1", "bucket(4, id)", /*upsert=*/true, merge_often));
    targets_.push_back(CreateTable("t2", "", /*upsert=*/true, merge_often));
    for (const auto& t : targets_) ids_.push_back(t->id);
    options_.commit_parallelism = 2;
    options_.max_continuous_empty_commits = 4;
  }

  /// One run of the pipeline until the end of input or the first failure.
  /// `use_min_id`: start ids above the tables' max committed checkpoint, as
  /// the pipeline does.
  Status RunJob(int64_t limit, bool deletes = true, bool use_min_id = true, int retain = 3) {
    engine::CheckpointStore store(io_.get(), (dir_ / "state").string(), retain);
    engine::JobOptions job_options;
    job_options.checkpoint_interval = std::chrono::milliseconds(5);
    job_options.channel_capacity = 8;
    job_options.store = &store;
    if (use_min_id) {
      auto max = MaxCommittedCheckpoint(*catalog_, options_.pipeline_id, ids_);
      if (!max) return std::unexpected(max.error());
      job_options.min_checkpoint_id = *max;
    }
    auto positions = std::make_shared<CheckpointPositions>();
    engine::Job job(job_options);
    auto events = job.AddSource<Event>("source", 1, [&](int) {
      return std::make_unique<EventSource>(limit, deletes, &ledger_, positions);
    });
    auto results = job.AddOperator<Event, WriteResult>(
        "writer", 2, events, engine::HashBy<Event>([](const Event& e) { return e.key; }),
        [&](int) { return std::make_unique<EventWriter>(io_.get(), &targets_); });
    auto outcomes = job.AddOperator<WriteResult, CommitOutcome>(
        "committer", options_.commit_parallelism, results, CommitterRoute,
        [&](int) { return std::make_unique<CommitterOperator>(options_, positions); });
    job.AddOperator<CommitOutcome, engine::Nothing>("check-commit", 1, outcomes, nullptr, [](int) {
      return std::make_unique<CheckCommitSink>();
    });
    return job.Run();
  }

  /// A crash is over: the process starts again (un-synced writes are lost).
  void Restart() {
    io_->Restart();
    catalog_->Disarm();
    io_->LoseUnsyncedWrites();
  }

  void ExpectExactlyOnce(const std::string& scenario) {
    auto expected = ledger_.Expected();
    int64_t total = 0;
    for (int t = 0; t < kTables; ++t) {
      std::string name = "t" + std::to_string(t);
      Rows rows = ReadRows(name);
      EXPECT_EQ(rows.size(), expected[t].size()) << scenario << ": " << name;
      EXPECT_TRUE(rows == expected[t]) << scenario << ": table " << name << " differs";
      total += static_cast<int64_t>(rows.size());
      auto counts = CheckpointSnapshots(name);
      EXPECT_FALSE(counts.empty()) << scenario;
      for (const auto& [id, n] : counts) {
        EXPECT_EQ(n, 1) << scenario << ": checkpoint " << id << " committed " << n << " times to "
                        << name;
      }
    }
    EXPECT_GT(total, 0);
  }

  std::vector<TableTargetPtr> targets_;
  std::vector<iceberg::TableIdentifier> ids_;
  Ledger ledger_;
};

TEST_F(FaultInjectionTest, CleanRunIsExact) {
  FLOE_ASSERT_OK(RunJob(1500));
  ExpectExactlyOnce("clean run");
  // Every event was applied: a third of the inserts per table, minus deletes.
  EXPECT_EQ(ledger_.events.size(), 1500u);
}

struct FileFault {
  const char* name;
  FaultRule rule;
  friend void PrintTo(const FileFault& f, std::ostream* os) { *os << f.name; }
};

class FileFaultTest : public FaultInjectionTest, public ::testing::WithParamInterface<FileFault> {};

TEST_P(FileFaultTest, RecoversExactlyOnce) {
  const FileFault& fault = GetParam();
  io_->Arm(fault.rule);
  Status first = RunJob(1200);
  ASSERT_GT(io_->state().fired.load(), 0) << fault.name << ": the fault never fired";
  ASSERT_FALSE(first) << fault.name << ": the run should have failed";
  Restart();
  Status second = RunJob(1200);
  ASSERT_TRUE(second) << fault.name << ": " << second.error().ToString();
  ExpectExactlyOnce(fault.name);
}

INSTANTIATE_TEST_SUITE_P(
    Steps, FileFaultTest,
    ::testing::Values(
        FileFault{"BeforeDataFile", {"/data/", ".parquet", FaultStep::kBeforeCreate, 7}},
        FileFault{"AfterDataFile", {"/data/", ".parquet", FaultStep::kAfterClose, 7}},
        FileFault{"BeforeStagedManifest", {"floe-commit-", ".avro", FaultStep::kBeforeCreate, 5}},
        FileFault{"AfterStagedManifest", {"floe-commit-", ".avro", FaultStep::kAfterClose, 5}},
        FileFault{"BeforeMergedManifest", {"/metadata/", "-m0.avro", FaultStep::kBeforeCreate, 4}},
        FileFault{"AfterMergedManifest", {"/metadata/", "-m0.avro", FaultStep::kAfterClose, 4}},
        FileFault{"BeforeManifestList", {"/metadata/snap-", ".avro", FaultStep::kBeforeCreate, 4}},
        FileFault{"AfterManifestList", {"/metadata/snap-", ".avro", FaultStep::kAfterClose, 4}},
        FileFault{"BeforeTableMetadata",
                  {"/metadata/", ".metadata.json.tmp", FaultStep::kBeforeCreate, 5}},
        FileFault{"AfterTableMetadata",
                  {"/metadata/", ".metadata.json", FaultStep::kAfterRename, 5}},
        FileFault{"BeforeCheckpointFile", {"checkpoint-", ".tmp", FaultStep::kBeforeCreate, 3}},
        FileFault{"AfterCheckpointFile", {"checkpoint-", ".json", FaultStep::kAfterRename, 3}}),
    [](const ::testing::TestParamInfo<FileFault>& info) { return std::string(info.param.name); });

struct CatalogFault {
  const char* name;
  CommitFault fault;
  int times;
  bool run_fails;
  friend void PrintTo(const CatalogFault& f, std::ostream* os) { *os << f.name; }
};

class CatalogFaultTest : public FaultInjectionTest,
                         public ::testing::WithParamInterface<CatalogFault> {};

TEST_P(CatalogFaultTest, RecoversExactlyOnce) {
  const CatalogFault& fault = GetParam();
  catalog_->ArmCommit(fault.fault, /*nth=*/6, fault.times);
  Status first = RunJob(1200);
  ASSERT_GT(io_->state().fired.load(), 0) << fault.name << ": the fault never fired";
  if (fault.run_fails) {
    ASSERT_FALSE(first) << fault.name << ": the run should have failed";
    if (fault.fault == CommitFault::kFailBefore || fault.times > 1) {
      // The check-commit sink stopped the run, naming the table and checkpoint.
      EXPECT_NE(first.error().message().find("check-commit/0"), std::string::npos)
          << first.error().message();
      EXPECT_NE(first.error().message().find("at checkpoint"), std::string::npos)
          << first.error().message();
    }
  } else {
    ASSERT_TRUE(first) << fault.name << ": " << first.error().ToString();
  }
  Restart();
  Status second = RunJob(1200);
  ASSERT_TRUE(second) << fault.name << ": " << second.error().ToString();
  ExpectExactlyOnce(fault.name);
}

INSTANTIATE_TEST_SUITE_P(
    Commits, CatalogFaultTest,
    ::testing::Values(CatalogFault{"FailedCommit", CommitFault::kFailBefore, 1, true},
                      CatalogFault{"CrashAfterCommit", CommitFault::kCrashAfter, 1, true},
                      CatalogFault{"UnknownButApplied", CommitFault::kUnknownApplied, 1, false},
                      CatalogFault{"UnknownNotApplied", CommitFault::kUnknownNotApplied, 1, false},
                      CatalogFault{"UnknownTwiceNotApplied", CommitFault::kUnknownNotApplied, 2,
                                   true}),
    [](const ::testing::TestParamInfo<CatalogFault>& info) {
      return std::string(info.param.name);
    });

TEST_F(FaultInjectionTest, RepeatedCrashesAtDifferentStepsConverge) {
  const std::vector<FaultRule> rules = {
      {"/data/", ".parquet", FaultStep::kAfterClose, 11},
      {"floe-commit-", ".avro", FaultStep::kBeforeCreate, 3},
      {"/metadata/", ".metadata.json", FaultStep::kAfterRename, 4},
      {"checkpoint-", ".json", FaultStep::kAfterRename, 2},
      {"/metadata/snap-", ".avro", FaultStep::kAfterClose, 2},
      {"/data/", ".parquet", FaultStep::kBeforeCreate, 13},
  };
  int failed_runs = 0;
  for (const auto& rule : rules) {
    io_->Arm(rule);
    Status s = RunJob(2500);
    failed_runs += s ? 0 : 1;
    Restart();
  }
  EXPECT_GE(failed_runs, 4);
  // One crash straight after a commit, then the last run.
  catalog_->ArmCommit(CommitFault::kCrashAfter, 2);
  EXPECT_FALSE(RunJob(2500));
  Restart();
  FLOE_ASSERT_OK(RunJob(2500));
  ExpectExactlyOnce("repeated crashes");
  EXPECT_EQ(ledger_.events.size(), 2500u);
}

TEST_F(FaultInjectionTest, SnapshotExpiryBeforeRecovery) {
  catalog_->ArmCommit(CommitFault::kCrashAfter, 9);
  ASSERT_FALSE(RunJob(1500));
  Restart();
  for (const auto& id : ids_) {
    auto table = iceberg::Table::Load(*catalog_, id);
    FLOE_ASSERT_OK(table);
    auto expire = table->NewExpireSnapshots();
    expire->RetainLast(1).ExpireOlderThan(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count() +
                                          1000);
    FLOE_ASSERT_OK(expire->Commit());
  }
  FLOE_ASSERT_OK(RunJob(1500));
  auto expected = ledger_.Expected();
  for (int t = 0; t < kTables; ++t) {
    EXPECT_TRUE(ReadRows("t" + std::to_string(t)) == expected[t]) << "table t" << t;
  }
}

TEST_F(FaultInjectionTest, RestoreFromAnOlderCheckpointDoesNotSkipNewData) {
  // Append only: a replay from an older checkpoint re-adds the replayed rows
  // (that is what restoring an older checkpoint means); the point is that
  // the data after it is committed under fresh ids, never skipped.
  FLOE_ASSERT_OK(RunJob(900, /*deletes=*/false, true, /*retain=*/1000));
  std::vector<std::filesystem::path> checkpoints;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state")) {
    checkpoints.push_back(e.path());
  }
  std::sort(checkpoints.begin(), checkpoints.end());
  ASSERT_GE(checkpoints.size(), 3u);
  // Keep the first half: the newest checkpoint left is an older one.
  size_t keep = checkpoints.size() / 2;
  for (size_t i = keep; i < checkpoints.size(); ++i) std::filesystem::remove(checkpoints[i]);
  engine::CheckpointStore store(io_.get(), (dir_ / "state").string());
  auto older = store.LoadLatest();
  ASSERT_TRUE(older && *older);
  std::string source_state = (*older)->states.at("source/0");
  int64_t replay_from = std::stoll(source_state.substr(0, source_state.find(';')));
  ASSERT_LT(replay_from, 900);

  // Without min_checkpoint_id the new data would reuse committed ids: the
  // committers refuse (the run fails) instead of skipping it.
  Status reused = RunJob(1200, false, /*use_min_id=*/false, 1000);
  ASSERT_FALSE(reused);
  EXPECT_NE(reused.error().message().find("reused"), std::string::npos) << reused.error().message();
  Restart();
  // The checkpoints that run took are gone with it, as after a failed restore attempt.
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state")) {
    if (std::find(checkpoints.begin(), checkpoints.begin() + keep, e.path()) ==
        checkpoints.begin() + keep) {
      std::filesystem::remove(e.path());
    }
  }
  FLOE_ASSERT_OK(RunJob(1200, false, /*use_min_id=*/true, 1000));
  for (int t = 0; t < kTables; ++t) {
    Rows expected;
    for (int64_t k = 0; k < 1200; ++k) {
      if (k % kTables != t) continue;
      expected.emplace(k, "v" + std::to_string(k));
      if (k >= replay_from && k < 900) expected.emplace(k, "v" + std::to_string(k));
    }
    std::string name = "t" + std::to_string(t);
    EXPECT_TRUE(ReadRows(name) == expected) << name;
    ExpectNoCheckpointTwice(CheckpointSnapshots(name), name);
  }
}

}  // namespace
}  // namespace floe::sink::testing
