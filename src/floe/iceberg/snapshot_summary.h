#pragma once
/// Snapshot summaries (format spec, Appendix F "Optional Snapshot Summary
/// Fields"): the per-commit deltas and the running totals that Iceberg Java,
/// PyIceberg and `floe table snapshots` show. The totals of a new snapshot
/// are the previous snapshot's totals plus this commit's changes; a total
/// the previous snapshot lacks is left out (it cannot be known without
/// reading every manifest). See docs/iceberg-metadata.md.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "floe/iceberg/data_file.h"
#include "floe/iceberg/snapshot.h"

namespace floe::iceberg {

/// Summary keys.
namespace summary {
inline constexpr std::string_view kAddedDataFiles = "added-data-files";
inline constexpr std::string_view kDeletedDataFiles = "deleted-data-files";
inline constexpr std::string_view kAddedRecords = "added-records";
inline constexpr std::string_view kDeletedRecords = "deleted-records";
inline constexpr std::string_view kAddedFilesSize = "added-files-size";
inline constexpr std::string_view kRemovedFilesSize = "removed-files-size";
inline constexpr std::string_view kAddedDeleteFiles = "added-delete-files";
inline constexpr std::string_view kRemovedDeleteFiles = "removed-delete-files";
inline constexpr std::string_view kAddedPositionDeleteFiles = "added-position-delete-files";
inline constexpr std::string_view kRemovedPositionDeleteFiles = "removed-position-delete-files";
inline constexpr std::string_view kAddedEqualityDeleteFiles = "added-equality-delete-files";
inline constexpr std::string_view kRemovedEqualityDeleteFiles = "removed-equality-delete-files";
inline constexpr std::string_view kAddedDvs = "added-dvs";
inline constexpr std::string_view kRemovedDvs = "removed-dvs";
inline constexpr std::string_view kAddedPositionDeletes = "added-position-deletes";
inline constexpr std::string_view kRemovedPositionDeletes = "removed-position-deletes";
inline constexpr std::string_view kAddedEqualityDeletes = "added-equality-deletes";
inline constexpr std::string_view kRemovedEqualityDeletes = "removed-equality-deletes";
inline constexpr std::string_view kChangedPartitionCount = "changed-partition-count";
inline constexpr std::string_view kTotalRecords = "total-records";
inline constexpr std::string_view kTotalFilesSize = "total-files-size";
inline constexpr std::string_view kTotalDataFiles = "total-data-files";
inline constexpr std::string_view kTotalDeleteFiles = "total-delete-files";
inline constexpr std::string_view kTotalPositionDeletes = "total-position-deletes";
inline constexpr std::string_view kTotalEqualityDeletes = "total-equality-deletes";
}  // namespace summary

/// The changes of one commit, counted file by file.
struct SnapshotChanges {
  int64_t added_data_files = 0;
  int64_t deleted_data_files = 0;
  int64_t added_records = 0;
  int64_t deleted_records = 0;
  int64_t added_files_size = 0;
  int64_t removed_files_size = 0;
  int64_t added_position_delete_files = 0;    ///< including deletion vectors
  int64_t removed_position_delete_files = 0;  ///< including deletion vectors
  int64_t added_dvs = 0;
  int64_t removed_dvs = 0;
  int64_t added_equality_delete_files = 0;
  int64_t removed_equality_delete_files = 0;
  int64_t added_position_deletes = 0;
  int64_t removed_position_deletes = 0;
  int64_t added_equality_deletes = 0;
  int64_t removed_equality_deletes = 0;
};

/// Builds the summary of a new snapshot. Not thread-safe.
class SnapshotSummaryBuilder {
 public:
  /// Counts a file the commit adds. `spec_id` and the file's partition name
  /// the partition for changed-partition-count.
  void AddedFile(const DataFile& file, int32_t spec_id = 0);
  /// Counts a file the commit removes.
  void RemovedFile(const DataFile& file, int32_t spec_id = 0);
  /// A custom key (e.g. the committed source offset), passed through. Keys
  /// that the builder computes cannot be overridden; "operation" is ignored
  /// (it belongs to Snapshot::operation).
  void Set(std::string key, std::string value);

  const SnapshotChanges& changes() const { return changes_; }

  /// The summary (without "operation"): the non-zero deltas,
  /// changed-partition-count, the totals from `previous` (nullptr: the
  /// table had no snapshot, totals start at 0), and the custom keys.
  std::map<std::string, std::string> Build(const Snapshot* previous) const;

 private:
  void Count(const DataFile& file, int32_t spec_id, bool added);

  SnapshotChanges changes_;
  std::set<std::string> changed_partitions_;
  std::map<std::string, std::string> custom_;
};

}  // namespace floe::iceberg
