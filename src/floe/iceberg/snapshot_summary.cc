#include "floe/iceberg/snapshot_summary.h"

#include <charconv>

#include "floe/iceberg/puffin/deletion_vector.h"

namespace floe::iceberg {

namespace {

std::optional<int64_t> ParseLong(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

void SnapshotSummaryBuilder::Count(const DataFile& f, int32_t spec_id, bool added) {
  SnapshotChanges& c = changes_;
  if (added) {
    c.added_files_size += f.file_size_in_bytes;
  } else {
    c.removed_files_size += f.file_size_in_bytes;
  }
  switch (f.content) {
    case DataFileContent::kData:
      (added ? c.added_data_files : c.deleted_data_files) += 1;
      (added ? c.added_records : c.deleted_records) += f.record_count;
      break;
    case DataFileContent::kPositionDeletes:
      (added ? c.added_position_delete_files : c.removed_position_delete_files) += 1;
      if (IsDeletionVector(f)) (added ? c.added_dvs : c.removed_dvs) += 1;
      (added ? c.added_position_deletes : c.removed_position_deletes) += f.record_count;
      break;
    case DataFileContent::kEqualityDeletes:
      (added ? c.added_equality_delete_files : c.removed_equality_delete_files) += 1;
      (added ? c.added_equality_deletes : c.removed_equality_deletes) += f.record_count;
      break;
  }
  std::string key = std::to_string(spec_id);
  for (const auto& v : f.partition) {
    key += '/';
    key += v.ToString();
  }
  changed_partitions_.insert(std::move(key));
}

void SnapshotSummaryBuilder::AddedFile(const DataFile& file, int32_t spec_id) {
  Count(file, spec_id, true);
}

void SnapshotSummaryBuilder::RemovedFile(const DataFile& file, int32_t spec_id) {
  Count(file, spec_id, false);
}

void SnapshotSummaryBuilder::Set(std::string key, std::string value) {
  if (key == "operation") return;
  custom_[std::move(key)] = std::move(value);
}

std::map<std::string, std::string> SnapshotSummaryBuilder::Build(const Snapshot* previous) const {
  std::map<std::string, std::string> out = custom_;
  const SnapshotChanges& c = changes_;
  auto put = [&](std::string_view key, int64_t v) {
    if (v != 0) out[std::string(key)] = std::to_string(v);
  };
  put(summary::kAddedDataFiles, c.added_data_files);
  put(summary::kDeletedDataFiles, c.deleted_data_files);
  put(summary::kAddedRecords, c.added_records);
  put(summary::kDeletedRecords, c.deleted_records);
  put(summary::kAddedFilesSize, c.added_files_size);
  put(summary::kRemovedFilesSize, c.removed_files_size);
  put(summary::kAddedDeleteFiles, c.added_position_delete_files + c.added_equality_delete_files);
  put(summary::kRemovedDeleteFiles,
      c.removed_position_delete_files + c.removed_equality_delete_files);
  put(summary::kAddedPositionDeleteFiles, c.added_position_delete_files - c.added_dvs);
  put(summary::kRemovedPositionDeleteFiles, c.removed_position_delete_files - c.removed_dvs);
  put(summary::kAddedDvs, c.added_dvs);
  put(summary::kRemovedDvs, c.removed_dvs);
  put(summary::kAddedEqualityDeleteFiles, c.added_equality_delete_files);
  put(summary::kRemovedEqualityDeleteFiles, c.removed_equality_delete_files);
  put(summary::kAddedPositionDeletes, c.added_position_deletes);
  put(summary::kRemovedPositionDeletes, c.removed_position_deletes);
  put(summary::kAddedEqualityDeletes, c.added_equality_deletes);
  put(summary::kRemovedEqualityDeletes, c.removed_equality_deletes);
  out[std::string(summary::kChangedPartitionCount)] = std::to_string(changed_partitions_.size());

  auto total = [&](std::string_view key, int64_t delta) {
    int64_t base = 0;
    if (previous != nullptr) {
      auto it = previous->summary.find(std::string(key));
      if (it == previous->summary.end()) return;  // unknown before: unknown now
      auto v = ParseLong(it->second);
      if (!v) return;
      base = *v;
    }
    out[std::string(key)] = std::to_string(base + delta);
  };
  total(summary::kTotalRecords, c.added_records - c.deleted_records);
  total(summary::kTotalFilesSize, c.added_files_size - c.removed_files_size);
  total(summary::kTotalDataFiles, c.added_data_files - c.deleted_data_files);
  total(summary::kTotalDeleteFiles, c.added_position_delete_files + c.added_equality_delete_files -
                                        c.removed_position_delete_files -
                                        c.removed_equality_delete_files);
  total(summary::kTotalPositionDeletes, c.added_position_deletes - c.removed_position_deletes);
  total(summary::kTotalEqualityDeletes, c.added_equality_deletes - c.removed_equality_deletes);
  return out;
}

}  // namespace floe::iceberg
