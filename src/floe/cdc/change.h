#pragma once
/// floe's change-event model: what every change-capture source (MySQL/MariaDB
/// binlog, PostgreSQL, Kafka/Debezium) produces and every sink consumes.
///
///  - `RowChange`: one row inserted, updated, deleted, or read by a snapshot,
///    with its before and after images as `types::Value` rows. Values follow
///    the Iceberg type of each column (`TableDefinition::schema`), with the
///    representation of types/value.h. The images point into the `Arena` of
///    the `ChangeBatch` that holds the change: they live as long as the batch.
///  - `SchemaChange`: a table created, dropped, renamed or truncated, or a
///    column added, dropped, renamed or modified (with its position), or the
///    primary key changed. Each carries the table's full definition after the
///    change (none after a drop).
///  - `ChangeBatch`: the events of one source transaction (or one snapshot
///    chunk), in order, with the position to resume from after it.
///
/// Threading: immutable once built; a batch may be handed to another thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "floe/cdc/position.h"
#include "floe/common/arena.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::cdc {

/// A table of the source: database (MySQL schema) and table name, as written.
struct TableId {
  std::string db;
  std::string table;

  /// "db.table".
  std::string ToString() const { return db + "." + table; }
  friend bool operator==(const TableId&, const TableId&) = default;
  friend auto operator<=>(const TableId&, const TableId&) = default;
};

struct TableIdHash {
  size_t operator()(const TableId& id) const {
    return std::hash<std::string>()(id.db) * 31 + std::hash<std::string>()(id.table);
  }
};

/// A column as the source database describes it: what Debezium's schema
/// block and `tableChanges` need beyond the Iceberg type.
struct SourceColumn {
  std::string name;
  /// The source's upper-case type name without modifiers: "INT", "VARCHAR",
  /// "DATETIME", "ENUM", "GEOMETRY", ...
  std::string type_name;
  bool is_unsigned = false;
  /// Declared length (characters, bytes or bits), or DECIMAL precision; -1 if none.
  int64_t length = -1;
  /// DECIMAL scale; -1 if none.
  int scale = -1;
  /// DATETIME/TIMESTAMP/TIME fractional-second digits.
  int fsp = 0;
  bool nullable = true;
  bool auto_increment = false;
  /// Character set name ("utf8mb4"), empty for non-text columns.
  std::string charset;
  /// ENUM/SET members in order.
  std::vector<std::string> enum_values;
  /// The DEFAULT clause as text, if any.
  std::optional<std::string> default_value;
  std::string comment;
};

/// A table's definition at some point of the stream: its columns (source view
/// and Iceberg schema, one field per column in the same order) and primary key.
struct TableDefinition {
  TableId id;
  std::vector<SourceColumn> columns;
  /// Field i of `schema` is column i; identifier fields are the primary key.
  types::Schema schema;
  /// Primary-key column names in key order (empty: no primary key).
  std::vector<std::string> primary_key;
  /// Increases with every schema change of this table in the stream.
  int64_t version = 0;
  std::string charset;
  std::string comment;
};
using TableDefinitionPtr = std::shared_ptr<const TableDefinition>;

/// A row change's kind; kChangeOpLetters follows this order.
enum class ChangeOp : uint8_t {
  kInsert,  ///< after only
  kUpdate,  ///< before and after
  kDelete,  ///< before only
  kRead,    ///< snapshot read: after only
};
/// Debezium's op letters, in ChangeOp's order: one table for both directions.
inline constexpr std::string_view kChangeOpLetters = "cudr";
/// Debezium's op letter: "c", "u", "d", "r".
constexpr std::string_view ChangeOpLetter(ChangeOp op) {
  const auto i = static_cast<size_t>(op);
  return i < kChangeOpLetters.size() ? kChangeOpLetters.substr(i, 1) : "?";
}
/// The op of Debezium's op letter (ChangeOpLetter's inverse); nothing for any
/// other text ("t", a truncation, is no row change).
constexpr std::optional<ChangeOp> ChangeOpOfLetter(std::string_view letter) {
  const size_t i = letter.size() == 1 ? kChangeOpLetters.find(letter[0]) : std::string_view::npos;
  if (i == std::string_view::npos) return std::nullopt;
  return static_cast<ChangeOp>(i);
}

/// What the rows of one source event share: where the event is in the source,
/// its transaction and its commit time. Shared by the rows of an event.
struct ChangeSource {
  /// The event's position: `binlog` is the event's own file:pos, `gtids` the
  /// executed set before its transaction, `gtid` its transaction's GTID.
  SourcePosition position;
  /// The transaction id: the GTID if there is one, else "file:pos" of BEGIN.
  std::string transaction_id;
  /// Commit (event) time, milliseconds since epoch.
  int64_t ts_ms = 0;
  /// The server thread that ran the statement (0 if unknown).
  uint64_t thread_id = 0;
  /// The SQL statement, when the source logs it (MariaDB annotate rows).
  std::string query;
  /// Debezium's `snapshot`: "false", "true", "first", "last", "first_in_data_collection", ...
  std::string snapshot = "false";
};

/// One row changed.
struct RowChange {
  ChangeOp op = ChangeOp::kInsert;
  /// The table's definition the images follow (never null).
  TableDefinitionPtr table;
  /// Empty span when absent (insert/read: no before; delete: no after).
  types::Row before;
  types::Row after;
  std::shared_ptr<const ChangeSource> source;
  /// Index of the row within its source event (Debezium `source.row`).
  uint32_t row_in_event = 0;
};

enum class SchemaChangeKind : uint8_t {
  kCreateTable,
  kDropTable,
  kRenameTable,
  kTruncateTable,
  kAddColumn,
  kDropColumn,
  kRenameColumn,
  kModifyColumn,
  kPrimaryKeyChange,
  /// A change of table options, comments, indexes: no effect on the rows.
  kAlterOther,
};
std::string_view SchemaChangeKindName(SchemaChangeKind kind);

/// One structural change of one table.
struct SchemaChange {
  SchemaChangeKind kind = SchemaChangeKind::kAlterOther;
  /// The table after the change (the new name for a rename).
  TableId table;
  /// kRenameTable: the old name.
  TableId old_table;
  /// Column changes: the column's name after the change (before, for a drop).
  std::string column;
  /// kRenameColumn (and CHANGE that renames): the old column name.
  std::string old_column;
  /// Add/modify/rename: the column's 0-based position after the change; -1 otherwise.
  int position = -1;
  /// The full table definition after the change; null after kDropTable.
  TableDefinitionPtr table_after;
  /// The statement that caused it, as the source logged it, and its default database.
  std::string ddl;
  std::string database;
  std::shared_ptr<const ChangeSource> source;
};

using ChangeEvent = std::variant<RowChange, SchemaChange>;

/// The events of one transaction (or one snapshot chunk), in order, with their
/// own storage. Move-only.
struct ChangeBatch {
  ChangeBatch() : arena(std::make_unique<Arena>()) {}
  ChangeBatch(ChangeBatch&&) = default;
  ChangeBatch& operator=(ChangeBatch&&) = default;

  /// Holds the row images' values and bytes.
  std::unique_ptr<Arena> arena;
  std::vector<ChangeEvent> events;
  /// True when the batch ends at a transaction boundary: `resume` is then the
  /// position to restart from to get exactly the events after this batch.
  bool ends_transaction = false;
  SourcePosition resume;

  /// Copies `values` into the arena and returns the stored row. Nested values
  /// and bytes are copied too.
  types::Row CopyRow(types::Row values);
  /// Forgets the events and the arena's contents, keeping memory.
  void Clear();
};

}  // namespace floe::cdc
