#pragma once
/// The sink's operators on an engine job, behind any source of RowBatches
/// (seed 004's chain; docs/sink-writers.md, docs/sink-commit.md):
///
///   rows --(RouteOf)--> writer x write_parallelism
///        --(CommitterRoute: table-name hash)--> committer x commit_parallelism
///        --> check-commit (fails the job on a failed commit)
///
/// `floe ingest` and `floe run` both end in these stages.

#include <functional>
#include <memory>

#include "floe/engine/job.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::sink {

/// Adds the writer, committer and check-commit stages after `rows`.
/// `positions` carries each checkpoint's source position from the source to
/// the committers (it goes into every snapshot summary). `on_commit`, if set,
/// is called for every successful commit, on the check-commit thread.
void AddSinkStages(engine::Job& job, engine::Stream<RowBatch> rows, const SinkOptions& options,
                   std::shared_ptr<CheckpointPositions> positions,
                   std::function<void(const CommitOutcome&)> on_commit);

}  // namespace floe::sink
