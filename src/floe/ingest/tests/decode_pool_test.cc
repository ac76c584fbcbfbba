#include "floe/ingest/decode_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace floe::ingest {
namespace {

TEST(DecodePoolTest, RunCallsEveryParticipantOnceOnItsOwnThread) {
  DecodePool pool(3);
  ASSERT_EQ(pool.participants(), 3u);
  for (int round = 0; round < 200; ++round) {
    std::vector<int> calls(3, 0);
    std::vector<std::thread::id> threads(3);
    auto task = [&](size_t i) {
      ++calls[i];
      threads[i] = std::this_thread::get_id();
    };
    pool.Run(task);
    // Every call has returned (and its writes are visible) when Run returns.
    EXPECT_EQ(calls, (std::vector<int>{1, 1, 1}));
    EXPECT_EQ(threads[0], std::this_thread::get_id());
    EXPECT_EQ(std::set<std::thread::id>(threads.begin(), threads.end()).size(), 3u);
  }
}

TEST(DecodePoolTest, ParticipantsWorkAtTheSameTime) {
  DecodePool pool(2);
  std::atomic<int> arrived{0};
  // Each participant waits for the other: this returns only if both run at once.
  auto task = [&](size_t) {
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();
  };
  pool.Run(task);
  EXPECT_EQ(arrived.load(), 2);
}

TEST(DecodePoolTest, OneParticipantRunsOnTheCaller) {
  DecodePool pool(1);
  EXPECT_EQ(pool.participants(), 1u);
  std::thread::id where;
  auto task = [&](size_t i) {
    EXPECT_EQ(i, 0u);
    where = std::this_thread::get_id();
  };
  pool.Run(task);
  EXPECT_EQ(where, std::this_thread::get_id());
}

}  // namespace
}  // namespace floe::ingest
