// The binlog decoder: the common header, the checksum, dispatch by event type
// and the small events (format description, rotate, query, xid, GTIDs,
// heartbeat, rows query, rows). TABLE_MAP is in binlog_table_map.cc, row
// images in binlog_rows.cc.
#include "floe/cdc/mysql/binlog_event.h"

#include <fmt/format.h>
#include <zlib.h>

#include "floe/cdc/mysql/binlog_internal.h"
#include "floe/common/bytes.h"
#include "floe/common/one_of.h"

namespace floe::cdc::mysql {
namespace binlog_internal {
namespace {

std::string UuidText(const uint8_t* p) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[p[i] >> 4]);
    s.push_back(kHex[p[i] & 15]);
  }
  return s;
}

// Adds the interval [lo, hi) of `uuid` to `gtids` (rare: once per file).
Status AddInterval(const std::string& uuid, uint64_t lo, uint64_t hi, GtidSet* gtids) {
  auto part = GtidSet::Parse(fmt::format("{}:{}-{}", uuid, lo, hi - 1));
  if (!part) return Corruption("bad interval");
  std::string merged = gtids->ToString();
  if (!merged.empty()) merged += ",";
  merged += part->ToString();
  auto all = GtidSet::Parse(merged);
  if (!all) return Corruption("bad set");
  *gtids = std::move(*all);
  return Ok();
}

}  // namespace

std::unexpected<Error> EventContext::Fail(std::string_view what) const {
  return Corruption("binlog {}:{}: {}", file.empty() ? "?" : file, pos, what);
}

std::unexpected<Error> EventContext::Truncated(std::string_view what) const {
  return Fail(fmt::format("truncated {} event (type {})", what, type));
}

Result<FormatDescriptionEvent> DecodeFormatDescription(Reader& r, const EventContext& ctx,
                                                       ChecksumAlg checksum) {
  FormatDescriptionEvent f;
  std::string_view version;
  if (!r.Le(&f.binlog_version) || !r.Str(50, &version) || !r.Le(&f.create_timestamp) ||
      !r.U8(&f.header_length)) {
    return ctx.Truncated("FORMAT_DESCRIPTION");
  }
  f.server_version = std::string(version.substr(0, version.find('\0')));
  f.is_mariadb = f.server_version.find("MariaDB") != std::string::npos;
  if (f.binlog_version != 4) {
    return NotSupported("binlog {}:{}: binlog format version {} (only v4, MySQL >= 5.0)", ctx.file,
                        ctx.pos, f.binlog_version);
  }
  if (f.header_length < kEventHeaderSize) {
    return ctx.Fail("FORMAT_DESCRIPTION header length < 19");
  }
  f.post_header_lengths.assign(r.data(), r.data() + r.remaining());
  f.checksum = checksum;
  return f;
}

Result<RotateEvent> DecodeRotate(Reader& r, const EventContext& ctx) {
  RotateEvent e;
  if (!r.Le(&e.position)) return ctx.Truncated("ROTATE");
  std::string_view name;
  r.Str(r.remaining(), &name);
  e.next_file = std::string(name);
  return e;
}

Result<QueryEvent> DecodeQuery(Reader& r, const EventContext& ctx, uint8_t post_header_len) {
  QueryEvent q;
  uint8_t db_len = 0;
  uint16_t status_len = 0;
  size_t start = r.offset();
  if (!r.Le(&q.thread_id) || !r.Le(&q.exec_time) || !r.U8(&db_len) || !r.Le(&q.error_code) ||
      !r.Le(&status_len)) {
    return ctx.Truncated("QUERY");
  }
  size_t phl = post_header_len;
  if (phl < 13 || !r.Skip(start + phl - r.offset())) return ctx.Truncated("QUERY");
  if (!r.Skip(status_len) || !r.Str(db_len, &q.db) || !r.Skip(1)) return ctx.Truncated("QUERY");
  r.Str(r.remaining(), &q.query);
  return q;
}

Result<XidEvent> DecodeXid(Reader& r, const EventContext& ctx) {
  XidEvent x;
  if (!r.Le(&x.xid)) return ctx.Truncated("XID");
  return x;
}

Result<MySqlGtidEvent> DecodeMySqlGtid(Reader& r, const EventContext& ctx) {
  MySqlGtidEvent g;
  g.anonymous = ctx.type == event_type::kAnonymousGtid;
  std::span<const uint8_t> sid;
  if (!r.U8(&g.commit_flag) || !r.Bytes(16, &sid) || !r.Le(&g.gno)) {
    return ctx.Truncated("GTID");
  }
  g.uuid = UuidText(sid.data());
  uint8_t lt_type = 0;
  if (r.remaining() >= 17 && r.U8(&lt_type) && lt_type == 2) {
    r.Le(&g.last_committed);
    r.Le(&g.sequence_number);
    uint64_t ts = 0;
    if (r.LeN(7, &ts)) {
      // The top bit says the original commit timestamp follows.
      g.immediate_commit_timestamp_us = ts & ~(uint64_t{1} << 55);
    }
  }
  if (g.anonymous) g.uuid.clear();
  return g;
}

Result<GtidListEvent> DecodePreviousGtids(Reader& r, const EventContext& ctx) {
  GtidListEvent e;
  uint64_t n_sids = 0;
  if (!r.Le(&n_sids)) return ctx.Truncated("PREVIOUS_GTIDS");
  if (n_sids > r.remaining() / 24) return ctx.Fail("PREVIOUS_GTIDS count larger than the event");
  for (uint64_t i = 0; i < n_sids; ++i) {
    std::span<const uint8_t> sid;
    uint64_t n_iv = 0;
    if (!r.Bytes(16, &sid) || !r.Le(&n_iv)) return ctx.Truncated("PREVIOUS_GTIDS");
    if (n_iv > r.remaining() / 16) return ctx.Fail("PREVIOUS_GTIDS interval count too large");
    std::string uuid = UuidText(sid.data());
    for (uint64_t k = 0; k < n_iv; ++k) {
      uint64_t lo = 0, hi = 0;  // [lo, hi)
      if (!r.Le(&lo) || !r.Le(&hi)) return ctx.Truncated("PREVIOUS_GTIDS");
      if (lo == 0 || hi <= lo) return ctx.Fail("PREVIOUS_GTIDS bad interval");
      auto st = AddInterval(uuid, lo, hi, &e.gtids);
      if (!st) return ctx.Fail(fmt::format("PREVIOUS_GTIDS {}", st.error().message()));
    }
  }
  return e;
}

Result<MariaDbGtidEvent> DecodeMariaDbGtid(Reader& r, const EventContext& ctx, uint32_t server_id) {
  MariaDbGtidEvent g;
  if (!r.Le(&g.gtid.sequence) || !r.Le(&g.gtid.domain_id) || !r.U8(&g.flags)) {
    return ctx.Truncated("GTID");
  }
  g.gtid.server_id = server_id;
  if (g.flags & 0x02) r.Le(&g.commit_id);
  return g;
}

Result<GtidListEvent> DecodeMariaDbGtidList(Reader& r, const EventContext& ctx) {
  GtidListEvent e;
  uint32_t count = 0;
  if (!r.Le(&count)) return ctx.Truncated("GTID_LIST");
  count &= 0x0FFFFFFF;
  if (count > r.remaining() / 16) return ctx.Fail("GTID_LIST count larger than the event");
  for (uint32_t i = 0; i < count; ++i) {
    MariaDbGtid g;
    if (!r.Le(&g.domain_id) || !r.Le(&g.server_id) || !r.Le(&g.sequence)) {
      return ctx.Truncated("GTID_LIST");
    }
    (void)e.gtids.AddMariaDb(g);
  }
  return e;
}

HeartbeatEvent DecodeHeartbeat(Reader& r) {
  HeartbeatEvent e;
  r.Str(r.remaining(), &e.log_file);
  return e;
}

Result<RowsQueryEvent> DecodeRowsQuery(Reader& r, const EventContext& ctx) {
  RowsQueryEvent e;
  if (ctx.type == event_type::kRowsQuery) {
    if (!r.Skip(1)) return ctx.Truncated("ROWS_QUERY");  // 1-byte length, ignored
  }
  r.Str(r.remaining(), &e.query);
  return e;
}

Result<RowsEvent> DecodeRows(Reader& r, const EventContext& ctx, uint8_t post_header_len) {
  RowsEvent e;
  const bool v2 = ctx.type >= event_type::kWriteRowsV2;
  e.version = v2 ? 2 : 1;
  uint8_t base = v2 ? event_type::kWriteRowsV2 : event_type::kWriteRowsV1;
  e.kind = static_cast<RowsKind>(ctx.type - base);
  if (post_header_len == 6) {
    uint32_t id32 = 0;
    if (!r.Le(&id32)) return ctx.Truncated("ROWS");
    e.table_id = id32;
  } else if (!r.LeN(6, &e.table_id)) {
    return ctx.Truncated("ROWS");
  }
  if (!r.Le(&e.flags)) return ctx.Truncated("ROWS");
  if (v2) {
    uint16_t extra_len = 0;
    if (!r.Le(&extra_len) || extra_len < 2 || !r.Bytes(extra_len - 2u, &e.extra_data)) {
      return ctx.Truncated("ROWS extra data");
    }
  }
  uint64_t ncols = 0;
  if (!r.LenEnc(&ncols) || ncols > 4096) return ctx.Truncated("ROWS column count");
  e.column_count = static_cast<uint32_t>(ncols);
  if (!r.Bytes((ncols + 7) / 8, &e.columns_before)) return ctx.Truncated("ROWS");
  if (e.kind == RowsKind::kUpdate) {
    if (!r.Bytes((ncols + 7) / 8, &e.columns_after)) return ctx.Truncated("ROWS");
  } else {
    e.columns_after = e.columns_before;
  }
  r.Bytes(r.remaining(), &e.rows);
  return e;
}

}  // namespace binlog_internal

namespace {

using binlog_internal::EventContext;
using binlog_internal::Reader;

bool VersionAtLeast(std::string_view version, int a, int b, int c) {
  int parts[3] = {0, 0, 0};
  size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    int v = 0;
    bool any = false;
    while (i < version.size() && version[i] >= '0' && version[i] <= '9') {
      v = v * 10 + (version[i] - '0');
      ++i;
      any = true;
      if (v > 100000) break;
    }
    if (!any) break;
    parts[k] = v;
    if (i < version.size() && version[i] == '.') ++i;
  }
  if (parts[0] != a) return parts[0] > a;
  if (parts[1] != b) return parts[1] > b;
  return parts[2] >= c;
}

EventHeader ParseHeader(std::span<const uint8_t> bytes) {
  EventHeader h;
  h.timestamp = LoadLittleEndian<uint32_t>(bytes.data());
  h.type = bytes[4];
  h.server_id = LoadLittleEndian<uint32_t>(bytes.data() + 5);
  h.event_size = LoadLittleEndian<uint32_t>(bytes.data() + 9);
  h.log_pos = LoadLittleEndian<uint32_t>(bytes.data() + 13);
  h.flags = LoadLittleEndian<uint16_t>(bytes.data() + 17);
  return h;
}

uint32_t Crc32(std::span<const uint8_t> bytes, size_t n) {
  return static_cast<uint32_t>(crc32(0L, bytes.data(), static_cast<uInt>(n)));
}

}  // namespace

bool ReadLengthEncoded(std::span<const uint8_t> bytes, size_t* offset, uint64_t* value) {
  if (*offset >= bytes.size()) return false;
  uint8_t first = bytes[*offset];
  size_t n = 0;
  if (first < 0xFB) {
    *value = first;
    *offset += 1;
    return true;
  }
  if (first == 0xFC)
    n = 2;
  else if (first == 0xFD)
    n = 3;
  else if (first == 0xFE)
    n = 8;
  else
    return false;  // 0xFB (NULL) and 0xFF are not lengths
  if (bytes.size() - *offset - 1 < n) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{bytes[*offset + 1 + i]} << (8 * i);
  *value = v;
  *offset += 1 + n;
  return true;
}

bool ColumnInfo::is_text() const {
  return binlog_internal::IsCharacterType(type, real_type) && collation != 63 &&
         !(collation == 0 && OneOf(type, column_type::kBlob, column_type::kTinyBlob,
                                   column_type::kMediumBlob, column_type::kLongBlob));
}

bool ColumnInfo::in_signedness_bitmap(bool mariadb) const {
  // MariaDB's YEAR is an integer field underneath and keeps its bit;
  // MySQL's list of numeric binlog types leaves YEAR out.
  if (type == column_type::kYear) return mariadb;
  return OneOf(type, column_type::kTiny, column_type::kShort, column_type::kInt24,
               column_type::kLong, column_type::kLongLong, column_type::kNewDecimal,
               column_type::kDecimal, column_type::kFloat, column_type::kDouble);
}

std::string MySqlGtidEvent::ToString() const {
  if (anonymous) return "";
  return uuid + ":" + std::to_string(gno);
}

BinlogDecoder::BinlogDecoder(BinlogDecoderOptions options) : options_(options) {
  format_.checksum = options.initial_checksum;
}

std::unexpected<Error> BinlogDecoder::Fail(uint64_t pos, std::string_view what) const {
  return Corruption("binlog {}:{}: {}", file_.empty() ? "?" : file_, pos, what);
}

void BinlogDecoder::Reset() { tables_.clear(); }

Result<const TableMapEvent*> BinlogDecoder::FindTable(uint64_t table_id) const {
  auto it = tables_.find(table_id);
  if (it == tables_.end()) {
    return Corruption("binlog {}: rows event for table id {} without a TABLE_MAP", file_, table_id);
  }
  return it->second.get();
}

TableMapEvent* BinlogDecoder::MutableTable(uint64_t table_id) {
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : it->second.get();
}

uint8_t BinlogDecoder::PostHeaderLength(uint8_t type, uint8_t fallback) const {
  if (!have_format_ || type == 0 || type > format_.post_header_lengths.size()) return fallback;
  return format_.post_header_lengths[type - 1];
}

Result<std::span<const uint8_t>> BinlogDecoder::StripChecksum(std::span<const uint8_t> bytes,
                                                              uint8_t type, uint64_t pos,
                                                              ChecksumAlg* alg) {
  // Which checksum applies to this event.
  *alg = format_.checksum;
  bool fde_aware = false;  // an FDE of a checksum-aware server: alg byte + 4 CRC bytes at the end
  if (type == event_type::kFormatDescription) {
    if (bytes.size() < kEventHeaderSize + 57) {
      return Fail(pos, "FORMAT_DESCRIPTION event too short");
    }
    std::string_view version(reinterpret_cast<const char*>(bytes.data() + kEventHeaderSize + 2),
                             50);
    version = version.substr(0, version.find('\0'));
    bool mariadb = version.find("MariaDB") != std::string_view::npos;
    fde_aware = mariadb ? VersionAtLeast(version, 5, 3, 0) : VersionAtLeast(version, 5, 6, 1);
    if (fde_aware && bytes.size() < kEventHeaderSize + 57 + 5) {
      return Fail(pos, "FORMAT_DESCRIPTION event too short for its checksum algorithm");
    }
    *alg = fde_aware ? static_cast<ChecksumAlg>(bytes[bytes.size() - 5]) : ChecksumAlg::kOff;
  } else if (*alg == ChecksumAlg::kUndefined) {
    // Before any FDE (the fake ROTATE): detect by checking the CRC.
    *alg = ChecksumAlg::kOff;
    if (bytes.size() >= kEventHeaderSize + 4) {
      uint32_t stored = LoadLittleEndian<uint32_t>(bytes.data() + bytes.size() - 4);
      if (stored == Crc32(bytes, bytes.size() - 4)) *alg = ChecksumAlg::kCrc32;
    }
  }
  size_t end = bytes.size();
  if (*alg == ChecksumAlg::kCrc32 || fde_aware) {
    if (end < kEventHeaderSize + 4) return Fail(pos, "event too short for its checksum");
    end -= 4;
    if (*alg == ChecksumAlg::kCrc32 && options_.verify_checksum) {
      uint32_t stored = LoadLittleEndian<uint32_t>(bytes.data() + end);
      uint32_t crc = Crc32(bytes, end);
      if (stored != crc) {
        return Fail(pos,
                    fmt::format("checksum mismatch (stored {:08x}, computed {:08x})", stored, crc));
      }
    }
  }
  if (*alg != ChecksumAlg::kOff && *alg != ChecksumAlg::kCrc32) {
    return Fail(pos, fmt::format("unknown checksum algorithm {}", static_cast<int>(*alg)));
  }
  if (fde_aware) end -= 1;  // the algorithm byte
  return bytes.subspan(0, end);
}

Result<BinlogEvent> BinlogDecoder::Decode(std::span<const uint8_t> bytes) {
  BinlogEvent ev;
  if (bytes.size() < kEventHeaderSize) {
    return Fail(0,
                fmt::format("event of {} bytes is shorter than the 19-byte header", bytes.size()));
  }
  ev.header = ParseHeader(bytes);
  const EventHeader& h = ev.header;
  ev.position = h.log_pos >= h.event_size ? h.log_pos - h.event_size : 0;
  if (h.event_size != bytes.size()) {
    return Fail(ev.position, fmt::format("event size {} in the header, {} bytes received",
                                         h.event_size, bytes.size()));
  }
  ChecksumAlg alg = ChecksumAlg::kOff;
  FLOE_ASSIGN_OR_RETURN(std::span<const uint8_t> body,
                        StripChecksum(bytes, h.type, ev.position, &alg));
  FLOE_RETURN_IF_ERROR(DecodeBody(body, alg, &ev));
  return ev;
}

namespace {

// Stores a decoded body into the event's variant.
template <typename T>
Status Store(Result<T> decoded, BinlogEvent* ev) {
  if (!decoded) return std::unexpected(std::move(decoded).error());
  ev->body = std::move(*decoded);
  return Ok();
}

}  // namespace

Status BinlogDecoder::DecodeBody(std::span<const uint8_t> body, ChecksumAlg alg, BinlogEvent* ev) {
  namespace bi = binlog_internal;
  const uint8_t type = ev->header.type;
  const uint64_t pos = ev->position;
  const EventContext ctx{file_, pos, type};
  Reader r(body, kEventHeaderSize);
  switch (type) {
    case event_type::kFormatDescription: {
      FLOE_ASSIGN_OR_RETURN(FormatDescriptionEvent f, bi::DecodeFormatDescription(r, ctx, alg));
      format_ = f;
      have_format_ = true;
      ev->body = std::move(f);
      return Ok();
    }
    case event_type::kRotate: {
      FLOE_ASSIGN_OR_RETURN(RotateEvent e, bi::DecodeRotate(r, ctx));
      file_ = e.next_file;
      ev->body = std::move(e);
      return Ok();
    }
    case event_type::kMariaQueryCompressed:
      return NotSupported(
          "binlog {}:{}: compressed QUERY event (log_bin_compress=ON); turn "
          "log_bin_compress off",
          file_, pos);
    case event_type::kQuery:
      return Store(bi::DecodeQuery(r, ctx, PostHeaderLength(event_type::kQuery, 13)), ev);
    case event_type::kXid:
      return Store(bi::DecodeXid(r, ctx), ev);
    case event_type::kGtid:
    case event_type::kAnonymousGtid:
      return Store(bi::DecodeMySqlGtid(r, ctx), ev);
    case event_type::kPreviousGtids:
      return Store(bi::DecodePreviousGtids(r, ctx), ev);
    case event_type::kMariaGtid:
      return Store(bi::DecodeMariaDbGtid(r, ctx, ev->header.server_id), ev);
    case event_type::kMariaGtidList:
      return Store(bi::DecodeMariaDbGtidList(r, ctx), ev);
    case event_type::kHeartbeat:
    case event_type::kHeartbeatV2:
      ev->body = bi::DecodeHeartbeat(r);
      return Ok();
    case event_type::kMariaAnnotateRows:
    case event_type::kRowsQuery:
      return Store(bi::DecodeRowsQuery(r, ctx), ev);
    case event_type::kTableMap: {
      FLOE_ASSIGN_OR_RETURN(auto t,
                            bi::DecodeTableMap(r, ctx, PostHeaderLength(event_type::kTableMap, 8),
                                               format_.is_mariadb));
      auto& slot = tables_[t->table_id];
      slot = std::move(t);
      ev->body = static_cast<const TableMapEvent*>(slot.get());
      return Ok();
    }
    case event_type::kWriteRowsV1:
    case event_type::kUpdateRowsV1:
    case event_type::kDeleteRowsV1:
    case event_type::kWriteRowsV2:
    case event_type::kUpdateRowsV2:
    case event_type::kDeleteRowsV2: {
      const bool v2 = type >= event_type::kWriteRowsV2;
      return Store(bi::DecodeRows(r, ctx, PostHeaderLength(type, v2 ? 10 : 8)), ev);
    }
    case event_type::kPartialUpdateRows:
      return NotSupported(
          "binlog {}:{}: PARTIAL_UPDATE_ROWS event (binlog_row_value_options="
          "PARTIAL_JSON); set binlog_row_value_options='' on the server",
          file_, pos);
    case event_type::kMariaStartEncryption:
      return NotSupported("binlog {}:{}: encrypted binlog (encrypt_binlog=ON) is not supported",
                          file_, pos);
    default:
      if (type >= event_type::kMariaWriteRowsCompressedV1 &&
          type <= event_type::kMariaDeleteRowsCompressed) {
        return NotSupported(
            "binlog {}:{}: compressed rows event (log_bin_compress=ON); turn "
            "log_bin_compress off",
            file_, pos);
      }
      ev->body = OtherEvent{};
      return Ok();
  }
}

}  // namespace floe::cdc::mysql
