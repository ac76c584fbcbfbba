#pragma once
/// The check-commit sink: the last operator of the sink (docs/sink-commit.md).
/// It receives every CommitOutcome of the committers; a failed commit is
/// logged with its table, checkpoint id and reason, and fails the job, so the
/// run exits non-zero. The failed checkpoint stays in the committer's state
/// (it belongs to a complete checkpoint), so a restart commits it first.

#include <cstdint>
#include <functional>

#include "floe/engine/operator.h"
#include "floe/sink/record.h"

namespace floe::sink {

class CheckCommitSink final : public engine::Operator<CommitOutcome, engine::Nothing> {
 public:
  /// `on_commit`, if set, is called for every successful commit (progress
  /// displays), on this operator's thread.
  explicit CheckCommitSink(std::function<void(const CommitOutcome&)> on_commit = {})
      : on_commit_(std::move(on_commit)) {}

  /// Errors: the failed outcome's error, with "commit of table T at
  /// checkpoint N failed" as context (this fails the job).
  Status Process(CommitOutcome outcome, engine::Collector<engine::Nothing>& out) override;

  int64_t commits() const { return commits_; }

 private:
  std::function<void(const CommitOutcome&)> on_commit_;
  int64_t commits_ = 0;
};

}  // namespace floe::sink
