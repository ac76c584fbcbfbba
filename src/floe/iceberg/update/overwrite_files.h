#pragma once
/// OverwriteFiles: replaces data in one "overwrite" snapshot — removes the
/// files matching a row filter, the files of the partitions it adds to
/// ("dynamic" partition overwrite), or files named by path, and adds new data
/// files. The selection is made again on every attempt against the then
/// current snapshot.
///
/// A filter must select whole files: a file with rows both matching and not
/// matching it makes the commit fail with kInvalidArgument (use a row delta
/// with position deletes for that, delete_files.h DeleteRows).

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/expression/file_filter.h"
#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class OverwriteFiles final : public SnapshotProducer {
 public:
  explicit OverwriteFiles(Table* table) : SnapshotProducer(table) {}

  /// Removes every live data file whose rows all match `filter`.
  OverwriteFiles& OverwriteByRowFilter(ExprPtr filter);
  /// Removes every live data file in a partition (spec and tuple) that an
  /// added file belongs to.
  OverwriteFiles& OverwritePartitions();
  /// Removes a live data file by path (kCommitConflict if it is gone).
  OverwriteFiles& DeleteFile(std::string path);
  /// Adds a data file written for partition spec `spec_id` (default: the
  /// table's default spec).
  OverwriteFiles& AddFile(DataFile file, std::optional<int32_t> spec_id = std::nullopt);
  /// Fails the commit with kCommitConflict if a concurrent commit (after the
  /// validation snapshot) added data files the filter or partitions select.
  OverwriteFiles& ValidateNoConflictingData();

  std::string_view name() const override { return "overwrite"; }

 protected:
  std::string_view operation() const override { return operation::kOverwrite; }
  Status Validate(const TableMetadata& base, OperationContext& ctx) override;
  bool removes_data_files() const override { return true; }
  Result<bool> ManifestMayHoldRemovals(const ManifestFile& manifest,
                                       const TableMetadata& base) override;
  Result<bool> Removes(const ManifestEntry& entry, int32_t spec_id,
                       const TableMetadata& base) override;
  Status CheckRemoved(const std::set<std::string>& removed_paths) override;

 private:
  bool InAddedPartition(const DataFile& file, int32_t spec_id) const;

  WholeFileSelection filter_;
  bool dynamic_ = false;
  bool validate_no_conflicts_ = false;
  std::set<std::string> paths_;
  std::vector<std::pair<int32_t, std::vector<Literal>>> partitions_;
};

}  // namespace floe::iceberg
