#include "floe/common/json_text.h"

#include <bit>
#include <cstdint>
#include <cstring>

#include "floe/common/utf8.h"

namespace floe {

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

/// The high bit of each byte of `w` that needs escaping or UTF-8 checking
/// (below 0x20, '"', '\\', 0x80 and above); exact for the lowest such byte.
inline uint64_t SpecialBytes(uint64_t w) {
  auto zero = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  return ((w - 0x20 * kOnes) | zero(w ^ ('"' * kOnes)) | zero(w ^ ('\\' * kOnes)) | w) & kHighs;
}

}  // namespace

char* WriteJsonString(std::string_view s, char* out, InvalidUtf8 invalid) {
  static const char kHex[] = "0123456789abcdef";
  *out++ = '"';
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // Bytes that pass unchanged, eight at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      const uint64_t special = SpecialBytes(w);
      if (special != 0) {
        const size_t k = static_cast<size_t>(std::countr_zero(special)) / 8;
        std::memcpy(out, p + i, k);
        out += k;
        i += k;
        break;
      }
      std::memcpy(out, p + i, 8);
      out += 8;
      i += 8;
    }
    if (i >= n) break;
    const uint8_t c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *out++ = static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t len = Utf8SequenceLength(p + i, n - i); len != 0) {
        std::memcpy(out, p + i, len);
        out += len;
        i += len;
        continue;
      }
      if (invalid == InvalidUtf8::kReplace) {
        std::memcpy(out, "\xEF\xBF\xBD", 3);
        out += 3;
      } else {
        std::memcpy(out, "\\udc", 4);
        out[4] = kHex[c >> 4];
        out[5] = kHex[c & 15];
        out += 6;
      }
      ++i;
      continue;
    }
    *out++ = '\\';
    switch (c) {
      case '"':
        *out++ = '"';
        break;
      case '\\':
        *out++ = '\\';
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\t':
        *out++ = 't';
        break;
      case '\b':
        *out++ = 'b';
        break;
      case '\f':
        *out++ = 'f';
        break;
      default:
        std::memcpy(out, "u00", 3);
        out[3] = kHex[c >> 4];
        out[4] = kHex[c & 15];
        out += 5;
    }
    ++i;
  }
  *out++ = '"';
  return out;
}

void AppendJsonString(std::string_view s, std::string* out, InvalidUtf8 invalid) {
  const size_t old = out->size();
  out->resize_and_overwrite(old + JsonStringBound(s.size()), [&](char* p, size_t) {
    return static_cast<size_t>(WriteJsonString(s, p + old, invalid) - p);
  });
}

}  // namespace floe
