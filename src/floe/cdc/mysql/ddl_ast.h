#pragma once
/// The parsed form of one DDL statement from a binlog QUERY event: what
/// `ParseDdl` (ddl_parser.h) returns and `SchemaTracker` applies.
/// Only what changes table schemas is kept; index, partition, engine and
/// other clauses are recognized and dropped. See docs/mysql-ddl.md.

#include <optional>
#include <string>
#include <vector>

#include "floe/cdc/mysql/table_schema.h"

namespace floe::cdc::mysql {

/// The statement classes the parser knows.
enum class DdlKind : uint8_t {
  kCreateTable,      ///< CREATE [OR REPLACE] [TEMPORARY] TABLE ... (columns)
  kCreateTableLike,  ///< CREATE TABLE a LIKE b
  kDropTable,        ///< DROP [TEMPORARY] TABLE [IF EXISTS] a, b
  kRenameTable,      ///< RENAME TABLE a TO b, c TO d
  kTruncateTable,    ///< TRUNCATE [TABLE] a
  kAlterTable,       ///< ALTER TABLE a <actions>
  kCreateIndex,      ///< CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX ... ON a: no column change
  kDropIndex,        ///< DROP INDEX i ON a: no column change
  kDropDatabase,     ///< DROP {DATABASE|SCHEMA} [IF EXISTS] d: every table of d (`table.db`)
  kNotTableDdl,      ///< anything that cannot change a table's columns: BEGIN,
                     ///< CREATE DATABASE, GRANT, views, triggers, routines, ...
};

/// "create_table", "alter_table", "not_table_ddl", ...
std::string_view DdlKindName(DdlKind kind);

/// A possibly qualified table name; `db` is empty when the statement did not
/// name one (the QUERY event's default database applies).
struct TableRef {
  std::string db;
  std::string table;
  bool operator==(const TableRef&) const = default;
};

/// FIRST / AFTER col / (default) last.
struct ColumnPosition {
  enum class Kind : uint8_t { kLast, kFirst, kAfter };
  Kind kind = Kind::kLast;
  std::string after;  ///< kAfter only
  bool operator==(const ColumnPosition&) const = default;
};

/// One action of an ALTER TABLE.
struct AlterAction {
  enum class Kind : uint8_t {
    kAddColumn,      ///< column, position, if_not_exists; inline_primary_key
    kDropColumn,     ///< name, if_exists
    kModifyColumn,   ///< column (its name is the column changed), position
    kChangeColumn,   ///< name = old name, column = new definition, position
    kRenameColumn,   ///< name -> new_name
    kSetDefault,     ///< name, column.default_value (text), default_is_expression
    kDropDefault,    ///< name
    kSetVisibility,  ///< name, column.invisible
    kAddPrimaryKey,  ///< key_columns
    kDropPrimaryKey,
    kRenameTable,     ///< new_table
    kConvertCharset,  ///< charset, collation: every text column and the table default
    kTableOptions,    ///< charset/collation/comment/engine (empty = not given)
    kIgnored,         ///< indexes, foreign keys, checks, ALGORITHM, LOCK, partitions...
  };
  Kind kind = Kind::kIgnored;
  std::string name;
  std::string new_name;
  ColumnDef column;
  ColumnPosition position;
  bool if_exists = false;
  bool if_not_exists = false;
  /// ADD COLUMN ... PRIMARY KEY / CHANGE ... PRIMARY KEY.
  bool inline_primary_key = false;
  std::vector<std::string> key_columns;
  TableRef new_table;
  std::string charset;
  std::string collation;
  std::optional<std::string> comment;
  std::string engine;
  /// What an ignored action was, for logs ("ADD INDEX", "ALGORITHM").
  std::string ignored_what;
};

/// One parsed statement. Which members are meaningful depends on `kind`.
struct DdlStatement {
  DdlKind kind = DdlKind::kNotTableDdl;
  /// create / alter / truncate / index / create-like target.
  TableRef table;
  bool temporary = false;
  bool if_exists = false;
  bool if_not_exists = false;
  bool or_replace = false;
  /// kCreateTable: the table as declared: columns in order, primary key and
  /// options (a COLLATE alone gives the charset too). Its db and table are
  /// empty (the name is `table`), field ids 0.
  TableSchema definition;
  /// kCreateTableLike: the source table.
  TableRef like;
  /// kDropTable: the tables in order.
  std::vector<TableRef> tables;
  /// kRenameTable: (from, to) pairs in order.
  std::vector<std::pair<TableRef, TableRef>> renames;
  /// kAlterTable.
  std::vector<AlterAction> actions;
  /// kNotTableDdl: the leading words ("CREATE DATABASE", "BEGIN").
  std::string what;
};

}  // namespace floe::cdc::mysql
