#include "floe/cdc/postgres/replication_client.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace floe::cdc::postgres {
namespace {

using Clock = std::chrono::steady_clock;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// libpq's messages end with a newline.
std::string Trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string ErrorOf(PGconn* conn, const PGresult* r) {
  std::string m = r ? Trimmed(PQresultErrorMessage(r)) : "";
  return m.empty() ? Trimmed(PQerrorMessage(conn)) : m;
}

int64_t NowPostgresMicros() {
  return UnixMicrosToPostgresTime(std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
}

Result<PGconn*> Open(const ReplicationClientOptions& o, bool replication) {
  const std::string port = std::to_string(o.port);
  const std::string timeout = std::to_string(o.connect_timeout_seconds);
  const char* keys[] = {"host",
                        "port",
                        "user",
                        "password",
                        "dbname",
                        "options",
                        "connect_timeout",
                        "application_name",
                        "replication",
                        nullptr};
  const char* values[] = {o.host.c_str(),
                          port.c_str(),
                          o.user.c_str(),
                          o.password.empty() ? nullptr : o.password.c_str(),
                          o.database.c_str(),
                          "-c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=postgres "
                          "-c bytea_output=hex -c extra_float_digits=3",
                          timeout.c_str(),
                          "floe",
                          replication ? "database" : nullptr,
                          nullptr};
  // A null value ends libpq's list; put the replication key last and drop
  // the password key when there is none.
  std::vector<const char*> k, v;
  for (int i = 0; keys[i]; ++i) {
    if (!values[i]) continue;
    k.push_back(keys[i]);
    v.push_back(values[i]);
  }
  k.push_back(nullptr);
  v.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(k.data(), v.data(), 0);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string m = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return IoError("connecting to PostgreSQL at {}:{} as {} ({} connection): {}", o.host, o.port,
                   o.user, replication ? "replication" : "catalog", m);
  }
  return conn;
}

}  // namespace

Result<PublicationAutocreate> ParsePublicationAutocreate(std::string_view text) {
  if (text == "disabled") return PublicationAutocreate::kDisabled;
  if (text == "all_tables") return PublicationAutocreate::kAllTables;
  if (text == "filtered") return PublicationAutocreate::kFiltered;
  return InvalidArgument(
      "publication.autocreate.mode '{}': expected disabled, all_tables or filtered", text);
}

ReplicationClient::~ReplicationClient() {
  if (frame_) PQfreemem(frame_);
  if (replication_) PQfinish(replication_);
  if (sql_) PQfinish(sql_);
}

Result<std::unique_ptr<ReplicationClient>> ReplicationClient::Connect(
    ReplicationClientOptions options) {
  std::unique_ptr<ReplicationClient> c(new ReplicationClient(std::move(options)));
  FLOE_ASSIGN_OR_RETURN(c->sql_, Open(c->options_, false));
  FLOE_RETURN_IF_ERROR(c->CheckServer());
  FLOE_ASSIGN_OR_RETURN(c->replication_, Open(c->options_, true));
  return c;
}

Result<std::unique_ptr<ReplicationClient>> ReplicationClient::ConnectForQueries(
    ReplicationClientOptions options) {
  std::unique_ptr<ReplicationClient> c(new ReplicationClient(std::move(options)));
  FLOE_ASSIGN_OR_RETURN(c->sql_, Open(c->options_, false));
  return c;
}

Result<std::vector<std::vector<std::optional<std::string>>>> ReplicationClient::Query(
    const std::string& sql) {
  PgResult r(PQexec(sql_, sql.c_str()));
  auto status = PQresultStatus(r.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return IoError("{}: {}", sql.substr(0, 200), ErrorOf(sql_, r.get()));
  }
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    auto& row = rows.emplace_back();
    for (int j = 0; j < PQnfields(r.get()); ++j) {
      if (PQgetisnull(r.get(), i, j)) {
        row.emplace_back(std::nullopt);
      } else {
        row.emplace_back(std::string(PQgetvalue(r.get(), i, j),
                                     static_cast<size_t>(PQgetlength(r.get(), i, j))));
      }
    }
  }
  return rows;
}

std::string ReplicationClient::QuoteLiteral(std::string_view text) {
  char* q = PQescapeLiteral(sql_, text.data(), text.size());
  std::string out = q ? q : "''";
  PQfreemem(q);
  return out;
}

std::string ReplicationClient::QuoteIdentifier(std::string_view text) {
  char* q = PQescapeIdentifier(sql_, text.data(), text.size());
  std::string out = q ? q : "\"\"";
  PQfreemem(q);
  return out;
}

Status ReplicationClient::CheckServer() {
  server_version_ = PQserverVersion(sql_);
  if (server_version_ < 100000) {
    return NotSupported(
        "PostgreSQL at {}:{} is version {}: logical replication with pgoutput needs PostgreSQL 10 "
        "or later",
        options_.host, options_.port, server_version_);
  }
  protocol_ = server_version_ >= 140000 ? PgoutputVersion::kV2 : PgoutputVersion::kV1;
  FLOE_ASSIGN_OR_RETURN(auto wal, Query("SHOW wal_level"));
  std::string wal_level = wal.empty() || !wal[0][0] ? "" : *wal[0][0];
  if (wal_level != "logical") {
    return InvalidArgument(
        "wal_level is '{}' on {}:{}; logical replication needs wal_level = logical: run ALTER "
        "SYSTEM SET wal_level = logical as a superuser (or set it in postgresql.conf) and "
        "restart the server",
        wal_level, options_.host, options_.port);
  }
  FLOE_ASSIGN_OR_RETURN(
      auto role,
      Query("SELECT rolreplication, rolsuper FROM pg_roles WHERE rolname = current_user"));
  if (role.empty() || role[0].size() < 2 || (role[0][0] != "t" && role[0][1] != "t")) {
    return InvalidArgument(
        "role '{}' has no REPLICATION attribute (and is not a superuser), so it cannot read a "
        "replication slot: have a superuser run ALTER ROLE {} REPLICATION",
        options_.user, QuoteIdentifier(options_.user));
  }
  return Ok();
}

Status ReplicationClient::EnsurePublication() {
  const std::string name = options_.publication;
  FLOE_ASSIGN_OR_RETURN(
      auto rows,
      Query("SELECT puballtables FROM pg_publication WHERE pubname = " + QuoteLiteral(name)));
  if (!rows.empty()) return Ok();
  std::string sql = "CREATE PUBLICATION " + QuoteIdentifier(name);
  std::string needs;
  switch (options_.autocreate) {
    case PublicationAutocreate::kDisabled:
      return NotFound(
          "publication '{}' does not exist in database '{}' and publication.autocreate.mode is "
          "disabled: have the tables' owner or a superuser run CREATE PUBLICATION {} FOR TABLE "
          "… (or FOR ALL TABLES), or set the mode to all_tables or filtered",
          name, options_.database, QuoteIdentifier(name));
    case PublicationAutocreate::kAllTables:
      sql += " FOR ALL TABLES";
      needs = "CREATE PUBLICATION … FOR ALL TABLES needs a superuser";
      break;
    case PublicationAutocreate::kFiltered: {
      if (options_.tables.empty()) {
        return NotFound(
            "publication '{}' does not exist and publication.autocreate.mode is filtered, but no "
            "tables are named to put in it",
            name);
      }
      sql += " FOR TABLE ";
      for (size_t i = 0; i < options_.tables.size(); ++i) {
        const std::string& t = options_.tables[i];
        size_t dot = t.find('.');
        if (i) sql += ", ";
        if (dot == std::string::npos) {
          sql += QuoteIdentifier(t);
        } else {
          sql += QuoteIdentifier(t.substr(0, dot)) + "." + QuoteIdentifier(t.substr(dot + 1));
        }
      }
      needs =
          "CREATE PUBLICATION … FOR TABLE needs CREATE on the database and ownership of "
          "every table";
      break;
    }
  }
  PgResult r(PQexec(sql_, sql.c_str()));
  if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
    return InvalidArgument(
        "publication '{}' does not exist and creating it failed ({}): {}: {}; have an "
        "administrator create it, and use publication.autocreate.mode disabled",
        name, sql, ErrorOf(sql_, r.get()), needs);
  }
  spdlog::info("created publication {}: {}", name, sql);
  return Ok();
}

Result<SlotInfo> ReplicationClient::EnsureSlot() {
  SlotInfo info;
  FLOE_ASSIGN_OR_RETURN(
      auto rows, Query("SELECT active_pid, plugin, database, confirmed_flush_lsn, slot_type FROM "
                       "pg_replication_slots WHERE slot_name = " +
                       QuoteLiteral(options_.slot)));
  if (!rows.empty()) {
    const auto& r = rows[0];
    if (r[4] != "logical" || r[1] != "pgoutput") {
      return InvalidArgument(
          "replication slot '{}' exists but is not a logical slot of the pgoutput plugin ({} {}): "
          "use another slot name, or drop it",
          options_.slot, r[4].value_or("?"), r[1].value_or("?"));
    }
    if (r[2] != options_.database) {
      return InvalidArgument(
          "replication slot '{}' belongs to database '{}', not '{}': use another slot name",
          options_.slot, r[2].value_or("?"), options_.database);
    }
    if (r[0]) {
      return IoError(
          "replication slot '{}' is in use by the server process with pid {} (another client "
          "streams from it): stop that client, or end it with SELECT pg_terminate_backend({}), "
          "or use another slot name",
          options_.slot, *r[0], *r[0]);
    }
    if (r[3]) {
      FLOE_ASSIGN_OR_RETURN(info.confirmed_flush_lsn, Lsn::Parse(*r[3]));
    }
    return info;
  }
  const std::string sql =
      "CREATE_REPLICATION_SLOT " + QuoteIdentifier(options_.slot) + " LOGICAL pgoutput" +
      (options_.export_snapshot
           ? (server_version_ >= 150000 ? " (SNAPSHOT 'export')" : " EXPORT_SNAPSHOT")
           : (server_version_ >= 150000 ? " (SNAPSHOT 'nothing')" : " NOEXPORT_SNAPSHOT"));
  PgResult r(PQexec(replication_, sql.c_str()));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQnfields(r.get()) < 2) {
    return IoError("creating replication slot '{}' failed: {}", options_.slot,
                   ErrorOf(replication_, r.get()));
  }
  FLOE_ASSIGN_OR_RETURN(info.confirmed_flush_lsn, Lsn::Parse(PQgetvalue(r.get(), 0, 1)));
  if (PQnfields(r.get()) >= 3 && !PQgetisnull(r.get(), 0, 2))
    info.snapshot = PQgetvalue(r.get(), 0, 2);
  info.created = true;
  spdlog::info("created replication slot {} (pgoutput) at {}", options_.slot,
               info.confirmed_flush_lsn.ToString());
  return info;
}

std::optional<std::pair<uint32_t, int32_t>> ReplicationClient::DomainBase(uint32_t type_oid) {
  auto rows = Query(fmt::format(
      "SELECT typbasetype, typtypmod FROM pg_type WHERE oid = {} AND typtype = 'd'", type_oid));
  if (!rows || rows->empty() || !(*rows)[0][0] || !(*rows)[0][1]) return std::nullopt;
  try {
    return std::make_pair(static_cast<uint32_t>(std::stoul(*(*rows)[0][0])),
                          static_cast<int32_t>(std::stol(*(*rows)[0][1])));
  } catch (...) {
    return std::nullopt;
  }
}

Result<SlotInfo> ReplicationClient::Prepare() {
  FLOE_RETURN_IF_ERROR(EnsurePublication());
  return EnsureSlot();
}

Status ReplicationClient::StartStreaming(Lsn start) {
  std::string sql = "START_REPLICATION SLOT " + QuoteIdentifier(options_.slot) + " LOGICAL " +
                    start.ToString() + " (proto_version '" +
                    (protocol_ == PgoutputVersion::kV2 ? "2" : "1") + "', publication_names " +
                    QuoteLiteral(QuoteIdentifier(options_.publication)) +
                    (protocol_ == PgoutputVersion::kV2 ? ", streaming 'on'" : "") + ")";
  PgResult r(PQexec(replication_, sql.c_str()));
  if (PQresultStatus(r.get()) != PGRES_COPY_BOTH) {
    std::string m = ErrorOf(replication_, r.get());
    if (m.find("is active for PID") != std::string::npos) {
      return IoError(
          "replication slot '{}' is in use by another process ({}): stop that client or use "
          "another slot name",
          options_.slot, m);
    }
    return IoError("starting replication from slot '{}' at {}: {}", options_.slot, start.ToString(),
                   m);
  }
  streaming_ = true;
  last_status_ = Clock::now();
  spdlog::info("streaming slot {} from {} (pgoutput protocol {})", options_.slot, start.ToString(),
               static_cast<int>(protocol_));
  return Ok();
}

Status ReplicationClient::SendFinalStatus(Status result) {
  Status sent = SendStatus();
  if (!result) return result;
  return sent;
}

Status ReplicationClient::SelectPublicationTables(
    const std::function<bool(std::string_view schema, std::string_view table)>& selected) {
  if (options_.autocreate != PublicationAutocreate::kFiltered) return Ok();
  FLOE_ASSIGN_OR_RETURN(auto rows,
                        Query("SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN "
                              "('pg_catalog', 'information_schema') ORDER BY 1, 2"));
  std::vector<std::string> names;
  for (const auto& r : rows) {
    std::string schema = r[0].value_or(""), table = r[1].value_or("");
    if (selected(schema, table)) names.push_back(schema + "." + table);
  }
  set_publication_tables(std::move(names));
  return Ok();
}

Status ReplicationClient::SendStatus(bool reply_requested) {
  StandbyStatusUpdate u;
  u.written = std::max(received_, flushed_);
  u.flushed = flushed_;
  u.applied = flushed_;
  u.client_time = NowPostgresMicros();
  u.reply_requested = reply_requested;
  auto bytes = EncodeStandbyStatusUpdate(u);
  if (PQputCopyData(replication_, bytes.data(), static_cast<int>(bytes.size())) != 1 ||
      PQflush(replication_) != 0) {
    return IoError("sending a standby status update on slot '{}': {}", options_.slot,
                   Trimmed(PQerrorMessage(replication_)));
  }
  last_status_ = Clock::now();
  return Ok();
}

Result<std::optional<XLogData>> ReplicationClient::Next(std::chrono::milliseconds timeout) {
  if (!streaming_) return InvalidArgument("Next before StartStreaming");
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (frame_) {
      PQfreemem(frame_);
      frame_ = nullptr;
    }
    if (Clock::now() - last_status_ >= options_.status_interval) {
      FLOE_RETURN_IF_ERROR(SendStatus());
    }
    int n = PQgetCopyData(replication_, &frame_, /*async=*/1);
    if (n > 0) {
      FLOE_ASSIGN_OR_RETURN(auto message, DecodeReplicationMessage(std::string_view(frame_, n)));
      if (auto* x = std::get_if<XLogData>(&message)) {
        received_ = std::max(received_, x->wal_start);
        wal_end_ = std::max(wal_end_, x->wal_end);
        return std::optional<XLogData>(*x);
      }
      const auto& k = std::get<PrimaryKeepalive>(message);
      wal_end_ = std::max(wal_end_, k.wal_end);
      if (k.reply_requested) FLOE_RETURN_IF_ERROR(SendStatus());
      continue;
    }
    if (n == -1) {
      PgResult r(PQgetResult(replication_));
      streaming_ = false;
      return IoError("the server ended the replication stream of slot '{}': {}", options_.slot,
                     ErrorOf(replication_, r.get()));
    }
    if (n < -1) {
      return IoError("reading the replication stream of slot '{}': {}", options_.slot,
                     Trimmed(PQerrorMessage(replication_)));
    }
    auto now = Clock::now();
    if (now >= deadline) return std::optional<XLogData>();
    auto wait = std::min(deadline - now, options_.status_interval - (now - last_status_));
    int wait_ms = static_cast<int>(
        std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()));
    pollfd p{PQsocket(replication_), POLLIN, 0};
    if (poll(&p, 1, wait_ms) < 0 && errno != EINTR) {
      return IoError("waiting for the replication stream of slot '{}': poll failed", options_.slot);
    }
    if (PQconsumeInput(replication_) == 0) {
      return IoError("reading the replication stream of slot '{}': {}", options_.slot,
                     Trimmed(PQerrorMessage(replication_)));
    }
  }
}

Status ReplicationClient::DropSlot(std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  const std::string sql = "SELECT pg_drop_replication_slot(" + QuoteLiteral(options_.slot) + ")";
  while (true) {
    PgResult r(PQexec(sql_, sql.c_str()));
    if (PQresultStatus(r.get()) == PGRES_TUPLES_OK) return Ok();
    std::string m = ErrorOf(sql_, r.get());
    const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
    if (state && std::string_view(state) == "42704") {
      return NotFound("replication slot '{}' does not exist", options_.slot);
    }
    if (m.find("is active") == std::string::npos || Clock::now() >= deadline) {
      return IoError("dropping replication slot '{}': {}", options_.slot, m);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace floe::cdc::postgres
