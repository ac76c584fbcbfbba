#pragma once
/// ReplaceFiles: replaces a set of live files by others in one "replace"
/// snapshot, without changing the table's rows (compaction, rewriting delete
/// files). Added data files may keep the data sequence number of the files
/// they replace (SetDataSequenceNumber), so that equality deletes committed
/// since still apply to them.
///
/// Validation (on every attempt), kCommitConflict when a commit after the
/// validation snapshot removed one of the files to replace, or added a
/// position delete file that may reference one of the data files to replace
/// (those deletes would be lost).

#include <optional>
#include <set>
#include <string>

#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class ReplaceFiles final : public SnapshotProducer {
 public:
  explicit ReplaceFiles(Table* table) : SnapshotProducer(table) {}

  /// Removes a live data or delete file by path.
  ReplaceFiles& DeleteFile(std::string path);
  /// Adds a data or delete file written for partition spec `spec_id`
  /// (default: the table's default spec).
  ReplaceFiles& AddFile(DataFile file, std::optional<int32_t> spec_id = std::nullopt);
  /// The data sequence number written for added data files.
  ReplaceFiles& SetDataSequenceNumber(int64_t sequence_number);

  std::string_view name() const override { return "replace"; }

 protected:
  std::string_view operation() const override { return operation::kReplace; }
  Status Validate(const TableMetadata& base, OperationContext& ctx) override;
  bool removes_data_files() const override { return !paths_.empty(); }
  bool removes_delete_files() const override { return !paths_.empty(); }
  Result<bool> Removes(const ManifestEntry& entry, int32_t spec_id,
                       const TableMetadata& base) override;
  Status CheckRemoved(const std::set<std::string>& removed_paths) override;

 private:
  struct Pending {
    DataFile file;
    int32_t spec_id;
  };
  std::set<std::string> paths_;
  std::vector<Pending> pending_;
  std::optional<int64_t> data_sequence_number_;
  bool staged_ = false;
};

}  // namespace floe::iceberg
