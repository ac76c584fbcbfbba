#include "floe/common/json_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace floe {
namespace {

// The writer copies runs of bytes that need no escape a block (8 or 16
// bytes) at a time, with loads that overlap at the end of a string, and
// checks UTF-8 only where a byte >= 0x80 is. These tests compare it with a
// reference that looks at one byte at a time, for every position of every
// kind of byte around the block edges, and check that it neither reads past
// the input (under ASan: the input is an exact-size heap block) nor writes
// past JsonStringBound.

/// The length of the well-formed UTF-8 sequence at p[0] (>= 0x80), 0 if none:
/// Unicode's table of well-formed byte sequences (Table 3-7), byte by byte.
size_t ReferenceSequenceLength(const uint8_t* p, size_t remaining) {
  const uint8_t c = p[0];
  size_t len;
  uint8_t lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // not overlong
    if (c == 0xED) hi = 0x9F;  // not a surrogate
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // not overlong
    if (c == 0xF4) hi = 0x8F;  // not past U+10FFFF
  } else {
    return 0;
  }
  if (len > remaining || p[1] < lo || p[1] > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
  }
  return len;
}

std::string Reference(std::string_view s, InvalidUtf8 invalid) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = p[i];
    if (c >= 0x80) {
      if (size_t len = ReferenceSequenceLength(p + i, s.size() - i); len != 0) {
        out.append(s.substr(i, len));
        i += len;
      } else {
        if (invalid == InvalidUtf8::kReplace) {
          out += "\xEF\xBF\xBD";
        } else {
          out += "\\udc";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        }
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

constexpr char kCanary = '\x5a';
constexpr size_t kGuard = 64;

/// WriteJsonString of `s` (copied to an exact-size heap block) into exactly
/// JsonStringBound bytes followed by a guard that must stay untouched.
std::string Written(std::string_view s, InvalidUtf8 invalid) {
  std::unique_ptr<char[]> input(new char[s.size() + (s.empty() ? 1 : 0)]);
  std::copy(s.begin(), s.end(), input.get());
  const size_t room = JsonStringBound(s.size());
  std::vector<char> out(room + kGuard, kCanary);
  char* end = WriteJsonString(std::string_view(input.get(), s.size()), out.data(), invalid);
  EXPECT_LE(end, out.data() + room);
  for (size_t k = room; k < out.size(); ++k) {
    if (out[k] != kCanary) {
      ADD_FAILURE() << "wrote past JsonStringBound at +" << (k - room) << " for a string of "
                    << s.size() << " bytes";
      break;
    }
  }
  return std::string(out.data(), end);
}

void ExpectSame(std::string_view s) {
  for (InvalidUtf8 invalid : {InvalidUtf8::kReplace, InvalidUtf8::kEscape}) {
    const std::string want = Reference(s, invalid);
    EXPECT_EQ(Written(s, invalid), want) << "input of " << s.size() << " bytes";
    std::string appended = "x";
    AppendJsonString(s, &appended, invalid);
    EXPECT_EQ(appended, "x" + want);
  }
}

TEST(JsonTextTest, Examples) {
  EXPECT_EQ(Written("", InvalidUtf8::kReplace), "\"\"");
  EXPECT_EQ(Written("plain text", InvalidUtf8::kReplace), "\"plain text\"");
  EXPECT_EQ(Written("a\"b\\c\nd\re\tf\bg\fh\x01i\x1f", InvalidUtf8::kReplace),
            R"("a\"b\\c\nd\re\tf\bg\fh\u0001i\u001f")");
  EXPECT_EQ(Written("\x7f/<>", InvalidUtf8::kReplace), "\"\x7f/<>\"");  // not escaped
  EXPECT_EQ(Written(std::string_view("nul\0!", 5), InvalidUtf8::kReplace), R"("nul\u0000!")");
  EXPECT_EQ(Written("caf\xC3\xA9 \xE6\x9D\xB1 \xF0\x9F\x98\x80", InvalidUtf8::kReplace),
            "\"caf\xC3\xA9 \xE6\x9D\xB1 \xF0\x9F\x98\x80\"");
  const std::string latin1 = std::string("a\xFF") + "b";
  EXPECT_EQ(Written(latin1, InvalidUtf8::kReplace), "\"a\xEF\xBF\xBD\x62\"");
  EXPECT_EQ(Written(latin1, InvalidUtf8::kEscape), R"("a\udcffb")");
  EXPECT_EQ(Written("\xE6\x9D", InvalidUtf8::kEscape), R"("\udce6\udc9d")");
}

// Each byte value at each offset 0..40 of strings of 1..48 bytes of plain
// text: the first byte that stops a block is found wherever it is.
TEST(JsonTextTest, EveryByteAtEveryOffset) {
  for (size_t size = 1; size <= 48; ++size) {
    for (size_t at = 0; at < size && at <= 40; ++at) {
      for (int c = 0; c < 256; ++c) {
        std::string s(size, 'a');
        s[at] = static_cast<char>(c);
        ExpectSame(s);
      }
    }
  }
}

// Two escapes: the run after the first is scanned from an offset that is
// not a block start.
TEST(JsonTextTest, PairsOfEscapes) {
  for (size_t size = 2; size <= 40; ++size) {
    for (size_t a = 0; a < size; ++a) {
      for (size_t b = a + 1; b < size; ++b) {
        std::string s(size, 'k');
        s[a] = '"';
        s[b] = '\n';
        ExpectSame(s);
        s[b] = '\xE9';
        ExpectSame(s);
      }
    }
  }
}

// Well-formed sequences of 2, 3 and 4 bytes at every offset, so each
// straddles every edge of an 8-, 16- and 32-byte block, and each cut short
// by the end of the string or by a byte that does not continue it.
TEST(JsonTextTest, SequencesAcrossBlockEdges) {
  const std::string sequences[] = {"\xC3\xA9",         "\xE6\x9D\xB1",     "\xEF\xBF\xBF",
                                   "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xF0\x90\x80\x80"};
  for (const std::string& seq : sequences) {
    for (size_t at = 0; at <= 40; ++at) {
      for (size_t after : {0, 1, 3, 7, 8, 15, 16, 17, 31, 32}) {
        ExpectSame(std::string(at, 'z') + seq + std::string(after, 'y'));
        for (size_t cut = 1; cut < seq.size(); ++cut) {
          ExpectSame(std::string(at, 'z') + seq.substr(0, cut));  // at the end
          ExpectSame(std::string(at, 'z') + seq.substr(0, cut) + std::string(after, 'y'));
          ExpectSame(std::string(at, 'z') + seq.substr(0, cut) + seq);  // restarted
        }
      }
    }
  }
}

// Each kind of ill-formed UTF-8 at each offset: every byte of it is replaced
// (or escaped) on its own, and what follows is read again from the next byte.
TEST(JsonTextTest, InvalidUtf8AtEveryOffset) {
  const std::string invalid[] = {
      "\x80",              // a continuation byte alone
      "\xBF",              //
      "\xC0\x80",          // overlong NUL
      "\xC1\xBF",          // overlong
      "\xE0\x80\x80",      // overlong three bytes
      "\xE0\x9F\xBF",      //
      "\xED\xA0\x80",      // a surrogate
      "\xED\xBF\xBF",      //
      "\xF0\x80\x80\x80",  // overlong four bytes
      "\xF0\x8F\xBF\xBF",  //
      "\xF4\x90\x80\x80",  // past U+10FFFF
      "\xF5\x80\x80\x80",  //
      "\xFF",              //
      "\xFE",              //
      "\xC3\x61",          // a lead byte followed by ASCII
      "\xE6\x9D\x61",      //
  };
  for (const std::string& bad : invalid) {
    for (size_t at = 0; at <= 40; ++at) {
      for (size_t after : {0, 1, 5, 16, 33}) {
        ExpectSame(std::string(at, 'v') + bad + std::string(after, 'w'));
      }
    }
  }
}

// Random strings of mixed content, lengths 0..300.
TEST(JsonTextTest, RandomStringsMatchTheReference) {
  std::mt19937_64 rng(20261202);
  const std::string pieces[] = {"a",
                                "Z",
                                " ",
                                "\"",
                                "\\",
                                "\n",
                                "\x01",
                                "\x7f",
                                "\xC3\xA9",
                                "\xE6\x9D\xB1",
                                "\xF0\x9F\x98\x80",
                                "\xFF",
                                "\xC3",
                                "\xED\xA0\x80",
                                "plain words"};
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::string s;
    const size_t size = rng() % 300;
    const int mode = static_cast<int>(rng() % 3);
    while (s.size() < size) {
      if (mode == 0) {
        s += pieces[rng() % std::size(pieces)];
      } else if (mode == 1) {
        s.push_back(static_cast<char>(rng() % 256));
      } else {
        s += rng() % 40 == 0 ? pieces[rng() % std::size(pieces)] : std::string("q");
      }
    }
    ExpectSame(s);
  }
}

}  // namespace
}  // namespace floe
