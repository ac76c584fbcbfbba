// Fuzzes the writers of JSON text that copy and format a word or a block at
// a time (floe/common/json_text.h, floe/common/number_text.h and the
// formatters of floe/types/temporal.h) against simple references kept here.
// The first input byte picks a mode ('0' is mode 0, and so on, so seed files
// stay text):
//   0: the rest is a string; WriteJsonString must write what a writer that
//      looks at one byte at a time writes, with InvalidUtf8::kReplace and
//      kEscape. The input is copied to a block of its exact size and the
//      output goes to exactly JsonStringBound bytes, so ASan reports a read
//      past the input or a write past the bound.
//   1: the rest is read as 8-byte integers; WriteInt64 and WriteUint64 must
//      write what std::to_chars writes, within kNumberStoreBound bytes.
//   2: the rest is read as (16-byte unscaled value, scale byte) pairs and
//      8-byte day / micros values; WriteDecimal must write the digits of the
//      unscaled value with the point `scale` from the right, and the date,
//      time and timestamp text must parse back to the value, each within
//      kTextBound bytes.
// Nothing may crash; a difference traps. Seeds: tests/fuzz/json_text/.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/common/json_text.h"
#include "floe/common/number_text.h"
#include "floe/common/utf8.h"
#include "floe/types/temporal.h"

namespace {

using floe::fuzz::Check;

std::string ReferenceJsonString(std::string_view s, floe::InvalidUtf8 invalid) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  for (size_t i = 0; i < s.size(); ++i) {
    const uint8_t c = p[i];
    if (c >= 0x80) {
      const size_t len = floe::Utf8SequenceLength(p + i, s.size() - i);
      if (len != 0) {
        out.append(s.substr(i, len));
        i += len - 1;
      } else if (invalid == floe::InvalidUtf8::kReplace) {
        out += "\xEF\xBF\xBD";
      } else {
        out += "\\udc";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\b') {
      out += "\\b";
    } else if (c == '\f') {
      out += "\\f";
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

void FuzzString(std::string_view text) {
  std::unique_ptr<char[]> input(new char[text.size() + (text.empty() ? 1 : 0)]);
  std::memcpy(input.get(), text.data(), text.size());
  const std::string_view s(input.get(), text.size());
  for (floe::InvalidUtf8 invalid : {floe::InvalidUtf8::kReplace, floe::InvalidUtf8::kEscape}) {
    const size_t room = floe::JsonStringBound(s.size());
    std::unique_ptr<char[]> out(new char[room]);
    char* end = floe::WriteJsonString(s, out.get(), invalid);
    Check(std::string_view(out.get(), static_cast<size_t>(end - out.get())) ==
          ReferenceJsonString(s, invalid));
  }
}

template <typename T>
T Take(std::string_view* rest) {
  T v{};
  const size_t n = rest->size() < sizeof(T) ? rest->size() : sizeof(T);
  std::memcpy(&v, rest->data(), n);
  rest->remove_prefix(n);
  return v;
}

/// `write(out)`'s text, written into a heap block of exactly `bound` bytes.
template <typename Write>
std::string Bounded(size_t bound, Write write) {
  std::unique_ptr<char[]> out(new char[bound]);
  char* end = write(out.get());
  return std::string(out.get(), end);
}

void FuzzIntegers(std::string_view rest) {
  while (!rest.empty()) {
    const auto v = Take<uint64_t>(&rest);
    char expected[32];
    const auto as_signed = static_cast<int64_t>(v);
    Check(Bounded(floe::kNumberStoreBound, [&](char* o) { return floe::WriteUint64(v, o); }) ==
          std::string(expected, std::to_chars(expected, expected + 32, v).ptr));
    Check(Bounded(floe::kNumberStoreBound, [&](char* o) {
            return floe::WriteInt64(as_signed, o);
          }) == std::string(expected, std::to_chars(expected, expected + 32, as_signed).ptr));
  }
}

std::string ReferenceDecimal(floe::types::int128_t v, int scale) {
  const bool negative = v < 0;
  unsigned __int128 m =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m != 0);
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  if (scale > 0) digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return (negative ? "-" : "") + digits;
}

void FuzzFormatters(std::string_view rest) {
  using floe::types::kTextBound;
  while (!rest.empty()) {
    // Decimals of up to 38 digits (what a decimal(38, S) holds).
    auto unscaled = static_cast<floe::types::int128_t>(Take<unsigned __int128>(&rest));
    floe::types::int128_t limit = 1;
    for (int k = 0; k < 38; ++k) limit *= 10;
    unscaled %= limit;
    const int scale = Take<uint8_t>(&rest) % 39;
    Check(Bounded(kTextBound, [&](char* o) {
            return floe::types::WriteDecimal(unscaled, scale, o);
          }) == ReferenceDecimal(unscaled, scale));
    const auto micros = Take<int64_t>(&rest);
    const std::string date = Bounded(kTextBound, [&](char* o) {
      return floe::types::WriteDate(static_cast<int32_t>(micros), o);
    });
    auto day = floe::types::ParseDate(date);
    Check(day && *day == static_cast<int32_t>(micros));
    const std::string time =
        Bounded(kTextBound, [&](char* o) { return floe::types::WriteTime(micros, o); });
    auto t = floe::types::ParseTime(time);
    const int64_t day_micros = 86'400'000'000;
    Check(t && *t == ((micros % day_micros) + day_micros) % day_micros);
    for (bool utc : {false, true}) {
      const std::string ts =
          Bounded(kTextBound, [&](char* o) { return floe::types::WriteTimestamp(micros, utc, o); });
      auto back = floe::types::ParseTimestamp(ts);
      Check(back && *back == micros);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (static_cast<uint8_t>(data[0] - '0') % 3) {
    case 0:
      FuzzString(rest);
      break;
    case 1:
      FuzzIntegers(rest);
      break;
    default:
      FuzzFormatters(rest);
      break;
  }
  return 0;
}
