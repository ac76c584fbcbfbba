#pragma once
/// Which source tables a pipeline reads and where each one goes, in Flink
/// CDC's syntax (docs/pipeline.md, "Table patterns" and "Routes").
///
/// A pattern list is comma separated: `shop.\.*, crm.customers`. Each pattern
/// is `DB_REGEX.TABLE_REGEX`: the one unescaped `.` separates the database
/// from the table, and `\.` stands for the regex `.` (any character), since a
/// bare `.` is taken as the separator. Each side is an ECMAScript regular
/// expression (std::regex) matched against the whole name, case-sensitively,
/// so `shop.orders` matches only the table `orders` of `shop`, and
/// `shop.orders_\.*` matches `orders_2024` but not `old_orders_1`.
/// Commas inside `{}`, `[]` or `()` belong to the regex (`t_[0-9]{1,3}`).
///
/// Compiled selectors are immutable: matching is thread-safe.

#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"

namespace floe::pipeline {

/// Bounds on one side of a pattern (std::regex compiles recursively).
inline constexpr size_t kMaxRegexLength = 1024;
inline constexpr int kMaxRegexNesting = 32;

/// One `db.table` pattern, compiled.
struct TablePattern {
  std::string text;      ///< as written
  std::string db_regex;  ///< after unescaping `\.`
  std::string table_regex;
  std::shared_ptr<const std::regex> db;
  std::shared_ptr<const std::regex> table;

  bool Matches(std::string_view db_name, std::string_view table_name) const;
};

/// A comma-separated list of patterns; matches a table that any pattern matches.
struct TableSelector {
  std::string text;  ///< as written
  std::vector<TablePattern> patterns;

  bool Matches(std::string_view db, std::string_view table) const;
  bool empty() const { return patterns.empty(); }
};

/// Parses a pattern list. Errors (kInvalidArgument): an empty list or
/// pattern, a pattern without a database part or with more than one
/// unescaped `.`, a regex std::regex refuses (with its message and the
/// pattern), a regex longer than kMaxRegexLength or with groups nested
/// deeper than kMaxRegexNesting.
Result<TableSelector> ParseTableSelector(std::string_view text);

/// `tables` and `tables.exclude` of a source.
struct SourceTables {
  TableSelector include;
  TableSelector exclude;  ///< may be empty
};

/// True when `include` matches the table and `exclude` does not.
bool MatchesSourceTable(const SourceTables& tables, std::string_view db, std::string_view table);

/// One `route:` entry.
struct Route {
  TableSelector source_table;  ///< `source-table`
  /// `sink-table`: "ns.table" (several namespace levels allowed), possibly
  /// holding `replace_symbol`.
  std::string sink_table;
  /// `replace-symbol`: replaced by the source table's name in `sink_table`;
  /// empty means no replacement.
  std::string replace_symbol;
  std::string description;
  /// `source-table-column` (floe's own key): the name of a column added to
  /// the sink table that holds each row's source table ("db.table"), and is
  /// part of its key, so that the shards' keys stay apart. Empty: none.
  std::string source_table_column;
};

/// The Iceberg table rows of `db`.`table` go to: the sink table of the
/// first route whose source-table matches, with its replace-symbol replaced
/// by `table`; without a matching route, `db.table`.
/// Errors (kInvalidArgument): the resulting name is not a valid Iceberg
/// identifier (naming the route and the source table).
Result<iceberg::TableIdentifier> RouteFor(const std::vector<Route>& routes, std::string_view db,
                                          std::string_view table);

/// The `source-table-column` of the first route that matches `db`.`table`
/// ("" when none matches or it has none).
std::string SourceTableColumnFor(const std::vector<Route>& routes, std::string_view db,
                                 std::string_view table);

/// Whether `db`.`table` has its sink table to itself as far as the routes
/// tell: no route matches it, or the first that does names the table through
/// its replace-symbol. A route without one gathers every table it matches
/// (sharded tables) into one sink table.
bool RouteIsOneToOne(const std::vector<Route>& routes, std::string_view db, std::string_view table);

}  // namespace floe::pipeline
