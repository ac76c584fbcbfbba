#include "floe/iceberg/manifest/manifest_avro_schema.h"

#include <array>

#include <map>
#include <mutex>
#include <set>
#include <string>

#include <fmt/format.h>

namespace floe::iceberg {

using format::avro::Datum;
using format::avro::Json;
using types::int128_t;
using types::Type;
using types::TypeId;
using types::TypePtr;
using types::Value;

namespace mf = manifest_field;
namespace lf = manifest_list_field;

int DecimalFixedSize(int precision) {
  int128_t max_unscaled = 1;
  for (int i = 0; i < precision; ++i) max_unscaled *= 10;
  max_unscaled -= 1;
  for (int n = 1; n < 16; ++n) {
    int128_t max_signed = (static_cast<int128_t>(1) << (8 * n - 1)) - 1;
    if (max_unscaled <= max_signed) return n;
  }
  return 16;
}

std::string AvroSafeName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (letter || (digit && i > 0)) {
      out.push_back(static_cast<char>(c));
    } else if (digit) {
      out.push_back('_');
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("_x{:X}", c);
    }
  }
  if (out.empty()) out.push_back('_');
  return out;
}

namespace {

/// A named type, defined inline each time: a repeated name gets a suffix
/// ("decimal_9_2_2") rather than becoming a reference, because PyIceberg's
/// Avro schema conversion does not resolve references to named types.
Json Named(std::set<std::string>* defined, const std::string& name, Json definition) {
  std::string unique = name;
  for (int k = 2; !defined->insert(unique).second; ++k) unique = fmt::format("{}_{}", name, k);
  definition["name"] = unique;
  return definition;
}

Json Optional(Json type) { return Json::array({"null", std::move(type)}); }

Json FieldJson(std::string_view name, Json type, int32_t id, bool optional) {
  Json f = Json::object();
  f["name"] = std::string(name);
  if (optional) {
    f["type"] = Optional(std::move(type));
    f["default"] = nullptr;
  } else {
    f["type"] = std::move(type);
  }
  f["field-id"] = id;
  return f;
}

/// map<int, V> as Iceberg writes maps with non-string keys: an array of
/// key/value records with logicalType "map".
Json IntMapJson(int32_t key_id, int32_t value_id, Json value_type) {
  Json record = {
      {"type", "record"},
      {"name", fmt::format("k{}_v{}", key_id, value_id)},
      {"fields", Json::array({FieldJson("key", "int", key_id, false),
                              FieldJson("value", std::move(value_type), value_id, false)})}};
  return {{"type", "array"}, {"items", std::move(record)}, {"logicalType", "map"}};
}

Json ArrayJson(Json element, int32_t element_id) {
  return {{"type", "array"}, {"items", std::move(element)}, {"element-id", element_id}};
}

Result<Json> PartitionRecordJson(const Type& partition_type, std::set<std::string>* defined) {
  if (partition_type.id() != TypeId::kStruct) {
    return InvalidArgument("partition type must be a struct, not {}", partition_type.ToString());
  }
  Json fields = Json::array();
  for (const auto& f : partition_type.fields()) {
    FLOE_ASSIGN_OR_RETURN(Json t, AvroTypeJson(*f.type, defined));
    fields.push_back(FieldJson(AvroSafeName(f.name), std::move(t), f.id, /*optional=*/true));
  }
  return Json{{"type", "record"}, {"name", "r102"}, {"fields", std::move(fields)}};
}

}  // namespace

Result<Json> AvroTypeJson(const Type& type, std::set<std::string>* defined) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return Json("boolean");
    case TypeId::kInt:
      return Json("int");
    case TypeId::kLong:
      return Json("long");
    case TypeId::kFloat:
      return Json("float");
    case TypeId::kDouble:
      return Json("double");
    case TypeId::kDate:
      return Json{{"type", "int"}, {"logicalType", "date"}};
    case TypeId::kTime:
      return Json{{"type", "long"}, {"logicalType", "time-micros"}};
    case TypeId::kTimestamp:
      return Json{{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", false}};
    case TypeId::kTimestampTz:
      return Json{{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", true}};
    case TypeId::kString:
      return Json("string");
    case TypeId::kBinary:
      return Json("bytes");
    case TypeId::kUuid:
      return Named(
          defined, "uuid_fixed",
          {{"type", "fixed"}, {"name", "uuid_fixed"}, {"size", 16}, {"logicalType", "uuid"}});
    case TypeId::kFixed: {
      std::string name = fmt::format("fixed_{}", type.length());
      return Named(defined, name, {{"type", "fixed"}, {"name", name}, {"size", type.length()}});
    }
    case TypeId::kDecimal: {
      std::string name = fmt::format("decimal_{}_{}", type.precision(), type.scale());
      return Named(defined, name,
                   {{"type", "fixed"},
                    {"name", name},
                    {"size", DecimalFixedSize(type.precision())},
                    {"logicalType", "decimal"},
                    {"precision", type.precision()},
                    {"scale", type.scale()}});
    }
    default:
      break;
  }
  return InvalidArgument("type {} cannot be a partition value", type.ToString());
}

Result<format::avro::Schema> ManifestEntryAvroSchema(int format_version,
                                                     const Type& partition_type) {
  if (format_version < 1 || format_version > 3) {
    return InvalidArgument("manifest format version {} is not 1, 2 or 3", format_version);
  }
  const bool v1 = format_version == 1;
  std::set<std::string> defined;
  FLOE_ASSIGN_OR_RETURN(Json partition, PartitionRecordJson(partition_type, &defined));
  // Every manifest of a table has the same schema: build each one once (a
  // commit of thousands of tables writes thousands of manifests). Schemas
  // share their immutable graph, so a copy is cheap.
  static std::mutex cache_mu;
  static std::map<std::string, format::avro::Schema> cache;
  std::string key = std::to_string(format_version) + partition.dump();
  {
    std::lock_guard lock(cache_mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }

  Json df = Json::array();
  if (!v1) df.push_back(FieldJson("content", "int", mf::kContent, false));
  df.push_back(FieldJson("file_path", "string", mf::kFilePath, false));
  df.push_back(FieldJson("file_format", "string", mf::kFileFormat, false));
  df.push_back(FieldJson("partition", std::move(partition), mf::kPartition, false));
  df.push_back(FieldJson("record_count", "long", mf::kRecordCount, false));
  df.push_back(FieldJson("file_size_in_bytes", "long", mf::kFileSizeInBytes, false));
  if (v1) df.push_back(FieldJson("block_size_in_bytes", "long", mf::kBlockSizeInBytes, false));
  df.push_back(FieldJson("column_sizes", IntMapJson(117, 118, "long"), mf::kColumnSizes, true));
  df.push_back(FieldJson("value_counts", IntMapJson(119, 120, "long"), mf::kValueCounts, true));
  df.push_back(
      FieldJson("null_value_counts", IntMapJson(121, 122, "long"), mf::kNullValueCounts, true));
  df.push_back(
      FieldJson("nan_value_counts", IntMapJson(138, 139, "long"), mf::kNanValueCounts, true));
  df.push_back(FieldJson("lower_bounds", IntMapJson(126, 127, "bytes"), mf::kLowerBounds, true));
  df.push_back(FieldJson("upper_bounds", IntMapJson(129, 130, "bytes"), mf::kUpperBounds, true));
  df.push_back(FieldJson("key_metadata", "bytes", mf::kKeyMetadata, true));
  df.push_back(FieldJson("split_offsets", ArrayJson("long", 133), mf::kSplitOffsets, true));
  if (!v1) df.push_back(FieldJson("equality_ids", ArrayJson("int", 136), mf::kEqualityIds, true));
  df.push_back(FieldJson("sort_order_id", "int", mf::kSortOrderId, true));
  if (format_version >= 3) {
    df.push_back(FieldJson("first_row_id", "long", mf::kFirstRowId, true));
    df.push_back(FieldJson("referenced_data_file", "string", mf::kReferencedDataFile, true));
    df.push_back(FieldJson("content_offset", "long", mf::kContentOffset, true));
    df.push_back(FieldJson("content_size_in_bytes", "long", mf::kContentSizeInBytes, true));
  }
  Json data_file = {{"type", "record"}, {"name", "r2"}, {"fields", std::move(df)}};

  Json fields = Json::array();
  fields.push_back(FieldJson("status", "int", mf::kStatus, false));
  fields.push_back(FieldJson("snapshot_id", "long", mf::kSnapshotId, /*optional=*/!v1));
  if (!v1) {
    fields.push_back(FieldJson("sequence_number", "long", mf::kSequenceNumber, true));
    fields.push_back(FieldJson("file_sequence_number", "long", mf::kFileSequenceNumber, true));
  }
  fields.push_back(FieldJson("data_file", std::move(data_file), mf::kDataFile, false));
  Json root = {{"type", "record"}, {"name", "manifest_entry"}, {"fields", std::move(fields)}};
  auto schema = format::avro::Schema::FromJson(root);
  if (!schema) {
    return std::unexpected(std::move(schema).error().WithContext("manifest_entry Avro schema"));
  }
  std::lock_guard lock(cache_mu);
  if (cache.size() >= 1024) cache.clear();  // bounded: partition types seen by one process
  cache.emplace(std::move(key), *schema);
  return schema;
}

namespace {

Result<format::avro::Schema> BuildManifestListAvroSchema(int format_version) {
  const bool v1 = format_version == 1;
  Json summary_fields =
      Json::array({FieldJson("contains_null", "boolean", lf::kContainsNull, false),
                   FieldJson("contains_nan", "boolean", lf::kContainsNan, true),
                   FieldJson("lower_bound", "bytes", lf::kLowerBound, true),
                   FieldJson("upper_bound", "bytes", lf::kUpperBound, true)});
  Json summary = {{"type", "record"}, {"name", "r508"}, {"fields", std::move(summary_fields)}};

  Json fields = Json::array();
  fields.push_back(FieldJson("manifest_path", "string", lf::kManifestPath, false));
  fields.push_back(FieldJson("manifest_length", "long", lf::kManifestLength, false));
  fields.push_back(FieldJson("partition_spec_id", "int", lf::kPartitionSpecId, false));
  if (!v1) {
    fields.push_back(FieldJson("content", "int", lf::kContent, false));
    fields.push_back(FieldJson("sequence_number", "long", lf::kSequenceNumber, false));
    fields.push_back(FieldJson("min_sequence_number", "long", lf::kMinSequenceNumber, false));
  }
  fields.push_back(FieldJson("added_snapshot_id", "long", lf::kAddedSnapshotId, false));
  fields.push_back(FieldJson("added_files_count", "int", lf::kAddedFilesCount, v1));
  fields.push_back(FieldJson("existing_files_count", "int", lf::kExistingFilesCount, v1));
  fields.push_back(FieldJson("deleted_files_count", "int", lf::kDeletedFilesCount, v1));
  fields.push_back(FieldJson("added_rows_count", "long", lf::kAddedRowsCount, v1));
  fields.push_back(FieldJson("existing_rows_count", "long", lf::kExistingRowsCount, v1));
  fields.push_back(FieldJson("deleted_rows_count", "long", lf::kDeletedRowsCount, v1));
  fields.push_back(FieldJson("partitions", ArrayJson(std::move(summary), lf::kPartitionsElement),
                             lf::kPartitions, true));
  fields.push_back(FieldJson("key_metadata", "bytes", lf::kKeyMetadata, true));
  if (format_version >= 3) {
    fields.push_back(FieldJson("first_row_id", "long", lf::kFirstRowId, true));
  }
  Json root = {{"type", "record"}, {"name", "manifest_file"}, {"fields", std::move(fields)}};
  auto schema = format::avro::Schema::FromJson(root);
  if (!schema) {
    return std::unexpected(std::move(schema).error().WithContext("manifest_file Avro schema"));
  }
  return schema;
}

}  // namespace

Result<format::avro::Schema> ManifestListAvroSchema(int format_version) {
  if (format_version < 1 || format_version > 3) {
    return InvalidArgument("manifest list format version {} is not 1, 2 or 3", format_version);
  }
  // Built once per version (every commit writes a manifest list); copies
  // share the parsed graph.
  static const std::array<Result<format::avro::Schema>, 3> kSchemas = {
      BuildManifestListAvroSchema(1), BuildManifestListAvroSchema(2),
      BuildManifestListAvroSchema(3)};
  return kSchemas[static_cast<size_t>(format_version - 1)];
}

namespace {

std::string DecimalToFixed(int128_t unscaled, int size) {
  std::string out(static_cast<size_t>(size), '\0');
  auto u = static_cast<unsigned __int128>(unscaled);
  for (int i = size - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(static_cast<uint8_t>(u & 0xff));
    u >>= 8;
  }
  return out;
}

Result<int128_t> DecimalFromBytes(std::string_view bytes, std::string_view what) {
  if (bytes.empty() || bytes.size() > 16) {
    return Corruption("{}: decimal of {} bytes", what, bytes.size());
  }
  unsigned __int128 u =
      (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes) u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<int128_t>(u);
}

}  // namespace

Result<Datum> PartitionValueToDatum(const Type& type, const Literal& literal,
                                    std::string_view what) {
  const Value& v = literal.value();
  if (literal.is_null()) return Datum::Null();
  if (literal.special() != Literal::Special::kNone) {
    return InvalidArgument("{}: an out-of-range literal is not a partition value", what);
  }
  auto mismatch = [&]() {
    return InvalidArgument("{}: value {} does not fit partition type {}", what, literal.ToString(),
                           type.ToString());
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      if (v.kind != Value::Kind::kBool) return mismatch();
      return Datum::Boolean(v.b);
    case TypeId::kInt:
    case TypeId::kDate:
      if (v.kind != Value::Kind::kInt32) return mismatch();
      return Datum::Int(v.i32);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (v.kind == Value::Kind::kInt32) return Datum::Long(v.i32);
      if (v.kind != Value::Kind::kInt64) return mismatch();
      return Datum::Long(v.i64);
    case TypeId::kFloat:
      if (v.kind != Value::Kind::kFloat) return mismatch();
      return Datum::Float(v.f32);
    case TypeId::kDouble:
      if (v.kind == Value::Kind::kFloat) return Datum::Double(v.f32);
      if (v.kind != Value::Kind::kDouble) return mismatch();
      return Datum::Double(v.f64);
    case TypeId::kDecimal:
      if (v.kind != Value::Kind::kDecimal) return mismatch();
      if (literal.type() && literal.type()->id() == TypeId::kDecimal &&
          literal.type()->scale() != type.scale()) {
        return mismatch();
      }
      return Datum::Fixed(DecimalToFixed(v.decimal, DecimalFixedSize(type.precision())));
    case TypeId::kString:
      if (v.kind != Value::Kind::kBytes) return mismatch();
      return Datum::String(std::string(v.as_bytes()));
    case TypeId::kBinary:
      if (v.kind != Value::Kind::kBytes) return mismatch();
      return Datum::Bytes(std::string(v.as_bytes()));
    case TypeId::kUuid:
      if (v.kind != Value::Kind::kBytes || v.size != 16) return mismatch();
      return Datum::Fixed(std::string(v.as_bytes()));
    case TypeId::kFixed:
      if (v.kind != Value::Kind::kBytes || static_cast<int>(v.size) != type.length()) {
        return mismatch();
      }
      return Datum::Fixed(std::string(v.as_bytes()));
    default:
      break;
  }
  return mismatch();
}

Result<Literal> PartitionValueFromDatum(const TypePtr& type, const Datum& d,
                                        std::string_view what) {
  if (d.is_null()) return Literal::Null(type);
  auto bad = [&]() {
    return Corruption("{}: Avro {} value cannot be a {} partition value", what,
                      format::avro::TypeName(d.type()), type->ToString());
  };
  const bool is_int = d.type() == format::avro::Type::kInt || d.type() == format::avro::Type::kLong;
  const bool is_bytes = d.type() == format::avro::Type::kBytes ||
                        d.type() == format::avro::Type::kFixed ||
                        d.type() == format::avro::Type::kString;
  Value v;
  switch (type->id()) {
    case TypeId::kBoolean:
      if (d.type() != format::avro::Type::kBoolean) return bad();
      v = Value::Bool(d.boolean());
      break;
    case TypeId::kInt:
    case TypeId::kDate: {
      if (!is_int) return bad();
      int64_t x = d.AsInt64();
      if (x < INT32_MIN || x > INT32_MAX) return bad();
      v = Value::Int32(static_cast<int32_t>(x));
      break;
    }
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (!is_int) return bad();
      v = Value::Int64(d.AsInt64());
      break;
    case TypeId::kFloat:
      if (d.type() != format::avro::Type::kFloat) return bad();
      v = Value::Float(d.float_value());
      break;
    case TypeId::kDouble:
      if (d.type() == format::avro::Type::kFloat) {
        v = Value::Double(d.float_value());
      } else if (d.type() == format::avro::Type::kDouble) {
        v = Value::Double(d.double_value());
      } else {
        return bad();
      }
      break;
    case TypeId::kDecimal: {
      if (d.type() != format::avro::Type::kBytes && d.type() != format::avro::Type::kFixed)
        return bad();
      FLOE_ASSIGN_OR_RETURN(int128_t unscaled, DecimalFromBytes(d.bytes(), what));
      v = Value::Decimal(unscaled);
      break;
    }
    case TypeId::kUuid:
      if (d.type() == format::avro::Type::kString && d.bytes().size() == 36) {
        auto parsed = Literal::String(d.bytes()).To(type);
        if (!parsed) return Corruption("{}: bad uuid text '{}'", what, d.bytes());
        return parsed;
      }
      if (!is_bytes || d.bytes().size() != 16) return bad();
      v = Value::Bytes(d.bytes());
      break;
    case TypeId::kFixed:
      if (!is_bytes || static_cast<int>(d.bytes().size()) != type->length()) return bad();
      v = Value::Bytes(d.bytes());
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      if (!is_bytes) return bad();
      v = Value::Bytes(d.bytes());
      break;
    default:
      return bad();
  }
  auto literal = Literal::FromValue(type, v);
  if (!literal) return Corruption("{}: {}", what, literal.error().message());
  return literal;
}

const format::avro::Node* UnwrapRecord(const format::avro::Node* node) {
  if (node == nullptr) return nullptr;
  if (node->type() == format::avro::Type::kRecord) return node;
  if (node->type() != format::avro::Type::kUnion) return nullptr;
  const format::avro::Node* found = nullptr;
  for (const format::avro::Node* b : node->branches()) {
    if (b->type() == format::avro::Type::kNull) continue;
    if (b->type() != format::avro::Type::kRecord || found != nullptr) return nullptr;
    found = b;
  }
  return found;
}

int FieldIndexById(const format::avro::Node& record, int32_t field_id) {
  const auto& fields = record.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].field_id && *fields[i].field_id == field_id) return static_cast<int>(i);
  }
  return -1;
}

Result<int64_t> DatumInteger(const format::avro::Datum& d, std::string_view what) {
  if (d.type() != format::avro::Type::kInt && d.type() != format::avro::Type::kLong) {
    return Corruption("{}: expected an integer, found Avro {}", what,
                      format::avro::TypeName(d.type()));
  }
  return d.AsInt64();
}

Result<int32_t> DatumInt32(const format::avro::Datum& d, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(int64_t v, DatumInteger(d, what));
  if (v < INT32_MIN || v > INT32_MAX) return Corruption("{}: {} does not fit an int", what, v);
  return static_cast<int32_t>(v);
}

Result<std::string> DatumText(const format::avro::Datum& d, std::string_view what) {
  if (d.type() != format::avro::Type::kString && d.type() != format::avro::Type::kBytes &&
      d.type() != format::avro::Type::kFixed) {
    return Corruption("{}: expected bytes or a string, found Avro {}", what,
                      format::avro::TypeName(d.type()));
  }
  return d.bytes();
}

Error AsManifestFileError(Error e, std::string_view kind, const std::string& path) {
  if (e.code() == ErrorCode::kSchemaIncompatible || e.code() == ErrorCode::kInvalidArgument) {
    e = Error(ErrorCode::kCorruption, e.message());
  }
  if (e.message().find(path) == std::string::npos) e.AddContext(fmt::format("{} {}", kind, path));
  return e;
}

format::avro::Datum OptionalBytesDatum(const std::optional<std::string>& v) {
  return v ? format::avro::Datum::Bytes(*v) : format::avro::Datum::Null();
}

}  // namespace floe::iceberg
