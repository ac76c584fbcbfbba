#include "floe/common/ascii.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(AsciiTest, LowersOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower("ZSTD"), "zstd");
  EXPECT_EQ(AsciiLower("Lz4_Raw-9"), "lz4_raw-9");
  EXPECT_EQ(AsciiLower(""), "");
  // UTF-8 bytes of "Ä" (0xC3 0x84) stay as they are.
  EXPECT_EQ(AsciiLower("\xC3\x84X"), "\xC3\x84x");
}

TEST(AsciiTest, ComparesIgnoringCase) {
  EXPECT_TRUE(EqualsIgnoreAsciiCase("Content-Length", "content-length"));
  EXPECT_TRUE(EqualsIgnoreAsciiCase("", ""));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("gzip", "gzip2"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("a_b", "a-b"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("\xC3\xA4", "\xC3\x84"));
}

TEST(AsciiTest, TrimsAsciiSpaceAtBothEnds) {
  EXPECT_EQ(TrimAsciiSpace(" \t5 s\r\n"), "5 s");
  EXPECT_EQ(TrimAsciiSpace("\v\f"), "");
  EXPECT_EQ(TrimAsciiSpace(""), "");
  // A UTF-8 no-break space (0xC2 0xA0) is not ASCII space.
  EXPECT_EQ(TrimAsciiSpace("\xC2\xA0x"), "\xC2\xA0x");
}

}  // namespace
}  // namespace floe
