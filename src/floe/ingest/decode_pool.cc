#include "floe/ingest/decode_pool.h"

#include <algorithm>

namespace floe::ingest {

DecodePool::DecodePool(size_t participants) {
  size_t helpers = std::max<size_t>(participants, 1) - 1;
  threads_.reserve(helpers);
  for (size_t i = 0; i < helpers; ++i) threads_.emplace_back([this, i] { Loop(i + 1); });
}

DecodePool::~DecodePool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void DecodePool::RunErased(void (*call)(void*, size_t), void* task) {
  if (!threads_.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      call_ = call;
      task_ = task;
      running_ = threads_.size();
      ++generation_;
    }
    start_.notify_all();
  }
  call(task, 0);
  if (!threads_.empty()) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return running_ == 0; });
  }
}

void DecodePool::Loop(size_t index) {
  uint64_t seen = 0;
  while (true) {
    void (*call)(void*, size_t) = nullptr;
    void* task = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      call = call_;
      task = task_;
    }
    call(task, index);
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      last = --running_ == 0;
    }
    if (last) done_.notify_one();
  }
}

}  // namespace floe::ingest
