#pragma once
/// Running a job that a flag may stop: what `floe ingest` and `floe run` do
/// with the flag their SIGINT/SIGTERM handlers set.

#include <atomic>

#include "floe/common/result.h"
#include "floe/engine/job.h"

namespace floe::engine {

/// Runs `job` to its end (Job::Run). When `stop` (may be null) becomes true
/// meanwhile, asks the job to stop (Job::RequestStop: the sources end at
/// their current position and a final checkpoint is taken); the flag is
/// looked at every 50 ms. Returns what Job::Run returns.
Status RunUntilStopped(Job& job, const std::atomic<bool>* stop);

}  // namespace floe::engine
