#pragma once
/// The records that flow through the sink (docs/sink.md):
///
///   source --RowBatch--> writers (write parallelism) --WriteResult--> committers
///          (one per table by table-name hash) --CommitOutcome--> check-commit sink
///
/// A source turns change events into RowBatches for a TableTarget (the
/// destination table at one schema version), choosing each batch's writer
/// subtask with a Router (router.h). Writers keep one open file per table and
/// partition; at a checkpoint barrier they complete their files and emit one
/// WriteResult per table and spec ahead of the barrier. Committers keep the
/// results of each checkpoint in their state and commit them once the
/// checkpoint is durable.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/common/arena.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/types/value.h"

namespace floe::sink {

/// The kind of a row change, as in Flink's changelog (RowKind).
enum class RowKind : uint8_t {
  kInsert,        ///< a new row (or, in upsert mode, a row replacing its key)
  kUpdateBefore,  ///< the old image of an updated row: deleted
  kUpdateAfter,   ///< the new image of an updated row: inserted (upsert: replaces its key)
  kDelete,        ///< a deleted row (upsert: only its key columns need values)
};

/// A destination table at one schema version, with how rows are written to
/// it. Immutable once built; a schema change makes a new TableTarget.
struct TableTarget {
  iceberg::TableIdentifier id;
  /// `id.ToString()`: the key writers and committers route and index by.
  std::string key;
  /// The table's metadata when this target was made: location, the schema
  /// the rows follow (current schema), default partition spec, properties.
  std::shared_ptr<const iceberg::TableMetadata> metadata;
  /// Upsert: inserts and update-afters replace the row with the same key.
  bool upsert = false;
  /// Equality field ids (the table's identifier fields / primary key). Empty
  /// for append-only tables; required for upsert and for deletes.
  std::vector<int32_t> equality_field_ids;
};
using TableTargetPtr = std::shared_ptr<const TableTarget>;

/// Rows for one table and one writer subtask, owning their values (in
/// `arena`). Rows follow `target->metadata`'s current schema: one value per
/// top-level field, in order.
struct RowBatch {
  RowBatch() : arena(std::make_unique<Arena>()) {}
  RowBatch(RowBatch&&) = default;
  RowBatch& operator=(RowBatch&&) = default;

  TableTargetPtr target;
  std::unique_ptr<Arena> arena;
  std::vector<RowKind> kinds;
  std::vector<types::Row> rows;
  /// The writer subtask this batch goes to (set by the Router).
  uint32_t route = 0;
  /// Truncate the table here: the writer discards everything it wrote for
  /// the table in the current checkpoint before applying this batch's rows
  /// (a truncate batch from RowBatcher::Truncate has no rows), and the
  /// table's WriteResult of this checkpoint says `truncated`
  /// (docs/sink-writers.md, "Truncation").
  bool truncate = false;

  size_t size() const { return rows.size(); }
};

/// The files one writer subtask completed for one table and partition spec
/// in one checkpoint.
struct WriteResult {
  TableTargetPtr target;
  int32_t spec_id = 0;
  int writer_subtask = 0;
  std::vector<iceberg::DataFile> data_files;
  /// Position and equality delete files.
  std::vector<iceberg::DataFile> delete_files;
  /// The data files that this result's position deletes point at (all among
  /// `data_files` of this checkpoint, or already committed).
  std::vector<std::string> referenced_data_files;
  int64_t rows_written = 0;
  int64_t rows_deleted = 0;
  /// The table was truncated in this checkpoint, before these files were
  /// written: the commit removes every live data and delete file of the table
  /// and adds these files in one snapshot (docs/sink-commit.md). A truncated
  /// result may have no files at all.
  bool truncated = false;
};

/// What a committer did with a table at a checkpoint; the check-commit sink
/// stops the run on the first failure.
struct CommitOutcome {
  std::string table;
  engine::CheckpointId checkpoint_id = 0;
  /// Ok, or why the commit failed (the run must stop and be restarted).
  Status status;
  int64_t snapshot_id = -1;
  int64_t added_files = 0;
  int64_t added_records = 0;
  /// When this table's commit ended (the committer emits the outcomes of a
  /// checkpoint together, after its last table); unset if unknown.
  std::chrono::steady_clock::time_point committed_at{};
};

/// The source positions recorded at each checkpoint, shared in-process
/// between the source subtasks (which Put in SnapshotState, before their
/// barrier) and the committers (which Get when the barrier reaches them, to
/// put the position into the snapshot summary); and, the other way, how far
/// the committers have committed (a source that must see its rows committed
/// before it goes on — floe run before a schema change — waits on it).
/// Thread-safe.
class CheckpointPositions {
 public:
  void Put(engine::CheckpointId id, int source_subtask, std::string position);
  /// The positions of checkpoint `id`, joined with ";" in subtask order (""
  /// when none was put). Forgets checkpoints more than kKeptCheckpoints
  /// older than `id`.
  std::string Get(engine::CheckpointId id);

  /// Committer subtask `subtask` of `parallelism` has committed every
  /// checkpoint up to `id` for all its tables (or had nothing to commit).
  void MarkCommitted(int subtask, int parallelism, engine::CheckpointId id);
  /// The highest id that every committer subtask has marked (0 until each
  /// has marked one).
  engine::CheckpointId CommittedThrough();

 private:
  static constexpr engine::CheckpointId kKeptCheckpoints = 64;
  std::mutex mu_;
  std::map<engine::CheckpointId, std::map<int, std::string>> positions_;
  std::vector<engine::CheckpointId> committed_;  ///< by committer subtask
};

}  // namespace floe::sink
