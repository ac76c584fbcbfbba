#pragma once
/// MySQL/MariaDB column types -> Iceberg types. The table of the mapping, and
/// the reasons for each choice, are in docs/mysql-type-mapping.md; in short:
///
///   TINYINT/SMALLINT/MEDIUMINT/INT (signed), TINYINT(1), BOOL, YEAR -> int
///   TINYINT/SMALLINT/MEDIUMINT UNSIGNED                            -> int
///   INT UNSIGNED, BIGINT                                           -> long
///   BIGINT UNSIGNED                                                -> decimal(20, 0)
///   DECIMAL(P,S), P <= 38 -> decimal(P,S);  P > 38                 -> string
///   FLOAT -> float; DOUBLE -> double
///   BIT(1) -> boolean; BIT(n > 1)                                  -> binary (big-endian)
///   DATE -> date; DATETIME(n) -> timestamp; TIMESTAMP(n)           -> timestamptz
///   TIME(n)                                                        -> long (microseconds)
///   CHAR/VARCHAR/*TEXT, ENUM, SET, JSON, UUID, INET4/6             -> string
///   BINARY/VARBINARY/*BLOB, GEOMETRY and subtypes (WKB), VECTOR    -> binary
///
/// Nullability: a column is `required` in Iceberg iff it is NOT NULL in MySQL.
/// Identifier fields: the primary-key columns.

#include <cstdint>

#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/result.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"

namespace floe::cdc::mysql {

/// The Iceberg type of a column. Errors: kInvalidArgument for a DECIMAL with
/// precision or scale out of range (P 1..65, S 0..38 as MariaDB allows, S <= P).
Result<types::TypePtr> IcebergTypeOf(const ColumnDef& column);

/// The Iceberg schema of a table: one top-level field per column, in column
/// order, with the column's `field_id`, `required = !nullable`, `doc` =
/// comment; identifier fields are the primary-key columns' ids (in key order).
/// Errors: kInvalidArgument if a column has no field id (call
/// `AssignFieldIds` first), ids repeat, or a type does not map (see
/// `IcebergTypeOf`); the message names db.table.column.
Result<types::Schema> IcebergSchemaOf(const TableSchema& table, int32_t schema_id = 0);

}  // namespace floe::cdc::mysql
