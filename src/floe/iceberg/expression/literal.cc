#include "floe/iceberg/expression/literal.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "floe/common/quote.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {

using types::int128_t;
using types::Type;
using types::TypeId;
using types::TypePtr;
using types::Value;

namespace {

int128_t Pow10(int n) {
  int128_t r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

int128_t MaxUnscaled(int precision) { return Pow10(precision) - 1; }

std::string Int128ToString(int128_t v) {
  std::string out;
  types::AppendDecimal(v, 0, &out);
  return out;
}

}  // namespace

Literal& Literal::operator=(const Literal& other) {
  if (this == &other) return *this;
  type_ = other.type_;
  value_ = other.value_;
  bytes_ = other.bytes_;
  special_ = other.special_;
  Rebind();
  return *this;
}

Literal& Literal::operator=(Literal&& other) noexcept {
  if (this == &other) return *this;
  type_ = std::move(other.type_);
  value_ = other.value_;
  bytes_ = std::move(other.bytes_);
  special_ = other.special_;
  Rebind();
  return *this;
}

void Literal::Rebind() {
  if (value_.kind == Value::Kind::kBytes) value_ = Value::Bytes(bytes_);
}

Literal Literal::Null(TypePtr type) {
  Literal l;
  l.type_ = std::move(type);
  return l;
}

#define FLOE_SIMPLE_LITERAL_(Name, TypeFactory, ValueFactory, CType) \
  Literal Literal::Name(CType v) {                                   \
    Literal l;                                                       \
    l.type_ = Type::TypeFactory();                                   \
    l.value_ = Value::ValueFactory(v);                               \
    return l;                                                        \
  }
FLOE_SIMPLE_LITERAL_(Boolean, Boolean, Bool, bool)
FLOE_SIMPLE_LITERAL_(Int, Int, Int32, int32_t)
FLOE_SIMPLE_LITERAL_(Long, Long, Int64, int64_t)
FLOE_SIMPLE_LITERAL_(Float, Float, Float, float)
FLOE_SIMPLE_LITERAL_(Double, Double, Double, double)
FLOE_SIMPLE_LITERAL_(Date, Date, Int32, int32_t)
FLOE_SIMPLE_LITERAL_(Time, Time, Int64, int64_t)
FLOE_SIMPLE_LITERAL_(Timestamp, Timestamp, Int64, int64_t)
FLOE_SIMPLE_LITERAL_(TimestampTz, TimestampTz, Int64, int64_t)
#undef FLOE_SIMPLE_LITERAL_

Result<Literal> Literal::Decimal(int128_t unscaled, int precision, int scale) {
  FLOE_ASSIGN_OR_RETURN(TypePtr type, Type::Decimal(precision, scale));
  if (unscaled > MaxUnscaled(precision) || unscaled < -MaxUnscaled(precision)) {
    return InvalidArgument("unscaled value {} does not fit decimal({}, {})",
                           Int128ToString(unscaled), precision, scale);
  }
  Literal l;
  l.type_ = std::move(type);
  l.value_ = Value::Decimal(unscaled);
  return l;
}

Literal Literal::String(std::string v) {
  Literal l;
  l.type_ = Type::String();
  l.bytes_ = std::move(v);
  l.value_ = Value::Bytes(l.bytes_);
  return l;
}

Literal Literal::Binary(std::string v) {
  Literal l = String(std::move(v));
  l.type_ = Type::Binary();
  return l;
}

Result<Literal> Literal::Uuid(std::string bytes) {
  if (bytes.size() != 16) return InvalidArgument("a uuid has 16 bytes, got {}", bytes.size());
  Literal l = String(std::move(bytes));
  l.type_ = Type::Uuid();
  return l;
}

Result<Literal> Literal::Fixed(std::string bytes) {
  FLOE_ASSIGN_OR_RETURN(TypePtr type, Type::Fixed(static_cast<int>(bytes.size())));
  Literal l = String(std::move(bytes));
  l.type_ = std::move(type);
  return l;
}

Literal Literal::AboveMax(TypePtr type) {
  Literal l;
  l.type_ = std::move(type);
  l.special_ = Special::kAboveMax;
  return l;
}

Literal Literal::BelowMin(TypePtr type) {
  Literal l;
  l.type_ = std::move(type);
  l.special_ = Special::kBelowMin;
  return l;
}

Result<Literal> Literal::FromValue(const TypePtr& type, const Value& value) {
  if (!type || !type->is_primitive()) {
    return InvalidArgument("literals must have a primitive type");
  }
  if (value.is_null()) return Null(type);
  if (value.kind != types::KindOf(type->id())) {
    return InvalidArgument("a {} value has the wrong representation (kind {})", type->ToString(),
                           static_cast<int>(value.kind));
  }
  Literal l;
  l.type_ = type;
  if (value.kind == Value::Kind::kBytes) {
    l.bytes_.assign(value.bytes, value.size);
    l.value_ = Value::Bytes(l.bytes_);
  } else {
    l.value_ = value;
  }
  return l;
}

bool Literal::operator==(const Literal& other) const {
  if (special_ != other.special_) return false;
  if ((type_ == nullptr) != (other.type_ == nullptr)) return false;
  if (type_ && !type_->Equals(*other.type_)) return false;
  if (value_.is_null() || other.value_.is_null()) return value_.is_null() == other.value_.is_null();
  return CompareValues(*type_, value_, other.value_) == 0;
}

std::string Literal::ToString() const {
  if (special_ == Special::kAboveMax) return "<above max>";
  if (special_ == Special::kBelowMin) return "<below min>";
  if (value_.is_null() || !type_) return "null";
  std::string out;
  auto quoted = [&](std::string_view s) { AppendSqlQuoted(s, '\'', &out); };
  switch (type_->id()) {
    case TypeId::kBoolean:
      return value_.b ? "true" : "false";
    case TypeId::kInt:
      return std::to_string(value_.i32);
    case TypeId::kLong:
      return std::to_string(value_.i64);
    case TypeId::kFloat:
      return fmt::format("{}", value_.f32);
    case TypeId::kDouble:
      return fmt::format("{}", value_.f64);
    case TypeId::kDecimal:
      types::AppendDecimal(value_.decimal, type_->scale(), &out);
      return out;
    case TypeId::kDate: {
      std::string s;
      types::AppendDate(value_.i32, &s);
      quoted(s);
      return out;
    }
    case TypeId::kTime: {
      std::string s;
      types::AppendTime(value_.i64, &s);
      quoted(s);
      return out;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      std::string s;
      types::AppendTimestamp(value_.i64, type_->id() == TypeId::kTimestampTz, &s);
      quoted(s);
      return out;
    }
    case TypeId::kString:
      quoted(value_.as_bytes());
      return out;
    case TypeId::kUuid: {
      std::string s;
      types::AppendUuid(value_.as_bytes(), &s);
      quoted(s);
      return out;
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      out = "X'";
      static constexpr char kHex[] = "0123456789abcdef";
      for (char c : value_.as_bytes()) {
        out.push_back(kHex[static_cast<uint8_t>(c) >> 4]);
        out.push_back(kHex[static_cast<uint8_t>(c) & 15]);
      }
      out.push_back('\'');
      return out;
    }
    default:
      return "?";
  }
}

namespace {

// Converts an integer (from any integral literal) to a target type.
Result<Literal> IntegerTo(int128_t v, const TypePtr& target, const std::string& text) {
  switch (target->id()) {
    case TypeId::kInt:
      if (v > std::numeric_limits<int32_t>::max()) return Literal::AboveMax(target);
      if (v < std::numeric_limits<int32_t>::min()) return Literal::BelowMin(target);
      return Literal::Int(static_cast<int32_t>(v));
    case TypeId::kDate:
      if (v > std::numeric_limits<int32_t>::max()) return Literal::AboveMax(target);
      if (v < std::numeric_limits<int32_t>::min()) return Literal::BelowMin(target);
      return Literal::Date(static_cast<int32_t>(v));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      if (v > std::numeric_limits<int64_t>::max()) return Literal::AboveMax(target);
      if (v < std::numeric_limits<int64_t>::min()) return Literal::BelowMin(target);
      Literal l = Literal::Long(static_cast<int64_t>(v));
      return Literal::FromValue(target, l.value());
    }
    case TypeId::kFloat:
      return Literal::Float(static_cast<float>(v));
    case TypeId::kDouble:
      return Literal::Double(static_cast<double>(v));
    case TypeId::kDecimal: {
      int128_t max = MaxUnscaled(target->precision());
      int128_t limit = max / Pow10(target->scale());
      if (v > limit) return Literal::AboveMax(target);
      if (v < -limit) return Literal::BelowMin(target);
      return Literal::Decimal(v * Pow10(target->scale()), target->precision(), target->scale());
    }
    default:
      break;
  }
  return InvalidArgument("cannot convert {} to {}", text, target->ToString());
}

Result<double> ParseDouble(std::string_view s) {
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return InvalidArgument("'{}' is not a number", s);
  }
  return d;
}

Result<Literal> CheckNotNaN(Literal l, const std::string& text) {
  if (IsNaN(l.value())) {
    return InvalidArgument("NaN literal {} is not allowed in comparisons; use IS NAN", text);
  }
  return l;
}

// One conversion of a literal: its text and types, and its error words.
struct Conversion {
  const std::string& text;
  const Type& from;
  const TypePtr& target;

  // "cannot convert <text> to <target>: <why>", or without a reason the
  // literal's type instead.
  Result<Literal> Fail(std::string_view why) const {
    if (why.empty()) {
      return InvalidArgument("cannot convert {} ({}) to {}", text, from.ToString(),
                             target->ToString());
    }
    return InvalidArgument("cannot convert {} to {}: {}", text, target->ToString(), why);
  }
};

Result<Literal> FloatingTo(double d, const Conversion& c) {
  const TypeId to = c.target->id();
  if (to == TypeId::kDouble) return CheckNotNaN(Literal::Double(d), c.text);
  if (to == TypeId::kFloat) {
    if (d > std::numeric_limits<float>::max()) return Literal::AboveMax(c.target);
    if (d < -std::numeric_limits<float>::max()) return Literal::BelowMin(c.target);
    return CheckNotNaN(Literal::Float(static_cast<float>(d)), c.text);
  }
  return c.Fail("");
}

// A decimal rescaled to another decimal type: exact, or an error or a bound.
Result<Literal> DecimalToDecimal(int128_t v, int from_scale, const Conversion& c) {
  const TypePtr& target = c.target;
  int to_scale = target->scale();
  if (from_scale > to_scale) {
    int128_t div = Pow10(from_scale - to_scale);
    if (v % div != 0) return c.Fail(fmt::format("more than {} fraction digits", to_scale));
    v /= div;
  } else {
    int128_t mul = Pow10(to_scale - from_scale);
    int128_t max = MaxUnscaled(target->precision());
    if (v > max / mul) return Literal::AboveMax(target);
    if (v < -(max / mul)) return Literal::BelowMin(target);
    v *= mul;
  }
  int128_t max = MaxUnscaled(target->precision());
  if (v > max) return Literal::AboveMax(target);
  if (v < -max) return Literal::BelowMin(target);
  return Literal::Decimal(v, target->precision(), target->scale());
}

Result<Literal> DecimalTo(int128_t v, int from_scale, const Conversion& c) {
  const TypeId to = c.target->id();
  if (to == TypeId::kDecimal) return DecimalToDecimal(v, from_scale, c);
  if (to == TypeId::kFloat || to == TypeId::kDouble) {
    FLOE_ASSIGN_OR_RETURN(double d, ParseDouble(c.text));
    return to == TypeId::kFloat ? Literal::Float(static_cast<float>(d)) : Literal::Double(d);
  }
  if (to == TypeId::kInt || to == TypeId::kLong) {
    int128_t div = Pow10(from_scale);
    if (v % div != 0) return c.Fail("it has a fraction");
    return IntegerTo(v / div, c.target, c.text);
  }
  return c.Fail("");
}

// A string parsed as a date, time or timestamp (a bare date means its midnight).
Result<Literal> StringToTemporal(std::string_view s, const Conversion& c) {
  switch (c.target->id()) {
    case TypeId::kDate: {
      auto r = types::ParseDate(s);
      if (!r) return c.Fail(r.error().message());
      return Literal::Date(*r);
    }
    case TypeId::kTime: {
      auto r = types::ParseTime(s);
      if (!r) return c.Fail(r.error().message());
      return Literal::Time(*r);
    }
    default: {
      auto r = types::ParseTimestamp(s);
      if (!r) {
        auto d = types::ParseDate(s);
        if (!d) return c.Fail(r.error().message());
        r = int64_t{*d} * 86'400'000'000LL;
      }
      return c.target->id() == TypeId::kTimestamp ? Literal::Timestamp(*r)
                                                  : Literal::TimestampTz(*r);
    }
  }
}

// A string literal's text parsed as the target type (`value` is the string).
Result<Literal> StringTo(std::string_view s, const Value& value, const Conversion& c) {
  const TypePtr& target = c.target;
  const TypeId to = target->id();
  switch (to) {
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return StringToTemporal(s, c);
    case TypeId::kDecimal: {
      auto r = types::ParseDecimal(s, target->precision(), target->scale());
      if (!r) return c.Fail(r.error().message());
      return Literal::Decimal(*r, target->precision(), target->scale());
    }
    case TypeId::kUuid: {
      std::string bytes;
      auto st = types::ParseUuid(s, &bytes);
      if (!st) return c.Fail(st.error().message());
      return Literal::Uuid(std::move(bytes));
    }
    case TypeId::kBoolean:
      if (s == "true" || s == "TRUE") return Literal::Boolean(true);
      if (s == "false" || s == "FALSE") return Literal::Boolean(false);
      return c.Fail("expected true or false");
    case TypeId::kInt:
    case TypeId::kLong: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size()) return c.Fail("not an integer");
      return IntegerTo(v, target, c.text);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      auto d = ParseDouble(s);
      if (!d) return c.Fail("not a number");
      return CheckNotNaN(
          to == TypeId::kFloat ? Literal::Float(static_cast<float>(*d)) : Literal::Double(*d),
          c.text);
    }
    case TypeId::kBinary:
      return Literal::Binary(std::string(s));
    case TypeId::kFixed:
      if (static_cast<int>(s.size()) != target->length()) {
        return c.Fail(fmt::format("{} bytes, expected {}", s.size(), target->length()));
      }
      return Literal::FromValue(target, value);
    default:
      return c.Fail("");
  }
}

// Binary or fixed bytes as binary, or as fixed of their own length.
Result<Literal> BytesTo(const Value& value, const Conversion& c) {
  const TypeId to = c.target->id();
  if (to == TypeId::kBinary) return Literal::Binary(std::string(value.as_bytes()));
  if (to == TypeId::kFixed) {
    if (static_cast<int>(value.size) != c.target->length()) {
      return c.Fail(fmt::format("{} bytes, expected {}", value.size, c.target->length()));
    }
    return Literal::FromValue(c.target, value);
  }
  return c.Fail("");
}

}  // namespace

Result<Literal> Literal::To(const TypePtr& target) const {
  if (!target || !target->is_primitive()) {
    return InvalidArgument("cannot convert {} to a non-primitive type", ToString());
  }
  if (special_ != Special::kNone) {
    return InvalidArgument("cannot convert an out-of-range literal");
  }
  if (value_.is_null()) return Null(target);
  if (type_->Equals(*target)) return *this;
  const std::string text = ToString();
  const Conversion conversion{text, *type_, target};
  const TypeId to = target->id();
  switch (type_->id()) {
    case TypeId::kInt:
      return IntegerTo(value_.i32, target, text);
    case TypeId::kLong:
      return IntegerTo(value_.i64, target, text);
    case TypeId::kFloat:
      return FloatingTo(value_.f32, conversion);
    case TypeId::kDouble:
      return FloatingTo(value_.f64, conversion);
    case TypeId::kDecimal:
      return DecimalTo(value_.decimal, type_->scale(), conversion);
    case TypeId::kString:
      return StringTo(value_.as_bytes(), value_, conversion);
    case TypeId::kBinary:
    case TypeId::kFixed:
      return BytesTo(value_, conversion);
    case TypeId::kDate:
      if (to == TypeId::kTimestamp || to == TypeId::kTimestampTz) {
        int64_t micros = int64_t{value_.i32} * 86'400'000'000LL;
        return to == TypeId::kTimestamp ? Timestamp(micros) : TimestampTz(micros);
      }
      return conversion.Fail("");
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (to == TypeId::kTimestamp) return Timestamp(value_.i64);
      if (to == TypeId::kTimestampTz) return TimestampTz(value_.i64);
      return conversion.Fail("");
    default:
      return conversion.Fail("");
  }
}

bool IsNaN(const Value& v) {
  if (v.kind == Value::Kind::kDouble) return std::isnan(v.f64);
  if (v.kind == Value::Kind::kFloat) return std::isnan(v.f32);
  return false;
}

namespace {

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// The spec's float order: -NaN < -inf < ... < -0 < 0 < ... < inf < NaN.
int CompareDouble(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) {
    int ra = an ? (std::signbit(a) ? -2 : 2) : 0;
    int rb = bn ? (std::signbit(b) ? -2 : 2) : 0;
    if (ra != rb) return Cmp(ra, rb);
    return 0;
  }
  if (a == 0 && b == 0) return Cmp(std::signbit(b), std::signbit(a));
  return Cmp(a, b);
}

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

}  // namespace

int CompareValues(const Type& type, const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return Cmp(!a.is_null(), !b.is_null());
  switch (a.kind) {
    case Value::Kind::kBool:
      return Cmp(a.b, b.b);
    case Value::Kind::kInt32:
      return Cmp(a.i32, b.i32);
    case Value::Kind::kInt64:
      return Cmp(a.i64, b.i64);
    case Value::Kind::kFloat:
      return CompareDouble(a.f32, b.f32);
    case Value::Kind::kDouble:
      return CompareDouble(a.f64, b.f64);
    case Value::Kind::kDecimal:
      return Cmp(a.decimal, b.decimal);
    case Value::Kind::kBytes:
      return CompareBytes(a.as_bytes(), b.as_bytes());
    default:
      return 0;
  }
}

}  // namespace floe::iceberg
