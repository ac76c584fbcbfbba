#pragma once
/// floe's logical type system: the Iceberg types (format spec, "Schemas and
/// Data Types"). Every row floe moves is described by these types, whichever
/// file format carries it. Types are immutable and shared (`TypePtr`).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::types {

enum class TypeId : uint8_t {
  kBoolean,
  kInt,          ///< 32-bit signed
  kLong,         ///< 64-bit signed
  kFloat,        ///< IEEE 754 32-bit
  kDouble,       ///< IEEE 754 64-bit
  kDecimal,      ///< decimal(P,S), P <= 38
  kDate,         ///< days since 1970-01-01
  kTime,         ///< microseconds since midnight
  kTimestamp,    ///< microseconds since epoch, no zone
  kTimestampTz,  ///< microseconds since epoch, UTC
  kString,       ///< UTF-8
  kUuid,         ///< 16 bytes
  kFixed,        ///< fixed[L] bytes
  kBinary,       ///< variable bytes
  kStruct,
  kList,
  kMap,
};

class Type;
using TypePtr = std::shared_ptr<const Type>;

/// A field of a struct, the element of a list, or the key/value of a map.
struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  TypePtr type;
  std::string doc;
  /// v3 default values (spec "Default values"): the JSON single-value text as
  /// read from the schema, kept as it is. `initial_default` is the value of
  /// rows written before the field existed; `write_default` the value writers
  /// use when they are given none.
  std::optional<std::string> initial_default = std::nullopt;
  std::optional<std::string> write_default = std::nullopt;
};

class Type {
 public:
  TypeId id() const { return id_; }
  bool is_primitive() const { return id_ < TypeId::kStruct; }
  bool is_nested() const { return !is_primitive(); }

  /// decimal precision and scale.
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  /// fixed length in bytes.
  int length() const { return length_; }

  /// struct fields; list: one field named "element"; map: "key", "value".
  const std::vector<NestedField>& fields() const { return fields_; }
  const NestedField& element() const { return fields_[0]; }  ///< list only
  const NestedField& key() const { return fields_[0]; }      ///< map only
  const NestedField& value() const { return fields_[1]; }    ///< map only

  /// The spec's name: "int", "decimal(9, 2)", "fixed[16]", "struct<1: a: required int, ...>".
  std::string ToString() const;

  bool Equals(const Type& other) const;

  // Factories. Primitive singletons are shared.
  static TypePtr Boolean();
  static TypePtr Int();
  static TypePtr Long();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr Date();
  static TypePtr Time();
  static TypePtr Timestamp();
  static TypePtr TimestampTz();
  static TypePtr String();
  static TypePtr Uuid();
  static TypePtr Binary();
  /// kInvalidArgument unless 1 <= precision <= 38 and 0 <= scale <= precision.
  static Result<TypePtr> Decimal(int precision, int scale);
  /// kInvalidArgument unless length >= 1.
  static Result<TypePtr> Fixed(int length);
  static TypePtr Struct(std::vector<NestedField> fields);
  static TypePtr List(int32_t element_id, bool element_required, TypePtr element);
  static TypePtr Map(int32_t key_id, TypePtr key, int32_t value_id, bool value_required,
                     TypePtr value);

  /// Parses a primitive type name as the spec writes it in JSON: "long",
  /// "decimal(9,2)", "fixed[16]", "timestamptz". Also accepts "integer" for int.
  static Result<TypePtr> ParsePrimitive(std::string_view name);

  explicit Type(TypeId id) : id_(id) {}

 private:
  TypeId id_;
  int precision_ = 0;
  int scale_ = 0;
  int length_ = 0;
  std::vector<NestedField> fields_;
};

}  // namespace floe::types
