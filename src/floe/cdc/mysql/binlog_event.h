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
/// The rows of a rows event decode with RowImageDecoder (binlog_row_image.h);
/// the event and column type codes are in binlog_codes.h.
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

#include "floe/cdc/mysql/binlog_codes.h"
#include "floe/cdc/position.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

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

}  // namespace floe::cdc::mysql
