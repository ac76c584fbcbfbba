#pragma once
/// ParallelFor: the sink's way to spread independent per-table work (closing
/// files, writing manifests, committing) over a few threads. Most of that
/// work waits for file syncs, so more threads than cores pay.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace floe::sink {

/// Runs fn(0..n-1) on up to `threads` threads (the caller's among them);
/// returns when every call returned. fn must not throw.
inline void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn) {
  size_t workers = std::min<size_t>(n, static_cast<size_t>(std::max(1, threads)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace floe::sink
