#include "floe/iceberg/update/row_delta.h"

#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/table.h"

namespace floe::iceberg {

RowDelta& RowDelta::AddRows(DataFile file, std::optional<int32_t> spec_id) {
  AddDataFile(std::move(file), SpecIdOrDefault(spec_id));
  return *this;
}

RowDelta& RowDelta::AddDeletes(DataFile file, std::optional<int32_t> spec_id) {
  if (file.content == DataFileContent::kPositionDeletes && file.referenced_data_file) {
    referenced_.insert(*file.referenced_data_file);
    if (IsDeletionVector(file)) vector_targets_.insert(*file.referenced_data_file);
  }
  AddDeleteFile(std::move(file), SpecIdOrDefault(spec_id));
  return *this;
}

RowDelta& RowDelta::AddManifest(ManifestFile manifest, std::vector<DataFile> files) {
  for (const DataFile& file : files) {
    if (file.content == DataFileContent::kPositionDeletes && file.referenced_data_file) {
      referenced_.insert(*file.referenced_data_file);
      if (IsDeletionVector(file)) vector_targets_.insert(*file.referenced_data_file);
    }
  }
  AddWrittenManifest(std::move(manifest), std::move(files));
  return *this;
}

RowDelta& RowDelta::RemoveRows(std::string data_file_path) {
  removed_.insert(std::move(data_file_path));
  return *this;
}

RowDelta& RowDelta::RemoveDeletionVector(std::string puffin_path, std::string data_file) {
  removed_vectors_.emplace(std::move(puffin_path), std::move(data_file));
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
  found_vectors_.clear();
  if (!vector_targets_.empty()) {
    FLOE_ASSIGN_OR_RETURN(
        auto added, FilesAddedSince(*ctx.io, base, validate_from_, ManifestContent::kDeletes));
    for (const LiveFile& f : added) {
      const DataFile& d = f.entry.data_file;
      if (IsDeletionVector(d) && d.referenced_data_file &&
          vector_targets_.contains(*d.referenced_data_file)) {
        return CommitConflict(
            "a concurrent commit added deletion vector {} for data file {}, which this commit "
            "writes a deletion vector for",
            d.file_path, *d.referenced_data_file);
      }
    }
  }
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
  const DataFile& file = entry.data_file;
  if (!file.is_delete()) return removed_.contains(file.file_path);
  if (!IsDeletionVector(file) || !file.referenced_data_file) return false;
  auto key = std::make_pair(file.file_path, *file.referenced_data_file);
  if (!removed_vectors_.contains(key)) return false;
  found_vectors_.insert(std::move(key));
  return true;
}

Status RowDelta::CheckRemoved(const std::set<std::string>& removed_paths) {
  for (const auto& [puffin, data_file] : removed_vectors_) {
    if (!found_vectors_.contains({puffin, data_file})) {
      return CommitConflict(
          "deletion vector of data file {} in {} to remove is no longer in the table", data_file,
          puffin);
    }
  }
  return CheckAllRemoved(removed_, removed_paths, "data file", "remove");
}

}  // namespace floe::iceberg
