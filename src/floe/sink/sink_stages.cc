#include "floe/sink/sink_stages.h"

#include "floe/sink/check_commit_sink.h"
#include "floe/sink/committer_operator.h"
#include "floe/sink/memory_budget.h"
#include "floe/sink/router.h"
#include "floe/sink/writer_operator.h"

namespace floe::sink {

void AddSinkStages(engine::Job& job, engine::Stream<RowBatch> rows, const SinkOptions& options,
                   std::shared_ptr<CheckpointPositions> positions,
                   std::function<void(const CommitOutcome&)> on_commit) {
  // One memory budget for every writer subtask of the job.
  auto budget = std::make_shared<MemoryBudget>(options.memory_budget_bytes);
  auto results = job.AddOperator<RowBatch, WriteResult>(
      "writer", options.write_parallelism, rows, engine::Partitioner<RowBatch>(RouteOf),
      [options, budget](int) { return std::make_unique<WriterOperator>(options, budget); });
  auto outcomes = job.AddOperator<WriteResult, CommitOutcome>(
      "committer", options.commit_parallelism, results,
      engine::Partitioner<WriteResult>(CommitterRoute), [options, positions](int) {
        return std::make_unique<CommitterOperator>(options, positions);
      });
  job.AddOperator<CommitOutcome, engine::Nothing>(
      "check-commit", 1, outcomes, nullptr, [on_commit = std::move(on_commit)](int) {
        return std::make_unique<CheckCommitSink>(on_commit);
      });
}

}  // namespace floe::sink
