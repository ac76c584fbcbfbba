#pragma once
/// `floe capture postgres`: a PostgreSQL slot's row changes as Debezium
/// PostgreSQL envelopes (JSON Lines, no schema block), one per row change:
///
///   {"before": {...}|null, "after": {...}|null,
///    "source": {"version", "connector": "postgresql", "name", "ts_ms",
///               "snapshot": "false", "db", "schema", "table", "txId", "lsn"},
///    "op": "c|u|d|t", "ts_ms", "transaction": null}
///
/// `ChangeAssembler` is the pure part: pgoutput messages in (as the server
/// sent them), one batch of lines per committed transaction out. It keeps the
/// relation cache from Relation messages, buffers streamed (protocol v2)
/// transactions until Stream Commit (dropped at Stream Abort), and fills an
/// unchanged TOASTed value of an update from the old row that REPLICA
/// IDENTITY FULL sends. `PostgresCapture` wires it to a ReplicationClient.
///
/// Values follow the Iceberg type of type_mapping.h, written as Debezium's
/// JSON converter writes them with decimal.handling.mode=string,
/// binary.handling.mode=base64 and time.precision.mode=adaptive_time_microseconds:
/// boolean, int and long as JSON numbers; float and double as numbers (NaN
/// and infinities as the strings "NaN", "Infinity", "-Infinity"); decimal as
/// its text; date as days since 1970-01-01; timestamp as microseconds
/// (MicroTimestamp); timestamptz as "2024-01-02T03:04:05.123456Z"
/// (ZonedTimestamp; "infinity" / "-infinity"); time as microseconds
/// (MicroTime); uuid as its text; binary as base64; lists as arrays; string
/// columns (everything else) as strings.
///
/// Threading: one thread.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_client.h"
#include "floe/cdc/postgres/transaction_decoder.h"
#include "floe/cdc/postgres/type_mapping.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/type.h"

namespace floe::cdc::postgres {

/// One committed transaction's lines ('\n' after each), how many row events
/// they hold, and the LSN just past its commit record: once the lines are
/// durable, the slot may confirm `end_lsn`.
struct CommittedLines {
  std::string_view lines;
  size_t events = 0;
  uint32_t xid = 0;
  Lsn end_lsn;
};

class ChangeAssembler {
 public:
  /// The base type (oid, type modifier) of a domain type, or nullopt when
  /// `type_oid` is not a domain or cannot be looked up (the column is then a
  /// string). Called once per unknown type oid.
  using TypeResolver = DomainResolver::Lookup;

  struct Options {
    std::string database;                ///< source.db
    std::string server_name = "floe";    ///< source.name
    std::string version = "floe-0.1.0";  ///< source.version
    /// Only tables whose "schema.table" matches (whole match) are printed;
    /// empty: all.
    std::optional<std::regex> tables;
    TypeResolver resolve_type;  ///< may be empty
    /// The envelope's ts_ms; default: the system clock.
    std::function<int64_t()> now_ms;
  };

  using Sink = std::function<Status(const CommittedLines&)>;

  ChangeAssembler(PgoutputVersion version, Options options);

  /// Feeds one pgoutput message, the payload of the XLogData frame at
  /// `wal_start`. Calls `sink` once per committed transaction (at Commit or
  /// Stream Commit) with its lines; a transaction with no row change of a
  /// printed table still calls it (with no lines) so the caller may confirm
  /// its end. Errors: those of the decoder (kCorruption), kCorruption for a
  /// row of a relation no Relation message described or with a column count
  /// that differs from it, kInvalidArgument for a value that cannot be read
  /// (naming table, column and LSN), kNotSupported for an unchanged TOASTed
  /// value without the old row (naming table and column and advising
  /// REPLICA IDENTITY FULL) and for binary-format values; the sink's errors.
  Status Feed(Lsn wal_start, std::string_view message, const Sink& sink);

  /// Row events printed so far.
  int64_t events() const { return events_; }
  /// Streamed transactions buffered now (waiting for Stream Commit or Abort).
  size_t buffered_transactions() const { return transactions_.held_transactions(); }

 private:
  struct Column {
    std::string name;
    uint32_t type_oid = 0;  // after resolving a domain to its base type
    int32_t type_modifier = -1;
    types::TypePtr type;
    bool key = false;
  };
  struct Relation {
    std::string schema, name;
    ReplicaIdentity identity = ReplicaIdentity::kDefault;
    std::vector<Column> columns;
    bool printed = true;  // matches Options::tables
  };
  struct Transaction {
    uint32_t xid = 0;
    int64_t commit_time = 0;  // postgres micros
  };

  Status Handle(const PgoutputMessage& m, Lsn lsn, const Transaction& txn);
  Status Commit(uint32_t xid, Lsn end_lsn, const Sink& sink);
  void OnRelation(const RelationMessage& m);
  Status AppendRow(const Relation& rel, const TupleData& tuple, const TupleData* old,
                   OldTupleKind old_kind, Lsn lsn, std::string* out);
  void AppendEnvelopeEnd(const Relation& rel, const Transaction& txn, Lsn lsn, char op,
                         std::string* out);

  PgoutputVersion version_;
  Options options_;
  TransactionDecoder transactions_;
  DomainResolver domains_;
  std::unordered_map<uint32_t, Relation> relations_;
  std::optional<Transaction> open_;  // between Begin and Commit
  std::string out_;
  size_t out_events_ = 0;
  int64_t events_ = 0;
  Arena arena_;
};

struct CaptureOptions {
  ReplicationClientOptions client;
  /// Where to start: 0/0 (default) is the slot's confirmed_flush_lsn.
  Lsn start_lsn;
  std::string server_name = "floe";
  /// Regular expression on "schema.table" (whole match): the tables printed,
  /// and with publication.autocreate.mode filtered the tables of the
  /// publication made. Default: all.
  std::string tables = ".*";
  /// Stop after the transaction that brings the printed row events to this
  /// many; 0 (default): no limit.
  int64_t max_events = 0;
  /// Stop when no message came for this long; 0 (default): never.
  std::chrono::milliseconds stop_after_idle{0};
};

/// The lines of one committed transaction go to the sink; it returns once
/// they are durable (written and flushed), and only then does the slot's
/// flushed LSN move to the transaction's end.
class PostgresCapture {
 public:
  /// Connects, checks the requirements and makes the publication and slot
  /// as ReplicationClient::Connect and Prepare do (their errors).
  static Result<std::unique_ptr<PostgresCapture>> Open(CaptureOptions options);

  /// Streams until `stop`, max_events or stop_after_idle; then sends a last
  /// standby status update. Errors: the client's, the assembler's, the sink's.
  Status Run(const ChangeAssembler::Sink& sink, const std::atomic<bool>& stop);

  ReplicationClient& client() { return *client_; }

 private:
  CaptureOptions options_;
  std::unique_ptr<ReplicationClient> client_;
};

}  // namespace floe::cdc::postgres
