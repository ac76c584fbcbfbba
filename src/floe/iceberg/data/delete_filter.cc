#include "floe/iceberg/data/delete_filter.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

#include "floe/common/arena.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/puffin/deletion_vector.h"

namespace floe::iceberg {

namespace {

using types::Value;
using Kind = types::Value::Kind;

void AppendRaw(const void* p, size_t n, std::string* out) {
  out->append(static_cast<const char*>(p), n);
}

bool IsParquet(const DataFile& file) {
  std::string format = file.file_format;
  std::transform(format.begin(), format.end(), format.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return format == kFormatParquet;
}

Error InFile(Error e, const std::string& path) {
  return std::move(e).WithContext(fmt::format("reading delete file {}", path));
}

constexpr size_t kBatchRows = 4096;

// Opens the delete file at `delete_path` (errors name it).
Result<std::unique_ptr<format::parquet::ParquetReader>> OpenDeleteFile(
    io::FileIO& io, const std::string& delete_path) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(delete_path));
  auto opened = format::parquet::ParquetReader::Open(std::move(input));
  if (!opened) return std::unexpected(InFile(std::move(opened).error(), delete_path));
  return std::move(*opened);
}

// Calls `on_row(const Value* row)` (returning Status) for every row `reader`
// reads, in batches; a row's values are its projected columns, in order.
template <typename OnRow>
Status ForEachRow(format::parquet::ParquetReader& reader, const std::string& delete_path,
                  const OnRow& on_row) {
  const size_t width = reader.schema().fields().size();
  Arena arena;
  std::vector<Value> values;
  while (true) {
    arena.Reset();
    values.clear();
    auto n = reader.ReadBatch(&arena, kBatchRows, &values);
    if (!n) return std::unexpected(InFile(std::move(n).error(), delete_path));
    if (*n == 0) return Ok();
    for (size_t r = 0; r < *n; ++r) FLOE_RETURN_IF_ERROR(on_row(&values[r * width]));
  }
}

}  // namespace

void AppendEqualityKey(const Value& value, std::string* out) {
  switch (value.kind) {
    case Kind::kNull:
      out->push_back('\0');
      return;
    case Kind::kBool:
      out->push_back('b');
      out->push_back(value.b ? 1 : 0);
      return;
    case Kind::kInt32: {
      int64_t v = value.i32;
      out->push_back('i');
      AppendRaw(&v, 8, out);
      return;
    }
    case Kind::kInt64:
      out->push_back('i');
      AppendRaw(&value.i64, 8, out);
      return;
    case Kind::kFloat:
    case Kind::kDouble: {
      double d = value.kind == Kind::kFloat ? static_cast<double>(value.f32) : value.f64;
      uint64_t bits = std::isnan(d) ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(d);
      out->push_back('d');
      AppendRaw(&bits, 8, out);
      return;
    }
    case Kind::kDecimal:
      out->push_back('m');
      AppendRaw(&value.decimal, sizeof(value.decimal), out);
      return;
    case Kind::kBytes: {
      uint32_t n = value.size;
      out->push_back('s');
      AppendRaw(&n, 4, out);
      out->append(value.bytes, value.size);
      return;
    }
    case Kind::kStruct:
    case Kind::kList:
    case Kind::kMap: {
      uint32_t n = value.size;
      out->push_back(static_cast<char>('S' + static_cast<int>(value.kind)));
      AppendRaw(&n, 4, out);
      for (const Value& c : value.as_children()) AppendEqualityKey(c, out);
      return;
    }
  }
}

Result<std::unique_ptr<DeleteFilter>> DeleteFilter::Load(io::FileIO& io,
                                                         const std::string& data_file_path,
                                                         std::span<const DeleteFilePtr> deletes,
                                                         const types::Schema& table_schema) {
  std::unique_ptr<DeleteFilter> filter(new DeleteFilter());
  for (const DeleteFilePtr& d : deletes) {
    if (IsDeletionVector(d->file)) {
      FLOE_RETURN_IF_ERROR(filter->LoadDeletionVector(io, d->file, data_file_path));
      continue;
    }
    if (!IsParquet(d->file)) {
      return NotSupported("delete file {}: format '{}' is not supported (only Parquet)",
                          d->file.file_path, d->file.file_format);
    }
    if (d->file.content == DataFileContent::kPositionDeletes) {
      FLOE_RETURN_IF_ERROR(filter->LoadPositions(io, *d, data_file_path));
    } else if (d->file.content == DataFileContent::kEqualityDeletes) {
      FLOE_RETURN_IF_ERROR(filter->LoadEquality(io, *d, table_schema));
    }
  }
  std::sort(filter->positions_.begin(), filter->positions_.end());
  filter->positions_.erase(std::unique(filter->positions_.begin(), filter->positions_.end()),
                           filter->positions_.end());
  return filter;
}

Status DeleteFilter::LoadDeletionVector(io::FileIO& io, const DataFile& dv,
                                        const std::string& path) {
  if (dv.referenced_data_file && *dv.referenced_data_file != path) {
    return InvalidArgument("deletion vector in {} is for {}, not for {}", dv.file_path,
                           *dv.referenced_data_file, path);
  }
  if (deletion_vector_ != nullptr) {
    return Corruption("data file {} has more than one deletion vector (the second in {})", path,
                      dv.file_path);
  }
  FLOE_ASSIGN_OR_RETURN(DeletionVector vector, DeletionVector::Read(io, dv));
  if (!vector.empty()) deletion_vector_ = std::make_unique<DeletionVector>(std::move(vector));
  return Ok();
}

Status DeleteFilter::LoadPositions(io::FileIO& io, const DeleteFileEntry& entry,
                                   const std::string& path) {
  const std::string& delete_path = entry.file.file_path;
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenDeleteFile(io, delete_path));
  const types::Schema& file_schema = reader->parquet_schema().schema;
  const types::NestedField* path_field = file_schema.FindField(kDeleteFilePathFieldId);
  const types::NestedField* pos_field = file_schema.FindField(kDeletePosFieldId);
  if (path_field == nullptr || pos_field == nullptr) {
    return Corruption("position delete file {} has no file_path ({}) or pos ({}) column",
                      delete_path, kDeleteFilePathFieldId, kDeletePosFieldId);
  }
  FLOE_RETURN_IF_ERROR(reader->Project({kDeleteFilePathFieldId, kDeletePosFieldId}));
  int path_index = -1, pos_index = -1;
  const auto& fields = reader->schema().fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == kDeleteFilePathFieldId) path_index = static_cast<int>(i);
    if (fields[i].id == kDeletePosFieldId) pos_index = static_cast<int>(i);
  }
  if (path_index < 0 || pos_index < 0) {
    return Corruption("position delete file {}: file_path and pos must be top-level columns",
                      delete_path);
  }
  // Skip row groups whose file_path range excludes the data file.
  reader->SetRowGroupFilter([&path](const format::parquet::RowGroupStats& stats) {
    const format::parquet::ColumnStats* s = stats.Find(kDeleteFilePathFieldId);
    if (s == nullptr) return true;
    if (s->min && s->min->kind == Kind::kBytes && path < s->min->as_bytes()) return false;
    if (s->max && s->max->kind == Kind::kBytes && path > s->max->as_bytes()) return false;
    return true;
  });
  return ForEachRow(*reader, delete_path, [&](const Value* row) -> Status {
    const Value& p = row[path_index];
    if (p.kind != Kind::kBytes || p.as_bytes() != path) return Ok();
    const Value& pos = row[pos_index];
    int64_t position;
    if (pos.kind == Kind::kInt64) {
      position = pos.i64;
    } else if (pos.kind == Kind::kInt32) {
      position = pos.i32;
    } else {
      return Corruption("position delete file {}: a row for {} has a null or non-integer pos",
                        delete_path, path);
    }
    if (position < 0) {
      return Corruption("position delete file {}: negative position {}", delete_path, position);
    }
    positions_.push_back(position);
    return Ok();
  });
}

Status DeleteFilter::LoadEquality(io::FileIO& io, const DeleteFileEntry& entry,
                                  const types::Schema& table_schema) {
  const std::string& delete_path = entry.file.file_path;
  std::vector<int32_t> ids = entry.file.equality_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  FLOE_ASSIGN_OR_RETURN(auto reader, OpenDeleteFile(io, delete_path));
  const types::Schema& file_schema = reader->parquet_schema().schema;
  for (int32_t id : ids) {
    const types::NestedField* in_file = nullptr;
    for (const auto& f : file_schema.fields()) {
      if (f.id == id) in_file = &f;
    }
    if (in_file == nullptr) {
      if (file_schema.FindField(id) != nullptr) {
        return NotSupported(
            "equality delete file {}: column {} is nested; only top-level "
            "equality columns are supported",
            delete_path, id);
      }
      return Corruption("equality delete file {} has no column with field id {}", delete_path, id);
    }
    bool known = false;
    for (const auto& f : equality_fields_) known = known || f.id == id;
    if (known) continue;
    const types::NestedField* in_table = nullptr;
    for (const auto& f : table_schema.fields()) {
      if (f.id == id) in_table = &f;
    }
    if (in_table == nullptr && table_schema.FindField(id) != nullptr) {
      return NotSupported("equality delete file {}: column {} is nested in the table schema",
                          delete_path, id);
    }
    types::NestedField field = in_table != nullptr ? *in_table : *in_file;
    field.required = false;
    equality_fields_.push_back(std::move(field));
  }
  FLOE_RETURN_IF_ERROR(reader->Project(ids));
  const auto& fields = reader->schema().fields();
  std::vector<int> index(ids.size(), -1);
  for (size_t k = 0; k < ids.size(); ++k) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].id == ids[k]) index[k] = static_cast<int>(i);
    }
  }
  Group* group = nullptr;
  for (Group& g : groups_) {
    if (g.field_ids == ids) group = &g;
  }
  if (group == nullptr) {
    groups_.push_back(Group{ids, {}, {}});
    group = &groups_.back();
  }
  std::string key;
  return ForEachRow(*reader, delete_path, [&](const Value* row) -> Status {
    key.clear();
    for (int i : index) AppendEqualityKey(row[i], &key);
    group->keys.insert(key);
    return Ok();
  });
}

Status DeleteFilter::Bind(const types::Schema& row_schema) {
  const auto& fields = row_schema.fields();
  for (Group& g : groups_) {
    g.row_positions.clear();
    for (int32_t id : g.field_ids) {
      int found = -1;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].id == id) found = static_cast<int>(i);
      }
      if (found < 0) {
        return InvalidArgument("rows for equality deletes lack the column with field id {}", id);
      }
      g.row_positions.push_back(found);
    }
  }
  return Ok();
}

bool DeleteFilter::IsDeleted(int64_t position, types::Row row) {
  if (deletion_vector_ != nullptr && deletion_vector_->Contains(position)) return true;
  while (cursor_ < positions_.size() && positions_[cursor_] < position) ++cursor_;
  if (cursor_ < positions_.size() && positions_[cursor_] == position) return true;
  for (const Group& g : groups_) {
    if (g.keys.empty()) continue;
    scratch_.clear();
    for (int p : g.row_positions) {
      if (static_cast<size_t>(p) < row.size()) {
        AppendEqualityKey(row[p], &scratch_);
      } else {
        scratch_.push_back('\0');
      }
    }
    if (g.keys.find(scratch_) != g.keys.end()) return true;
  }
  return false;
}

DeleteFilter::~DeleteFilter() = default;

size_t DeleteFilter::position_count() const {
  if (deletion_vector_ == nullptr) return positions_.size();
  if (positions_.empty()) return static_cast<size_t>(deletion_vector_->cardinality());
  size_t n = static_cast<size_t>(deletion_vector_->cardinality());
  for (int64_t p : positions_) n += deletion_vector_->Contains(p) ? 0 : 1;
  return n;
}

size_t DeleteFilter::equality_key_count() const {
  size_t n = 0;
  for (const Group& g : groups_) n += g.keys.size();
  return n;
}

}  // namespace floe::iceberg
