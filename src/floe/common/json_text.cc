#include "floe/common/json_text.h"

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "floe/common/utf8.h"

namespace floe {

namespace {

// The writer copies the bytes that pass unchanged (0x20..0x7f but '"' and
// '\\') in runs: it looks for the next byte that does not pass — a control
// character, a quote, a backslash, or a byte >= 0x80 (checked as UTF-8) — a
// block at a time, and stores every block it looked at whole at the output
// position. A store may write past the end of the run; the bytes past it are
// overwritten by what follows, and each store stays within the
// JsonStringBound room (what was written for input bytes [0, i) is at most 6
// bytes each, so at offset 1 + 6i at most, and a store of a block of input
// bytes [i, i + w) ends before 1 + 6i + w <= 6 * size + 2). Input is never
// read past its end: the last bytes of a string are checked with loads that
// overlap the ones before.

constexpr uint64_t kOnes64 = 0x0101010101010101ULL;
constexpr uint64_t kHighs64 = 0x8080808080808080ULL;
constexpr uint32_t kOnes32 = 0x01010101U;
constexpr uint32_t kHighs32 = 0x80808080U;

/// The high bit of each byte of `w` that needs escaping or UTF-8 checking
/// (below 0x20, '"', '\\', 0x80 and above); exact for the lowest such byte
/// (a borrow can mark bytes above it that pass).
template <typename W>
inline W SpecialBytes(W w) {
  constexpr W kOnes = sizeof(W) == 8 ? static_cast<W>(kOnes64) : static_cast<W>(kOnes32);
  constexpr W kHighs = sizeof(W) == 8 ? static_cast<W>(kHighs64) : static_cast<W>(kHighs32);
  auto zero = [&](W x) { return (x - kOnes) & ~x & kHighs; };
  return ((w - 0x20 * kOnes) | zero(w ^ ('"' * kOnes)) | zero(w ^ ('\\' * kOnes)) | w) & kHighs;
}

/// The `W` at `p`, its first byte the least significant (so a borrow in
/// SpecialBytes runs from earlier bytes to later ones).
template <typename W>
inline W Load(const uint8_t* p) {
  W w;
  std::memcpy(&w, p, sizeof(W));
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(W) == 8) {
      w = __builtin_bswap64(w);
    } else {
      w = __builtin_bswap32(w);
    }
  }
  return w;
}

/// Stores what Load returned.
template <typename W>
inline void Store(char* out, W w) {
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(W) == 8) {
      w = __builtin_bswap64(w);
    } else {
      w = __builtin_bswap32(w);
    }
  }
  std::memcpy(out, &w, sizeof(W));
}

/// The offset of the first byte marked in a nonzero SpecialBytes result.
template <typename W>
inline size_t FirstMarked(W special) {
  return static_cast<size_t>(std::countr_zero(special)) / 8;
}

/// 1 for the bytes that pass unchanged.
constexpr auto kPasses = [] {
  struct Table {
    bool v[256] = {};
  } t;
  for (int c = 0x20; c < 0x80; ++c) t.v[c] = c != '"' && c != '\\';
  return t;
}();

/// Copies the bytes of p[0, n) that pass unchanged to `out`, up to the first
/// that does not; returns how many passed (n when all did). May store past
/// out + returned, within the room described above. Input byte k goes to
/// out[k], so the last block of a string is loaded and stored where it
/// overlaps the block before (the overlapped bytes passed and are stored
/// again unchanged): a string of 4 bytes or more is read in whole blocks
/// only, a short one at the cost of one branch on its length.
inline size_t CopyPassing(const uint8_t* p, size_t n, char* out) {
#if defined(__SSE2__)
  if (n >= 16) {
    const __m128i below = _mm_set1_epi8(0x20);
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    auto block = [&](size_t i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), v);
      // Signed: bytes >= 0x80 are negative, so below 0x20 as well.
      const __m128i special =
          _mm_or_si128(_mm_cmplt_epi8(v, below),
                       _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
      return static_cast<uint32_t>(_mm_movemask_epi8(special));
    };
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      if (const uint32_t mask = block(i); mask != 0) {
        return i + static_cast<size_t>(std::countr_zero(mask));
      }
    }
    if (i < n) {
      // Bytes [n - 16, i) passed already: a marked byte is at i or later.
      if (const uint32_t mask = block(n - 16); mask != 0) {
        return n - 16 + static_cast<size_t>(std::countr_zero(mask));
      }
    }
    return n;
  }
#endif
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const auto w = Load<uint64_t>(p + i);
      Store(out + i, w);
      if (const uint64_t s = SpecialBytes(w); s != 0) return i + FirstMarked(s);
    }
    if (i < n) {
      // The overlapped bytes passed, so the first byte marked is exact.
      const auto w = Load<uint64_t>(p + n - 8);
      Store(out + n - 8, w);
      if (const uint64_t s = SpecialBytes(w); s != 0) return n - 8 + FirstMarked(s);
    }
    return n;
  }
  if (n >= 4) {
    const auto a = Load<uint32_t>(p);
    const auto b = Load<uint32_t>(p + n - 4);
    Store(out, a);
    Store(out + n - 4, b);
    if (const uint32_t s = SpecialBytes(a); s != 0) return FirstMarked(s);
    if (const uint32_t s = SpecialBytes(b); s != 0) return n - 4 + FirstMarked(s);
    return n;
  }
  for (size_t i = 0; i < n; ++i) {
    if (!kPasses.v[p[i]]) return i;
    out[i] = static_cast<char>(p[i]);
  }
  return n;
}

constexpr char kHex[] = "0123456789abcdef";

/// The escape of a byte below 0x20, '"' or '\\': its length and text.
struct Escape {
  uint8_t size;
  char text[7];
};
constexpr auto kEscapes = [] {
  struct Table {
    Escape v[0x60] = {};
  } t;
  for (int c = 0; c < 0x20; ++c) {
    t.v[c] = {6, {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15], 0}};
  }
  t.v['\n'] = {2, {'\\', 'n'}};
  t.v['\r'] = {2, {'\\', 'r'}};
  t.v['\t'] = {2, {'\\', 't'}};
  t.v['\b'] = {2, {'\\', 'b'}};
  t.v['\f'] = {2, {'\\', 'f'}};
  t.v['"'] = {2, {'\\', '"'}};
  t.v['\\'] = {2, {'\\', '\\'}};
  return t;
}();

}  // namespace

char* WriteJsonString(std::string_view s, char* out, InvalidUtf8 invalid) {
  *out++ = '"';
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (true) {
    const size_t run = CopyPassing(p + i, n - i, out);
    out += run;
    i += run;
    if (i >= n) break;
    const uint8_t c = p[i];
    if (c < 0x80) {
      const Escape& e = kEscapes.v[c];
      std::memcpy(out, e.text, 6);  // room: 6 bytes per input byte
      out += e.size;
      ++i;
      continue;
    }
    if (const size_t len = Utf8SequenceLength(p + i, n - i); len != 0) {
      out[0] = static_cast<char>(c);
      out[1] = static_cast<char>(p[i + 1]);
      if (len > 2) out[2] = static_cast<char>(p[i + 2]);
      if (len > 3) out[3] = static_cast<char>(p[i + 3]);
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
