#pragma once
/// The MySQL/MariaDB table schema model: what the DDL parser produces, what the
/// schema tracker keeps per table, what `information_schema` reads, and what the
/// binlog decoder uses to name the columns of a row event.
///
/// Names: MySQL compares column names case-insensitively, always; the lookups
/// here do the same (ASCII case folding). Database and table names are kept as
/// written (their case sensitivity depends on the server's
/// `lower_case_table_names`; see `SchemaTrackerOptions`).
///
/// Iceberg field ids: every column carries the Iceberg field id it was given
/// when it first appeared (`ColumnDef::field_id`, 0 = not assigned yet), and the
/// table remembers the highest id ever handed out (`TableSchema::last_field_id`).
/// `AssignFieldIds()` gives new columns fresh ids; ids are never reused, so a
/// column keeps its id across ADD/DROP/RENAME/MODIFY of any column, and a
/// column dropped and re-added under the same name gets a new id (as Iceberg
/// requires). The schema history persists the ids with the schema.
/// See docs/mysql-type-mapping.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace floe::cdc::mysql {

/// DECIMAL(P,S) limits: P 1..65 in MySQL and MariaDB; S 0..30 in MySQL and
/// 0..38 in MariaDB (the larger is accepted; S <= P always).
inline constexpr int kMaxDecimalPrecision = 65;
inline constexpr int kMaxDecimalScale = 38;

/// A column type as the server knows it (the names of the MySQL manual's "Data
/// Types" chapter, after the server's own normalizations: INTEGER -> INT,
/// NUMERIC/DEC/FIXED -> DECIMAL, REAL/DOUBLE PRECISION -> DOUBLE, FLOAT(p>24)
/// -> DOUBLE, BOOL/BOOLEAN -> TINYINT(1), SERIAL -> BIGINT UNSIGNED NOT NULL
/// AUTO_INCREMENT UNIQUE, NATIONAL CHAR/NCHAR -> CHAR utf8mb3, LONG VARCHAR ->
/// MEDIUMTEXT, TEXT(M)/BLOB(M) -> the smallest TEXT/BLOB type that holds M).
enum class MysqlType : uint8_t {
  kTinyInt,    ///< 1 byte
  kSmallInt,   ///< 2 bytes
  kMediumInt,  ///< 3 bytes
  kInt,        ///< 4 bytes
  kBigInt,     ///< 8 bytes
  kDecimal,    ///< DECIMAL(P<=65, S<=30); defaults (10, 0)
  kFloat,      ///< 4-byte IEEE float
  kDouble,     ///< 8-byte IEEE double
  kBit,        ///< BIT(1..64); default 1
  kBool,       ///< BOOL as written; the parser yields TINYINT(1) like the server
  kYear,       ///< YEAR (4 digits)
  kDate,
  kDateTime,    ///< DATETIME(fsp 0..6), no time zone
  kTimestamp,   ///< TIMESTAMP(fsp 0..6), seconds since epoch, shown in session zone
  kTime,        ///< TIME(fsp 0..6), -838:59:59 .. 838:59:59
  kChar,        ///< CHAR(0..255) characters; default 1
  kVarChar,     ///< VARCHAR(0..65535) characters
  kTinyText,    ///< up to 255 bytes
  kText,        ///< up to 65,535 bytes
  kMediumText,  ///< up to 16,777,215 bytes
  kLongText,    ///< up to 4 GiB
  kBinary,      ///< BINARY(0..255) bytes; default 1
  kVarBinary,   ///< VARBINARY(0..65535) bytes
  kTinyBlob,
  kBlob,
  kMediumBlob,
  kLongBlob,
  kEnum,  ///< ENUM('a', ...): up to 65,535 values
  kSet,   ///< SET('a', ...): up to 64 members
  kJson,  ///< MySQL binary JSON; in MariaDB an alias of LONGTEXT with a CHECK
  kGeometry,
  kPoint,
  kLineString,
  kPolygon,
  kMultiPoint,
  kMultiLineString,
  kMultiPolygon,
  kGeometryCollection,
  kUuid,    ///< MariaDB 10.7+ UUID
  kInet4,   ///< MariaDB 10.10+ INET4
  kInet6,   ///< MariaDB 10.5+ INET6
  kVector,  ///< MySQL 9 / MariaDB 11.7 VECTOR(n) of float32
};

/// The upper-case SQL name, e.g. "MEDIUMINT", "GEOMETRYCOLLECTION".
std::string_view MysqlTypeName(MysqlType type);
/// Parses a canonical name as `MysqlTypeName` writes it (case-insensitive);
/// nullopt if unknown.
std::optional<MysqlType> MysqlTypeFromName(std::string_view name);

bool IsIntegerType(MysqlType type);   ///< TINYINT..BIGINT, BOOL
bool IsTextType(MysqlType type);      ///< CHAR, VARCHAR, *TEXT (the types with a charset)
bool IsBinaryType(MysqlType type);    ///< BINARY, VARBINARY, *BLOB
bool IsSpatialType(MysqlType type);   ///< GEOMETRY and its subtypes
bool IsTemporalType(MysqlType type);  ///< YEAR, DATE, DATETIME, TIMESTAMP, TIME

/// One column of a table.
struct ColumnDef {
  std::string name;
  MysqlType type = MysqlType::kInt;
  bool is_unsigned = false;
  bool zerofill = false;
  /// CHAR/VARCHAR/BINARY/VARBINARY: the declared length (characters for text,
  /// bytes for binary); BIT: bits; integers: display width if written
  /// (TINYINT(1)); TEXT(M)/BLOB(M): M as written; VECTOR: dimensions.
  std::optional<int64_t> length;
  /// DECIMAL: P and S (always set for DECIMAL); FLOAT/DOUBLE: (M, D) if written.
  std::optional<int> precision;
  std::optional<int> scale;
  /// DATETIME/TIMESTAMP/TIME: fractional seconds precision 0..6 (0 if unwritten).
  int fsp = 0;
  /// As declared on the column, lower-case ("utf8mb4", "utf8mb4_bin"); empty
  /// when inherited from the table (see `TableSchema::EffectiveCharset`).
  std::string charset;
  std::string collation;
  /// ENUM/SET members in order, unquoted.
  std::vector<std::string> enum_values;
  bool nullable = true;
  /// The DEFAULT clause as text: a literal's value without quotes ("abc",
  /// "0", "NULL") or an expression's text ("CURRENT_TIMESTAMP(3)",
  /// "(uuid())"); nullopt when there is no DEFAULT clause.
  std::optional<std::string> default_value;
  /// True when `default_value` is an expression or function, not a literal.
  bool default_is_expression = false;
  /// ON UPDATE CURRENT_TIMESTAMP[(n)] text, if any.
  std::optional<std::string> on_update;
  bool auto_increment = false;
  std::string comment;
  /// GENERATED ALWAYS AS (expr): the expression text; `generated_stored` for
  /// STORED/PERSISTENT (VIRTUAL columns are not in row events of MySQL
  /// unless binlog_row_value_options; MariaDB logs them with FULL image).
  std::optional<std::string> generated_expr;
  bool generated_stored = false;
  /// MariaDB INVISIBLE / MySQL 8.0.23 INVISIBLE.
  bool invisible = false;
  /// The Iceberg field id (0 = not assigned yet). See the file comment.
  int32_t field_id = 0;

  /// "VARCHAR(20) CHARACTER SET utf8mb4 NOT NULL DEFAULT 'x'"-like text for
  /// messages and test expectations: type, length/precision, UNSIGNED, charset,
  /// NOT NULL, DEFAULT, AUTO_INCREMENT.
  std::string TypeString() const;
  /// Same type, length, precision, scale, fsp, sign, values, nullability,
  /// default, charset/collation, auto_increment, comment, generation; ignores
  /// `name` and `field_id`.
  bool SameDefinition(const ColumnDef& other) const;
  bool operator==(const ColumnDef&) const = default;
};

/// ASCII case-insensitive equality, the rule MySQL applies to column names.
bool NamesEqual(std::string_view a, std::string_view b);
/// ASCII lower-case copy.
std::string LowerAscii(std::string_view s);

/// A table: its columns in ordinal order and its primary key.
struct TableSchema {
  std::string db;
  std::string table;
  std::vector<ColumnDef> columns;
  /// Primary-key column names in key order (empty: no primary key).
  std::vector<std::string> primary_key;
  /// Table default character set and collation (lower-case; may be empty if
  /// unknown, e.g. inherited from the database).
  std::string charset;
  std::string collation;
  std::string comment;
  std::string engine;
  /// The highest Iceberg field id ever given to a column of this table.
  int32_t last_field_id = 0;

  /// The column's index in `columns`, or -1. Case-insensitive.
  int FindColumnIndex(std::string_view name) const;
  const ColumnDef* FindColumn(std::string_view name) const;
  ColumnDef* FindColumn(std::string_view name);
  /// Whether `name` is a primary-key column (case-insensitive).
  bool IsPrimaryKeyColumn(std::string_view name) const;
  /// The column's charset, else the table's.
  std::string_view EffectiveCharset(const ColumnDef& column) const;

  /// "db.table".
  std::string QualifiedName() const;
  /// A compact multi-line description for messages and test diffs:
  /// "db.t (id INT NOT NULL, name VARCHAR(20)) PRIMARY KEY (id)".
  std::string ToString() const;

  bool operator==(const TableSchema&) const = default;
};

/// The most bytes one character of `charset` takes (utf8mb4: 4, utf8mb3: 3,
/// latin1: 1, ...); 4 for an empty (unknown) charset.
int MaxBytesPerChar(std::string_view charset);

/// TEXT(M) / BLOB(M): replaces the type by the smallest TEXT/BLOB type whose
/// byte capacity holds M characters (bytes for BLOB) of the column's charset,
/// else `table_charset`, else utf8mb4 (MySQL 8's default), as the server
/// does, and clears `length`. Other columns are left alone.
void ResolveTextLength(ColumnDef& column, std::string_view table_charset);

/// Gives every column whose `field_id` is 0 the next id after
/// `schema.last_field_id`, in column order, and advances `last_field_id`.
/// Columns that already have an id keep it.
void AssignFieldIds(TableSchema& schema);

}  // namespace floe::cdc::mysql
