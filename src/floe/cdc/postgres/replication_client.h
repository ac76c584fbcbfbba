#pragma once
/// A client of PostgreSQL's logical replication on libpq (docs/postgres.md):
/// two connections to one database, a normal one for catalog queries and one
/// opened with `replication=database` for the replication commands; the
/// requirements checked up front with messages saying what to do; the
/// publication and the pgoutput slot made when missing; the stream read
/// frame by frame with a timeout, keepalives answered, and standby status
/// updates whose flushed LSN is only ever what the caller says it holds.
///
/// Both connections set DateStyle ISO, TimeZone UTC, IntervalStyle postgres,
/// bytea_output hex and extra_float_digits 3, so that values arrive in the
/// text forms type_mapping.h reads.
///
/// Threading: one thread uses a client. Ownership: the client owns both
/// connections; `Next` returns views into a frame it keeps until the next call.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_protocol.h"
#include "floe/common/result.h"

struct pg_conn;
struct pg_result;

namespace floe::cdc::postgres {

/// Debezium's `publication.autocreate.mode`: what to do when the publication
/// does not exist. Creating one needs rights: FOR ALL TABLES a superuser,
/// FOR TABLE ownership of every table (and CREATE on the database).
enum class PublicationAutocreate {
  kDisabled,   ///< never create: an administrator made it; a missing one is an error
  kAllTables,  ///< CREATE PUBLICATION … FOR ALL TABLES
  kFiltered,   ///< CREATE PUBLICATION … FOR TABLE <ReplicationClientOptions::tables>
};

/// "disabled", "all_tables", "filtered"; anything else is kInvalidArgument.
Result<PublicationAutocreate> ParsePublicationAutocreate(std::string_view text);

struct ReplicationClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 5432;
  std::string user = "postgres";
  std::string password;  ///< empty: none (or ~/.pgpass, as libpq does)
  std::string database = "postgres";
  /// The replication slot; made with the pgoutput plugin when missing.
  std::string slot = "floe";
  /// The publication the stream follows (Debezium's default name).
  std::string publication = "dbz_publication";
  PublicationAutocreate autocreate = PublicationAutocreate::kAllTables;
  /// kFiltered: the tables of a publication to create, "schema.table" each.
  std::vector<std::string> tables;
  /// Seconds to wait for a connection. Default 10.
  int connect_timeout_seconds = 10;
  /// A slot made by Prepare exports its snapshot (SlotInfo::snapshot).
  bool export_snapshot = false;
  /// How often a standby status update is sent while streaming, even when
  /// nothing changed (the server ends a silent client after
  /// wal_sender_timeout, 60 s by default). Default 10 s.
  std::chrono::milliseconds status_interval{10'000};
};

/// What is known about the slot after `Prepare`.
struct SlotInfo {
  bool created = false;     ///< made by this Prepare
  Lsn confirmed_flush_lsn;  ///< where a stream from 0/0 starts (the consistent point if created)
  /// With ReplicationClientOptions::export_snapshot, for a slot made here:
  /// the name of the snapshot exported at the consistent point, valid until
  /// the next command on the replication connection (StartStreaming).
  std::string snapshot;
};

class ReplicationClient {
 public:
  ~ReplicationClient();
  ReplicationClient(const ReplicationClient&) = delete;
  ReplicationClient& operator=(const ReplicationClient&) = delete;

  /// Opens both connections. Errors: kIo when the server cannot be reached
  /// or refuses the login (libpq's message); kInvalidArgument when the role
  /// may not open a replication connection (lacks REPLICATION and is not a
  /// superuser: the message says to ALTER ROLE … REPLICATION) or wal_level
  /// is not logical; kNotSupported for a server older than PostgreSQL 10.
  static Result<std::unique_ptr<ReplicationClient>> Connect(ReplicationClientOptions options);
  /// Opens the catalog connection only, without the requirement checks: for
  /// Query and the quoting calls (a monitor beside a stream). Errors: kIo.
  static Result<std::unique_ptr<ReplicationClient>> ConnectForQueries(
      ReplicationClientOptions options);

  /// Checks the publication and the slot, making them as the options say.
  /// Errors: kNotFound for a missing publication with autocreate disabled
  /// (or filtered with no tables); kInvalidArgument when creating it is
  /// refused (the message names the right it needs) or the slot belongs to
  /// another database or plugin; kIo when the slot is active in another
  /// process (naming its pid: stop that client or use another slot name).
  Result<SlotInfo> Prepare();

  /// START_REPLICATION from `start` (0/0: the slot's confirmed_flush_lsn),
  /// with proto_version 2 and streaming 'on' on PostgreSQL 14 or later, else
  /// proto_version 1. Errors: kIo with the server's message.
  Status StartStreaming(Lsn start);

  /// The next XLogData frame, waiting at most `timeout`; nullopt when none
  /// came in that time (the caller may stop, or call again). Keepalives are
  /// consumed here: answered when they ask for a reply. A standby status
  /// update is also sent every `status_interval`. The returned frame's data
  /// lives until the next call. Errors: kIo when the connection fails or the
  /// server ends the stream (with its message); kCorruption for a frame that
  /// cannot be read.
  Result<std::optional<XLogData>> Next(std::chrono::milliseconds timeout);

  /// Sets the flushed LSN reported to the server: the end of what the caller
  /// has made durable. It never moves backwards and nothing else moves it.
  void set_flushed(Lsn lsn) {
    if (lsn > flushed_) flushed_ = lsn;
  }
  Lsn flushed() const { return flushed_; }

  /// Sends a standby status update now (written = the last received
  /// position, flushed and applied = `flushed()`). Errors: kIo.
  Status SendStatus(bool reply_requested = false);

  /// The last status update of a stream that ends with `result`: sent in
  /// either case. Returns `result` when it is an error, else SendStatus's.
  Status SendFinalStatus(Status result);

  /// Drops the slot (from the catalog connection; the slot must not be
  /// streaming: call before StartStreaming or on another client). Retries
  /// for up to `wait` while the slot is still active (a walsender that is
  /// going away). Errors: kNotFound if no such slot; kIo otherwise.
  Status DropSlot(std::chrono::milliseconds wait = std::chrono::seconds(5));

  /// Runs a catalog query on the normal connection: the rows' text values
  /// (nullopt for NULL). Errors: kIo with the server's message.
  Result<std::vector<std::vector<std::optional<std::string>>>> Query(const std::string& sql);

  /// The base type (oid, type modifier) of domain type `type_oid`, from
  /// pg_type; nullopt when it is not a domain or cannot be read.
  std::optional<std::pair<uint32_t, int32_t>> DomainBase(uint32_t type_oid);

  /// The SQL literal / identifier of `text`, quoted by libpq.
  std::string QuoteLiteral(std::string_view text);
  std::string QuoteIdentifier(std::string_view text);

  /// Sets the tables of a publication that kFiltered creates ("schema.table"
  /// each); call before Prepare.
  void set_publication_tables(std::vector<std::string> tables) {
    options_.tables = std::move(tables);
  }

  /// With publication.autocreate.mode filtered, sets the tables of the
  /// publication to the user tables (outside pg_catalog and
  /// information_schema) that `selected` accepts; otherwise does nothing.
  /// Call before Prepare. Errors: Query's.
  Status SelectPublicationTables(
      const std::function<bool(std::string_view schema, std::string_view table)>& selected);

  int server_version() const { return server_version_; }  ///< e.g. 150004
  PgoutputVersion protocol_version() const { return protocol_; }
  const ReplicationClientOptions& options() const { return options_; }
  /// The end of WAL as the server last reported it.
  Lsn server_wal_end() const { return wal_end_; }

 private:
  explicit ReplicationClient(ReplicationClientOptions options) : options_(std::move(options)) {}
  Status CheckServer();
  Status EnsurePublication();
  Result<SlotInfo> EnsureSlot();

  ReplicationClientOptions options_;
  pg_conn* sql_ = nullptr;
  pg_conn* replication_ = nullptr;
  char* frame_ = nullptr;  // PQgetCopyData's buffer of the last frame
  int server_version_ = 0;
  PgoutputVersion protocol_ = PgoutputVersion::kV1;
  bool streaming_ = false;
  Lsn flushed_;
  Lsn received_;
  Lsn wal_end_;
  std::chrono::steady_clock::time_point last_status_{};
};

}  // namespace floe::cdc::postgres
