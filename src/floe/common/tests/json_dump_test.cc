#include "floe/common/json_dump.h"

#include <cstdint>

#include <gtest/gtest.h>

#include "floe/common/printable.h"
#include "floe/common/utf8.h"

namespace floe {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

TEST(JsonDumpTest, WritesWhatNlohmannWritesForValidText) {
  json doc = json::parse(R"({"b": [1, -2, 3.5, 1e300, true, null, [], {}],
      "a": {"x": "caf\u00e9 \u6771\u4eac \ud83d\ude00", "ctl": "\u0001\t\n\r\b\f\"\\\u007f"},
      "u": 18446744073709551615, "e": ""})");
  for (int indent : {-1, 0, 2, 4}) {
    EXPECT_EQ(DumpJson(doc, indent), doc.dump(indent)) << indent;
  }
  ordered_json ordered = ordered_json::parse(R"({"z": 1, "a": [{"k": "v"}], "m": {}})");
  EXPECT_EQ(DumpJson(ordered, 2), ordered.dump(2));
  EXPECT_EQ(DumpJson(json("x")), "\"x\"");
  EXPECT_EQ(DumpJson(json::array()), "[]");
}

TEST(JsonDumpTest, EscapesInvalidUtf8LosslesslyWhereDumpAborts) {
  // A Parquet column name, a namespace or a file name with a Latin-1 byte and
  // a truncated sequence: nlohmann's dump throws (the process ended).
  json doc = {{"name", std::string("caf\xE9\xE6\x9D", 6)}, {std::string("k\xFF"), 1}};
  EXPECT_THROW((void)doc.dump(), json::type_error);
  std::string text = DumpJson(doc);
  EXPECT_EQ(text, R"({"k\udcff":1,"name":"caf\udce9\udce6\udc9d"})");
  // Valid sequences beside invalid bytes stay as they are.
  EXPECT_EQ(DumpJson(json(std::string("\xC3\xA9\xC3", 3))), "\"\xC3\xA9\\udcc3\"");
}

TEST(Utf8Test, FindsTheFirstInvalidByte) {
  EXPECT_EQ(FindInvalidUtf8("plain"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("caf\xC3\xA9"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("caf\xE9"), 3u);
  EXPECT_EQ(FindInvalidUtf8("\xC0\x80"), 0u);        // overlong NUL
  EXPECT_EQ(FindInvalidUtf8("ab\xED\xA0\x80"), 2u);  // surrogate
  auto status = CheckUtf8("ns\xFF", "namespace");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(), "namespace is not valid UTF-8 (byte 0xFF at offset 2)");
}

TEST(PrintableTest, ControlCharactersCannotStartALine) {
  EXPECT_EQ(EscapeControlCharacters("a\nb"), "a\\nb");
  EXPECT_EQ(EscapeControlCharacters("t\r\x1b[2J\x7f\tz"), "t\\r\\x1b[2J\\x7f\\tz");
  EXPECT_EQ(EscapeControlCharacters("caf\xC3\xA9 \xFF"), "caf\xC3\xA9 \\xff");
  EXPECT_EQ(EscapeControlCharacters("back\\slash"), "back\\slash");
}

TEST(PrintableTest, LongNamesAreCut) {
  std::string name(100'000, 'n');
  std::string message = "table ns." + name + " not found";
  std::string shown = ShortenLongNames(message);
  EXPECT_LT(shown.size(), 200u);
  EXPECT_EQ(shown, "table " + ("ns." + std::string(97, 'n')) + "...[100003 bytes] not found");
  EXPECT_EQ(ShortenLongNames("short message"), "short message");
  // Never cut inside a UTF-8 sequence.
  std::string wide;
  for (int i = 0; i < 200; ++i) wide += "\xC3\xA9";
  std::string cut = ShortenLongNames(wide);
  EXPECT_EQ(FindInvalidUtf8(cut), std::string_view::npos);
  EXPECT_EQ(PrintableMessage("x\n" + name).find('\n'), std::string::npos);
}

TEST(PrintableTest, LongListsAreCut) {
  EXPECT_EQ(JoinAtMost({}), "");
  EXPECT_EQ(JoinAtMost({"a", "b"}, 2), "a, b");
  EXPECT_EQ(JoinAtMost({"a", "b", "c", "d"}, 2), "a, b and 2 more");
}

TEST(PrintableTest, ThousandsAreGrouped) {
  EXPECT_EQ(Thousands(0), "0");
  EXPECT_EQ(Thousands(999), "999");
  EXPECT_EQ(Thousands(1000), "1,000");
  EXPECT_EQ(Thousands(1234567), "1,234,567");
  EXPECT_EQ(Thousands(-1000), "-1,000");
  EXPECT_EQ(Thousands(INT64_MIN), "-9,223,372,036,854,775,808");
}

}  // namespace
}  // namespace floe
