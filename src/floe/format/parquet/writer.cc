#include "floe/format/parquet/writer.h"

#include <algorithm>
#include <cmath>

#include "floe/format/parquet/statistics.h"
#include "floe/types/schema_json.h"

namespace floe::format::parquet {
namespace {

using types::TypeId;
using types::Value;
using Kind = types::Value::Kind;

constexpr uint8_t kMagic[4] = {'P', 'A', 'R', '1'};

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kInt32:
      return "int32";
    case Kind::kInt64:
      return "int64";
    case Kind::kFloat:
      return "float";
    case Kind::kDouble:
      return "double";
    case Kind::kDecimal:
      return "decimal";
    case Kind::kBytes:
      return "bytes";
    case Kind::kStruct:
      return "struct";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
  }
  return "?";
}

types::int128_t Pow10(int n) {
  types::int128_t v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Converts a Parquet PLAIN statistic of `leaf` into Iceberg's single-value
// serialization (spec Appendix D).
std::string IcebergBound(const LeafColumn& leaf, std::string plain) {
  if (leaf.type->id() != TypeId::kDecimal) return plain;
  types::int128_t v = 0;
  if (leaf.physical_type == Type::kInt32) {
    v = LoadLittleEndian<int32_t>(plain.data());
  } else if (leaf.physical_type == Type::kInt64) {
    v = LoadLittleEndian<int64_t>(plain.data());
  } else {
    // Big-endian two's complement, sign-extended.
    v = static_cast<int8_t>(plain[0]) < 0 ? -1 : 0;
    for (char c : plain)
      v = static_cast<types::int128_t>((static_cast<unsigned __int128>(v) << 8) |
                                       static_cast<uint8_t>(c));
  }
  return MinimalDecimalBytes(v);
}

}  // namespace

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Open(std::unique_ptr<io::OutputFile> file,
                                                           const types::Schema& schema,
                                                           WriterOptions options) {
  if (file == nullptr) return InvalidArgument("parquet writer needs an output file");
  FLOE_RETURN_IF_ERROR(types::CheckTypeDepth(schema));
  if (options.data_page_version != 1 && options.data_page_version != 2) {
    return InvalidArgument("data page version must be 1 or 2, not {}", options.data_page_version);
  }
  if (options.page_row_limit == 0 || options.page_size_bytes == 0) {
    return InvalidArgument("page size and page row limit must be positive");
  }
  switch (options.codec) {
    case CompressionCodec::kUncompressed:
    case CompressionCodec::kSnappy:
    case CompressionCodec::kGzip:
    case CompressionCodec::kZstd:
    case CompressionCodec::kLz4Raw:
      break;
    default:
      return NotSupported("cannot write codec {}", CodecName(options.codec));
  }
  FLOE_ASSIGN_OR_RETURN(ParquetSchema mapped, MapSchema(schema));
  std::unique_ptr<ParquetWriter> writer(
      new ParquetWriter(std::move(file), schema, std::move(options), std::move(mapped)));
  FLOE_RETURN_IF_ERROR(writer->Write(kMagic));
  return writer;
}

ParquetWriter::ParquetWriter(std::unique_ptr<io::OutputFile> file, const types::Schema& schema,
                             WriterOptions options, ParquetSchema mapped)
    : file_(std::move(file)),
      schema_(schema),
      options_(std::move(options)),
      mapped_(std::move(mapped)) {
  ColumnWriterOptions column_options;
  column_options.codec = options_.codec;
  column_options.compression_level = options_.compression_level;
  column_options.page_size_bytes = options_.page_size_bytes;
  column_options.page_row_limit = options_.page_row_limit;
  column_options.dict_size_bytes = options_.dict_size_bytes;
  column_options.dictionary_enabled = options_.dictionary_enabled;
  column_options.data_page_version = options_.data_page_version;
  for (const LeafColumn& leaf : mapped_.leaves) {
    columns_.push_back(std::make_unique<ColumnWriter>(leaf, column_options));
    file_stats_.emplace_back(leaf.physical_type, leaf.type, leaf.type_length);
  }
  column_sizes_.assign(columns_.size(), 0);
  value_counts_.assign(columns_.size(), 0);
  for (const ShredNode& root : mapped_.roots) {
    const types::Type& type = *root.type;
    if (type.is_nested()) {
      flat_.clear();
      break;
    }
    FlatField f;
    f.column = columns_[root.first_leaf].get();
    f.node = &root;
    f.type = type.id();
    f.kind = types::KindOf(type.id());
    f.optional = root.optional;
    f.definition_level = root.definition_level;
    if (type.id() == TypeId::kDecimal) f.decimal_limit = Pow10(type.precision());
    if (type.id() == TypeId::kUuid) f.length = 16;
    if (type.id() == TypeId::kFixed) f.length = static_cast<uint32_t>(type.length());
    flat_.push_back(f);
  }
}

bool ParquetWriter::Fits(const FlatField& field, const Value& value) {
  if (value.kind != field.kind) return value.is_null() && field.optional;
  switch (field.type) {
    case TypeId::kDecimal:
      return value.decimal < field.decimal_limit && value.decimal > -field.decimal_limit;
    case TypeId::kUuid:
    case TypeId::kFixed:
      return value.size == field.length;
    default:
      return true;
  }
}

void ParquetWriter::AppendFlat(const FlatField& field, const Value& value) {
  ColumnWriter& column = *field.column;
  if (value.is_null()) {
    column.AppendNull(0, 0);
    return;
  }
  const int16_t def = field.definition_level;
  switch (field.type) {
    case TypeId::kBoolean:
      column.AppendBool(value.b, def, 0);
      return;
    case TypeId::kInt:
    case TypeId::kDate:
      column.AppendInt32(value.i32, def, 0);
      return;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      column.AppendInt64(value.i64, def, 0);
      return;
    case TypeId::kFloat:
      column.AppendFloat(value.f32, def, 0);
      return;
    case TypeId::kDouble:
      column.AppendDouble(value.f64, def, 0);
      return;
    case TypeId::kDecimal:
      if (column.leaf().physical_type == Type::kInt32) {
        column.AppendInt32(static_cast<int32_t>(value.decimal), def, 0);
      } else if (column.leaf().physical_type == Type::kInt64) {
        column.AppendInt64(static_cast<int64_t>(value.decimal), def, 0);
      } else {
        column.AppendDecimal(value.decimal, def, 0);
      }
      return;
    default:  // string, uuid, fixed, binary
      column.AppendBytes(value.as_bytes(), def, 0);
      return;
  }
}

ParquetWriter::~ParquetWriter() = default;

Status ParquetWriter::Write(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return Ok();
  auto status = file_->Write(bytes);
  if (!status) {
    failed_ = status.error();
    return status;
  }
  position_ += bytes.size();
  return Ok();
}

Status ParquetWriter::Validate(const ShredNode& node, const Value& value) const {
  if (value.is_null()) {
    if (!node.optional) return InvalidArgument("field '{}': required but null", node.name);
    return Ok();
  }
  const types::Type& type = *node.type;
  Kind expected = types::KindOf(type.id());
  if (value.kind != expected) {
    return InvalidArgument("field '{}': expected {}, got {}", node.name, type.ToString(),
                           KindName(value.kind));
  }
  switch (type.id()) {
    case TypeId::kDecimal: {
      types::int128_t limit = Pow10(type.precision());
      if (value.decimal >= limit || value.decimal <= -limit) {
        return InvalidArgument("field '{}': {} value out of range", node.name, type.ToString());
      }
      return Ok();
    }
    case TypeId::kUuid:
    case TypeId::kFixed: {
      uint32_t length = type.id() == TypeId::kUuid ? 16 : static_cast<uint32_t>(type.length());
      if (value.size != length) {
        return InvalidArgument("field '{}': {} needs {} bytes, got {}", node.name, type.ToString(),
                               length, value.size);
      }
      return Ok();
    }
    case TypeId::kStruct:
      if (value.size != node.children.size()) {
        return InvalidArgument("field '{}': struct has {} fields, value has {}", node.name,
                               node.children.size(), value.size);
      }
      for (size_t i = 0; i < node.children.size(); ++i) {
        FLOE_RETURN_IF_ERROR(Validate(node.children[i], value.children[i]));
      }
      return Ok();
    case TypeId::kList:
      for (uint32_t i = 0; i < value.size; ++i) {
        FLOE_RETURN_IF_ERROR(Validate(node.children[0], value.children[i]));
      }
      return Ok();
    case TypeId::kMap:
      if (value.size % 2 != 0) {
        return InvalidArgument("field '{}': map value has an odd number of children", node.name);
      }
      for (uint32_t i = 0; i < value.size; i += 2) {
        FLOE_RETURN_IF_ERROR(Validate(node.children[0], value.children[i]));
        FLOE_RETURN_IF_ERROR(Validate(node.children[1], value.children[i + 1]));
      }
      return Ok();
    default:
      return Ok();
  }
}

void ParquetWriter::ShredNulls(const ShredNode& node, int16_t def, int16_t rep) {
  for (uint32_t i = node.first_leaf; i < node.end_leaf; ++i) columns_[i]->AppendNull(def, rep);
}

void ParquetWriter::Shred(const ShredNode& node, const Value& value, int16_t parent_def,
                          int16_t rep) {
  if (value.is_null()) {
    ShredNulls(node, parent_def, rep);
    return;
  }
  const int16_t def = node.definition_level;
  const types::Type& type = *node.type;
  ColumnWriter* column = columns_[node.first_leaf].get();
  switch (type.id()) {
    case TypeId::kBoolean:
      column->AppendBool(value.b, def, rep);
      return;
    case TypeId::kInt:
    case TypeId::kDate:
      column->AppendInt32(value.i32, def, rep);
      return;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      column->AppendInt64(value.i64, def, rep);
      return;
    case TypeId::kFloat:
      column->AppendFloat(value.f32, def, rep);
      return;
    case TypeId::kDouble:
      column->AppendDouble(value.f64, def, rep);
      return;
    case TypeId::kDecimal:
      if (type.precision() <= 9) {
        column->AppendInt32(static_cast<int32_t>(value.decimal), def, rep);
      } else if (type.precision() <= 18) {
        column->AppendInt64(static_cast<int64_t>(value.decimal), def, rep);
      } else {
        column->AppendDecimal(value.decimal, def, rep);
      }
      return;
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      column->AppendBytes(value.as_bytes(), def, rep);
      return;
    case TypeId::kStruct:
      for (size_t i = 0; i < node.children.size(); ++i) {
        Shred(node.children[i], value.children[i], def, rep);
      }
      return;
    case TypeId::kList: {
      if (value.size == 0) {
        ShredNulls(node, def, rep);
        return;
      }
      const int16_t entry_def = static_cast<int16_t>(def + 1);
      for (uint32_t i = 0; i < value.size; ++i) {
        Shred(node.children[0], value.children[i], entry_def, i == 0 ? rep : node.repetition_level);
      }
      return;
    }
    case TypeId::kMap: {
      if (value.size == 0) {
        ShredNulls(node, def, rep);
        return;
      }
      const int16_t entry_def = static_cast<int16_t>(def + 1);
      for (uint32_t i = 0; i < value.size; i += 2) {
        int16_t r = i == 0 ? rep : node.repetition_level;
        Shred(node.children[0], value.children[i], entry_def, r);
        Shred(node.children[1], value.children[i + 1], entry_def, r);
      }
      return;
    }
  }
}

Status ParquetWriter::Append(types::Row row) {
  if (failed_) return std::unexpected(*failed_);
  if (closed_) return InvalidArgument("parquet writer {} is closed", file_->path());
  const std::vector<ShredNode>& roots = mapped_.roots;
  if (row.size() != roots.size()) {
    return InvalidArgument("row has {} values, schema has {} fields", row.size(), roots.size());
  }
  if (!flat_.empty()) {
    // Check every value, then write: a row that does not fit leaves nothing.
    for (size_t i = 0; i < flat_.size(); ++i) {
      if (!Fits(flat_[i], row[i])) {
        FLOE_RETURN_IF_ERROR(Validate(roots[i], row[i]));
        return InternalError("field '{}': a value refused without a reason", roots[i].name);
      }
    }
    for (size_t i = 0; i < flat_.size(); ++i) AppendFlat(flat_[i], row[i]);
  } else {
    for (size_t i = 0; i < roots.size(); ++i) FLOE_RETURN_IF_ERROR(Validate(roots[i], row[i]));
    for (size_t i = 0; i < roots.size(); ++i) Shred(roots[i], row[i], 0, 0);
  }
  // Each column may cut its page.
  for (auto& column : columns_) {
    auto status = column->EndRow();
    if (!status) {
      failed_ = status.error();
      return status;
    }
  }
  ++num_rows_;
  ++row_group_rows_;
  if (row_group_rows_ < next_size_check_) return Ok();
  // The row group's size, summed again once half of the room left (to the
  // row group's size, and to the watched file size) would be filled at its
  // average row size so far: every row near a limit, every
  // kMaxRowsBetweenSizeChecks rows far from them.
  size_t total = 0;
  for (const auto& column : columns_) total += column->EstimatedChunkBytes();
  buffered_estimate_ = total;
  if (total >= options_.row_group_size_bytes) return FlushRowGroup();
  size_t room = options_.row_group_size_bytes - total;
  if (options_.file_size_watch != 0) {
    const uint64_t file = position_ + total;
    room = file >= options_.file_size_watch
               ? 0
               : std::min<uint64_t>(room, options_.file_size_watch - file);
  }
  const size_t average = std::max<size_t>(1, total / static_cast<size_t>(row_group_rows_));
  const size_t rows = room / average / 2;
  next_size_check_ = row_group_rows_ +
                     static_cast<int64_t>(std::clamp<size_t>(rows, 1, kMaxRowsBetweenSizeChecks));
  return Ok();
}

size_t ParquetWriter::buffered_bytes() const {
  if (row_group_rows_ == 0) return 0;
  size_t tables = 0;  // the dictionaries' hash tables: memory, not file bytes
  for (const auto& column : columns_) tables += column->DictionaryTableBytes();
  return buffered_estimate_ + tables;
}

Status ParquetWriter::Flush() {
  if (failed_) return std::unexpected(*failed_);
  if (closed_) return InvalidArgument("parquet writer {} is closed", file_->path());
  return FlushRowGroup();
}

Status ParquetWriter::FlushRowGroup() {
  if (row_group_rows_ == 0) return Ok();
  RowGroup group;
  group.num_rows = row_group_rows_;
  group.ordinal = static_cast<int16_t>(row_groups_.size());
  group.file_offset = static_cast<int64_t>(position_);
  int64_t compressed_total = 0;
  for (size_t i = 0; i < columns_.size(); ++i) {
    ColumnWriter& column = *columns_[i];
    auto status = column.FinishChunk();
    if (!status) {
      failed_ = status.error();
      return status;
    }
    int64_t offset = static_cast<int64_t>(position_);
    ColumnChunkBytes bytes = column.chunk_bytes();
    FLOE_RETURN_IF_ERROR_CTX(Write(bytes.dictionary_page), "writing {}", file_->path());
    for (const PageBytes& page : bytes.data_pages) {
      FLOE_RETURN_IF_ERROR_CTX(Write(page.span()), "writing {}", file_->path());
    }
    ColumnChunk chunk;
    chunk.file_offset = offset;
    chunk.meta_data.emplace();
    column.FillMetaData(offset, &*chunk.meta_data);
    group.total_byte_size += chunk.meta_data->total_uncompressed_size;
    compressed_total += chunk.meta_data->total_compressed_size;
    column_sizes_[i] += chunk.meta_data->total_compressed_size;
    value_counts_[i] += column.chunk_num_values();
    file_stats_[i].Merge(column.statistics());
    group.columns.push_back(std::move(chunk));
    column.Reset();
  }
  group.total_compressed_size = compressed_total;
  row_groups_.push_back(std::move(group));
  row_group_rows_ = 0;
  next_size_check_ = 0;
  buffered_estimate_ = 0;
  return Ok();
}

DataFileMetrics ParquetWriter::BuildMetrics() const {
  DataFileMetrics metrics;
  metrics.record_count = num_rows_;
  metrics.file_size_in_bytes = static_cast<int64_t>(position_);
  for (const RowGroup& group : row_groups_) {
    if (!group.columns.empty()) metrics.split_offsets.push_back(group.columns[0].file_offset);
  }
  const MetricsConfig& config = options_.metrics;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const LeafColumn& leaf = mapped_.leaves[i];
    const ColumnStatistics& stats = file_stats_[i];
    metrics.column_sizes[leaf.field_id] = column_sizes_[i];
    if (config.mode == MetricsConfig::Mode::kNone) continue;
    metrics.value_counts[leaf.field_id] = value_counts_[i];
    metrics.null_value_counts[leaf.field_id] = stats.null_count();
    TypeId id = leaf.type->id();
    if (id == TypeId::kFloat || id == TypeId::kDouble) {
      metrics.nan_value_counts[leaf.field_id] = stats.nan_count();
    }
    // No bounds for uuid: readers disagree on uuid order (Iceberg Java has
    // compared them as signed longs, the spec and Parquet as unsigned bytes),
    // and a bound one reader misorders makes it skip files that match.
    if (config.mode == MetricsConfig::Mode::kCounts || leaf.in_collection || !stats.has_min_max() ||
        id == TypeId::kUuid) {
      continue;
    }
    std::string lower = IcebergBound(leaf, stats.EncodeMin());
    std::string upper = IcebergBound(leaf, stats.EncodeMax());
    bool truncate = config.mode == MetricsConfig::Mode::kTruncate;
    if (truncate && id == TypeId::kString) {
      metrics.lower_bounds[leaf.field_id] = TruncateStringLowerBound(lower, config.truncate_length);
      auto up = TruncateStringUpperBound(upper, config.truncate_length);
      if (up) metrics.upper_bounds[leaf.field_id] = std::move(*up);
    } else if (truncate && id == TypeId::kBinary) {
      metrics.lower_bounds[leaf.field_id] = TruncateBinaryLowerBound(lower, config.truncate_length);
      auto up = TruncateBinaryUpperBound(upper, config.truncate_length);
      if (up) metrics.upper_bounds[leaf.field_id] = std::move(*up);
    } else {
      metrics.lower_bounds[leaf.field_id] = std::move(lower);
      metrics.upper_bounds[leaf.field_id] = std::move(upper);
    }
  }
  return metrics;
}

Result<DataFileMetrics> ParquetWriter::Close() {
  if (failed_) return std::unexpected(*failed_);
  if (closed_) return InvalidArgument("parquet writer {} is already closed", file_->path());
  closed_ = true;
  FLOE_RETURN_IF_ERROR(FlushRowGroup());

  FileMetaData footer;
  footer.version = 1;
  footer.schema = mapped_.elements;
  footer.num_rows = num_rows_;
  footer.row_groups = std::move(row_groups_);
  std::vector<KeyValue> kv;
  kv.push_back(KeyValue{"iceberg.schema", types::SchemaToJson(schema_).dump()});
  for (const KeyValue& extra : options_.key_value_metadata) kv.push_back(extra);
  footer.key_value_metadata = std::move(kv);
  footer.created_by = options_.created_by;
  footer.column_orders =
      std::vector<ColumnOrder>(mapped_.leaves.size(), ColumnOrder::kTypeDefinedOrder);
  ByteBuffer bytes;
  FLOE_RETURN_IF_ERROR_CTX(SerializeFileMetaData(footer, &bytes), "writing the footer of {}",
                           file_->path());
  uint32_t footer_length = static_cast<uint32_t>(bytes.size());
  bytes.AppendLittleEndian(footer_length);
  bytes.Append(kMagic, 4);
  FLOE_RETURN_IF_ERROR_CTX(Write(bytes.span()), "writing {}", file_->path());
  row_groups_ = std::move(footer.row_groups);
  FLOE_RETURN_IF_ERROR_CTX(file_->Sync(), "syncing {}", file_->path());
  FLOE_RETURN_IF_ERROR_CTX(file_->Close(), "closing {}", file_->path());
  return BuildMetrics();
}

}  // namespace floe::format::parquet
