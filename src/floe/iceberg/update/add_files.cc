#include "floe/iceberg/update/add_files.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "floe/common/arena.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {
namespace {

/// The lower and upper bound of one column over a file's row groups.
using Bounds = std::map<int32_t, std::pair<std::optional<Literal>, std::optional<Literal>>>;

/// The top-level primitive field of `schema` with `id`; nullptr if none.
const types::NestedField* TopLevelPrimitive(const types::Schema& schema, int32_t id) {
  for (const auto& field : schema.fields()) {
    if (field.id == id && field.type->is_primitive()) return &field;
  }
  return nullptr;
}

/// Adds the value and null counts of the file's row groups to `*file` and
/// returns the bounds of its top-level primitive columns: empty when a row
/// group holds values without statistics (no bound can be claimed then).
Result<Bounds> ReadMetrics(format::parquet::ParquetReader& reader, const types::Schema& schema,
                           DataFile* file) {
  Bounds bounds;
  bool bounds_ok = true;
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    FLOE_ASSIGN_OR_RETURN(auto stats, reader.ReadRowGroupStats(g));
    for (const auto& c : stats.columns) {
      // Column chunk statistics count nulls per leaf; values including nulls.
      file->value_counts[c.field_id] += c.num_values;
      if (c.null_count) file->null_value_counts[c.field_id] += *c.null_count;
      const types::NestedField* field = TopLevelPrimitive(schema, c.field_id);
      if (field == nullptr) continue;
      auto& [lo, hi] = bounds[c.field_id];
      if (!c.min || !c.max || c.min->is_null() || c.max->is_null()) {
        if (stats.num_rows > 0 && (!c.null_count || *c.null_count < stats.num_rows)) {
          bounds_ok = false;
        }
        continue;
      }
      auto mn = Literal::FromValue(field->type, *c.min);
      auto mx = Literal::FromValue(field->type, *c.max);
      if (!mn || !mx) continue;
      if (!lo || CompareValues(*field->type, mn->value(), lo->value()) < 0) lo = *mn;
      if (!hi || CompareValues(*field->type, mx->value(), hi->value()) > 0) hi = *mx;
    }
  }
  if (!bounds_ok) return Bounds();
  for (const auto& [id, b] : bounds) {
    if (!b.first || !b.second) continue;
    auto lo = SerializeSingleValue(*b.first->type(), b.first->value());
    auto hi = SerializeSingleValue(*b.second->type(), b.second->value());
    if (lo && hi) {
      file->lower_bounds[id] = *lo;
      file->upper_bounds[id] = *hi;
    }
  }
  return bounds;
}

/// The partition value of `field` for a file with `bounds` and `file`'s null
/// counts: null when the source column holds only nulls, else the transform
/// of its bounds, which must agree.
Result<Literal> PartitionValue(const PartitionField& field, const types::TypePtr& result_type,
                               const types::Schema& schema, const DataFile& file,
                               const Bounds& bounds) {
  const types::NestedField* source = schema.FindField(field.source_id);
  if (source == nullptr) {
    return InvalidArgument("partition field {}: source column {} is not in the schema", field.name,
                           field.source_id);
  }
  auto nulls = file.null_value_counts.find(field.source_id);
  const bool all_null = nulls != file.null_value_counts.end() && nulls->second == file.record_count;
  if (field.transform.is_void() || all_null) return Literal::Null(result_type);
  auto b = bounds.find(field.source_id);
  if (b == bounds.end() || !b->second.first || !b->second.second) {
    return InvalidArgument("column {} has no bounds to derive partition {} from", source->name,
                           field.name);
  }
  if (nulls == file.null_value_counts.end() || nulls->second != 0) {
    return InvalidArgument("column {} holds both nulls and values (partition {})", source->name,
                           field.name);
  }
  FLOE_ASSIGN_OR_RETURN(types::Value lo,
                        field.transform.Apply(*source->type, b->second.first->value()));
  FLOE_ASSIGN_OR_RETURN(types::Value hi,
                        field.transform.Apply(*source->type, b->second.second->value()));
  if (CompareValues(*result_type, lo, hi) != 0) {
    return InvalidArgument("column {} goes from {} to {}, which {} puts in different partitions",
                           source->name, b->second.first->ToString(), b->second.second->ToString(),
                           field.transform.ToString());
  }
  return Literal::FromValue(result_type, lo);
}

}  // namespace

bool LooksLikeParquet(io::FileIO& io, const std::string& path) {
  auto in = io.OpenInput(path);
  if (!in || (*in)->size() < 8) return false;
  uint8_t magic[4];
  if (!(*in)->ReadAt(0, magic)) return false;
  return std::memcmp(magic, "PAR1", 4) == 0;
}

Result<std::vector<int>> MapParquetColumns(const types::Schema& table_schema,
                                           const types::Schema& file_schema,
                                           const std::string& path) {
  std::vector<int> source(table_schema.fields().size(), -1);
  for (size_t j = 0; j < file_schema.fields().size(); ++j) {
    const auto& ff = file_schema.fields()[j];
    bool found = false;
    for (size_t i = 0; i < table_schema.fields().size(); ++i) {
      const auto& tf = table_schema.fields()[i];
      if (tf.id != ff.id) continue;
      found = true;
      if (!tf.type->Equals(*ff.type)) {
        return SchemaIncompatible(
            "{}: column {} (field id {}) is {} in the file but {} in the table", path, ff.name,
            ff.id, ff.type->ToString(), tf.type->ToString());
      }
      if (tf.required && !ff.required) {
        return SchemaIncompatible("{}: column {} is optional in the file but required in the table",
                                  path, ff.name);
      }
      source[i] = static_cast<int>(j);
    }
    if (!found) {
      return SchemaIncompatible("{}: column {} (field id {}) is not in the table schema", path,
                                ff.name, ff.id);
    }
  }
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] < 0 && table_schema.fields()[i].required) {
      return SchemaIncompatible("{}: required column {} is missing", path,
                                table_schema.fields()[i].name);
    }
  }
  return source;
}

Result<DataFile> ParquetDataFile(io::FileIO& io, const std::string& path,
                                 const types::Schema& schema, const PartitionSpec& spec) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  uint64_t size = input->size();
  FLOE_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(input)));
  FLOE_RETURN_IF_ERROR(MapParquetColumns(schema, reader->schema(), path));
  DataFile file;
  file.file_path = path;
  file.record_count = reader->num_rows();
  file.file_size_in_bytes = static_cast<int64_t>(size);
  FLOE_ASSIGN_OR_RETURN(Bounds bounds, ReadMetrics(*reader, schema, &file));
  if (spec.fields().empty()) return file;
  FLOE_ASSIGN_OR_RETURN(types::TypePtr partition_type, spec.PartitionType(schema));
  for (size_t i = 0; i < spec.fields().size(); ++i) {
    auto value =
        PartitionValue(spec.fields()[i], partition_type->fields()[i].type, schema, file, bounds);
    if (!value) {
      return std::unexpected(std::move(value).error().WithContext(
          fmt::format("{}: its rows span more than one partition of {}", path, spec.ToString())));
    }
    file.partition.push_back(std::move(*value));
  }
  return file;
}

Status CopyParquetRows(io::FileIO& io, const std::string& path, const types::Schema& schema,
                       DataWriter& writer, int64_t* rows) {
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(input)));
  FLOE_ASSIGN_OR_RETURN(auto source, MapParquetColumns(schema, reader->schema(), path));
  const size_t width = reader->schema().fields().size();
  Arena arena;
  std::vector<types::Value> values;
  std::vector<types::Value> row(schema.fields().size());
  while (true) {
    arena.Reset();
    values.clear();
    FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, 4096, &values));
    if (n == 0) break;
    for (size_t r = 0; r < n; ++r) {
      for (size_t i = 0; i < row.size(); ++i) {
        row[i] = source[i] < 0 ? types::Value::Null() : values[r * width + source[i]];
      }
      FLOE_RETURN_IF_ERROR_CTX(writer.Write(row), "{}: row {}", path, *rows);
      ++*rows;
    }
  }
  return Ok();
}

Result<AddFilesResult> AddFiles(Table& table, const std::vector<std::string>& paths,
                                const AddFilesOptions& options) {
  const TableMetadata& metadata = table.metadata();
  const types::Schema* schema = metadata.CurrentSchema();
  const PartitionSpec* spec = metadata.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return InvalidArgument("table {} has no current schema or default partition spec",
                           table.name());
  }
  if (paths.empty()) return InvalidArgument("no files to add to {}", table.name());
  std::set<std::string> given;
  for (const auto& path : paths) {
    if (!given.insert(path).second) return InvalidArgument("{} is given twice", path);
  }
  if (options.check_duplicate_files) {
    FLOE_ASSIGN_OR_RETURN(auto live,
                          ReadLiveFiles(table.io(), metadata, metadata.CurrentSnapshot()));
    for (const auto& f : live) {
      const DataFile& d = f.entry.data_file;
      if (!d.is_delete() && given.contains(d.file_path)) {
        return AlreadyExists("table {} already has {}", table.name(), d.file_path);
      }
    }
  }
  auto append = table.NewAppend();
  AddFilesResult result;
  for (const auto& path : paths) {
    FLOE_ASSIGN_OR_RETURN(DataFile file, ParquetDataFile(table.io(), path, *schema, *spec));
    result.added_records += file.record_count;
    ++result.added_files;
    append->AppendFile(std::move(file));
  }
  FLOE_RETURN_IF_ERROR(append->Commit());
  result.snapshot_id = append->snapshot_id();
  return result;
}

}  // namespace floe::iceberg
