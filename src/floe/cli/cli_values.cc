#include "floe/cli/cli_values.h"

#include <cctype>
#include <limits>

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

}  // namespace

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
  if (unit.empty() || unit == "B") return n;
  if (unit == "KiB" || unit == "K") return Scaled(n, 1LL << 10);
  if (unit == "MiB" || unit == "M") return Scaled(n, 1LL << 20);
  if (unit == "GiB" || unit == "G") return Scaled(n, 1LL << 30);
  if (unit == "KB") return Scaled(n, 1000);
  if (unit == "MB") return Scaled(n, 1000'000);
  if (unit == "GB") return Scaled(n, 1000'000'000);
  return std::nullopt;
}

}  // namespace floe::cli
