#pragma once
/// The initial snapshot of `floe capture mysql --startup initial`: the DBLog /
/// Flink CDC incremental algorithm with low and high watermarks, chunked by
/// primary key and read by several connections in parallel, with no lock held
/// for the duration of the read. docs/mysql-snapshot.md is the full
/// description and the argument for its correctness.
///
/// In short:
///  1. S = the server's current binlog position (where streaming will start),
///     taken before the tables are listed (`IncrementalSnapshotOptions::start`).
///  2. Each selected table whose primary key has only comparable types
///     (integers, DECIMAL, DATE, DATETIME, TIMESTAMP, TIME, YEAR) is split into
///     key ranges [lo, hi) of about `chunk_rows` rows. Every chunk is read by
///     one of `parallelism` workers:
///       low watermark LW, SELECT the range, high watermark HW, then the
///       binlog between LW and HW is read and every row event of the table
///       whose key falls in the range replaces (insert, update) or erases
///       (delete) that key's row. The chunk is then the range's rows as of HW.
///  3. Other tables (no primary key, or a key with string, binary, ENUM, BIT
///     ... columns) are read whole under one consistent-snapshot transaction
///     whose binlog position is their HW (MariaDB: binlog_snapshot_position,
///     no lock; MySQL: FLUSH TABLES WITH READ LOCK held for three statements).
///  4. Chunks are emitted in table and key order, then the binlog is streamed
///     from S with a `SnapshotFilter`: an event at position p on a key whose
///     chunk has HW > p is already in the snapshot and is dropped. Once the
///     stream passes the largest HW the filter is gone.
///
/// Threading: `Run` is called from one thread, which also calls the sink;
/// the workers use their own connections.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/cdc/change.h"
#include "floe/cdc/mysql/binlog_event.h"
#include "floe/cdc/mysql/replication.h"
#include "floe/cdc/mysql/table_schema.h"

namespace floe::cdc::mysql {

/// Whether the primary key of `schema` can be split into ranges that floe
/// compares the way the server orders them: a non-empty key whose columns are
/// integers (any width, signed or unsigned, YEAR, BOOL), DECIMAL with
/// precision <= 38, DATE, DATETIME, TIMESTAMP or TIME.
bool PrimaryKeyIsChunkable(const TableSchema& schema);

/// Three-way comparison of two key tuples of the same table, column by
/// column, for the value kinds `PrimaryKeyIsChunkable` admits (bool, int32,
/// int64, decimal). Other kinds compare by their bytes (equal or not ordered
/// meaningfully); nulls sort first.
int CompareKeys(std::span<const types::Value> a, std::span<const types::Value> b);

/// Completes a TABLE_MAP from the tracked schema (names, signedness, ENUM
/// members, collations) where the server did not describe the columns
/// (binlog_row_metadata=MINIMAL). No-op when the column counts differ.
void CompleteTableMap(TableMapEvent* map, const TableSchema& schema);

/// Which events of the stream that follows the snapshot are already in it.
/// Per table: the chunks' upper key bounds (sorted; the last is unbounded)
/// and their high watermarks.
class SnapshotFilter {
 public:
  enum class Decision : uint8_t {
    kEmit,        ///< emit the event as it is
    kSkip,        ///< the snapshot already holds its effect
    kEmitInsert,  ///< a key-changing update: emit only its after image, as an insert
    kEmitDelete,  ///< a key-changing update: emit only its before image, as a delete
  };

  /// Adds a table: `pk` are the key's column indexes, `chunks` in key order,
  /// each with its upper bound (text as the server printed it, nullopt for
  /// the last chunk) and high watermark.
  struct Chunk {
    std::optional<std::vector<std::string>> hi;
    BinlogFilePos high_watermark;
  };
  Status AddTable(const TableSchema& schema, std::vector<Chunk> chunks);
  /// Takes in the tables of `other` (a later snapshot of other tables).
  /// kInvalidArgument when both hold a table.
  Status Merge(SnapshotFilter other);

  bool empty() const { return tables_.empty(); }
  /// The largest high watermark: at and after it the filter drops nothing.
  const BinlogFilePos& end() const { return end_; }

  /// What to do with a row change of db.table at binlog position `pos` (the
  /// rows event's own position). `before`/`after` as in RowChange.
  Decision Decide(std::string_view db, std::string_view table, types::Row before, types::Row after,
                  const BinlogFilePos& pos) const;

  /// {"tables": [{"db", "table", "chunks": [{"hi": [..] | null, "hw": "file:pos"}]}]}.
  nlohmann::json ToJson() const;
  /// Rebuilds a filter; `schema_of` finds each table's schema (nullptr:
  /// kInvalidArgument, the state does not match).
  static Result<SnapshotFilter> FromJson(
      const nlohmann::json& json,
      const std::function<const TableSchema*(std::string_view, std::string_view)>& schema_of);

 private:
  struct TableChunks {
    std::vector<int> pk;
    std::vector<Chunk> chunks;
    std::vector<std::vector<types::Value>> hi_values;  // parsed `hi`, bytes in arena_
  };
  /// Whether the event at `pos` on key `row[pk]` is after its chunk's HW.
  bool After(const TableChunks& t, types::Row row, const BinlogFilePos& pos) const;

  std::map<std::pair<std::string, std::string>, TableChunks> tables_;
  BinlogFilePos end_;
  std::shared_ptr<Arena> arena_ = std::make_shared<Arena>();
  std::vector<std::shared_ptr<Arena>> merged_arenas_;  ///< of merged filters' `hi_values`
};

struct IncrementalSnapshotOptions {
  ConnectionOptions connection;
  /// Rows per chunk. Default 10000.
  size_t chunk_rows = 10000;
  /// Chunk readers (connections) working in parallel. Default 2.
  int parallelism = 2;
  /// Replica server ids of the binlog readers that read the chunks' windows:
  /// worker i uses first_server_id + i. They must differ from every other
  /// replica of the server (a server drops a dump connection when another
  /// one registers with the same id).
  uint32_t first_server_id = 54322;
  /// Where streaming will start (S), taken by the caller before it listed the
  /// tables, so that every table is in the snapshot or has its CREATE TABLE
  /// after S. Default: the current position when the snapshot starts.
  std::optional<SourcePosition> start;
};

/// One table to snapshot: its schema and change-model definition.
struct SnapshotTable {
  const TableSchema* schema = nullptr;
  TableDefinitionPtr definition;
};

struct IncrementalSnapshotResult {
  /// Where streaming starts (S): binlog file:pos, GTIDs, server id.
  SourcePosition start;
  SnapshotFilter filter;
  uint64_t rows = 0;
  uint64_t chunks = 0;
  /// Chunks whose binlog window had events (so were reconciled).
  uint64_t reconciled_chunks = 0;
};

/// Runs the snapshot of `tables` (in the given order), calling `sink` with
/// one batch per chunk of kRead changes, in table order and key order within
/// a table. The last row of each table carries snapshot =
/// "last_in_data_collection". Errors: kIo for connection trouble (the
/// message names the server and statement), kSchemaIncompatible when a
/// table's rows in a chunk's binlog window do not match its schema (a DDL ran
/// during the snapshot: restart it), and whatever `sink` returns.
Result<IncrementalSnapshotResult> RunIncrementalSnapshot(
    const IncrementalSnapshotOptions& options, Connection& meta,
    const std::vector<SnapshotTable>& tables, const std::function<Status(ChangeBatch&)>& sink);

}  // namespace floe::cdc::mysql
