// KeyPartitionWatch: a key read from two partitions of one topic is reported
// once per topic; keys that stay on their partition never are.

#include "floe/kafka/key_partition_watch.h"

#include <gtest/gtest.h>

namespace floe::kafka {
namespace {

TEST(KeyPartitionWatchTest, KeysThatStayOnTheirPartitionAreNeverReported) {
  KeyPartitionWatch watch;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 100; ++k) {
      EXPECT_EQ(watch.Note("shop", "{\"id\":" + std::to_string(k) + "}", k % 4), -1);
    }
  }
  EXPECT_EQ(watch.size(), 100u);
}

TEST(KeyPartitionWatchTest, AKeyOnASecondPartitionIsReportedOncePerTopic) {
  KeyPartitionWatch watch;
  EXPECT_EQ(watch.Note("shop", "{\"id\":1}", 0), -1);
  EXPECT_EQ(watch.Note("shop", "{\"id\":1}", 1), 0);
  EXPECT_EQ(watch.Note("shop", "{\"id\":1}", 0), -1);  // reported already
  EXPECT_EQ(watch.Note("shop", "{\"id\":2}", 0), -1);
  EXPECT_EQ(watch.Note("shop", "{\"id\":2}", 3), -1);
  // The same key in another topic is another key; that topic is reported on its own.
  EXPECT_EQ(watch.Note("crm", "{\"id\":1}", 2), -1);
  EXPECT_EQ(watch.Note("crm", "{\"id\":1}", 5), 2);
  // Topic and key are told apart: "ab" + "c" is not "a" + "bc".
  EXPECT_EQ(watch.Note("ab", "c", 0), -1);
  EXPECT_EQ(watch.Note("a", "bc", 1), -1);
}

TEST(KeyPartitionWatchTest, OnceFullNewKeysAreNotRememberedButKnownOnesAreChecked) {
  KeyPartitionWatch watch(2);
  EXPECT_EQ(watch.Note("t", "a", 0), -1);
  EXPECT_EQ(watch.Note("t", "b", 0), -1);
  EXPECT_EQ(watch.Note("t", "c", 0), -1);
  EXPECT_EQ(watch.size(), 2u);
  EXPECT_EQ(watch.Note("t", "c", 1), -1);  // never remembered
  EXPECT_EQ(watch.Note("t", "a", 1), 0);
}

}  // namespace
}  // namespace floe::kafka
