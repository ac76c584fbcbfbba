#pragma once
/// MemoryBudget: the memory that all writer subtasks of a job together may
/// hold in buffered rows (`SinkOptions::memory_budget_bytes`,
/// docs/sink-writers.md).
///
/// Each writer subtask holds an Account and reports its buffered bytes
/// (unflushed row groups, key maps, pending deletes) after every batch. When
/// the job's total passes the soft limit (7/8 of the budget), a subtask whose
/// own bytes exceed its share (soft limit / accounts) flushes its largest
/// buffers until it is under 3/4 of its share. The headroom between the
/// soft limit and the budget absorbs what subtasks add between two reports
/// (one batch each), so the total stays under the budget. Subtasks never
/// wait on each other: the budget is a shared counter, not a lock.
/// Thread-safe.

#include <atomic>
#include <cstdint>

namespace floe::sink {

class MemoryBudget {
 public:
  explicit MemoryBudget(int64_t budget_bytes) : budget_(budget_bytes) {}

  class Account {
   public:
    explicit Account(MemoryBudget* budget) : budget_(budget) { budget_->accounts_++; }
    ~Account() {
      Report(0);
      budget_->accounts_--;
    }
    Account(const Account&) = delete;
    Account& operator=(const Account&) = delete;

    /// Sets this account's bytes (the job's total moves by the difference).
    void Report(int64_t bytes) {
      const int64_t delta = bytes - bytes_;
      bytes_ = bytes;
      if (delta != 0) budget_->Add(delta);
    }
    int64_t bytes() const { return bytes_; }
    /// The job is over its budget and this account holds more than its share.
    bool ShouldRelieve() const { return budget_->over() && bytes_ > budget_->share(); }
    /// The bytes this account should come down to when relieving.
    int64_t relief_target() const { return budget_->share() / 4 * 3; }

   private:
    MemoryBudget* budget_;
    int64_t bytes_ = 0;
  };

  int64_t budget_bytes() const { return budget_; }
  /// Bytes reported by all accounts now, and the most ever reported at once.
  int64_t total_bytes() const { return total_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }
  /// 7/8 of the budget: where subtasks start flushing.
  int64_t soft_limit() const { return budget_ - budget_ / 8; }
  bool over() const { return total_bytes() > soft_limit(); }
  /// soft limit / number of accounts.
  int64_t share() const {
    int n = accounts_.load(std::memory_order_relaxed);
    return n <= 1 ? soft_limit() : soft_limit() / n;
  }
  /// Times an account had to flush to come under its share (for tests and logs).
  int64_t relief_count() const { return reliefs_.load(std::memory_order_relaxed); }
  void CountRelief() { reliefs_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void Add(int64_t delta) {
    int64_t now = total_.fetch_add(delta, std::memory_order_relaxed) + delta;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }

  const int64_t budget_;
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int> accounts_{0};
  std::atomic<int64_t> reliefs_{0};
};

}  // namespace floe::sink
