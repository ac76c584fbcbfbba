#include "floe/iceberg/update/overwrite_files.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

OverwriteFiles& OverwriteFiles::OverwriteByRowFilter(ExprPtr filter) {
  filter_.Or(std::move(filter));
  return *this;
}

OverwriteFiles& OverwriteFiles::OverwritePartitions() {
  dynamic_ = true;
  return *this;
}

OverwriteFiles& OverwriteFiles::DeleteFile(std::string path) {
  paths_.insert(std::move(path));
  return *this;
}

OverwriteFiles& OverwriteFiles::AddFile(DataFile file, std::optional<int32_t> spec_id) {
  const int32_t spec = SpecIdOrDefault(spec_id);
  if (!InAddedPartition(file, spec)) partitions_.emplace_back(spec, file.partition);
  AddDataFile(std::move(file), spec);
  return *this;
}

OverwriteFiles& OverwriteFiles::ValidateNoConflictingData() {
  validate_no_conflicts_ = true;
  return *this;
}

bool OverwriteFiles::InAddedPartition(const DataFile& file, int32_t spec_id) const {
  for (const auto& [id, tuple] : partitions_) {
    if (id == spec_id && tuple == file.partition) return true;
  }
  return false;
}

Status OverwriteFiles::Validate(const TableMetadata& base, OperationContext& ctx) {
  FLOE_RETURN_IF_ERROR(filter_.Bind(base));
  if (!validate_no_conflicts_) return Ok();
  FLOE_ASSIGN_OR_RETURN(auto added,
                        FilesAddedSince(*ctx.io, base, validate_from_, ManifestContent::kData));
  for (const auto& f : added) {
    bool conflict = dynamic_ && InAddedPartition(f.entry.data_file, f.spec_id);
    if (!conflict && filter_.bound() != nullptr) {
      FLOE_ASSIGN_OR_RETURN(FileMatch m, filter_.bound()->Match(f.entry.data_file, f.spec_id));
      conflict = m != FileMatch::kNone;
    }
    if (conflict) {
      return CommitConflict("a concurrent commit added data file {}, which this overwrite selects",
                            f.entry.data_file.file_path);
    }
  }
  return Ok();
}

Result<bool> OverwriteFiles::ManifestMayHoldRemovals(const ManifestFile& manifest,
                                                     const TableMetadata& base) {
  if (!paths_.empty() || dynamic_) return true;
  return filter_.ManifestMaySelect(manifest);
}

Result<bool> OverwriteFiles::Removes(const ManifestEntry& entry, int32_t spec_id,
                                     const TableMetadata& base) {
  const DataFile& file = entry.data_file;
  if (file.is_delete()) return false;
  if (paths_.contains(file.file_path)) return true;
  if (dynamic_ && InAddedPartition(file, spec_id)) return true;
  return filter_.Selects(file, spec_id, "overwrite");
}

Status OverwriteFiles::CheckRemoved(const std::set<std::string>& removed_paths) {
  return CheckAllRemoved(paths_, removed_paths, "data file", "overwrite");
}

}  // namespace floe::iceberg
