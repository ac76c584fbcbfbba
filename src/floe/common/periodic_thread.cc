#include "floe/common/periodic_thread.h"

namespace floe {

PeriodicThread::PeriodicThread(Options options, std::function<void()> task)
    : options_(options), task_(std::move(task)) {
  thread_ = std::thread([this] { Loop(); });
}

PeriodicThread::~PeriodicThread() { Stop(); }

void PeriodicThread::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicThread::Loop() {
  std::unique_lock lock(mu_);
  bool run = options_.run_at_start;
  while (!stop_) {
    if (run) {
      lock.unlock();
      task_();
      lock.lock();
    }
    run = !cv_.wait_for(lock, options_.interval, [this] { return stop_; });
  }
}

}  // namespace floe
