#include "floe/iceberg/data/delete_files.h"

#include <algorithm>
#include <map>
#include <set>

#include "floe/common/arena.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/expression/evaluator.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/puffin/deletion_vector_writer.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/row_delta.h"

namespace floe::iceberg {

DeleteFiles& DeleteFiles::DeleteFile(std::string path) {
  paths_.insert(std::move(path));
  return *this;
}

DeleteFiles& DeleteFiles::DeleteFromRowFilter(ExprPtr filter) {
  filter_.Or(std::move(filter));
  return *this;
}

Status DeleteFiles::Validate(const TableMetadata& base, OperationContext& ctx) {
  return filter_.Bind(base);
}

Result<bool> DeleteFiles::ManifestMayHoldRemovals(const ManifestFile& manifest,
                                                  const TableMetadata& base) {
  if (!paths_.empty()) return true;
  return filter_.ManifestMaySelect(manifest);
}

Result<bool> DeleteFiles::Removes(const ManifestEntry& entry, int32_t spec_id,
                                  const TableMetadata& base) {
  if (paths_.contains(entry.data_file.file_path)) return true;
  return filter_.Selects(entry.data_file, spec_id, "delete",
                         " (delete rows with position deletes instead)");
}

Status DeleteFiles::CheckRemoved(const std::set<std::string>& removed_paths) {
  return CheckAllRemoved(paths_, removed_paths, "file", "delete");
}

Result<std::vector<int64_t>> MatchingRowPositions(io::FileIO& io, const std::string& path,
                                                  const types::Schema& schema,
                                                  const ExprPtr& bound_filter) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(input)));
  FLOE_ASSIGN_OR_RETURN(auto evaluator, RowEvaluator::Make(bound_filter));
  const auto& file_fields = reader->schema().fields();
  const auto& fields = schema.fields();
  // For each top-level column of the table schema: its index in the file's rows.
  std::vector<int> source(fields.size(), -1);
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t j = 0; j < file_fields.size(); ++j) {
      if (file_fields[j].id == fields[i].id) source[i] = static_cast<int>(j);
    }
  }
  const size_t width = file_fields.size();
  std::vector<int64_t> positions;
  std::vector<types::Value> values;
  std::vector<types::Value> row(fields.size());
  Arena arena;
  int64_t position = 0;
  while (true) {
    arena.Reset();
    values.clear();
    FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, 4096, &values));
    if (n == 0) break;
    for (size_t r = 0; r < n; ++r, ++position) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (source[i] < 0) {
          row[i] = types::Value::Null();
          continue;
        }
        types::Value v = values[r * width + source[i]];
        const auto target = fields[i].type->id();
        if (v.kind == types::Value::Kind::kInt32 && target == types::TypeId::kLong) {
          v = types::Value::Int64(v.i32);
        } else if (v.kind == types::Value::Kind::kFloat && target == types::TypeId::kDouble) {
          v = types::Value::Double(v.f32);
        }
        row[i] = v;
      }
      if (evaluator.Eval(row)) positions.push_back(position);
    }
  }
  return positions;
}

namespace {

/// DeleteRows in a format v3 table: the matching rows of a data file go into
/// its deletion vector, merged with the vector it has (which the commit
/// removes); files whose rows all end up deleted are removed with theirs.
Result<DeleteRowsResult> DeleteRowsWithVectors(Table& table, FileFilter& file_filter,
                                               const std::vector<LiveFile>& live) {
  const TableMetadata& metadata = table.metadata();
  io::FileIO& io = table.io();
  // Each data file's live deletion vector, and the data files that Parquet
  // position delete files (left from before an upgrade to v3) may name.
  std::map<std::string, const DataFile*> vector_of;
  std::set<std::string> named_by_position_files;
  bool position_files_without_reference = false;
  for (const LiveFile& f : live) {
    const DataFile& d = f.entry.data_file;
    if (d.content != DataFileContent::kPositionDeletes) continue;
    if (IsDeletionVector(d)) {
      if (d.referenced_data_file) vector_of[*d.referenced_data_file] = &d;
    } else if (d.referenced_data_file) {
      named_by_position_files.insert(*d.referenced_data_file);
    } else {
      position_files_without_reference = true;
    }
  }
  DeleteRowsResult result;
  auto delta = table.NewRowDelta();
  std::vector<DeletionVectorToWrite> vectors;
  std::vector<int32_t> vector_specs;
  for (const LiveFile& f : live) {
    const DataFile& file = f.entry.data_file;
    if (file.is_delete()) continue;
    FLOE_ASSIGN_OR_RETURN(FileMatch match, file_filter.Match(file, f.spec_id));
    if (match == FileMatch::kNone) continue;
    const auto old = vector_of.find(file.file_path);
    std::vector<int64_t> positions;
    int64_t before = 0;
    if (match == FileMatch::kSome) {
      FLOE_ASSIGN_OR_RETURN(positions,
                            MatchingRowPositions(io, file.file_path, *metadata.CurrentSchema(),
                                                 file_filter.bound_filter()));
      if (positions.empty()) continue;
      if (old != vector_of.end()) {
        FLOE_ASSIGN_OR_RETURN(DeletionVector previous, DeletionVector::Read(io, *old->second));
        before = previous.cardinality();
        previous.AppendPositions(&positions);
      }
      std::sort(positions.begin(), positions.end());
      positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
      if (static_cast<int64_t>(positions.size()) == before) continue;  // all deleted already
    }
    if (match == FileMatch::kAll || static_cast<int64_t>(positions.size()) == file.record_count) {
      delta->RemoveRows(file.file_path);
      if (old != vector_of.end()) {
        delta->RemoveDeletionVector(old->second->file_path, file.file_path);
        before = old->second->record_count;  // the vector's cardinality
      }
      result.removed_data_files += 1;
      result.deleted_rows += file.record_count - before;
      continue;
    }
    if (position_files_without_reference || named_by_position_files.contains(file.file_path)) {
      return NotSupported(
          "table {}: data file {} may have Parquet position delete files from before the upgrade "
          "to v3, which a deletion vector must merge; floe does not merge them yet",
          table.name(), file.file_path);
    }
    if (old != vector_of.end()) delta->RemoveDeletionVector(old->second->file_path, file.file_path);
    result.deleted_rows += static_cast<int64_t>(positions.size()) - before;
    vectors.push_back(DeletionVectorToWrite{file.file_path, file.partition, std::move(positions)});
    vector_specs.push_back(f.spec_id);
  }
  if (result.deleted_rows == 0 && result.removed_data_files == 0) return result;
  std::string written;
  if (!vectors.empty()) {
    written = NewDeletionVectorPath(metadata.location);
    FLOE_ASSIGN_OR_RETURN(auto files, WriteDeletionVectors(io, written, vectors));
    for (size_t i = 0; i < files.size(); ++i)
      delta->AddDeletes(std::move(files[i]), vector_specs[i]);
    result.position_delete_files = static_cast<int64_t>(files.size());
  }
  delta->SetSummaryProperty("floe.delete-filter", file_filter.bound_filter()->ToString());
  if (auto s = delta->Commit(); !s) {
    if (!written.empty() && s.error().code() != ErrorCode::kCommitStateUnknown) {
      (void)io.Delete(written);
    }
    return std::unexpected(std::move(s).error());
  }
  result.committed = true;
  return result;
}

}  // namespace

Result<DeleteRowsResult> DeleteRows(Table& table, const ExprPtr& filter) {
  const TableMetadata& metadata = table.metadata();
  io::FileIO& io = table.io();
  const types::Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("table {} has no current schema", table.name());
  FLOE_ASSIGN_OR_RETURN(FileFilter file_filter, FileFilter::Make(filter, metadata));
  FLOE_ASSIGN_OR_RETURN(auto live, ReadLiveFiles(io, metadata, metadata.CurrentSnapshot()));
  if (metadata.format_version >= 3) return DeleteRowsWithVectors(table, file_filter, live);
  FLOE_ASSIGN_OR_RETURN(DataWriterOptions options, DataWriterOptions::FromProperties(metadata));

  DeleteRowsResult result;
  auto delta = table.NewRowDelta();
  using GroupKey = std::pair<int32_t, std::string>;
  std::map<GroupKey, std::pair<std::vector<Literal>, std::vector<PositionDelete>>> groups;
  std::vector<std::string> referenced;
  for (const LiveFile& f : live) {
    const DataFile& file = f.entry.data_file;
    if (file.is_delete()) continue;
    FLOE_ASSIGN_OR_RETURN(FileMatch match, file_filter.Match(file, f.spec_id));
    if (match == FileMatch::kNone) continue;
    std::vector<int64_t> positions;
    if (match == FileMatch::kSome) {
      FLOE_ASSIGN_OR_RETURN(
          positions, MatchingRowPositions(io, file.file_path, *schema, file_filter.bound_filter()));
      if (positions.empty()) continue;
    }
    if (match == FileMatch::kAll || static_cast<int64_t>(positions.size()) == file.record_count) {
      delta->RemoveRows(file.file_path);
      result.removed_data_files += 1;
      result.deleted_rows += file.record_count;
      continue;
    }
    std::string key;
    for (const auto& l : file.partition) key += l.ToString() + "\x1f";
    auto& group = groups[{f.spec_id, key}];
    group.first = file.partition;
    for (int64_t p : positions) group.second.push_back(PositionDelete{file.file_path, p});
    referenced.push_back(file.file_path);
    result.deleted_rows += static_cast<int64_t>(positions.size());
  }
  if (result.deleted_rows == 0 && result.removed_data_files == 0) return result;

  std::vector<std::string> written;
  for (auto& [key, group] : groups) {
    auto file = WritePositionDeletes(io, metadata, key.first, group.first, std::move(group.second),
                                     options);
    if (!file) {
      for (const auto& p : written) (void)io.Delete(p);
      return std::unexpected(std::move(file).error());
    }
    written.push_back(file->file_path);
    delta->AddDeletes(std::move(*file), key.first);
    result.position_delete_files += 1;
  }
  delta->ValidateDataFilesExist(std::move(referenced));
  delta->SetSummaryProperty("floe.delete-filter", file_filter.bound_filter()->ToString());
  if (auto s = delta->Commit(); !s) {
    if (s.error().code() != ErrorCode::kCommitStateUnknown) {
      for (const auto& p : written) (void)io.Delete(p);
    }
    return std::unexpected(std::move(s).error());
  }
  result.committed = true;
  return result;
}

}  // namespace floe::iceberg
