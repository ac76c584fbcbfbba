#pragma once
/// The monitor's planning of the Iceberg source (docs/read.md, "Planning"):
/// from where the last round stopped to the table's current snapshot (or
/// the end snapshot), each new snapshot becomes splits, oldest first, as in
/// Iceberg's Flink source:
///  - the first round resolves the starting strategy; under
///    table-scan-then-incremental it plans the whole current snapshot (with
///    its deletes) as that snapshot's splits;
///  - "append" snapshots: the data files they added (IncrementalAppendScan);
///  - "replace" (compaction): skipped, it adds no rows;
///  - "overwrite" / "delete": planning stops before them with kNotSupported
///    (append-only reading cannot express removed rows), unless skipped
///    with skip_overwrite_snapshots / skip_delete_snapshots; the splits of
///    the snapshots before it are still returned, with the error beside them;
///    with PlanOptions::changelog they are one changelog split each instead
///    (changelog.h).
/// "Current snapshot" is the head of PlanOptions::branch when one is given.
/// Rows are read in the schema of the snapshot they belong to (its
/// schema-id), so a snapshot's rows look the same whenever it is planned.
///
/// Pure functions of the table metadata and a PlanPosition: no threads, no
/// state of their own (SplitEnumerator holds the position).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/source/split.h"

namespace floe::source {

/// Iceberg's Flink source StartingStrategy values.
enum class StartingStrategy : uint8_t {
  /// Plan the current snapshot whole, then follow the snapshots after it.
  kTableScanThenIncremental,
  /// Follow from the current snapshot, inclusive (its appended files first).
  kIncrementalFromLatestSnapshot,
  /// Follow from the current snapshot, exclusive (only later snapshots).
  kIncrementalFromLatestSnapshotExclusive,
  /// Follow from the oldest retained ancestor of the current snapshot, inclusive.
  kIncrementalFromEarliestSnapshot,
  /// Follow from start_snapshot_id, inclusive.
  kIncrementalFromSnapshotId,
  /// Follow from the first snapshot at or after start_snapshot_timestamp_ms
  /// (inclusive; between two snapshots: the later one).
  kIncrementalFromSnapshotTimestamp,
};

/// Accepts the kebab-case names ("table-scan-then-incremental", ...) and
/// Iceberg's upper-case ones ("TABLE_SCAN_THEN_INCREMENTAL"). kInvalidArgument
/// otherwise, listing the names.
Result<StartingStrategy> ParseStartingStrategy(std::string_view text);
std::string_view StartingStrategyName(StartingStrategy strategy);

/// Where a table's read began: what its first planning round did, so that a
/// run that lost its state can plan the same rows in the same order again
/// (PlanOptions::replay_origin; docs/pipeline.md, "The source's position in
/// the lake").
struct PlanOrigin {
  /// The first round planned the whole of `snapshot` (table-scan-then-
  /// incremental); otherwise it began after `snapshot` (nullopt: at the
  /// table's first snapshot).
  bool whole = false;
  std::optional<iceberg::SnapshotId> snapshot;

  friend bool operator==(const PlanOrigin&, const PlanOrigin&) = default;
};

struct PlanOptions {
  StartingStrategy strategy = StartingStrategy::kTableScanThenIncremental;
  /// Required by (and only used by) kIncrementalFromSnapshotId.
  std::optional<iceberg::SnapshotId> start_snapshot_id;
  /// Required by kIncrementalFromSnapshotTimestamp: milliseconds since the epoch.
  std::optional<int64_t> start_snapshot_timestamp_ms;
  /// The last snapshot to read, inclusive; nullopt: none (streaming follows
  /// the table; a batch read stops at the snapshot current at its first round).
  std::optional<iceberg::SnapshotId> end_snapshot_id;
  /// Read this branch (its head instead of the current snapshot); empty: main.
  std::string branch;
  /// Read up to this tag's snapshot (inclusive), as an end snapshot; batch only.
  std::string tag;
  /// `--changelog`: overwrite and delete snapshots become changelog splits
  /// (changelog.h) instead of stopping the read. Default false.
  bool changelog = false;
  /// Follow the table (`--follow`, Flink's `streaming`). Default false.
  bool streaming = false;
  bool skip_overwrite_snapshots = false;
  bool skip_delete_snapshots = false;
  /// Row filter, unbound; nullptr: every row. Prunes files and row groups,
  /// and drops rows.
  iceberg::ExprPtr filter;
  /// Top-level columns to return; empty: all of the snapshot's schema.
  std::vector<std::string> columns;
  bool case_sensitive = true;
  /// Snapshots planned per round at most (Flink's max-planning-snapshot-count).
  int64_t max_planning_snapshot_count = std::numeric_limits<int64_t>::max();
  /// Values > 0 override the table's read.split.* properties; min_splits is
  /// set by a read with several readers (RunRead: its parallelism).
  SplitOverrides split_overrides;
  /// Set by a restore that repeats an earlier first round: the first round
  /// begins at this origin whatever the strategy says (the whole origin
  /// snapshot, or the snapshots after it), so it plans the splits the
  /// earlier one planned. Errors of that round: kNotFound (the whole origin
  /// snapshot expired), kCorruption (the history after it expired).
  std::optional<PlanOrigin> replay_origin;
};

/// Checks the options on their own: the start snapshot id / timestamp that
/// the strategy needs (and no other), a filter that parses. kInvalidArgument.
Status ValidatePlanOptions(const PlanOptions& options);

/// Where planning stands (the monitor's part of the checkpoint state).
struct PlanPosition {
  /// The starting strategy has been resolved (the first round happened).
  bool started = false;
  /// Every snapshot up to this one (in the ancestry of the table's current
  /// snapshot) is planned; nullopt: none yet, the next round starts at the
  /// oldest retained snapshot.
  std::optional<iceberg::SnapshotId> last_planned;
  /// A batch read's last snapshot, fixed in its first round (the end
  /// snapshot, else the snapshot then current); nullopt for streaming reads
  /// without an end snapshot, and for a batch read of an empty table.
  std::optional<iceberg::SnapshotId> end;
  /// The read has an end and reached it: nothing more will be planned.
  bool finished = false;
  /// What the first round began with; nullopt before it (and in states
  /// written before floe recorded it).
  std::optional<PlanOrigin> origin;

  friend bool operator==(const PlanPosition&, const PlanPosition&) = default;
};

struct PlanRound {
  /// New splits, oldest snapshot first.
  std::vector<IcebergSplit> splits;
  /// The position after them.
  PlanPosition next;
  /// Set when planning stopped before a snapshot it may not read (see the
  /// header): raise it once `splits` are read.
  std::optional<Error> stopped_by;
  /// Snapshots looked at this round.
  int64_t snapshots = 0;
};

/// One planning round from `position` over `metadata` (of table `table_name`,
/// for messages). Errors: kNotFound (a start or end snapshot not in the
/// table), kInvalidArgument (the last planned snapshot is no longer an
/// ancestor of the current one, e.g. after a rollback; columns or a filter
/// that do not bind), kCorruption (history between them expired), reading
/// manifests (kIo, kCorruption naming the file).
Result<PlanRound> PlanNextRound(io::FileIO& io, const iceberg::TableMetadata& metadata,
                                const std::string& table_name, const PlanOptions& options,
                                const PlanPosition& position);

/// The schema id a snapshot's rows are read in.
int32_t SchemaIdOf(const iceberg::TableMetadata& metadata, const iceberg::Snapshot& snapshot);

}  // namespace floe::source
