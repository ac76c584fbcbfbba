#include "floe/ingest/pipeline.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "floe/common/printable.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/engine/run_until_stopped.h"
#include "floe/ingest/line_source.h"
#include "floe/io/file_io.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/sink_stages.h"
#include "floe/types/schema_json.h"

namespace floe::ingest {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPipelineIdFile = "pipeline-id";
constexpr std::string_view kDeadLetterFile = "dead-letter.jsonl";
constexpr std::string_view kCheckpointDir = "checkpoints";

uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

/// The pipeline id stored in the state folder, created on first use (written
/// whole or not at all, and synced, like every state file).
Result<std::string> StatePipelineId(const std::string& state_dir) {
  std::string file = (fs::path(state_dir) / kPipelineIdFile).string();
  io::LocalFileIO file_io;
  FLOE_ASSIGN_OR_RETURN(bool exists, file_io.Exists(file));
  if (!exists) {
    std::error_code ec;
    std::string absolute = fs::absolute(fs::path(state_dir), ec).lexically_normal().string();
    std::string id = fmt::format("ingest-{:016x}", Fnv1a(absolute));
    Status written = file_io.WriteNew(file, id + "\n");
    if (written) return id;
    // Another run may have written it first: then that id is the one.
    if (written.error().code() != ErrorCode::kAlreadyExists) {
      return std::unexpected(
          std::move(written).error().WithContext("writing the pipeline id of the state folder"));
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::string id, file_io.ReadAll(file));
  id = id.substr(0, id.find('\n'));
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r' || id.back() == ' ')) id.pop_back();
  if (id.empty()) return Corruption("{}: empty pipeline id", file);
  return id;
}

/// Whether the namespace part of a route has a placeholder.
bool RouteNamespaceIsFixed(std::string_view route) {
  size_t last_dot = route.rfind('.');
  if (last_dot == std::string_view::npos) return false;
  return route.substr(0, last_dot).find('{') == std::string_view::npos;
}

/// The tables this pipeline may have committed to: the destination table, the
/// tables of a route's fixed namespace, or every table two levels deep.
Result<std::vector<iceberg::TableIdentifier>> CandidateTables(const IngestOptions& options,
                                                              iceberg::Catalog& catalog) {
  std::vector<iceberg::TableIdentifier> tables;
  if (!options.table.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto id, iceberg::TableIdentifier::Parse(options.table));
    tables.push_back(id);
    return tables;
  }
  if (!RouteNamespaceIsFixed(options.route)) return sink::ListTablesTwoLevelsDeep(catalog);
  size_t last_dot = options.route.rfind('.');
  FLOE_ASSIGN_OR_RETURN(auto ns, iceberg::ParseNamespace(options.route.substr(0, last_dot)));
  auto listed = catalog.ListTables(ns);
  if (listed) return std::move(*listed);
  if (listed.error().code() != ErrorCode::kNotFound)
    return std::unexpected(std::move(listed).error());
  return tables;
}

/// Where a restart begins, decided before the job starts.
struct ResumePlan {
  /// Checkpoint ids above every id the tables hold (JobOptions::min_checkpoint_id).
  engine::CheckpointId min_checkpoint_id = 0;
  /// Tables ahead of the restored checkpoint (IngestSourceOptions::committed_until).
  std::map<std::string, InputPosition> committed_until;
};

/// Parses a checkpoint's source position "FILE:OFFSET" against the inputs.
Result<InputPosition> ParseInputPosition(const IngestOptions& options, std::string_view position) {
  size_t colon = position.rfind(':');
  int64_t offset = -1;
  if (colon != std::string_view::npos) {
    std::string_view digits = position.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), offset);
    if (ec != std::errc() || end != digits.data() + digits.size()) offset = -1;
  }
  if (offset < 0) return Corruption("source position '{}' is not FILE:OFFSET", position);
  std::string_view file = position.substr(0, colon);
  auto it = std::find(options.inputs.begin(), options.inputs.end(), file);
  if (it == options.inputs.end()) {
    return InvalidArgument("its source position is in '{}', which is not among the inputs", file);
  }
  return InputPosition{static_cast<size_t>(it - options.inputs.begin()), offset};
}

/// Compares what the tables hold with the newest readable checkpoint of the
/// state folder. A table that committed a later checkpoint than the one the
/// job will restore (the newer checkpoint files are damaged or gone, or the
/// state folder was deleted) must not get those events again: its events
/// up to the position its last commit recorded are skipped. When that
/// position is unknown (snapshot expired, or standard input, which cannot be
/// read again) the run stops instead: appending twice is never an option.
Result<ResumePlan> PlanResume(const IngestOptions& options, engine::CheckpointStore& store) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.catalog());
  FLOE_ASSIGN_OR_RETURN(auto tables, CandidateTables(options, *catalog));
  FLOE_ASSIGN_OR_RETURN(auto progress,
                        sink::CommittedProgress(*catalog, options.pipeline_id, tables));
  std::string warning;
  FLOE_ASSIGN_OR_RETURN(auto restored, store.LoadLatest(&warning));
  engine::CheckpointId restored_id = restored ? restored->id : 0;
  if (!warning.empty()) spdlog::warn("ingest: unreadable checkpoint files skipped: {}", warning);

  ResumePlan plan;
  std::vector<std::string> ahead;
  for (const auto& p : progress) {
    plan.min_checkpoint_id = std::max(plan.min_checkpoint_id, p.checkpoint);
    if (p.checkpoint <= restored_id) continue;
    std::string table = p.table.ToString();
    auto why_not = [&](std::string_view reason) {
      return Corruption(
          "table {} holds checkpoint {} of pipeline '{}', but the newest readable checkpoint in "
          "{} is {}{}; {}. Resuming would write that table's events again: restore the state "
          "folder, or ingest into new tables with a new --state-dir",
          table, p.checkpoint, options.pipeline_id, options.state_dir,
          restored_id == 0 ? std::string("none") : std::to_string(restored_id),
          warning.empty() ? "" : " (" + warning.substr(0, warning.size() - 2) + ")", reason);
    };
    if (options.inputs.size() == 1 && options.inputs[0] == kStandardInput) {
      return why_not("standard input cannot be read again from that table's position");
    }
    if (!p.source_position) {
      return why_not("the snapshot of that checkpoint (with its source position) was expired");
    }
    auto position = ParseInputPosition(options, *p.source_position);
    if (!position) return why_not(position.error().message());
    plan.committed_until[table] = *position;
    ahead.push_back(
        fmt::format("{} (checkpoint {}, up to {})", table, p.checkpoint, *p.source_position));
  }
  if (!ahead.empty()) {
    spdlog::warn(
        "ingest: the state folder {} is behind the lake (restoring checkpoint {}{}): the events "
        "these tables already hold are skipped: {}",
        options.state_dir, restored_id,
        warning.empty() ? "" : "; " + warning.substr(0, warning.size() - 2), JoinAtMost(ahead));
  }
  return plan;
}

}  // namespace

Result<IngestOptions> ResolveIngestOptions(IngestOptions options) {
  if (options.inputs.empty()) return InvalidArgument("no input file given");
  if (options.table.empty() == options.route.empty()) {
    return InvalidArgument("give exactly one of --table NS.T and --route TEMPLATE");
  }
  if (options.upsert.value_or(false) && options.overwrite) {
    return InvalidArgument("--upsert and --overwrite cannot be combined");
  }
  if (options.parallelism < 1 || options.commit_parallelism < 1) {
    return InvalidArgument("--parallelism must be at least 1");
  }
  if (options.decode_parallelism < 0) {
    return InvalidArgument("--decode-parallelism must not be negative");
  }
  if (!options.catalog) return InvalidArgument("no catalog");
  if (options.state_dir.empty()) {
    if (options.inputs[0] == kStandardInput) {
      return InvalidArgument("reading standard input needs --state-dir");
    }
    options.state_dir = options.inputs[0] + ".floe-state";
  }
  std::error_code ec;
  fs::create_directories(options.state_dir, ec);
  if (ec) return IoError("state folder {}: {}", options.state_dir, ec.message());
  std::string default_dead_letters = (fs::path(options.state_dir) / kDeadLetterFile).string();
  if (options.dead_letter_path.empty() &&
      (options.on_error == OnError::kSkip || fs::exists(default_dead_letters, ec))) {
    options.dead_letter_path = default_dead_letters;
  }
  if (options.pipeline_id.empty()) {
    FLOE_ASSIGN_OR_RETURN(options.pipeline_id, StatePipelineId(options.state_dir));
  }
  options.sink.pipeline_id = options.pipeline_id;
  options.sink.write_parallelism = options.parallelism;
  options.sink.commit_parallelism = options.commit_parallelism;
  options.sink.upsert = options.upsert;
  options.sink.overwrite = options.overwrite;
  options.sink.catalog = options.catalog;
  return options;
}

Result<IngestSourceOptions> MakeSourceOptions(const IngestOptions& options) {
  IngestSourceOptions source;
  source.inputs = options.inputs;
  source.format = options.format;
  source.follow = options.follow;
  source.on_error = options.on_error;
  source.dead_letter_path = options.dead_letter_path;
  source.committed_until = options.committed_until;
  source.sink = options.sink;
  source.decode_parallelism = static_cast<size_t>(options.decode_parallelism);
  TableResolverOptions& tables = source.tables;
  if (!options.table.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto id, iceberg::TableIdentifier::Parse(options.table));
    tables.table = std::move(id);
  }
  tables.route = options.route;
  if (!options.schema_file.empty()) {
    FLOE_ASSIGN_OR_RETURN(types::Schema schema, types::ReadSchemaFile(options.schema_file));
    FLOE_RETURN_IF_ERROR_CTX(schema.Validate(), "--schema {}", options.schema_file);
    tables.schema = std::make_shared<const types::Schema>(std::move(schema));
  }
  tables.primary_key = options.primary_key;
  tables.partition_by = options.partition_by;
  tables.upsert = options.upsert;
  tables.overwrite = options.overwrite;
  FLOE_RETURN_IF_ERROR(ValidateIngestSourceOptions(source));
  return source;
}

Result<IngestJob> BuildIngestJob(const IngestOptions& options, engine::JobOptions job_options,
                                 IngestStats* stats) {
  FLOE_ASSIGN_OR_RETURN(IngestSourceOptions source_options, MakeSourceOptions(options));
  IngestJob built;
  built.positions = std::make_shared<sink::CheckpointPositions>();
  built.job = std::make_unique<engine::Job>(job_options);
  engine::Job& job = *built.job;

  auto positions = built.positions;
  auto on_commit = options.on_commit;
  auto batches =
      job.AddSource<sink::RowBatch>("source", 1, [source_options, positions, stats](int) {
        return std::make_unique<IngestSource>(source_options, positions, stats);
      });
  sink::AddSinkStages(job, batches, options.sink, positions,
                      [stats, on_commit](const sink::CommitOutcome& outcome) {
                        if (stats != nullptr) stats->CountCommit(outcome.checkpoint_id);
                        if (on_commit) on_commit(outcome);
                      });
  return built;
}

Result<IngestSummary> RunIngest(const IngestOptions& given, IngestStats* stats,
                                const std::atomic<bool>* stop) {
  FLOE_ASSIGN_OR_RETURN(IngestOptions options, ResolveIngestOptions(given));
  IngestStats own_stats;
  if (stats == nullptr) stats = &own_stats;

  io::LocalFileIO state_io;
  engine::CheckpointStore store(&state_io, (fs::path(options.state_dir) / kCheckpointDir).string(),
                                options.retain_checkpoints);
  engine::JobOptions job_options;
  job_options.checkpoint_interval = options.checkpoint_interval;
  // A channel holds this many batches of up to 1,024 rows (~0.8 MiB each with
  // 20 columns): enough to ride over a writer's row-group flush, while the
  // engine's default of 256 let a slower writer queue 200 MiB of decoded rows
  // outside the memory budget (docs/sink-writers.md, "Where the memory goes").
  job_options.channel_capacity = 16;
  job_options.store = &store;
  FLOE_ASSIGN_OR_RETURN(ResumePlan plan, PlanResume(options, store));
  job_options.min_checkpoint_id = plan.min_checkpoint_id;
  options.committed_until = std::move(plan.committed_until);

  FLOE_ASSIGN_OR_RETURN(IngestJob built, BuildIngestJob(options, job_options, stats));
  spdlog::info("ingest: pipeline '{}', state in {}, {} input(s), checkpoints every {} ms",
               options.pipeline_id, options.state_dir, options.inputs.size(),
               options.checkpoint_interval.count());

  Status run = engine::RunUntilStopped(*built.job, stop);

  IngestSummary summary;
  summary.pipeline_id = options.pipeline_id;
  summary.state_dir = options.state_dir;
  summary.events = stats->events_read.load();
  summary.rows = stats->rows_emitted.load();
  summary.skipped = stats->events_skipped.load();
  summary.truncates = stats->truncates.load();
  summary.already_committed = stats->already_committed.load();
  summary.dead_letters = stats->dead_letters.load();
  summary.bytes = stats->bytes_read.load();
  summary.commits = stats->commits.load();
  summary.tables_created = stats->tables_created.load();
  summary.schema_changes = stats->schema_changes.load();
  summary.last_checkpoint = built.job->last_completed_checkpoint();
  summary.rows_per_table = stats->RowsPerTable();
  if (!run) return std::unexpected(std::move(run).error());
  return summary;
}

}  // namespace floe::ingest
