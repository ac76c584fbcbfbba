#pragma once
/// SplitEnumerator: the monitor of the Iceberg source (docs/read.md, "The
/// split protocol"). One per job, shared by the split readers (IcebergSplitReader)
/// of one engine source stage: it plans new snapshots into splits at the
/// monitor interval (on the thread of whichever reader finds a round due;
/// one round at a time) and hands them out one at a time to readers that ask.
///
/// Checkpoints: each reader's state holds the split it is reading and how
/// many of its rows it has emitted; the monitor's state (last planned
/// snapshot, splits not handed out) goes into the state of the reader that
/// is last to snapshot a checkpoint. A reader that has snapshotted a
/// checkpoint some other reader has not is given no split until they all
/// have; so at that last snapshot no split moved between the monitor and a
/// reader that had already snapshotted, and every split is, in the
/// checkpoint, exactly once: unplanned, pending, being read (with its
/// position) or read. A restore puts the splits being read first in the
/// queue, with their positions, so any reader (the parallelism may change)
/// resumes them.
///
/// Thread-safe: every method may be called from any reader thread.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/source/split.h"
#include "floe/source/split_planner.h"
#include "floe/types/schema.h"

namespace floe::source {

struct EnumeratorOptions {
  /// The table, for messages ("ns.table").
  std::string table_name;
  /// Loads the table's current metadata; called by one planning round at a time.
  std::function<Result<iceberg::TableMetadata>()> load;
  /// Reads manifests; must outlive the enumerator.
  io::FileIO* io = nullptr;
  PlanOptions plan;
  /// Time between planning rounds (Flink's monitor-interval). Default 10 s.
  std::chrono::milliseconds monitor_interval{10'000};
  /// Split readers (the source stage's parallelism).
  int readers = 1;
  /// Failed planning rounds in a row that are logged and retried at the next
  /// interval before the read fails (Flink's max-allowed-planning-failures);
  /// -1: never fail. Default 3. The first round (Start) never retries.
  int max_allowed_planning_failures = 3;
};

/// A split handed to a reader: `position` of its rows were emitted before
/// (by a run before a restore); the reader skips them.
struct SplitAssignment {
  IcebergSplit split;
  int64_t position = 0;
};

class SplitEnumerator {
 public:
  explicit SplitEnumerator(EnumeratorOptions options);

  /// Before any reader runs: restores from the reader stage's states of the
  /// restored checkpoint (`restored`, as engine::RestoredState::all), or,
  /// with none, runs the first planning round. Errors: kCorruption (a state
  /// that does not parse, or no monitor state in it), those of loading and
  /// planning.
  Status Start(const std::vector<std::string>& restored);

  /// Splits waiting for a reader.
  size_t pending_splits() const;

  /// Sets the number of readers (before the job starts; default
  /// EnumeratorOptions::readers).
  void SetReaders(int readers);

  /// For reader `reader`: the next split, after a planning round if one is
  /// due. nullopt when there is none for it now (then `*finished` says
  /// whether there will never be one: the read has an end, reached it, and
  /// every split is handed out; or planning stopped at an overwrite or delete
  /// snapshot (stopped_by()) and every split before it is read). Errors: a
  /// planning round failed more than max_allowed_planning_failures times in
  /// a row (sticky: every later call returns it).
  Result<std::optional<SplitAssignment>> Next(int reader, bool* finished);

  /// Reader `reader` has read the whole split it was given.
  void Done(int reader);

  /// Reader `reader`'s state for checkpoint `id`: `current` is its split and
  /// position (nullopt: none); the monitor's state is added when this is the
  /// last reader to snapshot `id`.
  std::string SnapshotState(int reader, engine::CheckpointId id,
                            const std::optional<SplitAssignment>& current);

  /// Waits up to `timeout` for a split, a finished split or a due planning round.
  void Wait(std::chrono::milliseconds timeout);

  /// The table's metadata as last loaded (for changelog splits); nullptr before Start.
  std::shared_ptr<const iceberg::TableMetadata> Metadata() const;

  /// The schema of `schema_id` in the table's metadata; nullptr if unknown.
  std::shared_ptr<const types::Schema> Schema(int32_t schema_id) const;

  /// Where planning stands (tests, summaries).
  PlanPosition position() const;
  int64_t splits_planned() const;
  /// The overwrite or delete snapshot planning stopped at (PlanRound::stopped_by).
  std::optional<Error> stopped_by() const;

 private:
  /// `tolerate`: a failure within max_allowed_planning_failures is logged
  /// and Ok is returned.
  Status PlanRoundLocked(std::unique_lock<std::mutex>& lock, bool tolerate);
  Status Restore(const std::vector<std::string>& restored);
  void RememberSchemas(const iceberg::TableMetadata& metadata);

  EnumeratorOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SplitAssignment> queue_;
  PlanPosition position_;
  std::optional<Error> stopped_by_;
  std::optional<Error> failure_;
  bool planning_ = false;
  std::chrono::steady_clock::time_point next_round_;
  std::vector<engine::CheckpointId> snapshotted_;  ///< per reader: last checkpoint snapshotted
  int in_flight_ = 0;                              ///< readers holding a split
  int64_t splits_planned_ = 0;
  int planning_failures_ = 0;  ///< failed rounds in a row
  std::map<int32_t, std::shared_ptr<const types::Schema>> schemas_;
  std::shared_ptr<const iceberg::TableMetadata> metadata_;
};

}  // namespace floe::source
