#pragma once
/// Iceberg partition transforms (spec "Partition Transforms"): identity,
/// bucket[N], truncate[W], year, month, day, hour and void, with their string
/// forms, result types, application to values, human-readable partition
/// values (as Iceberg Java writes them in partition paths), and the ordering
/// facts used for pruning and sort-order checks.
///
/// A `Transform` is a small value type: copy it freely. All methods are const
/// and thread-safe. `Apply` allocates nothing: truncated strings and binaries
/// are views into the input value.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::iceberg {

enum class TransformKind : uint8_t {
  kIdentity,
  kBucket,    ///< parameter: number of buckets N > 0
  kTruncate,  ///< parameter: width W > 0
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown,  ///< a transform name floe does not know, kept verbatim (spec: readers ignore it)
};

class Transform {
 public:
  /// identity by default.
  Transform() = default;

  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  /// kInvalidArgument unless num_buckets > 0.
  static Result<Transform> Bucket(int32_t num_buckets);
  /// kInvalidArgument unless width > 0.
  static Result<Transform> Truncate(int32_t width);
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  /// Parses the spec's JSON form: "identity", "bucket[16]", "truncate[10]",
  /// "year", "month", "day", "hour", "void" (case-insensitive). Any other
  /// well-formed name becomes a kUnknown transform that prints back verbatim.
  /// kInvalidArgument for an empty string or a bad bucket/truncate parameter.
  static Result<Transform> Parse(std::string_view text);

  TransformKind kind() const { return kind_; }
  /// N of bucket[N], W of truncate[W]; 0 otherwise.
  int32_t param() const { return param_; }
  bool is_identity() const { return kind_ == TransformKind::kIdentity; }
  bool is_void() const { return kind_ == TransformKind::kVoid; }
  bool is_unknown() const { return kind_ == TransformKind::kUnknown; }
  /// year, month, day or hour.
  bool is_time() const;

  /// The spec's string form, e.g. "bucket[16]".
  std::string ToString() const;

  /// Whether this transform accepts a source column of `type` (spec table
  /// "Partition Transforms"). Unknown transforms accept nothing.
  bool CanTransform(const types::Type& type) const;

  /// The type of the transformed values: identity, truncate, void -> the
  /// source type; bucket, year, month, hour -> int; day -> date (an int of
  /// days, as Iceberg Java and PyIceberg declare it).
  /// kInvalidArgument when `CanTransform(source)` is false.
  Result<types::TypePtr> ResultType(const types::TypePtr& source) const;

  /// Transforms one value of `source` type. Null gives null; void gives null.
  /// Errors: kInvalidArgument if the transform cannot apply to the type or the
  /// value's representation does not match the type; kNotSupported for unknown
  /// transforms.
  Result<types::Value> Apply(const types::Type& source, const types::Value& value) const;

  /// The human-readable form of a transformed value, as Iceberg Java writes it
  /// in partition paths: year "2024", month "2024-02", day "2024-02-29", hour
  /// "2024-02-29-13", timestamps "2024-02-29T13:45", binary as base64, null as
  /// "null". `source` is the source column type; `value` the transformed value.
  std::string ToHumanString(const types::Type& source, const types::Value& value) const;

  /// Whether transformed values keep the order of source values (identity,
  /// truncate and the time transforms), so range predicates can be projected.
  bool PreservesOrder() const;

  /// Whether data ordered by this transform is also ordered by `other` (for
  /// example ordered by hour implies ordered by day; identity implies any
  /// order-preserving transform). Truncate needs the source type: for numbers
  /// truncate[10] implies truncate[100] (W' a multiple of W); for strings and
  /// binary truncate[5] implies truncate[3]. Without `source`, only equal
  /// truncate widths satisfy each other.
  bool SatisfiesOrderOf(const Transform& other, const types::Type* source = nullptr) const;

  bool operator==(const Transform& other) const {
    return kind_ == other.kind_ && param_ == other.param_ && unknown_name_ == other.unknown_name_;
  }

 private:
  Transform(TransformKind kind, int32_t param) : kind_(kind), param_(param) {}

  TransformKind kind_ = TransformKind::kIdentity;
  int32_t param_ = 0;
  std::string unknown_name_;
};

/// Appends the human-readable form of a non-transformed value of `type`, as
/// Iceberg Java's identity partitions print it (dates "2024-02-29", times
/// "13:45" or "13:45:30.123", timestamps "2024-02-29T13:45:30", timestamptz
/// with "Z", decimals "12.30", binary/fixed base64, uuid text, null "null").
void AppendHumanValue(const types::Type& type, const types::Value& value, std::string* out);

namespace transform_util {
/// Floor division and modulo (results rounded toward negative infinity).
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }
/// Years, months, days and hours since the epoch of a date (days) or timestamp (micros).
int32_t YearsFromDays(int32_t days);
int32_t MonthsFromDays(int32_t days);
int32_t DaysFromMicros(int64_t micros);
int32_t HoursFromMicros(int64_t micros);
/// The byte length of the first `code_points` UTF-8 code points of `s`
/// (the whole string if it has fewer).
size_t Utf8PrefixBytes(std::string_view s, int64_t code_points);
}  // namespace transform_util

}  // namespace floe::iceberg
