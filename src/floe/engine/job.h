#pragma once
/// Job: a streaming dataflow of sources and operators, each with a
/// parallelism, connected by bounded channels, with checkpoints taken by
/// barriers (the asynchronous barrier snapshotting of Flink, in one process).
/// The protocol, its guarantees and its failure handling are in
/// docs/checkpoints.md.
///
///   Job job(options);
///   auto events = job.AddSource<Event>("source", 1, make_source);
///   auto results = job.AddOperator<Event, WriteResult>("writer", 4, events,
///                                                      HashBy(table_of), make_writer);
///   job.AddOperator<WriteResult, Nothing>("committer", 2, results, HashBy(table_of), ...);
///   Status s = job.Run();  // until end of input (after a final checkpoint) or failure
///
/// Threading: Run() starts one thread per subtask plus a coordinator, and
/// returns when they have all stopped. RequestStop() may be called from any
/// thread (e.g. a signal handler's helper thread).

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/engine/job_internal.h"
#include "floe/engine/operator.h"

namespace floe::engine {

struct JobOptions {
  /// How often the coordinator starts a checkpoint.
  std::chrono::milliseconds checkpoint_interval{10'000};
  /// A checkpoint not complete after this long is aborted: acknowledgements
  /// that come later are ignored, and what operators emitted for it is covered
  /// by the next checkpoint. A final checkpoint that times out fails the job.
  std::chrono::milliseconds checkpoint_timeout{10 * 60'000};
  /// Checkpoints in flight at once (a new one is not started beyond this).
  int max_concurrent_checkpoints = 1;
  /// Aborted checkpoints in a row that the job tolerates; one more fails the
  /// job with ErrorCode::kTimedOut ("checkpoint N did not complete within T ms").
  int tolerable_checkpoint_failures = 3;
  /// Elements each channel (one per upstream-downstream subtask pair) holds
  /// before Emit blocks.
  size_t channel_capacity = 256;
  /// Where completed checkpoints go and where Run() restores from. Null keeps
  /// them in memory only (tests).
  CheckpointStore* store = nullptr;
  /// The first checkpoint id this run may use is above both this and the
  /// restored checkpoint's id. A pipeline sets it to the highest checkpoint id
  /// its destinations have committed, so that a restore from an older
  /// checkpoint never reuses an id (its data would be taken for committed).
  CheckpointId min_checkpoint_id = 0;
};

/// A handle to the output of a stage, to connect the next one.
template <typename T>
struct Stream {
  size_t stage = 0;
};

/// Routes by a hash of a key (records with equal keys go to the same subtask).
template <typename T, typename KeyFn>
Partitioner<T> HashBy(KeyFn key) {
  return [key](const T& record, size_t n) {
    return std::hash<std::decay_t<decltype(key(record))>>{}(key(record)) % n;
  };
}
/// Subtask i sends to subtask i % n (use with equal parallelism).
template <typename T>
Partitioner<T> Forward() {
  return nullptr;  // resolved per upstream subtask by the runtime
}

class Job {
 public:
  explicit Job(JobOptions options = {});
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job();

  /// Adds a source with `parallelism` subtasks made by `factory(subtask)`.
  template <typename Out>
  Stream<Out> AddSource(std::string name, int parallelism, SourceFactory<Out> factory) {
    stages_.push_back(std::make_unique<internal::SourceStage<Out>>(std::move(name), parallelism,
                                                                   std::move(factory)));
    return Stream<Out>{stages_.size() - 1};
  }

  /// Adds an operator reading `input`, routed by `partition` (null: forward).
  /// Each stage feeds exactly one downstream stage.
  template <typename In, typename Out>
  Stream<Out> AddOperator(std::string name, int parallelism, Stream<In> input,
                          Partitioner<In> partition, OperatorFactory<In, Out> factory) {
    auto* upstream = dynamic_cast<internal::ProducerStage<In>*>(stages_.at(input.stage).get());
    stages_.push_back(std::make_unique<internal::OperatorStage<In, Out>>(
        std::move(name), parallelism, std::move(factory), upstream, std::move(partition),
        options_.channel_capacity));
    return Stream<Out>{stages_.size() - 1};
  }

  /// Restores from the store's latest checkpoint, runs until every source has
  /// ended and a final checkpoint has completed, or until the first failure
  /// (returned, with the failing operator/subtask in its context, e.g.
  /// "writer/2: ..."). A failure cancels every channel (a blocked Emit returns
  /// Cancelled) and completes no further checkpoint; Run returns once every
  /// subtask's call into its operator has returned (the engine cannot
  /// interrupt an operator that never returns).
  Status Run();

  /// Ends the sources at their current position; Run() then takes a final
  /// checkpoint and returns Ok. Thread-safe.
  void RequestStop();

  /// The newest checkpoint completed by this run (0 if none).
  CheckpointId last_completed_checkpoint() const;

 private:
  JobOptions options_;
  std::vector<std::unique_ptr<internal::StageBase>> stages_;
  std::unique_ptr<internal::JobRuntime> runtime_;
};

}  // namespace floe::engine
