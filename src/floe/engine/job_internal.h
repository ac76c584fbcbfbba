#pragma once
/// The inside of a Job (job.h), for the engine alone: the elements that travel
/// on channels besides records (barriers, end of input, checkpoint-complete
/// notices), the coordinator shared by all subtasks (JobRuntime, job.cc), and
/// the stages that run a source's or an operator's subtasks on their threads
/// (SourceStage, OperatorStage) with the barrier alignment of
/// docs/checkpoints.md. Users of the engine include job.h and operator.h and
/// never name anything here; it is a header only because the stages are
/// templates on the record types.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/engine/input_gate.h"
#include "floe/engine/operator.h"

namespace floe::engine {

struct JobOptions;

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

/// A stage whose subtasks run on a thread each.
class ThreadedStage : public StageBase {
 public:
  ThreadedStage(std::string name, int parallelism)
      : name_(std::move(name)), parallelism_(parallelism) {}
  const std::string& name() const override { return name_; }
  int parallelism() const override { return parallelism_; }

  /// Starts one thread per subtask, each running RunSubtask with the state
  /// `restored` holds for it.
  void Start(JobRuntime* runtime, const CompletedCheckpoint* restored) override {
    for (int i = 0; i < parallelism_; ++i) {
      threads_.emplace_back([this, runtime, restored, i] {
        RunSubtask(runtime, RestoreFor(restored, name_, i), i);
        runtime->SubtaskExited();
      });
    }
  }
  void Join() override {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 protected:
  /// Runs subtask `index` until it ends (on its own thread).
  virtual void RunSubtask(JobRuntime* runtime, RestoredState restored, int index) = 0;

  const std::string name_;
  const int parallelism_;

 private:
  std::vector<std::thread> threads_;
};

/// A stage producing T: owns the edge to its downstream stage.
template <typename T>
class ProducerStage : public ThreadedStage {
 public:
  using ThreadedStage::ThreadedStage;
  OutputEdge<T> output;
};

template <typename Out>
class SourceStage final : public ProducerStage<Out> {
 public:
  using Factory = SourceFactory<Out>;
  SourceStage(std::string name, int parallelism, Factory factory)
      : ProducerStage<Out>(std::move(name), parallelism), factory_(std::move(factory)) {
    for (int i = 0; i < parallelism; ++i) mailboxes_.push_back(std::make_unique<Mailbox>());
  }
  bool is_source() const override { return true; }

  void Cancel() override {
    for (auto& m : mailboxes_) m->Cancel();
  }
  void PostTrigger(CheckpointId id) override {
    for (auto& m : mailboxes_) m->Post({true, id});
  }
  void PostComplete(CheckpointId id) override {
    for (auto& m : mailboxes_) m->Post({false, id});
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

  void RunSubtask(JobRuntime* runtime, RestoredState restored, int index) override {
    auto fail = [&](Error e) {
      runtime->Fail(std::move(e).WithContext(StateKey(this->name_, index)));
    };
    std::unique_ptr<SourceOperator<Out>> op = factory_(index);
    RoutingCollector<Out> out(&this->output, static_cast<size_t>(index));
    OperatorContext context{this->name_, index, this->parallelism_,
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
          runtime->Ack(m.id, StateKey(this->name_, index), std::move(*state));
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

  Factory factory_;
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
};

template <typename In, typename Out>
class OperatorStage final : public ProducerStage<Out> {
 public:
  using Factory = OperatorFactory<In, Out>;
  OperatorStage(std::string name, int parallelism, Factory factory, ProducerStage<In>* upstream,
                Partitioner<In> partition, size_t capacity)
      : ProducerStage<Out>(std::move(name), parallelism), factory_(std::move(factory)) {
    size_t inputs = static_cast<size_t>(upstream->parallelism());
    for (int i = 0; i < parallelism; ++i) {
      gates_.push_back(std::make_unique<InputGate<StreamElement<In>>>(inputs, capacity));
    }
    upstream->output.gates = &gates_;
    upstream->output.partition = std::move(partition);
  }
  bool is_source() const override { return false; }

  void Cancel() override {
    for (auto& g : gates_) g->Cancel();
  }
  void PostTrigger(CheckpointId) override {}
  void PostComplete(CheckpointId id) override {
    for (auto& g : gates_) g->PushControl(StreamElement<In>(CheckpointComplete{id}));
  }

 private:
  void RunSubtask(JobRuntime* runtime, RestoredState restored, int index) override {
    auto fail = [&](Error e) {
      runtime->Fail(std::move(e).WithContext(StateKey(this->name_, index)));
    };
    auto& gate = *gates_[index];
    std::unique_ptr<Operator<In, Out>> op = factory_(index);
    RoutingCollector<Out> out(&this->output, static_cast<size_t>(index));
    OperatorContext context{this->name_, index, this->parallelism_, {}};
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
      runtime->Ack(aligning, StateKey(this->name_, index), std::move(state));
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

  Factory factory_;
  std::vector<std::unique_ptr<InputGate<StreamElement<In>>>> gates_;
};

}  // namespace internal

}  // namespace floe::engine
