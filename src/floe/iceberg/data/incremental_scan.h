#pragma once
/// IncrementalAppendScan: the data files appended between two snapshots of
/// one branch, for streaming readers that follow a table (as Iceberg Java's
/// IncrementalAppendScan and the Flink source do).
///
/// The range is (from, to]: `from` exclusive (none: from the start of the
/// history), `to` inclusive (none: the current snapshot). `from` must be an
/// ancestor of `to`. For each snapshot of the range, oldest first:
///  - "append": its added data files (entries ADDED by that snapshot);
///  - "replace" (compaction, rewrites): skipped, it adds no new rows;
///  - "overwrite" and "delete": kNotSupported by default, because the rows
///    they remove cannot be expressed as appends; with
///    `skip_overwrite_snapshots` / `skip_delete_snapshots` they are skipped
///    (their added rows, if any, are not returned);
///  - a snapshot without an operation is treated as an overwrite.
/// Tasks carry no deletes (append snapshots add no delete files). The
/// filter prunes files as in TableScan; rows still need the bound filter
/// (DataReader does it).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct IncrementalScanOptions {
  /// Exclusive start; nullopt: every ancestor of `to_snapshot_id`.
  std::optional<SnapshotId> from_snapshot_id;
  /// Inclusive end; nullopt: the current snapshot.
  std::optional<SnapshotId> to_snapshot_id;
  /// Skip overwrite snapshots instead of failing. Default false.
  bool skip_overwrite_snapshots = false;
  /// Skip delete snapshots instead of failing. Default false.
  bool skip_delete_snapshots = false;
  /// As TableScanOptions (bound to the table's current schema).
  ExprPtr filter;
  bool case_sensitive = true;
  std::vector<std::string> columns;
};

class IncrementalAppendScan : public PlannedScan {
 public:
  /// Resolves the range and binds filter and columns. Errors:
  /// kNotFound (unknown snapshot ids), kInvalidArgument (`from` is not an
  /// ancestor of `to`, unknown columns, bad filter), kNotSupported (an
  /// overwrite or delete snapshot in the range that is not skipped),
  /// kCorruption (the history between them has expired snapshots).
  static Result<IncrementalAppendScan> Make(io::FileIO& io, const TableMetadata& metadata,
                                            IncrementalScanOptions options);

  /// The append snapshots whose files are planned, oldest first.
  const std::vector<SnapshotId>& append_snapshots() const { return appends_; }

  /// One task per data file added by the append snapshots, in snapshot
  /// order. Errors: reading manifests (kCorruption naming the file, kIo).
  Result<std::vector<FileScanTask>> PlanFiles() const;

 private:
  IncrementalAppendScan() = default;

  std::vector<SnapshotId> appends_;
};

}  // namespace floe::iceberg
