#include "floe/sink/record.h"

#include <algorithm>

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

void CheckpointPositions::MarkCommitted(int subtask, int parallelism, engine::CheckpointId id) {
  std::lock_guard lock(mu_);
  if (committed_.size() != static_cast<size_t>(parallelism)) {
    committed_.assign(static_cast<size_t>(parallelism), 0);
  }
  auto& mark = committed_[static_cast<size_t>(subtask)];
  mark = std::max(mark, id);
}

engine::CheckpointId CheckpointPositions::CommittedThrough() {
  std::lock_guard lock(mu_);
  if (committed_.empty()) return 0;
  return *std::min_element(committed_.begin(), committed_.end());
}

}  // namespace floe::sink
