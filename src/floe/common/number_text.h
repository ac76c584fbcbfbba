#pragma once
/// Integers as decimal text for writers that make room first (JSON rows,
/// dates, decimals): the same digits as std::to_chars, written eight at a
/// time. Each writer stores whole 8-byte words, so it may store up to
/// kNumberStoreBound bytes at `out` — past the end of the text it returns;
/// the caller's room must hold them (the bytes past the end are left
/// unspecified, for what follows to overwrite).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace floe {

/// The most bytes WriteUint64 / WriteInt64 store (20 digits, a sign, and a
/// word's slack).
inline constexpr size_t kNumberStoreBound = 25;

namespace number_text_internal {

/// The eight decimal digits of `v` < 10^8, zero-padded, as bytes 0..9 (the
/// first digit in the lowest byte): the two halves of four digits, each
/// split in two pairs, each pair in two digits, all lanes of one word at once.
inline uint64_t DigitBytes8(uint32_t v) {
  const uint64_t halves = (v / 10000) | (static_cast<uint64_t>(v % 10000) << 32);
  // x / 100 is (x * 10486) >> 20 for x < 10^4, in each 32-bit lane.
  const uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007FULL;
  const uint64_t pairs = hundreds | ((halves - hundreds * 100) << 16);
  // x / 10 is (x * 103) >> 10 for x < 100, in each 16-bit lane.
  const uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FULL;
  return tens | ((pairs - tens * 10) << 8);
}

inline constexpr uint64_t kZeros = 0x3030303030303030ULL;

/// "00".."99".
inline constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline void StoreWord(uint64_t w, char* out) {
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  std::memcpy(out, &w, 8);
}

/// `v` in 1..10^8-1 without leading zeros; stores 8 bytes.
inline char* WriteLeading(uint32_t v, char* out) {
  const uint64_t digits = DigitBytes8(v);
  const int skip = std::countr_zero(digits) / 8;  // leading zero digits
  StoreWord((digits + kZeros) >> (8 * skip), out);
  return out + 8 - skip;
}

}  // namespace number_text_internal

/// Exactly `width` (1..8) digits of `v` < 10^width, zero-padded; stores 8 bytes.
inline char* WritePaddedDigits(uint32_t v, int width, char* out) {
  using namespace number_text_internal;
  StoreWord((DigitBytes8(v) + kZeros) >> (8 * (8 - width)), out);
  return out + width;
}

/// `v` in decimal; stores at most kNumberStoreBound - 1 bytes.
inline char* WriteUint64(uint64_t v, char* out) {
  using namespace number_text_internal;
  if (v < 10) {
    *out = static_cast<char>('0' + v);
    return out + 1;
  }
  if (v < 100) {  // small counts and codes: no word to assemble
    std::memcpy(out, kPairs + 2 * v, 2);
    return out + 2;
  }
  if (v < 100'000'000) return WriteLeading(static_cast<uint32_t>(v), out);
  if (v < 10'000'000'000'000'000ULL) {
    out = WriteLeading(static_cast<uint32_t>(v / 100'000'000), out);
  } else {
    const uint64_t high = v / 100'000'000;  // 9 to 12 digits
    out = WriteLeading(static_cast<uint32_t>(high / 100'000'000), out);
    StoreWord(DigitBytes8(static_cast<uint32_t>(high % 100'000'000)) + kZeros, out);
    out += 8;
  }
  StoreWord(DigitBytes8(static_cast<uint32_t>(v % 100'000'000)) + kZeros, out);
  return out + 8;
}

/// `v` in decimal; stores at most kNumberStoreBound bytes.
inline char* WriteInt64(int64_t v, char* out) {
  uint64_t magnitude = static_cast<uint64_t>(v);
  if (v < 0) {
    *out++ = '-';
    magnitude = 0 - magnitude;
  }
  return WriteUint64(magnitude, out);
}

}  // namespace floe
