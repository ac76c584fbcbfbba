#include "floe/ingest/line_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "floe/testing/temp_dir.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

class LineSourceTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = (dir_ / "events.jsonl").string(); }

  void Write(const std::string& text, bool append = false) {
    std::ofstream out(path_, append ? std::ios::app | std::ios::binary : std::ios::binary);
    out << text;
  }

  /// Every remaining line as "number@offset-end:text".
  static std::vector<std::string> Drain(LineSource& source) {
    std::vector<std::string> out;
    while (true) {
      auto line = source.Next();
      EXPECT_TRUE(line.has_value()) << line.error().ToString();
      if (!line || !*line) break;
      const Line& l = **line;
      out.push_back(std::to_string(l.number) + "@" + std::to_string(l.offset) + "-" +
                    std::to_string(l.end_offset) + ":" + std::string(l.text));
    }
    return out;
  }

  floe::testing::TempDir temp_dir_{"line_source"};
  fs::path dir_ = temp_dir_.path();
  std::string path_;
};

TEST_F(LineSourceTest, OffsetsLineNumbersCrlfAndEmptyLines) {
  Write("a\r\n\nbb\n\r\nccc");
  auto source = LineSource::Open({.path = path_});
  ASSERT_TRUE(source.has_value()) << source.error().ToString();
  EXPECT_EQ(Drain(**source), (std::vector<std::string>{"1@0-3:a", "3@4-7:bb", "5@9-12:ccc"}));
  EXPECT_TRUE((*source)->at_end());
  EXPECT_EQ((*source)->position(), 12);
  EXPECT_EQ((*source)->line_number(), 5);
}

TEST_F(LineSourceTest, ResumesAtTheEndOffsetOfALine) {
  Write("one\ntwo\nthree\n");
  auto first = LineSource::Open({.path = path_});
  ASSERT_TRUE(first.has_value());
  auto line = (*first)->Next();
  ASSERT_TRUE(line && *line);
  int64_t offset = (*line)->end_offset;
  int64_t number = (*line)->number;
  EXPECT_EQ(offset, 4);

  auto resumed = LineSource::Open({.path = path_}, offset, number);
  ASSERT_TRUE(resumed.has_value());
  EXPECT_EQ(Drain(**resumed), (std::vector<std::string>{"2@4-8:two", "3@8-14:three"}));
}

TEST_F(LineSourceTest, TakeBufferedReturnsOnlyCompleteBufferedLinesThatStayValid) {
  // 64-byte buffer: the first read holds "a\r\n", "", "bb", "ccc" and part
  // of the long line; the last line has no newline.
  std::string long_line(70, 'x');
  Write("a\r\n\nbb\nccc\n" + long_line + "\nd\ne");
  auto opened = LineSource::Open({.path = path_, .buffer_size = 64});
  ASSERT_TRUE(opened.has_value());
  LineSource& source = **opened;
  auto first = source.Next();
  ASSERT_TRUE(first && *first);
  std::vector<Line> lines{**first};
  EXPECT_EQ(source.TakeBuffered(&lines, 1), 1u);    // at most max_lines
  EXPECT_EQ(source.TakeBuffered(&lines, 100), 1u);  // "ccc"; the long line is not complete
  ASSERT_EQ(lines.size(), 3u);
  // Every line taken since Next is still readable, with its position.
  auto text = [](const Line& l) {
    return std::to_string(l.number) + "@" + std::to_string(l.offset) + "-" +
           std::to_string(l.end_offset) + ":" + std::string(l.text);
  };
  EXPECT_EQ(text(lines[0]), "1@0-3:a");
  EXPECT_EQ(text(lines[1]), "3@4-7:bb");
  EXPECT_EQ(text(lines[2]), "4@7-11:ccc");
  EXPECT_EQ(source.position(), 11);
  EXPECT_EQ(source.line_number(), 4);
  // Next reads on; TakeBuffered never returns the last line without newline.
  auto next = source.Next();
  ASSERT_TRUE(next && *next);
  EXPECT_EQ((*next)->text, long_line);
  lines.clear();
  EXPECT_EQ(source.TakeBuffered(&lines, 100), 1u);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(text(lines[0]), "6@82-84:d");
  EXPECT_EQ(source.TakeBuffered(&lines, 100), 0u);
  EXPECT_EQ(Drain(source), (std::vector<std::string>{"7@84-85:e"}));
}

TEST_F(LineSourceTest, ResumeBeyondTheEndIsRefused) {
  Write("one\n");
  auto source = LineSource::Open({.path = path_}, 100, 3);
  ASSERT_FALSE(source.has_value());
  EXPECT_EQ(source.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(source.error().message().find("shorter"), std::string::npos)
      << source.error().message();
}

TEST_F(LineSourceTest, MissingFileIsNotFound) {
  auto source = LineSource::Open({.path = (dir_ / "nope.jsonl").string()});
  ASSERT_FALSE(source.has_value());
  EXPECT_EQ(source.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(source.error().message().find("nope.jsonl"), std::string::npos);
}

TEST_F(LineSourceTest, LinesLongerThanTheBuffer) {
  std::string big(100'000, 'x');
  Write("s\n" + big + "\n" + big + "y");
  auto source = LineSource::Open({.path = path_, .buffer_size = 64});
  ASSERT_TRUE(source.has_value());
  std::vector<std::string> lines;
  while (true) {
    auto line = (*source)->Next();
    ASSERT_TRUE(line.has_value());
    if (!*line) break;
    lines.emplace_back((*line)->text);
  }
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "s");
  EXPECT_EQ(lines[1], big);
  EXPECT_EQ(lines[2], big + "y");
  EXPECT_EQ((*source)->position(), static_cast<int64_t>(2 + big.size() + 1 + big.size() + 1));
}

TEST_F(LineSourceTest, FollowWaitsForGrowthAndHoldsAPartialLine) {
  Write("first\npart");
  auto opened = LineSource::Open(
      {.path = path_, .follow = true, .follow_poll_interval = std::chrono::milliseconds(5)});
  ASSERT_TRUE(opened.has_value());
  LineSource& source = **opened;

  auto line = source.Next(std::chrono::milliseconds(20));
  ASSERT_TRUE(line && *line);
  EXPECT_EQ((*line)->text, "first");
  // The partial "part" is not consumed, and waiting returns nothing.
  auto start = std::chrono::steady_clock::now();
  line = source.Next(std::chrono::milliseconds(50));
  ASSERT_TRUE(line.has_value());
  EXPECT_FALSE(line->has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(45));
  EXPECT_FALSE(source.at_end());
  EXPECT_EQ(source.position(), 6);

  // A writer completes the line while the reader waits.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Write("ial\nnext\n", /*append=*/true);
  });
  line = source.Next(std::chrono::milliseconds(2000));
  writer.join();
  ASSERT_TRUE(line && *line);
  EXPECT_EQ((*line)->text, "partial");
  EXPECT_EQ((*line)->offset, 6);
  line = source.Next(std::chrono::milliseconds(10));
  ASSERT_TRUE(line && *line);
  EXPECT_EQ((*line)->text, "next");
  EXPECT_EQ(source.position(), 19);
  EXPECT_EQ(source.line_number(), 3);
}

TEST_F(LineSourceTest, FollowedFileThatShrinksIsAnError) {
  Write("aaaa\nbbbb\n");
  auto opened = LineSource::Open(
      {.path = path_, .follow = true, .follow_poll_interval = std::chrono::milliseconds(5)});
  ASSERT_TRUE(opened.has_value());
  ASSERT_EQ(Drain(**opened).size(), 2u);
  Write("x\n");  // truncated and rewritten
  auto line = (*opened)->Next(std::chrono::milliseconds(20));
  ASSERT_FALSE(line.has_value());
  EXPECT_NE(line.error().message().find("shrank"), std::string::npos) << line.error().message();
}

TEST_F(LineSourceTest, StandardInputCannotResume) {
  auto source = LineSource::Open({.path = "-"}, 10, 1);
  ASSERT_FALSE(source.has_value());
  EXPECT_NE(source.error().message().find("standard input"), std::string::npos);
}

}  // namespace
}  // namespace floe::ingest
