#pragma once
/// RowDelta: row-level changes in one snapshot — new data files, position
/// delete files and equality delete files (and optionally whole data files
/// removed). Sequence numbers follow the spec: every file added gets the new
/// snapshot's sequence number (inherited), so an equality delete applies only
/// to data files with a smaller data sequence number (older data), never to
/// rows added in the same commit; a position delete applies to data files
/// with a sequence number up to its own.
///
/// Validation (on every attempt): if a data file that a position delete
/// references (its `referenced_data_file`, or a path given to
/// ValidateDataFilesExist) was removed by a commit after the validation
/// snapshot, the commit fails with kCommitConflict (the deletes would be
/// lost: the file was rewritten or dropped). The snapshot operation is
/// "overwrite" when data files are added, else "delete". In a format v3
/// table a position delete file must be a deletion vector (kInvalidArgument
/// naming the table otherwise; SnapshotProducer checks every added file),
/// and a commit after the validation snapshot that added a deletion vector
/// for a data file this delta adds one for is kCommitConflict (the spec
/// allows one vector per data file: the new one must have merged it).

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class RowDelta final : public SnapshotProducer {
 public:
  explicit RowDelta(Table* table) : SnapshotProducer(table) {}

  /// Adds a data file written for partition spec `spec_id` (default: the
  /// table's default spec).
  RowDelta& AddRows(DataFile file, std::optional<int32_t> spec_id = std::nullopt);
  /// Adds a position or equality delete file written for partition spec
  /// `spec_id` (default: the table's default spec).
  RowDelta& AddDeletes(DataFile file, std::optional<int32_t> spec_id = std::nullopt);
  /// Adds a manifest of data or delete files written beforehand
  /// (SnapshotProducer::AddWrittenManifest; v2+ tables); its position
  /// deletes' referenced data files are validated as AddDeletes does.
  RowDelta& AddManifest(ManifestFile manifest, std::vector<DataFile> files);
  /// Removes a whole live data file (kCommitConflict if it is gone).
  RowDelta& RemoveRows(std::string data_file_path);
  /// Removes the live deletion vector of data file `data_file` stored in the
  /// Puffin file `puffin_path` (a vector merged into a new one, or of a
  /// data file removed whole). kCommitConflict if it is gone.
  RowDelta& RemoveDeletionVector(std::string puffin_path, std::string data_file);
  /// Data files that must still be live for this delta to commit.
  RowDelta& ValidateDataFilesExist(std::vector<std::string> paths);

  std::string_view name() const override { return "row-delta"; }

 protected:
  std::string_view operation() const override;
  Status Validate(const TableMetadata& base, OperationContext& ctx) override;
  bool removes_data_files() const override { return !removed_.empty(); }
  bool removes_delete_files() const override { return !removed_vectors_.empty(); }
  Result<bool> Removes(const ManifestEntry& entry, int32_t spec_id,
                       const TableMetadata& base) override;
  Status CheckRemoved(const std::set<std::string>& removed_paths) override;

 private:
  std::set<std::string> referenced_;
  std::set<std::string> removed_;
  /// (Puffin file, referenced data file) of deletion vectors to remove, and
  /// those the current attempt found.
  std::set<std::pair<std::string, std::string>> removed_vectors_;
  std::set<std::pair<std::string, std::string>> found_vectors_;
  /// Data files that an added deletion vector references.
  std::set<std::string> vector_targets_;
};

}  // namespace floe::iceberg
