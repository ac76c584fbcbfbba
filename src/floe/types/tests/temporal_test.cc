#include "floe/types/temporal.h"

#include <gtest/gtest.h>

namespace floe::types {
namespace {

std::string Date(int32_t d) { std::string s; AppendDate(d, &s); return s; }
std::string Ts(int64_t us, bool utc = false) { std::string s; AppendTimestamp(us, utc, &s); return s; }
std::string Dec(int128_t v, int scale) { std::string s; AppendDecimal(v, scale, &s); return s; }

TEST(TemporalTest, Dates) {
  EXPECT_EQ(Date(0), "1970-01-01");
  EXPECT_EQ(Date(-1), "1969-12-31");
  EXPECT_EQ(Date(19782), "2024-02-29");
  EXPECT_EQ(Date(-719162), "0001-01-01");
  EXPECT_EQ(Date(2932896), "9999-12-31");
  for (int32_t d : {-719162, -1, 0, 1, 11016, 19782, 2932896}) EXPECT_EQ(*ParseDate(Date(d)), d);
  EXPECT_FALSE(ParseDate("2023-02-29"));
  EXPECT_FALSE(ParseDate("2024-13-01"));
  EXPECT_FALSE(ParseDate("2024-1-01"));
}

TEST(TemporalTest, TimesAndTimestamps) {
  std::string t;
  AppendTime(45'296'000'001, &t);
  EXPECT_EQ(t, "12:34:56.000001");
  EXPECT_EQ(*ParseTime("12:34:56.000001"), 45'296'000'001);
  EXPECT_EQ(*ParseTime("12:34"), 45'240'000'000);
  EXPECT_EQ(Ts(0), "1970-01-01T00:00:00.000000");
  EXPECT_EQ(Ts(-1), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(Ts(1'709'210'096'123'456, true), "2024-02-29T12:34:56.123456+00:00");
  EXPECT_EQ(*ParseTimestamp("2024-02-29T12:34:56.123456+00:00"), 1'709'210'096'123'456);
  EXPECT_EQ(*ParseTimestamp("2024-02-29 14:34:56.123456+02:00"), 1'709'210'096'123'456);
  EXPECT_FALSE(ParseTimestamp("2024-02-29T12:34:56.123456789Z"));  // no silent truncation
  EXPECT_EQ(*ParseTimestamp("2024-02-29T12:34:56.123456000Z"), 1'709'210'096'123'456);
  EXPECT_EQ(*ParseTimestamp("1969-12-31T23:59:59.999999"), -1);
  EXPECT_FALSE(ParseTimestamp("2024-02-29T25:00:00"));
  EXPECT_FALSE(ParseTimestamp("2024-02-29T12:00:00 junk"));
}

TEST(TemporalTest, Decimals) {
  EXPECT_EQ(Dec(1230, 2), "12.30");
  EXPECT_EQ(Dec(-5, 3), "-0.005");
  EXPECT_EQ(Dec(0, 0), "0");
  EXPECT_EQ(Dec(7, 0), "7");
  int128_t max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  EXPECT_EQ(Dec(-max38, 10), "-9999999999999999999999999999.9999999999");
  EXPECT_EQ(*ParseDecimal("-9999999999999999999999999999.9999999999", 38, 10), -max38);
  EXPECT_EQ(*ParseDecimal("12.3", 5, 2), 1230);
  EXPECT_EQ(*ParseDecimal("12.300", 5, 2), 1230);  // trailing zeros are not a loss
  EXPECT_FALSE(ParseDecimal("12.345", 5, 2));      // no silent rounding
  EXPECT_FALSE(ParseDecimal("1234.5", 5, 2));      // too many integer digits
  EXPECT_FALSE(ParseDecimal("1e5", 9, 0));
  EXPECT_FALSE(ParseDecimal("", 9, 0));
}

TEST(TemporalTest, Uuids) {
  std::string bytes;
  ASSERT_TRUE(ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7", &bytes));
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 0xf7);
  std::string text;
  AppendUuid(bytes, &text);
  EXPECT_EQ(text, "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_FALSE(ParseUuid("f79c3e09677c-4bbd-a479-3f349cb785e7x", &bytes));
}

}  // namespace
}  // namespace floe::types
