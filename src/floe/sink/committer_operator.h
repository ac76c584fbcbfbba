#pragma once
/// The committer: the exactly-once end of the sink (docs/sink-commit.md).
///
///   writers --WriteResult (CommitterRoute)--> committer (commit_parallelism)
///           --CommitOutcome--> check-commit sink
///
/// Each table belongs to one committer subtask (CommitterRoute: a stable hash
/// of the table name). Per checkpoint the committer
///  - Process: holds the WriteResults of each table;
///  - SnapshotState(N): writes a data and a delete manifest per table and
///    spec (threads over tables), and returns a state (commit_state.h) with
///    every checkpoint not yet committed, N included, and N's source position;
///  - NotifyCheckpointComplete(N): commits, per table (threads over tables),
///    every pending checkpoint <= N in increasing order, ONE Iceberg commit
///    per table and checkpoint (FastAppend, RowDelta when there are deletes,
///    OverwriteFiles of the partitions written in overwrite mode), carrying
///    the summary keys floe.pipeline-id / floe.checkpoint-id /
///    floe.source-position and, in the same atomic commit, the table property
///    floe.committed-checkpoint.<pipeline-id>. When the catalog commits
///    several tables at once (Catalog::SupportsMultiTableCommit) and this is
///    the only committer subtask, every table of a checkpoint goes into ONE
///    catalog transaction instead (docs/sink-commit.md, "One transaction per
///    checkpoint"); Open logs which mode is in use. A checkpoint at or below the
///    table's max committed id (committed_checkpoints.h) is skipped. A commit
///    answered kCommitStateUnknown is resolved by reloading the table. Each
///    commit (or failure) is emitted as a CommitOutcome; a failed checkpoint
///    stays pending, and later ones of that table wait behind it. With
///    nothing at or below N left pending, N is marked committed in the
///    shared CheckpointPositions (CommittedThrough).
///  - Open(restored): takes the pending checkpoints of its tables from every
///    subtask's state (any former parallelism) and commits those the tables
///    lack before anything new, then marks the restored checkpoint committed;
///    a failure there fails Open (the job stops, a restart tries again). A
///    table that no longer exists is skipped with a warning (floe run renames
///    or drops a table only after every checkpoint before the change is
///    committed, recovery included).
///
/// Threading: called on its subtask's thread; commit_threads helper threads
/// share the subtask's catalog (the Hadoop and SQL catalogs are thread-safe)
/// and each works on distinct tables.

#include <cstddef>
#include <memory>
#include <string_view>

#include "floe/engine/operator.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::sink {

/// The committer subtask of a table key (TableIdentifier::ToString()): a
/// hash that does not change between runs or builds (FNV-1a), so a restored
/// state finds its tables' owners.
size_t CommitterSubtaskOf(std::string_view table_key, size_t num_subtasks);

/// The engine partitioner from writers to committers.
size_t CommitterRoute(const WriteResult& result, size_t num_subtasks);

class CommitterOperator final : public engine::Operator<WriteResult, CommitOutcome> {
 public:
  /// `options.catalog` opens this subtask's catalog (in Open);
  /// `options.pipeline_id` must not be empty. `positions` (may be null: no
  /// source position in the summaries) is shared with the sources.
  CommitterOperator(SinkOptions options, std::shared_ptr<CheckpointPositions> positions);
  ~CommitterOperator() override;

  /// Errors: kInvalidArgument (no pipeline id or catalog factory), the
  /// catalog factory's, kCorruption of a restored state, and the first
  /// failed commit of a restored checkpoint (naming table and checkpoint).
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Errors: kInvalidArgument for a result this committer must refuse
  /// (upsert in overwrite mode, delete files in overwrite mode, no target).
  Status Process(WriteResult result, engine::Collector<CommitOutcome>& out) override;
  /// Errors: those of writing manifests (the checkpoint then fails).
  Result<std::string> SnapshotState(engine::CheckpointId id,
                                    engine::Collector<CommitOutcome>& out) override;
  /// Commit failures become CommitOutcomes; errors are only Cancelled from
  /// `out`.
  Status NotifyCheckpointComplete(engine::CheckpointId id,
                                  engine::Collector<CommitOutcome>& out) override;
  /// Emits the outcomes of commits made in Open, if any are left.
  Status Finish(engine::Collector<CommitOutcome>& out) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::sink
