#include "floe/cdc/postgres/type_mapping.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "floe/common/float_text.h"
#include "floe/common/one_of.h"
#include "floe/types/temporal.h"

namespace floe::cdc::postgres {
namespace {

using types::ReadDigits;
using types::Value;

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

std::unexpected<Error> Bad(uint32_t type_oid, std::string_view text, std::string_view why = "") {
  return InvalidArgument("cannot read '{}' as a value of type oid {}{}{}", text.substr(0, 64),
                         type_oid, why.empty() ? "" : ": ", why);
}

bool ValidDate(int64_t y, int64_t m, int64_t d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

// "HH:MM:SS[.ffffff]" at the start of `s`; sets `*used`. 24:00:00 is allowed
// (PostgreSQL accepts it for time).
bool ParseTimePart(std::string_view s, int64_t* micros, size_t* used) {
  int64_t h = 0, mi = 0, se = 0;
  if (s.size() < 8 || !ReadDigits(s, 0, 2, &h) || s[2] != ':' || !ReadDigits(s, 3, 2, &mi) ||
      s[5] != ':' || !ReadDigits(s, 6, 2, &se) || mi > 59 || se > 59 || h > 24) {
    return false;
  }
  size_t pos = 8;
  int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (n >= 6) return false;  // PostgreSQL keeps microseconds at most
      frac = frac * 10 + (s[pos] - '0');
      ++pos, ++n;
    }
    if (n == 0) return false;
    for (; n < 6; ++n) frac *= 10;
  }
  int64_t v = (h * 3600 + mi * 60 + se) * kMicrosPerSecond + frac;
  if (v > kMicrosPerDay) return false;
  *micros = v;
  *used = pos;
  return true;
}

// "+HH", "+HH:MM" or "+HH:MM:SS" (or '-'), the whole of `s`, in seconds east of UTC.
bool ParseOffset(std::string_view s, int64_t* seconds) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return false;
  int64_t h = 0, m = 0, sec = 0;
  if (!ReadDigits(s, 1, 2, &h)) return false;
  if (s.size() == 3) {
  } else if (s.size() == 6 && s[3] == ':' && ReadDigits(s, 4, 2, &m)) {
  } else if (s.size() == 9 && s[3] == ':' && ReadDigits(s, 4, 2, &m) && s[6] == ':' &&
             ReadDigits(s, 7, 2, &sec)) {
  } else {
    return false;
  }
  int64_t v = h * 3600 + m * 60 + sec;
  *seconds = s[0] == '-' ? -v : v;
  return true;
}

// Strips a trailing " BC" and says whether there was one.
bool StripBc(std::string_view* s) {
  if (s->size() > 3 && s->ends_with(" BC")) {
    s->remove_suffix(3);
    return true;
  }
  return false;
}

// Reads a date; BC years count as PostgreSQL counts them (1 BC is year 0).
bool ParseDate(std::string_view s, int32_t* out) {
  if (s == "infinity") {
    *out = std::numeric_limits<int32_t>::max();
    return true;
  }
  if (s == "-infinity") {
    *out = std::numeric_limits<int32_t>::min();
    return true;
  }
  bool bc = StripBc(&s);
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) return false;
  int64_t y = 0, m = 0, d = 0;
  if (dash < 4 || !ReadDigits(s, 0, dash, &y) || s.size() != dash + 6 ||
      !ReadDigits(s, dash + 1, 2, &m) || s[dash + 3] != '-' || !ReadDigits(s, dash + 4, 2, &d)) {
    return false;
  }
  if (bc) y = 1 - y;
  if (!ValidDate(y, m, d)) return false;
  *out = static_cast<int32_t>(
      types::DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
  return true;
}

// Reads "YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]][ BC]" into micros since
// the Unix epoch; the offset is required iff `with_zone`.
bool ParseTimestamp(std::string_view s, bool with_zone, int64_t* out) {
  if (s == "infinity") {
    *out = std::numeric_limits<int64_t>::max();
    return true;
  }
  if (s == "-infinity") {
    *out = std::numeric_limits<int64_t>::min();
    return true;
  }
  bool bc = StripBc(&s);
  size_t space = s.find(' ');
  if (space == std::string_view::npos) return false;
  int32_t days = 0;
  std::string date(s.substr(0, space));
  if (bc) date += " BC";
  if (!ParseDate(date, &days)) return false;
  std::string_view rest = s.substr(space + 1);
  int64_t micros = 0;
  size_t used = 0;
  if (!ParseTimePart(rest, &micros, &used) || micros >= kMicrosPerDay) return false;
  rest.remove_prefix(used);
  int64_t offset = 0;
  if (with_zone) {
    if (!ParseOffset(rest, &offset)) return false;
  } else if (!rest.empty()) {
    return false;
  }
  *out = int64_t{days} * kMicrosPerDay + micros - offset * kMicrosPerSecond;
  return true;
}

// Reads a decimal's text ("-12.34") into an unscaled value at `scale` with at
// most `precision` digits. More fraction digits than `scale` fail (the server
// rounds to the column's scale, so there never are).
bool ParseDecimal(std::string_view s, int precision, int scale, types::int128_t* out) {
  size_t pos = 0;
  bool neg = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) neg = s[pos++] == '-';
  types::int128_t v = 0;
  int digits = 0, frac = 0;
  bool seen_point = false, any = false;
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    if (c == '.') {
      if (seen_point) return false;
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    any = true;
    if (seen_point) {
      if (++frac > scale) return false;
    }
    if (v != 0 || c != '0') ++digits;
    if (digits > 38) return false;
    v = v * 10 + (c - '0');
  }
  if (!any) return false;
  for (; frac < scale; ++frac) {
    v *= 10;
    if (v != 0) ++digits;
  }
  // Digits of the scaled value must fit the precision.
  types::int128_t limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  if (v >= limit) return false;
  *out = neg ? -v : v;
  return true;
}

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

template <typename T>
bool ParseFloat(std::string_view s, T* out) {
  // float4/float8 text: digits, exponent, "NaN", "Infinity", "-Infinity".
  if (ParseNonFiniteText(s, out)) return true;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<Value> ParseUuid(std::string_view s, Arena* arena) {
  // 8-4-4-4-12 hex digits, as uuid_out writes it.
  if (s.size() != 36) return Bad(oid::kUuid, s);
  char* p = static_cast<char*>(arena->Allocate(16, 1));
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return Bad(oid::kUuid, s);
      ++i;
      continue;
    }
    int hi = HexDigit(s[i]), lo = HexDigit(s[i + 1]);
    if (hi < 0 || lo < 0) return Bad(oid::kUuid, s);
    p[n++] = static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return Value::Bytes({p, 16});
}

Result<Value> ParseBytea(std::string_view s, Arena* arena) {
  if (s.size() < 2 || s[0] != '\\' || s[1] != 'x' || s.size() % 2 != 0) {
    return Bad(oid::kBytea, s, "not bytea's hex format (\\x...)");
  }
  size_t n = (s.size() - 2) / 2;
  char* p = static_cast<char*>(arena->Allocate(n == 0 ? 1 : n, 1));
  for (size_t i = 0; i < n; ++i) {
    int hi = HexDigit(s[2 + 2 * i]), lo = HexDigit(s[3 + 2 * i]);
    if (hi < 0 || lo < 0) return Bad(oid::kBytea, s, "not bytea's hex format (\\x...)");
    p[i] = static_cast<char>(hi * 16 + lo);
  }
  return Value::Bytes({p, n});
}

Result<Value> ParseScalar(uint32_t type_oid, int32_t type_modifier, std::string_view s,
                          Arena* arena);

// One-dimensional array text: {a,b,NULL,"q\"x"}.
Result<Value> ParseArray(uint32_t array_oid, uint32_t element_oid, int32_t type_modifier,
                         std::string_view s, Arena* arena) {
  if (s.empty() || s[0] == '[') {
    return Bad(array_oid, s, "arrays with explicit bounds are not supported");
  }
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return Bad(array_oid, s);
  std::string_view body = s.substr(1, s.size() - 2);
  std::vector<Value> elements;
  std::string element;
  size_t pos = 0;
  if (body.empty()) return Value::List(nullptr, 0);
  while (true) {
    element.clear();
    bool quoted = false;
    if (pos < body.size() && body[pos] == '{') {
      return Bad(array_oid, s, "multi-dimensional arrays are not supported");
    }
    if (pos < body.size() && body[pos] == '"') {
      quoted = true;
      ++pos;
      while (true) {
        if (pos >= body.size()) return Bad(array_oid, s, "unterminated quoted element");
        char c = body[pos++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos >= body.size()) return Bad(array_oid, s);
          c = body[pos++];
        }
        element.push_back(c);
      }
    } else {
      while (pos < body.size() && body[pos] != ',') {
        if (body[pos] == '"' || body[pos] == '{' || body[pos] == '}') return Bad(array_oid, s);
        element.push_back(body[pos++]);
      }
    }
    if (!quoted && element == "NULL") {
      elements.push_back(Value::Null());
    } else {
      auto v = ParseScalar(element_oid, type_modifier, element, arena);
      if (!v) return Bad(array_oid, s, v.error().message());
      elements.push_back(*v);
    }
    if (pos == body.size()) break;
    if (body[pos] != ',') return Bad(array_oid, s);
    ++pos;
  }
  auto* out = static_cast<Value*>(arena->Allocate(sizeof(Value) * elements.size(), alignof(Value)));
  for (size_t i = 0; i < elements.size(); ++i) new (&out[i]) Value(elements[i]);
  return Value::List(out, elements.size());
}

Result<Value> ParseScalar(uint32_t type_oid, int32_t type_modifier, std::string_view s,
                          Arena* arena) {
  switch (type_oid) {
    case oid::kBool:
      if (s == "t") return Value::Bool(true);
      if (s == "f") return Value::Bool(false);
      return Bad(type_oid, s);
    case oid::kInt2: {
      int16_t v = 0;
      if (!ParseInt(s, &v)) return Bad(type_oid, s);
      return Value::Int32(v);
    }
    case oid::kInt4: {
      int32_t v = 0;
      if (!ParseInt(s, &v)) return Bad(type_oid, s);
      return Value::Int32(v);
    }
    case oid::kInt8: {
      int64_t v = 0;
      if (!ParseInt(s, &v)) return Bad(type_oid, s);
      return Value::Int64(v);
    }
    case oid::kOid: {
      uint32_t v = 0;
      if (!ParseInt(s, &v)) return Bad(type_oid, s);
      return Value::Int64(v);
    }
    case oid::kFloat4: {
      float v = 0;
      if (!ParseFloat(s, &v)) return Bad(type_oid, s);
      return Value::Float(v);
    }
    case oid::kFloat8: {
      double v = 0;
      if (!ParseFloat(s, &v)) return Bad(type_oid, s);
      return Value::Double(v);
    }
    case oid::kNumeric: {
      int precision = 0, scale = 0;
      if (NumericTypmod(type_modifier, &precision, &scale) && precision <= 38 && scale >= 0 &&
          scale <= precision) {
        if (s == "NaN" || s == "Infinity" || s == "-Infinity") {
          return Bad(type_oid, s,
                     fmt::format("{} cannot be stored in decimal({}, {})", s, precision, scale));
        }
        types::int128_t v = 0;
        if (!ParseDecimal(s, precision, scale, &v)) {
          return Bad(type_oid, s, fmt::format("not a decimal({}, {})", precision, scale));
        }
        return Value::Decimal(v);
      }
      // numeric without a precision, or wider than decimal(38): the exact text.
      return Value::Bytes(arena->Copy(s));
    }
    case oid::kDate: {
      int32_t v = 0;
      if (!ParseDate(s, &v)) return Bad(type_oid, s);
      return Value::Int32(v);
    }
    case oid::kTimestamp:
    case oid::kTimestampTz: {
      int64_t v = 0;
      if (!ParseTimestamp(s, type_oid == oid::kTimestampTz, &v)) return Bad(type_oid, s);
      return Value::Int64(v);
    }
    case oid::kTime: {
      int64_t v = 0;
      size_t used = 0;
      if (!ParseTimePart(s, &v, &used) || used != s.size()) return Bad(type_oid, s);
      return Value::Int64(v);
    }
    case oid::kUuid:
      return ParseUuid(s, arena);
    case oid::kBytea:
      return ParseBytea(s, arena);
    default:
      return Value::Bytes(arena->Copy(s));
  }
}

}  // namespace

uint32_t ArrayElementOid(uint32_t type_oid) {
  switch (type_oid) {
    case 1000:
      return oid::kBool;
    case 1001:
      return oid::kBytea;
    case 1002:
      return oid::kChar;
    case 1003:
      return oid::kName;
    case 1005:
      return oid::kInt2;
    case 1007:
      return oid::kInt4;
    case 1009:
      return oid::kText;
    case 1014:
      return oid::kBpchar;
    case 1015:
      return oid::kVarchar;
    case 1016:
      return oid::kInt8;
    case 1021:
      return oid::kFloat4;
    case 1022:
      return oid::kFloat8;
    case 1028:
      return oid::kOid;
    case 1182:
      return oid::kDate;
    case 1183:
      return oid::kTime;
    case 1115:
      return oid::kTimestamp;
    case 1185:
      return oid::kTimestampTz;
    case 1187:
      return oid::kInterval;
    case 1231:
      return oid::kNumeric;
    case 1270:
      return oid::kTimeTz;
    case 1561:
      return oid::kBit;
    case 1563:
      return oid::kVarbit;
    case 2951:
      return oid::kUuid;
    case 199:
      return oid::kJson;
    case 3807:
      return oid::kJsonb;
    case 143:
      return oid::kXml;
    case 1041:
      return oid::kInet;
    case 651:
      return oid::kCidr;
    case 1040:
      return oid::kMacaddr;
    case 775:
      return oid::kMacaddr8;
    case 791:
      return oid::kMoney;
    case 3221:
      return oid::kPgLsn;
    default:
      return 0;
  }
}

bool IsMappedScalar(uint32_t type_oid) {
  return OneOf(type_oid, oid::kBool, oid::kBytea, oid::kChar, oid::kName, oid::kInt8, oid::kInt2,
               oid::kInt4, oid::kText, oid::kOid, oid::kJson, oid::kXml, oid::kCidr, oid::kMacaddr8,
               oid::kMoney, oid::kMacaddr, oid::kInet, oid::kFloat4, oid::kFloat8, oid::kBpchar,
               oid::kVarchar, oid::kDate, oid::kTime, oid::kTimestamp, oid::kTimestampTz,
               oid::kInterval, oid::kTimeTz, oid::kBit, oid::kVarbit, oid::kNumeric, oid::kPgLsn,
               oid::kUuid, oid::kJsonb);
}

bool NumericTypmod(int32_t type_modifier, int* precision, int* scale) {
  // numeric's typmod is ((precision << 16) | (scale & 0x7ff)) + VARHDRSZ (4);
  // the 11-bit scale is signed since PostgreSQL 15.
  if (type_modifier < 4) return false;
  int32_t t = type_modifier - 4;
  *precision = (t >> 16) & 0xffff;
  *scale = ((t & 0x7ff) ^ 0x400) - 0x400;
  return true;
}

types::TypePtr IcebergTypeOf(uint32_t type_oid, int32_t type_modifier, int32_t* next_field_id) {
  if (uint32_t element = ArrayElementOid(type_oid); element != 0) {
    int32_t id = (*next_field_id)++;
    return types::Type::List(id, false, IcebergTypeOf(element, type_modifier, next_field_id));
  }
  switch (type_oid) {
    case oid::kBool:
      return types::Type::Boolean();
    case oid::kInt2:
    case oid::kInt4:
      return types::Type::Int();
    case oid::kInt8:
    case oid::kOid:
      return types::Type::Long();
    case oid::kFloat4:
      return types::Type::Float();
    case oid::kFloat8:
      return types::Type::Double();
    case oid::kNumeric: {
      int precision = 0, scale = 0;
      if (NumericTypmod(type_modifier, &precision, &scale) && precision >= 1 && precision <= 38 &&
          scale >= 0 && scale <= precision) {
        if (auto t = types::Type::Decimal(precision, scale)) return *t;
      }
      return types::Type::String();
    }
    case oid::kDate:
      return types::Type::Date();
    case oid::kTimestamp:
      return types::Type::Timestamp();
    case oid::kTimestampTz:
      return types::Type::TimestampTz();
    case oid::kTime:
      return types::Type::Time();
    case oid::kUuid:
      return types::Type::Uuid();
    case oid::kBytea:
      return types::Type::Binary();
    default:
      return types::Type::String();
  }
}

Result<Value> ParseTextValue(uint32_t type_oid, int32_t type_modifier, std::string_view text,
                             Arena* arena) {
  if (uint32_t element = ArrayElementOid(type_oid); element != 0) {
    return ParseArray(type_oid, element, type_modifier, text, arena);
  }
  return ParseScalar(type_oid, type_modifier, text, arena);
}

std::pair<uint32_t, int32_t> DomainResolver::Resolve(uint32_t type_oid, int32_t type_modifier) {
  for (int depth = 0; depth < 8; ++depth) {
    if (IsMappedScalar(type_oid) || ArrayElementOid(type_oid) != 0 || !lookup_) break;
    auto it = known_.find(type_oid);
    if (it == known_.end()) it = known_.emplace(type_oid, lookup_(type_oid)).first;
    if (!it->second) break;
    type_oid = it->second->first;
    if (it->second->second != -1) type_modifier = it->second->second;
  }
  return {type_oid, type_modifier};
}

}  // namespace floe::cdc::postgres
