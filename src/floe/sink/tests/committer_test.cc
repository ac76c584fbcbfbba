// The committer driven directly (no writers, no job): real data and delete
// files in a Hadoop catalog, WriteResults fed to CommitterOperator, and the
// snapshots, summaries, sequence numbers and table contents checked.

#include "floe/sink/committer_operator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "floe/iceberg/table.h"
#include "floe/iceberg/update/expire_snapshots.h"
#include "floe/iceberg/update/snapshot_producer.h"
#include "floe/iceberg/update/transaction.h"
#include "floe/sink/check_commit_sink.h"
#include "floe/sink/commit_fence.h"
#include "floe/sink/commit_state.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/tests/commit_test_util.h"

namespace floe::sink::testing {
namespace {

using engine::CheckpointId;

class CommitterTest : public CommitFixture {
 protected:
  std::unique_ptr<CommitterOperator> NewCommitter(const engine::RestoredState& restored = {},
                                                  int subtask = 0, int parallelism = 1,
                                                  Status* open_status = nullptr) {
    auto c = std::make_unique<CommitterOperator>(options_, positions_);
    Status s = c->Open({"committer", subtask, parallelism}, restored);
    if (open_status != nullptr) {
      *open_status = s;
    } else {
      EXPECT_TRUE(s) << s.error().ToString();
    }
    return c;
  }

  /// SnapshotState(id) with the source having put position "pos-<id>".
  std::string Snapshot(CommitterOperator& c, CheckpointId id) {
    positions_->Put(id, 0, "pos-" + std::to_string(id));
    auto state = c.SnapshotState(id, out_);
    EXPECT_TRUE(state) << state.error().ToString();
    return state ? *state : std::string();
  }

  void Notify(CommitterOperator& c, CheckpointId id) {
    auto s = c.NotifyCheckpointComplete(id, out_);
    EXPECT_TRUE(s) << s.error().ToString();
  }

  static engine::RestoredState Restored(std::vector<std::string> all, CheckpointId id) {
    engine::RestoredState r;
    r.all = std::move(all);
    if (r.all.size() == 1) r.own = r.all[0];
    r.checkpoint_id = id;
    return r;
  }

  std::vector<CommitOutcome> Failures() const {
    std::vector<CommitOutcome> failed;
    for (const auto& o : out_.items) {
      if (!o.status) failed.push_back(o);
    }
    return failed;
  }

  std::shared_ptr<CheckpointPositions> positions_ = std::make_shared<CheckpointPositions>();
  VectorCollector<CommitOutcome> out_;
};

TEST_F(CommitterTest, OneSnapshotPerCheckpointWithSummaryKeysAndProperty) {
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}, {2, "y"}})), out_));
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{3, "z"}})), out_));
  Snapshot(*committer, 1);
  EXPECT_TRUE(out_.items.empty()) << "nothing may be committed before the checkpoint completes";
  EXPECT_EQ(Metadata("a").snapshots.size(), 0u);
  Notify(*committer, 1);
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{4, "w"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);

  auto metadata = Metadata("a");
  ASSERT_EQ(metadata.snapshots.size(), 2u);
  const auto& first = metadata.snapshots[0];
  EXPECT_EQ(first.operation, "append");
  EXPECT_EQ(first.SummaryValue("floe.pipeline-id"), "p1");
  EXPECT_EQ(first.SummaryValue("floe.checkpoint-id"), "1");
  EXPECT_EQ(first.SummaryValue("floe.source-position"), "pos-1");
  EXPECT_EQ(first.SummaryValue("added-data-files"), "2");
  EXPECT_EQ(metadata.snapshots[1].SummaryValue("floe.checkpoint-id"), "2");
  EXPECT_EQ(metadata.Property("floe.committed-checkpoint.p1"), "2");
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}, {2, "y"}, {3, "z"}, {4, "w"}}));
  ASSERT_EQ(out_.items.size(), 2u);
  EXPECT_TRUE(out_.items[0].status);
  EXPECT_EQ(out_.items[0].table, "ns.a");
  EXPECT_EQ(out_.items[0].checkpoint_id, 1);
  EXPECT_EQ(out_.items[0].added_records, 3);
  EXPECT_EQ(out_.items[0].snapshot_id, first.snapshot_id);
  // The staged manifests became the table's as they are (v2: their entries
  // inherit each snapshot's id and sequence number), and none is left over.
  std::set<std::string> listed;
  for (const auto& snapshot : metadata.snapshots) {
    auto manifests = iceberg::SnapshotManifests(*io_, snapshot, metadata.format_version);
    ASSERT_TRUE(manifests) << manifests.error().ToString();
    for (const auto& m : *manifests)
      listed.insert(std::filesystem::path(m.manifest_path).filename());
  }
  int staged = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(dir_ / "warehouse" / "ns" / "a" / "metadata")) {
    if (!e.path().filename().string().starts_with("floe-commit-")) continue;
    ++staged;
    EXPECT_TRUE(listed.contains(e.path().filename().string())) << "orphan " << e.path();
  }
  EXPECT_EQ(staged, 2);
}

TEST_F(CommitterTest, CheckpointsAreNeverMergedSoEqualityDeletesApplyToOlderData) {
  // Checkpoint 1 inserts keys 1..3; checkpoint 2 replaces key 2 (an
  // equality delete plus a new row). Both complete at once (Notify(2) only):
  // two commits with two sequence numbers, else the delete would not apply
  // to the old row of key 2 (same sequence number) and key 2 would appear
  // twice.
  auto t = CreateTable("u", "bucket(4, id)", /*upsert=*/true);
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(
      committer->Process(ResultOf(t, WriteRows(t, {{1, "a"}, {2, "b"}, {3, "c"}})), out_));
  Snapshot(*committer, 1);
  FLOE_ASSERT_OK(committer->Process(
      ResultOf(t, WriteRows(t, {{2, "B"}}), WriteEqualityDeletes(t, {2})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);

  auto metadata = Metadata("u");
  ASSERT_EQ(metadata.snapshots.size(), 2u);
  EXPECT_EQ(metadata.snapshots[0].SummaryValue("floe.checkpoint-id"), "1");
  EXPECT_EQ(metadata.snapshots[1].SummaryValue("floe.checkpoint-id"), "2");
  EXPECT_EQ(metadata.snapshots[1].SummaryValue("added-equality-delete-files"), "1");
  EXPECT_LT(metadata.snapshots[0].sequence_number, metadata.snapshots[1].sequence_number);
  // The delete file carries checkpoint 2's sequence number.
  auto live = iceberg::ReadLiveFiles(*io_, metadata, metadata.CurrentSnapshot());
  FLOE_ASSERT_OK(live);
  int deletes = 0;
  for (const auto& f : *live) {
    if (f.entry.data_file.content == iceberg::DataFileContent::kEqualityDeletes) {
      ++deletes;
      EXPECT_EQ(f.entry.sequence_number, metadata.snapshots[1].sequence_number);
    } else if (f.entry.data_file.record_count == 1 &&
               f.entry.sequence_number == metadata.snapshots[1].sequence_number) {
      // the new row of key 2
    }
  }
  EXPECT_EQ(deletes, 1);
  EXPECT_EQ(ReadRows("u"), (Rows{{1, "a"}, {2, "B"}, {3, "c"}}));
}

TEST_F(CommitterTest, RestoreCommitsWhatTheTableLacksOnceAndOnlyOnce) {
  auto a = CreateTable("a");
  auto b = CreateTable("b", "bucket(2, id)");
  std::string state;
  {
    auto committer = NewCommitter();
    FLOE_ASSERT_OK(committer->Process(ResultOf(a, WriteRows(a, {{1, "a1"}})), out_));
    Snapshot(*committer, 1);
    Notify(*committer, 1);
    FLOE_ASSERT_OK(committer->Process(ResultOf(a, WriteRows(a, {{2, "a2"}})), out_));
    FLOE_ASSERT_OK(committer->Process(ResultOf(b, WriteRows(b, {{7, "b7"}, {8, "b8"}})), out_));
    state = Snapshot(*committer, 2);
    // The process dies before NotifyCheckpointComplete(2).
  }
  auto parsed = ParseCommitState(state, "test");
  FLOE_ASSERT_OK(parsed);
  ASSERT_EQ(parsed->pending.size(), 1u);
  EXPECT_EQ(parsed->pending.begin()->first, 2);
  EXPECT_EQ(Metadata("a").snapshots.size(), 1u);

  // The restart commits checkpoint 2 in Open, before any new data.
  out_.items.clear();
  auto restored = NewCommitter(Restored({state}, 2));
  EXPECT_EQ(Metadata("a").snapshots.size(), 2u);
  EXPECT_EQ(Metadata("b").snapshots.size(), 1u);
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "a1"}, {2, "a2"}}));
  EXPECT_EQ(ReadRows("b"), (Rows{{7, "b7"}, {8, "b8"}}));
  EXPECT_EQ(Metadata("b").snapshots[0].SummaryValue("floe.source-position"), "pos-2");
  // Its outcomes are emitted at the first chance.
  FLOE_ASSERT_OK(restored->Finish(out_));
  EXPECT_EQ(out_.items.size(), 2u);

  // A second restart from the same checkpoint commits nothing again.
  auto again = NewCommitter(Restored({state}, 2));
  EXPECT_EQ(Metadata("a").snapshots.size(), 2u);
  EXPECT_EQ(Metadata("b").snapshots.size(), 1u);
  ExpectNoCheckpointTwice(CheckpointSnapshots("a"), "a");
  ExpectNoCheckpointTwice(CheckpointSnapshots("b"), "b");
}

TEST_F(CommitterTest, RestoreIntoAnotherParallelismCommitsEachTableOnce) {
  std::vector<TableTargetPtr> tables;
  for (int i = 0; i < 6; ++i) tables.push_back(CreateTable("t" + std::to_string(i)));
  // Two committer subtasks take checkpoint 1 for their tables, then die.
  options_.commit_parallelism = 2;
  std::vector<std::string> states;
  for (int subtask = 0; subtask < 2; ++subtask) {
    auto committer = NewCommitter({}, subtask, 2);
    for (int i = 0; i < 6; ++i) {
      if (CommitterSubtaskOf(tables[i]->key, 2) != static_cast<size_t>(subtask)) continue;
      FLOE_ASSERT_OK(
          committer->Process(ResultOf(tables[i], WriteRows(tables[i], {{i, "v"}})), out_));
    }
    states.push_back(Snapshot(*committer, 1));
  }
  // Three subtasks restore from both states.
  options_.commit_parallelism = 3;
  for (int subtask = 0; subtask < 3; ++subtask) NewCommitter(Restored(states, 1), subtask, 3);
  for (int i = 0; i < 6; ++i) {
    std::string name = "t" + std::to_string(i);
    EXPECT_EQ(ReadRows(name), (Rows{{i, "v"}})) << name;
    EXPECT_EQ(CheckpointSnapshots(name), (std::map<int64_t, int>{{1, 1}})) << name;
  }
}

TEST_F(CommitterTest, EmptyCheckpointsMakeNoSnapshotExceptEveryNth) {
  options_.max_continuous_empty_commits = 3;
  auto t = CreateTable("e");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  for (CheckpointId id = 1; id <= 8; ++id) {
    Snapshot(*committer, id);
    Notify(*committer, id);
  }
  // Data at 1; empty at 2..8: a snapshot after 3 empty ones (4) and 3 more (7).
  EXPECT_EQ(CheckpointSnapshots("e"), (std::map<int64_t, int>{{1, 1}, {4, 1}, {7, 1}}));
  auto metadata = Metadata("e");
  EXPECT_EQ(metadata.CurrentSnapshot()->SummaryValue("floe.source-position"), "pos-7");
  EXPECT_EQ(metadata.CurrentSnapshot()->SummaryValue("added-data-files"), std::nullopt);
  EXPECT_EQ(ReadRows("e"), (Rows{{1, "x"}}));
  // A committer that never saw the table makes no snapshot for it.
  auto other = NewCommitter();
  for (CheckpointId id = 9; id <= 12; ++id) {
    Snapshot(*other, id);
    Notify(*other, id);
  }
  EXPECT_EQ(Metadata("e").snapshots.size(), 3u);
}

TEST_F(CommitterTest, ATableThatVanishedGetsNoMoreEmptyCommits) {
  // floe run renames or drops a table (schema.change.behavior evolve) once
  // its rows are committed: the committer still knows it, and its next empty
  // commit must not fail the job.
  options_.max_continuous_empty_commits = 2;
  auto t = CreateTable("gone");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  Snapshot(*committer, 1);
  Notify(*committer, 1);
  ASSERT_EQ(ReadRows("gone"), (Rows{{1, "x"}}));
  FLOE_ASSERT_OK(catalog_->DropTable({{"ns"}, "gone"}, /*purge=*/false));
  auto failed = [&] {
    return std::count_if(out_.items.begin(), out_.items.end(),
                         [](const CommitOutcome& o) { return !o.status; });
  };
  auto failures_before = failed();
  for (CheckpointId id = 2; id <= 6; ++id) {
    Snapshot(*committer, id);
    Notify(*committer, id);
  }
  EXPECT_EQ(failed(), failures_before);
  auto state = Snapshot(*committer, 7);
  EXPECT_EQ(state.find("gone"), std::string::npos) << state;  // forgotten
  auto reloaded = catalog_->LoadTable({{"ns"}, "gone"});
  ASSERT_FALSE(reloaded);
  EXPECT_EQ(reloaded.error().code(), ErrorCode::kNotFound);  // not brought back
}

TEST_F(CommitterTest, ATableReplacedUnderItsNameGetsItsNewRows) {
  // floe run renames (or drops) a table once its rows are committed and the
  // source then creates a table of the same name: the committer's handle
  // still knows the old one, and the next checkpoint's rows, written for the
  // new table, must land there (not fail on the old table's history).
  auto old_target = CreateTable("re");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(
      committer->Process(ResultOf(old_target, WriteRows(old_target, {{1, "old"}})), out_));
  Snapshot(*committer, 1);
  Notify(*committer, 1);
  ASSERT_EQ(ReadRows("re"), (Rows{{1, "old"}}));
  // (The test catalog is a Hadoop catalog, which cannot rename: a drop.)
  FLOE_ASSERT_OK(catalog_->DropTable({{"ns"}, "re"}, /*purge=*/true));
  auto new_target = CreateTable("re");
  FLOE_ASSERT_OK(
      committer->Process(ResultOf(new_target, WriteRows(new_target, {{2, "new"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);
  ASSERT_FALSE(out_.items.empty());
  EXPECT_TRUE(out_.items.back().status) << out_.items.back().status.error().ToString();
  EXPECT_EQ(ReadRows("re"), (Rows{{2, "new"}}));
}

TEST_F(CommitterTest, RecoverySkipsATableThatNoLongerExistsAndMarksTheCheckpointCommitted) {
  // Checkpoint 1 was committed, then floe run dropped the table (evolve) and
  // was killed before another checkpoint completed: the restore of 1 finds
  // the table gone, and must not fail the job.
  auto t = CreateTable("d");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  std::string state = Snapshot(*committer, 1);
  Notify(*committer, 1);
  FLOE_ASSERT_OK(catalog_->DropTable({{"ns"}, "d"}, /*purge=*/false));
  positions_ = std::make_shared<CheckpointPositions>();
  Status open = Ok();
  auto restored = NewCommitter(Restored({state}, 1), 0, 1, &open);
  EXPECT_TRUE(open) << open.error().ToString();
  EXPECT_EQ(positions_->CommittedThrough(), 1);
  EXPECT_FALSE(catalog_->LoadTable({{"ns"}, "d"}));  // not brought back
}

TEST_F(CommitterTest, OverwriteReplacesThePartitionsWritten) {
  options_.overwrite = true;
  auto t = CreateTable("o", "v");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "a"}, {2, "b"}})), out_));
  Snapshot(*committer, 1);
  Notify(*committer, 1);
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{3, "a"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);
  EXPECT_EQ(ReadRows("o"), (Rows{{2, "b"}, {3, "a"}}));
  auto metadata = Metadata("o");
  EXPECT_EQ(metadata.CurrentSnapshot()->operation, "overwrite");
  EXPECT_EQ(metadata.CurrentSnapshot()->SummaryValue("floe.checkpoint-id"), "2");
}

TEST_F(CommitterTest, UpsertWithOverwriteIsRefused) {
  options_.overwrite = true;
  auto t = CreateTable("r", "", /*upsert=*/true);
  auto committer = NewCommitter();
  auto s = committer->Process(ResultOf(t, WriteRows(t, {{1, "a"}})), out_);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.error().message().find("upsert together with overwrite"), std::string::npos);
}

TEST_F(CommitterTest, CommitAnsweredUnknownButAppliedIsNotRepeated) {
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  Snapshot(*committer, 1);
  catalog_->ArmCommit(CommitFault::kUnknownApplied);
  Notify(*committer, 1);
  ASSERT_EQ(out_.items.size(), 1u);
  EXPECT_TRUE(out_.items[0].status) << out_.items[0].status.error().ToString();
  EXPECT_EQ(out_.items[0].snapshot_id, Metadata("a").CurrentSnapshot()->snapshot_id);
  EXPECT_EQ(catalog_->commits(), 1);
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}}));
  // Nothing is left pending: the next checkpoint commits only its own data.
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{2, "y"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}, {2, "y"}}));
  EXPECT_EQ(CheckpointSnapshots("a"), (std::map<int64_t, int>{{1, 1}, {2, 1}}));
}

TEST_F(CommitterTest, CommitAnsweredUnknownAndNotAppliedIsRetriedOnce) {
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  Snapshot(*committer, 1);
  catalog_->ArmCommit(CommitFault::kUnknownNotApplied);
  Notify(*committer, 1);
  ASSERT_EQ(out_.items.size(), 1u);
  EXPECT_TRUE(out_.items[0].status) << out_.items[0].status.error().ToString();
  EXPECT_EQ(CheckpointSnapshots("a"), (std::map<int64_t, int>{{1, 1}}));
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}}));
}

TEST_F(CommitterTest, CommitUnknownTwiceFailsAndStaysPendingInOrder) {
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  Snapshot(*committer, 1);
  catalog_->ArmCommit(CommitFault::kUnknownNotApplied, 1, /*times=*/2);
  Notify(*committer, 1);
  auto failed = Failures();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].status.error().code(), ErrorCode::kCommitStateUnknown);
  EXPECT_EQ(failed[0].checkpoint_id, 1);
  EXPECT_EQ(Metadata("a").snapshots.size(), 0u);

  // The check-commit sink stops the job on it, naming table and checkpoint.
  CheckCommitSink sink;
  VectorCollector<engine::Nothing> none;
  auto s = sink.Process(failed[0], none);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("commit of table ns.a at checkpoint 1 failed"),
            std::string::npos)
      << s.error().message();

  // Checkpoint 1 stays in the state; 2 waits behind it and both commit in order.
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{2, "y"}})), out_));
  std::string state = Snapshot(*committer, 2);
  auto parsed = ParseCommitState(state, "test");
  FLOE_ASSERT_OK(parsed);
  EXPECT_EQ(parsed->pending.size(), 2u);
  Notify(*committer, 2);
  auto metadata = Metadata("a");
  ASSERT_EQ(metadata.snapshots.size(), 2u);
  EXPECT_EQ(metadata.snapshots[0].SummaryValue("floe.checkpoint-id"), "1");
  EXPECT_EQ(metadata.snapshots[1].SummaryValue("floe.checkpoint-id"), "2");
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}, {2, "y"}}));
}

TEST_F(CommitterTest, FailedCommitStaysPendingAndARestartCommitsIt) {
  auto t = CreateTable("a");
  std::string state;
  {
    auto committer = NewCommitter();
    FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
    state = Snapshot(*committer, 1);
    catalog_->ArmCommit(CommitFault::kFailBefore);
    Notify(*committer, 1);
    ASSERT_EQ(Failures().size(), 1u);
  }
  EXPECT_EQ(Metadata("a").snapshots.size(), 0u);
  NewCommitter(Restored({state}, 1));
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}}));
  EXPECT_EQ(CheckpointSnapshots("a"), (std::map<int64_t, int>{{1, 1}}));
}

TEST_F(CommitterTest, RecoveryAfterSnapshotExpiryUsesTheProperty) {
  auto t = CreateTable("a");
  std::string state2;
  {
    auto committer = NewCommitter();
    for (CheckpointId id = 1; id <= 3; ++id) {
      FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{id, "v"}})), out_));
      std::string s = Snapshot(*committer, id);
      if (id == 2) state2 = s;
      Notify(*committer, id);
    }
  }
  // Expire every snapshot but the current one: checkpoint 2's is gone.
  {
    auto table = iceberg::Table::Load(*catalog_, {{"ns"}, "a"});
    FLOE_ASSERT_OK(table);
    auto expire = table->NewExpireSnapshots();
    expire->RetainLast(1).ExpireOlderThan(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count() +
                                          1000);
    FLOE_ASSERT_OK(expire->Commit());
  }
  auto metadata = Metadata("a");
  ASSERT_EQ(metadata.snapshots.size(), 1u);
  EXPECT_EQ(FindCheckpointSnapshot(metadata, "p1", 2), nullptr);
  auto max = MaxCommittedCheckpoint(metadata, "p1");
  FLOE_ASSERT_OK(max);
  EXPECT_EQ(*max, 3);
  // Restoring from checkpoint 2 (an older checkpoint) commits nothing twice.
  NewCommitter(Restored({state2}, 2));
  EXPECT_EQ(Metadata("a").snapshots.size(), 1u);
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "v"}, {2, "v"}, {3, "v"}}));
}

TEST_F(CommitterTest, HistoryAloneFindsTheMaxWhenThePropertyIsGone) {
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "v"}})), out_));
  std::string state = Snapshot(*committer, 1);
  Notify(*committer, 1);
  // Another tool rewrites the properties (drops ours) and appends on top.
  {
    auto table = iceberg::Table::Load(*catalog_, {{"ns"}, "a"});
    FLOE_ASSERT_OK(table);
    auto props = table->NewUpdateProperties();
    props->Remove("floe.committed-checkpoint.p1");
    FLOE_ASSERT_OK(props->Commit());
    auto append = table->NewAppend();
    for (auto& f : WriteRows(t, {{9, "other"}})) append->AppendFile(f);
    FLOE_ASSERT_OK(append->Commit());
  }
  auto max = MaxCommittedCheckpoint(Metadata("a"), "p1");
  FLOE_ASSERT_OK(max);
  EXPECT_EQ(*max, 1);
  NewCommitter(Restored({state}, 1));
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "v"}, {9, "other"}}));
}

TEST_F(CommitterTest, ReusedCheckpointIdsAreRefusedNotSkipped) {
  auto t = CreateTable("a");
  {
    auto committer = NewCommitter();
    for (CheckpointId id = 1; id <= 3; ++id) {
      FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{id, "v"}})), out_));
      Snapshot(*committer, id);
      Notify(*committer, id);
    }
  }
  // A run that restarts ids at 2 (restored from an older checkpoint without
  // JobOptions::min_checkpoint_id) would lose its new data to the skip rule.
  out_.items.clear();
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{10, "new"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);
  auto failed = Failures();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].status.error().message().find("reused"), std::string::npos)
      << failed[0].status.error().message();
  EXPECT_EQ(Metadata("a").snapshots.size(), 3u);
}

TEST_F(CommitterTest, MaxCommittedCheckpointOverTables) {
  auto a = CreateTable("a");
  auto b = CreateTable("b");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(a, WriteRows(a, {{1, "v"}})), out_));
  Snapshot(*committer, 4);
  Notify(*committer, 4);
  FLOE_ASSERT_OK(committer->Process(ResultOf(b, WriteRows(b, {{1, "v"}})), out_));
  Snapshot(*committer, 9);
  Notify(*committer, 9);
  auto max =
      MaxCommittedCheckpoint(*catalog_, "p1", {{{"ns"}, "a"}, {{"ns"}, "b"}, {{"ns"}, "missing"}});
  FLOE_ASSERT_OK(max);
  EXPECT_EQ(*max, 9);
  auto other = MaxCommittedCheckpoint(*catalog_, "p2", {{{"ns"}, "a"}});
  FLOE_ASSERT_OK(other);
  EXPECT_EQ(*other, 0);
}

TEST_F(CommitterTest, RowDeltaWithPositionDeletesValidatesReferencedFiles) {
  auto t = CreateTable("p");
  auto committer = NewCommitter();
  auto data = WriteRows(t, {{1, "a"}, {2, "b"}, {3, "c"}});
  ASSERT_EQ(data.size(), 1u);
  auto pos = iceberg::WritePositionDeletes(*io_, *t->metadata, 0, {}, {{data[0].file_path, 1}}, {});
  FLOE_ASSERT_OK(pos);
  WriteResult r = ResultOf(t, data, {*pos});
  r.referenced_data_files = {data[0].file_path};
  FLOE_ASSERT_OK(committer->Process(std::move(r), out_));
  Snapshot(*committer, 1);
  Notify(*committer, 1);
  ASSERT_EQ(Failures().size(), 0u);
  EXPECT_EQ(ReadRows("p"), (Rows{{1, "a"}, {3, "c"}}));
  EXPECT_EQ(Metadata("p").CurrentSnapshot()->SummaryValue("added-position-delete-files"), "1");
}

/// Live files of the table's current snapshot: (data files, delete files).
std::pair<size_t, size_t> LiveCounts(io::FileIO& io, const iceberg::TableMetadata& metadata) {
  auto live = iceberg::ReadLiveFiles(io, metadata, metadata.CurrentSnapshot());
  EXPECT_TRUE(live) << live.error().ToString();
  std::pair<size_t, size_t> n{0, 0};
  if (!live) return n;
  for (const auto& f : *live) {
    (f.entry.data_file.content == iceberg::DataFileContent::kData ? n.first : n.second) += 1;
  }
  return n;
}

TEST_F(CommitterTest, TruncatedCheckpointRemovesEveryFileAndAddsTheNewOnesInOneSnapshot) {
  auto t = CreateTable("tr", "bucket(4, id)");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "a"}, {2, "b"}})), out_));
  Snapshot(*committer, 1);
  FLOE_ASSERT_OK(committer->Process(
      ResultOf(t, WriteRows(t, {{3, "c"}}), WriteEqualityDeletes(t, {1})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);
  ASSERT_EQ(ReadRows("tr"), (Rows{{2, "b"}, {3, "c"}}));
  auto before = LiveCounts(*io_, Metadata("tr"));
  ASSERT_GE(before.first, 2u);  // ids 1 and 2 may share a bucket
  ASSERT_EQ(before.second, 1u);

  // Checkpoint 3: two writer subtasks saw the truncation; one wrote rows after it.
  WriteResult after = ResultOf(t, WriteRows(t, {{10, "x"}, {11, "y"}}));
  after.truncated = true;
  const size_t new_files = after.data_files.size();
  WriteResult empty = ResultOf(t, {});
  empty.truncated = true;
  empty.writer_subtask = 1;
  FLOE_ASSERT_OK(committer->Process(std::move(empty), out_));
  FLOE_ASSERT_OK(committer->Process(std::move(after), out_));
  Snapshot(*committer, 3);
  Notify(*committer, 3);
  ASSERT_TRUE(Failures().empty()) << Failures()[0].status.error().ToString();

  auto metadata = Metadata("tr");
  ASSERT_EQ(metadata.snapshots.size(), 3u);  // one commit for checkpoint 3
  const auto& snap = metadata.snapshots.back();
  EXPECT_EQ(snap.operation, "overwrite");
  EXPECT_EQ(snap.SummaryValue("floe.pipeline-id"), "p1");
  EXPECT_EQ(snap.SummaryValue("floe.checkpoint-id"), "3");
  EXPECT_EQ(snap.SummaryValue("floe.source-position"), "pos-3");
  EXPECT_EQ(snap.SummaryValue("deleted-data-files"), std::to_string(before.first));
  EXPECT_EQ(snap.SummaryValue("removed-equality-delete-files"), "1");
  EXPECT_EQ(snap.SummaryValue("added-records"), "2");
  EXPECT_EQ(metadata.Property("floe.committed-checkpoint.p1"), "3");
  EXPECT_EQ(ReadRows("tr"), (Rows{{10, "x"}, {11, "y"}}));
  auto live = LiveCounts(*io_, metadata);
  EXPECT_EQ(live.second, 0u) << "the delete files are removed with the data";
  EXPECT_EQ(live.first, new_files);

  // A truncation with no rows after it: a delete snapshot leaving nothing.
  WriteResult only = ResultOf(t, {});
  only.truncated = true;
  FLOE_ASSERT_OK(committer->Process(std::move(only), out_));
  Snapshot(*committer, 4);
  Notify(*committer, 4);
  metadata = Metadata("tr");
  ASSERT_EQ(metadata.snapshots.size(), 4u);
  EXPECT_EQ(metadata.snapshots.back().operation, "delete");
  EXPECT_EQ(metadata.snapshots.back().SummaryValue("floe.checkpoint-id"), "4");
  EXPECT_TRUE(ReadRows("tr").empty());
  EXPECT_EQ(LiveCounts(*io_, metadata), (std::pair<size_t, size_t>{0, 0}));
  // And the table goes on normally.
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{7, "z"}})), out_));
  Snapshot(*committer, 5);
  Notify(*committer, 5);
  EXPECT_EQ(ReadRows("tr"), (Rows{{7, "z"}}));
  ExpectNoCheckpointTwice(CheckpointSnapshots("tr"), "tr");
}

TEST_F(CommitterTest, RestoredPendingTruncatedCheckpointCommitsTheTruncationOnce) {
  auto t = CreateTable("trr");
  {
    auto committer = NewCommitter();
    FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "a"}, {2, "b"}})), out_));
    Snapshot(*committer, 1);
    Notify(*committer, 1);
  }
  std::string state;
  {
    auto committer = NewCommitter();
    WriteResult r = ResultOf(t, WriteRows(t, {{5, "e"}}));
    r.truncated = true;
    FLOE_ASSERT_OK(committer->Process(std::move(r), out_));
    state = Snapshot(*committer, 2);
    // The process dies before NotifyCheckpointComplete(2).
  }
  auto parsed = ParseCommitState(state, "test");
  FLOE_ASSERT_OK(parsed);
  ASSERT_EQ(parsed->pending.size(), 1u);
  EXPECT_TRUE(parsed->pending.at(2).tables.at("ns.trr").truncated);
  EXPECT_EQ(ParseCommitState(SerializeCommitState(*parsed), "again").value(), *parsed);
  EXPECT_EQ(ReadRows("trr"), (Rows{{1, "a"}, {2, "b"}}));

  auto restored = NewCommitter(Restored({state}, 2));
  EXPECT_EQ(ReadRows("trr"), (Rows{{5, "e"}}));
  auto metadata = Metadata("trr");
  ASSERT_EQ(metadata.snapshots.size(), 2u);
  EXPECT_EQ(metadata.snapshots.back().operation, "overwrite");
  EXPECT_EQ(metadata.snapshots.back().SummaryValue("floe.checkpoint-id"), "2");
  // A second recovery from the same checkpoint finds it committed.
  auto again = NewCommitter(Restored({state}, 2));
  EXPECT_EQ(Metadata("trr").snapshots.size(), 2u);
  EXPECT_EQ(ReadRows("trr"), (Rows{{5, "e"}}));
  ExpectNoCheckpointTwice(CheckpointSnapshots("trr"), "trr");
}

/// A fence that records what each commit attempt applied to, and refuses
/// the checkpoints it is told to.
class RecordingFence final : public CommitFence {
 public:
  Result<std::string> PositionFor(std::string_view table_key, CheckpointId checkpoint,
                                  const iceberg::TableMetadata& base) override {
    const iceberg::Snapshot* parent = base.CurrentSnapshot();
    std::string parent_position =
        parent != nullptr ? parent->SummaryValue("floe.source-position").value_or("") : "none";
    seen.push_back(fmt::format("{}@{} on {}", table_key, checkpoint, parent_position));
    if (refuse.contains(checkpoint)) return CommitConflict("refused checkpoint {}", checkpoint);
    return fmt::format("{}+{}", parent_position, checkpoint);
  }
  std::vector<std::string> seen;
  std::set<CheckpointId> refuse;
};

TEST_F(CommitterTest, AFenceSetsEachCommitsPositionFromItsParentAndCanRefuseIt) {
  auto fence = std::make_shared<RecordingFence>();
  fence->refuse.insert(2);
  options_.commit_fence = fence;
  auto t = CreateTable("a");
  auto committer = NewCommitter();
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{1, "x"}})), out_));
  Snapshot(*committer, 1);
  Notify(*committer, 1);
  FLOE_ASSERT_OK(committer->Process(ResultOf(t, WriteRows(t, {{2, "y"}})), out_));
  Snapshot(*committer, 2);
  Notify(*committer, 2);

  auto metadata = Metadata("a");
  ASSERT_EQ(metadata.snapshots.size(), 1u) << "the refused checkpoint is not in the table";
  EXPECT_EQ(metadata.snapshots[0].SummaryValue("floe.source-position"), "none+1");
  EXPECT_EQ(fence->seen, (std::vector<std::string>{"ns.a@1 on none", "ns.a@2 on none+1"}));
  EXPECT_EQ(ReadRows("a"), (Rows{{1, "x"}}));
  auto failed = Failures();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].checkpoint_id, 2);
  EXPECT_EQ(failed[0].status.error().code(), ErrorCode::kCommitConflict);
  EXPECT_NE(failed[0].status.error().message().find("refused checkpoint 2"), std::string::npos);
}

}  // namespace
}  // namespace floe::sink::testing
