#pragma once
/// Pieces of the binlog decoder shared by its source files (binlog_event.cc:
/// header, checksum and the small events; binlog_table_map.cc: TABLE_MAP and
/// its optional metadata; binlog_rows.cc: row images). Not a public API: each
/// event body decoder is declared here so it can be tested on its own.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "floe/cdc/mysql/binlog_event.h"
#include "floe/common/bytes.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

/// Reads a length-encoded integer (MySQL protocol) at `*offset`. False if the
/// bytes run out.
bool ReadLengthEncoded(std::span<const uint8_t> bytes, size_t* offset, uint64_t* value);

}  // namespace floe::cdc::mysql

namespace floe::cdc::mysql::binlog_internal {

/// A bounds-checked little-endian reader over one event's bytes.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, size_t offset = 0) : bytes_(bytes), offset_(offset) {}
  size_t offset() const { return offset_; }
  size_t remaining() const { return offset_ <= bytes_.size() ? bytes_.size() - offset_ : 0; }
  bool Has(size_t n) const { return n <= remaining(); }
  const uint8_t* data() const { return bytes_.data() + offset_; }
  bool Skip(size_t n) {
    if (!Has(n)) return false;
    offset_ += n;
    return true;
  }
  bool U8(uint8_t* v) {
    if (!Has(1)) return false;
    *v = bytes_[offset_++];
    return true;
  }
  template <typename T>
  bool Le(T* v) {
    if (!Has(sizeof(T))) return false;
    *v = LoadLittleEndian<T>(bytes_.data() + offset_);
    offset_ += sizeof(T);
    return true;
  }
  bool LeN(size_t n, uint64_t* v) {
    if (!Has(n) || n > 8) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x |= uint64_t{bytes_[offset_ + i]} << (8 * i);
    offset_ += n;
    *v = x;
    return true;
  }
  bool Bytes(size_t n, std::span<const uint8_t>* out) {
    if (!Has(n)) return false;
    *out = bytes_.subspan(offset_, n);
    offset_ += n;
    return true;
  }
  bool Str(size_t n, std::string_view* out) {
    if (!Has(n)) return false;
    *out = {reinterpret_cast<const char*>(bytes_.data() + offset_), n};
    offset_ += n;
    return true;
  }
  bool LenEnc(uint64_t* v) { return ReadLengthEncoded(bytes_, &offset_, v); }

 private:
  std::span<const uint8_t> bytes_;
  size_t offset_;
};

inline uint64_t BigEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

/// Whether a TABLE_MAP column type holds characters or bytes (CHAR, VARCHAR,
/// BINARY, VARBINARY, TEXT, BLOB; not ENUM/SET, which hide behind kString).
bool IsCharacterType(uint8_t type, uint8_t real_type);

inline bool IsEnumOrSet(const ColumnInfo& c) {
  return c.real_type == column_type::kEnum || c.real_type == column_type::kSet;
}

/// Where an event sits, for error messages: "binlog FILE:POS: ...".
struct EventContext {
  std::string_view file;  ///< the current binlog file ("" when not known yet)
  uint64_t pos = 0;       ///< the event's first byte
  uint8_t type = 0;       ///< the event type code

  /// kCorruption "binlog FILE:POS: what" ("?" for an unknown file).
  std::unexpected<Error> Fail(std::string_view what) const;
  /// kCorruption "binlog FILE:POS: truncated WHAT event (type N)".
  std::unexpected<Error> Truncated(std::string_view what) const;
};

// Event body decoders. `r` starts after the 19-byte header and ends before the
// checksum; each reads its event's post-header and payload.

Result<FormatDescriptionEvent> DecodeFormatDescription(Reader& r, const EventContext& ctx,
                                                       ChecksumAlg checksum);
Result<RotateEvent> DecodeRotate(Reader& r, const EventContext& ctx);
/// `post_header_len`: QUERY's post-header length from the format description.
Result<QueryEvent> DecodeQuery(Reader& r, const EventContext& ctx, uint8_t post_header_len);
Result<XidEvent> DecodeXid(Reader& r, const EventContext& ctx);
/// GTID or ANONYMOUS_GTID (by `ctx.type`).
Result<MySqlGtidEvent> DecodeMySqlGtid(Reader& r, const EventContext& ctx);
Result<GtidListEvent> DecodePreviousGtids(Reader& r, const EventContext& ctx);
Result<MariaDbGtidEvent> DecodeMariaDbGtid(Reader& r, const EventContext& ctx, uint32_t server_id);
Result<GtidListEvent> DecodeMariaDbGtidList(Reader& r, const EventContext& ctx);
HeartbeatEvent DecodeHeartbeat(Reader& r);
/// ROWS_QUERY (a 1-byte length first) or MariaDB ANNOTATE_ROWS (by `ctx.type`).
Result<RowsQueryEvent> DecodeRowsQuery(Reader& r, const EventContext& ctx);
/// WRITE/UPDATE/DELETE_ROWS v1 or v2 (by `ctx.type`).
Result<RowsEvent> DecodeRows(Reader& r, const EventContext& ctx, uint8_t post_header_len);
/// TABLE_MAP: table id, names, column types and metadata, NULL bitmap and
/// optional metadata (read as MariaDB's when `mariadb`).
Result<std::unique_ptr<TableMapEvent>> DecodeTableMap(Reader& r, const EventContext& ctx,
                                                      uint8_t post_header_len, bool mariadb);
/// The per-column metadata block of a TABLE_MAP, for the column types already
/// in `t->columns`; also names the columns col_1, col_2, ...
Status DecodeColumnMetadata(std::span<const uint8_t> meta, const EventContext& ctx,
                            TableMapEvent* t);
/// The optional metadata fields of a TABLE_MAP (MySQL 8.0.1+, MariaDB 10.5+).
Status ParseOptionalMetadata(std::span<const uint8_t> bytes, bool mariadb, TableMapEvent* t);

}  // namespace floe::cdc::mysql::binlog_internal
