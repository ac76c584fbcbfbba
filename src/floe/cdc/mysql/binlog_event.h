#pragma once
/// A pure decoder of MySQL and MariaDB binlog events (binlog format v4), from
/// bytes, with no server: the replication client feeds it the events it
/// receives, the tests feed it byte sequences built from the protocol
/// documentation (MySQL libbinlogevents, MariaDB KB "Binlog Event Header" and
/// the event pages). docs/mysql-binlog.md describes the formats it reads.
///
/// Every length is checked against the bytes that remain: an event that does
/// not follow its format is kCorruption naming the binlog file:pos of the
/// event, never a crash or an allocation larger than the event.
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
/// Threading: a decoder is used by one thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "floe/cdc/position.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/types/value.h"

namespace floe::cdc::mysql {

/// Event type codes (MySQL log_event.h / MariaDB log_event.h).
namespace event_type {
inline constexpr uint8_t kQuery = 2;
inline constexpr uint8_t kStop = 3;
inline constexpr uint8_t kRotate = 4;
inline constexpr uint8_t kIntvar = 5;
inline constexpr uint8_t kFormatDescription = 15;
inline constexpr uint8_t kXid = 16;
inline constexpr uint8_t kTableMap = 19;
inline constexpr uint8_t kWriteRowsV1 = 23;
inline constexpr uint8_t kUpdateRowsV1 = 24;
inline constexpr uint8_t kDeleteRowsV1 = 25;
inline constexpr uint8_t kIncident = 26;
inline constexpr uint8_t kHeartbeat = 27;
inline constexpr uint8_t kRowsQuery = 29;
inline constexpr uint8_t kWriteRowsV2 = 30;
inline constexpr uint8_t kUpdateRowsV2 = 31;
inline constexpr uint8_t kDeleteRowsV2 = 32;
inline constexpr uint8_t kGtid = 33;
inline constexpr uint8_t kAnonymousGtid = 34;
inline constexpr uint8_t kPreviousGtids = 35;
inline constexpr uint8_t kPartialUpdateRows = 39;
inline constexpr uint8_t kHeartbeatV2 = 41;
inline constexpr uint8_t kMariaAnnotateRows = 160;
inline constexpr uint8_t kMariaBinlogCheckpoint = 161;
inline constexpr uint8_t kMariaGtid = 162;
inline constexpr uint8_t kMariaGtidList = 163;
inline constexpr uint8_t kMariaStartEncryption = 164;
inline constexpr uint8_t kMariaQueryCompressed = 165;
inline constexpr uint8_t kMariaWriteRowsCompressedV1 = 166;
inline constexpr uint8_t kMariaDeleteRowsCompressed = 171;
}  // namespace event_type

/// MySQL column type codes as they appear in TABLE_MAP (enum_field_types).
namespace column_type {
inline constexpr uint8_t kDecimal = 0, kTiny = 1, kShort = 2, kLong = 3, kFloat = 4, kDouble = 5,
                         kNull = 6, kTimestamp = 7, kLongLong = 8, kInt24 = 9, kDate = 10,
                         kTime = 11, kDateTime = 12, kYear = 13, kNewDate = 14, kVarchar = 15,
                         kBit = 16, kTimestamp2 = 17, kDateTime2 = 18, kTime2 = 19, kJson = 245,
                         kNewDecimal = 246, kEnum = 247, kSet = 248, kTinyBlob = 249,
                         kMediumBlob = 250, kLongBlob = 251, kBlob = 252, kVarString = 253,
                         kString = 254, kGeometry = 255;
}  // namespace column_type

inline constexpr size_t kEventHeaderSize = 19;

/// The common 19-byte header of every v4 event.
struct EventHeader {
  uint32_t timestamp = 0;  ///< seconds since epoch
  uint8_t type = 0;
  uint32_t server_id = 0;
  uint32_t event_size = 0;  ///< header + body (+ checksum)
  uint32_t log_pos = 0;     ///< position of the next event (0 for artificial events)
  uint16_t flags = 0;
};

enum class ChecksumAlg : uint8_t { kOff = 0, kCrc32 = 1, kUndefined = 255 };

struct FormatDescriptionEvent {
  uint16_t binlog_version = 4;
  std::string server_version;
  uint32_t create_timestamp = 0;
  uint8_t header_length = 19;
  /// Index i: post-header length of event type i + 1.
  std::vector<uint8_t> post_header_lengths;
  ChecksumAlg checksum = ChecksumAlg::kOff;
  bool is_mariadb = false;
};

struct RotateEvent {
  uint64_t position = 0;
  std::string next_file;
};

/// Strings point into the event bytes passed to Decode.
struct QueryEvent {
  uint32_t thread_id = 0;
  uint32_t exec_time = 0;
  uint16_t error_code = 0;
  std::string_view db;
  std::string_view query;
};

struct XidEvent {
  uint64_t xid = 0;
};

/// MySQL GTID_LOG_EVENT / ANONYMOUS_GTID_LOG_EVENT.
struct MySqlGtidEvent {
  bool anonymous = false;
  uint8_t commit_flag = 0;
  std::string uuid;  ///< canonical lower-case text
  uint64_t gno = 0;
  int64_t last_committed = 0;
  int64_t sequence_number = 0;
  uint64_t immediate_commit_timestamp_us = 0;  ///< 0 if absent
  /// "uuid:gno", or "" for an anonymous transaction.
  std::string ToString() const;
};

/// MariaDB GTID_EVENT: starts an event group.
struct MariaDbGtidEvent {
  MariaDbGtid gtid;
  uint8_t flags = 0;
  uint64_t commit_id = 0;
  /// FL_STANDALONE: no terminating XID/COMMIT (a DDL statement).
  bool standalone() const { return (flags & 0x01) != 0; }
};

/// MariaDB GTID_LIST_EVENT or MySQL PREVIOUS_GTIDS_LOG_EVENT: the GTID state
/// at the start of a binlog file.
struct GtidListEvent {
  GtidSet gtids;
};

struct HeartbeatEvent {
  std::string_view log_file;
};

/// MariaDB ANNOTATE_ROWS / MySQL ROWS_QUERY: the statement behind the next rows events.
struct RowsQueryEvent {
  std::string_view query;
};

/// One column of a TABLE_MAP, with the optional metadata applied.
struct ColumnInfo {
  uint8_t type = 0;       ///< type code in TABLE_MAP (BLOB for all BLOB/TEXT types)
  uint8_t real_type = 0;  ///< for kString: kString, kEnum or kSet; else = type
  /// Decoded metadata: VARCHAR/STRING max bytes; BLOB/GEOMETRY/JSON length bytes;
  /// FLOAT/DOUBLE size; DECIMAL precision; BIT total bits; TIME2/DATETIME2/TIMESTAMP2 fsp;
  /// ENUM/SET pack length.
  uint32_t length = 0;
  uint8_t scale = 0;  ///< DECIMAL scale
  bool nullable = true;
  bool is_unsigned = false;
  /// Collation id for character, ENUM and SET columns (0: unknown; 63 is binary).
  uint32_t collation = 0;
  std::string name;
  std::vector<std::string> enum_values;  ///< ENUM/SET members
  uint32_t geometry_type = 0;
  bool in_primary_key = false;

  bool is_text() const;  ///< a character column whose charset is not binary
  /// Whether the server gives this column a bit in TABLE_MAP's SIGNEDNESS
  /// optional metadata. Both count TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT,
  /// DECIMAL, FLOAT and DOUBLE; MariaDB (`mariadb`) also counts YEAR, MySQL
  /// does not. No other type has a bit (BIT, dates, times, strings, ...).
  bool in_signedness_bitmap(bool mariadb) const;
};

/// TABLE_MAP_EVENT: binds a table id to a table and its column types for the
/// rows events that follow.
struct TableMapEvent {
  uint64_t table_id = 0;
  std::string db;
  std::string table;
  std::vector<ColumnInfo> columns;
  /// Whether the optional metadata carried the column names (binlog_row_metadata=FULL).
  bool has_full_metadata = false;
  /// Whether it carried signedness (MINIMAL or FULL).
  bool has_signedness = false;
  /// Primary-key column indexes from the optional metadata.
  std::vector<uint32_t> primary_key;
};

enum class RowsKind : uint8_t { kWrite, kUpdate, kDelete };

/// WRITE/UPDATE/DELETE_ROWS v1 (MariaDB) or v2 (MySQL). `rows` points into the
/// event bytes; decode it with `RowImageDecoder`.
struct RowsEvent {
  RowsKind kind = RowsKind::kWrite;
  uint8_t version = 2;
  uint64_t table_id = 0;
  uint16_t flags = 0;
  uint32_t column_count = 0;
  std::span<const uint8_t> columns_before;  ///< bitmap of columns in the before image
  std::span<const uint8_t> columns_after;   ///< update only: after image
  std::span<const uint8_t> extra_data;      ///< v2 extra data (without its length)
  std::span<const uint8_t> rows;
  /// STMT_END_F: the last rows event of the statement.
  bool end_of_statement() const { return (flags & 0x01) != 0; }
};

/// An event the decoder read but floe does not use (INTVAR, STOP, ...).
struct OtherEvent {};

struct BinlogEvent {
  EventHeader header;
  /// The binlog position of the event's first byte (log_pos - event_size), or
  /// 0 for artificial events.
  uint64_t position = 0;
  std::variant<OtherEvent, FormatDescriptionEvent, RotateEvent, QueryEvent, XidEvent,
               MySqlGtidEvent, MariaDbGtidEvent, GtidListEvent, HeartbeatEvent, RowsQueryEvent,
               const TableMapEvent*, RowsEvent>
      body;
};

struct BinlogDecoderOptions {
  /// Verify CRC32 checksums when the format description announces them. Default true.
  bool verify_checksum = true;
  /// The checksum algorithm of events that arrive before the first
  /// FORMAT_DESCRIPTION (the fake ROTATE at the start of a dump): what the
  /// server's @@binlog_checksum says. kUndefined: detect by checking the CRC.
  ChecksumAlg initial_checksum = ChecksumAlg::kUndefined;
};

/// Decodes a stream of events. Keeps the state that later events need: the
/// format description (checksum algorithm, post-header lengths), the current
/// binlog file name (from ROTATE), and the table maps by table id.
class BinlogDecoder {
 public:
  explicit BinlogDecoder(BinlogDecoderOptions options = {});

  /// Decodes one event (header + body + checksum, without the network
  /// packet's leading OK byte). Views in the result point into `bytes`; the
  /// `TableMapEvent` pointer stays valid until a later TABLE_MAP reuses the
  /// table id or `Reset()`. Errors: kCorruption "binlog FILE:POS: ..." for
  /// bytes that break the format or a bad checksum; kNotSupported for
  /// compressed or encrypted events and partial row images.
  Result<BinlogEvent> Decode(std::span<const uint8_t> bytes);

  /// The table map for a rows event, or kCorruption if none was seen.
  Result<const TableMapEvent*> FindTable(uint64_t table_id) const;

  /// The file the decoder believes it is in (from ROTATE); used in messages.
  const std::string& current_file() const { return file_; }
  void set_current_file(std::string file) { file_ = std::move(file); }
  const FormatDescriptionEvent& format() const { return format_; }

  /// Mutable access to a table map, so a caller can complete columns the
  /// server did not describe (names, signedness, charsets) from the schema it
  /// tracks. nullptr if unknown.
  TableMapEvent* MutableTable(uint64_t table_id);

  /// Forgets table maps (on a new connection).
  void Reset();

 private:
  std::unexpected<Error> Fail(uint64_t pos, std::string_view what) const;
  /// The post-header length of `type` from the format description, or `fallback`.
  uint8_t PostHeaderLength(uint8_t type, uint8_t fallback) const;
  /// Works out the event's checksum algorithm (`*alg`), verifies the CRC32 and
  /// returns the event without its checksum (and an FDE's algorithm byte).
  Result<std::span<const uint8_t>> StripChecksum(std::span<const uint8_t> bytes, uint8_t type,
                                                 uint64_t pos, ChecksumAlg* alg);
  /// Decodes the body by event type into `ev->body`, keeping the decoder's state.
  Status DecodeBody(std::span<const uint8_t> body, ChecksumAlg alg, BinlogEvent* ev);

  BinlogDecoderOptions options_;
  FormatDescriptionEvent format_;
  bool have_format_ = false;
  std::string file_;
  std::unordered_map<uint64_t, std::unique_ptr<TableMapEvent>> tables_;
};

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

/// Reads a length-encoded integer (MySQL protocol) at `*offset`. False if the
/// bytes run out.
bool ReadLengthEncoded(std::span<const uint8_t> bytes, size_t* offset, uint64_t* value);

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
