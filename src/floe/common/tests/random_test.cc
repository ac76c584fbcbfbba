#include "floe/common/random.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace floe {
namespace {

TEST(RandomTest, UuidsAreVersion4InCanonicalTextAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string uuid = RandomUuid();
    ASSERT_EQ(uuid.size(), 36u) << uuid;
    for (size_t k : {8u, 13u, 18u, 23u}) EXPECT_EQ(uuid[k], '-') << uuid;
    EXPECT_EQ(uuid[14], '4') << uuid;                                          // version
    EXPECT_NE(std::string("89ab").find(uuid[19]), std::string::npos) << uuid;  // variant 10
    EXPECT_EQ(uuid.find_first_not_of("0123456789abcdef-"), std::string::npos) << uuid;
    seen.insert(uuid);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(RandomTest, UnitIsInRangeAndThreadsDrawDifferentNumbers) {
  for (int i = 0; i < 10000; ++i) {
    const double u = RandomUnit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  // Each thread seeds its own generator: two threads do not repeat each other.
  std::vector<uint64_t> a(64), b(64);
  std::thread ta([&] {
    for (auto& x : a) x = RandomU64();
  });
  std::thread tb([&] {
    for (auto& x : b) x = RandomU64();
  });
  ta.join();
  tb.join();
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace floe
