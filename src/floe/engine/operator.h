#pragma once
/// The operator contracts of floe's streaming runtime (docs/checkpoints.md).
///
/// Every operator subtask runs on its own thread and is called only from it:
/// operators need no locks for their own state. The runtime guarantees, per
/// subtask: Open first; then Process / SnapshotState / NotifyCheckpointComplete
/// in stream order; Finish once, after every input has ended; Close last.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"

namespace floe::engine {

/// The output type of an operator that emits nothing (a sink).
struct Nothing {};

struct OperatorContext {
  std::string name;
  int subtask = 0;
  int parallelism = 1;
  /// Sources only: asks the coordinator to start a checkpoint now rather than
  /// at the next interval (when fewer than max_concurrent_checkpoints are in
  /// flight; else as soon as one completes). Thread-safe; may be empty (then
  /// checkpoints come at the interval only).
  std::function<void()> request_checkpoint;
};

/// State restored from the last completed checkpoint.
struct RestoredState {
  /// This subtask's own state, if the checkpoint had one for it.
  std::optional<std::string> own;
  /// Every subtask's state of this operator in that checkpoint (for operators
  /// whose parallelism changed since, or that shard state by key).
  std::vector<std::string> all;
  /// The id of the restored checkpoint (0 when starting fresh).
  CheckpointId checkpoint_id = 0;
};

/// Where an operator puts its output. Emit blocks while the receiving subtask's
/// input is full (back-pressure); it fails only when the job is being cancelled.
template <typename T>
class Collector {
 public:
  virtual ~Collector() = default;
  virtual Status Emit(T record) = 0;
};

/// Chooses the downstream subtask of a record: a value in [0, num_subtasks).
template <typename T>
using Partitioner = std::function<size_t(const T& record, size_t num_subtasks)>;

/// A source: produces records from outside (a file, a database, a topic).
template <typename Out>
class SourceOperator {
 public:
  virtual ~SourceOperator() = default;
  virtual Status Open(const OperatorContext& context, const RestoredState& state) { return Ok(); }
  /// Emits what is available, up to a batch, and returns. Returns false at end
  /// of input. Must return at least every few hundred milliseconds even with
  /// no input, so checkpoint barriers are not held up.
  virtual Result<bool> Poll(Collector<Out>& out) = 0;
  /// The state to resume from: the position after everything emitted so far.
  virtual Result<std::string> SnapshotState(CheckpointId id) { return std::string(); }
  virtual Status NotifyCheckpointComplete(CheckpointId id) { return Ok(); }
  virtual void Close() {}
};

/// An operator with one logical input (possibly from many upstream subtasks).
template <typename In, typename Out>
class Operator {
 public:
  virtual ~Operator() = default;
  virtual Status Open(const OperatorContext& context, const RestoredState& state) { return Ok(); }
  virtual Status Process(In record, Collector<Out>& out) = 0;
  /// Barrier `id` has arrived on every input: everything before it has been
  /// processed and nothing after it. Emit what must precede the barrier
  /// downstream (e.g. completed files) and return the state to checkpoint.
  virtual Result<std::string> SnapshotState(CheckpointId id, Collector<Out>& out) {
    return std::string();
  }
  /// Checkpoint `id` is durable (every operator's state is in the store).
  /// Side effects that must happen exactly once (commits) go here. An error
  /// fails the job; the restart re-runs recovery from the store.
  virtual Status NotifyCheckpointComplete(CheckpointId id, Collector<Out>& out) { return Ok(); }
  /// Every input has ended.
  virtual Status Finish(Collector<Out>& out) { return Ok(); }
  virtual void Close() {}
};

/// Makes the operator of one subtask (0-based) of a stage; called once per
/// subtask, on that subtask's thread.
template <typename Out>
using SourceFactory = std::function<std::unique_ptr<SourceOperator<Out>>(int subtask)>;
template <typename In, typename Out>
using OperatorFactory = std::function<std::unique_ptr<Operator<In, Out>>(int subtask)>;

}  // namespace floe::engine
