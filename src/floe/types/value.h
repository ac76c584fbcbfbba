#pragma once
/// `Value`: a non-owning view of one value of a row, interpreted with its
/// `Type`. Strings, bytes and nested children point into memory owned by
/// someone else (usually an `Arena` reset per batch), so building and passing
/// rows allocates nothing.
///
/// Representation by type:
///   boolean                 -> kBool
///   int, date               -> kInt32 (date: days since epoch)
///   long, time, timestamp*  -> kInt64 (micros)
///   float / double          -> kFloat / kDouble
///   decimal(P,S)            -> kDecimal (unscaled 128-bit integer)
///   string, binary, fixed   -> kBytes
///   uuid                    -> kBytes (16 raw bytes, big-endian as in the spec)
///   struct                  -> kStruct, children = fields in type order
///   list                    -> kList, children = elements
///   map                     -> kMap, children = key0, value0, key1, value1, ...
///   null of any type        -> kNull

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace floe {
class Arena;
}  // namespace floe

namespace floe::types {

enum class TypeId : uint8_t;  // type.h

using int128_t = __int128;

struct Value {
  enum class Kind : uint8_t {
    kNull,
    kBool,
    kInt32,
    kInt64,
    kFloat,
    kDouble,
    kDecimal,
    kBytes,
    kStruct,
    kList,
    kMap
  };

  Kind kind = Kind::kNull;
  uint32_t size = 0;  ///< bytes: length; struct/list: children; map: 2 * entries
  union {
    bool b;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    const char* bytes;
    const Value* children;
  };
  int128_t decimal = 0;  ///< kDecimal only (kept apart so the union stays 8 bytes)

  Value() : i64(0) {}

  static Value Null() { return Value(); }
  static Value Bool(bool v) { return Scalar(Kind::kBool, &Value::b, v); }
  static Value Int32(int32_t v) { return Scalar(Kind::kInt32, &Value::i32, v); }
  static Value Int64(int64_t v) { return Scalar(Kind::kInt64, &Value::i64, v); }
  static Value Float(float v) { return Scalar(Kind::kFloat, &Value::f32, v); }
  static Value Double(double v) { return Scalar(Kind::kDouble, &Value::f64, v); }
  static Value Decimal(int128_t unscaled) {
    return Scalar(Kind::kDecimal, &Value::decimal, unscaled);
  }
  static Value Bytes(std::string_view s) {
    Value x;
    x.kind = Kind::kBytes;
    x.bytes = s.data();
    x.size = static_cast<uint32_t>(s.size());
    return x;
  }
  static Value Struct(const Value* fields, size_t n) { return Nested(Kind::kStruct, fields, n); }
  static Value List(const Value* elements, size_t n) { return Nested(Kind::kList, elements, n); }
  /// `entries` holds 2 * n values: key, value, key, value, ...
  static Value Map(const Value* entries, size_t n) { return Nested(Kind::kMap, entries, 2 * n); }

  bool is_null() const { return kind == Kind::kNull; }
  std::string_view as_bytes() const { return {bytes, size}; }
  std::span<const Value> as_children() const { return {children, size}; }
  /// Number of map entries.
  size_t map_size() const { return size / 2; }

 private:
  /// A value of `kind` whose `member` holds `v`.
  template <typename T>
  static Value Scalar(Kind kind, T Value::*member, T v) {
    Value x;
    x.kind = kind;
    x.*member = v;
    return x;
  }
  static Value Nested(Kind kind, const Value* children, size_t n) {
    Value x;
    x.kind = kind;
    x.children = children;
    x.size = static_cast<uint32_t>(n);
    return x;
  }
};

/// A row is the values of a schema's top-level fields, in schema order.
using Row = std::span<const Value>;

/// Whether `a` and `b` are the same value: same kind and equal contents,
/// nested values element by element; floats compare as values except that
/// NaN equals NaN and -0.0 differs from +0.0 (what a reader must give back
/// bit for bit).
bool SameValue(const Value& a, const Value& b);

/// The kind a non-null value of type `id` has (the table at the top).
Value::Kind KindOf(TypeId id);

/// `value` with its bytes and nested children copied into `arena`, so that it
/// outlives the memory it pointed into.
Value DeepCopyIndirect(const Value& value, Arena* arena);
inline Value DeepCopy(const Value& value, Arena* arena) {
  switch (value.kind) {
    case Value::Kind::kBytes:
    case Value::Kind::kStruct:
    case Value::Kind::kList:
    case Value::Kind::kMap:
      return DeepCopyIndirect(value, arena);
    default:
      return value;  // held in the Value itself
  }
}

}  // namespace floe::types
