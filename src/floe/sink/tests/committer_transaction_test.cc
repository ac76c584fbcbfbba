// The committer on a catalog that commits several tables at once
// (Catalog::CommitTables, the REST catalog's `POST .../transactions/commit`):
// every table of a checkpoint in ONE transaction, so a reader never sees one
// table at checkpoint N and another at N-1 (docs/sink-commit.md, "One
// transaction per checkpoint"). The catalog is FaultyCatalog with its
// multi-table commit on, over a Hadoop catalog; conflicts with another
// writer, unknown outcomes (applied, not applied, applied to one table only)
// and failures are injected, and each table must hold every checkpoint
// exactly once.

#include <gtest/gtest.h>

#include <map>

#include "floe/iceberg/table.h"
#include "floe/iceberg/update/transaction.h"
#include "floe/sink/committer_operator.h"
#include "floe/sink/tests/commit_test_util.h"

namespace floe::sink::testing {
namespace {

using engine::CheckpointId;

class CommitterTransactionTest : public CommitFixture {
 protected:
  void SetUp() override {
    CommitFixture::SetUp();
    catalog_->EnableMultiTableCommit();
    a_ = CreateTable("a");
    b_ = CreateTable("b", "bucket(2, id)");
  }

  static engine::OperatorContext Context(int parallelism) {
    engine::OperatorContext context;
    context.name = "committer";
    context.parallelism = parallelism;
    return context;
  }

  std::unique_ptr<CommitterOperator> NewCommitter(int parallelism = 1) {
    auto c = std::make_unique<CommitterOperator>(options_, positions_);
    Status s = c->Open(Context(parallelism), {});
    EXPECT_TRUE(s) << s.error().ToString();
    return c;
  }

  /// Rows `id` into both tables as checkpoint `id`, snapshotted and
  /// completed.
  void Checkpoint(CommitterOperator& c, CheckpointId id) {
    const std::string value = "c" + std::to_string(id);
    FLOE_ASSERT_OK(c.Process(ResultOf(a_, WriteRows(a_, {{id, value}})), out_));
    FLOE_ASSERT_OK(c.Process(ResultOf(b_, WriteRows(b_, {{id, value}})), out_));
    positions_->Put(id, 0, "pos-" + std::to_string(id));
    auto state = c.SnapshotState(id, out_);
    ASSERT_TRUE(state) << state.error().ToString();
    FLOE_ASSERT_OK(c.NotifyCheckpointComplete(id, out_));
  }

  /// The checkpoint id of each snapshot of table `name`, oldest first.
  std::vector<std::string> CheckpointsOf(const std::string& name) {
    std::vector<std::string> ids;
    for (const auto& snapshot : Metadata(name).snapshots) {
      ids.push_back(snapshot.SummaryValue("floe.checkpoint-id").value_or(""));
    }
    return ids;
  }

  /// Checks that both tables hold checkpoints 1..n once each, and their rows.
  void ExpectBothTablesHold(int n) {
    std::vector<std::string> ids;
    Rows rows;
    for (int i = 1; i <= n; ++i) {
      ids.push_back(std::to_string(i));
      rows.insert({i, "c" + std::to_string(i)});
    }
    EXPECT_EQ(CheckpointsOf("a"), ids);
    EXPECT_EQ(CheckpointsOf("b"), ids);
    EXPECT_EQ(ReadRows("a"), rows);
    EXPECT_EQ(ReadRows("b"), rows);
  }

  int Failed() const {
    int failed = 0;
    for (const auto& o : out_.items) failed += o.status ? 0 : 1;
    return failed;
  }

  TableTargetPtr a_, b_;
  std::shared_ptr<CheckpointPositions> positions_ = std::make_shared<CheckpointPositions>();
  VectorCollector<CommitOutcome> out_;
};

TEST_F(CommitterTransactionTest, EveryCheckpointIsOneTransactionOverAllItsTables) {
  auto committer = NewCommitter();
  for (CheckpointId id = 1; id <= 3; ++id) {
    Checkpoint(*committer, id);
    EXPECT_EQ(catalog_->transactions(), id);
  }
  ExpectBothTablesHold(3);
  ASSERT_EQ(out_.items.size(), 6u);
  EXPECT_EQ(Failed(), 0);
  const auto a = Metadata("a");
  EXPECT_EQ(out_.items.back().snapshot_id, Metadata("b").current_snapshot_id);
  EXPECT_EQ(a.Property("floe.committed-checkpoint.p1"), "3");
  EXPECT_EQ(a.snapshots.back().SummaryValue("floe.source-position"), "pos-3");
}

// Two committer subtasks share the tables: neither sees a whole checkpoint,
// so each commits its tables one by one.
TEST_F(CommitterTransactionTest, SeveralCommitterSubtasksCommitTablePerTable) {
  auto committer = NewCommitter(/*parallelism=*/2);
  Checkpoint(*committer, 1);
  EXPECT_EQ(catalog_->transactions(), 0);
  ExpectBothTablesHold(1);
}

// Another writer moves table a between the committer's load and its commit:
// the transaction conflicts, every table is reloaded and the transaction is
// made again on top of the other writer's change.
TEST_F(CommitterTransactionTest, AConflictWithAnotherWriterIsRetried) {
  auto committer = NewCommitter();
  Checkpoint(*committer, 1);
  auto other = iceberg::Table::Load(*catalog_, a_->id);
  ASSERT_TRUE(other) << other.error().ToString();
  auto txn = other->NewTransaction();
  txn->UpdateProperties().Set("other-writer", "was-here");
  FLOE_ASSERT_OK(txn->Commit());
  const int commits_before = catalog_->commits();
  Checkpoint(*committer, 2);
  EXPECT_EQ(Failed(), 0);
  EXPECT_EQ(catalog_->transactions(), 2);
  EXPECT_EQ(catalog_->commits() - commits_before, 2);  // the retry's two tables
  ExpectBothTablesHold(2);
  EXPECT_EQ(Metadata("a").Property("other-writer"), "was-here");
}

// The transaction's answer is lost: every table is reloaded; the
// checkpoint is found in all (applied), in none (made again), or in one
// table only (a server that applies tables one by one): then the other
// table gets it in a second transaction. Never twice, never lost.
TEST_F(CommitterTransactionTest, UnknownOutcomesAreResolvedByReloadingEveryTable) {
  auto committer = NewCommitter();
  catalog_->ArmCommit(CommitFault::kUnknownApplied);
  Checkpoint(*committer, 1);
  EXPECT_EQ(catalog_->transactions(), 1);
  catalog_->ArmCommit(CommitFault::kUnknownNotApplied);
  Checkpoint(*committer, 2);
  EXPECT_EQ(catalog_->transactions(), 2);
  catalog_->ArmCommit(CommitFault::kUnknownPartlyApplied);
  Checkpoint(*committer, 3);
  EXPECT_EQ(catalog_->transactions(), 4);  // then b alone, in a transaction of its own
  EXPECT_EQ(Failed(), 0);
  ExpectBothTablesHold(3);
  ASSERT_EQ(out_.items.size(), 6u);
  for (const auto& o : out_.items) EXPECT_GT(o.snapshot_id, 0) << o.table << " " << o.checkpoint_id;
}

// An answer lost twice with the checkpoint in no table: both tables' commits
// fail (the job stops), and a later checkpoint commits it first.
TEST_F(CommitterTransactionTest, AFailedTransactionLeavesEveryTableWithoutTheCheckpoint) {
  auto committer = NewCommitter();
  catalog_->ArmCommit(CommitFault::kUnknownNotApplied, 1, 2);
  Checkpoint(*committer, 1);
  EXPECT_EQ(Failed(), 2);
  EXPECT_TRUE(Metadata("a").snapshots.empty());
  EXPECT_TRUE(Metadata("b").snapshots.empty());
  catalog_->ArmCommit(CommitFault::kFailBefore);
  Checkpoint(*committer, 2);
  EXPECT_EQ(Failed(), 4);
  EXPECT_TRUE(Metadata("a").snapshots.empty());
  Checkpoint(*committer, 3);
  EXPECT_EQ(Failed(), 4);
  ExpectBothTablesHold(3);
  EXPECT_EQ(catalog_->transactions(), 3);
}

// A restart with checkpoints pending in the restored state commits them in
// one transaction each; a table that already has one skips it.
TEST_F(CommitterTransactionTest, RecoveryCommitsEachRestoredCheckpointInOneTransaction) {
  std::string state;
  {
    auto committer = NewCommitter();
    FLOE_ASSERT_OK(committer->Process(ResultOf(a_, WriteRows(a_, {{1, "c1"}})), out_));
    FLOE_ASSERT_OK(committer->Process(ResultOf(b_, WriteRows(b_, {{1, "c1"}})), out_));
    auto snapshot = committer->SnapshotState(1, out_);
    ASSERT_TRUE(snapshot) << snapshot.error().ToString();
    state = *snapshot;
    // The process dies before NotifyCheckpointComplete(1).
  }
  engine::RestoredState restored;
  restored.all = {state};
  restored.own = state;
  restored.checkpoint_id = 1;
  auto committer = std::make_unique<CommitterOperator>(options_, positions_);
  FLOE_ASSERT_OK(committer->Open(Context(1), restored));
  EXPECT_EQ(catalog_->transactions(), 1);
  Checkpoint(*committer, 2);
  EXPECT_EQ(Failed(), 0);
  ExpectBothTablesHold(2);
}

}  // namespace
}  // namespace floe::sink::testing
