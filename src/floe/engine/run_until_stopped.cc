#include "floe/engine/run_until_stopped.h"

#include <chrono>
#include <thread>

namespace floe::engine {

Status RunUntilStopped(Job& job, const std::atomic<bool>* stop) {
  if (stop == nullptr) return job.Run();
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (stop->load()) {
        job.RequestStop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  Status status = job.Run();
  done.store(true);
  watcher.join();
  return status;
}

}  // namespace floe::engine
