#include "floe/iceberg/data_file.h"

namespace floe::iceberg {

std::string_view DataFileContentName(DataFileContent content) {
  switch (content) {
    case DataFileContent::kData:
      return "data";
    case DataFileContent::kPositionDeletes:
      return "position-deletes";
    case DataFileContent::kEqualityDeletes:
      return "equality-deletes";
  }
  return "unknown";
}

Status ManifestEntry::InheritFrom(SnapshotId manifest_snapshot_id, int64_t manifest_sequence_number,
                                  int format_version) {
  if (!snapshot_id) snapshot_id = manifest_snapshot_id;
  if (format_version <= 1) {
    if (!sequence_number) sequence_number = 0;
    if (!file_sequence_number) file_sequence_number = 0;
    return Ok();
  }
  if (status == ManifestEntryStatus::kAdded) {
    if (!sequence_number) sequence_number = manifest_sequence_number;
    if (!file_sequence_number) file_sequence_number = manifest_sequence_number;
    return Ok();
  }
  if (!sequence_number) {
    // Java writes existing entries with explicit numbers; a missing one is
    // corrupt metadata rather than something to guess.
    return Corruption("manifest entry for {}: {} entry without sequence_number",
                      data_file.file_path,
                      status == ManifestEntryStatus::kExisting ? "EXISTING" : "DELETED");
  }
  return Ok();
}

}  // namespace floe::iceberg
