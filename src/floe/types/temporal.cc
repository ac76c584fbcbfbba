#include "floe/types/temporal.h"

#include <charconv>
#include <cstring>

#include "floe/common/number_text.h"

namespace floe::types {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

// Floor division and modulo for negative values.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
// For b > 0; without a multiplication, which overflows near INT64_MIN.
inline int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

/// "00".."99".
constexpr char kTwoDigits[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546"
    "474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596"
    "979899";

inline char* WriteTwoDigits(unsigned v, char* out) {
  std::memcpy(out, kTwoDigits + 2 * v, 2);
  return out + 2;
}

/// `v` >= 0 in decimal, zero-padded to `width` digits.
inline char* WritePadded(int64_t v, int width, char* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  for (int n = static_cast<int>(end - buf); n < width; ++n) *out++ = '0';
  std::memcpy(out, buf, static_cast<size_t>(end - buf));
  return out + (end - buf);
}

char* WriteYear(int64_t year, char* out) {
  // ISO 8601: four digits, with a sign beyond 0000..9999.
  if (year >= 0 && year <= 9999) {
    out = WriteTwoDigits(static_cast<unsigned>(year / 100), out);
    return WriteTwoDigits(static_cast<unsigned>(year % 100), out);
  }
  if (year < 0) {
    *out++ = '-';
    return WritePadded(-year, 4, out);
  }
  *out++ = '+';
  return WritePadded(year, 4, out);
}

char* WriteTimeOfDay(int64_t micros_of_day, char* out) {
  const auto seconds = static_cast<uint32_t>(micros_of_day / kMicrosPerSecond);
  const auto micros = static_cast<uint32_t>(micros_of_day % kMicrosPerSecond);
  out = WriteTwoDigits(seconds / 3600, out);
  *out++ = ':';
  out = WriteTwoDigits(seconds / 60 % 60, out);
  *out++ = ':';
  out = WriteTwoDigits(seconds % 60, out);
  *out++ = '.';
  return WritePaddedDigits(micros, 6, out);
}

/// WriteDate's text of `days`, at most 14 bytes ("-5877641-06-23").
char* WriteDateText(int32_t days, char* out) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  out = WriteYear(y, out);
  *out++ = '-';
  out = WriteTwoDigits(m, out);
  *out++ = '-';
  return WriteTwoDigits(d, out);
}

/// WriteDecimal for a magnitude that fits 64 bits, at a scale of at most 8,
/// the scale a constant (so the divisions are multiplications).
template <int kScale>
char* WriteSmallDecimal(uint64_t magnitude, char* out) {
  constexpr uint64_t kUnit = [] {
    uint64_t u = 1;
    for (int i = 0; i < kScale; ++i) u *= 10;
    return u;
  }();
  out = WriteUint64(magnitude / kUnit, out);
  if constexpr (kScale == 0) {
    return out;
  } else {
    *out++ = '.';
    return WritePaddedDigits(static_cast<uint32_t>(magnitude % kUnit), kScale, out);
  }
}

// A small cursor over text for the parsers.
struct Cursor {
  std::string_view s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  bool Peek(char c) const { return i < s.size() && s[i] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++i;
    return true;
  }
  // Exactly n digits.
  bool Digits(int n, int64_t* out) {
    if (!ReadDigits(s, i, static_cast<size_t>(n), out)) return false;
    i += static_cast<size_t>(n);
    return true;
  }
};

bool ParseDateParts(Cursor* c, int64_t* days) {
  int sign = 1;
  if (c->Eat('-'))
    sign = -1;
  else
    c->Eat('+');
  // Year: 4 or more digits.
  size_t start = c->i;
  int64_t year = 0;
  while (!c->done() && c->s[c->i] >= '0' && c->s[c->i] <= '9' && c->i - start < 9) {
    year = year * 10 + (c->s[c->i] - '0');
    ++c->i;
  }
  if (c->i - start < 4) return false;
  int64_t month, day;
  if (!c->Eat('-') || !c->Digits(2, &month) || !c->Eat('-') || !c->Digits(2, &day)) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  static const int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  year *= sign;
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  int max_day = month == 2 ? (leap ? 29 : 28) : kDaysIn[month - 1];
  if (day > max_day) return false;
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return true;
}

// HH:MM[:SS[.fraction]]; the fraction may have up to 9 digits, the part past
// micros must be zeros.
bool ParseTimeParts(Cursor* c, int64_t* micros) {
  int64_t h, m, s = 0, frac = 0;
  if (!c->Digits(2, &h) || !c->Eat(':') || !c->Digits(2, &m)) return false;
  if (c->Eat(':')) {
    if (!c->Digits(2, &s)) return false;
    if (c->Eat('.')) {
      int n = 0;
      while (!c->done() && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
        int d = c->s[c->i] - '0';
        if (n < 6)
          frac = frac * 10 + d;
        else if (d != 0)
          return false;
        ++n;
        ++c->i;
      }
      if (n == 0 || n > 9) return false;
      for (int k = n; k < 6; ++k) frac *= 10;
    }
  }
  if (h > 23 || m > 59 || s > 59) return false;
  *micros = ((h * 60 + m) * 60 + s) * kMicrosPerSecond + frac;
  return true;
}

}  // namespace

char* WriteDate(int32_t days, char* out) {
  // The dates of a table's rows are often few (timestamps of the same days):
  // the text of the last date written on this thread is kept in one of 8
  // slots picked by the day, so a few consecutive days stay known however
  // the columns of a row interleave them.
  struct Known {
    int32_t days = 0;
    uint8_t size = 0;  ///< 0: nothing known yet
    char text[16] = {};
  };
  thread_local Known known[8];
  Known& k = known[static_cast<uint32_t>(days) % 8];
  if (days != k.days || k.size == 0) {
    k.size = static_cast<uint8_t>(WriteDateText(days, k.text) - k.text);
    k.days = days;
  }
  std::memcpy(out, k.text, sizeof(k.text));
  return out + k.size;
}

char* WriteTime(int64_t micros, char* out) {
  return WriteTimeOfDay(FloorMod(micros, kMicrosPerDay), out);
}

char* WriteTimestamp(int64_t micros, bool utc, char* out) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  out = WriteDate(static_cast<int32_t>(days), out);
  *out++ = 'T';
  out = WriteTimeOfDay(FloorMod(micros, kMicrosPerDay), out);
  if (utc) {
    std::memcpy(out, "+00:00", 6);
    out += 6;
  }
  return out;
}

char* WriteDecimal(int128_t unscaled, int scale, char* out) {
  const bool negative = unscaled < 0;
  // Work in unsigned to handle the most negative value; in 64 bits when it fits.
  unsigned __int128 v = negative ? -static_cast<unsigned __int128>(unscaled)
                                 : static_cast<unsigned __int128>(unscaled);
  if (v <= UINT64_MAX && scale >= 0 && scale <= 8) {
    if (negative) *out++ = '-';
    const auto magnitude = static_cast<uint64_t>(v);
    switch (scale) {
      case 0:
        return WriteSmallDecimal<0>(magnitude, out);
      case 1:
        return WriteSmallDecimal<1>(magnitude, out);
      case 2:
        return WriteSmallDecimal<2>(magnitude, out);
      case 3:
        return WriteSmallDecimal<3>(magnitude, out);
      case 4:
        return WriteSmallDecimal<4>(magnitude, out);
      case 5:
        return WriteSmallDecimal<5>(magnitude, out);
      case 6:
        return WriteSmallDecimal<6>(magnitude, out);
      case 7:
        return WriteSmallDecimal<7>(magnitude, out);
      default:
        return WriteSmallDecimal<8>(magnitude, out);
    }
  }
  char digits[kTextBound];
  int n = 0;
  while (v > UINT64_MAX) {
    digits[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  auto small = static_cast<uint64_t>(v);
  do {
    digits[n++] = static_cast<char>('0' + small % 10);
    small /= 10;
  } while (small != 0);
  while (n <= scale) digits[n++] = '0';  // at least one digit before the point
  if (negative) *out++ = '-';
  for (int i = n - 1; i >= 0; --i) {
    *out++ = digits[i];
    if (i == scale && scale > 0) *out++ = '.';
  }
  return out;
}

void AppendDate(int32_t days, std::string* out) {
  char buf[kTextBound];
  out->append(buf, WriteDate(days, buf));
}

void AppendTime(int64_t micros, std::string* out) {
  char buf[kTextBound];
  out->append(buf, WriteTime(micros, buf));
}

void AppendTimestamp(int64_t micros, bool utc, std::string* out) {
  char buf[kTextBound];
  out->append(buf, WriteTimestamp(micros, utc, buf));
}

void AppendDecimal(int128_t unscaled, int scale, std::string* out) {
  char buf[kTextBound];
  out->append(buf, WriteDecimal(unscaled, scale, buf));
}

char* WriteUuid(std::string_view b, char* out) {
  static const char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < b.size() && i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    auto c = static_cast<uint8_t>(b[i]);
    *out++ = kHex[c >> 4];
    *out++ = kHex[c & 15];
  }
  return out;
}

void AppendUuid(std::string_view b, std::string* out) {
  char buf[kTextBound];
  out->append(buf, WriteUuid(b, buf));
}

Result<int32_t> ParseDate(std::string_view text) {
  Cursor c{text};
  int64_t days;
  if (!ParseDateParts(&c, &days) || !c.done() || days < INT32_MIN || days > INT32_MAX) {
    return InvalidArgument("'{}' is not a date (YYYY-MM-DD)", text);
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTime(std::string_view text) {
  Cursor c{text};
  int64_t micros;
  if (!ParseTimeParts(&c, &micros) || !c.done()) {
    return InvalidArgument("'{}' is not a time (HH:MM:SS.ffffff)", text);
  }
  return micros;
}

Result<int64_t> ParseTimestamp(std::string_view text) {
  Cursor c{text};
  int64_t days, micros = 0;
  bool ok = ParseDateParts(&c, &days);
  if (ok && (c.Eat('T') || c.Eat(' '))) ok = ParseTimeParts(&c, &micros);
  int64_t offset_minutes = 0;
  if (ok && !c.done()) {
    if (c.Eat('Z')) {
    } else if (c.Peek('+') || c.Peek('-')) {
      int sign = c.s[c.i] == '-' ? -1 : 1;
      ++c.i;
      int64_t oh, om = 0;
      ok = c.Digits(2, &oh);
      if (ok && c.Eat(':'))
        ok = c.Digits(2, &om);
      else if (ok && !c.done())
        ok = c.Digits(2, &om);
      offset_minutes = sign * (oh * 60 + om);
    } else {
      ok = false;
    }
  }
  if (!ok || !c.done()) {
    return InvalidArgument("'{}' is not a timestamp (YYYY-MM-DDTHH:MM:SS.ffffff[+HH:MM])", text);
  }
  // days is bounded by the 9-digit year, so this fits 128 bits; the result
  // must fit int64 micros (years about -290308 to +294247, the range
  // AppendTimestamp writes).
  __int128 value = static_cast<__int128>(days) * kMicrosPerDay + micros -
                   static_cast<__int128>(offset_minutes) * 60 * kMicrosPerSecond;
  if (value < INT64_MIN || value > INT64_MAX) {
    return InvalidArgument("timestamp '{}' is out of range", text);
  }
  return static_cast<int64_t>(value);
}

Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  unsigned __int128 v = 0;
  int digits = 0, fraction_digits = 0;
  bool seen_point = false, any = false;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (ch < '0' || ch > '9') return InvalidArgument("'{}' is not a decimal number", text);
    any = true;
    if (seen_point) {
      if (fraction_digits == scale) {
        if (ch != '0') {
          return InvalidArgument("'{}' has more than {} digits after the point", text, scale);
        }
        continue;
      }
      ++fraction_digits;
    }
    if (v != 0 || ch != '0') ++digits;
    if (digits > 38) return InvalidArgument("'{}' has more than 38 digits", text);
    v = v * 10 + static_cast<unsigned>(ch - '0');
  }
  if (!any) return InvalidArgument("'{}' is not a decimal number", text);
  unsigned __int128 limit = 1;
  for (int k = 0; k < precision; ++k) limit *= 10;
  // Scale up; v * 10 reaches the limit exactly when v >= limit / 10, which is
  // checked before multiplying (at precision 38, v * 10 could wrap 128 bits).
  for (; fraction_digits < scale && v != 0; ++fraction_digits) {
    if (v >= limit / 10) {
      return InvalidArgument("'{}' does not fit decimal({}, {})", text, precision, scale);
    }
    v *= 10;
  }
  if (v >= limit)
    return InvalidArgument("'{}' does not fit decimal({}, {})", text, precision, scale);
  int128_t out = static_cast<int128_t>(v);
  return negative ? -out : out;
}

Status ParseUuid(std::string_view text, std::string* out) {
  if (text.size() != 36) return InvalidArgument("'{}' is not a uuid", text);
  char bytes[16];
  int n = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return InvalidArgument("'{}' is not a uuid", text);
      ++i;
      continue;
    }
    auto hex = [](char ch) -> int {
      if (ch >= '0' && ch <= '9') return ch - '0';
      if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
      if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
      return -1;
    };
    int hi = hex(text[i]), lo = hex(text[i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("'{}' is not a uuid", text);
    bytes[n++] = static_cast<char>(hi << 4 | lo);
    i += 2;
  }
  out->append(bytes, 16);
  return Ok();
}

}  // namespace floe::types
