#include "floe/pipeline/values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "floe/common/ascii.h"

namespace floe::pipeline {
namespace {

struct Unit {
  std::string_view name;
  int64_t millis;
};

constexpr Unit kUnits[] = {
    {"ms", 1},           {"milli", 1},       {"millis", 1},      {"millisecond", 1},
    {"milliseconds", 1}, {"s", 1000},        {"sec", 1000},      {"secs", 1000},
    {"second", 1000},    {"seconds", 1000},  {"m", 60000},       {"min", 60000},
    {"mins", 60000},     {"minute", 60000},  {"minutes", 60000}, {"h", 3600000},
    {"hour", 3600000},   {"hours", 3600000}, {"d", 86400000},    {"day", 86400000},
    {"days", 86400000},
};

constexpr std::string_view kDurationHint =
    "a duration such as 500ms, 10s, 1min, 2h or 1d (units: ms, s, min, h, d)";

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  std::string_view s = TrimAsciiSpace(text);
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0) return InvalidArgument("'{}' is not {}", text, kDurationHint);
  int64_t number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + digits, number);
  if (ec != std::errc()) return InvalidArgument("'{}' is too large a duration", text);
  std::string unit = AsciiLower(TrimAsciiSpace(s.substr(digits)));
  int64_t millis = 1;
  if (!unit.empty()) {
    auto it = std::find_if(std::begin(kUnits), std::end(kUnits),
                           [&](const Unit& u) { return u.name == unit; });
    if (it == std::end(kUnits)) {
      return InvalidArgument("'{}' has an unknown unit '{}': expected {}", text, unit,
                             kDurationHint);
    }
    millis = it->millis;
  }
  if (number > std::numeric_limits<int64_t>::max() / millis) {
    return InvalidArgument("'{}' is too large a duration", text);
  }
  return std::chrono::milliseconds(number * millis);
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms == 0) return "0ms";
  constexpr std::pair<int64_t, std::string_view> kForms[] = {
      {86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}};
  for (const auto& [size, name] : kForms) {
    if (ms % size == 0) return std::to_string(ms / size) + std::string(name);
  }
  return std::to_string(ms) + "ms";
}

Result<int64_t> ParseInteger(std::string_view text, int64_t min, int64_t max) {
  std::string_view s = TrimAsciiSpace(text);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || end != s.data() + s.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return InvalidArgument("'{}' is not an integer (expected {}..{})", text, min, max);
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return InvalidArgument("{} is out of range (expected {}..{})", text, min, max);
  }
  return value;
}

Result<bool> ParseBool(std::string_view text) {
  std::string s = AsciiLower(TrimAsciiSpace(text));
  if (s == "true") return true;
  if (s == "false") return false;
  return InvalidArgument("'{}' is not a boolean (expected true or false)", text);
}

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus swaps of neighbours ("prot").
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> NearestKey(std::string_view key,
                                      const std::vector<std::string>& candidates) {
  if (key.size() > 256) return std::nullopt;  // not a typo of a key name; bounds the work
  std::optional<std::string> best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const auto& candidate : candidates) {
    size_t distance = EditDistance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (!best || best_distance > 3 || best_distance * 2 >= std::max<size_t>(key.size(), 2)) {
    return std::nullopt;
  }
  return best;
}

std::string DidYouMean(std::string_view key, const std::vector<std::string>& candidates) {
  std::optional<std::string> nearest = NearestKey(key, candidates);
  return nearest ? " (did you mean '" + *nearest + "'?)" : std::string();
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace floe::pipeline
