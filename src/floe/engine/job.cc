#include "floe/engine/job.h"

#include <chrono>

namespace floe::engine {
namespace internal {

std::string StateKey(const std::string& name, int subtask) {
  return fmt::format("{}/{}", name, subtask);
}

RestoredState RestoreFor(const CompletedCheckpoint* checkpoint, const std::string& name,
                         int subtask) {
  RestoredState state;
  if (checkpoint == nullptr) return state;
  state.checkpoint_id = checkpoint->id;
  std::string own = StateKey(name, subtask);
  std::string prefix = name + "/";
  for (const auto& [key, value] : checkpoint->states) {
    if (key == own) state.own = value;
    if (key.starts_with(prefix)) state.all.push_back(value);
  }
  return state;
}

JobRuntime::JobRuntime(const JobOptions& options, std::vector<std::unique_ptr<StageBase>>* stages)
    : options_(options), stages_(stages) {}

void JobRuntime::Ack(CheckpointId id, std::string key, std::string state) {
  std::lock_guard lock(mu_);
  auto it = pending_.find(id);
  if (it == pending_.end()) return;  // aborted (timed out) meanwhile
  it->second.checkpoint.states.emplace(std::move(key), std::move(state));
  if (++it->second.acks == total_subtasks_) {
    ready_.push_back(std::move(it->second.checkpoint));
    pending_.erase(it);
    cv_.notify_all();
  }
}

void JobRuntime::Fail(Error error) {
  {
    std::lock_guard lock(mu_);
    if (failure_) return;
    failure_ = std::move(error);
    cv_.notify_all();
  }
  stop_requested_ = true;
  for (auto& stage : *stages_) stage->Cancel();
}

void JobRuntime::RequestStop() {
  stop_requested_ = true;
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

void JobRuntime::SourceEnded() {
  std::lock_guard lock(mu_);
  ++sources_ended_;
  cv_.notify_all();
}

void JobRuntime::RequestCheckpoint() {
  std::lock_guard lock(mu_);
  checkpoint_requested_ = true;
  cv_.notify_all();
}

void JobRuntime::SubtaskExited() {
  std::lock_guard lock(mu_);
  --running_subtasks_;
  cv_.notify_all();
}

void JobRuntime::Trigger(CheckpointId id) {
  // Called with mu_ held.
  Pending p;
  p.started = std::chrono::steady_clock::now();
  p.checkpoint.id = id;
  p.checkpoint.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  pending_.emplace(id, std::move(p));
  for (auto& stage : *stages_) {
    if (stage->is_source()) stage->PostTrigger(id);
  }
}

Status JobRuntime::Persist(CompletedCheckpoint checkpoint) {
  if (options_.store != nullptr) FLOE_RETURN_IF_ERROR(options_.store->Save(checkpoint));
  // Operators hear of completion before sources, so that a source ending the
  // stream after the final checkpoint never overtakes the notification.
  for (auto& stage : *stages_) {
    if (!stage->is_source()) stage->PostComplete(checkpoint.id);
  }
  for (auto& stage : *stages_) {
    if (stage->is_source()) stage->PostComplete(checkpoint.id);
  }
  last_completed_ = checkpoint.id;
  return Ok();
}

Status JobRuntime::Run() {
  for (auto& stage : *stages_) {
    total_subtasks_ += static_cast<size_t>(stage->parallelism());
    if (stage->is_source()) source_subtasks_ += static_cast<size_t>(stage->parallelism());
  }
  std::optional<CompletedCheckpoint> restored;
  if (options_.store != nullptr) {
    std::string warning;
    FLOE_ASSIGN_OR_RETURN(restored, options_.store->LoadLatest(&warning));
    if (restored) next_id_ = restored->id + 1;
  }
  next_id_ = std::max(next_id_, options_.min_checkpoint_id + 1);
  running_subtasks_ = total_subtasks_;
  for (auto& stage : *stages_) stage->Start(this, restored ? &*restored : nullptr);

  auto next_trigger = std::chrono::steady_clock::now() + options_.checkpoint_interval;
  std::unique_lock lock(mu_);
  while (running_subtasks_ > 0) {
    if (failure_) {
      cv_.wait(lock, [&] { return running_subtasks_ == 0; });
      break;
    }
    auto now = std::chrono::steady_clock::now();
    // Persist checkpoints whose acks are all in, oldest first.
    while (!ready_.empty()) {
      CompletedCheckpoint c = std::move(ready_.front());
      ready_.erase(ready_.begin());
      lock.unlock();
      Status s = Persist(std::move(c));
      lock.lock();
      if (!s) {
        lock.unlock();
        Fail(std::move(s).error().WithContext("completing checkpoint"));
        lock.lock();
      }
      consecutive_failures_ = 0;
    }
    if (failure_) continue;
    // Abort checkpoints that took too long.
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (now - it->second.started > options_.checkpoint_timeout) {
        CheckpointId id = it->first;
        it = pending_.erase(it);
        bool is_final = id == final_checkpoint_.load();
        if (is_final || ++consecutive_failures_ > options_.tolerable_checkpoint_failures) {
          lock.unlock();
          Fail(
              Error(ErrorCode::kTimedOut, fmt::format("checkpoint {} did not complete within {} ms",
                                                      id, options_.checkpoint_timeout.count())));
          lock.lock();
          break;
        }
      } else {
        ++it;
      }
    }
    if (failure_) continue;
    if (sources_ended_ == source_subtasks_ && final_checkpoint_ == 0) {
      if (pending_.empty()) {
        final_checkpoint_ = next_id_;
        Trigger(next_id_++);
      }
    } else if (final_checkpoint_ == 0 && (now >= next_trigger || checkpoint_requested_) &&
               pending_.size() < static_cast<size_t>(options_.max_concurrent_checkpoints)) {
      Trigger(next_id_++);
      next_trigger = now + options_.checkpoint_interval;
      checkpoint_requested_ = false;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
  lock.unlock();
  for (auto& stage : *stages_) stage->Join();
  if (failure_) return std::unexpected(*failure_);
  return Ok();
}

}  // namespace internal

Job::~Job() = default;

Job::Job(JobOptions options)
    : options_(std::move(options)),
      runtime_(std::make_unique<internal::JobRuntime>(options_, &stages_)) {}

Status Job::Run() { return runtime_->Run(); }

void Job::RequestStop() { runtime_->RequestStop(); }

CheckpointId Job::last_completed_checkpoint() const { return runtime_->last_completed(); }

}  // namespace floe::engine
