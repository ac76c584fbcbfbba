// `floe ingest`: change events from files or standard input into Iceberg
// tables, exactly once (docs/ingest.md). The pipeline is floe::ingest's; this
// file turns flags into IngestOptions, shows progress on a terminal, prints
// the summary, and reports through the runner (0 done, 1 failed, 2 bad usage).

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "floe/cli/catalog_options.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/log_format.h"
#include "floe/cli/progress_line.h"
#include "floe/cli/stop_signal.h"
#include "floe/common/printable.h"
#include "floe/format/parquet/compression.h"
#include "floe/ingest/pipeline.h"

namespace floe::cli {
namespace {

/// The largest size any size option accepts (1 TiB).
constexpr int64_t kMaxBytes = int64_t{1} << 40;

struct IngestArgs {
  std::vector<std::string> inputs;
  std::string format = "debezium-json";
  std::string table;
  std::string route;
  std::string schema_file;
  std::string primary_key;
  std::string partition_by;
  CatalogOptions catalog;
  std::string checkpoint_interval = "10s";
  int parallelism = 1;
  int commit_parallelism = 1;
  int decode_parallelism = 0;
  bool upsert = false;
  bool overwrite = false;
  std::string state_dir;
  bool follow = false;
  std::string on_error = "fail";
  std::string dead_letter;
  std::string pipeline_id;
  std::string distribution_mode;
  std::string target_file_size;
  std::string compression_codec;
  std::string memory_budget = "512MiB";
  int max_empty_commits = 10;
  std::string progress = "auto";
  std::string log_format = "text";
  std::string log_level = "info";
};

Result<ingest::IngestOptions> ToOptions(const IngestArgs& a) {
  ingest::IngestOptions o;
  o.inputs = a.inputs;
  FLOE_ASSIGN_OR_RETURN(o.format, ingest::ParseInputFormat(a.format));
  o.table = a.table;
  o.route = a.route;
  o.schema_file = a.schema_file;
  o.primary_key = SplitNames(a.primary_key);
  o.partition_by = a.partition_by;
  auto interval = ParseDuration(a.checkpoint_interval);
  if (!interval || *interval <= 0) {
    return InvalidArgument("--checkpoint-interval '{}': expected a duration such as 10s or 500ms",
                           a.checkpoint_interval);
  }
  o.checkpoint_interval = std::chrono::milliseconds(*interval);
  if (a.parallelism < 1 || a.commit_parallelism < 1) {
    return InvalidArgument("--parallelism and --commit-parallelism need at least 1");
  }
  o.parallelism = a.parallelism;
  o.commit_parallelism = a.commit_parallelism;
  o.decode_parallelism = a.decode_parallelism;
  if (a.upsert) o.upsert = true;
  o.overwrite = a.overwrite;
  o.state_dir = a.state_dir;
  o.follow = a.follow;
  FLOE_ASSIGN_OR_RETURN(o.on_error, ingest::ParseOnError(a.on_error));
  o.dead_letter_path = a.dead_letter;
  o.pipeline_id = a.pipeline_id;
  if (!a.distribution_mode.empty()) {
    FLOE_ASSIGN_OR_RETURN(o.sink.distribution_mode,
                          sink::ParseDistributionMode(a.distribution_mode));
  }
  if (!a.target_file_size.empty()) {
    auto size = ParseByteSize(a.target_file_size);
    if (!size || *size <= 0) {
      return InvalidArgument("--target-file-size '{}': expected a size such as 128MiB",
                             a.target_file_size);
    }
    o.sink.target_file_size_bytes = *size;
  }
  if (!a.compression_codec.empty()) o.sink.compression_codec = a.compression_codec;
  auto budget = ParseByteSize(a.memory_budget);
  if (!budget || *budget < (1 << 20)) {
    return InvalidArgument("--memory-budget '{}': expected a size of at least 1MiB, such as 512MiB",
                           a.memory_budget);
  }
  o.sink.memory_budget_bytes = *budget;
  if (a.max_empty_commits < 1)
    return InvalidArgument("--max-continuous-empty-commits needs at least 1");
  o.sink.max_continuous_empty_commits = a.max_empty_commits;
  o.catalog = CatalogFactory(a.catalog);
  return o;
}

/// The process's peak resident memory in bytes (VmHWM; reset by exec, unlike
/// getrusage's ru_maxrss, which keeps the peak of the process that forked us).
int64_t PeakResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %lld kB", reinterpret_cast<long long*>(&kib)) == 1) break;
  }
  std::fclose(f);
  return kib < 0 ? -1 : kib * 1024;
}

void PrintSummary(const ingest::IngestSummary& s, double seconds) {
  std::printf("ingested %s events (%s rows) in %.1f s: %.0f events/s\n",
              Thousands(s.events).c_str(), Thousands(s.rows).c_str(), seconds,
              seconds > 0 ? s.events / seconds : 0.0);
  std::printf("commits %s, last checkpoint %lld, tables created %s, schema changes %s\n",
              Thousands(s.commits).c_str(), static_cast<long long>(s.last_checkpoint),
              Thousands(s.tables_created).c_str(), Thousands(s.schema_changes).c_str());
  if (s.truncates > 0) std::printf("truncations %s\n", Thousands(s.truncates).c_str());
  if (s.already_committed > 0) {
    std::printf("already in the lake (skipped) %s events\n",
                Thousands(s.already_committed).c_str());
  }
  if (int64_t peak = PeakResidentBytes(); peak >= 0) {
    std::printf("peak memory %.1f MiB\n", peak / 1048576.0);
  }
  if (s.skipped > 0 || s.dead_letters > 0) {
    std::printf("skipped %s (tombstones, heartbeats, schema events), dead letters %s\n",
                Thousands(s.skipped).c_str(), Thousands(s.dead_letters).c_str());
  }
  for (const auto& [table, rows] : s.rows_per_table) {
    std::printf("  %-40s %14s rows\n", table.c_str(), Thousands(rows).c_str());
  }
  std::printf("pipeline %s, state in %s\n", s.pipeline_id.c_str(), s.state_dir.c_str());
}

CommandStatus RunIngestCommand(const IngestArgs& args) {
  FLOE_RETURN_IF_ERROR(AsUsage(SetUpCommandLogging({.name = "ingest",
                                                    .level = args.log_level,
                                                    .format = args.log_format,
                                                    .under_progress_line = false})));
  auto options = ToOptions(args);
  if (!options) return UsageError(std::move(options).error());
  ingest::IngestStats stats;
  auto started = std::chrono::steady_clock::now();
  Result<ingest::IngestSummary> summary;
  {
    auto progress = StartProgressLine(args.progress, &stats);
    summary = ingest::RunIngest(*options, &stats, &StopOnSignals());
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!summary) {
    spdlog::error("ingest failed: {}", ShortenLongNames(summary.error().ToString()));
    // Options the pipeline itself finds contradictory, before any event.
    if (summary.error().code() == ErrorCode::kInvalidArgument && stats.events_read.load() == 0) {
      return UsageError(std::move(summary).error());
    }
    return std::unexpected(std::move(summary).error());
  }
  PrintSummary(*summary, seconds);
  return {};
}

}  // namespace

void AddIngestCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<IngestArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ingest",
      "Write change events (Debezium JSON or JSON rows) from files or standard input "
      "into Iceberg tables, exactly once");
  // Input names are kept in the state and names go into Iceberg metadata:
  // both are read back as strict JSON, so they must be valid UTF-8.
  cmd->add_option("inputs", args->inputs, "Input files, read in order; - for standard input")
      ->required()
      ->check(Utf8Text());
  cmd->add_option("--format", args->format, "debezium-json, canal-json or json")
      ->capture_default_str()
      ->check(OneOf({"debezium-json", "debezium", "canal-json", "canal", "json"}));
  cmd->add_option("--table", args->table, "The one destination table NS.T")->check(Utf8Text());
  cmd->add_option("--route", args->route,
                  "One table per source table, e.g. \"{db}.{table}\" or \"lake.{db}_{table}\"")
      ->check(Utf8Text());
  cmd->add_option("--schema", args->schema_file,
                  "Iceberg schema JSON for created tables and for events without a schema block");
  cmd->add_option("--primary-key", args->primary_key, "Identifier fields of created tables: a,b")
      ->check(Utf8Text());
  cmd->add_option("--partition-by", args->partition_by,
                  "Partition spec of created tables, e.g. \"bucket(16, id), day(ts)\"")
      ->check(Utf8Text());
  AddCatalogOptions(*cmd, &args->catalog);
  cmd->add_option("--checkpoint-interval", args->checkpoint_interval,
                  "Time between checkpoints (and commits)")
      ->capture_default_str()
      ->check(DurationIn(1, 7 * 86'400'000LL));
  cmd->add_option("--parallelism", args->parallelism, "Writer threads")
      ->capture_default_str()
      ->check(IntegerIn(1, kMaxThreads));
  cmd->add_option("--commit-parallelism", args->commit_parallelism, "Committer threads")
      ->capture_default_str()
      ->check(IntegerIn(1, kMaxThreads));
  cmd->add_option("--decode-parallelism", args->decode_parallelism,
                  "Threads that decode input lines (0: as --parallelism; 1: the source "
                  "thread alone)")
      ->capture_default_str()
      ->check(IntegerIn(0, kMaxThreads));
  cmd->add_flag("--upsert", args->upsert,
                "Upsert: an insert or update replaces the row with the same primary key "
                "(default: each table's write.upsert.enabled)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Each checkpoint replaces the partitions it writes");
  cmd->add_option("--state-dir", args->state_dir,
                  "Checkpoints and pipeline id (default: <first input>.floe-state)");
  cmd->add_flag("--follow", args->follow, "Keep reading the last input as it grows, like tail -f");
  cmd->add_option("--on-error", args->on_error,
                  "fail: stop at the first bad event; skip: write it to the dead-letter file")
      ->capture_default_str()
      ->check(OneOf({"fail", "skip"}));
  cmd->add_option("--dead-letter", args->dead_letter,
                  "Dead-letter file (default: <state-dir>/dead-letter.jsonl)");
  cmd->add_option("--pipeline-id", args->pipeline_id,
                  "floe.pipeline-id in snapshot summaries (default: kept in the state folder)")
      ->check(Utf8Text());
  cmd->add_option("--distribution-mode", args->distribution_mode,
                  "write.distribution-mode: none, hash or range (default: the table's, else none)")
      ->check(OneOf({"none", "hash", "range"}));
  cmd->add_option("--target-file-size", args->target_file_size,
                  "write.target-file-size-bytes, e.g. 128MiB (default: the table's)")
      ->check(ByteSizeIn(1, kMaxBytes));
  cmd->add_option("--compression-codec", args->compression_codec,
                  "write.parquet.compression-codec (default: the table's, else zstd)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            auto codec = format::parquet::ParseCodecName(value);
            return codec ? "" : codec.error().message();
          },
          "CODEC"));
  cmd->add_option("--memory-budget", args->memory_budget,
                  "Memory for buffered rows over all writers; the largest buffers are flushed "
                  "beyond it")
      ->capture_default_str()
      ->check(ByteSizeIn(1 << 20, kMaxBytes));
  cmd->add_option("--max-continuous-empty-commits", args->max_empty_commits,
                  "Commit an empty snapshot after this many checkpoints with nothing new, to "
                  "record the position")
      ->capture_default_str()
      ->check(IntegerIn(1, 1'000'000));
  AddProgressOption(*cmd, &args->progress);
  cmd->add_option("--log-format", args->log_format, "text or json (one object per line)")
      ->capture_default_str()
      ->check(OneOf({"text", "json"}));
  AddLogLevelOption(*cmd, &args->log_level);
  SetCommandBody(*cmd, exit_code, [args] { return RunIngestCommand(*args); });
}

}  // namespace floe::cli
