#pragma once
/// The initial snapshot of `floe capture`: every selected table read at one
/// consistent point, with the binlog position of that point, so that
/// streaming from the position afterwards misses nothing and repeats nothing.
/// docs/mysql-snapshot.md describes the algorithm and its limits.
///
/// The point: `START TRANSACTION WITH CONSISTENT SNAPSHOT` on one connection.
/// On MariaDB the matching binlog position comes from the status variables
/// `binlog_snapshot_file` / `binlog_snapshot_position`, which the server
/// keeps consistent with the snapshot: no lock at all. On MySQL (no such
/// variables) a `FLUSH TABLES WITH READ LOCK` is held only for the instant
/// between starting the snapshot and reading SHOW MASTER STATUS.
///
/// Tables are read in chunks of `chunk_rows` rows ordered by primary key
/// (keyset pagination: `WHERE (pk) > (last) ORDER BY pk LIMIT n`), so no
/// chunk holds more than `chunk_rows` rows in memory; tables without a
/// primary key are read in one chunk (a streamed full scan), which the log says.
///
/// `floe capture` uses this reader only for tables the incremental snapshot
/// (incremental_snapshot.h) cannot chunk: no primary key, or a key with
/// columns floe cannot order like the server.

#include <functional>
#include <memory>

#include "floe/cdc/change.h"
#include "floe/cdc/mysql/replication.h"
#include "floe/cdc/mysql/table_schema.h"

namespace floe::cdc::mysql {

struct SnapshotOptions {
  /// Rows per chunk (per ChangeBatch). Default 10000.
  size_t chunk_rows = 10000;
};

/// Parses the text a SELECT returns for `column` (connection charset
/// utf8mb4, time_zone '+00:00') into a Value with the Iceberg mapping of
/// type_mapping.h (the same representation the binlog decoder produces).
/// `text` is null for SQL NULL. Bytes are allocated in `arena`.
/// kInvalidArgument naming the column for text that does not parse.
Result<types::Value> ParseSelectedValue(const ColumnDef& column, const char* text, size_t length,
                                        Arena* arena);

/// One snapshot: opened once, then each table read in turn.
class Snapshot {
 public:
  /// Opens the consistent snapshot on a new connection and returns the
  /// binlog position it corresponds to (see the file comment).
  static Result<std::unique_ptr<Snapshot>> Open(const ConnectionOptions& options,
                                                SnapshotOptions snapshot_options = {});

  const SourcePosition& position() const { return position_; }

  /// Reads `table` (whose schema is `schema`), calling `sink` with one batch
  /// per chunk; rows are kRead changes of `definition`. The last batch of the
  /// table has `snapshot = "last_in_data_collection"` on its last row.
  Status ReadTable(const TableSchema& schema, const TableDefinitionPtr& definition,
                   const std::function<Status(ChangeBatch&)>& sink);

  /// Ends the snapshot transaction.
  Status Close();

  Connection& connection() { return *conn_; }

 private:
  std::unique_ptr<Connection> conn_;
  SnapshotOptions options_;
  SourcePosition position_;
};

}  // namespace floe::cdc::mysql
