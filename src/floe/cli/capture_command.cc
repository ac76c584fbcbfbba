// `floe capture mysql`: prints a MySQL/MariaDB server's changes as Debezium
// JSON Lines on standard output (row changes and schema changes), flushed
// after every transaction. `floe capture postgres`: a PostgreSQL slot's row
// changes as Debezium PostgreSQL envelopes, flushed after every transaction,
// and only then confirmed to the slot. Logs go to standard error. Exit codes
// (command_runner.h): 0 after SIGINT/SIGTERM (or --max-events,
// --stop-after-idle-ms), 1 on an error while running, 2 on a usage error.

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "floe/cdc/debezium_json.h"
#include "floe/cdc/mysql/capture.h"
#include "floe/cdc/postgres/capture.h"
#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/log_format.h"
#include "floe/cli/stop_signal.h"

namespace floe::cli {
namespace {

/// The server a capture reads and its login: --host, --port, --user, --password-env.
struct ServerLogin {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string user;
  std::string password_env;
};

struct CaptureArgs {
  ServerLogin login{.port = 3306, .user = "root"};
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

/// Adds --host, --port, --user (described by `user_help`) and --password-env.
void AddServerLoginOptions(CLI::App& cmd, ServerLogin* login, const std::string& user_help) {
  cmd.add_option("--host", login->host, "Server host")->capture_default_str();
  cmd.add_option("--port", login->port, "Server port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  cmd.add_option("--user", login->user, user_help)->capture_default_str();
  cmd.add_option("--password-env", login->password_env,
                 "Name of the environment variable holding the password");
}

/// Copies `login` into a capture's connection settings (`Connection`: its
/// host, port, user and password), the password read from --password-env's
/// variable. kInvalidArgument when that variable is not set.
template <typename Connection>
Status SetServerLogin(const ServerLogin& login, Connection* connection) {
  connection->host = login.host;
  connection->port = static_cast<uint16_t>(login.port);
  connection->user = login.user;
  if (login.password_env.empty()) return Ok();
  const char* password = std::getenv(login.password_env.c_str());
  if (!password) {
    return InvalidArgument("--password-env {}: the environment variable is not set",
                           login.password_env);
  }
  connection->password = password;
  return Ok();
}

// Writes `lines` (whole events) to standard output and flushes it; the
// captures record their position only after this returns.
Status WriteLinesToStdout(std::string_view lines) {
  if (!lines.empty() && std::fwrite(lines.data(), 1, lines.size(), stdout) != lines.size()) {
    return IoError("writing to standard output failed");
  }
  if (std::fflush(stdout) != 0) return IoError("flushing standard output failed");
  return Ok();
}

// The options as capture takes them; every error here is a usage error
// (kInvalidArgument, exit code 2). The numeric ranges were checked by CLI11.
Result<cdc::mysql::CaptureOptions> ToOptions(const CaptureArgs& args) {
  cdc::mysql::CaptureOptions o;
  FLOE_RETURN_IF_ERROR(SetServerLogin(args.login, &o.connection));
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
    // The state file is written after this returns: the lines must be out first.
    return WriteLinesToStdout(out);
  };
  return capture->Run(sink, StopOnSignals());
}

struct PgCaptureArgs {
  ServerLogin login{.port = 5432, .user = "postgres"};
  std::string database = "postgres";
  std::string tables = ".*";
  std::string slot = "floe";
  std::string publication = "dbz_publication";
  std::string publication_autocreate = "all_tables";
  std::string start_lsn;
  std::string server_name = "floe";
  int64_t max_events = 0;
  int64_t stop_after_idle_ms = 0;
  bool drop_slot = false;
};

Result<cdc::postgres::CaptureOptions> ToPgOptions(const PgCaptureArgs& args) {
  cdc::postgres::CaptureOptions o;
  FLOE_RETURN_IF_ERROR(SetServerLogin(args.login, &o.client));
  o.client.database = args.database;
  if (args.slot.empty()) return InvalidArgument("--slot: empty");
  o.client.slot = args.slot;
  if (args.publication.empty()) return InvalidArgument("--publication: empty");
  o.client.publication = args.publication;
  FLOE_ASSIGN_OR_RETURN(o.client.autocreate,
                        cdc::postgres::ParsePublicationAutocreate(args.publication_autocreate));
  if (!args.start_lsn.empty()) {
    FLOE_ASSIGN_OR_RETURN(o.start_lsn, cdc::postgres::Lsn::Parse(args.start_lsn));
  }
  o.tables = args.tables;
  o.server_name = args.server_name;
  o.max_events = args.max_events;
  o.stop_after_idle = std::chrono::milliseconds(args.stop_after_idle_ms);
  return o;
}

Status RunPgCapture(cdc::postgres::CaptureOptions o) {
  FLOE_ASSIGN_OR_RETURN(auto capture, cdc::postgres::PostgresCapture::Open(std::move(o)));
  auto sink = [](const cdc::postgres::CommittedLines& c) -> Status {
    // The slot confirms the transaction after this returns: the lines must be out first.
    return WriteLinesToStdout(c.lines);
  };
  return capture->Run(sink, StopOnSignals());
}

Status DropPgSlot(cdc::postgres::CaptureOptions o) {
  FLOE_ASSIGN_OR_RETURN(auto client, cdc::postgres::ReplicationClient::Connect(o.client));
  FLOE_RETURN_IF_ERROR(client->DropSlot());
  spdlog::info("dropped replication slot {}", o.client.slot);
  return Ok();
}

/// The logger of both captures (standard output carries the events) and the
/// signals that stop them.
void StartCapture() {
  // The name and pattern are fixed: the only failure is a bad level or format.
  (void)SetUpCommandLogging({.name = "capture", .pattern = kDefaultLogPattern});
  StopOnSignals();
}

}  // namespace

void AddCaptureCommands(CLI::App& app, int* exit_code) {
  auto* capture = app.add_subcommand("capture", "Capture a database's changes as a stream");
  capture->require_subcommand(1);
  auto args = std::make_shared<CaptureArgs>();
  auto* mysql = capture->add_subcommand(
      "mysql", "Print a MySQL/MariaDB server's changes (snapshot + binlog) as Debezium JSON Lines");
  AddServerLoginOptions(*mysql, &args->login,
                        "User (needs REPLICATION SLAVE, REPLICATION CLIENT, SELECT)");
  mysql->add_option("--tables", args->tables, "Regular expression on db.table (whole match)")
      ->capture_default_str();
  mysql
      ->add_option("--startup", args->startup,
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
  mysql
      ->add_option("--snapshot-parallelism", args->snapshot_parallelism,
                   "Snapshot chunk readers in parallel (each a connection; their binlog readers "
                   "use server ids --server-id + 1 ...)")
      ->capture_default_str()
      ->check(CLI::Range(1, cdc::mysql::kMaxSnapshotParallelism));
  mysql->add_flag("--no-schema", args->no_schema, "Omit the Debezium schema block");
  mysql->add_flag("--until-end", args->until_end,
                  "Stop at the end of the binlog as the server has it when capture gets there "
                  "(after the snapshot, if any), with the state written");
  auto pg_args = std::make_shared<PgCaptureArgs>();
  auto* pg = capture->add_subcommand(
      "postgres",
      "Print a PostgreSQL slot's row changes (pgoutput) as Debezium PostgreSQL JSON Lines");
  AddServerLoginOptions(*pg, &pg_args->login, "User (needs REPLICATION, or superuser)");
  pg->add_option("--database", pg_args->database, "Database (Debezium database.dbname)")
      ->capture_default_str();
  pg->add_option("--tables", pg_args->tables,
                 "Regular expression on schema.table (whole match): the tables printed, and "
                 "those of a publication made in filtered mode")
      ->capture_default_str();
  pg->add_option("--slot", pg_args->slot, "Replication slot (made with pgoutput when missing)")
      ->capture_default_str();
  pg->add_option("--publication", pg_args->publication, "Publication the slot streams")
      ->capture_default_str();
  pg->add_option("--publication-autocreate", pg_args->publication_autocreate,
                 "When the publication is missing: disabled | all_tables (needs a superuser) | "
                 "filtered (FOR TABLE the --tables matches; needs their ownership)")
      ->capture_default_str();
  pg->add_option("--start-lsn", pg_args->start_lsn,
                 "Start at this LSN (e.g. 0/16B3748) instead of the slot's confirmed position");
  pg->add_option("--server-name", pg_args->server_name, "Debezium logical server name")
      ->capture_default_str();
  pg->add_option("--max-events", pg_args->max_events,
                 "Stop after the transaction that brings the printed row changes to N")
      ->check(CLI::Range(int64_t{0}, std::numeric_limits<int64_t>::max()));
  pg->add_option("--stop-after-idle-ms", pg_args->stop_after_idle_ms,
                 "Stop when nothing came from the slot for this long")
      ->check(CLI::Range(int64_t{0}, std::numeric_limits<int64_t>::max()));
  pg->add_flag("--drop-slot", pg_args->drop_slot, "Drop the slot and exit");
  SetCommandBody(*pg, exit_code, [pg_args]() -> CommandStatus {
    StartCapture();
    auto options = ToPgOptions(*pg_args);
    if (!options) return UsageError(std::move(options).error());
    if (pg_args->drop_slot) return DropPgSlot(std::move(*options));
    return RunPgCapture(std::move(*options));
  });
  SetCommandBody(*mysql, exit_code, [args]() -> CommandStatus {
    StartCapture();
    auto options = ToOptions(*args);
    if (!options) return UsageError(std::move(options).error());
    return RunCapture(*args, std::move(*options));
  });
}

}  // namespace floe::cli
