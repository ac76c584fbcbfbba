#pragma once
/// An owning, generic Avro value. Used for manifests and other metadata, not
/// for bulk data: each Datum owns its string and children. Decoding into an
/// existing Datum reuses its memory (strings and child vectors keep capacity),
/// so a reader loop that decodes record after record into one Datum allocates
/// little once warm.
///
/// A Datum has the type of the value it holds, never kUnion: a value inside a
/// union is the branch's value, and `branch()` says which branch it was
/// decoded from (or should be encoded as; -1 lets the encoder pick the first
/// branch the value fits).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/format/avro/schema.h"

namespace floe::format::avro {

class Datum {
 public:
  /// A null.
  Datum() = default;

  static Datum Null() { return Datum(); }
  static Datum Boolean(bool v);
  static Datum Int(int32_t v);
  static Datum Long(int64_t v);
  static Datum Float(float v);
  static Datum Double(double v);
  static Datum String(std::string v);
  static Datum Bytes(std::string v);
  static Datum Fixed(std::string v);
  /// An enum symbol by index into the schema's symbols.
  static Datum Enum(int32_t index);
  /// A record: one value per schema field, in schema order.
  static Datum Record(std::vector<Datum> fields);
  static Datum Array(std::vector<Datum> items);
  /// A map: keys and values in the same order.
  static Datum Map(std::vector<std::string> keys, std::vector<Datum> values);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }

  /// The union branch index (into the union's branches), -1 if none.
  int32_t branch() const { return branch_; }
  /// Returns *this with branch set, for building: `Datum::Long(5).WithBranch(1)`.
  Datum&& WithBranch(int32_t b) && {
    branch_ = b;
    return std::move(*this);
  }
  void set_branch(int32_t b) { branch_ = b; }

  // Accessors: each requires the matching type (checked by assert only).
  bool boolean() const { return scalar_.b; }
  int32_t int_value() const { return scalar_.i; }
  int64_t long_value() const { return scalar_.l; }
  float float_value() const { return scalar_.f; }
  double double_value() const { return scalar_.d; }
  /// kString, kBytes, kFixed.
  const std::string& bytes() const { return bytes_; }
  std::string* mutable_bytes() { return &bytes_; }
  /// kEnum.
  int32_t enum_index() const { return scalar_.i; }
  /// kRecord fields, kArray items, kMap values.
  const std::vector<Datum>& children() const { return children_; }
  std::vector<Datum>* mutable_children() { return &children_; }
  /// kMap keys, parallel to children().
  const std::vector<std::string>& keys() const { return keys_; }
  std::vector<std::string>* mutable_keys() { return &keys_; }

  /// kRecord: field `i` (by schema order).
  const Datum& field(size_t i) const { return children_[i]; }
  Datum* mutable_field(size_t i) { return &children_[i]; }

  /// Any integer (int or long) as int64.
  int64_t AsInt64() const { return type_ == Type::kInt ? scalar_.i : scalar_.l; }

  // Setters that keep allocated memory, for decoding in place.
  void SetNull() { type_ = Type::kNull; }
  void SetBoolean(bool v) { SetScalar(Type::kBoolean, {.b = v}); }
  void SetInt(int32_t v) { SetScalar(Type::kInt, {.i = v}); }
  void SetLong(int64_t v) { SetScalar(Type::kLong, {.l = v}); }
  void SetFloat(float v) { SetScalar(Type::kFloat, {.f = v}); }
  void SetDouble(double v) { SetScalar(Type::kDouble, {.d = v}); }
  void SetEnum(int32_t index) { SetScalar(Type::kEnum, {.i = index}); }
  /// Sets the type to kString/kBytes/kFixed and returns the (cleared) storage.
  std::string* ResetBytes(Type type) {
    type_ = type;
    bytes_.clear();
    return &bytes_;
  }
  /// Sets the type to kRecord/kArray/kMap with `n` children (kept memory reused).
  std::vector<Datum>* ResetChildren(Type type, size_t n) {
    type_ = type;
    children_.resize(n);
    if (type == Type::kMap) keys_.resize(n);
    return &children_;
  }

  /// Deep equality of value and type (branch ignored; NaN equals NaN bitwise).
  friend bool operator==(const Datum& a, const Datum& b);

  /// A short human-readable rendering, for test failure messages.
  std::string DebugString() const;

 private:
  /// The value of a kBoolean, kInt, kEnum, kLong, kFloat or kDouble.
  union Scalar {
    bool b;
    int32_t i;
    int64_t l;
    float f;
    double d;
  };

  Datum(Type type, Scalar scalar) : type_(type), scalar_(scalar) {}
  Datum(Type type, std::string bytes) : type_(type), bytes_(std::move(bytes)) {}
  Datum(Type type, std::vector<Datum> children) : type_(type), children_(std::move(children)) {}
  void SetScalar(Type type, Scalar scalar) {
    type_ = type;
    scalar_ = scalar;
  }

  Type type_ = Type::kNull;
  int32_t branch_ = -1;
  Scalar scalar_{.l = 0};
  std::string bytes_;
  std::vector<Datum> children_;
  std::vector<std::string> keys_;
};

}  // namespace floe::format::avro
