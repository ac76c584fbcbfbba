#include "floe/common/printable.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "floe/common/utf8.h"

namespace floe {

std::string EscapeControlCharacters(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t i = 0;
  while (i < s.size()) {
    uint8_t c = p[i];
    if (c >= 0x80) {
      if (size_t len = Utf8SequenceLength(p + i, s.size() - i); len != 0) {
        out.append(s.data() + i, len);
        i += len;
        continue;
      }
    } else if (c >= 0x20 && c != 0x7F) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    switch (c) {
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        out.append("\\x");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
    }
    ++i;
  }
  return out;
}

std::string ShortenLongNames(std::string_view message, size_t max_name_bytes) {
  if (message.size() <= max_name_bytes) return std::string(message);
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    size_t end = message.find(' ', i);
    if (end == std::string_view::npos) end = message.size();
    std::string_view word = message.substr(i, end - i);
    if (word.size() > max_name_bytes) {
      size_t keep = max_name_bytes / 2;
      // Back up to the start of a UTF-8 sequence.
      while (keep > 0 && (static_cast<uint8_t>(word[keep]) & 0xC0) == 0x80) --keep;
      out.append(word.substr(0, keep));
      out.append(fmt::format("...[{} bytes]", word.size()));
    } else {
      out.append(word);
    }
    if (end < message.size()) out.push_back(' ');
    i = end + 1;
  }
  return out;
}

std::string PrintableMessage(std::string_view message) {
  return EscapeControlCharacters(ShortenLongNames(message));
}

std::string JoinAtMost(const std::vector<std::string>& items, size_t max_items) {
  std::string out;
  const size_t shown = std::min(items.size(), max_items);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > shown) out += fmt::format(" and {} more", items.size() - shown);
  return out;
}

std::string Thousands(int64_t n) {
  // The magnitude as unsigned, so that INT64_MIN has one too.
  const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  const std::string digits = std::to_string(magnitude);
  std::string out = n < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace floe
