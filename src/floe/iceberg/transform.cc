#include "floe/iceberg/transform.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "floe/common/ascii.h"
#include "floe/common/base64.h"
#include "floe/common/one_of.h"
#include "floe/iceberg/murmur3.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {

using types::Type;
using types::TypeId;
using types::TypePtr;
using types::Value;

namespace transform_util {

int32_t YearsFromDays(int32_t days) {
  int64_t year;
  unsigned month, day;
  types::CivilFromDays(days, &year, &month, &day);
  return static_cast<int32_t>(year - 1970);
}

int32_t MonthsFromDays(int32_t days) {
  int64_t year;
  unsigned month, day;
  types::CivilFromDays(days, &year, &month, &day);
  return static_cast<int32_t>((year - 1970) * 12 + (month - 1));
}

int32_t DaysFromMicros(int64_t micros) {
  return static_cast<int32_t>(FloorDiv(micros, 86'400'000'000LL));
}

int32_t HoursFromMicros(int64_t micros) {
  return static_cast<int32_t>(FloorDiv(micros, 3'600'000'000LL));
}

size_t Utf8PrefixBytes(std::string_view s, int64_t code_points) {
  size_t i = 0;
  int64_t n = 0;
  while (i < s.size() && n < code_points) {
    ++i;
    // Skip continuation bytes (10xxxxxx) of the current code point.
    while (i < s.size() && (static_cast<uint8_t>(s[i]) & 0xc0) == 0x80) ++i;
    ++n;
  }
  return i;
}

}  // namespace transform_util

using transform_util::FloorDiv;
using transform_util::FloorMod;

namespace {

bool IsTemporalDateOrTimestamp(TypeId id) {
  return OneOf(id, TypeId::kDate, TypeId::kTimestamp, TypeId::kTimestampTz);
}

Status ExpectKind(const Type& type, const Value& value, Value::Kind kind) {
  if (value.kind != kind) {
    return InvalidArgument("a {} value has the wrong representation (kind {})", type.ToString(),
                           static_cast<int>(value.kind));
  }
  return Ok();
}

void AppendPadded(int64_t v, int width, std::string* out) {
  if (v < 0) {
    out->push_back('-');
    v = -v;
  }
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  for (int n = static_cast<int>(end - buf); n < width; ++n) out->push_back('0');
  out->append(buf, end);
}

// Java's LocalTime.toString: HH:mm, then :ss if seconds or fraction, then the
// fraction in groups of three digits.
void AppendJavaTime(int64_t micros_of_day, std::string* out) {
  int64_t seconds = micros_of_day / 1'000'000;
  int64_t fraction = micros_of_day % 1'000'000;
  AppendPadded(seconds / 3600, 2, out);
  out->push_back(':');
  AppendPadded(seconds / 60 % 60, 2, out);
  if (seconds % 60 == 0 && fraction == 0) return;
  out->push_back(':');
  AppendPadded(seconds % 60, 2, out);
  if (fraction == 0) return;
  out->push_back('.');
  if (fraction % 1000 == 0) {
    AppendPadded(fraction / 1000, 3, out);
  } else {
    AppendPadded(fraction, 6, out);
  }
}

void AppendDateText(int64_t days, std::string* out) {
  types::AppendDate(static_cast<int32_t>(days), out);
}

void AppendYearMonth(int64_t months, std::string* out) {
  int64_t year = 1970 + FloorDiv(months, 12);
  int64_t month = FloorMod(months, 12) + 1;
  AppendPadded(year, 4, out);
  out->push_back('-');
  AppendPadded(month, 2, out);
}

void AppendDouble(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("NaN");
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "Infinity" : "-Infinity");
  } else {
    std::string s = fmt::format("{}", d);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    out->append(s);
  }
}

}  // namespace

void AppendHumanValue(const Type& type, const Value& value, std::string* out) {
  if (value.is_null()) {
    out->append("null");
    return;
  }
  if (value.kind != types::KindOf(type.id())) {
    out->append("?");
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      out->append(value.b ? "true" : "false");
      return;
    case TypeId::kInt:
      out->append(std::to_string(value.i32));
      return;
    case TypeId::kLong:
      out->append(std::to_string(value.i64));
      return;
    case TypeId::kFloat:
      AppendDouble(value.f32, out);
      return;
    case TypeId::kDouble:
      AppendDouble(value.f64, out);
      return;
    case TypeId::kDecimal:
      types::AppendDecimal(value.decimal, type.scale(), out);
      return;
    case TypeId::kDate:
      AppendDateText(value.i32, out);
      return;
    case TypeId::kTime:
      AppendJavaTime(FloorMod(value.i64, 86'400'000'000LL), out);
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t days = FloorDiv(value.i64, 86'400'000'000LL);
      AppendDateText(days, out);
      out->push_back('T');
      AppendJavaTime(FloorMod(value.i64, 86'400'000'000LL), out);
      if (type.id() == TypeId::kTimestampTz) out->push_back('Z');
      return;
    }
    case TypeId::kString:
      out->append(value.as_bytes());
      return;
    case TypeId::kUuid:
      if (value.size == 16) {
        types::AppendUuid(value.as_bytes(), out);
      } else {
        out->append("?");
      }
      return;
    case TypeId::kFixed:
    case TypeId::kBinary:
      Base64Encode(value.as_bytes(), out);
      return;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      out->append("?");
      return;
  }
}

Result<Transform> Transform::Bucket(int32_t num_buckets) {
  if (num_buckets <= 0) {
    return InvalidArgument("bucket transform needs a positive number of buckets, got {}",
                           num_buckets);
  }
  return Transform(TransformKind::kBucket, num_buckets);
}

Result<Transform> Transform::Truncate(int32_t width) {
  if (width <= 0) {
    return InvalidArgument("truncate transform needs a positive width, got {}", width);
  }
  return Transform(TransformKind::kTruncate, width);
}

Result<Transform> Transform::Parse(std::string_view text) {
  if (text.empty()) return InvalidArgument("empty transform name");
  std::string lower = AsciiLower(text);
  if (lower == "identity") return Identity();
  if (lower == "year") return Year();
  if (lower == "month") return Month();
  if (lower == "day") return Day();
  if (lower == "hour") return Hour();
  if (lower == "void") return Void();
  auto parse_param = [&](std::string_view prefix) -> Result<int32_t> {
    std::string_view inner(lower);
    inner.remove_prefix(prefix.size());
    if (inner.size() < 2 || inner.back() != ']') {
      return InvalidArgument("bad transform '{}': expected {}<n>]", text, prefix);
    }
    inner.remove_suffix(1);
    int32_t n = 0;
    auto [end, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (ec != std::errc() || end != inner.data() + inner.size()) {
      return InvalidArgument("bad transform '{}': '{}' is not an integer", text, inner);
    }
    return n;
  };
  if (lower.starts_with("bucket[")) {
    FLOE_ASSIGN_OR_RETURN(int32_t n, parse_param("bucket["));
    return Bucket(n);
  }
  if (lower.starts_with("truncate[")) {
    FLOE_ASSIGN_OR_RETURN(int32_t w, parse_param("truncate["));
    return Truncate(w);
  }
  Transform unknown(TransformKind::kUnknown, 0);
  unknown.unknown_name_ = std::string(text);
  return unknown;
}

bool Transform::is_time() const {
  return kind_ == TransformKind::kYear || kind_ == TransformKind::kMonth ||
         kind_ == TransformKind::kDay || kind_ == TransformKind::kHour;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return fmt::format("bucket[{}]", param_);
    case TransformKind::kTruncate:
      return fmt::format("truncate[{}]", param_);
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return unknown_name_;
  }
  return unknown_name_;
}

bool Transform::CanTransform(const Type& type) const {
  TypeId id = type.id();
  switch (kind_) {
    case TransformKind::kIdentity:
      return type.is_primitive();
    case TransformKind::kVoid:
      return true;
    case TransformKind::kBucket:
      return OneOf(id, TypeId::kInt, TypeId::kLong, TypeId::kDecimal, TypeId::kDate, TypeId::kTime,
                   TypeId::kTimestamp, TypeId::kTimestampTz, TypeId::kString, TypeId::kUuid,
                   TypeId::kFixed, TypeId::kBinary);
    case TransformKind::kTruncate:
      return OneOf(id, TypeId::kInt, TypeId::kLong, TypeId::kDecimal, TypeId::kString,
                   TypeId::kBinary);
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return IsTemporalDateOrTimestamp(id);
    case TransformKind::kHour:
      return OneOf(id, TypeId::kTimestamp, TypeId::kTimestampTz);
    case TransformKind::kUnknown:
      return false;
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const TypePtr& source) const {
  if (!CanTransform(*source)) {
    return InvalidArgument("transform {} cannot be applied to type {}", ToString(),
                           source->ToString());
  }
  switch (kind_) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
    case TransformKind::kVoid:
      return source;
    case TransformKind::kDay:
      return Type::Date();
    default:
      return Type::Int();
  }
}

Result<Value> Transform::Apply(const Type& source, const Value& value) const {
  if (kind_ == TransformKind::kUnknown) {
    return NotSupported("cannot apply unknown transform '{}'", unknown_name_);
  }
  if (!CanTransform(source)) {
    return InvalidArgument("transform {} cannot be applied to type {}", ToString(),
                           source.ToString());
  }
  if (value.is_null() || kind_ == TransformKind::kVoid) return Value::Null();
  FLOE_RETURN_IF_ERROR(ExpectKind(source, value, types::KindOf(source.id())));
  switch (kind_) {
    case TransformKind::kIdentity:
      return value;
    case TransformKind::kBucket: {
      FLOE_ASSIGN_OR_RETURN(int32_t hash, BucketHash(source, value));
      return Value::Int32(BucketOfHash(hash, param_));
    }
    case TransformKind::kTruncate:
      switch (source.id()) {
        case TypeId::kInt:
          return Value::Int32(static_cast<int32_t>(value.i32 - FloorMod(value.i32, param_)));
        case TypeId::kLong: {
          // Wraps like Java's long arithmetic at the extreme negative end.
          auto m = static_cast<uint64_t>(FloorMod(value.i64, param_));
          return Value::Int64(static_cast<int64_t>(static_cast<uint64_t>(value.i64) - m));
        }
        case TypeId::kDecimal: {
          types::int128_t w = param_;
          types::int128_t rem = value.decimal % w;
          if (rem < 0) rem += w;
          return Value::Decimal(value.decimal - rem);
        }
        case TypeId::kString: {
          std::string_view s = value.as_bytes();
          return Value::Bytes(s.substr(0, transform_util::Utf8PrefixBytes(s, param_)));
        }
        case TypeId::kBinary: {
          std::string_view s = value.as_bytes();
          return Value::Bytes(s.substr(0, static_cast<size_t>(param_)));
        }
        default:
          break;
      }
      break;
    case TransformKind::kYear:
      if (source.id() == TypeId::kDate)
        return Value::Int32(transform_util::YearsFromDays(value.i32));
      return Value::Int32(transform_util::YearsFromDays(transform_util::DaysFromMicros(value.i64)));
    case TransformKind::kMonth:
      if (source.id() == TypeId::kDate) {
        return Value::Int32(transform_util::MonthsFromDays(value.i32));
      }
      return Value::Int32(
          transform_util::MonthsFromDays(transform_util::DaysFromMicros(value.i64)));
    case TransformKind::kDay:
      if (source.id() == TypeId::kDate) return Value::Int32(value.i32);
      return Value::Int32(transform_util::DaysFromMicros(value.i64));
    case TransformKind::kHour:
      return Value::Int32(transform_util::HoursFromMicros(value.i64));
    default:
      break;
  }
  return InternalError("transform {} has no implementation for {}", ToString(), source.ToString());
}

std::string Transform::ToHumanString(const Type& source, const Value& value) const {
  std::string out;
  if (value.is_null()) return "null";
  switch (kind_) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
    case TransformKind::kVoid:
      AppendHumanValue(source, value, &out);
      break;
    case TransformKind::kBucket:
      AppendHumanValue(*Type::Int(), value, &out);
      break;
    case TransformKind::kYear:
      if (value.kind == Value::Kind::kInt32) AppendPadded(1970 + int64_t{value.i32}, 4, &out);
      break;
    case TransformKind::kMonth:
      if (value.kind == Value::Kind::kInt32) AppendYearMonth(value.i32, &out);
      break;
    case TransformKind::kDay:
      if (value.kind == Value::Kind::kInt32) AppendDateText(value.i32, &out);
      break;
    case TransformKind::kHour:
      if (value.kind == Value::Kind::kInt32) {
        int64_t hours = value.i32;
        AppendDateText(FloorDiv(hours, 24), &out);
        out.push_back('-');
        AppendPadded(FloorMod(hours, 24), 2, &out);
      }
      break;
    case TransformKind::kUnknown:
      AppendHumanValue(source, value, &out);
      break;
  }
  if (out.empty()) out = "?";
  return out;
}

bool Transform::PreservesOrder() const {
  return OneOf(kind_, TransformKind::kIdentity, TransformKind::kTruncate, TransformKind::kYear,
               TransformKind::kMonth, TransformKind::kDay, TransformKind::kHour);
}

namespace {
// Coarseness rank of the time transforms: a finer one satisfies a coarser one.
int TimeRank(TransformKind k) {
  switch (k) {
    case TransformKind::kHour:
      return 0;
    case TransformKind::kDay:
      return 1;
    case TransformKind::kMonth:
      return 2;
    case TransformKind::kYear:
      return 3;
    default:
      return -1;
  }
}
}  // namespace

bool Transform::SatisfiesOrderOf(const Transform& other, const Type* source) const {
  if (kind_ == TransformKind::kUnknown || other.kind_ == TransformKind::kUnknown) return false;
  if (*this == other) return true;
  switch (kind_) {
    case TransformKind::kIdentity:
      return other.PreservesOrder();
    case TransformKind::kTruncate:
      // Each truncate[W] group must lie inside one truncate[W'] group. For
      // numbers that needs W' to be a multiple of W; for strings and binary,
      // a longer prefix determines a shorter one.
      if (other.kind_ != TransformKind::kTruncate) return false;
      if (source == nullptr) return other.param_ == param_;
      if (source->id() == TypeId::kString || source->id() == TypeId::kBinary) {
        return param_ >= other.param_;
      }
      return other.param_ % param_ == 0;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour:
      return other.is_time() && TimeRank(kind_) <= TimeRank(other.kind_);
    default:
      return false;
  }
}

}  // namespace floe::iceberg
