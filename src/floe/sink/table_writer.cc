#include "floe/sink/table_writer.h"

#include <algorithm>
#include <map>

#include "floe/iceberg/puffin/deletion_vector_writer.h"
#include "floe/iceberg/table_properties.h"

namespace floe::sink {

namespace {

std::string_view KindName(RowKind kind) {
  switch (kind) {
    case RowKind::kInsert:
      return "insert";
    case RowKind::kUpdateBefore:
      return "update-before";
    case RowKind::kUpdateAfter:
      return "update-after";
    case RowKind::kDelete:
      return "delete";
  }
  return "?";
}

std::string_view Directory(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

}  // namespace

Result<iceberg::DataWriterOptions> ResolveWriterOptions(const TableTarget& target,
                                                        const SinkOptions& options) {
  if (!target.metadata) return InvalidArgument("table {}: target without metadata", target.key);
  // FromProperties reads only the properties: resolve the job's overrides
  // through a metadata holding the merged properties.
  iceberg::TableMetadata props;
  props.properties = target.metadata->properties;
  if (options.target_file_size_bytes) {
    props.properties[std::string(iceberg::table_properties::kWriteTargetFileSizeBytes)] =
        std::to_string(*options.target_file_size_bytes);
  }
  if (options.compression_codec) {
    props.properties[std::string(iceberg::table_properties::kWriteParquetCompressionCodec)] =
        *options.compression_codec;
  }
  auto resolved = iceberg::DataWriterOptions::FromProperties(props);
  if (!resolved) {
    return std::unexpected(
        std::move(resolved).error().WithContext(fmt::format("table {}", target.key)));
  }
  return resolved;
}

TableWriter::TableWriter(io::FileIO& io, const SinkOptions& options, int subtask)
    : io_(io), options_(options), subtask_(subtask) {}

TableWriter::~TableWriter() = default;

Result<std::unique_ptr<TableWriter>> TableWriter::Make(io::FileIO& io, TableTargetPtr target,
                                                       const SinkOptions& options, int subtask) {
  std::unique_ptr<TableWriter> w(new TableWriter(io, options, subtask));
  FLOE_RETURN_IF_ERROR(w->Configure(std::move(target)));
  return w;
}

Status TableWriter::Configure(TableTargetPtr target) {
  if (!target || !target->metadata) return InvalidArgument("table writer without a target");
  const std::string& table = target->key;
  const iceberg::TableMetadata& m = *target->metadata;
  const types::Schema* schema = m.CurrentSchema();
  const iceberg::PartitionSpec* spec = m.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return InvalidArgument("table {}: no current schema or default partition spec", table);
  }
  const bool keyed = !target->equality_field_ids.empty();
  if (target->upsert && !keyed) {
    return InvalidArgument(
        "table {}: upsert needs equality fields (identifier fields or a primary key)", table);
  }
  if (target->upsert && options_.overwrite) {
    return InvalidArgument("table {}: upsert cannot be combined with overwrite mode", table);
  }
  KeyEncoder encoder;
  if (keyed) {
    FLOE_ASSIGN_OR_RETURN(encoder, KeyEncoder::Make(*schema, target->equality_field_ids, table));
    for (const iceberg::PartitionField& pf : spec->fields()) {
      // Upsert has no before image to find a row's old partition by, so the
      // key must determine it (Iceberg's rule). A changelog's deletes carry
      // the whole old row: its partition source values go into the equality
      // delete file beside the key.
      if (target->upsert &&
          std::find(target->equality_field_ids.begin(), target->equality_field_ids.end(),
                    pf.source_id) == target->equality_field_ids.end()) {
        return InvalidArgument(
            "table {}: partition field '{}' has source column '{}' (id {}), which is not an "
            "equality field; with upsert every partition source column must be one, "
            "so that all changes of a key fall in one partition",
            table, pf.name, schema->FindColumnName(pf.source_id), pf.source_id);
      }
    }
  }
  if (target_ && keyed_ && keys_.size() > 0 &&
      target_->equality_field_ids != target->equality_field_ids) {
    return NotSupported(
        "table {}: the equality fields changed within a checkpoint; restart the pipeline after "
        "the change is committed",
        table);
  }
  FLOE_ASSIGN_OR_RETURN(writer_options_, ResolveWriterOptions(*target, options_));
  encoder_ = std::move(encoder);
  keyed_ = keyed;
  upsert_ = target->upsert;
  width_ = schema->fields().size();
  key_width_ = target->equality_field_ids.size();
  target_ = std::move(target);
  return Ok();
}

Status TableWriter::SetTarget(TableTargetPtr target) {
  if (target == target_) return Ok();
  FLOE_RETURN_IF_ERROR(CloseGeneration());
  return Configure(std::move(target));
}

Status TableWriter::EnsureWriters() {
  if (data_) return Ok();
  generation_base_ = files_.size();
  const iceberg::TableMetadata& m = *target_->metadata;
  auto data = iceberg::DataWriter::Make(io_, m, writer_options_);
  if (!data)
    return std::unexpected(
        std::move(data).error().WithContext(fmt::format("table {}", target_->key)));
  data_ = std::move(*data);
  return Ok();
}

void TableWriter::RegisterFiles() {
  while (files_.size() < generation_base_ + data_->num_files()) {
    size_t i = files_.size() - generation_base_;
    files_.push_back(FileRef{i, data_->spec_id(), data_->file_path(i), data_->file_partition(i)});
  }
}

TableWriter::SpecFiles& TableWriter::ForSpec(int32_t spec_id) {
  for (auto& [id, files] : completed_) {
    if (id == spec_id) return files;
  }
  completed_.emplace_back(spec_id, SpecFiles{});
  return completed_.back().second;
}

Status TableWriter::CloseGeneration() {
  if (data_) {
    RegisterFiles();
    auto files = data_->Close();
    if (!files) {
      return std::unexpected(
          std::move(files).error().WithContext(fmt::format("table {}", target_->key)));
    }
    SpecFiles& out = ForSpec(data_->spec_id());
    for (auto& f : *files) out.data_files.push_back(std::move(f));
    data_.reset();
  }
  if (equality_) {
    auto files = equality_->Close();
    if (!files) {
      return std::unexpected(
          std::move(files).error().WithContext(fmt::format("table {}", target_->key)));
    }
    SpecFiles& out = ForSpec(equality_->spec_id());
    for (auto& f : *files) out.delete_files.push_back(std::move(f));
    equality_.reset();
  }
  return Ok();
}

Status TableWriter::WriteData(types::Row row, bool keyed) {
  FLOE_RETURN_IF_ERROR(EnsureWriters());
  iceberg::DataWriter::RowLocation loc;
  if (auto s = data_->Write(row, &loc); !s) {
    return std::unexpected(std::move(s).error().WithContext(fmt::format("table {}", target_->key)));
  }
  ++rows_written_total_;
  if (!keyed) return Ok();
  size_t file = generation_base_ + loc.file_index;
  if (file >= files_.size()) RegisterFiles();
  bool inserted = false;
  KeyMap::Entry* e = keys_.Insert(key_, hash_, &inserted);
  if (!inserted) {
    pending_deletes_.push_back(PendingDelete{e->file, e->pos});
    ++position_deletes_total_;
  }
  e->file = static_cast<uint32_t>(file);
  e->pos = loc.pos;
  return Ok();
}

Status TableWriter::DeleteKey(types::Row row) {
  KeyMap::Entry old;
  if (keys_.Erase(key_, hash_, &old)) {
    pending_deletes_.push_back(PendingDelete{old.file, old.pos});
    ++position_deletes_total_;
    return Ok();
  }
  return WriteEqualityDelete(row);
}

Status TableWriter::WriteEqualityDelete(types::Row row) {
  if (!equality_) {
    const iceberg::TableMetadata& m = *target_->metadata;
    std::vector<int32_t> extra;  // partition sources that are not keys (changelog only)
    for (const iceberg::PartitionField& pf : m.DefaultSpec()->fields()) {
      if (std::find(target_->equality_field_ids.begin(), target_->equality_field_ids.end(),
                    pf.source_id) == target_->equality_field_ids.end() &&
          std::find(extra.begin(), extra.end(), pf.source_id) == extra.end()) {
        extra.push_back(pf.source_id);
      }
    }
    auto w = iceberg::EqualityDeleteWriter::Make(io_, m.location, *m.CurrentSchema(),
                                                 *m.DefaultSpec(), target_->equality_field_ids,
                                                 writer_options_, std::move(extra));
    if (!w)
      return std::unexpected(
          std::move(w).error().WithContext(fmt::format("table {}", target_->key)));
    equality_ = std::move(*w);
  }
  if (auto s = equality_->Delete(row); !s) {
    return std::unexpected(std::move(s).error().WithContext(fmt::format("table {}", target_->key)));
  }
  ++equality_deletes_total_;
  return Ok();
}

Status TableWriter::Upsert(types::Row row) {
  // One probe of the key map: the key's entry, added when the key is new in
  // this checkpoint.
  FLOE_RETURN_IF_ERROR(EnsureWriters());
  bool inserted = false;
  KeyMap::Entry* e = keys_.Insert(key_, hash_, &inserted);
  iceberg::DataWriter::RowLocation loc;
  if (auto s = data_->Write(row, &loc); !s) {
    KeyMap::Entry unused;
    if (inserted) keys_.Erase(key_, hash_, &unused);
    return std::unexpected(std::move(s).error().WithContext(fmt::format("table {}", target_->key)));
  }
  ++rows_written_total_;
  size_t file = generation_base_ + loc.file_index;
  if (file >= files_.size()) RegisterFiles();
  if (inserted) {
    // Not written in this checkpoint: an equality delete covers the rows of
    // earlier checkpoints (it does not apply to this checkpoint's data).
    e->file = static_cast<uint32_t>(file);
    e->pos = loc.pos;
    return WriteEqualityDelete(row);
  }
  // Written in this checkpoint: that row goes by position.
  pending_deletes_.push_back(PendingDelete{e->file, e->pos});
  ++position_deletes_total_;
  e->file = static_cast<uint32_t>(file);
  e->pos = loc.pos;
  return Ok();
}

Status TableWriter::Write(RowKind kind, types::Row row) {
  if (row.size() != width_) {
    return InvalidArgument("table {}: row has {} values, the schema has {} columns", target_->key,
                           row.size(), width_);
  }
  if (!keyed_) {
    if (kind == RowKind::kInsert || kind == RowKind::kUpdateAfter) return WriteData(row, false);
    return InvalidArgument(
        "table {}: has no identifier fields (equality fields), so a {} cannot be applied; "
        "declare a primary key or identifier fields",
        target_->key, KindName(kind));
  }
  key_.clear();
  encoder_.Encode(row, &key_);
  hash_ = HashKey(key_);
  switch (kind) {
    case RowKind::kInsert:
    case RowKind::kUpdateAfter:
      if (upsert_) return Upsert(row);
      return WriteData(row, true);
    case RowKind::kUpdateBefore:
      if (upsert_) return Ok();
      return DeleteKey(row);
    case RowKind::kDelete:
      return DeleteKey(row);
  }
  return Ok();
}

size_t TableWriter::flushable_bytes() const {
  size_t total = 0;
  if (data_) total += data_->buffered_bytes();
  if (equality_) total += equality_->buffered_bytes();
  return total;
}

size_t TableWriter::pinned_bytes() const {
  size_t files = data_ ? data_->num_files() * width_ : 0;
  for (const auto& [spec_id, done] : completed_) {
    files += (done.data_files.size() + done.delete_files.size()) * width_;
  }
  return files * kFileMetadataBytesPerColumn + keys_.memory_bytes() +
         pending_deletes_.capacity() * sizeof(PendingDelete) + key_.capacity();
}

size_t TableWriter::buffered_bytes() const {
  size_t open = 0;
  if (data_) open += data_->num_open_files() * width_;
  if (equality_) open += equality_->num_open_files() * key_width_;
  return flushable_bytes() + open * kOpenFileBytesPerColumn + pinned_bytes();
}

Status TableWriter::Flush() {
  if (data_) FLOE_RETURN_IF_ERROR_CTX(data_->Flush(), "table {}", target_->key);
  if (equality_) FLOE_RETURN_IF_ERROR_CTX(equality_->Flush(), "table {}", target_->key);
  return Ok();
}

Status TableWriter::CloseFiles() {
  if (data_) FLOE_RETURN_IF_ERROR_CTX(data_->CloseFiles(), "table {}", target_->key);
  if (equality_) FLOE_RETURN_IF_ERROR_CTX(equality_->CloseFiles(), "table {}", target_->key);
  return Ok();
}

size_t TableWriter::num_open_files() const {
  return (data_ ? data_->num_open_files() : 0) + (equality_ ? equality_->num_open_files() : 0);
}

Status TableWriter::WritePendingDeletes() {
  if (target_->metadata->format_version >= 3) return WriteDeletionVectors();
  // One position delete file per spec and partition: the partition directory
  // of the data file, which is a function of spec and tuple. Files are
  // grouped once; the deletes go to their group's bucket by file ordinal, and
  // no path is compared or copied per delete.
  struct Group {
    int32_t spec_id;
    uint32_t any_file;  ///< a file of the group, for its partition tuple
    size_t count = 0;   ///< deletes
    size_t begin = 0;   ///< of its deletes in `sorted`
  };
  std::vector<Group> groups;
  std::vector<uint32_t> group_of(files_.size());
  std::vector<std::string_view> paths(files_.size());
  {
    std::map<std::pair<int32_t, std::string_view>, uint32_t> index;
    for (size_t i = 0; i < files_.size(); ++i) {
      const FileRef& f = files_[i];
      paths[i] = f.path;
      auto [it, inserted] = index.try_emplace(std::make_pair(f.spec_id, Directory(f.path)),
                                              static_cast<uint32_t>(groups.size()));
      if (inserted) groups.push_back(Group{f.spec_id, static_cast<uint32_t>(i)});
      group_of[i] = it->second;
    }
  }
  std::vector<bool> named(files_.size(), false);
  for (const PendingDelete& d : pending_deletes_) {
    ++groups[group_of[d.file]].count;
    named[d.file] = true;
  }
  size_t begin = 0;
  for (Group& g : groups) {
    g.begin = begin;
    begin += g.count;
  }
  std::vector<iceberg::PositionDeleteRef> sorted(pending_deletes_.size());
  {
    std::vector<size_t> next(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) next[g] = groups[g].begin;
    for (const PendingDelete& d : pending_deletes_) {
      sorted[next[group_of[d.file]]++] = iceberg::PositionDeleteRef{d.file, d.pos};
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    const Group& group = groups[g];
    if (group.count == 0) continue;
    SpecFiles& out = ForSpec(group.spec_id);
    out.rows_deleted += static_cast<int64_t>(group.count);
    auto first = sorted.begin() + static_cast<std::ptrdiff_t>(group.begin);
    std::vector<iceberg::PositionDeleteRef> deletes;
    if (group.count == sorted.size()) {
      deletes = std::move(sorted);  // one group: no copy
    } else {
      deletes.assign(first, first + static_cast<std::ptrdiff_t>(group.count));
    }
    auto file = iceberg::WritePositionDeletes(io_, *target_->metadata, group.spec_id,
                                              files_[group.any_file].partition, paths,
                                              std::move(deletes), writer_options_);
    if (!file) {
      return std::unexpected(
          std::move(file).error().WithContext(fmt::format("table {}", target_->key)));
    }
    out.delete_files.push_back(std::move(*file));
    // The data files the deletes name, in path order.
    std::vector<std::string_view> referenced;
    for (size_t i = 0; i < files_.size(); ++i) {
      if (named[i] && group_of[i] == g) referenced.push_back(paths[i]);
    }
    std::sort(referenced.begin(), referenced.end());
    referenced.erase(std::unique(referenced.begin(), referenced.end()), referenced.end());
    for (std::string_view r : referenced) out.referenced.emplace_back(r);
  }
  return Ok();
}

Status TableWriter::WriteDeletionVectors() {
  // The deleted positions of each data file of this checkpoint, by file
  // ordinal; then one Puffin file per spec with a vector per data file.
  std::vector<std::vector<int64_t>> positions(files_.size());
  for (const PendingDelete& d : pending_deletes_) positions[d.file].push_back(d.pos);
  std::vector<int32_t> specs;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (!positions[i].empty() &&
        std::find(specs.begin(), specs.end(), files_[i].spec_id) == specs.end()) {
      specs.push_back(files_[i].spec_id);
    }
  }
  for (int32_t spec_id : specs) {
    std::vector<iceberg::DeletionVectorToWrite> vectors;
    int64_t deletes = 0;
    for (size_t i = 0; i < files_.size(); ++i) {
      if (positions[i].empty() || files_[i].spec_id != spec_id) continue;
      deletes += static_cast<int64_t>(positions[i].size());
      vectors.push_back(iceberg::DeletionVectorToWrite{files_[i].path, files_[i].partition,
                                                       std::move(positions[i])});
    }
    auto files = iceberg::WriteDeletionVectors(
        io_, iceberg::NewDeletionVectorPath(target_->metadata->location), vectors);
    if (!files) {
      return std::unexpected(
          std::move(files).error().WithContext(fmt::format("table {}", target_->key)));
    }
    SpecFiles& out = ForSpec(spec_id);
    out.rows_deleted += deletes;
    for (auto& f : *files) {
      out.referenced.push_back(*f.referenced_data_file);
      out.delete_files.push_back(std::move(f));
    }
  }
  return Ok();
}

Result<std::vector<WriteResult>> TableWriter::Complete() {
  FLOE_RETURN_IF_ERROR(CloseGeneration());
  if (!pending_deletes_.empty()) FLOE_RETURN_IF_ERROR(WritePendingDeletes());
  std::vector<WriteResult> results;
  for (auto& [spec_id, files] : completed_) {
    if (files.data_files.empty() && files.delete_files.empty()) continue;
    WriteResult r;
    r.target = target_;
    r.spec_id = spec_id;
    r.writer_subtask = subtask_;
    r.truncated = truncated_;
    for (const auto& f : files.data_files) r.rows_written += f.record_count;
    r.rows_deleted = files.rows_deleted;
    for (const auto& f : files.delete_files) {
      if (f.content == iceberg::DataFileContent::kEqualityDeletes) r.rows_deleted += f.record_count;
    }
    r.data_files = std::move(files.data_files);
    r.delete_files = std::move(files.delete_files);
    r.referenced_data_files = std::move(files.referenced);
    results.push_back(std::move(r));
  }
  if (truncated_ && results.empty()) {
    // The truncation itself must reach the committer.
    WriteResult r;
    r.target = target_;
    r.spec_id = target_->metadata->default_spec_id;
    r.writer_subtask = subtask_;
    r.truncated = true;
    results.push_back(std::move(r));
  }
  truncated_ = false;
  completed_.clear();
  files_.clear();
  pending_deletes_.clear();
  if (pending_deletes_.capacity() > 65536) std::vector<PendingDelete>().swap(pending_deletes_);
  keys_.Clear();
  generation_base_ = 0;
  return results;
}

void TableWriter::Truncate() {
  Abort();
  truncated_ = true;
}

void TableWriter::Abort() {
  if (data_) data_->Abort();
  if (equality_) equality_->Abort();
  data_.reset();
  equality_.reset();
  for (auto& [spec_id, files] : completed_) {
    for (const auto& f : files.data_files) (void)io_.Delete(f.file_path);
    for (const auto& f : files.delete_files) (void)io_.Delete(f.file_path);
  }
  completed_.clear();
  files_.clear();
  pending_deletes_.clear();
  keys_.Clear();
  generation_base_ = 0;
}

}  // namespace floe::sink
