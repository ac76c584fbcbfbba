#pragma once
/// Reads Debezium JSON change events (one JSON value per line), as written by
/// Debezium's connectors through the JSON converter — with the Kafka Connect
/// `{"schema": ..., "payload": ...}` wrapper or without it — and by
/// `floe capture`. See docs/ingest.md for the accepted forms and the type
/// mapping of Debezium's logical types to Iceberg types.
///
/// This header is the contract between the reader and `floe ingest`; the
/// reader's implementation may add members but keeps these meanings.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/change.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::cdc {

namespace dbz {
struct ReaderTesting;
}

/// One decoded line.
struct DebeziumEvent {
  enum class Kind : uint8_t {
    kRow,           ///< a row change: op, before/after
    kTombstone,     ///< a `null` line (Kafka tombstone): skipped by ingest
    kHeartbeat,     ///< a heartbeat or transaction-metadata event: skipped
    kSchemaChange,  ///< a schema-change topic event (ddl, tableChanges): skipped
    /// The source table was truncated (db/table say which): op "t", or a
    /// `floe capture` schema-change event whose floe.kind is
    /// "truncate_table". No row images.
    kTruncate,
  };
  Kind kind = Kind::kRow;
  ChangeOp op = ChangeOp::kInsert;  ///< from "op": c, r, u, d (kRow only)
  /// source.db and source.table (source.schema when there is no db, as for
  /// PostgreSQL).
  std::string db;
  std::string table;
  int64_t ts_ms = 0;
  /// Schema-change events (kSchemaChange, and kTruncate from one): the
  /// `floe.kind` member `floe capture` writes ("add_column",
  /// "truncate_table", ... — cdc::SchemaChangeKindName); empty when the event
  /// has none (Debezium's own connectors).
  std::string schema_change_kind;
  /// Schema-change events: each table their `tableChanges` describe (from
  /// its `id`, `"db"."table"` or `"db"."schema"."table"`) with the columns of
  /// `table.primaryKeyColumnNames`. Empty for other events.
  struct TableKey {
    std::string db;
    std::string table;
    std::vector<std::string> primary_key;
  };
  std::vector<TableKey> table_keys;
  /// The row schema from the envelope's `schema` block: Iceberg types for
  /// Debezium's types and logical types, field names and optionality, in the
  /// block's order, field ids 1..n. Null when the event has no schema block.
  /// Events with an identical block share one object (compare pointers).
  std::shared_ptr<const types::Schema> row_schema;
  /// The row images: one value per field of the schema used to decode them
  /// (`row_schema`, or the `known` schema given to Decode), in the arena.
  /// Empty rows when the image is absent/null.
  types::Row before;
  types::Row after;
};

class DebeziumJsonReader {
 public:
  DebeziumJsonReader();
  ~DebeziumJsonReader();

  /// Decodes one line. `known`: the schema to decode row images with when the
  /// event has no schema block (the destination table's schema; values are
  /// matched by field name, missing fields are null); may be null when every
  /// event carries a schema block. Values are allocated in `arena`.
  /// Errors (kInvalidArgument, with the reason and JSON path, e.g.
  /// "payload.after.price: expected a number"): malformed JSON, an unknown
  /// op, a missing source.table, a value that does not fit its type, no
  /// schema block and no `known` schema.
  /// A kRow event has `after` for c/r/u and `before` for d (an update may
  /// lack `before`); a kTruncate event (op "t", or a schema-change event of
  /// kind "truncate_table") has source.table, else it is an error (op "t")
  /// or stays kSchemaChange; required fields are checked in `after` only, since a
  /// `before` may carry only the key (PostgreSQL REPLICA IDENTITY DEFAULT).
  /// Steady state allocates nothing on the heap (names up to 15 bytes).
  /// Not thread-safe: one reader per thread.
  Result<DebeziumEvent> Decode(std::string_view line, const types::Schema* known, Arena* arena);

  /// For a caller that reads a before image only for a few fields (`floe
  /// ingest`: the key and partition source columns, which are all an upsert
  /// or an equality delete needs): later events of `db`.`table` decoded with
  /// the schema that decoded the last event's row images (its schema block,
  /// or the `known` schema) decode only the fields at `fields` (indexes into
  /// that schema's fields; others are ignored) of their before image. The
  /// other members are skipped unparsed — a malformed value there is not
  /// reported — and read as null. After images are always decoded in full.
  /// An event of another table decoded with the same schema is decoded in
  /// full. Replaces the limit of that schema; call again after the schema
  /// changes (a new schema starts unlimited). Does nothing when the last
  /// event had no row image. Costs a few comparisons when nothing changes.
  void LimitBeforeImage(std::string_view db, std::string_view table, std::span<const int> fields);

 private:
  friend struct dbz::ReaderTesting;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::cdc
