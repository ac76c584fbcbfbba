#pragma once
/// `floe capture mysql`: the change stream of a MySQL/MariaDB server as floe
/// change events — an optional initial snapshot, then the binlog, with DDL
/// applied through the schema tracker — resumable from a state file at a
/// transaction boundary. docs/mysql-capture.md.
///
/// Order of events: within a batch, source order; batches in commit order.
/// A batch is one transaction of the selected tables (or one snapshot chunk,
/// or one DDL statement). After the sink accepts a batch that ends a
/// transaction, the state (position + the schemas of the selected tables) is
/// written atomically, so a restart resumes exactly after that transaction.

#include <atomic>
#include <functional>
#include <memory>
#include <regex>
#include <string>

#include "floe/cdc/change.h"
#include "floe/cdc/mysql/replication.h"
#include "floe/cdc/mysql/table_schema.h"

namespace floe::cdc::mysql {

enum class StartupMode : uint8_t {
  kInitial,    ///< snapshot the selected tables, then stream from the snapshot point
  kLatest,     ///< stream from the current end of the binlog
  kPosition,   ///< stream from a binlog FILE:POS
  kGtid,       ///< stream from a GTID set (MariaDB)
  kTimestamp,  ///< stream from the first transaction at or after a time
};

struct CaptureOptions {
  ConnectionOptions connection;
  /// Regular expression (ECMAScript, whole match) on "db.table". Default: all
  /// tables outside the system databases.
  std::string tables = ".*";
  /// Instead of `tables`, when set: whether (db, table) is captured (system
  /// databases never are). Must be thread-safe.
  std::function<bool(std::string_view db, std::string_view table)> selector;
  StartupMode startup = StartupMode::kInitial;
  BinlogFilePos start_position;    ///< kPosition
  GtidSet start_gtids;             ///< kGtid
  int64_t start_unix_seconds = 0;  ///< kTimestamp
  /// Replica server id of this client. Default 54321.
  uint32_t server_id = 54321;
  /// Heartbeat period in seconds. Default 5.
  unsigned heartbeat_seconds = 5;
  /// Snapshot chunk size in rows. Default 10000.
  size_t snapshot_chunk_rows = 10000;
  /// Snapshot chunk readers (connections) in parallel. Default 2. Their
  /// binlog-window readers use replica server ids server_id + 1 ...
  /// server_id + snapshot_parallelism (docs/mysql-snapshot.md).
  int snapshot_parallelism = 2;
  /// State file ("" for none): read at start to resume, written after each transaction.
  std::string state_file;
  /// A state to resume from (MySqlCapture::State() of an earlier run, kept
  /// by its consumer, e.g. in an engine checkpoint); wins over `state_file`.
  std::string initial_state;
  /// Stop, with Ok and the state written, at the end of the binlog as the
  /// server has it when the stream gets there (a non-blocking dump), instead
  /// of waiting for new events (`floe capture --until-end`).
  bool until_end = false;
  /// Also hand the sink empty batches that end a transaction: one when the
  /// initial snapshot is complete, and one every few seconds while the
  /// stream has nothing for the selected tables, so that a consumer that
  /// checkpoints at transaction boundaries has one (and its position moves
  /// on with the binlog).
  bool boundary_batches = false;
  /// Resuming from a state: selected tables the state does not know (added
  /// to the selection while the capture was stopped, or created since) get
  /// an initial snapshot before the stream resumes — Flink CDC's
  /// `scan.newly-added-table.enabled`. Their binlog events before that
  /// snapshot's start are skipped (the snapshot holds their effect).
  bool snapshot_new_tables = false;
  /// Reconnect after a lost connection (server restart), this many times in a
  /// row before giving up. Default 30 (with 1 s between attempts).
  int reconnect_attempts = 30;
};

/// Bounds of CaptureOptions' counts, checked by CheckCaptureOptions.
inline constexpr uint32_t kMaxServerId = 4294967295u;
inline constexpr size_t kMaxSnapshotChunkRows = 10'000'000;
inline constexpr int kMaxSnapshotParallelism = 64;
inline constexpr unsigned kMaxHeartbeatSeconds = 3600;
inline constexpr int kMaxReconnectAttempts = 1'000'000;

/// Checks options that need no server: the --tables regular expression, and
/// every count within its bounds (server_id 1.., with room for the snapshot
/// readers' ids server_id + 1 .. server_id + snapshot_parallelism; chunk rows
/// 1..kMaxSnapshotChunkRows; parallelism 1..kMaxSnapshotParallelism;
/// heartbeat 1..kMaxHeartbeatSeconds s; reconnect attempts
/// 0..kMaxReconnectAttempts). kInvalidArgument naming the option.
Status CheckCaptureOptions(const CaptureOptions& options);

/// Parses --startup text: "initial", "latest", "FILE:POS", "gtid:SET", "ts:TIME"
/// (TIME as unix seconds or "YYYY-MM-DD HH:MM:SS" UTC). kInvalidArgument.
Status ParseStartup(std::string_view text, CaptureOptions* options);

/// A capture state as MySqlCapture::StateParts gives it: `head`, a JSON
/// object without the schemas, and `schemas`, the JSON array of the selected
/// tables' schemas (null: `head` is the whole state, e.g. one read back).
struct CaptureStateText {
  std::string head;
  std::shared_ptr<const std::string> schemas;

  bool empty() const { return head.empty(); }
  /// The whole state: `head` with `"schemas": <schemas>` spliced in last.
  std::string Text() const;
};

class MySqlCapture {
 public:
  using Sink = std::function<Status(ChangeBatch& batch)>;

  /// Checks the options (CheckCaptureOptions), connects, checks the server
  /// (CheckServerForCapture). Errors: kInvalidArgument for bad options or server settings (the
  /// message names the fix), kIo for connection trouble.
  static Result<std::unique_ptr<MySqlCapture>> Open(CaptureOptions options);
  ~MySqlCapture();

  /// Runs until `stop` becomes true (returns Ok) or an error. Calls `sink`
  /// for every batch; a sink error stops the capture and is returned.
  Status Run(const Sink& sink, const std::atomic<bool>& stop);

  /// Inside the sink, for a batch that ends a transaction: the state to
  /// resume exactly after it (the position, the schemas of the selected
  /// tables, the snapshot's stream filter), as text for
  /// CaptureOptions::initial_state. Elsewhere: the state after the last such
  /// batch.
  Result<std::string> State();
  /// State() in two parts, for a caller that keeps the state of every
  /// transaction but needs its text only now and then: the schemas (of
  /// thousands of tables, megabytes) are shared, not copied, while no schema
  /// changes.
  Result<CaptureStateText> StateParts();

  /// Whether db.table is selected by the regex.
  bool Selected(std::string_view db, std::string_view table) const;

 private:
  struct Impl;
  explicit MySqlCapture(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Builds the change model's table definition from a MySQL schema (Iceberg
/// schema via type_mapping.h). `version` is the stream's schema version.
Result<TableDefinitionPtr> MakeTableDefinition(const TableSchema& schema, int64_t version);

}  // namespace floe::cdc::mysql
