#pragma once
/// A task run now and then on a thread of its own until the owner stops it:
/// the shape of a progress line or of a monitor that reads a server every
/// few seconds.
///
/// Call order: the constructor starts the thread; Stop() (or the destructor)
/// wakes it from its wait, lets a task that is running finish, and joins the
/// thread. After Stop() returns the task is never called again.
///
/// Threading: the task runs on the thread only, never two at once, so state
/// only the task touches needs no lock. Stop() is called by the owner (one
/// thread at a time, never from the task); it is idempotent.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace floe {

class PeriodicThread {
 public:
  struct Options {
    /// Time from the end of one run of the task to the start of the next.
    /// Default 1 s.
    std::chrono::milliseconds interval{1'000};
    /// Whether the task runs once at start, before the first wait. Default
    /// false: its first run is one interval after the start.
    bool run_at_start = false;
  };

  /// Starts the thread that calls `task` every `options.interval`.
  PeriodicThread(Options options, std::function<void()> task);
  /// Stop().
  ~PeriodicThread();
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  /// Ends the wait at once, waits for a running task to return, and joins
  /// the thread.
  void Stop();

 private:
  void Loop();

  Options options_;
  std::function<void()> task_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace floe
