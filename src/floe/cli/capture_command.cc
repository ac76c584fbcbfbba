// `floe capture mysql`: prints a MySQL/MariaDB server's changes as Debezium
// JSON Lines on standard output (row changes and schema changes), flushed
// after every transaction. Logs go to standard error. Exit codes: 0 after
// SIGINT/SIGTERM, 1 on an error while running, 2 on a usage error.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "floe/cdc/debezium_json.h"
#include "floe/cdc/mysql/capture.h"
#include "floe/cli/commands.h"

namespace floe::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

struct CaptureArgs {
  std::string host = "127.0.0.1";
  int port = 3306;
  std::string user = "root";
  std::string password_env;
  std::string tables = ".*";
  std::string startup = "initial";
  std::string state;
  int64_t server_id = 54321;
  std::string server_name = "floe";
  int64_t chunk_rows = 10000;
  int snapshot_parallelism = 2;
  bool no_schema = false;
  bool until_end = false;
};

// The options as capture takes them; every error here is a usage error
// (kInvalidArgument, exit code 2). The numeric ranges were checked by CLI11.
Result<cdc::mysql::CaptureOptions> ToOptions(const CaptureArgs& args) {
  cdc::mysql::CaptureOptions o;
  o.connection.host = args.host;
  o.connection.port = static_cast<uint16_t>(args.port);
  o.connection.user = args.user;
  if (!args.password_env.empty()) {
    const char* pw = std::getenv(args.password_env.c_str());
    if (!pw) {
      return InvalidArgument("--password-env {}: the environment variable is not set",
                             args.password_env);
    }
    o.connection.password = pw;
  }
  o.tables = args.tables;
  FLOE_RETURN_IF_ERROR(cdc::mysql::ParseStartup(args.startup, &o));
  o.state_file = args.state;
  o.until_end = args.until_end;
  o.server_id = static_cast<uint32_t>(args.server_id);
  o.snapshot_chunk_rows = static_cast<size_t>(args.chunk_rows);
  o.snapshot_parallelism = args.snapshot_parallelism;
  FLOE_RETURN_IF_ERROR(cdc::mysql::CheckCaptureOptions(o));
  return o;
}

Status RunCapture(const CaptureArgs& args, cdc::mysql::CaptureOptions o) {
  FLOE_ASSIGN_OR_RETURN(auto capture, cdc::mysql::MySqlCapture::Open(std::move(o)));
  cdc::DebeziumJsonWriter writer(
      cdc::DebeziumJsonOptions{.server_name = args.server_name, .include_schema = !args.no_schema});
  std::string out;
  auto sink = [&](cdc::ChangeBatch& batch) -> Status {
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    out.clear();
    for (const auto& event : batch.events) {
      if (const auto* rc = std::get_if<cdc::RowChange>(&event)) {
        writer.AppendRowChange(*rc, now, &out);
      } else {
        writer.AppendSchemaChange(std::get<cdc::SchemaChange>(event), now, &out);
      }
      out.push_back('\n');
    }
    if (!out.empty() && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
      return IoError("writing to standard output failed");
    }
    // The state file is written after this returns: the lines must be out first.
    if (std::fflush(stdout) != 0) return IoError("flushing standard output failed");
    return Ok();
  };
  return capture->Run(sink, g_stop);
}

}  // namespace

void AddCaptureCommands(CLI::App& app, int* exit_code) {
  auto* capture = app.add_subcommand("capture", "Capture a database's changes as a stream");
  capture->require_subcommand(1);
  auto args = std::make_shared<CaptureArgs>();
  auto* mysql = capture->add_subcommand(
      "mysql", "Print a MySQL/MariaDB server's changes (snapshot + binlog) as Debezium JSON Lines");
  mysql->add_option("--host", args->host, "Server host")->capture_default_str();
  mysql->add_option("--port", args->port, "Server port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  mysql->add_option("--user", args->user, "User (needs REPLICATION SLAVE, REPLICATION CLIENT, SELECT)")
      ->capture_default_str();
  mysql->add_option("--password-env", args->password_env,
                    "Name of the environment variable holding the password");
  mysql->add_option("--tables", args->tables, "Regular expression on db.table (whole match)")
      ->capture_default_str();
  mysql->add_option("--startup", args->startup,
                    "initial (snapshot, then stream) | latest | FILE:POS | gtid:SET | ts:TIME")
      ->capture_default_str();
  mysql->add_option("--state", args->state,
                    "State file: resume from it, and record the position after every transaction");
  mysql->add_option("--server-id", args->server_id, "Replica server id of this client")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{cdc::mysql::kMaxServerId}));
  mysql->add_option("--server-name", args->server_name, "Debezium logical server name")
      ->capture_default_str();
  mysql->add_option("--chunk-rows", args->chunk_rows, "Snapshot chunk size in rows")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{cdc::mysql::kMaxSnapshotChunkRows}));
  mysql->add_option("--snapshot-parallelism", args->snapshot_parallelism,
                    "Snapshot chunk readers in parallel (each a connection; their binlog readers "
                    "use server ids --server-id + 1 ...)")
      ->capture_default_str()
      ->check(CLI::Range(1, cdc::mysql::kMaxSnapshotParallelism));
  mysql->add_flag("--no-schema", args->no_schema, "Omit the Debezium schema block");
  mysql->add_flag("--until-end", args->until_end,
                  "Stop at the end of the binlog as the server has it when capture gets there "
                  "(after the snapshot, if any), with the state written");
  mysql->callback([args, exit_code]() {
    auto logger = spdlog::stderr_color_mt("capture");
    spdlog::set_default_logger(logger);
    std::signal(SIGINT, OnSignal);
    std::signal(SIGTERM, OnSignal);
    auto options = ToOptions(*args);
    if (!options) {
      // A usage error, like CLI11's own: exit code 2.
      std::fprintf(stderr, "error: %s\n", options.error().ToString().c_str());
      *exit_code = 2;
      return;
    }
    auto status = RunCapture(*args, std::move(*options));
    if (!status) {
      std::fprintf(stderr, "error: %s\n", status.error().ToString().c_str());
      *exit_code = 1;
    }
  });
}

}  // namespace floe::cli
