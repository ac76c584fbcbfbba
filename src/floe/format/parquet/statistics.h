#pragma once
/// Column-chunk statistics in each type's Parquet sort order
/// (parquet-format's parquet.thrift, ColumnOrder):
///   BOOLEAN, INT32, INT64 and decimals (any physical type): signed;
///   FLOAT, DOUBLE: numeric, NaN ignored (no min/max if every value is NaN),
///     a zero minimum is written as -0.0 and a zero maximum as +0.0;
///   BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY (strings, binary, fixed, uuid):
///     unsigned lexicographic bytes (which is code point order for UTF-8).
/// Not thread-safe.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/format/parquet/metadata.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::format::parquet {

/// Statistics longer than this many bytes are left out of the footer (Arrow's
/// default `max_statistics_size`); the values are still kept for metrics.
inline constexpr size_t kMaxStatisticsSize = 4096;

class ColumnStatistics {
 public:
  /// `physical` and `type` describe the column (see schema_mapping.h).
  ColumnStatistics(Type physical, const types::Type* type, int32_t type_length);

  /// BOOLEAN (0/1), INT32, INT64 and decimals stored as INT32/INT64.
  void UpdateInt(int64_t v) { Widen(v, min_int_, max_int_); }
  /// FLOAT (widened exactly) and DOUBLE; NaN is counted, not compared.
  void UpdateFloating(double v) {
    if (v != v) return;
    Widen(v, min_double_, max_double_);
  }
  /// Decimals stored as FIXED_LEN_BYTE_ARRAY, by unscaled value.
  void UpdateDecimal(types::int128_t v) { Widen(v, min_decimal_, max_decimal_); }
  /// BYTE_ARRAY and other FIXED_LEN_BYTE_ARRAY values, unsigned bytes.
  void UpdateBytes(std::string_view v) { Widen(v, min_bytes_, max_bytes_); }
  void AddNulls(int64_t n) { null_count_ += n; }
  void AddNans(int64_t n) { nan_count_ += n; }

  /// Folds `other` (same column) into this.
  void Merge(const ColumnStatistics& other);
  void Reset();

  bool has_min_max() const { return has_min_max_; }
  int64_t null_count() const { return null_count_; }
  int64_t nan_count() const { return nan_count_; }

  /// The PLAIN encoding of the minimum / maximum (no length prefix), with the
  /// float zero rules applied. Only if has_min_max().
  std::string EncodeMin() const { return Encode(true); }
  std::string EncodeMax() const { return Encode(false); }

  /// The footer Statistics: min_value/max_value, null_count, and the legacy
  /// min/max only for types whose legacy (signed) order is right.
  Statistics ToThrift() const;

 private:
  /// Widens [min, max] to hold `v`; the first value sets both. Keeps the
  /// memory of string bounds.
  template <typename V, typename T>
  void Widen(const V& v, T& min, T& max) {
    if (!has_min_max_) {
      min = v;
      max = v;
      has_min_max_ = true;
      return;
    }
    if (v < min) {
      min = v;
    } else if (v > max) {
      max = v;
    }
  }

  std::string Encode(bool min) const;

  Type physical_;
  const types::Type* type_;
  int32_t type_length_;
  bool has_min_max_ = false;
  int64_t null_count_ = 0;
  int64_t nan_count_ = 0;
  int64_t min_int_ = 0, max_int_ = 0;
  double min_double_ = 0, max_double_ = 0;
  types::int128_t min_decimal_ = 0, max_decimal_ = 0;
  std::string min_bytes_, max_bytes_;
};

/// The big-endian two's-complement bytes of `v`, `length` bytes long.
void AppendDecimalBigEndian(types::int128_t v, int length, std::string* out);
void StoreDecimalBigEndian(types::int128_t v, int length, uint8_t* out);
/// The shortest big-endian two's-complement bytes of `v` (Java's BigInteger.toByteArray()).
std::string MinimalDecimalBytes(types::int128_t v);

}  // namespace floe::format::parquet
