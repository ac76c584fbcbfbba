/// `floe run PIPELINE.yaml`: a whole-database pipeline as one exactly-once
/// job (docs/pipeline.md). `--check` validates the file, connects, and lists
/// the source tables and their sink tables without writing anything.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "floe/cli/cli_values.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/log_format.h"
#include "floe/cli/progress_line.h"
#include "floe/cli/stop_signal.h"
#include "floe/pipeline/document.h"
#include "floe/pipeline/environment.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/run/postgres_source.h"
#include "floe/run/run_pipeline.h"

namespace floe::cli {
namespace {

struct RunArgs {
  std::string file;
  bool check = false;
  std::vector<std::string> set;
  std::string catalog_config;
  std::string log_level = "info";
  std::string progress = "auto";
  std::string on_error;     ///< `--on-error`: source.on-error
  std::string dead_letter;  ///< `--dead-letter`: source.dead-letter.path
  bool drop_slot = false;   ///< `--drop-slot`: postgres source, drop its slot and exit
};

/// Keeps the last warning or error of the log in the run's metrics, for
/// /status and the status page (secrets removed).
class LastProblemSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  LastProblemSink(run::RunMetrics* metrics, const pipeline::PipelineDefinition* definition)
      : metrics_(metrics), definition_(definition) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level < spdlog::level::warn) return;
    std::string_view text(msg.payload.data(), msg.payload.size());
    metrics_->RecordError(fmt::format("{}: {}",
                                      msg.level == spdlog::level::warn ? "warning" : "error",
                                      definition_->Redact(text)));
  }
  void flush_() override {}

 private:
  run::RunMetrics* metrics_;
  const pipeline::PipelineDefinition* definition_;
};

Result<pipeline::PipelineDefinition> ReadDefinition(const RunArgs& a) {
  std::ifstream in(a.file, std::ios::binary);
  if (!in) return IoError("cannot open the pipeline file {}", a.file);
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > pipeline::kMaxDocumentBytes) {
      return InvalidArgument("{}: larger than {} bytes", a.file, pipeline::kMaxDocumentBytes);
    }
  }
  std::vector<std::string> set = a.set;
  if (!a.on_error.empty()) set.push_back("source.on-error=" + a.on_error);
  if (!a.dead_letter.empty()) set.push_back("source.dead-letter.path=" + a.dead_letter);
  return pipeline::ParsePipelineDefinition(text, a.file, pipeline::Environment::Process(), set);
}

/// `error` with the pipeline's secrets removed from its message.
Error Redacted(const pipeline::PipelineDefinition& definition, const Error& error) {
  return Error(error.code(), definition.Redact(error.message()));
}

CommandStatus Check(const RunArgs& a, const pipeline::PipelineDefinition& definition) {
  auto routes = run::CheckPipeline(definition, a.catalog_config);
  if (!routes) return std::unexpected(Redacted(definition, routes.error()));
  std::printf("%s", definition.Describe().c_str());
  if (definition.source.is_kafka()) {
    std::printf(
        "\nThe brokers answer (and the listed topics exist). The sink tables are those the events "
        "name (after the routes), created when their first event arrives.\n");
    return {};
  }
  std::printf("\n%zu source table(s) selected:\n", routes->size());
  size_t keyless = 0;
  for (const auto& r : *routes) {
    std::printf("  %-40s -> %s%s\n", r.source.c_str(), r.sink.c_str(),
                r.has_primary_key ? "" : "   (no primary key)");
    if (!r.has_primary_key) ++keyless;
  }
  if (keyless > 0) {
    std::printf(
        "\n%zu table(s) without a primary key: their inserts are mirrored, but an UPDATE or "
        "DELETE of one stops the run; give them a primary key or leave them out with "
        "tables.exclude.\n",
        keyless);
  }
  return {};
}

/// The progress line's text after the counters: tables, snapshot, position.
ProgressLineOptions RunProgressLine(const run::RunMetrics& metrics) {
  ProgressLineOptions line;
  line.noun = "changes";
  line.extra = [&metrics] {
    std::string text = fmt::format("  tables {}", metrics.table_count());
    if (metrics.snapshot_running()) text += "  snapshot";
    if (std::string position = metrics.position(); !position.empty()) {
      text += (position.starts_with("lsn:") ? "  " : "  binlog ") + position;
    }
    return text;
  };
  return line;
}

CommandStatus RunPipelineCommand(const RunArgs& args) {
  FLOE_RETURN_IF_ERROR(
      SetUpCommandLogging({.name = "run",
                           .level = args.log_level,
                           .under_progress_line = !args.check && ShowProgress(args.progress)}));
  auto definition = ReadDefinition(args);
  if (!definition) {
    // A file that cannot be read is a failure; one that is not a valid
    // pipeline is a usage error.
    if (definition.error().code() == ErrorCode::kIo) return std::unexpected(definition.error());
    return UsageError(std::move(definition).error());
  }
  if (args.check) return Check(args, *definition);
  if (args.drop_slot) {
    if (!definition->source.is_postgres()) {
      return UsageError("--drop-slot: the pipeline's source is not postgres");
    }
    if (Status dropped = run::DropPostgresSlot(*definition); !dropped) {
      return std::unexpected(Redacted(*definition, dropped.error()));
    }
    std::printf("dropped replication slot %s\n", definition->source.postgres.slot_name.c_str());
    return {};
  }
  ingest::IngestStats stats;
  run::RunMetrics metrics;
  spdlog::default_logger()->sinks().push_back(
      std::make_shared<LastProblemSink>(&metrics, &*definition));
  run::RunOptions options;
  options.catalog_config_path = args.catalog_config;
  options.stats = &stats;
  options.stop = &StopOnSignals();
  options.metrics = &metrics;
  auto started = std::chrono::steady_clock::now();
  Result<run::RunSummary> summary;
  {
    auto progress = StartProgressLine(args.progress, &stats, RunProgressLine(metrics));
    summary = run::RunPipeline(*definition, options);
  }
  spdlog::default_logger()->sinks().pop_back();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!summary) {
    Error error = Redacted(*definition, summary.error());
    spdlog::error("run failed: {}", error.ToString());
    return std::unexpected(std::move(error));
  }
  std::printf(
      "pipeline %s: %lld changes (%lld rows) in %.1f s, %lld commits, last checkpoint "
      "%lld, tables created %lld, schema changes %lld\nstate in %s\n",
      definition->pipeline.name.c_str(), static_cast<long long>(summary->changes),
      static_cast<long long>(summary->rows), seconds, static_cast<long long>(summary->commits),
      static_cast<long long>(summary->last_checkpoint),
      static_cast<long long>(summary->tables_created),
      static_cast<long long>(summary->schema_changes), summary->state_dir.c_str());
  return {};
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a pipeline file: mirror a whole database into Iceberg, exactly once");
  cmd->add_option("pipeline", args->file, "The pipeline file (YAML, docs/pipeline.md)")->required();
  cmd->add_flag("--check", args->check,
                "Validate the file, connect, and list the source tables and their sink tables; "
                "write nothing");
  cmd->add_option("--set", args->set, "Override a key of the file: key=value (repeatable)")
      ->check(KeyValueText());
  cmd->add_option("--on-error", args->on_error,
                  "Kafka source: a message that cannot be read stops the run (fail, the default) "
                  "or becomes a dead letter (skip); as source.on-error")
      ->check(OneOf({"fail", "skip"}));
  cmd->add_option("--dead-letter", args->dead_letter,
                  "Kafka source: the folder of the dead-letter files (default: beside the lake "
                  "copy of the source state); as source.dead-letter.path");
  cmd->add_flag("--drop-slot", args->drop_slot,
                "PostgreSQL source: drop the pipeline's replication slot and exit (the slot holds "
                "WAL on the server while the pipeline is gone; a later run makes a new one, and "
                "misses the changes in between unless scan.startup.mode is initial and the state "
                "folder is new)");
  cmd->add_option("--catalog-config", args->catalog_config,
                  "The catalog config file, for a sink whose catalog is given by name");
  AddLogLevelOption(*cmd, &args->log_level);
  AddProgressOption(*cmd, &args->progress);
  SetCommandBody(*cmd, exit_code, [args] { return RunPipelineCommand(*args); });
}

}  // namespace floe::cli
