#include "floe/sink/record.h"

namespace floe::sink {

void CheckpointPositions::Put(engine::CheckpointId id, int source_subtask, std::string position) {
  std::lock_guard lock(mu_);
  positions_[id][source_subtask] = std::move(position);
}

std::string CheckpointPositions::Get(engine::CheckpointId id) {
  std::lock_guard lock(mu_);
  // Keep a window of older checkpoints: with several checkpoints in flight
  // a slower committer still asks for an older id.
  positions_.erase(positions_.begin(), positions_.lower_bound(id - kKeptCheckpoints));
  auto it = positions_.find(id);
  if (it == positions_.end()) return {};
  std::string joined;
  for (const auto& [subtask, position] : it->second) {
    if (!joined.empty()) joined += ';';
    joined += position;
  }
  return joined;
}

}  // namespace floe::sink
