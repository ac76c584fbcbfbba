#pragma once
/// `Literal`: an owning, typed single value for expressions, partition tuples
/// and bounds (where a non-owning `types::Value` cannot outlive its buffer),
/// conversion of literals to a column's type when binding, and the total
/// order of primitive values used by evaluators.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::iceberg {

class Literal {
 public:
  /// Out-of-range results of narrowing conversions (a long literal bound to an
  /// int column): they compare above/below every value of the type, so
  /// binding can fold predicates to true or false, as Iceberg Java does.
  enum class Special : uint8_t { kNone, kAboveMax, kBelowMin };

  /// A null literal without a type.
  Literal() = default;

  static Literal Null(types::TypePtr type = nullptr);
  static Literal Boolean(bool v);
  static Literal Int(int32_t v);
  static Literal Long(int64_t v);
  static Literal Float(float v);
  static Literal Double(double v);
  /// kInvalidArgument unless 1 <= precision <= 38 and 0 <= scale <= precision.
  static Result<Literal> Decimal(types::int128_t unscaled, int precision, int scale);
  static Literal Date(int32_t days);
  static Literal Time(int64_t micros);
  static Literal Timestamp(int64_t micros);
  static Literal TimestampTz(int64_t micros);
  static Literal String(std::string v);
  static Literal Binary(std::string v);
  /// kInvalidArgument unless `bytes` has 16 bytes.
  static Result<Literal> Uuid(std::string bytes);
  /// kInvalidArgument on an empty value.
  static Result<Literal> Fixed(std::string bytes);
  static Literal AboveMax(types::TypePtr type);
  static Literal BelowMin(types::TypePtr type);

  /// Copies a value of `type` (bytes are copied). kInvalidArgument when the
  /// value's representation does not match the type or the type is nested.
  static Result<Literal> FromValue(const types::TypePtr& type, const types::Value& value);

  Literal(const Literal& other) { *this = other; }
  Literal& operator=(const Literal& other);
  Literal(Literal&& other) noexcept { *this = std::move(other); }
  Literal& operator=(Literal&& other) noexcept;

  /// nullptr only for the untyped null.
  const types::TypePtr& type() const { return type_; }
  bool is_null() const { return value_.is_null() && special_ == Special::kNone; }
  Special special() const { return special_; }
  bool is_above_max() const { return special_ == Special::kAboveMax; }
  bool is_below_min() const { return special_ == Special::kBelowMin; }
  /// A view of the value; bytes point into this literal, valid while it lives
  /// and is not modified. Null for AboveMax/BelowMin.
  const types::Value& value() const { return value_; }

  /// Converts to `target` for binding: widening numbers, narrowing with range
  /// checks (giving AboveMax/BelowMin), decimals rescaled exactly, strings
  /// parsed as date, time, timestamp(tz), decimal, uuid, boolean or numbers.
  /// Errors: kInvalidArgument naming the literal and the type, e.g.
  /// "cannot convert '12.345' to decimal(9, 2): more than 2 fraction digits".
  Result<Literal> To(const types::TypePtr& target) const;

  /// SQL-like text: 5, 1.5, 12.30, 'abc' (quotes doubled), '2024-01-01' for
  /// dates and '2024-01-01T00:00:00' for timestamps, X'0a0b' for binary, null.
  std::string ToString() const;

  /// Equal types (or both untyped) and equal values.
  bool operator==(const Literal& other) const;

 private:
  void Rebind();

  types::TypePtr type_;
  types::Value value_;
  std::string bytes_;  ///< storage for kBytes values
  Special special_ = Special::kNone;
};

/// Three-way comparison of two non-null values of one primitive type.
/// Numbers by value (floats in the spec's total order: -NaN < -inf < ... <
/// -0 < 0 < ... < inf < NaN), strings and binary by unsigned bytes (which is
/// code point order for UTF-8), uuid by big-endian bytes. Nulls sort first.
int CompareValues(const types::Type& type, const types::Value& a, const types::Value& b);

/// True for a float or double NaN value.
bool IsNaN(const types::Value& v);

}  // namespace floe::iceberg
