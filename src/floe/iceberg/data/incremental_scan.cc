#include "floe/iceberg/data/incremental_scan.h"

#include <algorithm>

#include "floe/iceberg/manifest/manifest.h"

namespace floe::iceberg {

Result<IncrementalAppendScan> IncrementalAppendScan::Make(io::FileIO& io,
                                                          const TableMetadata& metadata,
                                                          IncrementalScanOptions options) {
  IncrementalAppendScan scan;
  scan.io_ = &io;
  scan.metadata_ = metadata;
  const types::Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) {
    return Corruption("current-schema-id {} names no schema", metadata.current_schema_id);
  }
  FLOE_ASSIGN_OR_RETURN(scan.read_, ScanSchema::Make(*schema, options.columns, options.filter,
                                                     options.case_sensitive));

  const Snapshot* to = nullptr;
  if (options.to_snapshot_id) {
    to = metadata.SnapshotById(*options.to_snapshot_id);
    if (to == nullptr) return NotFound("snapshot {} is not in the table", *options.to_snapshot_id);
  } else {
    to = metadata.CurrentSnapshot();
  }
  if (options.from_snapshot_id && metadata.SnapshotById(*options.from_snapshot_id) == nullptr) {
    // An expired start is still usable when it is the parent of a snapshot
    // in the history; otherwise it is unknown.
    bool referenced = false;
    for (const Snapshot& s : metadata.snapshots) {
      referenced = referenced || s.parent_snapshot_id == options.from_snapshot_id;
    }
    if (!referenced) {
      return NotFound("snapshot {} is not in the table", *options.from_snapshot_id);
    }
  }
  if (to == nullptr) {
    if (options.from_snapshot_id) {
      return InvalidArgument("snapshot {} is not an ancestor of an empty table",
                             *options.from_snapshot_id);
    }
    return scan;  // empty table: nothing appended
  }
  if (options.from_snapshot_id && *options.from_snapshot_id == to->snapshot_id) return scan;

  // Walk from `to` back to `from` (exclusive).
  std::vector<const Snapshot*> range;
  const Snapshot* s = to;
  bool reached = !options.from_snapshot_id.has_value();
  while (s != nullptr) {
    range.push_back(s);
    if (!s->parent_snapshot_id) break;
    if (options.from_snapshot_id && *s->parent_snapshot_id == *options.from_snapshot_id) {
      reached = true;
      break;
    }
    const Snapshot* parent = metadata.SnapshotById(*s->parent_snapshot_id);
    if (parent == nullptr) {
      if (options.from_snapshot_id) {
        return Corruption(
            "the history from snapshot {} back to {} is incomplete: parent {} of snapshot {} "
            "has expired",
            to->snapshot_id, *options.from_snapshot_id, *s->parent_snapshot_id, s->snapshot_id);
      }
      break;  // the start of the retained history
    }
    s = parent;
  }
  if (!reached) {
    return InvalidArgument("snapshot {} is not an ancestor of snapshot {}",
                           *options.from_snapshot_id, to->snapshot_id);
  }
  std::reverse(range.begin(), range.end());
  for (const Snapshot* snap : range) {
    const std::string& op = snap->operation;
    if (op == operation::kAppend) {
      scan.appends_.push_back(snap->snapshot_id);
    } else if (op == operation::kReplace) {
      continue;
    } else if (op == operation::kDelete) {
      if (options.skip_delete_snapshots) continue;
      return NotSupported(
          "snapshot {} is a delete: an incremental append scan cannot express removed rows "
          "(skip delete snapshots to ignore it)",
          snap->snapshot_id);
    } else {
      if (options.skip_overwrite_snapshots) continue;
      return NotSupported(
          "snapshot {} is an {}: an incremental append scan cannot express replaced rows "
          "(skip overwrite snapshots to ignore it)",
          snap->snapshot_id, op.empty() ? std::string("operation-less snapshot") : op);
    }
  }
  return scan;
}

Result<std::vector<FileScanTask>> IncrementalAppendScan::PlanFiles() const {
  std::vector<FileScanTask> tasks;
  if (appends_.empty()) return tasks;
  FLOE_ASSIGN_OR_RETURN(ScanFilter filter,
                        ScanFilter::Make(read_.bound_filter, read_.schema, metadata_));
  for (SnapshotId id : appends_) {
    const Snapshot* snap = metadata_.SnapshotById(id);
    if (snap == nullptr) return Corruption("snapshot {} vanished from the metadata", id);
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests,
                          SnapshotManifests(*io_, *snap, metadata_.format_version));
    for (const ManifestFile& m : manifests) {
      if (m.content != ManifestContent::kData) continue;
      if (m.added_snapshot_id != id || !m.has_added_files()) continue;
      if (!filter.ManifestMayMatch(m)) continue;
      FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(*io_, m, metadata_));
      for (ManifestEntry& e : entries) {
        if (e.status != ManifestEntryStatus::kAdded || e.snapshot_id != id) continue;
        if (e.data_file.is_delete()) continue;
        if (!filter.FileMayMatch(e.data_file, m.partition_spec_id, true)) continue;
        FileScanTask task;
        task.data_file = std::move(e.data_file);
        task.spec_id = m.partition_spec_id;
        task.data_sequence_number = e.sequence_number.value_or(0);
        tasks.push_back(std::move(task));
      }
    }
  }
  return tasks;
}

}  // namespace floe::iceberg
