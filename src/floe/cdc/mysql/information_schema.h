#pragma once
/// Reads a table's schema from the server's information_schema (COLUMNS for
/// the columns, STATISTICS for the primary key, TABLES for the table
/// defaults), for tables the schema tracker sees for the first time. The
/// result is normalized like the DDL parser's (the COLUMN_TYPE text is parsed
/// by the same type grammar), so the two can be compared.
///
/// Works with MySQL 5.7+/8.x and MariaDB 10.2+ (whose COLUMN_DEFAULT quotes
/// string literals and spells a NULL default 'NULL').

#include <optional>
#include <string_view>

#include <mysql.h>

#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

/// Reads db.table through `conn` (an open connection; not closed, not shared
/// with another thread during the call). Returns nullopt when the table does
/// not exist. Field ids are not assigned (all 0).
/// Errors: kIo with the server's error text when a query fails;
/// kNotSupported when a COLUMN_TYPE cannot be parsed (names the column).
Result<std::optional<TableSchema>> ReadTableSchema(MYSQL* conn, std::string_view db,
                                                   std::string_view table);

/// Normalizes an information_schema.COLUMN_DEFAULT value (nullptr = SQL NULL)
/// into `ColumnDef::default_value` / `default_is_expression`. `mariadb`
/// selects MariaDB's quoting; `extra` is the EXTRA column (MySQL marks
/// expression defaults DEFAULT_GENERATED). Exposed for tests.
void NormalizeInformationSchemaDefault(const char* column_default, bool mariadb,
                                       std::string_view extra, ColumnDef* column);

}  // namespace floe::cdc::mysql
