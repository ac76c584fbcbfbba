#include "floe/format/parquet/metrics.h"
#include "floe/common/utf8.h"

#include <charconv>

namespace floe::format::parquet {
namespace {

// Byte length of the UTF-8 sequence starting with `lead` (1 for invalid bytes,
// so malformed input still makes progress).
size_t Utf8Length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Byte offsets where each of the first `max + 1` code points start.
std::vector<size_t> CodePointStarts(std::string_view s, size_t max) {
  std::vector<size_t> starts;
  size_t i = 0;
  while (i < s.size() && starts.size() <= max) {
    starts.push_back(i);
    i += Utf8Length(static_cast<uint8_t>(s[i]));
  }
  return starts;
}

}  // namespace

Result<MetricsConfig> MetricsConfig::Parse(std::string_view text) {
  MetricsConfig config;
  if (text == "none") {
    config.mode = Mode::kNone;
  } else if (text == "counts") {
    config.mode = Mode::kCounts;
  } else if (text == "full") {
    config.mode = Mode::kFull;
  } else if (text.starts_with("truncate(") && text.ends_with(")")) {
    std::string_view digits = text.substr(9, text.size() - 10);
    int n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size() || n < 1) {
      return InvalidArgument("invalid metrics mode '{}': truncate length must be >= 1", text);
    }
    config.mode = Mode::kTruncate;
    config.truncate_length = n;
  } else {
    return InvalidArgument("invalid metrics mode '{}' (none, counts, truncate(N), full)", text);
  }
  return config;
}

std::string TruncateStringLowerBound(std::string_view value, int length) {
  std::vector<size_t> starts = CodePointStarts(value, static_cast<size_t>(length));
  if (starts.size() <= static_cast<size_t>(length)) return std::string(value);
  return std::string(value.substr(0, starts[static_cast<size_t>(length)]));
}

std::optional<std::string> TruncateStringUpperBound(std::string_view value, int length) {
  std::vector<size_t> starts = CodePointStarts(value, static_cast<size_t>(length));
  if (starts.size() <= static_cast<size_t>(length)) return std::string(value);
  // Try incrementing the last kept code point, moving left past U+10FFFF.
  for (size_t k = static_cast<size_t>(length); k > 0; --k) {
    size_t begin = starts[k - 1];
    size_t end = starts[k];
    uint32_t cp = DecodeUtf8(value.substr(begin, end - begin)) + 1;
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
    if (cp > 0x10FFFF) continue;
    std::string out(value.substr(0, begin));
    AppendUtf8(cp, &out);
    return out;
  }
  return std::nullopt;
}

std::string TruncateBinaryLowerBound(std::string_view value, int length) {
  return std::string(value.substr(0, std::min(value.size(), static_cast<size_t>(length))));
}

std::optional<std::string> TruncateBinaryUpperBound(std::string_view value, int length) {
  if (value.size() <= static_cast<size_t>(length)) return std::string(value);
  std::string out(value.substr(0, static_cast<size_t>(length)));
  while (!out.empty()) {
    auto last = static_cast<uint8_t>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

}  // namespace floe::format::parquet
