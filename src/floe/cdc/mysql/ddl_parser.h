#pragma once
/// A recursive-descent parser for the DDL the MySQL and MariaDB servers write
/// into binlog QUERY events. It extracts what changes table schemas (columns,
/// primary keys, table names) and recognizes the rest. The grammar it accepts,
/// and what it ignores, are in docs/mysql-ddl.md.
///
/// Thread-safe (no shared state). Input size is bounded (16 MiB) and nesting
/// depth is bounded (`kMaxDdlNesting`): neither can crash it.

#include <string_view>

#include "floe/cdc/mysql/ddl_ast.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

/// The deepest parenthesis nesting accepted inside one statement.
inline constexpr int kMaxDdlNesting = 200;

/// Parses one statement (a trailing `;` is allowed). Statements that cannot
/// change a table's columns come back as `DdlKind::kNotTableDdl`.
///
/// Errors, each message holding the position "line L:C" and the statement
/// text (shortened to 300 bytes):
///   kInvalidArgument  syntax the parser cannot follow (a truncated or broken
///                     statement, nesting deeper than kMaxDdlNesting);
///   kNotSupported     valid SQL that floe cannot derive a schema from, e.g.
///                     CREATE TABLE ... SELECT without column definitions
///                     (read the table from information_schema instead), or an
///                     unknown column type.
Result<DdlStatement> ParseDdl(std::string_view sql);

/// One column from its name and its type as a server prints it
/// (information_schema's COLUMN_TYPE, canal-json's mysqlType), by the column
/// grammar of CREATE TABLE: `name` and what `type` says (length, precision,
/// unsigned, charset, ...), nullable unless `type` says NOT NULL. Errors:
/// ParseDdl's, or kInvalidArgument when `type` is not one column type.
Result<ColumnDef> ParseColumnDefinition(std::string_view name, std::string_view type);

}  // namespace floe::cdc::mysql
