// `floe read TABLE`: a table's rows as JSON Lines, once (a batch read) or
// following its new snapshots (--follow), with Iceberg's Flink source
// options; with --state-dir, exactly once across restarts (docs/read.md).
// The job is floe::source's (read_job.h); this file turns flags into
// ReadOptions and reports through the runner (0 done, 1 failed, 2 bad usage).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "floe/cli/catalog_options.h"
#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/stop_signal.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/source/read_job.h"

namespace floe::cli {
namespace {

struct ReadArgs {
  std::string table;
  CatalogOptions catalog;
  bool follow = false;
  std::string starting_strategy;
  std::optional<int64_t> start_snapshot_id;
  std::string start_snapshot_timestamp;
  std::optional<int64_t> end_snapshot_id;
  std::string branch;
  std::string tag;
  std::string monitor_interval = "10s";
  std::string columns;
  std::string where;
  std::optional<int64_t> limit;
  int parallelism = 1;
  std::string format = "json";
  std::string state_dir;
  std::string checkpoint_interval = "10s";
  std::string output;
  bool changelog = false;
  bool skip_overwrite = false;
  bool skip_delete = false;
  bool case_insensitive = false;
  std::optional<int64_t> max_planning_snapshots;
  int max_planning_failures = 3;
  std::string split_target_size;
  std::string split_open_cost;
  int split_lookback = 0;
  bool stats = false;
};

/// The command line as ReadOptions; kInvalidArgument for contradictory or
/// malformed values (a usage error).
Result<source::ReadOptions> ToOptions(const ReadArgs& a) {
  source::ReadOptions o;
  o.table = a.table;
  source::PlanOptions& p = o.plan;
  p.streaming = a.follow;
  if (!a.starting_strategy.empty()) {
    FLOE_ASSIGN_OR_RETURN(p.strategy, source::ParseStartingStrategy(a.starting_strategy));
  } else {
    // Flink's defaults: a batch read reads the table, a streaming read
    // follows from the latest snapshot.
    p.strategy = a.follow ? source::StartingStrategy::kIncrementalFromLatestSnapshot
                          : source::StartingStrategy::kTableScanThenIncremental;
  }
  p.start_snapshot_id = a.start_snapshot_id;
  if (!a.start_snapshot_timestamp.empty()) {
    FLOE_ASSIGN_OR_RETURN(
        p.start_snapshot_timestamp_ms,
        ParseTimeMillis("--start-snapshot-timestamp", a.start_snapshot_timestamp));
  }
  p.end_snapshot_id = a.end_snapshot_id;
  p.branch = a.branch;
  p.tag = a.tag;
  p.changelog = a.changelog;
  p.skip_overwrite_snapshots = a.skip_overwrite;
  p.skip_delete_snapshots = a.skip_delete;
  p.case_sensitive = !a.case_insensitive;
  if (a.max_planning_snapshots) p.max_planning_snapshot_count = *a.max_planning_snapshots;
  p.columns = SplitNames(a.columns);
  if (!a.columns.empty() && p.columns.empty()) return InvalidArgument("--columns names no column");
  if (!a.where.empty()) {
    auto filter = iceberg::ParseFilter(a.where);
    if (!filter) return std::unexpected(std::move(filter).error().WithContext("--where"));
    p.filter = *filter;
  }
  if (!a.split_target_size.empty())
    p.split_overrides.target_size = *ParseByteSize(a.split_target_size);
  if (!a.split_open_cost.empty())
    p.split_overrides.open_file_cost = *ParseByteSize(a.split_open_cost);
  p.split_overrides.lookback = a.split_lookback;
  FLOE_RETURN_IF_ERROR(source::ValidatePlanOptions(p));
  o.monitor_interval = std::chrono::milliseconds(*ParseDuration(a.monitor_interval));
  o.checkpoint_interval = std::chrono::milliseconds(*ParseDuration(a.checkpoint_interval));
  o.parallelism = a.parallelism;
  o.max_allowed_planning_failures = a.max_planning_failures;
  FLOE_ASSIGN_OR_RETURN(o.format, source::ParseOutputFormat(a.format));
  o.state_dir = a.state_dir;
  o.output.limit = a.limit;
  o.catalog = CatalogFactory(a.catalog);
  return o;
}

/// Points `options->output` at --output FILE (opened, kept open for the
/// process) or standard output. kInvalidArgument when --state-dir asks for
/// exactly-once output on a descriptor that cannot be cut back.
Status SetUpOutput(const ReadArgs& a, source::ReadOptions* options) {
  source::JsonLinesOutputOptions& out = options->output;
  if (!a.output.empty()) {
    int fd = ::open(a.output.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return IoError("--output {}: {}", a.output, std::strerror(errno));
    out.fd = fd;
    out.truncate_on_fresh_start = true;
  } else {
    out.fd = STDOUT_FILENO;
    out.truncate_on_fresh_start = false;
  }
  struct stat st {};
  out.regular_file = ::fstat(out.fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!a.state_dir.empty() && !out.regular_file) {
    return InvalidArgument(
        "--state-dir makes the output exactly once by cutting it back to the last checkpoint on a "
        "restart, which a pipe or terminal cannot do: give --output FILE, or redirect standard "
        "output to a file with >>");
  }
  return Ok();
}

/// The read: a usage error for options that are malformed or contradict each
/// other (before anything is opened), else the job's outcome.
CommandStatus RunReadCommand(const ReadArgs& args) {
  auto options = ToOptions(args);
  if (!options) return UsageError(std::move(options).error());
  if (auto s = SetUpOutput(args, &*options); !s) {
    if (s.error().code() == ErrorCode::kInvalidArgument) return UsageError(std::move(s).error());
    return std::unexpected(std::move(s).error());
  }
  FLOE_ASSIGN_OR_RETURN(source::ReadSummary summary,
                        source::RunRead(std::move(*options), &StopOnSignals()));
  if (args.stats) {
    std::fprintf(stderr,
                 "floe read: %d readers, %lld splits (%lld changelog), %lld data file reads, "
                 "%lld delete file reads\n",
                 summary.readers, static_cast<long long>(summary.splits_read),
                 static_cast<long long>(summary.changelog_splits_read),
                 static_cast<long long>(summary.data_files_read),
                 static_cast<long long>(summary.delete_files_read));
  }
  return {};
}

}  // namespace

void AddReadCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ReadArgs>();
  CLI::App* cmd = app.add_subcommand(
      "read",
      "Print a table's rows as JSON Lines, or follow its new snapshots (--follow), "
      "exactly once with --state-dir");
  cmd->add_option("table", args->table, "the table, NS.TABLE")->required()->check(Utf8Text());
  AddCatalogOptions(*cmd, &args->catalog);
  cmd->add_flag("--follow", args->follow,
                "keep reading the snapshots committed after the start (Flink's streaming)");
  cmd->add_option("--starting-strategy", args->starting_strategy,
                  "table-scan-then-incremental (default without --follow), "
                  "incremental-from-latest-snapshot (default with --follow), "
                  "incremental-from-latest-snapshot-exclusive, "
                  "incremental-from-earliest-snapshot, incremental-from-snapshot-id, "
                  "incremental-from-snapshot-timestamp")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            auto parsed = source::ParseStartingStrategy(value);
            return parsed ? "" : parsed.error().message();
          },
          "STRATEGY"));
  cmd->add_option("--start-snapshot-id", args->start_snapshot_id,
                  "the first snapshot read (inclusive), with incremental-from-snapshot-id");
  cmd->add_option("--start-snapshot-timestamp", args->start_snapshot_timestamp,
                  "read from the first snapshot at or after this time (ISO timestamp, date or "
                  "epoch milliseconds), with incremental-from-snapshot-timestamp");
  cmd->add_option("--end-snapshot-id", args->end_snapshot_id,
                  "the last snapshot read (inclusive); the read ends there");
  cmd->add_option("--branch", args->branch, "read (and follow) this branch instead of main")
      ->check(Utf8Text());
  cmd->add_option("--tag", args->tag, "read up to this tag's snapshot (a batch read)")
      ->check(Utf8Text());
  cmd->add_option("--monitor-interval", args->monitor_interval,
                  "time between looks for new snapshots")
      ->capture_default_str()
      ->check(DurationIn(1, 7 * 86'400'000LL));
  cmd->add_option("--columns", args->columns, "columns to print, comma-separated, in this order");
  cmd->add_option("--where", args->where,
                  "row filter, e.g. \"id = 5 AND (ts >= '2024-01-01T00:00:00' OR name IS NULL)\"");
  cmd->add_option("--limit", args->limit, "print at most N rows, then stop")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--parallelism", args->parallelism,
                  "split readers (a batch read uses at most one per split)")
      ->capture_default_str()
      ->check(IntegerIn(1, kMaxThreads));
  cmd->add_option("--format", args->format,
                  "json: rows (with --changelog, {op, snapshot_id, row}); debezium-json: "
                  "Debezium change events without the schema block, for floe ingest")
      ->capture_default_str()
      ->check(OneOf({"json", "debezium-json"}));
  cmd->add_option("--state-dir", args->state_dir,
                  "checkpoints: a restarted read goes on after the last checkpoint, exactly once");
  cmd->add_option("--checkpoint-interval", args->checkpoint_interval, "time between checkpoints")
      ->capture_default_str()
      ->check(DurationIn(1, 7 * 86'400'000LL));
  cmd->add_option("--output", args->output,
                  "write the rows to this file instead of standard output (with --state-dir it "
                  "is cut back to the last checkpoint on a restart)");
  cmd->add_flag("--changelog", args->changelog,
                "print every snapshot's row-level changes, {\"op\":\"insert|delete|update_before|"
                "update_after\",\"snapshot_id\":N,\"row\":{...}}, overwrites and deletes "
                "included");
  cmd->add_flag("--streaming-skip-overwrite-snapshots", args->skip_overwrite,
                "skip overwrite snapshots instead of failing on them");
  cmd->add_flag("--streaming-skip-delete-snapshots", args->skip_delete,
                "skip delete snapshots instead of failing on them");
  cmd->add_flag("--case-insensitive", args->case_insensitive,
                "match column names in --columns and --where ignoring case");
  cmd->add_option("--max-planning-snapshot-count", args->max_planning_snapshots,
                  "snapshots planned per look at most")
      ->check(IntegerIn(1, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--max-allowed-planning-failures", args->max_planning_failures,
                  "failed looks for new snapshots in a row that are retried before the read "
                  "fails (-1: never fail)")
      ->capture_default_str()
      ->check(IntegerIn(-1, 1'000'000));
  cmd->add_option("--split-target-size", args->split_target_size,
                  "read.split.target-size (default: the table's, else 128MiB)")
      ->check(ByteSizeIn(1, int64_t{1} << 40));
  cmd->add_option("--split-file-open-cost", args->split_open_cost,
                  "read.split.open-file-cost (default: the table's, else 4MiB)")
      ->check(ByteSizeIn(1, int64_t{1} << 40));
  cmd->add_option("--split-lookback", args->split_lookback,
                  "read.split.planning-lookback: splits kept open for more files while packing "
                  "(default: the table's, else 10)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_flag("--stats", args->stats,
                "at the end, print to standard error the splits read and the data and delete "
                "files opened");
  SetCommandBody(*cmd, exit_code, [args]() -> CommandStatus { return RunReadCommand(*args); });
}

}  // namespace floe::cli
