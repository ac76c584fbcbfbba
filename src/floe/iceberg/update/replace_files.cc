#include "floe/iceberg/update/replace_files.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

ReplaceFiles& ReplaceFiles::DeleteFile(std::string path) {
  paths_.insert(std::move(path));
  return *this;
}

ReplaceFiles& ReplaceFiles::AddFile(DataFile file, std::optional<int32_t> spec_id) {
  pending_.push_back(Pending{std::move(file), SpecIdOrDefault(spec_id)});
  staged_ = false;
  return *this;
}

ReplaceFiles& ReplaceFiles::SetDataSequenceNumber(int64_t sequence_number) {
  data_sequence_number_ = sequence_number;
  return *this;
}

Status ReplaceFiles::Validate(const TableMetadata& base, OperationContext& ctx) {
  if (!staged_) {
    for (auto& p : pending_) {
      if (p.file.is_delete()) {
        AddDeleteFile(std::move(p.file), p.spec_id);
      } else {
        AddDataFile(std::move(p.file), p.spec_id, data_sequence_number_);
      }
    }
    pending_.clear();
    staged_ = true;
  }
  if (paths_.empty()) return Ok();
  for (auto content : {ManifestContent::kData, ManifestContent::kDeletes}) {
    FLOE_ASSIGN_OR_RETURN(auto gone, FilesRemovedSince(*ctx.io, base, validate_from_, content));
    for (const auto& p : paths_) {
      if (gone.contains(p)) {
        return CommitConflict("file {} to replace was removed by a concurrent commit", p);
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto added,
                        FilesAddedSince(*ctx.io, base, validate_from_, ManifestContent::kDeletes));
  for (const auto& f : added) {
    const DataFile& d = f.entry.data_file;
    if (d.content != DataFileContent::kPositionDeletes) continue;
    if (!d.referenced_data_file || paths_.contains(*d.referenced_data_file)) {
      return CommitConflict(
          "a concurrent commit added position delete file {}, which may reference a file being "
          "replaced",
          d.file_path);
    }
  }
  return Ok();
}

Result<bool> ReplaceFiles::Removes(const ManifestEntry& entry, int32_t spec_id,
                                   const TableMetadata& base) {
  return paths_.contains(entry.data_file.file_path);
}

Status ReplaceFiles::CheckRemoved(const std::set<std::string>& removed_paths) {
  return CheckAllRemoved(paths_, removed_paths, "file", "replace");
}

}  // namespace floe::iceberg
