#pragma once
/// Deleting rows.
///
/// `DeleteFiles` removes whole files in one "delete" snapshot: by path, or
/// every data file whose rows all match a row filter (decided from manifest
/// metadata, file_filter.h). A file that the filter matches only in part
/// makes the commit fail with kInvalidArgument naming it.
///
/// `DeleteRows` is the merge-on-read delete of `floe table delete`: data
/// files entirely matching the filter are removed; files matching in part are
/// read (Parquet reader + row evaluator) and the positions of matching rows
/// written as position delete files, one per partition, committed in a
/// RowDelta that fails with kCommitConflict if a concurrent commit removed a
/// file it references. In a format v3 table they are deletion vectors
/// instead, one per data file in one Puffin file: a file's live vector is
/// merged into its new one and removed in the same commit (kCommitConflict
/// if a concurrent commit changed it), a file whose rows all end up deleted
/// is removed with its vector, and a file that Parquet position delete files
/// from before the upgrade to v3 may name is kNotSupported.

#include <set>
#include <string>

#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/expression/file_filter.h"
#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class DeleteFiles final : public SnapshotProducer {
 public:
  explicit DeleteFiles(Table* table) : SnapshotProducer(table) {}

  /// Removes a live data or delete file by path (kCommitConflict if gone).
  DeleteFiles& DeleteFile(std::string path);
  /// Removes every live data file whose rows all match `filter`.
  DeleteFiles& DeleteFromRowFilter(ExprPtr filter);

  std::string_view name() const override { return "delete"; }

 protected:
  std::string_view operation() const override { return operation::kDelete; }
  Status Validate(const TableMetadata& base, OperationContext& ctx) override;
  bool removes_data_files() const override { return true; }
  bool removes_delete_files() const override { return !paths_.empty(); }
  Result<bool> ManifestMayHoldRemovals(const ManifestFile& manifest,
                                       const TableMetadata& base) override;
  Result<bool> Removes(const ManifestEntry& entry, int32_t spec_id,
                       const TableMetadata& base) override;
  Status CheckRemoved(const std::set<std::string>& removed_paths) override;

 private:
  std::set<std::string> paths_;
  WholeFileSelection filter_;
};

struct DeleteRowsResult {
  int64_t removed_data_files = 0;     ///< data files dropped whole
  int64_t position_delete_files = 0;  ///< position delete files (v3: deletion vectors) written
  int64_t deleted_rows = 0;           ///< rows matched (in files dropped or by position)
  bool committed = false;             ///< false when nothing matched (no snapshot)
};

/// Deletes the rows of `table` matching `filter` (unbound, bound to the
/// current schema case-insensitively), merge-on-read. Errors: binding,
/// reading data files, writing delete files, and the commit's
/// (kCommitConflict after retries or when a referenced file was removed).
Result<DeleteRowsResult> DeleteRows(Table& table, const ExprPtr& filter);

/// The positions (0-based) of the rows of data file `path` that match
/// `bound_filter` (bound to `schema`, the table's current schema; the file
/// may have been written with an older one: columns are matched by field id,
/// missing ones read as null, int/float promoted to long/double).
Result<std::vector<int64_t>> MatchingRowPositions(io::FileIO& io, const std::string& path,
                                                  const types::Schema& schema,
                                                  const ExprPtr& bound_filter);

}  // namespace floe::iceberg
