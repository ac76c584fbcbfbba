#pragma once
/// Router and RowBatcher: how a source spreads rows over writer subtasks
/// (`write.distribution-mode`, docs/sink-writers.md).
///
/// Every change to one key must reach the same writer subtask within a
/// checkpoint (a row written and changed in one checkpoint is deleted by
/// position in the file that writer holds), so tables with equality fields
/// are always routed by a function of the key: by key hash (none), by
/// partition (hash: the partition source columns are equality fields) or by
/// key range (range: the ranges change only between checkpoints).
///
/// A source keeps one RowBatcher, adds each row, and calls Flush at the end
/// of every Poll, so no row it has read is held back across a checkpoint
/// barrier (its position in SnapshotState must cover only emitted rows).

#include <cstdint>
#include <memory>

#include "floe/engine/operator.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::sink {

class RowBatcher {
 public:
  /// Rows for `options.write_parallelism` writer subtasks, in batches of up
  /// to `batch_rows` rows.
  RowBatcher(const SinkOptions& options, size_t batch_rows = 1024);
  ~RowBatcher();

  /// Copies `row` (values of `target`'s schema) into the batch for its table
  /// and writer subtask; emits that batch to `out` when it is full. A new
  /// target for a table (schema change) first emits the table's pending
  /// batches, so rows stay in order. Errors: kInvalidArgument when a row of
  /// an upsert/delete has a null equality field; Cancelled from `out`.
  Status Add(const TableTargetPtr& target, RowKind kind, types::Row row,
             engine::Collector<RowBatch>& out);
  /// Adds the rows of `batch` (inserts of `batch.target`'s schema that own
  /// their values in `batch.arena`, at most `batch_rows` of them) as Add
  /// would, in order. When the table's rows are not spread by key or
  /// partition (one batch at a time goes to a writer), the table's pending
  /// rows are emitted and then `batch` itself, without copying a value.
  /// Errors as Add.
  Status AddBatch(RowBatch batch, engine::Collector<RowBatch>& out);
  /// The source truncated the table of `target` at this point of the stream:
  /// emits the table's pending batches (so the rows before the truncation
  /// reach their writers first), then one empty batch with `truncate` set to
  /// EVERY writer subtask (each may hold rows of the table in this
  /// checkpoint). Rows added afterwards are batched as usual. Errors:
  /// kInvalidArgument for a target without metadata; Cancelled from `out`.
  Status Truncate(const TableTargetPtr& target, engine::Collector<RowBatch>& out);
  /// Emits every non-empty batch.
  Status Flush(engine::Collector<RowBatch>& out);
  /// The source is taking a checkpoint (call in SnapshotState, after Flush):
  /// range distribution may rebalance its key ranges now, because a new
  /// route for a key is safe only from one checkpoint to the next.
  void CheckpointBoundary();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The engine partitioner for RowBatches: the batch's `route`.
size_t RouteOf(const RowBatch& batch, size_t num_subtasks);

}  // namespace floe::sink
