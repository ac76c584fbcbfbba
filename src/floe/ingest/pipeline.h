#pragma once
/// The `floe ingest` pipeline (docs/ingest.md): an engine job
///
///   source (IngestSource, parallelism 1)
///     --RowBatch (sink::RouteOf)--> writers (sink::WriterOperator, --parallelism)
///     --WriteResult (sink::CommitterRoute: table-name hash)--> committers
///     --CommitOutcome--> check-commit sink (fails the run on a failed commit)
///
/// with its checkpoints in a state folder, so that a run killed at any moment
/// and started again with the same arguments resumes exactly after its last
/// complete checkpoint.
///
/// The CLI (`floe ingest`) fills IngestOptions from its flags and calls
/// RunIngest; tests call it directly.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/job.h"
#include "floe/ingest/ingest_source.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::ingest {

/// Every option of `floe ingest`. Defaults are those of the command.
struct IngestOptions {
  /// Input files, read in order; "-" is standard input (alone).
  std::vector<std::string> inputs;
  /// `--format`: debezium-json (default) or json.
  InputFormat format = InputFormat::kDebeziumJson;
  /// `--table NS.T`: one destination table. Exclusive with `route`.
  std::string table;
  /// `--route TEMPLATE`: one table per source table, e.g. "{db}.{table}".
  std::string route;
  /// `--schema SCHEMA.json`: the schema of created tables (and of events
  /// without a schema block); empty: from the events' schema blocks.
  std::string schema_file;
  /// `--primary-key a,b`: identifier fields of created tables (and of
  /// existing tables without any).
  std::vector<std::string> primary_key;
  /// `--partition-by`: partition spec of created tables ("bucket(16,id),day(ts)").
  std::string partition_by;
  /// Opens a catalog (`--catalog-config`/`--catalog`); called once per
  /// operator subtask that needs one.
  sink::CatalogFactory catalog;
  /// `--checkpoint-interval` (default 10 s).
  std::chrono::milliseconds checkpoint_interval{10'000};
  /// `--parallelism`: writer subtasks (default 1).
  int parallelism = 1;
  /// Committer subtasks (default 1; tables are spread by name hash).
  int commit_parallelism = 1;
  /// `--decode-parallelism`: threads that decode input lines, the source's
  /// own included (IngestSourceOptions::decode_parallelism); 0 (default):
  /// as `parallelism`.
  int decode_parallelism = 0;
  /// `--upsert`: upsert for every table; unset: each table's
  /// `write.upsert.enabled`.
  std::optional<bool> upsert;
  /// `--overwrite`: each checkpoint replaces the partitions it writes.
  bool overwrite = false;
  /// `--state-dir`: checkpoints, pipeline id and (default) dead letters.
  /// Default: "<first input>.floe-state" beside the input; required for
  /// standard input.
  std::string state_dir;
  /// `--follow`: keep reading the (last) input as it grows.
  bool follow = false;
  /// `--on-error fail|skip` (default fail).
  OnError on_error = OnError::kFail;
  /// `--dead-letter FILE` (default "<state-dir>/dead-letter.jsonl").
  std::string dead_letter_path;
  /// `--pipeline-id`: `floe.pipeline-id` in every snapshot summary. Default:
  /// the id stored in "<state-dir>/pipeline-id", written on the first run as
  /// "ingest-" and a hash of the state folder's absolute path; so a pipeline
  /// keeps its id as long as it keeps its state folder (even if moved).
  std::string pipeline_id;
  /// Further sink settings (distribution mode, target file size, compression,
  /// memory budget, empty-commit interval, commit threads); its pipeline_id,
  /// write/commit parallelism, upsert, overwrite and catalog are set from the
  /// fields above.
  sink::SinkOptions sink;
  /// Checkpoints kept in the state folder.
  int retain_checkpoints = 3;
  /// Set by RunIngest: tables ahead of the restored checkpoint
  /// (IngestSourceOptions::committed_until).
  std::map<std::string, InputPosition> committed_until;
  /// Called for every successful commit, on the check-commit sink's thread.
  std::function<void(const sink::CommitOutcome&)> on_commit;
};

/// What a run did (this process only).
struct IngestSummary {
  std::string pipeline_id;
  std::string state_dir;
  int64_t events = 0;
  int64_t rows = 0;
  int64_t skipped = 0;
  /// Truncations applied (IngestStats::truncates).
  int64_t truncates = 0;
  /// Events skipped because their table already held them (IngestStats).
  int64_t already_committed = 0;
  int64_t dead_letters = 0;
  int64_t bytes = 0;
  int64_t commits = 0;
  int64_t tables_created = 0;
  int64_t schema_changes = 0;
  engine::CheckpointId last_checkpoint = 0;
  std::map<std::string, int64_t> rows_per_table;
};

/// The options after defaults are filled in: state dir, dead-letter path,
/// pipeline id (reading or creating "<state-dir>/pipeline-id"). Errors:
/// kInvalidArgument for inconsistent options (no input, table and route,
/// upsert with overwrite, skip without a dead-letter file, ...); kIo for the
/// state folder.
Result<IngestOptions> ResolveIngestOptions(IngestOptions options);

/// The source options of a resolved IngestOptions (reads --schema).
Result<IngestSourceOptions> MakeSourceOptions(const IngestOptions& options);

/// A built job and what it shares between its operators.
struct IngestJob {
  std::unique_ptr<engine::Job> job;
  std::shared_ptr<sink::CheckpointPositions> positions;
};

/// Builds the job for resolved `options` (ResolveIngestOptions). `stats`
/// must outlive the job. `job_options` holds the checkpoint store and ids.
Result<IngestJob> BuildIngestJob(const IngestOptions& options, engine::JobOptions job_options,
                                 IngestStats* stats);

/// Runs an ingest: resolves the options, opens the checkpoint store in the
/// state folder ("<state-dir>/checkpoints"), sets JobOptions::min_checkpoint_id
/// from the destination tables, compares what each table committed with the
/// newest readable checkpoint (a table ahead of it — the newer checkpoint
/// files damaged or deleted — has its already committed events skipped, by
/// the source position of its last commit; kCorruption when that position
/// is unknown or the input is standard input), runs the job until the input ends (and a
/// final checkpoint is committed) or `*stop` becomes true (then it stops at
/// the current position with a final checkpoint), and returns a summary.
/// `stats` (may be null) receives live counts for a progress display.
/// Errors: the first failure of the job (a bad event with --on-error fail, a
/// failed commit, ...), with the failing operator as context.
Result<IngestSummary> RunIngest(const IngestOptions& options, IngestStats* stats = nullptr,
                                const std::atomic<bool>* stop = nullptr);

}  // namespace floe::ingest
