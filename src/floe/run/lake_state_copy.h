#pragma once
/// LakeStateCopy: the copy a source of `floe run` keeps of its checkpoint
/// state in the lake (LakeStateDir), so that a run whose state folder was
/// lost resumes from the lake (docs/kafka.md, "Offsets belong to the lake").
///
/// The source hands it the state of every checkpoint it takes (Taken); the
/// copy of checkpoint N is written only once every committer has committed
/// N (sink::CheckpointPositions::CommittedThrough), so no table lacks a row
/// before it. Older committed states are dropped unwritten: the newest
/// supersedes them. Written in the format of engine::CheckpointStore, as a
/// checkpoint with the source's state only, under the source's state key
/// ("<operator>/<subtask>"), so it can be restored into the state folder as
/// it is. Not thread-safe: the source's thread calls it.

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/io/file_io.h"

namespace floe::run {

class LakeStateCopy {
 public:
  /// Writes into folder `dir` over `file_io` (which must outlive the copy),
  /// at most every `interval` (except MaybeWrite's `force`), the state under
  /// `state_key`.
  LakeStateCopy(io::FileIO* file_io, std::string dir, std::chrono::milliseconds interval,
                std::string state_key);

  /// The source took checkpoint `id` with state `state`.
  void Taken(engine::CheckpointId id, std::string state);

  /// Writes the newest state taken whose checkpoint is at most
  /// `committed_through`, unless one as new is written or the interval since
  /// the last write has not passed (`force`: write anyway, e.g. at a clean
  /// stop). Errors: the FileIO's, with the checkpoint as context.
  Status MaybeWrite(engine::CheckpointId committed_through, bool force = false);

  /// The checkpoint last written (0: none).
  engine::CheckpointId written() const { return written_; }

 private:
  engine::CheckpointStore store_;
  std::chrono::milliseconds interval_;
  std::string state_key_;
  std::map<engine::CheckpointId, std::string> candidates_;
  engine::CheckpointId written_ = 0;
  std::chrono::steady_clock::time_point next_write_{};
};

}  // namespace floe::run
