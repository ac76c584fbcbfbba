#include "floe/common/line_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace floe {
namespace {

/// A read function over `text`, handing out at most `chunk` bytes a call.
LineReader::ReadFunction ReadFrom(std::string text, size_t chunk) {
  auto offset = std::make_shared<size_t>(0);
  return [text = std::move(text), chunk, offset](std::span<char> into) -> Result<size_t> {
    size_t n = std::min({chunk, into.size(), text.size() - *offset});
    std::memcpy(into.data(), text.data() + *offset, n);
    *offset += n;
    return n;
  };
}

std::vector<std::string> AllLines(LineReader& reader) {
  std::vector<std::string> out;
  while (true) {
    auto line = reader.Next();
    EXPECT_TRUE(line.has_value());
    if (!line || !*line) break;
    out.emplace_back((*line)->text);
  }
  return out;
}

TEST(LineReaderTest, SplitsAtNewlinesDroppingCarriageReturns) {
  LineReader reader(ReadFrom("a\r\n\nbc\n\r\nd\r", 3), 64);
  EXPECT_EQ(AllLines(reader), (std::vector<std::string>{"a", "", "bc", "", "d"}));
  EXPECT_EQ(reader.bytes_read(), 11);
}

TEST(LineReaderTest, LastLineWithoutNewline) {
  LineReader reader(ReadFrom("x\nlast", 100), 64);
  EXPECT_EQ(AllLines(reader), (std::vector<std::string>{"x", "last"}));
  LineReader empty(ReadFrom("", 100), 64);
  EXPECT_TRUE(AllLines(empty).empty());
}

TEST(LineReaderTest, GrowsForLinesLongerThanTheBuffer) {
  std::string longer(1000, 'z');
  LineReader reader(ReadFrom("s\n" + longer + "\nt\n", 7), 64);
  EXPECT_EQ(AllLines(reader), (std::vector<std::string>{"s", longer, "t"}));
}

TEST(LineReaderTest, CountsInputBytesAndKeepsARestForTheCaller) {
  LineReader reader(ReadFrom("ab\r\ncd", 100), 64);
  LineReader::Line line;
  EXPECT_FALSE(reader.TakeLine(&line));
  ASSERT_EQ(reader.Fill().value(), 6u);
  ASSERT_TRUE(reader.TakeLine(&line));
  EXPECT_EQ(line.text, "ab");
  EXPECT_EQ(line.input_bytes, 4u);
  EXPECT_FALSE(reader.TakeLine(&line));
  EXPECT_EQ(reader.buffered(), 2u);
  ASSERT_EQ(reader.Fill().value(), 0u);
  ASSERT_TRUE(reader.TakeRest(&line));
  EXPECT_EQ(line.text, "cd");
  EXPECT_EQ(line.input_bytes, 2u);
  EXPECT_FALSE(reader.TakeRest(&line));
}

TEST(LineReaderTest, PassesReadErrorsOn) {
  LineReader reader([](std::span<char>) -> Result<size_t> { return IoError("disk gone"); }, 64);
  auto line = reader.Next();
  ASSERT_FALSE(line.has_value());
  EXPECT_EQ(line.error().code(), ErrorCode::kIo);
}

}  // namespace
}  // namespace floe
