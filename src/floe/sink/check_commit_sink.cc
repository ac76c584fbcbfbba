#include "floe/sink/check_commit_sink.h"

#include <spdlog/spdlog.h>

namespace floe::sink {

Status CheckCommitSink::Process(CommitOutcome outcome, engine::Collector<engine::Nothing>&) {
  if (!outcome.status) {
    spdlog::error(
        "commit of table {} at checkpoint {} failed: {}; stopping (a restart resumes "
        "from the last complete checkpoint)",
        outcome.table, outcome.checkpoint_id, outcome.status.error().ToString());
    return std::unexpected(
        std::move(outcome.status)
            .error()
            .WithContext(fmt::format("commit of table {} at checkpoint {} failed", outcome.table,
                                     outcome.checkpoint_id)));
  }
  ++commits_;
  spdlog::debug("committed table {} checkpoint {}: snapshot {}, {} files, {} records",
                outcome.table, outcome.checkpoint_id, outcome.snapshot_id, outcome.added_files,
                outcome.added_records);
  if (on_commit_) on_commit_(outcome);
  return Ok();
}

}  // namespace floe::sink
