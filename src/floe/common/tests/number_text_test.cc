#include "floe/common/number_text.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace floe {
namespace {

std::string Expected(auto v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof(text), v).ptr);
}

/// The writer's text, checking that it stored nothing past kNumberStoreBound.
template <typename T, typename Write>
std::string Written(T v, Write write) {
  std::vector<char> out(kNumberStoreBound + 16, '#');
  char* end = write(v, out.data());
  for (size_t k = kNumberStoreBound; k < out.size(); ++k) {
    EXPECT_EQ(out[k], '#') << "stored past kNumberStoreBound for " << v;
  }
  return std::string(out.data(), end);
}

void ExpectSigned(int64_t v) {
  EXPECT_EQ(Written(v, [](int64_t x, char* o) { return WriteInt64(x, o); }), Expected(v));
}

void ExpectUnsigned(uint64_t v) {
  EXPECT_EQ(Written(v, [](uint64_t x, char* o) { return WriteUint64(x, o); }), Expected(v));
}

// Each length of 1 to 20 digits, at its edges: the writer splits a number in
// words of eight digits and drops the leading zeros of the first.
TEST(NumberTextTest, EveryLengthAtItsEdges) {
  uint64_t power = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (int64_t delta = -2; delta <= 2; ++delta) {
      const uint64_t v = power + static_cast<uint64_t>(delta);
      ExpectUnsigned(v);
      ExpectSigned(static_cast<int64_t>(v));
      ExpectSigned(-static_cast<int64_t>(v));
      ExpectUnsigned(v * 9);  // 99..9 and its neighbours
    }
    if (digits < 20) power *= 10;
  }
  ExpectUnsigned(0);
  ExpectUnsigned(std::numeric_limits<uint64_t>::max());
  ExpectSigned(0);
  ExpectSigned(std::numeric_limits<int64_t>::max());
  ExpectSigned(std::numeric_limits<int64_t>::min());
  ExpectSigned(std::numeric_limits<int32_t>::min());
}

TEST(NumberTextTest, EveryValueBelowAMillion) {
  for (int64_t v = -1'000'000; v <= 1'000'000; ++v) ExpectSigned(v);
}

TEST(NumberTextTest, RandomValuesOfEveryMagnitude) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200'000; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    ExpectUnsigned(v);
    ExpectSigned(static_cast<int64_t>(v));
  }
}

TEST(NumberTextTest, PaddedDigits) {
  char out[16];
  EXPECT_EQ(std::string(out, WritePaddedDigits(0, 1, out)), "0");
  EXPECT_EQ(std::string(out, WritePaddedDigits(7, 6, out)), "000007");
  EXPECT_EQ(std::string(out, WritePaddedDigits(999'999, 6, out)), "999999");
  EXPECT_EQ(std::string(out, WritePaddedDigits(12'345'678, 8, out)), "12345678");
  EXPECT_EQ(std::string(out, WritePaddedDigits(5, 2, out)), "05");
  std::mt19937 rng(3);
  for (int i = 0; i < 100'000; ++i) {
    const int width = 1 + static_cast<int>(rng() % 8);
    uint32_t limit = 1;
    for (int k = 0; k < width; ++k) limit *= 10;
    const uint32_t v = rng() % limit;
    std::string want = Expected(v);
    want.insert(0, static_cast<size_t>(width) - want.size(), '0');
    EXPECT_EQ(std::string(out, WritePaddedDigits(v, width, out)), want);
  }
}

}  // namespace
}  // namespace floe
