#include "floe/types/row_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/common/json_text.h"
#include "floe/common/number_text.h"
#include "floe/types/row_json_writer.h"
#include "floe/types/temporal.h"

namespace floe::types {

// ---------------------------------------------------------------------------
// Writing

namespace {

template <typename T>
char* WriteNumber(T v, char* out) {
  if constexpr (std::is_integral_v<T>) {
    return WriteInt64(v, out);  // stores up to kNumberStoreBound bytes
  } else {
    return std::to_chars(out, out + kTextBound, v).ptr;  // the shortest text that reads back
  }
}

template <typename F>
char* WriteFloating(F v, char* out) {
  std::string_view special = NonFiniteJson(v);
  if (special.empty()) return WriteNumber(v, out);
  std::memcpy(out, special.data(), special.size());
  return out + special.size();
}

template <typename Write>
char* Quoted(char* out, Write write) {
  *out++ = '"';
  out = write(out);
  *out++ = '"';
  return out;
}

/// Whether WritePrimitiveJson writes values of this type.
bool WrittenDirectly(const Type& type) {
  return type.is_primitive() && type.id() != TypeId::kBinary && type.id() != TypeId::kFixed;
}

/// Room for one value of a type WrittenDirectly: "null", a string's
/// JsonStringBound, kTextBound and quotes for the rest (which covers the
/// words the number and temporal writers store past their text).
static_assert(kNumberStoreBound <= kTextBound + 2);
size_t PrimitiveRoom(const Type& type, const Value& v) {
  if (v.is_null()) return 4;
  if (type.id() == TypeId::kString) return JsonStringBound(v.size);
  return kTextBound + 2;
}

/// Writes a non-null value of a type WrittenDirectly (`id`, and `scale` for
/// a decimal) into PrimitiveRoom bytes at `out`. Inlined into the writers'
/// loops, which keep each field's id and scale beside its name.
[[gnu::always_inline]] inline char* WriteNonNull(TypeId id, int scale, const Value& v, char* out) {
  switch (id) {
    case TypeId::kBoolean:
      if (v.b) {
        std::memcpy(out, "true", 4);
        return out + 4;
      }
      std::memcpy(out, "false", 5);
      return out + 5;
    case TypeId::kInt:
      return WriteNumber(v.i32, out);
    case TypeId::kLong:
      return WriteNumber(v.i64, out);
    case TypeId::kFloat:
      return WriteFloating(v.f32, out);
    case TypeId::kDouble:
      return WriteFloating(v.f64, out);
    case TypeId::kDecimal:
      return Quoted(out, [&](char* p) { return WriteDecimal(v.decimal, scale, p); });
    case TypeId::kDate:
      return Quoted(out, [&](char* p) { return WriteDate(v.i32, p); });
    case TypeId::kTime:
      return Quoted(out, [&](char* p) { return WriteTime(v.i64, p); });
    case TypeId::kTimestamp:
      return Quoted(out, [&](char* p) { return WriteTimestamp(v.i64, false, p); });
    case TypeId::kTimestampTz:
      return Quoted(out, [&](char* p) { return WriteTimestamp(v.i64, true, p); });
    case TypeId::kString:
      return WriteJsonString(v.as_bytes(), out);
    case TypeId::kUuid:
      return Quoted(out, [&](char* p) { return WriteUuid(v.as_bytes(), p); });
    default:
      return out;
  }
}

/// Writes a value of a type WrittenDirectly into PrimitiveRoom bytes at `out`.
char* WritePrimitiveJson(const Type& type, const Value& v, char* out) {
  if (v.is_null()) {
    std::memcpy(out, "null", 4);
    return out + 4;
  }
  return WriteNonNull(type.id(), type.scale(), v, out);
}

}  // namespace

void AppendValueJson(const Type& type, const Value& v, std::string* out) {
  if (WrittenDirectly(type) || v.is_null()) {
    const size_t old = out->size();
    out->resize_and_overwrite(old + PrimitiveRoom(type, v), [&](char* p, size_t) {
      return static_cast<size_t>(WritePrimitiveJson(type, v, p + old) - p);
    });
    return;
  }
  switch (type.id()) {
    case TypeId::kFixed:
    case TypeId::kBinary:
      out->push_back('"');
      Base64Encode(v.as_bytes(), out);
      out->push_back('"');
      return;
    case TypeId::kStruct: {
      out->push_back('{');
      const auto& fields = type.fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(fields[i].name, out);
        out->push_back(':');
        AppendValueJson(*fields[i].type, i < v.size ? v.children[i] : Value::Null(), out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) out->push_back(',');
        AppendValueJson(*type.element().type, v.children[i], out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      out->push_back('[');
      for (size_t i = 0; i < v.map_size(); ++i) {
        if (i > 0) out->push_back(',');
        out->append("{\"key\":");
        AppendValueJson(*type.key().type, v.children[2 * i], out);
        out->append(",\"value\":");
        AppendValueJson(*type.value().type, v.children[2 * i + 1], out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    }
    default:
      return;
  }
}

void AppendRowJson(const Schema& schema, Row row, std::string* out) {
  Value root = Value::Struct(row.data(), row.size());
  AppendValueJson(*schema.as_struct(), root, out);
}

JsonRowWriter::JsonRowWriter(const Schema& schema) : schema_(&schema) {
  const auto& fields = schema.fields();
  fixed_room_ = 2 + sizeof(Field::padded);  // "{}", and the padding of the last prefix copied
  for (size_t i = 0; i < fields.size(); ++i) {
    Field f;
    f.prefix = i == 0 ? "{" : ",";
    AppendJsonString(fields[i].name, &f.prefix);
    f.prefix.push_back(':');
    if (f.prefix.size() <= sizeof(f.padded)) {
      std::memcpy(f.padded, f.prefix.data(), f.prefix.size());
      f.padded_size = static_cast<uint8_t>(f.prefix.size());
    }
    f.type = fields[i].type.get();
    f.id = f.type->id();
    f.scale = f.type->scale();
    fixed_room_ += f.prefix.size();
    if (!WrittenDirectly(*f.type)) {
      primitive_ = false;
    } else if (f.type->id() == TypeId::kString) {
      strings_.push_back(i);
      fixed_room_ += 4;  // "null", or the quotes (and 6 bytes a byte, added per row)
    } else {
      fixed_room_ += kTextBound + 2;
    }
    fields_.push_back(std::move(f));
  }
}

void JsonRowWriter::Append(Row row, std::string* out) const {
  if (!primitive_ || row.size() != fields_.size()) {
    AppendRowJson(*schema_, row, out);
    return;
  }
  size_t room = fixed_room_;
  for (size_t i : strings_) {
    room += 6 * row[i].size;  // null: size 0
    // The bytes are often out of cache (a large dictionary or page read for
    // the whole batch): ask for all of them now rather than one at a time as
    // each string is reached.
    if (row[i].size != 0) __builtin_prefetch(row[i].bytes);
  }
  const size_t old = out->size();
  if (out->capacity() < old + room) out->reserve(std::max(old + room, 2 * out->capacity()));
  out->resize_and_overwrite(old + room, [&](char* p, size_t) {
    char* w = p + old;
    // Locals, so the stores through `w` do not make the loop reload them.
    const Field* fields = fields_.data();
    const size_t n = fields_.size();
    const Value* values = row.data();
    if (n == 0) *w++ = '{';
    for (size_t i = 0; i < n; ++i) {
      const Field& f = fields[i];
      if (f.padded_size != 0) {
        std::memcpy(w, f.padded, sizeof(f.padded));  // one fixed-size copy; the rest is overwritten
        w += f.padded_size;
      } else {
        std::memcpy(w, f.prefix.data(), f.prefix.size());
        w += f.prefix.size();
      }
      const Value& v = values[i];
      if (v.is_null()) {
        std::memcpy(w, "null", 4);
        w += 4;
      } else {
        w = WriteNonNull(f.id, f.scale, v, w);
      }
    }
    *w++ = '}';
    return static_cast<size_t>(w - p);
  });
}

}  // namespace floe::types
