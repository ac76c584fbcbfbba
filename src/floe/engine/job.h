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

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "floe/engine/checkpoint_store.h"
#include "floe/engine/input_gate.h"
#include "floe/engine/operator.h"

namespace floe::engine {

struct JobOptions {
  /// How often the coordinator starts a checkpoint.
  std::chrono::milliseconds checkpoint_interval{10'000};
  /// A checkpoint not complete after this long is aborted.
  std::chrono::milliseconds checkpoint_timeout{10 * 60'000};
  /// Checkpoints in flight at once (a new one is not started beyond this).
  int max_concurrent_checkpoints = 1;
  /// Aborted checkpoints in a row that the job tolerates before failing.
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

namespace internal {

struct Barrier {
  CheckpointId id;
};
struct EndOfInput {};
struct CheckpointComplete {
  CheckpointId id;
};
struct TriggerCheckpoint {
  CheckpointId id;
};

template <typename T>
using StreamElement = std::variant<T, Barrier, EndOfInput, CheckpointComplete>;

class JobRuntime;

class StageBase {
 public:
  virtual ~StageBase() = default;
  virtual const std::string& name() const = 0;
  virtual int parallelism() const = 0;
  virtual bool is_source() const = 0;
  virtual void Start(JobRuntime* runtime, const CompletedCheckpoint* restored) = 0;
  virtual void Cancel() = 0;
  virtual void PostTrigger(CheckpointId id) = 0;  // sources only
  virtual void PostComplete(CheckpointId id) = 0;
  virtual void Join() = 0;
};

/// The coordinator's side, shared by all subtasks. Non-template (job.cc).
class JobRuntime {
 public:
  JobRuntime(const JobOptions& options, std::vector<std::unique_ptr<StageBase>>* stages);
  Status Run();
  void RequestStop();
  /// Starts a checkpoint as soon as the in-flight limit allows, without
  /// waiting for the interval (OperatorContext::request_checkpoint).
  void RequestCheckpoint();

  // Called by subtasks.
  void Ack(CheckpointId id, std::string key, std::string state);
  void Fail(Error error);
  bool stop_requested() const { return stop_requested_.load(); }
  /// A source subtask reached the end of its input (or was asked to stop).
  void SourceEnded();
  /// The id of the final checkpoint once it has been triggered, else 0.
  CheckpointId final_checkpoint() const { return final_checkpoint_.load(); }
  void SubtaskExited();
  CheckpointId last_completed() const { return last_completed_.load(); }

 private:
  struct Pending {
    std::chrono::steady_clock::time_point started;
    size_t acks = 0;
    CompletedCheckpoint checkpoint;
  };
  void Trigger(CheckpointId id);
  Status Persist(CompletedCheckpoint checkpoint);

  const JobOptions& options_;
  std::vector<std::unique_ptr<StageBase>>* stages_;
  size_t total_subtasks_ = 0;
  size_t source_subtasks_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<CheckpointId, Pending> pending_;
  std::vector<CompletedCheckpoint> ready_;  // all acks in, not yet persisted
  std::optional<Error> failure_;
  size_t sources_ended_ = 0;
  size_t running_subtasks_ = 0;
  int consecutive_failures_ = 0;
  CheckpointId next_id_ = 1;
  std::atomic<bool> stop_requested_{false};
  bool checkpoint_requested_ = false;  ///< guarded by mu_
  std::atomic<CheckpointId> final_checkpoint_{0};
  std::atomic<CheckpointId> last_completed_{0};
};

/// Sends a stage's output to the next stage's subtasks.
template <typename T>
struct OutputEdge {
  std::vector<std::unique_ptr<InputGate<StreamElement<T>>>>* gates = nullptr;
  Partitioner<T> partition;  // null: forward
};

template <typename T>
class RoutingCollector final : public Collector<T> {
 public:
  RoutingCollector(OutputEdge<T>* edge, size_t upstream_index)
      : edge_(edge), upstream_index_(upstream_index) {}

  Status Emit(T record) override {
    if (edge_ == nullptr || edge_->gates == nullptr) return Ok();  // a sink: output dropped
    auto& gates = *edge_->gates;
    size_t target =
        edge_->partition ? edge_->partition(record, gates.size()) : upstream_index_ % gates.size();
    if (!gates[target]->Push(upstream_index_, StreamElement<T>(std::move(record)))) {
      return Cancelled("job cancelled");
    }
    return Ok();
  }
  template <typename E>
  Status Broadcast(const E& element) {
    if (edge_ == nullptr || edge_->gates == nullptr) return Ok();
    for (auto& gate : *edge_->gates) {
      if (!gate->Push(upstream_index_, StreamElement<T>(element)))
        return Cancelled("job cancelled");
    }
    return Ok();
  }

 private:
  OutputEdge<T>* edge_;
  size_t upstream_index_;
};

RestoredState RestoreFor(const CompletedCheckpoint* checkpoint, const std::string& name,
                         int subtask);
std::string StateKey(const std::string& name, int subtask);

/// A stage producing T: owns the edge to its downstream stage.
template <typename T>
class ProducerStage : public StageBase {
 public:
  OutputEdge<T> output;
};

template <typename Out>
class SourceStage final : public ProducerStage<Out> {
 public:
  using Factory = std::function<std::unique_ptr<SourceOperator<Out>>(int subtask)>;
  SourceStage(std::string name, int parallelism, Factory factory)
      : name_(std::move(name)), parallelism_(parallelism), factory_(std::move(factory)) {
    for (int i = 0; i < parallelism; ++i) mailboxes_.push_back(std::make_unique<Mailbox>());
  }
  const std::string& name() const override { return name_; }
  int parallelism() const override { return parallelism_; }
  bool is_source() const override { return true; }

  void Start(JobRuntime* runtime, const CompletedCheckpoint* restored) override {
    for (int i = 0; i < parallelism_; ++i) {
      threads_.emplace_back([this, runtime, restored, i] {
        RunSubtask(runtime, RestoreFor(restored, name_, i), i);
        runtime->SubtaskExited();
      });
    }
  }
  void Cancel() override {
    for (auto& m : mailboxes_) m->Cancel();
  }
  void PostTrigger(CheckpointId id) override {
    for (auto& m : mailboxes_) m->Post({true, id});
  }
  void PostComplete(CheckpointId id) override {
    for (auto& m : mailboxes_) m->Post({false, id});
  }
  void Join() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  struct Mail {
    bool trigger;
    CheckpointId id;
  };
  class Mailbox {
   public:
    void Post(Mail m) {
      std::lock_guard lock(mu_);
      mail_.push_back(m);
      cv_.notify_all();
    }
    void Cancel() {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      cv_.notify_all();
    }
    /// Takes all mail; waits up to `wait` for some if there is none.
    std::vector<Mail> Take(std::chrono::milliseconds wait, bool* cancelled) {
      std::unique_lock lock(mu_);
      if (mail_.empty() && wait.count() > 0) {
        cv_.wait_for(lock, wait, [&] { return cancelled_ || !mail_.empty(); });
      }
      *cancelled = cancelled_;
      std::vector<Mail> out(mail_.begin(), mail_.end());
      mail_.clear();
      return out;
    }

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Mail> mail_;
    bool cancelled_ = false;
  };

  void RunSubtask(JobRuntime* runtime, RestoredState restored, int index) {
    auto fail = [&](Error e) { runtime->Fail(std::move(e).WithContext(StateKey(name_, index))); };
    std::unique_ptr<SourceOperator<Out>> op = factory_(index);
    RoutingCollector<Out> out(&this->output, static_cast<size_t>(index));
    OperatorContext context{name_, index, parallelism_,
                            [runtime] { runtime->RequestCheckpoint(); }};
    if (auto s = op->Open(context, restored); !s) return fail(s.error());
    bool ended = false;
    CheckpointId last_snapshot = 0;
    CheckpointId last_complete = 0;
    while (true) {
      bool cancelled = false;
      auto mail = mailboxes_[index]->Take(
          ended ? std::chrono::milliseconds(100) : std::chrono::milliseconds(0), &cancelled);
      if (cancelled) break;
      for (const Mail& m : mail) {
        if (m.trigger) {
          auto state = op->SnapshotState(m.id);
          if (!state) return fail(state.error());
          if (auto s = out.Broadcast(Barrier{m.id}); !s) return fail(s.error());
          last_snapshot = m.id;
          runtime->Ack(m.id, StateKey(name_, index), std::move(*state));
        } else {
          if (auto s = op->NotifyCheckpointComplete(m.id); !s) return fail(s.error());
          last_complete = std::max(last_complete, m.id);
        }
      }
      CheckpointId final_id = runtime->final_checkpoint();
      if (ended) {
        // After the final checkpoint completes (downstream operators were told
        // before this source), end the stream.
        if (final_id != 0 && last_complete >= final_id && last_snapshot >= final_id) {
          (void)out.Broadcast(EndOfInput{});
          break;
        }
        continue;
      }
      if (runtime->stop_requested()) {
        ended = true;
        runtime->SourceEnded();
        continue;
      }
      auto more = op->Poll(out);
      if (!more) return fail(more.error());
      if (!*more) {
        ended = true;
        runtime->SourceEnded();
      }
    }
    op->Close();
  }

  std::string name_;
  int parallelism_;
  Factory factory_;
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
  std::vector<std::thread> threads_;
};

template <typename In, typename Out>
class OperatorStage final : public ProducerStage<Out> {
 public:
  using Factory = std::function<std::unique_ptr<Operator<In, Out>>(int subtask)>;
  OperatorStage(std::string name, int parallelism, Factory factory, ProducerStage<In>* upstream,
                Partitioner<In> partition, size_t capacity)
      : name_(std::move(name)), parallelism_(parallelism), factory_(std::move(factory)) {
    size_t inputs = static_cast<size_t>(upstream->parallelism());
    for (int i = 0; i < parallelism; ++i) {
      gates_.push_back(std::make_unique<InputGate<StreamElement<In>>>(inputs, capacity));
    }
    upstream->output.gates = &gates_;
    upstream->output.partition = std::move(partition);
  }
  const std::string& name() const override { return name_; }
  int parallelism() const override { return parallelism_; }
  bool is_source() const override { return false; }

  void Start(JobRuntime* runtime, const CompletedCheckpoint* restored) override {
    for (int i = 0; i < parallelism_; ++i) {
      threads_.emplace_back([this, runtime, restored, i] {
        RunSubtask(runtime, RestoreFor(restored, name_, i), i);
        runtime->SubtaskExited();
      });
    }
  }
  void Cancel() override {
    for (auto& g : gates_) g->Cancel();
  }
  void PostTrigger(CheckpointId) override {}
  void PostComplete(CheckpointId id) override {
    for (auto& g : gates_) g->PushControl(StreamElement<In>(CheckpointComplete{id}));
  }
  void Join() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void RunSubtask(JobRuntime* runtime, RestoredState restored, int index) {
    auto fail = [&](Error e) { runtime->Fail(std::move(e).WithContext(StateKey(name_, index))); };
    auto& gate = *gates_[index];
    std::unique_ptr<Operator<In, Out>> op = factory_(index);
    RoutingCollector<Out> out(&this->output, static_cast<size_t>(index));
    OperatorContext context{name_, index, parallelism_, {}};
    if (auto s = op->Open(context, restored); !s) return fail(s.error());

    size_t n = gate.num_inputs();
    std::vector<CheckpointId> barrier_of(n, 0);  // last barrier seen per input
    std::vector<bool> ended(n, false);
    size_t ended_count = 0;
    CheckpointId aligning = 0;
    bool finished = false;

    // Completes alignment of `aligning` once every live input has delivered it.
    auto try_complete_alignment = [&]() -> Status {
      if (aligning == 0) return Ok();
      for (size_t i = 0; i < n; ++i) {
        if (!ended[i] && barrier_of[i] < aligning) return Ok();
      }
      FLOE_ASSIGN_OR_RETURN(std::string state, op->SnapshotState(aligning, out));
      FLOE_RETURN_IF_ERROR(out.Broadcast(Barrier{aligning}));
      runtime->Ack(aligning, StateKey(name_, index), std::move(state));
      aligning = 0;
      gate.UnblockAll();
      for (size_t i = 0; i < n; ++i) {
        if (ended[i]) gate.Block(i);
      }
      return Ok();
    };

    while (!finished) {
      auto item = gate.Pop();
      if (!item) break;  // cancelled
      auto& [input, element] = *item;
      Status s = Ok();
      if (auto* record = std::get_if<0>(&element)) {
        s = op->Process(std::move(*record), out);
      } else if (auto* barrier = std::get_if<Barrier>(&element)) {
        barrier_of[input] = barrier->id;
        gate.Block(input);
        if (aligning == 0 || barrier->id > aligning) aligning = barrier->id;
        s = try_complete_alignment();
      } else if (std::holds_alternative<EndOfInput>(element)) {
        ended[input] = true;
        ++ended_count;
        gate.Block(input);
        s = try_complete_alignment();
        if (s && ended_count == n) {
          s = op->Finish(out);
          if (s) s = out.Broadcast(EndOfInput{});
          finished = true;
        }
      } else if (auto* complete = std::get_if<CheckpointComplete>(&element)) {
        s = op->NotifyCheckpointComplete(complete->id, out);
      }
      if (!s) return fail(s.error());
    }
    op->Close();
  }

  std::string name_;
  int parallelism_;
  Factory factory_;
  std::vector<std::unique_ptr<InputGate<StreamElement<In>>>> gates_;
  std::vector<std::thread> threads_;
};

}  // namespace internal

class Job {
 public:
  explicit Job(JobOptions options = {});
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job();

  /// Adds a source with `parallelism` subtasks made by `factory(subtask)`.
  template <typename Out>
  Stream<Out> AddSource(std::string name, int parallelism,
                        typename internal::SourceStage<Out>::Factory factory) {
    stages_.push_back(std::make_unique<internal::SourceStage<Out>>(std::move(name), parallelism,
                                                                   std::move(factory)));
    return Stream<Out>{stages_.size() - 1};
  }

  /// Adds an operator reading `input`, routed by `partition` (null: forward).
  /// Each stage feeds exactly one downstream stage.
  template <typename In, typename Out>
  Stream<Out> AddOperator(std::string name, int parallelism, Stream<In> input,
                          Partitioner<In> partition,
                          typename internal::OperatorStage<In, Out>::Factory factory) {
    auto* upstream = dynamic_cast<internal::ProducerStage<In>*>(stages_.at(input.stage).get());
    stages_.push_back(std::make_unique<internal::OperatorStage<In, Out>>(
        std::move(name), parallelism, std::move(factory), upstream, std::move(partition),
        options_.channel_capacity));
    return Stream<Out>{stages_.size() - 1};
  }

  /// Restores from the store's latest checkpoint, runs until every source has
  /// ended and a final checkpoint has completed, or until the first failure
  /// (returned, with the failing operator/subtask in its context).
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
