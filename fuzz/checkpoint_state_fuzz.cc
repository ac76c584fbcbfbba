// Fuzzes what a restart reads back: the checkpoint file
// (engine::CheckpointStore::Parse) and the committer state it carries
// (sink::ParseCommitState, sink::MergeCommitStates). The input is tried as
// both: as a checkpoint file, whose states are then merged as committer
// states (as CommitterOperator::Open does), and as one committer state.
// Nothing may crash, hang or fail an assertion; errors are fine. Whatever is
// accepted must write back (Serialize / SerializeCommitState) to text that
// parses again to an equal value and writes identically; a merge keeps only
// the tables its filter keeps. Seeds and crash regressions:
// tests/fuzz/checkpoint_state/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checks.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/sink/commit_state.h"

namespace {

using floe::fuzz::Accepted;
using floe::fuzz::Check;

void FuzzCommitState(std::string_view text) {
  auto state = floe::sink::ParseCommitState(text, "fuzz");
  if (!Accepted(state)) return;
  for (const auto& [id, checkpoint] : state->pending) {
    Check(checkpoint.id == id);
    for (const auto& [key, table] : checkpoint.tables) Check(table.id.ToString() == key);
  }
  for (const auto& [key, table] : state->known_tables) Check(table.id.ToString() == key);
  std::string written = floe::sink::SerializeCommitState(*state);
  auto again = floe::sink::ParseCommitState(written, "written");
  Check(static_cast<bool>(again));
  Check(*again == *state);
  Check(floe::sink::SerializeCommitState(*again) == written);
}

void FuzzCheckpoint(std::string_view text) {
  auto checkpoint = floe::engine::CheckpointStore::Parse(text, "checkpoint-fuzz.json");
  if (!Accepted(checkpoint)) return;
  std::string written = floe::engine::CheckpointStore::Serialize(*checkpoint);
  auto again = floe::engine::CheckpointStore::Parse(written, "written.json");
  Check(static_cast<bool>(again));
  Check(again->id == checkpoint->id && again->timestamp_ms == checkpoint->timestamp_ms &&
        again->states == checkpoint->states);
  Check(floe::engine::CheckpointStore::Serialize(*again) == written);

  std::vector<std::string> states;
  for (const auto& [key, value] : checkpoint->states) {
    states.push_back(value);
    FuzzCommitState(value);
  }
  // Keep every other table key (by its length), as a committer keeps the
  // tables its subtask owns after a change of parallelism.
  auto keep = [](const std::string& key) { return key.size() % 2 == 0; };
  auto merged = floe::sink::MergeCommitStates(states, keep);
  if (!Accepted(merged)) return;
  for (const auto& [id, pending] : merged->pending) {
    Check(pending.id == id && !pending.tables.empty());
    for (const auto& [key, table] : pending.tables) Check(keep(key));
  }
  for (const auto& [key, table] : merged->known_tables) Check(keep(key));
  std::string merged_text = floe::sink::SerializeCommitState(*merged);
  auto reparsed = floe::sink::ParseCommitState(merged_text, "merged");
  Check(reparsed && *reparsed == *merged);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FuzzCheckpoint(text);
  FuzzCommitState(text);
  return 0;
}
