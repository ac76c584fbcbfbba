// Scalar values of a pipeline file: durations as Flink reads them, integers
// with ranges, booleans, and the nearest-key suggestion.

#include "floe/pipeline/values.h"

#include <gtest/gtest.h>

namespace floe::pipeline {
namespace {

using std::chrono::milliseconds;

TEST(DurationTest, ReadsUnitsAsFlinkDoes) {
  EXPECT_EQ(ParseDuration("500ms").value(), milliseconds(500));
  EXPECT_EQ(ParseDuration("10s").value(), milliseconds(10000));
  EXPECT_EQ(ParseDuration("1min").value(), milliseconds(60000));
  EXPECT_EQ(ParseDuration("2 h").value(), milliseconds(7200000));
  EXPECT_EQ(ParseDuration("1d").value(), milliseconds(86400000));
  EXPECT_EQ(ParseDuration("3 minutes").value(), milliseconds(180000));
  EXPECT_EQ(ParseDuration("30000").value(), milliseconds(30000));  // no unit: ms
}

TEST(DurationTest, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "s", "ten seconds", "10 fortnights", "-5s", "1.5s"}) {
    auto result = ParseDuration(bad);
    ASSERT_FALSE(result) << bad;
    EXPECT_EQ(result.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(result.error().message().find("500ms, 10s, 1min"), std::string::npos)
        << result.error().message();
  }
  EXPECT_FALSE(ParseDuration("9999999999999999d"));
}

TEST(DurationTest, FormatsWithTheLargestEvenUnit) {
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(10000)), "10s");
  EXPECT_EQ(FormatDuration(milliseconds(60000)), "1min");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "90s");
  EXPECT_EQ(FormatDuration(milliseconds(86400000)), "1d");
}

TEST(IntegerTest, ChecksTypeAndRange) {
  EXPECT_EQ(ParseInteger("3306", 1, 65535).value(), 3306);
  EXPECT_EQ(ParseInteger("+7", 1, 10).value(), 7);
  auto text = ParseInteger("abc", 1, 65535);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "'abc' is not an integer (expected 1..65535)");
  auto range = ParseInteger("70000", 1, 65535);
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().message(), "70000 is out of range (expected 1..65535)");
  EXPECT_FALSE(ParseInteger("99999999999999999999999", 0, 10));
  EXPECT_FALSE(ParseInteger("12abc", 0, 100));
}

TEST(BoolTest, TrueOrFalseOnly) {
  EXPECT_TRUE(ParseBool("TRUE").value());
  EXPECT_FALSE(ParseBool("false").value());
  EXPECT_FALSE(ParseBool("yes"));
}

TEST(NearestKeyTest, SuggestsTyposOnly) {
  std::vector<std::string> keys = {"hostname", "port", "scan.startup.mode", "tables"};
  EXPECT_EQ(NearestKey("hostnme", keys), "hostname");
  EXPECT_EQ(NearestKey("scan.startup.mod", keys), "scan.startup.mode");
  EXPECT_EQ(NearestKey("tabels", keys), "tables");
  EXPECT_EQ(NearestKey("completely-different", keys), std::nullopt);
  EXPECT_EQ(NearestKey("x", keys), std::nullopt);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(DidYouMean("prot", keys), " (did you mean 'port'?)");
}

}  // namespace
}  // namespace floe::pipeline
