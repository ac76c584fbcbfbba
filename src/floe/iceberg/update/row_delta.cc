#include "floe/iceberg/update/row_delta.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

RowDelta& RowDelta::AddRows(DataFile file, std::optional<int32_t> spec_id) {
  AddDataFile(std::move(file), SpecIdOrDefault(spec_id));
  return *this;
}

RowDelta& RowDelta::AddDeletes(DataFile file, std::optional<int32_t> spec_id) {
  if (file.content == DataFileContent::kPositionDeletes && file.referenced_data_file) {
    referenced_.insert(*file.referenced_data_file);
  }
  AddDeleteFile(std::move(file), SpecIdOrDefault(spec_id));
  return *this;
}

RowDelta& RowDelta::AddManifest(ManifestFile manifest, std::vector<DataFile> files) {
  for (const DataFile& file : files) {
    if (file.content == DataFileContent::kPositionDeletes && file.referenced_data_file) {
      referenced_.insert(*file.referenced_data_file);
    }
  }
  AddWrittenManifest(std::move(manifest), std::move(files));
  return *this;
}

RowDelta& RowDelta::RemoveRows(std::string data_file_path) {
  removed_.insert(std::move(data_file_path));
  return *this;
}

RowDelta& RowDelta::ValidateDataFilesExist(std::vector<std::string> paths) {
  for (auto& p : paths) referenced_.insert(std::move(p));
  return *this;
}

std::string_view RowDelta::operation() const {
  return adds_data_files() ? operation::kOverwrite : operation::kDelete;
}

Status RowDelta::Validate(const TableMetadata& base, OperationContext& ctx) {
  if (referenced_.empty() && removed_.empty()) return Ok();
  FLOE_ASSIGN_OR_RETURN(auto gone,
                        FilesRemovedSince(*ctx.io, base, validate_from_, ManifestContent::kData));
  for (const auto& p : referenced_) {
    if (gone.contains(p)) {
      return CommitConflict(
          "data file {} that position deletes reference was removed by a concurrent commit", p);
    }
  }
  for (const auto& p : removed_) {
    if (gone.contains(p)) {
      return CommitConflict("data file {} to remove was removed by a concurrent commit", p);
    }
  }
  return Ok();
}

Result<bool> RowDelta::Removes(const ManifestEntry& entry, int32_t spec_id,
                               const TableMetadata& base) {
  return !entry.data_file.is_delete() && removed_.contains(entry.data_file.file_path);
}

Status RowDelta::CheckRemoved(const std::set<std::string>& removed_paths) {
  return CheckAllRemoved(removed_, removed_paths, "data file", "remove");
}

}  // namespace floe::iceberg
