#pragma once
/// InputGate: the inputs of one operator subtask — one bounded FIFO per
/// upstream subtask — behind one lock, so the consumer can wait on all of them
/// at once and still block single inputs (checkpoint barrier alignment).
///
/// Back-pressure: `Push` blocks while that input's queue holds `capacity`
/// elements. Nothing in the engine queues without bound.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace floe::engine {

template <typename T>
class InputGate {
 public:
  InputGate(size_t num_inputs, size_t capacity)
      : queues_(num_inputs), blocked_(num_inputs, false), capacity_(capacity) {}

  size_t num_inputs() const { return queues_.size(); }

  /// Appends to input `input`, waiting while it is full. Returns false if the
  /// gate was cancelled (the element is dropped).
  bool Push(size_t input, T element) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return cancelled_ || queues_[input].size() < capacity_; });
    if (cancelled_) return false;
    queues_[input].push_back(std::move(element));
    not_empty_.notify_one();
    return true;
  }

  /// Queues a control element (e.g. "checkpoint N completed"). Control
  /// elements bypass the capacity and blocking, and Pop returns them first;
  /// there are only ever a few.
  void PushControl(T element) {
    std::lock_guard lock(mu_);
    control_.push_back(std::move(element));
    not_empty_.notify_one();
  }

  /// Takes the next control element, else the next element from any input
  /// that is not blocked, round robin, waiting until one is there. Control
  /// elements come back with input index SIZE_MAX. Returns nullopt when
  /// cancelled.
  std::optional<std::pair<size_t, T>> Pop() {
    std::unique_lock lock(mu_);
    std::optional<std::pair<size_t, T>> out;
    not_empty_.wait(lock, [&] { return cancelled_ || TryTake(&out); });
    if (cancelled_ && !out) return std::nullopt;
    not_full_.notify_all();
    return out;
  }

  /// Stops taking from `input` (its elements stay queued) until Unblock.
  void Block(size_t input) {
    std::lock_guard lock(mu_);
    blocked_[input] = true;
  }
  void UnblockAll() {
    std::lock_guard lock(mu_);
    std::fill(blocked_.begin(), blocked_.end(), false);
    not_empty_.notify_all();
  }

  /// Wakes every waiter; later Push/Pop return at once.
  void Cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  bool TryTake(std::optional<std::pair<size_t, T>>* out) {
    if (!control_.empty()) {
      out->emplace(SIZE_MAX, std::move(control_.front()));
      control_.pop_front();
      return true;
    }
    size_t n = queues_.size();
    for (size_t k = 0; k < n; ++k) {
      size_t i = (next_ + k) % n;
      if (!blocked_[i] && !queues_[i].empty()) {
        out->emplace(i, std::move(queues_[i].front()));
        queues_[i].pop_front();
        next_ = (i + 1) % n;
        return true;
      }
    }
    return false;
  }

  std::mutex mu_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::vector<std::deque<T>> queues_;
  std::deque<T> control_;
  std::vector<bool> blocked_;
  size_t capacity_;
  size_t next_ = 0;
  bool cancelled_ = false;
};

}  // namespace floe::engine
