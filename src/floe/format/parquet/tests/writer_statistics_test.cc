#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "floe/format/parquet/metrics.h"
#include "floe/format/parquet/schema_mapping.h"
#include "floe/format/parquet/statistics.h"

namespace floe::format::parquet {
namespace {

template <typename T>
T Decode(const std::string& bytes) {
  T v;
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

TEST(StatisticsTest, SignedIntegers) {
  ColumnStatistics stats(Type::kInt32, types::Type::Int().get(), 0);
  for (int v : {5, -3, 100, 0}) stats.UpdateInt(v);
  stats.AddNulls(2);
  Statistics t = stats.ToThrift();
  EXPECT_EQ(Decode<int32_t>(*t.min_value), -3);
  EXPECT_EQ(Decode<int32_t>(*t.max_value), 100);
  EXPECT_EQ(t.min, t.min_value);  // legacy fields are right for signed ints
  EXPECT_EQ(t.null_count, 2);
}

TEST(StatisticsTest, FloatsIgnoreNan) {
  ColumnStatistics stats(Type::kDouble, types::Type::Double().get(), 0);
  stats.UpdateFloating(std::nan(""));
  stats.UpdateFloating(2.5);
  stats.UpdateFloating(-1.0);
  stats.UpdateFloating(std::nan(""));
  Statistics t = stats.ToThrift();
  EXPECT_EQ(Decode<double>(*t.min_value), -1.0);
  EXPECT_EQ(Decode<double>(*t.max_value), 2.5);
}

TEST(StatisticsTest, AllNanHasNoMinMax) {
  ColumnStatistics stats(Type::kFloat, types::Type::Float().get(), 0);
  stats.UpdateFloating(std::nanf(""));
  EXPECT_FALSE(stats.has_min_max());
  Statistics t = stats.ToThrift();
  EXPECT_FALSE(t.min_value.has_value());
  EXPECT_FALSE(t.max_value.has_value());
  EXPECT_EQ(t.null_count, 0);
}

TEST(StatisticsTest, ZeroMinIsNegativeZeroAndZeroMaxIsPositiveZero) {
  // Parquet spec: a zero min is written -0.0, a zero max +0.0, whichever was seen.
  ColumnStatistics stats(Type::kFloat, types::Type::Float().get(), 0);
  stats.UpdateFloating(0.0);
  stats.UpdateFloating(-0.0);
  Statistics t = stats.ToThrift();
  float lo = Decode<float>(*t.min_value);
  float hi = Decode<float>(*t.max_value);
  EXPECT_EQ(lo, 0.0f);
  EXPECT_TRUE(std::signbit(lo));
  EXPECT_EQ(hi, 0.0f);
  EXPECT_FALSE(std::signbit(hi));

  ColumnStatistics only_negative(Type::kDouble, types::Type::Double().get(), 0);
  only_negative.UpdateFloating(-0.0);
  t = only_negative.ToThrift();
  EXPECT_FALSE(std::signbit(Decode<double>(*t.max_value)));
}

TEST(StatisticsTest, StringsCompareAsUnsignedBytes) {
  ColumnStatistics stats(Type::kByteArray, types::Type::String().get(), 0);
  // "é" (C3 A9) and "日" (E6 97 A5) sort after all ASCII in UTF-8 byte order,
  // which signed char comparison would get wrong.
  for (const char* s : {"zebra", "\xC3\xA9t\xC3\xA9", "apple", "\xE6\x97\xA5", "Apple"}) {
    stats.UpdateBytes(s);
  }
  Statistics t = stats.ToThrift();
  EXPECT_EQ(*t.min_value, "Apple");
  EXPECT_EQ(*t.max_value, "\xE6\x97\xA5");
  EXPECT_FALSE(t.min.has_value());  // legacy fields used signed bytes: not written
}

TEST(StatisticsTest, BinaryWithHighBytes) {
  ColumnStatistics stats(Type::kFixedLenByteArray, types::Type::Uuid().get(), 16);
  std::string lo(16, '\x01'), hi(16, '\x80');
  stats.UpdateBytes(hi);
  stats.UpdateBytes(lo);
  EXPECT_EQ(stats.EncodeMin(), lo);
  EXPECT_EQ(stats.EncodeMax(), hi);
}

TEST(StatisticsTest, FixedDecimalsAreSigned) {
  auto type = *types::Type::Decimal(20, 2);
  int length = DecimalFixedLength(20);
  EXPECT_EQ(length, 9);
  ColumnStatistics stats(Type::kFixedLenByteArray, type.get(), length);
  stats.UpdateDecimal(5);
  stats.UpdateDecimal(-7);
  std::string min = stats.EncodeMin();
  ASSERT_EQ(min.size(), 9u);
  EXPECT_EQ(static_cast<uint8_t>(min[0]), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>(min[8]), 0xF9);  // -7
  EXPECT_EQ(stats.EncodeMax(), std::string("\0\0\0\0\0\0\0\0\x05", 9));
}

TEST(StatisticsTest, MergeKeepsExtremesAndCounts) {
  ColumnStatistics a(Type::kInt64, types::Type::Long().get(), 0);
  ColumnStatistics b(Type::kInt64, types::Type::Long().get(), 0);
  a.UpdateInt(3);
  a.AddNulls(1);
  b.UpdateInt(-9);
  b.UpdateInt(11);
  b.AddNulls(2);
  a.Merge(b);
  EXPECT_EQ(Decode<int64_t>(a.EncodeMin()), -9);
  EXPECT_EQ(Decode<int64_t>(a.EncodeMax()), 11);
  EXPECT_EQ(a.null_count(), 3);
}

TEST(DecimalTest, FixedLengths) {
  EXPECT_EQ(DecimalFixedLength(1), 1);
  EXPECT_EQ(DecimalFixedLength(2), 1);
  EXPECT_EQ(DecimalFixedLength(3), 2);
  EXPECT_EQ(DecimalFixedLength(9), 4);
  EXPECT_EQ(DecimalFixedLength(10), 5);
  EXPECT_EQ(DecimalFixedLength(18), 8);
  EXPECT_EQ(DecimalFixedLength(19), 9);
  EXPECT_EQ(DecimalFixedLength(38), 16);
}

TEST(DecimalTest, MinimalBytes) {
  EXPECT_EQ(MinimalDecimalBytes(0), std::string("\0", 1));
  EXPECT_EQ(MinimalDecimalBytes(127), "\x7f");
  EXPECT_EQ(MinimalDecimalBytes(128), std::string("\0\x80", 2));
  EXPECT_EQ(MinimalDecimalBytes(-1), "\xff");
  EXPECT_EQ(MinimalDecimalBytes(-128), "\x80");
  EXPECT_EQ(MinimalDecimalBytes(-129), "\xff\x7f");
  EXPECT_EQ(MinimalDecimalBytes(1234), "\x04\xd2");
}

TEST(TruncationTest, StringLowerBoundIsCodePointPrefix) {
  EXPECT_EQ(TruncateStringLowerBound("abc", 16), "abc");
  EXPECT_EQ(TruncateStringLowerBound("abcdef", 3), "abc");
  // "日本語" is 3 code points of 3 bytes: the prefix keeps whole code points.
  EXPECT_EQ(TruncateStringLowerBound("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 2),
            "\xE6\x97\xA5\xE6\x9C\xAC");
}

TEST(TruncationTest, StringUpperBoundIncrementsLastCodePoint) {
  EXPECT_EQ(TruncateStringUpperBound("abc", 3), "abc");  // not truncated: exact
  EXPECT_EQ(TruncateStringUpperBound("abcdef", 3), "abd");
  // é (U+00E9) + 1 = ê (U+00EA).
  EXPECT_EQ(TruncateStringUpperBound("a\xC3\xA9zz", 2), "a\xC3\xAA");
  // U+D7FF + 1 would be a surrogate: jumps to U+E000.
  EXPECT_EQ(TruncateStringUpperBound("\xED\x9F\xBFxyz", 1), "\xEE\x80\x80");
  // U+007F + 1 = U+0080, which needs two bytes.
  EXPECT_EQ(TruncateStringUpperBound("\x7fzz", 1), "\xC2\x80");
  // The last code point is U+10FFFF: drop it and increment the one before.
  EXPECT_EQ(TruncateStringUpperBound("a\xF4\x8F\xBF\xBFzz", 2), "b");
  // Nothing can be incremented: no upper bound.
  EXPECT_FALSE(TruncateStringUpperBound("\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBFz", 2).has_value());
}

TEST(TruncationTest, BinaryBounds) {
  EXPECT_EQ(TruncateBinaryLowerBound("\x01\x02\x03", 2), "\x01\x02");
  EXPECT_EQ(TruncateBinaryUpperBound("\x01\x02\x03", 2), "\x01\x03");
  EXPECT_EQ(TruncateBinaryUpperBound("\x01\xff\x03", 2), "\x02");
  EXPECT_EQ(TruncateBinaryUpperBound("\x01\x02", 2), "\x01\x02");
  EXPECT_FALSE(TruncateBinaryUpperBound("\xff\xff\x01", 2).has_value());
}

TEST(MetricsConfigTest, Parse) {
  EXPECT_EQ(MetricsConfig::Parse("none")->mode, MetricsConfig::Mode::kNone);
  EXPECT_EQ(MetricsConfig::Parse("counts")->mode, MetricsConfig::Mode::kCounts);
  EXPECT_EQ(MetricsConfig::Parse("full")->mode, MetricsConfig::Mode::kFull);
  auto t = MetricsConfig::Parse("truncate(8)");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->truncate_length, 8);
  EXPECT_FALSE(MetricsConfig::Parse("truncate(0)").has_value());
  EXPECT_FALSE(MetricsConfig::Parse("truncate(x)").has_value());
  EXPECT_FALSE(MetricsConfig::Parse("all").has_value());
}

}  // namespace
}  // namespace floe::format::parquet
