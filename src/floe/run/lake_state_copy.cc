#include "floe/run/lake_state_copy.h"

#include <iterator>

#include <fmt/format.h>

namespace floe::run {

LakeStateCopy::LakeStateCopy(io::FileIO* file_io, std::string dir,
                             std::chrono::milliseconds interval, std::string state_key)
    : store_(file_io, std::move(dir)), interval_(interval), state_key_(std::move(state_key)) {}

void LakeStateCopy::Taken(engine::CheckpointId id, std::string state) {
  candidates_[id] = std::move(state);
}

Status LakeStateCopy::MaybeWrite(engine::CheckpointId committed_through, bool force) {
  auto end = candidates_.upper_bound(committed_through);
  if (end == candidates_.begin()) return Ok();
  auto newest = std::prev(end);
  candidates_.erase(candidates_.begin(), newest);
  const auto now = std::chrono::steady_clock::now();
  if (newest->first <= written_ || (now < next_write_ && !force)) return Ok();
  engine::CompletedCheckpoint copy;
  copy.id = newest->first;
  copy.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  copy.states[state_key_] = std::move(newest->second);
  candidates_.erase(newest);
  if (Status saved = store_.Save(copy); !saved) {
    return std::unexpected(std::move(saved).error().WithContext(
        fmt::format("copying the source state of checkpoint {} to the lake", copy.id)));
  }
  written_ = copy.id;
  next_write_ = now + interval_;
  return Ok();
}

}  // namespace floe::run
