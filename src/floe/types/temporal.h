#pragma once
/// Text forms of dates, times, timestamps, decimals and uuids, as floe's JSON
/// row conventions write them (docs/json-rows.md):
///   date "2024-02-29", time "13:45:00.000001", timestamp "2024-02-29T13:45:00.000001",
///   timestamptz "...+00:00", decimal "12.30", uuid "f79c3e09-677c-4bbd-a479-3f349cb785e7".
/// Formatters append to a std::string; parsers return kInvalidArgument on bad text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/types/value.h"

namespace floe::types {

/// Reads exactly `n` decimal digits of `text` at `pos` (a fixed-width field
/// of date or time text: "2024" of "2024-02-29") into `*out`. False, with
/// `*out` unchanged, when the text ends first or a byte is not a digit.
/// More than 18 digits may overflow.
inline bool ReadDigits(std::string_view text, size_t pos, size_t n, int64_t* out) {
  if (pos > text.size() || n > text.size() - pos) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

/// Days since 1970-01-01 of a proleptic Gregorian date (`month` 1-12, `day`
/// 1-31; not checked). Inline: the binlog and snapshot decoders call it per
/// value.
inline int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  // Howard Hinnant's days_from_civil.
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (the inverse of
/// DaysFromCivil).
inline void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  // Howard Hinnant's civil_from_days.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *day = doy - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = static_cast<int64_t>(yoe) + era * 400 + (*month <= 2);
}

void AppendDate(int32_t days, std::string* out);
void AppendTime(int64_t micros, std::string* out);
/// With `utc` the "+00:00" suffix is added.
void AppendTimestamp(int64_t micros, bool utc, std::string* out);
void AppendDecimal(int128_t unscaled, int scale, std::string* out);
void AppendUuid(std::string_view bytes16, std::string* out);

/// The formatters above for writers that make room first: each stores at
/// most kTextBound bytes (a decimal: for scales up to 38) at `out` and returns
/// the end of the text. They store whole words, so bytes between that end and
/// out + kTextBound may be overwritten too (left unspecified, for what follows
/// to overwrite). WriteDate keeps the text of the last dates it wrote on
/// the calling thread (8 slots by day), so rows of the same few days cost a
/// comparison and a copy.
inline constexpr size_t kTextBound = 48;
char* WriteDate(int32_t days, char* out);
char* WriteTime(int64_t micros, char* out);
char* WriteTimestamp(int64_t micros, bool utc, char* out);
char* WriteDecimal(int128_t unscaled, int scale, char* out);
char* WriteUuid(std::string_view bytes16, char* out);

Result<int32_t> ParseDate(std::string_view text);
Result<int64_t> ParseTime(std::string_view text);
/// Accepts "YYYY-MM-DD[T| ]HH:MM:SS[.f{1,9}][Z|+HH:MM|-HH:MM]"; an offset is
/// applied (the result is UTC micros). Fractions beyond micros are refused
/// unless they are zeros.
Result<int64_t> ParseTimestamp(std::string_view text);
/// Parses "-12.30" into an unscaled value at `scale`, refusing more fraction
/// digits than the scale (no silent rounding) and more than `precision` digits.
Result<int128_t> ParseDecimal(std::string_view text, int precision, int scale);
/// Parses canonical 36-character uuid text into 16 bytes appended to `out`.
Status ParseUuid(std::string_view text, std::string* out);

}  // namespace floe::types
