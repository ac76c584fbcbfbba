#include "floe/format/parquet/metadata.h"

#include <bit>
#include <initializer_list>
#include <type_traits>

#include "floe/format/parquet/page_header.h"
#include "floe/format/thrift/compact_protocol.h"

namespace floe::format::parquet {

using format::thrift::CompactReader;
using format::thrift::CompactType;
using format::thrift::CompactWriter;
using format::thrift::FieldHeader;
using format::thrift::ListHeader;

namespace {

// ---------------------------------------------------------------- parsing helpers

Status ParseStruct(CompactReader& r, Statistics* out);
Status ParseStruct(CompactReader& r, SchemaElement* out);
Status ParseStruct(CompactReader& r, KeyValue* out);
Status ParseStruct(CompactReader& r, SortingColumn* out);
Status ParseStruct(CompactReader& r, PageEncodingStats* out);
Status ParseStruct(CompactReader& r, ColumnMetaData* out);
Status ParseStruct(CompactReader& r, ColumnChunk* out);
Status ParseStruct(CompactReader& r, RowGroup* out);
Status ParseStruct(CompactReader& r, FileMetaData* out);
Status ParseStruct(CompactReader& r, DataPageHeader* out);
Status ParseStruct(CompactReader& r, DictionaryPageHeader* out);
Status ParseStruct(CompactReader& r, DataPageHeaderV2* out);
Status ParseStruct(CompactReader& r, PageHeader* out);
Status ParseStruct(CompactReader& r, LogicalType* out);
Status ParseUnion(CompactReader& r, TimeUnit* out);
Status ParseUnion(CompactReader& r, ColumnOrder* out);

template <typename T>
constexpr CompactType WireType() {
  if constexpr (std::is_same_v<T, bool>)
    return CompactType::kBoolTrue;
  else if constexpr (std::is_same_v<T, int8_t>)
    return CompactType::kByte;
  else if constexpr (std::is_same_v<T, int16_t>)
    return CompactType::kI16;
  else if constexpr (std::is_same_v<T, int32_t> || std::is_enum_v<T>) {
    if constexpr (std::is_same_v<T, TimeUnit> || std::is_same_v<T, ColumnOrder>) {
      return CompactType::kStruct;
    } else {
      return CompactType::kI32;
    }
  } else if constexpr (std::is_same_v<T, int64_t>)
    return CompactType::kI64;
  else if constexpr (std::is_same_v<T, std::string>)
    return CompactType::kBinary;
  else
    return CompactType::kStruct;
}

bool TypeMatches(CompactType got, CompactType want) {
  if (want == CompactType::kBoolTrue) {
    return got == CompactType::kBoolTrue || got == CompactType::kBoolFalse;
  }
  return got == want;
}

template <typename T>
Status ReadValue(CompactReader& r, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadBool());
  } else if constexpr (std::is_same_v<T, int8_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI8());
  } else if constexpr (std::is_same_v<T, int16_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI16());
  } else if constexpr (std::is_same_v<T, int32_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI32());
  } else if constexpr (std::is_same_v<T, TimeUnit> || std::is_same_v<T, ColumnOrder>) {
    return ParseUnion(r, out);
  } else if constexpr (std::is_enum_v<T>) {
    FLOE_ASSIGN_OR_RETURN(int32_t v, r.ReadI32());
    *out = static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    FLOE_ASSIGN_OR_RETURN(*out, r.ReadI64());
  } else if constexpr (std::is_same_v<T, std::string>) {
    FLOE_ASSIGN_OR_RETURN(std::string_view v, r.ReadBinary());
    out->assign(v);
  } else {
    return ParseStruct(r, out);
  }
  return Ok();
}

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

/// Reads the value of field `h` into `*out` if its wire type matches; skips
/// it otherwise (as generated Thrift code does). Marks `*seen` when read.
template <typename T>
Status Field(CompactReader& r, const FieldHeader& h, T* out, uint32_t* seen) {
  if constexpr (IsVector<T>::value) {
    using E = typename T::value_type;
    if (h.type != CompactType::kList && h.type != CompactType::kSet) return r.Skip(h.type);
    FLOE_ASSIGN_OR_RETURN(ListHeader lh, r.ReadListBegin());
    out->clear();
    if (!TypeMatches(lh.element_type, WireType<E>())) {
      for (uint32_t i = 0; i < lh.size; ++i) FLOE_RETURN_IF_ERROR(r.Skip(lh.element_type));
      r.ListEnd();
      return Ok();
    }
    for (uint32_t i = 0; i < lh.size; ++i) {
      E e{};
      FLOE_RETURN_IF_ERROR(ReadValue(r, &e));
      out->push_back(std::move(e));
    }
    r.ListEnd();
  } else {
    if (!TypeMatches(h.type, WireType<T>())) return r.Skip(h.type);
    FLOE_RETURN_IF_ERROR(ReadValue(r, out));
  }
  if (h.id >= 0 && h.id < 32) *seen |= 1u << h.id;
  return Ok();
}

template <typename T>
Status Field(CompactReader& r, const FieldHeader& h, std::optional<T>* out, uint32_t* seen) {
  T v{};
  uint32_t s = 0;
  FLOE_RETURN_IF_ERROR(Field(r, h, &v, &s));
  if (s != 0) {
    *out = std::move(v);
    *seen |= s;
  }
  return Ok();
}

Status Require(const CompactReader& r, uint32_t seen, uint32_t required, const char* what) {
  uint32_t missing = required & ~seen;
  if (missing != 0) {
    int id = std::countr_zero(missing);
    return Corruption("parquet {}: required field {} missing (struct ending at offset {})", what,
                      id, r.position());
  }
  return Ok();
}

constexpr uint32_t Bits(std::initializer_list<int> ids) {
  uint32_t m = 0;
  for (int id : ids) m |= 1u << id;
  return m;
}

/// Runs `body(header)` for each field of a struct; body returns a Status.
template <typename Body>
Status ForEachField(CompactReader& r, Body&& body) {
  FLOE_RETURN_IF_ERROR(r.BeginStruct());
  while (true) {
    FLOE_ASSIGN_OR_RETURN(FieldHeader h, r.ReadFieldBegin());
    if (h.type == CompactType::kStop) break;
    FLOE_RETURN_IF_ERROR(body(h));
  }
  return r.EndStruct();
}

/// A member of struct S read from the Thrift field `id`.
template <typename S, typename M>
struct Member {
  int16_t id;
  M S::*field;
};

template <typename S, typename M>
constexpr Member<S, M> At(int16_t id, M S::*field) {
  return {id, field};
}

/// Reads field `h` into the member of `*out` that `m` or `rest` gives its id;
/// skips a field no member has.
template <typename S, typename M, typename... Rest>
Status ReadMember(CompactReader& r, const FieldHeader& h, S* out, uint32_t* seen, Member<S, M> m,
                  Rest... rest) {
  if (h.id == m.id) return Field(r, h, &(out->*m.field), seen);
  if constexpr (sizeof...(rest) > 0) {
    return ReadMember(r, h, out, seen, rest...);
  } else {
    return r.Skip(h.type);
  }
}

/// Reads a struct into `*out`: each field that `members` names into its
/// member, any other field skipped. Then kCorruption naming `what` unless the
/// field ids in `required` were read.
template <typename S, typename... M>
Status ParseFields(CompactReader& r, S* out, uint32_t required, const char* what,
                   Member<S, M>... members) {
  uint32_t seen = 0;
  FLOE_RETURN_IF_ERROR(ForEachField(
      r, [&](const FieldHeader& h) -> Status { return ReadMember(r, h, out, &seen, members...); }));
  return Require(r, seen, required, what);
}

/// Reads a union whose members are all empty structs (TimeUnit, ColumnOrder):
/// the value is the field id of its first struct member.
template <typename T>
Status ParseEmptyMemberUnion(CompactReader& r, T* out, const char* what) {
  int16_t member = 0;
  FLOE_RETURN_IF_ERROR(ForEachField(r, [&](const FieldHeader& h) -> Status {
    if (member == 0 && h.type == CompactType::kStruct) member = h.id;
    return r.Skip(h.type);
  }));
  if (member == 0) return Corruption("parquet {}: empty union at offset {}", what, r.position());
  *out = static_cast<T>(member);
  return Ok();
}

// ---------------------------------------------------------------- parsers

Status ParseStruct(CompactReader& r, Statistics* s) {
  using S = Statistics;
  return ParseFields(r, s, 0, "Statistics", At(1, &S::max), At(2, &S::min), At(3, &S::null_count),
                     At(4, &S::distinct_count), At(5, &S::max_value), At(6, &S::min_value),
                     At(7, &S::is_max_value_exact), At(8, &S::is_min_value_exact),
                     At(9, &S::nan_count));
}

Status ParseUnion(CompactReader& r, TimeUnit* out) {
  return ParseEmptyMemberUnion(r, out, "TimeUnit");
}

Status ParseUnion(CompactReader& r, ColumnOrder* out) {
  return ParseEmptyMemberUnion(r, out, "ColumnOrder");
}

/// The fields of a LogicalType member struct (DECIMAL, TIME/TIMESTAMP, INTEGER).
Status ParseLogicalTypeMember(CompactReader& r, LogicalType* t) {
  using L = LogicalType;
  switch (t->kind) {
    case L::Kind::kDecimal:
      return ParseFields(r, t, Bits({1, 2}), "DecimalType", At(1, &L::scale), At(2, &L::precision));
    case L::Kind::kTime:
    case L::Kind::kTimestamp:
      return ParseFields(r, t, Bits({1, 2}), "TimestampType/TimeType",
                         At(1, &L::is_adjusted_to_utc), At(2, &L::unit));
    case L::Kind::kInteger:
      return ParseFields(r, t, Bits({1, 2}), "IntType", At(1, &L::bit_width), At(2, &L::is_signed));
    default:
      return r.Skip(CompactType::kStruct);
  }
}

Status ParseStruct(CompactReader& r, LogicalType* t) {
  int16_t member = 0;
  FLOE_RETURN_IF_ERROR(ForEachField(r, [&](const FieldHeader& h) -> Status {
    if (member != 0 || h.type != CompactType::kStruct) return r.Skip(h.type);
    member = h.id;
    t->kind = static_cast<LogicalType::Kind>(h.id);
    return ParseLogicalTypeMember(r, t);
  }));
  if (member == 0) return Corruption("parquet LogicalType: empty union at offset {}", r.position());
  return Ok();
}

Status ParseStruct(CompactReader& r, SchemaElement* e) {
  using S = SchemaElement;
  return ParseFields(r, e, Bits({4}), "SchemaElement", At(1, &S::type), At(2, &S::type_length),
                     At(3, &S::repetition_type), At(4, &S::name), At(5, &S::num_children),
                     At(6, &S::converted_type), At(7, &S::scale), At(8, &S::precision),
                     At(9, &S::field_id), At(10, &S::logical_type));
}

Status ParseStruct(CompactReader& r, KeyValue* kv) {
  return ParseFields(r, kv, Bits({1}), "KeyValue", At(1, &KeyValue::key), At(2, &KeyValue::value));
}

Status ParseStruct(CompactReader& r, SortingColumn* c) {
  using S = SortingColumn;
  return ParseFields(r, c, Bits({1, 2, 3}), "SortingColumn", At(1, &S::column_idx),
                     At(2, &S::descending), At(3, &S::nulls_first));
}

Status ParseStruct(CompactReader& r, PageEncodingStats* s) {
  using S = PageEncodingStats;
  return ParseFields(r, s, Bits({1, 2, 3}), "PageEncodingStats", At(1, &S::page_type),
                     At(2, &S::encoding), At(3, &S::count));
}

Status ParseStruct(CompactReader& r, ColumnMetaData* m) {
  using S = ColumnMetaData;
  return ParseFields(
      r, m, Bits({1, 2, 3, 4, 5, 6, 7, 9}), "ColumnMetaData", At(1, &S::type), At(2, &S::encodings),
      At(3, &S::path_in_schema), At(4, &S::codec), At(5, &S::num_values),
      At(6, &S::total_uncompressed_size), At(7, &S::total_compressed_size),
      At(8, &S::key_value_metadata), At(9, &S::data_page_offset), At(10, &S::index_page_offset),
      At(11, &S::dictionary_page_offset), At(12, &S::statistics), At(13, &S::encoding_stats),
      At(14, &S::bloom_filter_offset), At(15, &S::bloom_filter_length));
}

Status ParseStruct(CompactReader& r, ColumnChunk* c) {
  using S = ColumnChunk;
  return ParseFields(r, c, 0, "ColumnChunk", At(1, &S::file_path), At(2, &S::file_offset),
                     At(3, &S::meta_data), At(4, &S::offset_index_offset),
                     At(5, &S::offset_index_length), At(6, &S::column_index_offset),
                     At(7, &S::column_index_length));
}

Status ParseStruct(CompactReader& r, RowGroup* g) {
  using S = RowGroup;
  return ParseFields(r, g, Bits({1, 2, 3}), "RowGroup", At(1, &S::columns),
                     At(2, &S::total_byte_size), At(3, &S::num_rows), At(4, &S::sorting_columns),
                     At(5, &S::file_offset), At(6, &S::total_compressed_size), At(7, &S::ordinal));
}

Status ParseStruct(CompactReader& r, FileMetaData* f) {
  using S = FileMetaData;
  return ParseFields(r, f, Bits({1, 2, 3, 4}), "FileMetaData", At(1, &S::version),
                     At(2, &S::schema), At(3, &S::num_rows), At(4, &S::row_groups),
                     At(5, &S::key_value_metadata), At(6, &S::created_by),
                     At(7, &S::column_orders));
}

Status ParseStruct(CompactReader& r, DataPageHeader* p) {
  using S = DataPageHeader;
  return ParseFields(r, p, Bits({1, 2, 3, 4}), "DataPageHeader", At(1, &S::num_values),
                     At(2, &S::encoding), At(3, &S::definition_level_encoding),
                     At(4, &S::repetition_level_encoding), At(5, &S::statistics));
}

Status ParseStruct(CompactReader& r, DictionaryPageHeader* p) {
  using S = DictionaryPageHeader;
  return ParseFields(r, p, Bits({1, 2}), "DictionaryPageHeader", At(1, &S::num_values),
                     At(2, &S::encoding), At(3, &S::is_sorted));
}

Status ParseStruct(CompactReader& r, DataPageHeaderV2* p) {
  using S = DataPageHeaderV2;
  return ParseFields(r, p, Bits({1, 2, 3, 4, 5, 6}), "DataPageHeaderV2", At(1, &S::num_values),
                     At(2, &S::num_nulls), At(3, &S::num_rows), At(4, &S::encoding),
                     At(5, &S::definition_levels_byte_length),
                     At(6, &S::repetition_levels_byte_length), At(7, &S::is_compressed),
                     At(8, &S::statistics));
}

Status ParseStruct(CompactReader& r, PageHeader* p) {
  using S = PageHeader;
  return ParseFields(r, p, Bits({1, 2, 3}), "PageHeader", At(1, &S::type),
                     At(2, &S::uncompressed_page_size), At(3, &S::compressed_page_size),
                     At(4, &S::crc), At(5, &S::data_page_header), At(7, &S::dictionary_page_header),
                     At(8, &S::data_page_header_v2));
}

// ---------------------------------------------------------------- writers
// Each Body() writes the fields of a struct and its stop byte; the caller has
// begun the struct (BeginStruct for list elements, FieldStructBegin for fields).

void Body(CompactWriter& w, const Statistics& s) {
  if (s.max) w.FieldBinary(1, *s.max);
  if (s.min) w.FieldBinary(2, *s.min);
  if (s.null_count) w.FieldI64(3, *s.null_count);
  if (s.distinct_count) w.FieldI64(4, *s.distinct_count);
  if (s.max_value) w.FieldBinary(5, *s.max_value);
  if (s.min_value) w.FieldBinary(6, *s.min_value);
  if (s.is_max_value_exact) w.FieldBool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.FieldBool(8, *s.is_min_value_exact);
  if (s.nan_count) w.FieldI64(9, *s.nan_count);
  w.EndStruct();
}

void EmptyStructField(CompactWriter& w, int16_t id) {
  w.FieldStructBegin(id);
  w.EndStruct();
}

void Body(CompactWriter& w, const LogicalType& t) {
  w.FieldStructBegin(static_cast<int16_t>(t.kind));
  switch (t.kind) {
    case LogicalType::Kind::kDecimal:
      w.FieldI32(1, t.scale);
      w.FieldI32(2, t.precision);
      break;
    case LogicalType::Kind::kTime:
    case LogicalType::Kind::kTimestamp:
      w.FieldBool(1, t.is_adjusted_to_utc);
      w.FieldStructBegin(2);  // TimeUnit union
      EmptyStructField(w, static_cast<int16_t>(t.unit));
      w.EndStruct();
      break;
    case LogicalType::Kind::kInteger:
      w.FieldI8(1, t.bit_width);
      w.FieldBool(2, t.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

void Body(CompactWriter& w, const SchemaElement& e) {
  if (e.type) w.FieldI32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.FieldI32(2, *e.type_length);
  if (e.repetition_type) w.FieldI32(3, static_cast<int32_t>(*e.repetition_type));
  w.FieldBinary(4, e.name);
  if (e.num_children) w.FieldI32(5, *e.num_children);
  if (e.converted_type) w.FieldI32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.FieldI32(7, *e.scale);
  if (e.precision) w.FieldI32(8, *e.precision);
  if (e.field_id) w.FieldI32(9, *e.field_id);
  if (e.logical_type) {
    w.FieldStructBegin(10);
    Body(w, *e.logical_type);
  }
  w.EndStruct();
}

void Body(CompactWriter& w, const KeyValue& kv) {
  w.FieldBinary(1, kv.key);
  if (kv.value) w.FieldBinary(2, *kv.value);
  w.EndStruct();
}

void Body(CompactWriter& w, const SortingColumn& c) {
  w.FieldI32(1, c.column_idx);
  w.FieldBool(2, c.descending);
  w.FieldBool(3, c.nulls_first);
  w.EndStruct();
}

void Body(CompactWriter& w, const PageEncodingStats& s) {
  w.FieldI32(1, static_cast<int32_t>(s.page_type));
  w.FieldI32(2, static_cast<int32_t>(s.encoding));
  w.FieldI32(3, s.count);
  w.EndStruct();
}

void Body(CompactWriter& w, const ColumnMetaData& m);
void Body(CompactWriter& w, const ColumnChunk& c);
void Body(CompactWriter& w, const RowGroup& g);
void Body(CompactWriter& w, const DataPageHeader& p);
void Body(CompactWriter& w, const DictionaryPageHeader& p);
void Body(CompactWriter& w, const DataPageHeaderV2& p);

/// Writes `value` as struct field `id` when it is set.
template <typename T>
void OptionalStructField(CompactWriter& w, int16_t id, const std::optional<T>& value) {
  if (!value) return;
  w.FieldStructBegin(id);
  Body(w, *value);
}

template <typename T>
void StructList(CompactWriter& w, int16_t id, const std::vector<T>& items) {
  w.FieldListBegin(id, CompactType::kStruct, static_cast<uint32_t>(items.size()));
  for (const auto& item : items) {
    w.BeginStruct();
    Body(w, item);
  }
}

void Body(CompactWriter& w, const ColumnMetaData& m) {
  w.FieldI32(1, static_cast<int32_t>(m.type));
  w.FieldListBegin(2, CompactType::kI32, static_cast<uint32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.WriteI32(static_cast<int32_t>(e));
  w.FieldListBegin(3, CompactType::kBinary, static_cast<uint32_t>(m.path_in_schema.size()));
  for (const auto& p : m.path_in_schema) w.WriteBinary(p);
  w.FieldI32(4, static_cast<int32_t>(m.codec));
  w.FieldI64(5, m.num_values);
  w.FieldI64(6, m.total_uncompressed_size);
  w.FieldI64(7, m.total_compressed_size);
  if (m.key_value_metadata) StructList(w, 8, *m.key_value_metadata);
  w.FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) w.FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.FieldI64(11, *m.dictionary_page_offset);
  OptionalStructField(w, 12, m.statistics);
  if (m.encoding_stats) StructList(w, 13, *m.encoding_stats);
  if (m.bloom_filter_offset) w.FieldI64(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.FieldI32(15, *m.bloom_filter_length);
  w.EndStruct();
}

void Body(CompactWriter& w, const ColumnChunk& c) {
  if (c.file_path) w.FieldBinary(1, *c.file_path);
  w.FieldI64(2, c.file_offset);
  OptionalStructField(w, 3, c.meta_data);
  if (c.offset_index_offset) w.FieldI64(4, *c.offset_index_offset);
  if (c.offset_index_length) w.FieldI32(5, *c.offset_index_length);
  if (c.column_index_offset) w.FieldI64(6, *c.column_index_offset);
  if (c.column_index_length) w.FieldI32(7, *c.column_index_length);
  w.EndStruct();
}

void Body(CompactWriter& w, const RowGroup& g) {
  StructList(w, 1, g.columns);
  w.FieldI64(2, g.total_byte_size);
  w.FieldI64(3, g.num_rows);
  if (g.sorting_columns) StructList(w, 4, *g.sorting_columns);
  if (g.file_offset) w.FieldI64(5, *g.file_offset);
  if (g.total_compressed_size) w.FieldI64(6, *g.total_compressed_size);
  if (g.ordinal) w.FieldI16(7, *g.ordinal);
  w.EndStruct();
}

void Body(CompactWriter& w, const FileMetaData& f) {
  w.FieldI32(1, f.version);
  StructList(w, 2, f.schema);
  w.FieldI64(3, f.num_rows);
  StructList(w, 4, f.row_groups);
  if (f.key_value_metadata) StructList(w, 5, *f.key_value_metadata);
  if (f.created_by) w.FieldBinary(6, *f.created_by);
  if (f.column_orders) {
    w.FieldListBegin(7, CompactType::kStruct, static_cast<uint32_t>(f.column_orders->size()));
    for (ColumnOrder o : *f.column_orders) {
      w.BeginStruct();
      EmptyStructField(w, static_cast<int16_t>(o));
      w.EndStruct();
    }
  }
  w.EndStruct();
}

void Body(CompactWriter& w, const DataPageHeader& p) {
  w.FieldI32(1, p.num_values);
  w.FieldI32(2, static_cast<int32_t>(p.encoding));
  w.FieldI32(3, static_cast<int32_t>(p.definition_level_encoding));
  w.FieldI32(4, static_cast<int32_t>(p.repetition_level_encoding));
  OptionalStructField(w, 5, p.statistics);
  w.EndStruct();
}

void Body(CompactWriter& w, const DictionaryPageHeader& p) {
  w.FieldI32(1, p.num_values);
  w.FieldI32(2, static_cast<int32_t>(p.encoding));
  if (p.is_sorted) w.FieldBool(3, *p.is_sorted);
  w.EndStruct();
}

void Body(CompactWriter& w, const DataPageHeaderV2& p) {
  w.FieldI32(1, p.num_values);
  w.FieldI32(2, p.num_nulls);
  w.FieldI32(3, p.num_rows);
  w.FieldI32(4, static_cast<int32_t>(p.encoding));
  w.FieldI32(5, p.definition_levels_byte_length);
  w.FieldI32(6, p.repetition_levels_byte_length);
  if (p.is_compressed) w.FieldBool(7, *p.is_compressed);
  OptionalStructField(w, 8, p.statistics);
  w.EndStruct();
}

void Body(CompactWriter& w, const PageHeader& p) {
  w.FieldI32(1, static_cast<int32_t>(p.type));
  w.FieldI32(2, p.uncompressed_page_size);
  w.FieldI32(3, p.compressed_page_size);
  if (p.crc) w.FieldI32(4, *p.crc);
  OptionalStructField(w, 5, p.data_page_header);
  OptionalStructField(w, 7, p.dictionary_page_header);
  OptionalStructField(w, 8, p.data_page_header_v2);
  w.EndStruct();
}

bool TooLong(size_t n) { return n > static_cast<size_t>(INT32_MAX); }

Status CheckSizes(const FileMetaData& f) {
  if (TooLong(f.schema.size()) || TooLong(f.row_groups.size())) {
    return InvalidArgument("parquet footer: too many schema elements or row groups");
  }
  for (const auto& g : f.row_groups) {
    if (TooLong(g.columns.size())) return InvalidArgument("parquet footer: too many columns");
  }
  return Ok();
}

}  // namespace

Status SerializeFileMetaData(const FileMetaData& metadata, ByteBuffer* out) {
  FLOE_RETURN_IF_ERROR(CheckSizes(metadata));
  CompactWriter w(out);
  w.BeginStruct();
  Body(w, metadata);
  return Ok();
}

Result<FileMetaData> ParseFileMetaData(std::span<const uint8_t> bytes) {
  CompactReader r(bytes);
  FileMetaData f;
  FLOE_RETURN_IF_ERROR(ParseStruct(r, &f));
  return f;
}

void SerializePageHeader(const PageHeader& header, ByteBuffer* out) {
  CompactWriter w(out);
  w.BeginStruct();
  Body(w, header);
}

Result<PageHeader> ParsePageHeader(std::span<const uint8_t> bytes, size_t* consumed) {
  CompactReader r(bytes);
  PageHeader h;
  FLOE_RETURN_IF_ERROR(ParseStruct(r, &h));
  *consumed = r.position();
  return h;
}

namespace {

/// Spec names indexed by the enum's value (nullptr where the spec has none).
constexpr const char* kTypeNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
constexpr const char* kConvertedTypeNames[] = {"UTF8",
                                               "MAP",
                                               "MAP_KEY_VALUE",
                                               "LIST",
                                               "ENUM",
                                               "DECIMAL",
                                               "DATE",
                                               "TIME_MILLIS",
                                               "TIME_MICROS",
                                               "TIMESTAMP_MILLIS",
                                               "TIMESTAMP_MICROS",
                                               "UINT_8",
                                               "UINT_16",
                                               "UINT_32",
                                               "UINT_64",
                                               "INT_8",
                                               "INT_16",
                                               "INT_32",
                                               "INT_64",
                                               "JSON",
                                               "BSON",
                                               "INTERVAL"};
constexpr const char* kRepetitionNames[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
constexpr const char* kEncodingNames[] = {"PLAIN",
                                          nullptr,
                                          "PLAIN_DICTIONARY",
                                          "RLE",
                                          "BIT_PACKED",
                                          "DELTA_BINARY_PACKED",
                                          "DELTA_LENGTH_BYTE_ARRAY",
                                          "DELTA_BYTE_ARRAY",
                                          "RLE_DICTIONARY",
                                          "BYTE_STREAM_SPLIT"};
constexpr const char* kCodecNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                       "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
constexpr const char* kPageTypeNames[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE",
                                          "DATA_PAGE_V2"};

/// The name of `value` in `names`, else "UNKNOWN(<value>)".
template <typename Enum, size_t N>
std::string SpecName(const char* const (&names)[N], Enum value) {
  auto v = static_cast<int32_t>(value);
  if (v >= 0 && static_cast<size_t>(v) < N && names[v] != nullptr) return names[v];
  return fmt::format("UNKNOWN({})", v);
}

}  // namespace

std::string TypeName(Type type) { return SpecName(kTypeNames, type); }
std::string ConvertedTypeName(ConvertedType type) { return SpecName(kConvertedTypeNames, type); }
std::string RepetitionName(FieldRepetitionType repetition) {
  return SpecName(kRepetitionNames, repetition);
}
std::string EncodingName(Encoding encoding) { return SpecName(kEncodingNames, encoding); }
std::string CodecName(CompressionCodec codec) { return SpecName(kCodecNames, codec); }
std::string PageTypeName(PageType type) { return SpecName(kPageTypeNames, type); }

namespace {
const char* UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return "MILLIS";
    case TimeUnit::kMicros:
      return "MICROS";
    case TimeUnit::kNanos:
      return "NANOS";
  }
  return "UNKNOWN";
}
}  // namespace

std::string LogicalTypeToString(const LogicalType& t) {
  using K = LogicalType::Kind;
  switch (t.kind) {
    case K::kString:
      return "STRING";
    case K::kMap:
      return "MAP";
    case K::kList:
      return "LIST";
    case K::kEnum:
      return "ENUM";
    case K::kDecimal:
      return fmt::format("DECIMAL({},{})", t.precision, t.scale);
    case K::kDate:
      return "DATE";
    case K::kTime:
      return fmt::format("TIME({},{})", UnitName(t.unit), t.is_adjusted_to_utc);
    case K::kTimestamp:
      return fmt::format("TIMESTAMP({},{})", UnitName(t.unit), t.is_adjusted_to_utc);
    case K::kInteger:
      return fmt::format("INTEGER({},{})", t.bit_width, t.is_signed);
    case K::kUnknown:
      return "UNKNOWN";
    case K::kJson:
      return "JSON";
    case K::kBson:
      return "BSON";
    case K::kUuid:
      return "UUID";
    case K::kFloat16:
      return "FLOAT16";
  }
  return fmt::format("LOGICAL({})", static_cast<int>(t.kind));
}

}  // namespace floe::format::parquet
