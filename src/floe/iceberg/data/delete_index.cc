#include "floe/iceberg/data/delete_index.h"

#include <algorithm>

#include "floe/common/bytes.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/single_value.h"

namespace floe::iceberg {

namespace {

void AppendU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool SequenceLess(const DeleteFilePtr& a, const DeleteFilePtr& b) {
  return a->data_sequence_number < b->data_sequence_number;
}

/// Whether a position delete file without a referenced data file may hold
/// rows of `path`, from its file_path bounds. Bounds may be truncated (a
/// lower bound is a prefix of the true minimum, an upper bound a prefix with
/// its last character incremented), which keeps both comparisons safe.
bool PathInBounds(const DataFile& deletes, const std::string& path) {
  auto lower = deletes.lower_bounds.find(kDeleteFilePathFieldId);
  if (lower != deletes.lower_bounds.end() && path < lower->second) return false;
  auto upper = deletes.upper_bounds.find(kDeleteFilePathFieldId);
  if (upper != deletes.upper_bounds.end() && path > upper->second) return false;
  return true;
}

}  // namespace

std::string PartitionKey(int32_t spec_id, const std::vector<Literal>& partition) {
  std::string key;
  AppendU32(static_cast<uint32_t>(spec_id), &key);
  for (const Literal& l : partition) {
    if (l.is_null() || l.type() == nullptr || l.special() != Literal::Special::kNone) {
      key.push_back('\0');
      continue;
    }
    std::string bytes;
    if (!AppendSingleValue(*l.type(), l.value(), &bytes)) {
      // Not serializable (cannot happen for partition values): fall back to text.
      bytes = l.ToString();
    }
    key.push_back('\1');
    AppendU32(static_cast<uint32_t>(bytes.size()), &key);
    key += bytes;
  }
  return key;
}

void DeleteFileIndex::Sort(Bucket& bucket) {
  std::stable_sort(bucket.position.begin(), bucket.position.end(), SequenceLess);
  std::stable_sort(bucket.equality.begin(), bucket.equality.end(), SequenceLess);
}

Result<DeleteFileIndex> DeleteFileIndex::Make(std::vector<DeleteFileEntry> deletes,
                                              const TableMetadata& metadata) {
  DeleteFileIndex index;
  for (DeleteFileEntry& entry : deletes) {
    const DataFile& file = entry.file;
    if (!file.is_delete()) {
      return InvalidArgument("data file {} given to the delete file index", file.file_path);
    }
    const bool is_dv = IsDeletionVector(file);
    if (is_dv &&
        (!file.referenced_data_file || !file.content_offset || !file.content_size_in_bytes)) {
      return Corruption(
          "deletion vector in {} lacks referenced_data_file, content_offset or "
          "content_size_in_bytes",
          file.file_path);
    }
    const PartitionSpec* spec = metadata.SpecById(entry.spec_id);
    if (spec == nullptr) {
      return Corruption("delete file {}: partition spec {} is not in the table metadata",
                        file.file_path, entry.spec_id);
    }
    if (file.partition.size() != spec->fields().size()) {
      return Corruption("delete file {}: partition has {} values but spec {} has {} fields",
                        file.file_path, file.partition.size(), entry.spec_id,
                        spec->fields().size());
    }
    if (file.content == DataFileContent::kEqualityDeletes && file.equality_ids.empty()) {
      return Corruption("equality delete file {} has no equality_ids", file.file_path);
    }
    auto ptr = std::make_shared<const DeleteFileEntry>(std::move(entry));
    ++index.size_;
    if (is_dv) {
      auto [it, added] = index.dv_by_path_.emplace(*ptr->file.referenced_data_file, ptr);
      if (!added) {
        return Corruption("data file {} has two deletion vectors: in {} and in {}", it->first,
                          it->second->file.file_path, ptr->file.file_path);
      }
    } else if (ptr->file.content == DataFileContent::kEqualityDeletes) {
      if (spec->is_unpartitioned()) {
        index.global_equality_.push_back(std::move(ptr));
      } else {
        index.by_partition_[PartitionKey(ptr->spec_id, ptr->file.partition)].equality.push_back(
            std::move(ptr));
      }
    } else if (ptr->file.referenced_data_file.has_value()) {
      index.by_path_[*ptr->file.referenced_data_file].push_back(std::move(ptr));
    } else {
      index.by_partition_[PartitionKey(ptr->spec_id, ptr->file.partition)].position.push_back(
          std::move(ptr));
    }
  }
  for (auto& [key, bucket] : index.by_partition_) Sort(bucket);
  for (auto& [key, files] : index.by_path_) {
    std::stable_sort(files.begin(), files.end(), SequenceLess);
  }
  std::stable_sort(index.global_equality_.begin(), index.global_equality_.end(), SequenceLess);
  return index;
}

DeleteFilePtr DeleteFileIndex::DeletionVectorFor(const DataFile& data_file, int32_t spec_id,
                                                 int64_t data_sequence_number) const {
  if (dv_by_path_.empty()) return nullptr;
  auto it = dv_by_path_.find(data_file.file_path);
  if (it == dv_by_path_.end()) return nullptr;
  const DeleteFilePtr& dv = it->second;
  if (dv->data_sequence_number < data_sequence_number) return nullptr;
  if (dv->spec_id != spec_id ||
      PartitionKey(dv->spec_id, dv->file.partition) != PartitionKey(spec_id, data_file.partition)) {
    return nullptr;
  }
  return dv;
}

std::vector<DeleteFilePtr> DeleteFileIndex::ForDataFile(const DataFile& data_file, int32_t spec_id,
                                                        int64_t data_sequence_number) const {
  std::vector<DeleteFilePtr> out;
  if (size_ == 0) return out;
  const Bucket* bucket = nullptr;
  if (!by_partition_.empty()) {
    auto it = by_partition_.find(PartitionKey(spec_id, data_file.partition));
    if (it != by_partition_.end()) bucket = &it->second;
  }
  // A deletion vector, when one applies, replaces the file's position deletes
  // (spec "Scan Planning": its writer merged them into it).
  const DeleteFilePtr dv = DeletionVectorFor(data_file, spec_id, data_sequence_number);
  if (dv != nullptr) out.push_back(dv);
  // Position deletes: data sequence number <= the delete's.
  auto add_positions = [&](const std::vector<DeleteFilePtr>& files, bool check_bounds) {
    auto first = std::lower_bound(
        files.begin(), files.end(), data_sequence_number,
        [](const DeleteFilePtr& d, int64_t seq) { return d->data_sequence_number < seq; });
    for (auto it = first; it != files.end(); ++it) {
      if (check_bounds && !PathInBounds((*it)->file, data_file.file_path)) continue;
      out.push_back(*it);
    }
  };
  if (bucket != nullptr && dv == nullptr) add_positions(bucket->position, true);
  if (!by_path_.empty() && dv == nullptr) {
    auto it = by_path_.find(data_file.file_path);
    if (it != by_path_.end()) {
      // Same partition too (spec "Scan Planning"); a referenced file in another
      // partition would be a writer bug, and the delete does not apply.
      const std::string key = PartitionKey(spec_id, data_file.partition);
      for (const DeleteFilePtr& d : it->second) {
        if (d->data_sequence_number < data_sequence_number) continue;
        if (PartitionKey(d->spec_id, d->file.partition) != key) continue;
        out.push_back(d);
      }
    }
  }
  // Equality deletes: data sequence number < the delete's.
  auto add_equality = [&](const std::vector<DeleteFilePtr>& files) {
    auto first = std::upper_bound(
        files.begin(), files.end(), data_sequence_number,
        [](int64_t seq, const DeleteFilePtr& d) { return seq < d->data_sequence_number; });
    out.insert(out.end(), first, files.end());
  };
  if (bucket != nullptr) add_equality(bucket->equality);
  add_equality(global_equality_);
  return out;
}

}  // namespace floe::iceberg
