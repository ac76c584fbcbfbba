#pragma once
/// Keeps the schema of every known table in step with the DDL of the binlog,
/// and describes each change it applies so the capture can emit schema-change
/// events. See docs/mysql-ddl.md.
///
/// Which tables are tracked: every table whose schema the tracker has seen
/// (loaded with `Put`, created by CREATE TABLE, or derived with CREATE TABLE
/// LIKE from a known table), selected or not. Tracking unselected tables is
/// what makes online schema-change tools work: gh-ost and pt-online-schema-change
/// create `_t_gho` / `_t_new` LIKE the selected table, ALTER the copy, then
/// RENAME it over the original.
///
/// Which changes are reported: those touching a selected table (by
/// `SchemaTrackerOptions::selected`). A DDL on a selected table whose schema
/// is unknown is an error (kNotFound), never a silent skip; a DDL on an
/// unselected unknown table is ignored.
///
/// Not thread-safe: one tracker per binlog stream, called in event order.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/change.h"
#include "floe/cdc/mysql/ddl_ast.h"
#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

/// What one applied change did to one table: the capture's own kinds
/// (cdc::SchemaChangeKind, named by cdc::SchemaChangeKindName), so that a
/// change leaves the tracker under the name capture events carry. Per kind:
/// - kCreateTable: `after` is the new table (also: CREATE OR REPLACE, LIKE, and
///   a rename of an unselected table onto a selected name, with `old_table` set)
/// - kDropTable: `db`.`table` dropped; `after` has no columns. Also a rename of
///   a selected table to an unselected name: then `after` is the table under
///   its new (unselected) name
/// - kRenameTable: `old_db`.`old_table` -> `db`.`table`
/// - kTruncateTable: rows removed; schema unchanged
/// - kAddColumn: `column` added at `position` (after `after_column`)
/// - kDropColumn: `column` dropped
/// - kRenameColumn: `old_column` -> `column`, definition unchanged
/// - kModifyColumn: `column`'s definition and/or position changed (CHANGE that
///   also renames: `old_column` is set)
/// - kPrimaryKeyChange: `old_primary_key` -> `after.primary_key`
/// - kAlterOther: table charset/collation/comment/engine changed, or CONVERT TO
///   CHARACTER SET (column charsets changed too)
using SchemaChangeKind = cdc::SchemaChangeKind;

struct SchemaChange {
  SchemaChangeKind kind = SchemaChangeKind::kCreateTable;
  std::string db;
  std::string table;
  /// kRenameTable (and renames reported as create/drop): the former name.
  std::string old_db;
  std::string old_table;
  /// Column changes: the column's name after the change.
  std::string column;
  /// kRenameColumn / renaming kModifyColumn: the former name.
  std::string old_column;
  /// Column changes: 0-based ordinal after the change (-1 for drops), and the
  /// name of the column before it ("" when first).
  int position = -1;
  std::string after_column;
  /// kPrimaryKeyChange: the key before.
  std::vector<std::string> old_primary_key;
  /// The table's full schema after this change (for kDropTable: empty
  /// columns, db/table set). Field ids are assigned.
  TableSchema after;

  /// One line for logs and tests: "add_column app.t c at 2 after b".
  std::string ToString() const;
};

struct SchemaTrackerOptions {
  /// Whether changes to db.table are reported (and unknown tables are an
  /// error). Default: every table.
  std::function<bool(std::string_view db, std::string_view table)> selected;
  /// Compare db/table names case-insensitively (lower_case_table_names=1 or 2).
  /// Default false: Linux servers' default, names are case-sensitive.
  bool case_insensitive_table_names = false;
};

class SchemaTracker {
 public:
  explicit SchemaTracker(SchemaTrackerOptions options = {});

  /// Adds or replaces a table's schema (read from information_schema or the
  /// schema history). Columns without field ids get fresh ones.
  void Put(TableSchema schema);
  /// Forgets a table.
  void Remove(std::string_view db, std::string_view table);
  /// The table's current schema, or nullptr. The pointer is valid until the
  /// next call that changes the tracker.
  const TableSchema* Find(std::string_view db, std::string_view table) const;
  /// Every tracked table, ordered by (db, table).
  std::vector<const TableSchema*> Tables() const;
  bool IsSelected(std::string_view db, std::string_view table) const;
  /// Changes whenever a call may have changed a schema (Put, Remove, Apply):
  /// a cache of the schemas is current while this stays the same.
  uint64_t generation() const { return generation_; }

  /// Parses `sql` (a QUERY event's statement) and applies it with
  /// `default_db` (the event's database) for unqualified names. Returns the
  /// changes to selected tables, in order (empty for statements that change
  /// no selected table's columns, e.g. BEGIN or CREATE INDEX).
  ///
  /// Errors (the tracker is unchanged when one is returned):
  ///   kInvalidArgument / kNotSupported from the parser when the statement
  ///     names a selected table, or cannot be attributed to a table (the
  ///     message has the statement and line:column);
  ///   kNotFound: a selected table whose schema is unknown (read it from
  ///     information_schema), or a column the statement names does not exist;
  ///   kAlreadyExists: CREATE TABLE (without IF NOT EXISTS / OR REPLACE) or
  ///     ADD COLUMN of something that exists.
  /// A parse error for a statement that only names unselected tables is
  /// still returned: the parser cannot know which tables a statement it
  /// cannot read names.
  Result<std::vector<SchemaChange>> Apply(std::string_view sql, std::string_view default_db);

  /// Applies an already parsed statement (same contract as `Apply`).
  Result<std::vector<SchemaChange>> ApplyParsed(const DdlStatement& statement,
                                                std::string_view default_db);

 private:
  using Key = std::pair<std::string, std::string>;
  Key KeyOf(std::string_view db, std::string_view table) const;
  TableRef Resolve(const TableRef& ref, std::string_view default_db) const;

  Status ApplyCreate(const DdlStatement& st, std::string_view default_db,
                     std::vector<SchemaChange>& out);
  Status ApplyCreateLike(const DdlStatement& st, std::string_view default_db,
                         std::vector<SchemaChange>& out);
  /// The end of both CREATE forms: gives the new table `t` its field ids,
  /// reports it to `out` if `selected`, and tracks it (replacing any table of
  /// the same name). Always Ok.
  Status AddCreatedTable(TableSchema t, bool selected, std::vector<SchemaChange>& out);
  Status ApplyDrop(const DdlStatement& st, std::string_view default_db,
                   std::vector<SchemaChange>& out);
  Status ApplyRename(const TableRef& from, const TableRef& to, std::vector<SchemaChange>& out);
  Status ApplyAlter(const DdlStatement& st, std::string_view default_db,
                    std::vector<SchemaChange>& out);

  SchemaTrackerOptions options_;
  std::map<Key, TableSchema> tables_;
  uint64_t generation_ = 0;
};

}  // namespace floe::cdc::mysql
