#include "floe/types/temporal.h"

#include <gtest/gtest.h>

namespace floe::types {
namespace {

std::string Date(int32_t d) {
  std::string s;
  AppendDate(d, &s);
  return s;
}
std::string Ts(int64_t us, bool utc = false) {
  std::string s;
  AppendTimestamp(us, utc, &s);
  return s;
}
std::string Dec(int128_t v, int scale) {
  std::string s;
  AppendDecimal(v, scale, &s);
  return s;
}

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

// Regression (fuzz/row_json): the extremes of int64 micros write and read back;
// beyond them is an error, not a signed overflow.
TEST(TemporalTest, TimestampExtremesRoundTrip) {
  EXPECT_EQ(Ts(INT64_MIN), "-290308-12-21T19:59:05.224192");
  EXPECT_EQ(Ts(INT64_MAX), "+294247-01-10T04:00:54.775807");
  for (int64_t us : {INT64_MIN, INT64_MIN + 1, INT64_MAX - 1, INT64_MAX}) {
    auto back = ParseTimestamp(Ts(us));
    ASSERT_TRUE(back) << back.error().ToString();
    EXPECT_EQ(*back, us);
  }
  // An offset may bring a day just past the range back into it.
  EXPECT_EQ(*ParseTimestamp("-290308-12-22T00:00:00+01:00"), -9'223'372'026'000'000'000);
  EXPECT_FALSE(ParseTimestamp("+294247-01-10T04:00:54.775808"));
  EXPECT_FALSE(ParseTimestamp("+294247-01-10T04:00:54.775807-00:01"));
  EXPECT_FALSE(ParseTimestamp("-290308-12-21T19:59:05.224191"));
  EXPECT_FALSE(ParseTimestamp("+999999999-12-31T23:59:59"));
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
  // Regression (fuzz/row_json): scaling 38 digits up wrapped 128 bits, so
  // 3999...9 (38 digits) was accepted by decimal(38, 1) as a small value.
  EXPECT_FALSE(ParseDecimal("39999999999999999999999999999999999999", 38, 1));
  EXPECT_FALSE(ParseDecimal("34028236692093846346337460743176821146", 38, 1));
  EXPECT_FALSE(ParseDecimal("1", 38, 38));
  EXPECT_EQ(*ParseDecimal("9999999999999999999999999999999999999", 38, 1), max38 - 9);
  EXPECT_EQ(*ParseDecimal("-0.9999999999999999999999999999999999999", 38, 38), -(max38 - 9));
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
