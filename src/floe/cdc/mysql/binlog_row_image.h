#pragma once
/// Row images of MySQL and MariaDB rows events (binlog_event.h), decoded into
/// `types::Value`s, and the value formats they hold: binary DECIMAL, MySQL's
/// binary JSON, and text in the column's character set.
///
/// Row images decode into `types::Value`s with the Iceberg mapping of
/// type_mapping.h (docs/mysql-type-mapping.md):
///   TINYINT/SMALLINT/MEDIUMINT (any sign), INT -> kInt32; INT UNSIGNED, BIGINT -> kInt64;
///   BIGINT UNSIGNED -> kDecimal (scale 0); DECIMAL(P<=38) -> kDecimal (unscaled);
///   DECIMAL(P>38) -> kBytes (decimal text); FLOAT -> kFloat; DOUBLE -> kDouble;
///   BIT(1) -> kBool; BIT(n>1) -> kBytes (big-endian, (n+7)/8 bytes); YEAR -> kInt32;
///   DATE -> kInt32 days; DATETIME -> kInt64 micros (wall clock as UTC);
///   TIMESTAMP -> kInt64 micros UTC; TIME -> kInt64 signed micros;
///   CHAR/VARCHAR/TEXT/ENUM/SET/JSON -> kBytes UTF-8 (JSON as text);
///   BINARY/VARBINARY/BLOB -> kBytes; GEOMETRY -> kBytes WKB (the SRID prefix removed).
/// Zero dates ('0000-00-00', and dates with a zero month or day) decode as null.
///
/// Threading: a RowImageDecoder is used by one thread.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "floe/cdc/mysql/binlog_event.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/value.h"

namespace floe::cdc::mysql {

/// Decodes the row images of one rows event into Values. Reuse one decoder
/// (it keeps its scratch buffers); values are allocated in the arena passed
/// to `Next`.
class RowImageDecoder {
 public:
  /// Prepares to decode `rows` of `table`. `where` names the event for error
  /// messages ("mariadb-bin.000001:1234"). kNotSupported for a partial row
  /// image (binlog_row_image=MINIMAL or NOBLOB); kCorruption for a column
  /// count that does not match the table map.
  Status Reset(const TableMapEvent& table, const RowsEvent& rows, std::string_view where);

  /// Decodes the next row: for a write, `*after`; a delete, `*before`; an
  /// update, both. Returns false when there are no more rows. Values are
  /// allocated in `arena`. kCorruption on bytes that break the format.
  Result<bool> Next(Arena* arena, types::Row* before, types::Row* after);

  /// Rows decoded so far.
  uint32_t row_index() const { return row_index_; }

 private:
  Status DecodeImage(std::span<const uint8_t> present, Arena* arena, types::Row* out);
  Status DecodeValue(const ColumnInfo& column, Arena* arena, types::Value* out);
  // One decoder per column-type family; each reads one value at offset_.
  Status DecodeInteger(const ColumnInfo& column, types::Value* out);
  Status DecodeFloating(const ColumnInfo& column, types::Value* out);
  Status DecodeNewDecimal(const ColumnInfo& column, Arena* arena, types::Value* out);
  Status DecodeBit(const ColumnInfo& column, Arena* arena, types::Value* out);
  Status DecodeDate(const ColumnInfo& column, types::Value* out);
  Status DecodeTimestamp(const ColumnInfo& column, types::Value* out);
  Status DecodeDateTime(const ColumnInfo& column, types::Value* out);
  Status DecodeTime(const ColumnInfo& column, types::Value* out);
  Status DecodeString(const ColumnInfo& column, Arena* arena, types::Value* out);
  Status DecodeBlob(const ColumnInfo& column, Arena* arena, types::Value* out);
  Status DecodeEnumOrSet(const ColumnInfo& column, Arena* arena, types::Value* out);
  /// `raw` in the column's character set, as UTF-8 bytes in `arena`.
  Status TextValue(const ColumnInfo& column, std::string_view charset, std::string_view raw,
                   Arena* arena, types::Value* out);
  /// kCorruption unless `n` bytes remain for a `what` value of `column`.
  Status Need(size_t n, const char* what, const ColumnInfo& column) const {
    if (rows_.rows.size() - offset_ >= n) return Ok();
    return Truncated(what, column);
  }
  std::unexpected<Error> Truncated(const char* what, const ColumnInfo& column) const;
  std::unexpected<Error> Corrupt(std::string_view what) const;

  const TableMapEvent* table_ = nullptr;
  RowsEvent rows_;
  std::string where_;
  size_t offset_ = 0;
  uint32_t row_index_ = 0;
  std::string scratch_;
};

/// Converts MySQL's binary JSON (the JSON column of MySQL 5.7+) to JSON text,
/// appended to `*out`. kCorruption naming the problem.
Status MySqlJsonToText(std::span<const uint8_t> bytes, std::string* out);

/// The decimal digits of a DECIMAL's binary form: the unscaled value when
/// precision <= 38 (`*text` untouched), else the decimal text in `*text`.
/// Returns the number of bytes used; kCorruption if `bytes` is too short.
Result<size_t> DecodeBinaryDecimal(std::span<const uint8_t> bytes, int precision, int scale,
                                   types::int128_t* unscaled, std::string* text);

/// The name of a character set for a collation id ("utf8mb4", "latin1",
/// "binary"), or "" if unknown. Covers the ids of MySQL 8 and MariaDB 10.x
/// for the character sets floe converts (see ConvertToUtf8).
std::string_view CharsetOfCollation(uint32_t collation_id);

/// Registers the server's collation ids (information_schema.COLLATIONS) so
/// `CharsetOfCollation` knows ids the built-in table does not. Thread-safe.
void RegisterCollation(uint32_t collation_id, std::string_view charset);

/// Appends `bytes` in `charset` as UTF-8. Supported: utf8mb4, utf8mb3/utf8,
/// ascii, latin1 (MySQL's cp1252 variant), binary (copied), ucs2, utf16,
/// utf16le, utf32. kNotSupported for other character sets.
Status ConvertToUtf8(std::string_view charset, std::string_view bytes, std::string* out);

}  // namespace floe::cdc::mysql
