#pragma once
/// TableScan: plans a read of one snapshot of a table into FileScanTasks
/// (format spec, "Scan Planning"):
///
///   TableScanOptions options;
///   options.filter = *ParseFilter("id > 5");
///   options.columns = {"id", "name"};
///   FLOE_ASSIGN_OR_RETURN(TableScan scan, TableScan::Make(io, metadata, options));
///   FLOE_ASSIGN_OR_RETURN(std::vector<FileScanTask> tasks, scan.PlanFiles());
///   // read each task with DataReader (data_reader.h)
///
/// Which snapshot: the current one (branch main), one by id, the one current
/// at a time per the snapshot log, or the one a branch or tag points at.
/// Which schema: the table's current schema when reading the current
/// snapshot or a branch; the snapshot's own schema (when it records one) when
/// reading a snapshot by id, by time or by tag, as Iceberg Java and PyIceberg
/// do for time travel.
///
/// Pruning, all inclusive (never drops a file that may hold a matching row):
/// manifests by the partition field summaries of the manifest list (the
/// filter projected through each manifest's spec, ManifestEvaluator); data
/// and delete files by their partition tuple (same projection, RowEvaluator);
/// data files by their column metrics (InclusiveMetricsEvaluator). The rows
/// of a task still have to be filtered with the scan's bound filter.
///
/// Deletes: every live delete file of the snapshot is indexed
/// (delete_index.h) and each task lists those that apply to its data file.
///
/// A TableScan is immutable after Make; PlanFiles may run concurrently.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data/delete_index.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/expression/evaluator.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// One data file to read, with the delete files that apply to it.
struct FileScanTask {
  DataFile data_file;
  /// The partition spec the data file was written with.
  int32_t spec_id = 0;
  /// The data file's data sequence number (0 in v1 tables).
  int64_t data_sequence_number = 0;
  /// Position deletes, then equality deletes (see DeleteFileIndex).
  std::vector<DeleteFilePtr> deletes;
};

struct TableScanOptions {
  /// At most one of the three selects the snapshot; none: the current one.
  std::optional<SnapshotId> snapshot_id;
  /// Milliseconds since the epoch: the snapshot current at that time.
  std::optional<int64_t> as_of_timestamp_ms;
  /// A branch or tag name.
  std::optional<std::string> ref;
  /// The row filter, unbound (bound here to the scan's schema) or already
  /// bound to it. nullptr: every row.
  ExprPtr filter;
  /// Column names are matched exactly when true. Default true.
  bool case_sensitive = true;
  /// Top-level columns to return, in this order (dotted names of nested
  /// fields are refused). Empty: every column of the schema.
  std::vector<std::string> columns;
  /// Threads reading manifests in PlanFiles. Default 2; 1 reads them in the
  /// calling thread.
  int planning_threads = 2;
};

/// What a scan reads: the table schema, the columns it returns and its row
/// filter bound to that schema.
struct ScanSchema {
  types::Schema schema;
  /// `columns` of `schema`, or all of it.
  types::Schema projected;
  /// The filter bound to `schema`; True() when there is none.
  ExprPtr bound_filter;

  /// ProjectColumns(schema, columns) and BindFilter(filter, schema).
  /// Errors: theirs (kInvalidArgument).
  static Result<ScanSchema> Make(const types::Schema& schema,
                                 const std::vector<std::string>& columns, const ExprPtr& filter,
                                 bool case_sensitive);
};

/// What TableScan and IncrementalAppendScan hold once made: the FileIO and
/// the table metadata they plan from, and what they read.
class PlannedScan {
 public:
  /// The table schema of the scan (see the header comment).
  const types::Schema& schema() const { return read_.schema; }
  /// The columns returned: the options' `columns` of schema(), or all of it.
  const types::Schema& projected_schema() const { return read_.projected; }
  /// The filter bound to schema(); True() when there is none.
  const ExprPtr& bound_filter() const { return read_.bound_filter; }
  const TableMetadata& metadata() const { return metadata_; }
  io::FileIO& io() const { return *io_; }

 protected:
  PlannedScan() = default;

  io::FileIO* io_ = nullptr;
  TableMetadata metadata_;
  ScanSchema read_;
};

class TableScan : public PlannedScan {
 public:
  /// Resolves the snapshot and the schema, binds the filter and the
  /// projection. A table without snapshots plans no tasks.
  /// Errors: kInvalidArgument (more than one snapshot selector, unknown
  /// columns, a filter that does not bind), kNotFound (no such snapshot id,
  /// ref, or no snapshot at or before the time), kCorruption (a snapshot's
  /// schema or the current schema is missing).
  static Result<TableScan> Make(io::FileIO& io, const TableMetadata& metadata,
                                TableScanOptions options);

  /// The snapshot read, or nullptr for a table without snapshots.
  const Snapshot* snapshot() const;

  /// Reads the manifest list and manifests and returns one task per live
  /// data file that may hold matching rows, in manifest order. Errors: those
  /// of reading manifests (kCorruption naming the file, kNotFound, kIo),
  /// kNotSupported for deletion vectors.
  Result<std::vector<FileScanTask>> PlanFiles() const;

 private:
  TableScan() = default;

  std::optional<SnapshotId> snapshot_id_;
  bool case_sensitive_ = true;
  int planning_threads_ = 2;
};

/// Resolves the snapshot a scan selects (see TableScanOptions); nullptr
/// with no selector on a table without snapshots. Errors: as TableScan::Make.
Result<const Snapshot*> SelectSnapshot(const TableMetadata& metadata,
                                       const TableScanOptions& options);

/// `filter` bound to `schema` (Bind's errors); a null filter is
/// Expression::True(), which keeps every row.
Result<ExprPtr> BindFilter(const ExprPtr& filter, const types::Schema& schema, bool case_sensitive);

/// A projection of `schema` to top-level columns by name, in the order given
/// (the schema itself when `columns` is empty). Errors: kInvalidArgument for
/// unknown, duplicate or nested names, listing the schema's columns.
Result<types::Schema> ProjectColumns(const types::Schema& schema,
                                     const std::vector<std::string>& columns, bool case_sensitive);

/// Pruning of manifests and files for one filter, shared by TableScan and
/// IncrementalAppendScan. Evaluators per spec id are built by Make for every
/// spec of the table; thread-safe after Make.
class ScanFilter {
 public:
  /// `bound_filter` bound to `schema`. Errors: projection errors.
  static Result<ScanFilter> Make(const ExprPtr& bound_filter, const types::Schema& schema,
                                 const TableMetadata& metadata);
  /// False only when no file of `manifest` can match.
  bool ManifestMayMatch(const ManifestFile& manifest) const;
  /// False only when no row of `file` (written with `spec_id`) can match.
  /// `use_metrics`: also check column metrics (data files only).
  bool FileMayMatch(const DataFile& file, int32_t spec_id, bool use_metrics) const;

 private:
  struct PerSpec {
    int32_t spec_id = 0;
    std::optional<ManifestEvaluator> manifest;
    std::optional<RowEvaluator> partition;
  };
  ScanFilter() = default;
  const PerSpec* Find(int32_t spec_id) const;

  std::vector<PerSpec> specs_;  ///< sorted by spec id
  std::optional<InclusiveMetricsEvaluator> metrics_;
  bool always_true_ = true;
};

}  // namespace floe::iceberg
