#pragma once
/// The durable record of completed checkpoints: one JSON file per checkpoint
/// in a state folder, written with write + fsync + atomic rename, so a crash at
/// any instruction leaves either the previous checkpoint or the new one, never
/// half of one. Keeps the last `retain` checkpoints. See docs/checkpoints.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::engine {

using CheckpointId = int64_t;

/// What a completed checkpoint holds: each operator subtask's state, keyed
/// "<operator name>/<subtask index>".
struct CompletedCheckpoint {
  CheckpointId id = 0;
  int64_t timestamp_ms = 0;
  std::map<std::string, std::string> states;
};

class CheckpointStore {
 public:
  /// `dir` is created on first save. `file_io` must outlive the store.
  CheckpointStore(io::FileIO* file_io, std::string dir, int retain = 3);

  /// Makes `checkpoint` durable, then deletes checkpoints beyond `retain`.
  /// Returns only once the checkpoint would survive a crash.
  Status Save(const CompletedCheckpoint& checkpoint);

  /// The newest checkpoint that reads back whole, or nullopt if there is none.
  /// A newer file that fails to parse is skipped with a warning in `*warning`
  /// (it cannot come from a completed Save, which renames atomically).
  Result<std::optional<CompletedCheckpoint>> LoadLatest(std::string* warning = nullptr);

  static std::string Serialize(const CompletedCheckpoint& checkpoint);
  static Result<CompletedCheckpoint> Parse(std::string_view text, std::string_view path);

 private:
  std::string PathOf(CheckpointId id) const;
  Result<std::vector<CheckpointId>> ListIds();

  io::FileIO* file_io_;
  std::string dir_;
  int retain_;
};

}  // namespace floe::engine
