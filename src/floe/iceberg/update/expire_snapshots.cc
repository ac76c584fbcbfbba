#include "floe/iceberg/update/expire_snapshots.h"

#include <algorithm>

#include "floe/iceberg/table.h"
#include "floe/iceberg/table_properties.h"

namespace floe::iceberg {

ExpireSnapshots& ExpireSnapshots::ExpireOlderThan(int64_t timestamp_ms) {
  older_than_ms_ = timestamp_ms;
  return *this;
}

ExpireSnapshots& ExpireSnapshots::RetainLast(int n) {
  retain_last_ = std::max(1, n);
  return *this;
}

ExpireSnapshots& ExpireSnapshots::ExpireSnapshotId(SnapshotId id) {
  explicit_ids_.insert(id);
  return *this;
}

ExpireSnapshots& ExpireSnapshots::CleanFiles(bool clean) {
  clean_files_ = clean;
  return *this;
}

ExpireSnapshots& ExpireSnapshots::DeleteOutsideLocation(bool allow) {
  delete_outside_location_ = allow;
  return *this;
}

std::vector<std::string> TableFolders(const TableMetadata& metadata) {
  std::vector<std::string> out;
  if (!metadata.location.empty()) out.push_back(metadata.location);
  for (std::string_view key :
       {table_properties::kWriteDataPath, table_properties::kWriteMetadataPath,
        table_properties::kWriteObjectStoragePath, table_properties::kWriteFolderStoragePath}) {
    std::string folder = metadata.Property(key);
    if (!folder.empty()) out.push_back(std::move(folder));
  }
  return out;
}

bool IsInsideTable(const TableMetadata& metadata, std::string_view path) {
  for (const auto& folder : TableFolders(metadata)) {
    if (io::PathIsWithin(path, folder)) return true;
  }
  return false;
}

Result<std::vector<SnapshotId>> ExpireSnapshots::SnapshotsToExpire(const TableMetadata& base,
                                                                   int64_t now_ms) const {
  const int64_t default_cutoff = older_than_ms_.value_or(
      now_ms - base.PropertyAsInt(table_properties::kHistoryExpireMaxSnapshotAgeMs,
                                  table_properties::kHistoryExpireMaxSnapshotAgeMsDefault));
  const int default_keep = retain_last_.value_or(static_cast<int>(std::max<int64_t>(
      1, base.PropertyAsInt(table_properties::kHistoryExpireMinSnapshotsToKeep,
                            table_properties::kHistoryExpireMinSnapshotsToKeepDefault))));
  std::set<SnapshotId> keep;
  std::set<SnapshotId> on_branch;
  std::set<SnapshotId> heads;
  for (const auto& [name, ref] : base.refs) {
    heads.insert(ref.snapshot_id);
    if (!ref.is_branch()) {
      keep.insert(ref.snapshot_id);
      continue;
    }
    const int min_keep = ref.min_snapshots_to_keep.value_or(default_keep);
    const int64_t cutoff =
        ref.max_snapshot_age_ms ? now_ms - *ref.max_snapshot_age_ms : default_cutoff;
    int kept = 0;
    bool stop = false;
    for (const Snapshot* s = base.SnapshotById(ref.snapshot_id); s != nullptr;) {
      on_branch.insert(s->snapshot_id);
      if (!stop && (kept < min_keep || s->timestamp_ms >= cutoff)) {
        keep.insert(s->snapshot_id);
        ++kept;
      } else {
        stop = true;
      }
      if (!s->parent_snapshot_id) break;
      s = base.SnapshotById(*s->parent_snapshot_id);
    }
  }
  for (SnapshotId id : explicit_ids_) {
    if (heads.contains(id)) {
      return InvalidArgument("cannot expire snapshot {}: a branch or tag points at it", id);
    }
    if (base.SnapshotById(id) == nullptr) {
      return InvalidArgument("cannot expire snapshot {}: no such snapshot", id);
    }
  }
  std::vector<SnapshotId> out;
  for (const auto& s : base.snapshots) {
    bool expire;
    if (explicit_ids_.contains(s.snapshot_id)) {
      expire = true;
    } else if (keep.contains(s.snapshot_id)) {
      expire = false;
    } else if (on_branch.contains(s.snapshot_id)) {
      expire = true;
    } else {
      expire = s.timestamp_ms < default_cutoff;
    }
    if (expire) out.push_back(s.snapshot_id);
  }
  return out;
}

Result<std::vector<TableUpdate>> ExpireSnapshots::Apply(const TableMetadata& base,
                                                        OperationContext& ctx) {
  FLOE_ASSIGN_OR_RETURN(applied_ids_, SnapshotsToExpire(base, ctx.now_ms));
  applied_base_ = base;
  std::vector<TableUpdate> updates;
  if (!applied_ids_.empty()) updates.push_back(update::RemoveSnapshots{applied_ids_});
  return updates;
}

Result<ExpireSnapshotsResult> ExpireSnapshots::Commit() {
  FLOE_RETURN_IF_ERROR(CommitOperation(*table_, *this));
  ExpireSnapshotsResult result;
  if (applied_ids_.empty() || !applied_base_) return result;
  if (clean_files_) {
    FLOE_ASSIGN_OR_RETURN(result,
                          DeleteUnreachableFiles(table_->io(), *applied_base_, table_->metadata(),
                                                 delete_outside_location_));
  }
  result.expired_snapshot_ids = applied_ids_;
  return result;
}

Result<ExpireSnapshotsResult> DeleteUnreachableFiles(io::FileIO& io, const TableMetadata& before,
                                                     const TableMetadata& after,
                                                     bool delete_outside_location) {
  ExpireSnapshotsResult result;
  // Deletes `path` if it may be deleted; true if it was.
  auto remove = [&](const std::string& path) {
    if (!delete_outside_location && !IsInsideTable(after, path)) {
      result.skipped_outside_location.push_back(path);
      return false;
    }
    return static_cast<bool>(io.Delete(path));
  };
  std::set<std::string> kept_lists;
  std::set<std::string> kept_manifests;
  std::set<std::string> kept_files;
  for (const Snapshot& s : after.snapshots) {
    if (!s.manifest_list.empty()) kept_lists.insert(s.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, SnapshotManifests(io, s, after.format_version));
    for (const auto& m : manifests) {
      if (!kept_manifests.insert(m.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, after));
      for (const auto& e : entries) {
        if (e.status != ManifestEntryStatus::kDeleted) kept_files.insert(e.data_file.file_path);
      }
    }
  }
  std::set<std::string> seen_manifests;
  for (const Snapshot& s : before.snapshots) {
    if (after.SnapshotById(s.snapshot_id) != nullptr) continue;
    FLOE_ASSIGN_OR_RETURN(auto manifests, SnapshotManifests(io, s, before.format_version));
    for (const auto& m : manifests) {
      if (kept_manifests.contains(m.manifest_path)) continue;
      if (!seen_manifests.insert(m.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, before));
      for (const auto& e : entries) {
        const std::string& path = e.data_file.file_path;
        if (kept_files.contains(path)) continue;
        kept_files.insert(path);  // delete once
        if (remove(path)) {
          (e.data_file.is_delete() ? result.deleted_delete_files : result.deleted_data_files) += 1;
        }
      }
      if (remove(m.manifest_path)) result.deleted_manifests += 1;
    }
    if (!s.manifest_list.empty() && !kept_lists.contains(s.manifest_list)) {
      if (remove(s.manifest_list)) result.deleted_manifest_lists += 1;
    }
  }
  return result;
}

}  // namespace floe::iceberg
