#pragma once
/// DecodePool: the threads that decode the lines of `floe ingest` in
/// parallel (docs/ingest.md, "Parallel decoding"). The source subtask's
/// thread hands it one chunk of lines at a time: Run calls a task once per
/// participant, on the helper threads and on the calling thread, and returns
/// when every call has returned. Each participant works on its own part of
/// the chunk with its own decoder, so the tasks share nothing mutable and the
/// pool takes its lock twice per chunk and participant, never per line.
///
/// The helper threads are started by the constructor and joined by the
/// destructor (never per chunk). Run is called by one thread at a time (the
/// source's); a task must not throw.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace floe::ingest {

class DecodePool {
 public:
  /// A pool of `participants` (at least 1): the calling thread of Run and
  /// `participants - 1` helper threads, started now.
  explicit DecodePool(size_t participants);
  ~DecodePool();
  DecodePool(const DecodePool&) = delete;
  DecodePool& operator=(const DecodePool&) = delete;

  size_t participants() const { return threads_.size() + 1; }

  /// Calls `task(i)` for every i in [0, participants()): i = 0 on the calling
  /// thread, the others on the helper threads, all at the same time; returns
  /// once every call has returned. What the tasks wrote is visible to the
  /// caller afterwards (the pool's lock orders it).
  template <typename Task>
  void Run(Task& task) {
    RunErased([](void* t, size_t i) { (*static_cast<Task*>(t))(i); }, &task);
  }

 private:
  void RunErased(void (*call)(void*, size_t), void* task);
  void Loop(size_t index);

  std::mutex mu_;
  std::condition_variable start_;
  std::condition_variable done_;
  uint64_t generation_ = 0;  ///< bumped by each Run
  size_t running_ = 0;       ///< helper calls of this generation not yet returned
  bool stop_ = false;
  void (*call_)(void*, size_t) = nullptr;
  void* task_ = nullptr;
  std::vector<std::thread> threads_;
};

}  // namespace floe::ingest
