#pragma once
/// Parquet's LogicalType union and its TimeUnit (apache/parquet-format's
/// src/main/thrift/parquet.thrift and LogicalTypes.md): the annotation that
/// says how a column's physical values read (string, decimal, timestamp, ...).

#include <cstdint>
#include <string>

namespace floe::format::parquet {

/// The TimeUnit union; the value is the union member's field id.
enum class TimeUnit : int32_t {
  kMillis = 1,
  kMicros = 2,
  kNanos = 3,
};

/// The LogicalType union. `kind` is the union member's field id in the spec;
/// members floe does not model (VARIANT, GEOMETRY, ...) keep their field id.
struct LogicalType {
  enum class Kind : int16_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  ///< the spec's NullType: always null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
  };
  Kind kind = Kind::kString;
  // DECIMAL
  int32_t scale = 0;
  int32_t precision = 0;
  // TIME, TIMESTAMP
  bool is_adjusted_to_utc = false;
  TimeUnit unit = TimeUnit::kMicros;
  // INTEGER
  int8_t bit_width = 0;
  bool is_signed = true;

  static LogicalType String() { return {Kind::kString}; }
  static LogicalType Map() { return {Kind::kMap}; }
  static LogicalType List() { return {Kind::kList}; }
  static LogicalType Date() { return {Kind::kDate}; }
  static LogicalType Uuid() { return {Kind::kUuid}; }
  static LogicalType Decimal(int32_t precision, int32_t scale) {
    LogicalType t{Kind::kDecimal};
    t.precision = precision;
    t.scale = scale;
    return t;
  }
  static LogicalType Time(bool utc, TimeUnit unit) { return WithUnit(Kind::kTime, utc, unit); }
  static LogicalType Timestamp(bool utc, TimeUnit unit) {
    return WithUnit(Kind::kTimestamp, utc, unit);
  }
  static LogicalType Integer(int8_t bit_width, bool is_signed) {
    LogicalType t{Kind::kInteger};
    t.bit_width = bit_width;
    t.is_signed = is_signed;
    return t;
  }
  bool operator==(const LogicalType&) const = default;

 private:
  /// A TIME or TIMESTAMP.
  static LogicalType WithUnit(Kind kind, bool utc, TimeUnit unit) {
    LogicalType t{kind};
    t.is_adjusted_to_utc = utc;
    t.unit = unit;
    return t;
  }
};

/// "STRING", "DECIMAL(9,2)", "TIMESTAMP(MICROS,true)", "INTEGER(16,false)".
std::string LogicalTypeToString(const LogicalType& type);

}  // namespace floe::format::parquet
