#pragma once
/// The bodies of JsonCursor's scanning steps (json_cursor.h), kept inline:
/// the parsers call them once per value. Include json_cursor.h, not this.

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "floe/common/utf8.h"
#include "floe/types/json_cursor.h"

namespace floe::types {

inline void JsonCursor::SkipSpace() {
  // Rows are mostly written without white space: one test for that.
  if (p_<end_&& static_cast<unsigned char>(*p_)> ' ') return;
  while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

inline bool JsonCursor::Expect(char c, std::string_view what) {
  SkipSpace();
  if (p_ == end_ || *p_ != c) return Syntax(what);
  ++p_;
  return true;
}

inline bool JsonCursor::Literal(std::string_view word) {
  if (Left() < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) {
    return Syntax("invalid literal");
  }
  p_ += word.size();
  return true;
}

inline bool JsonCursor::ReadString(std::string_view* out) {
  const char* start = ++p_;
  // Fast path: find the closing quote; stop at anything that needs a look.
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (Left() >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
    // Control characters (< 0x20) and bytes >= 0x80 are both "less than
    // 0x20" as signed bytes.
    __m128i stop =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmplt_epi8(v, space));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
    if (mask != 0) {
      p_ += __builtin_ctz(mask);
      break;
    }
    p_ += 16;
  }
#endif
  while (p_ < end_) {
    unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      *out = std::string_view(start, static_cast<size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c == '\\' || c < 0x20 || c >= 0x80) break;
    ++p_;
  }
  return ReadStringSlowly(start, out);
}

inline bool JsonCursor::ReadStringSlowly(const char* start, std::string_view* out) {
  bool copying = false;
  while (true) {
    if (p_ >= end_) return Syntax("unterminated string");
    unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      *out = copying ? std::string_view(unescaped_)
                     : std::string_view(start, static_cast<size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c < 0x20) return Syntax("unescaped control character in a string");
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(reinterpret_cast<const uint8_t*>(p_), Left());
      if (n == 0) {
        return Failed(InvalidArgument(
            "invalid JSON: the line is not valid UTF-8 (byte 0x{:02X} at offset {})", c, Offset()));
      }
      if (copying) unescaped_.append(p_, n);
      p_ += n;
      continue;
    }
    if (c != '\\') {
      if (copying) unescaped_.push_back(static_cast<char>(c));
      ++p_;
      continue;
    }
    if (!copying) {
      unescaped_.assign(start, static_cast<size_t>(p_ - start));
      copying = true;
    }
    if (Left() < 2) return Syntax("unterminated string");
    char e = p_[1];
    p_ += 2;
    switch (e) {
      case '"':
        unescaped_.push_back('"');
        break;
      case '\\':
        unescaped_.push_back('\\');
        break;
      case '/':
        unescaped_.push_back('/');
        break;
      case 'b':
        unescaped_.push_back('\b');
        break;
      case 'f':
        unescaped_.push_back('\f');
        break;
      case 'n':
        unescaped_.push_back('\n');
        break;
      case 'r':
        unescaped_.push_back('\r');
        break;
      case 't':
        unescaped_.push_back('\t');
        break;
      case 'u': {
        uint32_t cp;
        if (!ReadHex4(&cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (Left() < 2 || p_[0] != '\\' || p_[1] != 'u') {
            return Syntax("a high surrogate without its low surrogate");
          }
          p_ += 2;
          uint32_t low;
          if (!ReadHex4(&low)) return false;
          if (low < 0xDC00 || low > 0xDFFF) return Syntax("invalid low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return Syntax("a low surrogate without its high surrogate");
        }
        AppendUtf8(cp, &unescaped_);
        break;
      }
      default:
        p_ -= 1;
        return Syntax("invalid escape in a string");
    }
  }
}

inline bool JsonCursor::ReadHex4(uint32_t* out) {
  if (Left() < 4) return Syntax("truncated \\u escape");
  uint32_t cp = 0;
  for (int i = 0; i < 4; ++i) {
    int d = HexDigit(p_[i]);
    if (d < 0) return Syntax("invalid \\u escape");
    cp = cp << 4 | static_cast<uint32_t>(d);
  }
  p_ += 4;
  *out = cp;
  return true;
}

inline bool JsonCursor::ReadNumber(Number* out) {
  Number& n = *out;
  n.integer = false;
  const char* start = p_;
  bool negative = false;
  if (p_ < end_ && *p_ == '-') {
    negative = true;
    ++p_;
  }
  if (p_ == end_ || !IsDigit(*p_)) return Syntax("invalid number");
  uint64_t magnitude = 0;
  bool overflow = false;
  if (*p_ == '0') {
    ++p_;
  } else {
    // 19 digits always fit 64 bits; a 20th is checked, more overflow.
    const char* digits = p_;
    while (p_ < end_ && IsDigit(*p_)) {
      magnitude = magnitude * 10 + static_cast<uint64_t>(*p_ - '0');
      ++p_;
      if (p_ - digits == 19) break;
    }
    if (p_ < end_ && IsDigit(*p_)) {
      const uint64_t d = static_cast<uint64_t>(*p_ - '0');
      overflow = magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10;
      magnitude = magnitude * 10 + d;
      ++p_;
      while (p_ < end_ && IsDigit(*p_)) {
        overflow = true;
        ++p_;
      }
    }
  }
  bool fraction = false;
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return Syntax("invalid number");
    while (p_ < end_ && IsDigit(*p_)) ++p_;
    fraction = true;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return Syntax("invalid number");
    while (p_ < end_ && IsDigit(*p_)) ++p_;
    fraction = true;
  }
  n.text = std::string_view(start, static_cast<size_t>(p_ - start));
  constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;
  if (!fraction && !overflow && magnitude <= kMaxMagnitude - (negative ? 0 : 1)) {
    n.integer = true;
    n.value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  }
  return true;
}

inline bool JsonCursor::SkipValue() {
  open_.clear();
  while (true) {
    SkipSpace();
    if (p_ == end_) return Syntax("a value is missing");
    // A value.
    switch (*p_) {
      case '{':
        ++p_;
        SkipSpace();
        if (p_ < end_ && *p_ == '}') {
          ++p_;
          break;
        }
        if (open_.size() >= max_skip_depth_) return Syntax("nested too deeply");
        open_.push_back('}');
        if (p_ == end_ || *p_ != '"') return Syntax("expected a member name");
        if (!SkipString()) return false;
        if (!Expect(':', "expected ':' after a member name")) return false;
        continue;
      case '[':
        ++p_;
        SkipSpace();
        if (p_ < end_ && *p_ == ']') {
          ++p_;
          break;
        }
        if (open_.size() >= max_skip_depth_) return Syntax("nested too deeply");
        open_.push_back(']');
        continue;
      case '"':
        if (!SkipString()) return false;
        break;
      case 't':
        if (!Literal("true")) return false;
        break;
      case 'f':
        if (!Literal("false")) return false;
        break;
      case 'n':
        if (!Literal("null")) return false;
        break;
      default:
        if (*p_ != '-' && !IsDigit(*p_)) return Syntax("unexpected character");
        if (!SkipNumber()) return false;
        break;
    }
    // After a value: close what ends here, or go on to the next element or member.
    while (true) {
      if (open_.empty()) return true;
      SkipSpace();
      if (p_ == end_) return Syntax("the line ends inside a value");
      if (*p_ == open_.back()) {
        ++p_;
        open_.pop_back();
        continue;
      }
      if (*p_ != ',') return Syntax("expected ',' or a closing bracket");
      ++p_;
      if (open_.back() == '}') {
        SkipSpace();
        if (p_ == end_ || *p_ != '"') return Syntax("expected a member name");
        if (!SkipString()) return false;
        if (!Expect(':', "expected ':' after a member name")) return false;
      }
      break;
    }
  }
}

}  // namespace floe::types
