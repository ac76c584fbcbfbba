#pragma once
/// `floe run PIPELINE.yaml`: a whole-database pipeline (docs/pipeline.md) as
/// one exactly-once engine job, seed 004's chain:
///
///   capture source (CaptureSource: MySQL/MariaDB snapshot + binlog, tables
///   resolved, created and evolved in order with their rows)
///     --RowBatch--> writers --WriteResult--> committers --> check-commit
///
/// with the capture's position in the same checkpoints as the data, in the
/// pipeline's state folder; every commit records its checkpoint id and
/// binlog position in the table. Killed at any moment and started again with
/// the same file, it resumes after its last complete checkpoint without a
/// lost or repeated row.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/run/capture_source.h"
#include "floe/run/iceberg_tables_source.h"
#include "floe/run/kafka_source.h"
#include "floe/run/run_metrics.h"
#include "floe/sink/record.h"

namespace floe::run {

struct RunOptions {
  /// `--catalog-config`, for a sink whose `catalog:` names a catalog.
  std::string catalog_config_path;
  /// Live counts for a progress display (may be null).
  ingest::IngestStats* stats = nullptr;
  /// When it becomes true the run stops with a final checkpoint and commit
  /// (during the initial snapshot: at once, committing nothing of it).
  const std::atomic<bool>* stop = nullptr;
  /// Called for every successful commit, on the check-commit thread.
  std::function<void(const sink::CommitOutcome&)> on_commit;
  /// Per-table and pipeline metrics, for a progress display and for the
  /// status server that `pipeline.http` starts (may be null: then the run
  /// keeps its own). Must outlive the run.
  RunMetrics* metrics = nullptr;
};

/// What a run did (this process only).
struct RunSummary {
  std::string pipeline_id;
  std::string state_dir;
  int64_t changes = 0;
  int64_t rows = 0;
  int64_t commits = 0;
  int64_t tables_created = 0;
  int64_t schema_changes = 0;
  engine::CheckpointId last_checkpoint = 0;
};

/// The capture and sink settings of a pipeline file, for the source and
/// the sink stages. Errors: kNotSupported for settings floe does not run
/// yet (each named); those of ResolveSinkCatalog.
Result<CaptureSourceOptions> MakeCaptureSourceOptions(
    const pipeline::PipelineDefinition& definition, const std::string& catalog_config_path);

/// The source and sink settings of a pipeline file with an iceberg source.
/// Errors: kNotSupported for settings floe does not run with it yet (each
/// named: schema.change.behavior other than lenient or ignore, a route's
/// source-table-column); a bad starting strategy; those of ResolveCatalog.
Result<IcebergTablesSourceOptions> MakeIcebergTablesSourceOptions(
    const pipeline::PipelineDefinition& definition, const std::string& catalog_config_path);

/// The source and sink settings of a pipeline file with a kafka source.
/// Errors: those of kafka::ParseKafkaSourceOptions (naming the key);
/// kNotSupported for settings floe does not run with it yet (each named:
/// schema.change.behavior other than lenient or ignore, a route's
/// source-table-column); those of ResolveSinkCatalog.
Result<KafkaSourceOptions> MakeKafkaSourceOptions(const pipeline::PipelineDefinition& definition,
                                                  const std::string& catalog_config_path);

/// Runs the pipeline until `options.stop` (then a final checkpoint is
/// committed) or an error: the capture's (server gone past its reconnect
/// attempts, a purged binlog position), a change that cannot be written, a
/// failed commit (the check-commit sink), each with its operator as context.
Result<RunSummary> RunPipeline(const pipeline::PipelineDefinition& definition,
                               const RunOptions& options);

/// One selected source table and where it goes.
struct TableRoute {
  std::string source;  ///< "db.table"
  std::string sink;    ///< "ns.table"
  /// Without one only inserts can be mirrored (docs/pipeline.md).
  bool has_primary_key = true;
};

/// `floe run --check`: connects to the source and the catalog (writing
/// nothing) and lists the source tables the pipeline selects, each with its
/// sink table. Errors: connection, credentials, server settings (binlog
/// format, GRANTs), the catalog's.
Result<std::vector<TableRoute>> CheckPipeline(const pipeline::PipelineDefinition& definition,
                                              const std::string& catalog_config_path);

}  // namespace floe::run
