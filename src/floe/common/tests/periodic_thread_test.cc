#include "floe/common/periodic_thread.h"

#include <atomic>
#include <chrono>

#include <gtest/gtest.h>

namespace floe {
namespace {

using std::chrono::milliseconds;

// Waits up to 10 s for `runs` to reach `at_least`.
bool ReachesRuns(const std::atomic<int>& runs, int at_least) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (runs.load() < at_least) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(PeriodicThreadTest, RunsTheTaskEveryInterval) {
  std::atomic<int> runs{0};
  PeriodicThread thread({.interval = milliseconds(1)}, [&] { ++runs; });
  EXPECT_TRUE(ReachesRuns(runs, 5));
}

TEST(PeriodicThreadTest, FirstRunWaitsOneIntervalUnlessAskedAtStart) {
  std::atomic<int> runs{0};
  {
    PeriodicThread thread({.interval = std::chrono::hours(1)}, [&] { ++runs; });
    std::this_thread::sleep_for(milliseconds(50));
  }  // stopping does not wait for the hour
  EXPECT_EQ(runs.load(), 0);

  PeriodicThread at_start({.interval = std::chrono::hours(1), .run_at_start = true},
                          [&] { ++runs; });
  EXPECT_TRUE(ReachesRuns(runs, 1));
  at_start.Stop();
  EXPECT_EQ(runs.load(), 1);
}

TEST(PeriodicThreadTest, StopWaitsForTheRunningTaskAndEndsTheRuns) {
  std::atomic<int> runs{0};
  std::atomic<bool> inside{false};
  PeriodicThread thread({.interval = milliseconds(1), .run_at_start = true}, [&] {
    inside = true;
    std::this_thread::sleep_for(milliseconds(20));
    ++runs;
    inside = false;
  });
  EXPECT_TRUE(ReachesRuns(runs, 1));
  while (!inside.load()) std::this_thread::sleep_for(milliseconds(1));
  thread.Stop();
  EXPECT_FALSE(inside.load());  // the run in progress finished before Stop returned
  int after_stop = runs.load();
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(runs.load(), after_stop);
  thread.Stop();  // idempotent
}

}  // namespace
}  // namespace floe
