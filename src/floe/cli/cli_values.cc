#include "floe/cli/cli_values.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/common/printable.h"
#include "floe/common/utf8.h"
#include "floe/types/temporal.h"

namespace floe::cli {
namespace {

/// The leading decimal number of `text` and the rest; nullopt without digits
/// or on overflow.
std::optional<std::pair<int64_t, std::string_view>> SplitNumber(std::string_view text) {
  size_t i = 0;
  int64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    n = n * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 0) return std::nullopt;
  return std::make_pair(n, text.substr(i));
}

std::optional<int64_t> Scaled(int64_t n, int64_t unit) {
  if (n > std::numeric_limits<int64_t>::max() / unit) return std::nullopt;
  return n * unit;
}

/// The value as the user wrote it, short and on one line, for a message.
std::string Shown(std::string_view value) { return PrintableMessage(value); }

}  // namespace

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(start, comma - start);
    size_t b = part.find_first_not_of(" \t");
    size_t e = part.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(part.substr(b, e - b + 1));
    start = comma + 1;
  }
  return out;
}

Result<int64_t> ParseTimeMillis(std::string_view option, const std::string& text) {
  int64_t ms = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec == std::errc() && end == text.data() + text.size()) return ms;
  auto micros = types::ParseTimestamp(text);
  if (!micros) {
    auto days = types::ParseDate(text);
    if (!days) {
      return InvalidArgument(
          "{} '{}': expected a timestamp such as 2024-01-01T00:00:00Z, a date, or "
          "milliseconds since the epoch",
          option, text);
    }
    return int64_t{*days} * 86'400'000LL;
  }
  // Round down to the millisecond: a snapshot at t ms is current at any time >= t.
  int64_t m = *micros / 1000;
  if (*micros < 0 && *micros % 1000 != 0) m -= 1;
  return m;
}

std::optional<int64_t> ParseDuration(std::string_view text) {
  auto split = SplitNumber(text);
  if (!split) return std::nullopt;
  auto [n, unit] = *split;
  if (unit == "ms") return n;
  if (unit == "s") return Scaled(n, 1000);
  if (unit == "m" || unit == "min") return Scaled(n, 60'000);
  if (unit == "h") return Scaled(n, 3'600'000);
  if (unit == "d") return Scaled(n, 86'400'000);
  if (unit == "w") return Scaled(n, 7 * 86'400'000LL);
  return std::nullopt;
}

std::optional<int64_t> ParseByteSize(std::string_view text) {
  auto split = SplitNumber(text);
  if (!split) return std::nullopt;
  auto [n, unit] = *split;
  // An optional fraction of up to 6 digits, "1.5GiB".
  int64_t fraction = 0;
  int64_t fraction_scale = 1;
  if (!unit.empty() && unit[0] == '.') {
    size_t i = 1;
    while (i < unit.size() && std::isdigit(static_cast<unsigned char>(unit[i]))) {
      if (fraction_scale == 1'000'000) return std::nullopt;
      fraction = fraction * 10 + (unit[i] - '0');
      fraction_scale *= 10;
      ++i;
    }
    if (i == 1) return std::nullopt;
    unit = unit.substr(i);
  }
  int64_t scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "KiB" || unit == "K")
    scale = 1LL << 10;
  else if (unit == "MiB" || unit == "M")
    scale = 1LL << 20;
  else if (unit == "GiB" || unit == "G")
    scale = 1LL << 30;
  else if (unit == "TiB" || unit == "T")
    scale = 1LL << 40;
  else if (unit == "KB")
    scale = 1000;
  else if (unit == "MB")
    scale = 1000'000;
  else if (unit == "GB")
    scale = 1000'000'000;
  else if (unit == "TB")
    scale = 1000'000'000'000;
  else
    return std::nullopt;
  auto whole = Scaled(n, scale);
  if (!whole) return std::nullopt;
  // fraction < 10^6 < 2^20 and scale <= 2^40: the product fits in 63 bits.
  int64_t part = fraction * scale / fraction_scale;
  if (*whole > std::numeric_limits<int64_t>::max() - part) return std::nullopt;
  return *whole + part;
}

CLI::Validator IntegerIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        int64_t n = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (ec == std::errc::result_out_of_range ||
            (ec == std::errc() && ptr == end && (n < lo || n > hi))) {
          return fmt::format("{} is out of range ({} to {})", Shown(value), lo, hi);
        }
        if (ec != std::errc() || ptr != end) {
          return fmt::format("'{}' is not a whole number ({} to {})", Shown(value), lo, hi);
        }
        return "";
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

CLI::Validator DurationIn(int64_t lo_ms, int64_t hi_ms) {
  return CLI::Validator(
      [lo_ms, hi_ms](std::string& value) -> std::string {
        auto ms = ParseDuration(value);
        if (!ms) {
          return fmt::format("'{}' is not a duration such as 10s, 500ms, 5m, 2h or 7d",
                             Shown(value));
        }
        if (*ms < lo_ms || *ms > hi_ms) {
          return fmt::format("{} is out of range ({} ms to {} ms)", Shown(value), lo_ms, hi_ms);
        }
        return "";
      },
      "DURATION");
}

CLI::Validator ByteSizeIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        auto bytes = ParseByteSize(value);
        if (!bytes) {
          return fmt::format(
              "'{}' is not a size such as 512MiB, 1.5GiB, 64MB or 4096 (units B, KiB, MiB, GiB, "
              "TiB, KB, MB, GB, TB)",
              Shown(value));
        }
        if (*bytes < lo || *bytes > hi) {
          return fmt::format("{} ({} bytes) is out of range ({} to {} bytes)", Shown(value), *bytes,
                             lo, hi);
        }
        return "";
      },
      "SIZE");
}

CLI::Validator OneOf(std::initializer_list<std::string_view> choices) {
  std::vector<std::string> list(choices.begin(), choices.end());
  std::string joined = fmt::format("{}", fmt::join(list, ", "));
  return CLI::Validator(
      [list, joined](std::string& value) -> std::string {
        for (const auto& c : list) {
          if (value == c) return "";
        }
        return fmt::format("'{}' is not one of {}", Shown(value), joined);
      },
      fmt::format("{{{}}}", fmt::join(list, ",")));
}

CLI::Validator Utf8Text() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        size_t bad = FindInvalidUtf8(value);
        if (bad == std::string::npos) return "";
        return fmt::format("'{}' is not valid UTF-8 (byte 0x{:02X} at offset {})", Shown(value),
                           static_cast<uint8_t>(value[bad]), bad);
      },
      "");
}

CLI::Validator KeyValueText(std::string_view form) {
  return CLI::Validator(
      [form = std::string(form)](std::string& value) -> std::string {
        size_t eq = value.find('=');
        if (eq == std::string::npos || eq == 0) {
          return fmt::format("'{}' is not {}", Shown(value), form);
        }
        size_t bad = FindInvalidUtf8(value);
        if (bad == std::string::npos) return "";
        return fmt::format("'{}' is not valid UTF-8 (byte 0x{:02X} at offset {})", Shown(value),
                           static_cast<uint8_t>(value[bad]), bad);
      },
      std::string(form));
}

}  // namespace floe::cli
