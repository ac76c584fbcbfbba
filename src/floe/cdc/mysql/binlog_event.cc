#include "floe/cdc/mysql/binlog_event.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "floe/cdc/mysql/table_schema.h"
#include "floe/common/bytes.h"

namespace floe::cdc::mysql {
namespace {

using types::Value;

// A bounds-checked little-endian reader over one event's bytes.
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

uint64_t BigEndian(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

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

bool IsCharacterType(uint8_t type, uint8_t real_type) {
  switch (type) {
    case column_type::kString:
      return real_type == column_type::kString;
    case column_type::kVarchar:
    case column_type::kVarString:
    case column_type::kBlob:
    case column_type::kTinyBlob:
    case column_type::kMediumBlob:
    case column_type::kLongBlob:
      return true;
    default:
      return false;
  }
}

bool IsEnumOrSet(const ColumnInfo& c) {
  return c.real_type == column_type::kEnum || c.real_type == column_type::kSet;
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
  return IsCharacterType(type, real_type) && collation != 63 &&
         !(collation == 0 && (type == column_type::kBlob || type == column_type::kTinyBlob ||
                              type == column_type::kMediumBlob || type == column_type::kLongBlob));
}

bool ColumnInfo::in_signedness_bitmap(bool mariadb) const {
  switch (type) {
    case column_type::kYear:
      // MariaDB's YEAR is an integer field underneath and keeps its bit;
      // MySQL's list of numeric binlog types leaves YEAR out.
      return mariadb;
    case column_type::kTiny:
    case column_type::kShort:
    case column_type::kInt24:
    case column_type::kLong:
    case column_type::kLongLong:
    case column_type::kNewDecimal:
    case column_type::kDecimal:
    case column_type::kFloat:
    case column_type::kDouble:
      return true;
    default:
      return false;
  }
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

namespace {

Status ParseOptionalMetadata(std::span<const uint8_t> bytes, bool mariadb, TableMapEvent* t) {
  Reader r(bytes);
  auto& cols = t->columns;
  auto bad = [&](std::string_view what) {
    return Corruption("TABLE_MAP {}.{}: optional metadata: {}", t->db, t->table, what);
  };
  // Index lists of the column kinds the metadata fields refer to.
  std::vector<uint32_t> char_cols, enum_set_cols, enum_cols, set_cols, geo_cols, numeric_cols;
  for (uint32_t i = 0; i < cols.size(); ++i) {
    const ColumnInfo& c = cols[i];
    // MariaDB counts GEOMETRY (a BLOB underneath) among the character columns; MySQL does not.
    if (IsCharacterType(c.type, c.real_type) || (mariadb && c.type == column_type::kGeometry)) {
      char_cols.push_back(i);
    }
    if (IsEnumOrSet(c)) enum_set_cols.push_back(i);
    if (c.real_type == column_type::kEnum) enum_cols.push_back(i);
    if (c.real_type == column_type::kSet) set_cols.push_back(i);
    if (c.type == column_type::kGeometry) geo_cols.push_back(i);
    if (c.in_signedness_bitmap(mariadb)) numeric_cols.push_back(i);
  }
  auto read_charsets = [&](std::span<const uint8_t> v, const std::vector<uint32_t>& targets,
                           bool with_default) -> Status {
    Reader f(v);
    if (with_default) {
      uint64_t def = 0;
      if (!f.LenEnc(&def)) return bad("truncated default charset");
      for (uint32_t i : targets) cols[i].collation = static_cast<uint32_t>(def);
      while (f.remaining() > 0) {
        uint64_t idx = 0, coll = 0;
        if (!f.LenEnc(&idx) || !f.LenEnc(&coll)) return bad("truncated charset pair");
        if (idx >= targets.size()) return bad("charset for a column out of range");
        cols[targets[idx]].collation = static_cast<uint32_t>(coll);
      }
    } else {
      for (uint32_t i : targets) {
        uint64_t coll = 0;
        if (!f.LenEnc(&coll)) return bad("truncated column charsets");
        cols[i].collation = static_cast<uint32_t>(coll);
      }
    }
    return Ok();
  };
  auto read_values = [&](std::span<const uint8_t> v,
                         const std::vector<uint32_t>& targets) -> Status {
    Reader f(v);
    for (uint32_t i : targets) {
      uint64_t count = 0;
      if (!f.LenEnc(&count) || count > f.remaining()) return bad("truncated ENUM/SET values");
      cols[i].enum_values.clear();
      cols[i].enum_values.reserve(count);
      for (uint64_t k = 0; k < count; ++k) {
        uint64_t len = 0;
        std::string_view s;
        if (!f.LenEnc(&len) || !f.Str(len, &s)) return bad("truncated ENUM/SET value");
        cols[i].enum_values.emplace_back(s);
      }
    }
    return Ok();
  };
  while (r.remaining() > 0) {
    uint8_t type = 0;
    uint64_t len = 0;
    std::span<const uint8_t> v;
    if (!r.U8(&type) || !r.LenEnc(&len) || !r.Bytes(len, &v)) return bad("truncated field");
    switch (type) {
      case 1: {  // SIGNEDNESS: one bit per numeric column, most significant bit first
        if (v.size() < (numeric_cols.size() + 7) / 8) return bad("short signedness bitmap");
        for (size_t k = 0; k < numeric_cols.size(); ++k) {
          cols[numeric_cols[k]].is_unsigned = (v[k / 8] >> (7 - k % 8)) & 1;
        }
        t->has_signedness = true;
        break;
      }
      case 2:
        FLOE_RETURN_IF_ERROR(read_charsets(v, char_cols, true));
        break;
      case 3:
        FLOE_RETURN_IF_ERROR(read_charsets(v, char_cols, false));
        break;
      case 4: {  // COLUMN_NAME
        Reader f(v);
        for (auto& c : cols) {
          uint64_t n = 0;
          std::string_view s;
          if (!f.LenEnc(&n) || !f.Str(n, &s)) return bad("truncated column names");
          c.name = std::string(s);
        }
        t->has_full_metadata = true;
        break;
      }
      case 5:
        FLOE_RETURN_IF_ERROR(read_values(v, set_cols));
        break;
      case 6:
        FLOE_RETURN_IF_ERROR(read_values(v, enum_cols));
        break;
      case 7: {
        Reader f(v);
        for (uint32_t i : geo_cols) {
          uint64_t g = 0;
          if (!f.LenEnc(&g)) return bad("truncated geometry types");
          cols[i].geometry_type = static_cast<uint32_t>(g);
        }
        break;
      }
      case 8: {  // SIMPLE_PRIMARY_KEY
        Reader f(v);
        t->primary_key.clear();
        while (f.remaining() > 0) {
          uint64_t idx = 0;
          if (!f.LenEnc(&idx) || idx >= cols.size()) return bad("bad primary key column");
          t->primary_key.push_back(static_cast<uint32_t>(idx));
          cols[idx].in_primary_key = true;
        }
        break;
      }
      case 9: {  // PRIMARY_KEY_WITH_PREFIX
        Reader f(v);
        t->primary_key.clear();
        while (f.remaining() > 0) {
          uint64_t idx = 0, prefix = 0;
          if (!f.LenEnc(&idx) || !f.LenEnc(&prefix) || idx >= cols.size()) {
            return bad("bad primary key column");
          }
          t->primary_key.push_back(static_cast<uint32_t>(idx));
          cols[idx].in_primary_key = true;
        }
        break;
      }
      case 10:
        FLOE_RETURN_IF_ERROR(read_charsets(v, enum_set_cols, true));
        break;
      case 11:
        FLOE_RETURN_IF_ERROR(read_charsets(v, enum_set_cols, false));
        break;
      default:
        break;  // COLUMN_VISIBILITY and future fields
    }
  }
  return Ok();
}

}  // namespace

Result<BinlogEvent> BinlogDecoder::Decode(std::span<const uint8_t> bytes) {
  BinlogEvent ev;
  if (bytes.size() < kEventHeaderSize) {
    return Fail(0,
                fmt::format("event of {} bytes is shorter than the 19-byte header", bytes.size()));
  }
  EventHeader& h = ev.header;
  h.timestamp = LoadLittleEndian<uint32_t>(bytes.data());
  h.type = bytes[4];
  h.server_id = LoadLittleEndian<uint32_t>(bytes.data() + 5);
  h.event_size = LoadLittleEndian<uint32_t>(bytes.data() + 9);
  h.log_pos = LoadLittleEndian<uint32_t>(bytes.data() + 13);
  h.flags = LoadLittleEndian<uint16_t>(bytes.data() + 17);
  ev.position = h.log_pos >= h.event_size ? h.log_pos - h.event_size : 0;
  const uint64_t pos = ev.position;
  if (h.event_size != bytes.size()) {
    return Fail(pos, fmt::format("event size {} in the header, {} bytes received", h.event_size,
                                 bytes.size()));
  }

  // Which checksum applies to this event.
  ChecksumAlg alg = format_.checksum;
  bool fde_aware = false;  // an FDE of a checksum-aware server: alg byte + 4 CRC bytes at the end
  if (h.type == event_type::kFormatDescription) {
    if (bytes.size() < kEventHeaderSize + 57)
      return Fail(pos, "FORMAT_DESCRIPTION event too short");
    std::string_view version(reinterpret_cast<const char*>(bytes.data() + kEventHeaderSize + 2),
                             50);
    version = version.substr(0, version.find('\0'));
    bool mariadb = version.find("MariaDB") != std::string_view::npos;
    fde_aware = mariadb ? VersionAtLeast(version, 5, 3, 0) : VersionAtLeast(version, 5, 6, 1);
    if (fde_aware && bytes.size() < kEventHeaderSize + 57 + 5) {
      return Fail(pos, "FORMAT_DESCRIPTION event too short for its checksum algorithm");
    }
    alg = fde_aware ? static_cast<ChecksumAlg>(bytes[bytes.size() - 5]) : ChecksumAlg::kOff;
  } else if (alg == ChecksumAlg::kUndefined) {
    // Before any FDE (the fake ROTATE): detect by checking the CRC.
    alg = ChecksumAlg::kOff;
    if (bytes.size() >= kEventHeaderSize + 4) {
      uint32_t stored = LoadLittleEndian<uint32_t>(bytes.data() + bytes.size() - 4);
      uint32_t crc =
          static_cast<uint32_t>(crc32(0L, bytes.data(), static_cast<uInt>(bytes.size() - 4)));
      if (stored == crc) alg = ChecksumAlg::kCrc32;
    }
  }
  size_t end = bytes.size();
  if (alg == ChecksumAlg::kCrc32 || fde_aware) {
    if (end < kEventHeaderSize + 4) return Fail(pos, "event too short for its checksum");
    end -= 4;
    if (alg == ChecksumAlg::kCrc32 && options_.verify_checksum) {
      uint32_t stored = LoadLittleEndian<uint32_t>(bytes.data() + end);
      uint32_t crc = static_cast<uint32_t>(crc32(0L, bytes.data(), static_cast<uInt>(end)));
      if (stored != crc) {
        return Fail(pos,
                    fmt::format("checksum mismatch (stored {:08x}, computed {:08x})", stored, crc));
      }
    }
  }
  if (alg != ChecksumAlg::kOff && alg != ChecksumAlg::kCrc32) {
    return Fail(pos, fmt::format("unknown checksum algorithm {}", static_cast<int>(alg)));
  }
  if (fde_aware) end -= 1;  // the algorithm byte
  std::span<const uint8_t> body = bytes.subspan(0, end);
  Reader r(body, kEventHeaderSize);
  auto post_header_len = [&](uint8_t type, uint8_t fallback) -> uint8_t {
    if (!have_format_ || type == 0 || type > format_.post_header_lengths.size()) return fallback;
    return format_.post_header_lengths[type - 1];
  };
  auto truncated = [&](std::string_view what) {
    return Fail(pos, fmt::format("truncated {} event (type {})", what, h.type));
  };

  switch (h.type) {
    case event_type::kFormatDescription: {
      FormatDescriptionEvent f;
      std::string_view version;
      if (!r.Le(&f.binlog_version) || !r.Str(50, &version) || !r.Le(&f.create_timestamp) ||
          !r.U8(&f.header_length)) {
        return truncated("FORMAT_DESCRIPTION");
      }
      f.server_version = std::string(version.substr(0, version.find('\0')));
      f.is_mariadb = f.server_version.find("MariaDB") != std::string::npos;
      if (f.binlog_version != 4) {
        return NotSupported("binlog {}:{}: binlog format version {} (only v4, MySQL >= 5.0)", file_,
                            pos, f.binlog_version);
      }
      if (f.header_length < kEventHeaderSize)
        return Fail(pos, "FORMAT_DESCRIPTION header length < 19");
      size_t n = r.remaining();
      f.post_header_lengths.assign(r.data(), r.data() + n);
      f.checksum = alg;
      format_ = f;
      have_format_ = true;
      ev.body = std::move(f);
      break;
    }
    case event_type::kRotate: {
      RotateEvent e;
      if (!r.Le(&e.position)) return truncated("ROTATE");
      std::string_view name;
      r.Str(r.remaining(), &name);
      e.next_file = std::string(name);
      file_ = e.next_file;
      ev.body = std::move(e);
      break;
    }
    case event_type::kQuery:
    case event_type::kMariaQueryCompressed: {
      if (h.type == event_type::kMariaQueryCompressed) {
        return NotSupported(
            "binlog {}:{}: compressed QUERY event (log_bin_compress=ON); turn "
            "log_bin_compress off",
            file_, pos);
      }
      QueryEvent q;
      uint8_t db_len = 0;
      uint16_t status_len = 0;
      size_t start = r.offset();
      if (!r.Le(&q.thread_id) || !r.Le(&q.exec_time) || !r.U8(&db_len) || !r.Le(&q.error_code) ||
          !r.Le(&status_len)) {
        return truncated("QUERY");
      }
      size_t phl = post_header_len(event_type::kQuery, 13);
      if (phl < 13 || !r.Skip(start + phl - r.offset())) return truncated("QUERY");
      if (!r.Skip(status_len) || !r.Str(db_len, &q.db) || !r.Skip(1)) return truncated("QUERY");
      r.Str(r.remaining(), &q.query);
      ev.body = q;
      break;
    }
    case event_type::kXid: {
      XidEvent x;
      if (!r.Le(&x.xid)) return truncated("XID");
      ev.body = x;
      break;
    }
    case event_type::kGtid:
    case event_type::kAnonymousGtid: {
      MySqlGtidEvent g;
      g.anonymous = h.type == event_type::kAnonymousGtid;
      std::span<const uint8_t> sid;
      if (!r.U8(&g.commit_flag) || !r.Bytes(16, &sid) || !r.Le(&g.gno)) return truncated("GTID");
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
      ev.body = std::move(g);
      break;
    }
    case event_type::kPreviousGtids: {
      GtidListEvent e;
      uint64_t n_sids = 0;
      if (!r.Le(&n_sids)) return truncated("PREVIOUS_GTIDS");
      if (n_sids > r.remaining() / 24)
        return Fail(pos, "PREVIOUS_GTIDS count larger than the event");
      for (uint64_t i = 0; i < n_sids; ++i) {
        std::span<const uint8_t> sid;
        uint64_t n_iv = 0;
        if (!r.Bytes(16, &sid) || !r.Le(&n_iv)) return truncated("PREVIOUS_GTIDS");
        if (n_iv > r.remaining() / 16) return Fail(pos, "PREVIOUS_GTIDS interval count too large");
        std::string uuid = UuidText(sid.data());
        for (uint64_t k = 0; k < n_iv; ++k) {
          uint64_t lo = 0, hi = 0;  // [lo, hi)
          if (!r.Le(&lo) || !r.Le(&hi)) return truncated("PREVIOUS_GTIDS");
          if (lo == 0 || hi <= lo) return Fail(pos, "PREVIOUS_GTIDS bad interval");
          // Add as a whole interval via text (rare, once per file).
          auto part = GtidSet::Parse(fmt::format("{}:{}-{}", uuid, lo, hi - 1));
          if (!part) return Fail(pos, "PREVIOUS_GTIDS bad interval");
          std::string merged = e.gtids.ToString();
          if (!merged.empty()) merged += ",";
          merged += part->ToString();
          auto all = GtidSet::Parse(merged);
          if (!all) return Fail(pos, "PREVIOUS_GTIDS bad set");
          e.gtids = std::move(*all);
        }
      }
      ev.body = std::move(e);
      break;
    }
    case event_type::kMariaGtid: {
      MariaDbGtidEvent g;
      if (!r.Le(&g.gtid.sequence) || !r.Le(&g.gtid.domain_id) || !r.U8(&g.flags)) {
        return truncated("GTID");
      }
      g.gtid.server_id = h.server_id;
      if (g.flags & 0x02) r.Le(&g.commit_id);
      ev.body = g;
      break;
    }
    case event_type::kMariaGtidList: {
      GtidListEvent e;
      uint32_t count = 0;
      if (!r.Le(&count)) return truncated("GTID_LIST");
      count &= 0x0FFFFFFF;
      if (count > r.remaining() / 16) return Fail(pos, "GTID_LIST count larger than the event");
      for (uint32_t i = 0; i < count; ++i) {
        MariaDbGtid g;
        if (!r.Le(&g.domain_id) || !r.Le(&g.server_id) || !r.Le(&g.sequence)) {
          return truncated("GTID_LIST");
        }
        (void)e.gtids.AddMariaDb(g);
      }
      ev.body = std::move(e);
      break;
    }
    case event_type::kHeartbeat:
    case event_type::kHeartbeatV2: {
      HeartbeatEvent e;
      r.Str(r.remaining(), &e.log_file);
      ev.body = e;
      break;
    }
    case event_type::kMariaAnnotateRows:
    case event_type::kRowsQuery: {
      RowsQueryEvent e;
      if (h.type == event_type::kRowsQuery) {
        if (!r.Skip(1)) return truncated("ROWS_QUERY");  // 1-byte length, ignored
      }
      r.Str(r.remaining(), &e.query);
      ev.body = e;
      break;
    }
    case event_type::kTableMap: {
      auto t = std::make_unique<TableMapEvent>();
      uint8_t phl = post_header_len(event_type::kTableMap, 8);
      uint64_t id = 0;
      if (phl == 6) {
        uint32_t id32 = 0;
        if (!r.Le(&id32)) return truncated("TABLE_MAP");
        id = id32;
      } else if (!r.LeN(6, &id)) {
        return truncated("TABLE_MAP");
      }
      t->table_id = id;
      uint8_t len = 0;
      std::string_view s;
      if (!r.Skip(2) || !r.U8(&len) || !r.Str(len, &s) || !r.Skip(1)) return truncated("TABLE_MAP");
      t->db = std::string(s);
      if (!r.U8(&len) || !r.Str(len, &s) || !r.Skip(1)) return truncated("TABLE_MAP");
      t->table = std::string(s);
      uint64_t ncols = 0;
      if (!r.LenEnc(&ncols) || ncols > r.remaining()) return truncated("TABLE_MAP");
      std::span<const uint8_t> types;
      r.Bytes(ncols, &types);
      t->columns.resize(ncols);
      uint64_t meta_len = 0;
      std::span<const uint8_t> meta;
      if (!r.LenEnc(&meta_len) || !r.Bytes(meta_len, &meta)) return truncated("TABLE_MAP");
      Reader m(meta);
      for (uint64_t i = 0; i < ncols; ++i) {
        ColumnInfo& c = t->columns[i];
        c.type = c.real_type = types[i];
        uint8_t b0 = 0, b1 = 0;
        bool ok = true;
        switch (c.type) {
          case column_type::kFloat:
          case column_type::kDouble:
          case column_type::kBlob:
          case column_type::kTinyBlob:
          case column_type::kMediumBlob:
          case column_type::kLongBlob:
          case column_type::kGeometry:
          case column_type::kJson:
            ok = m.U8(&b0);
            c.length = b0;
            break;
          case column_type::kTimestamp2:
          case column_type::kDateTime2:
          case column_type::kTime2:
            ok = m.U8(&b0);
            c.length = b0;
            if (ok && b0 > 6)
              return Fail(pos, fmt::format("TABLE_MAP column {} fsp {} > 6", i, b0));
            break;
          case column_type::kVarchar:
          case column_type::kVarString: {
            uint16_t v = 0;
            ok = m.Le(&v);
            c.length = v;
            break;
          }
          case column_type::kBit:
            ok = m.U8(&b0) && m.U8(&b1);
            c.length = uint32_t{b1} * 8 + b0;
            if (ok && (c.length == 0 || c.length > 64)) {
              return Fail(pos, fmt::format("TABLE_MAP column {} BIT length {}", i, c.length));
            }
            break;
          case column_type::kNewDecimal:
            ok = m.U8(&b0) && m.U8(&b1);
            c.length = b0;
            c.scale = b1;
            if (ok && (b0 == 0 || b0 > kMaxDecimalPrecision || b1 > kMaxDecimalScale || b1 > b0)) {
              return Fail(pos, fmt::format("TABLE_MAP column {} DECIMAL({},{})", i, b0, b1));
            }
            break;
          case column_type::kString:
          case column_type::kEnum:
          case column_type::kSet:
            ok = m.U8(&b0) && m.U8(&b1);
            if (c.type == column_type::kString && b0 != 0 && (b0 & 0x30) != 0x30) {
              // Lengths over 255 keep their high bits in the type byte.
              c.real_type = b0 | 0x30;
              c.length = b1 | ((((b0 & 0x30) ^ 0x30)) << 4);
            } else {
              c.real_type = b0 == 0 ? c.type : b0;
              c.length = b1;
            }
            if (c.type == column_type::kEnum || c.type == column_type::kSet) c.real_type = c.type;
            break;
          case column_type::kDecimal:
            return NotSupported("binlog {}:{}: table {}.{} column {} has the pre-5.0 DECIMAL type",
                                file_, pos, t->db, t->table, i);
          default:
            break;  // no metadata
        }
        if (!ok) return truncated("TABLE_MAP metadata");
        c.name = fmt::format("col_{}", i + 1);
      }
      if (m.remaining() != 0) return Fail(pos, "TABLE_MAP metadata longer than its columns need");
      std::span<const uint8_t> nulls;
      if (!r.Bytes((ncols + 7) / 8, &nulls)) return truncated("TABLE_MAP");
      for (uint64_t i = 0; i < ncols; ++i) t->columns[i].nullable = (nulls[i / 8] >> (i % 8)) & 1;
      if (r.remaining() > 0) {
        std::span<const uint8_t> opt;
        r.Bytes(r.remaining(), &opt);
        auto st = ParseOptionalMetadata(opt, format_.is_mariadb, t.get());
        if (!st) return Fail(pos, st.error().message());
      }
      auto& slot = tables_[id];
      slot = std::move(t);
      ev.body = static_cast<const TableMapEvent*>(slot.get());
      break;
    }
    case event_type::kWriteRowsV1:
    case event_type::kUpdateRowsV1:
    case event_type::kDeleteRowsV1:
    case event_type::kWriteRowsV2:
    case event_type::kUpdateRowsV2:
    case event_type::kDeleteRowsV2: {
      RowsEvent e;
      bool v2 = h.type >= event_type::kWriteRowsV2;
      e.version = v2 ? 2 : 1;
      uint8_t base = v2 ? event_type::kWriteRowsV2 : event_type::kWriteRowsV1;
      e.kind = static_cast<RowsKind>(h.type - base);
      uint8_t phl = post_header_len(h.type, v2 ? 10 : 8);
      if (phl == 6) {
        uint32_t id32 = 0;
        if (!r.Le(&id32)) return truncated("ROWS");
        e.table_id = id32;
      } else if (!r.LeN(6, &e.table_id)) {
        return truncated("ROWS");
      }
      if (!r.Le(&e.flags)) return truncated("ROWS");
      if (v2) {
        uint16_t extra_len = 0;
        if (!r.Le(&extra_len) || extra_len < 2 || !r.Bytes(extra_len - 2u, &e.extra_data)) {
          return truncated("ROWS extra data");
        }
      }
      uint64_t ncols = 0;
      if (!r.LenEnc(&ncols) || ncols > 4096) return truncated("ROWS column count");
      e.column_count = static_cast<uint32_t>(ncols);
      if (!r.Bytes((ncols + 7) / 8, &e.columns_before)) return truncated("ROWS");
      if (e.kind == RowsKind::kUpdate) {
        if (!r.Bytes((ncols + 7) / 8, &e.columns_after)) return truncated("ROWS");
      } else {
        e.columns_after = e.columns_before;
      }
      r.Bytes(r.remaining(), &e.rows);
      ev.body = e;
      break;
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
      if (h.type >= event_type::kMariaWriteRowsCompressedV1 &&
          h.type <= event_type::kMariaDeleteRowsCompressed) {
        return NotSupported(
            "binlog {}:{}: compressed rows event (log_bin_compress=ON); turn "
            "log_bin_compress off",
            file_, pos);
      }
      ev.body = OtherEvent{};
      break;
  }
  return ev;
}

// ---------------------------------------------------------------------------
// Row images

std::unexpected<Error> RowImageDecoder::Corrupt(std::string_view what) const {
  return Corruption("binlog {}: rows event for {}.{}, row {}: {}", where_, table_->db,
                    table_->table, row_index_, what);
}

Status RowImageDecoder::Reset(const TableMapEvent& table, const RowsEvent& rows,
                              std::string_view where) {
  table_ = &table;
  rows_ = rows;
  where_.assign(where);
  offset_ = 0;
  row_index_ = 0;
  if (rows.column_count != table.columns.size()) {
    return Corrupt(
        fmt::format("{} columns, the table map has {}", rows.column_count, table.columns.size()));
  }
  auto full = [&](std::span<const uint8_t> bits) {
    for (uint32_t i = 0; i < rows.column_count; ++i) {
      if (!((bits[i / 8] >> (i % 8)) & 1)) return false;
    }
    return true;
  };
  if (!full(rows.columns_before) || !full(rows.columns_after)) {
    return NotSupported(
        "binlog {}: rows event for {}.{} has a partial row image; floe needs full row images: "
        "SET GLOBAL binlog_row_image = 'FULL' (and in the server configuration)",
        where_, table.db, table.table);
  }
  return Ok();
}

Result<bool> RowImageDecoder::Next(Arena* arena, types::Row* before, types::Row* after) {
  if (offset_ >= rows_.rows.size()) return false;
  *before = {};
  *after = {};
  switch (rows_.kind) {
    case RowsKind::kWrite:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_after, arena, after));
      break;
    case RowsKind::kDelete:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_before, arena, before));
      break;
    case RowsKind::kUpdate:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_before, arena, before));
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_after, arena, after));
      break;
  }
  ++row_index_;
  return true;
}

Status RowImageDecoder::DecodeImage(std::span<const uint8_t> present, Arena* arena,
                                    types::Row* out) {
  const size_t n = table_->columns.size();
  const size_t null_bytes = (n + 7) / 8;  // full images: every column is present
  if (rows_.rows.size() - offset_ < null_bytes) return Corrupt("truncated NULL bitmap");
  const uint8_t* nulls = rows_.rows.data() + offset_;
  offset_ += null_bytes;
  auto* values = arena->AllocateArray<Value>(n);
  for (size_t i = 0; i < n; ++i) {
    new (&values[i]) Value();
    if ((nulls[i / 8] >> (i % 8)) & 1) continue;
    FLOE_RETURN_IF_ERROR(DecodeValue(table_->columns[i], arena, &values[i]));
  }
  *out = {values, n};
  return Ok();
}

namespace {

constexpr int kDigitsToBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

int64_t DaysFromCivilLocal(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// Fractional seconds of TIME2/DATETIME2/TIMESTAMP2: (bytes, multiplier).
int FracBytes(uint32_t fsp) { return static_cast<int>((fsp + 1) / 2); }

}  // namespace

Result<size_t> DecodeBinaryDecimal(std::span<const uint8_t> bytes, int precision, int scale,
                                   types::int128_t* unscaled, std::string* text) {
  if (precision < 1 || precision > 65 || scale < 0 || scale > precision) {
    return Corruption("DECIMAL({},{}) is out of range", precision, scale);
  }
  const int intg = precision - scale;
  const int intg0 = intg / 9, intg0x = intg % 9;
  const int frac0 = scale / 9, frac0x = scale % 9;
  const size_t size =
      static_cast<size_t>(intg0 * 4 + kDigitsToBytes[intg0x] + frac0 * 4 + kDigitsToBytes[frac0x]);
  if (bytes.size() < size) return Corruption("DECIMAL needs {} bytes, {} left", size, bytes.size());
  uint8_t buf[40];
  std::memcpy(buf, bytes.data(), size);
  const bool negative = (buf[0] & 0x80) == 0;
  buf[0] ^= 0x80;
  if (negative) {
    for (size_t i = 0; i < size; ++i) buf[i] = static_cast<uint8_t>(~buf[i]);
  }
  size_t p = 0;
  auto group = [&](int digits) -> uint32_t {
    int nb = digits == 9 ? 4 : kDigitsToBytes[digits];
    uint32_t v = static_cast<uint32_t>(BigEndian(buf + p, static_cast<size_t>(nb)));
    p += static_cast<size_t>(nb);
    return v;
  };
  if (precision <= 38) {
    types::int128_t v = 0;
    auto mul = [](int digits) {
      types::int128_t m = 1;
      for (int i = 0; i < digits; ++i) m *= 10;
      return m;
    };
    if (intg0x) v = group(intg0x) % static_cast<uint32_t>(mul(intg0x));
    for (int i = 0; i < intg0; ++i) v = v * 1000000000 + group(9) % 1000000000u;
    for (int i = 0; i < frac0; ++i) v = v * 1000000000 + group(9) % 1000000000u;
    if (frac0x) v = v * mul(frac0x) + group(frac0x) % static_cast<uint32_t>(mul(frac0x));
    *unscaled = negative ? -v : v;
    return size;
  }
  std::string digits;
  auto append = [&](uint32_t v, int width) {
    uint32_t limit = 1;
    for (int i = 0; i < width; ++i) limit *= 10;
    fmt::format_to(std::back_inserter(digits), "{:0{}d}", v % limit, width);
  };
  if (intg0x) append(group(intg0x), intg0x);
  for (int i = 0; i < intg0; ++i) append(group(9), 9);
  std::string int_part = digits.substr(0, digits.find_first_not_of('0'));
  size_t nz = digits.find_first_not_of('0');
  std::string ip = nz == std::string::npos ? "0" : digits.substr(nz);
  digits.clear();
  for (int i = 0; i < frac0; ++i) append(group(9), 9);
  if (frac0x) append(group(frac0x), frac0x);
  text->clear();
  bool zero = ip == "0" && digits.find_first_not_of('0') == std::string::npos;
  if (negative && !zero) text->push_back('-');
  *text += ip;
  if (scale > 0) {
    text->push_back('.');
    *text += digits;
  }
  return size;
}

Status RowImageDecoder::DecodeValue(const ColumnInfo& c, Arena* arena, Value* out) {
  const uint8_t* base = rows_.rows.data();
  const size_t total = rows_.rows.size();
  size_t& off = offset_;
  auto need = [&](size_t n) { return total - off >= n; };
  auto fixed = [&](size_t n, const char* what) -> Status {
    if (!need(n)) return Corrupt(fmt::format("truncated {} value of column '{}'", what, c.name));
    return Ok();
  };
  auto copy_bytes = [&](const uint8_t* p, size_t n) {
    return std::string_view(arena->Copy({reinterpret_cast<const char*>(p), n}).data(), n);
  };
  switch (c.type) {
    case column_type::kTiny: {
      FLOE_RETURN_IF_ERROR(fixed(1, "TINYINT"));
      uint8_t v = base[off++];
      *out = Value::Int32(c.is_unsigned ? int32_t{v} : int32_t{static_cast<int8_t>(v)});
      return Ok();
    }
    case column_type::kShort: {
      FLOE_RETURN_IF_ERROR(fixed(2, "SMALLINT"));
      uint16_t v = LoadLittleEndian<uint16_t>(base + off);
      off += 2;
      *out = Value::Int32(c.is_unsigned ? int32_t{v} : int32_t{static_cast<int16_t>(v)});
      return Ok();
    }
    case column_type::kInt24: {
      FLOE_RETURN_IF_ERROR(fixed(3, "MEDIUMINT"));
      uint32_t v = base[off] | (uint32_t{base[off + 1]} << 8) | (uint32_t{base[off + 2]} << 16);
      off += 3;
      int32_t s = c.is_unsigned ? static_cast<int32_t>(v) : static_cast<int32_t>(v << 8) >> 8;
      *out = Value::Int32(s);
      return Ok();
    }
    case column_type::kLong: {
      FLOE_RETURN_IF_ERROR(fixed(4, "INT"));
      uint32_t v = LoadLittleEndian<uint32_t>(base + off);
      off += 4;
      *out = c.is_unsigned ? Value::Int64(int64_t{v}) : Value::Int32(static_cast<int32_t>(v));
      return Ok();
    }
    case column_type::kLongLong: {
      FLOE_RETURN_IF_ERROR(fixed(8, "BIGINT"));
      uint64_t v = LoadLittleEndian<uint64_t>(base + off);
      off += 8;
      *out = c.is_unsigned ? Value::Decimal(static_cast<types::int128_t>(v))
                           : Value::Int64(static_cast<int64_t>(v));
      return Ok();
    }
    case column_type::kFloat: {
      FLOE_RETURN_IF_ERROR(fixed(4, "FLOAT"));
      *out = Value::Float(LoadLittleEndian<float>(base + off));
      off += 4;
      return Ok();
    }
    case column_type::kDouble: {
      FLOE_RETURN_IF_ERROR(fixed(8, "DOUBLE"));
      *out = Value::Double(LoadLittleEndian<double>(base + off));
      off += 8;
      return Ok();
    }
    case column_type::kYear: {
      FLOE_RETURN_IF_ERROR(fixed(1, "YEAR"));
      uint8_t v = base[off++];
      *out = Value::Int32(v == 0 ? 0 : 1900 + v);
      return Ok();
    }
    case column_type::kNewDecimal: {
      types::int128_t unscaled = 0;
      auto used = DecodeBinaryDecimal(rows_.rows.subspan(off), static_cast<int>(c.length), c.scale,
                                      &unscaled, &scratch_);
      if (!used) return Corrupt(fmt::format("column '{}': {}", c.name, used.error().message()));
      off += *used;
      if (c.length <= 38) {
        *out = Value::Decimal(unscaled);
      } else {
        *out = Value::Bytes(arena->Copy(scratch_));
        if (scratch_.empty()) *out = Value::Bytes({});
      }
      return Ok();
    }
    case column_type::kBit: {
      size_t n = (c.length + 7) / 8;
      FLOE_RETURN_IF_ERROR(fixed(n, "BIT"));
      if (c.length == 1) {
        *out = Value::Bool(base[off] & 1);
      } else {
        *out = Value::Bytes(copy_bytes(base + off, n));
      }
      off += n;
      return Ok();
    }
    case column_type::kDate:
    case column_type::kNewDate: {
      FLOE_RETURN_IF_ERROR(fixed(3, "DATE"));
      uint32_t v = base[off] | (uint32_t{base[off + 1]} << 8) | (uint32_t{base[off + 2]} << 16);
      off += 3;
      unsigned day = v & 31, month = (v >> 5) & 15;
      int64_t year = v >> 9;
      if (month == 0 || day == 0 || month > 12) {
        *out = Value::Null();
      } else {
        *out = Value::Int32(static_cast<int32_t>(DaysFromCivilLocal(year, month, day)));
      }
      return Ok();
    }
    case column_type::kTimestamp: {
      FLOE_RETURN_IF_ERROR(fixed(4, "TIMESTAMP"));
      uint32_t secs = LoadLittleEndian<uint32_t>(base + off);
      off += 4;
      *out = secs == 0 ? Value::Null() : Value::Int64(int64_t{secs} * 1000000);
      return Ok();
    }
    case column_type::kTimestamp2: {
      size_t fb = static_cast<size_t>(FracBytes(c.length));
      FLOE_RETURN_IF_ERROR(fixed(4 + fb, "TIMESTAMP"));
      uint64_t secs = BigEndian(base + off, 4);
      uint64_t frac = BigEndian(base + off + 4, fb);
      off += 4 + fb;
      int64_t micros = fb == 1   ? static_cast<int64_t>(frac) * 10000
                       : fb == 2 ? static_cast<int64_t>(frac) * 100
                                 : static_cast<int64_t>(frac);
      *out = secs == 0 && micros == 0 ? Value::Null()
                                      : Value::Int64(static_cast<int64_t>(secs) * 1000000 + micros);
      return Ok();
    }
    case column_type::kDateTime: {
      FLOE_RETURN_IF_ERROR(fixed(8, "DATETIME"));
      uint64_t v = LoadLittleEndian<uint64_t>(base + off);
      off += 8;
      uint64_t date = v / 1000000, time = v % 1000000;
      unsigned day = date % 100, month = (date / 100) % 100;
      int64_t year = static_cast<int64_t>(date / 10000);
      if (month == 0 || day == 0 || month > 12) {
        *out = Value::Null();
        return Ok();
      }
      if (year > 9999 || day > 31) {
        return Corruption("binlog: DATETIME value {} is out of range", v);
      }
      int64_t secs =
          DaysFromCivilLocal(year, month, day) * 86400 + static_cast<int64_t>(time / 10000) * 3600 +
          static_cast<int64_t>((time / 100) % 100) * 60 + static_cast<int64_t>(time % 100);
      *out = Value::Int64(secs * 1000000);
      return Ok();
    }
    case column_type::kDateTime2: {
      size_t fb = static_cast<size_t>(FracBytes(c.length));
      FLOE_RETURN_IF_ERROR(fixed(5 + fb, "DATETIME"));
      int64_t packed = static_cast<int64_t>(BigEndian(base + off, 5)) - 0x8000000000LL;
      uint64_t frac = BigEndian(base + off + 5, fb);
      off += 5 + fb;
      int64_t micros = fb == 1   ? static_cast<int64_t>(frac) * 10000
                       : fb == 2 ? static_cast<int64_t>(frac) * 100
                                 : static_cast<int64_t>(frac);
      if (packed < 0) packed = -packed;
      int64_t ymd = packed >> 17, hms = packed & ((1 << 17) - 1);
      int64_t ym = ymd >> 5;
      unsigned day = static_cast<unsigned>(ymd & 31), month = static_cast<unsigned>(ym % 13);
      int64_t year = ym / 13;
      if (month == 0 || day == 0) {
        *out = Value::Null();
        return Ok();
      }
      int64_t secs = DaysFromCivilLocal(year, month, day) * 86400 + (hms >> 12) * 3600 +
                     ((hms >> 6) & 63) * 60 + (hms & 63);
      *out = Value::Int64(secs * 1000000 + micros);
      return Ok();
    }
    case column_type::kTime: {
      FLOE_RETURN_IF_ERROR(fixed(3, "TIME"));
      uint32_t u = base[off] | (uint32_t{base[off + 1]} << 8) | (uint32_t{base[off + 2]} << 16);
      off += 3;
      int32_t v = static_cast<int32_t>(u << 8) >> 8;
      bool neg = v < 0;
      int64_t a = neg ? -int64_t{v} : v;
      int64_t micros = ((a / 10000) * 3600 + ((a / 100) % 100) * 60 + a % 100) * 1000000;
      *out = Value::Int64(neg ? -micros : micros);
      return Ok();
    }
    case column_type::kTime2: {
      size_t fb = static_cast<size_t>(FracBytes(c.length));
      FLOE_RETURN_IF_ERROR(fixed(3 + fb, "TIME"));
      const uint8_t* p = base + off;
      off += 3 + fb;
      int64_t packed = 0;
      if (fb == 0) {
        packed = (static_cast<int64_t>(BigEndian(p, 3)) - 0x800000) * (int64_t{1} << 24);
      } else if (fb == 1) {
        int64_t intpart = static_cast<int64_t>(BigEndian(p, 3)) - 0x800000;
        int64_t frac = p[3];
        if (intpart < 0 && frac) {
          intpart++;
          frac -= 0x100;
        }
        packed = intpart * (int64_t{1} << 24) + frac * 10000;
      } else if (fb == 2) {
        int64_t intpart = static_cast<int64_t>(BigEndian(p, 3)) - 0x800000;
        int64_t frac = static_cast<int64_t>(BigEndian(p + 3, 2));
        if (intpart < 0 && frac) {
          intpart++;
          frac -= 0x10000;
        }
        packed = intpart * (int64_t{1} << 24) + frac * 100;
      } else {
        packed = static_cast<int64_t>(BigEndian(p, 6)) - 0x800000000000LL;
      }
      bool neg = packed < 0;
      if (neg) packed = -packed;
      int64_t hms = packed >> 24, frac = packed % (int64_t{1} << 24);
      int64_t micros =
          (((hms >> 12) & 1023) * 3600 + ((hms >> 6) & 63) * 60 + (hms & 63)) * 1000000 + frac;
      *out = Value::Int64(neg ? -micros : micros);
      return Ok();
    }
    case column_type::kVarchar:
    case column_type::kVarString:
    case column_type::kString: {
      if (c.real_type == column_type::kEnum || c.real_type == column_type::kSet) break;
      size_t len_bytes = c.length > 255 ? 2 : 1;
      FLOE_RETURN_IF_ERROR(fixed(len_bytes, "string length"));
      size_t len = len_bytes == 1 ? base[off] : LoadLittleEndian<uint16_t>(base + off);
      off += len_bytes;
      FLOE_RETURN_IF_ERROR(fixed(len, "string"));
      std::string_view raw(reinterpret_cast<const char*>(base + off), len);
      off += len;
      if (c.is_text()) {
        std::string_view cs = CharsetOfCollation(c.collation == 0 ? 45 : c.collation);
        if (cs == "utf8mb4" || cs == "utf8mb3" || cs == "ascii") {
          *out = Value::Bytes(copy_bytes(reinterpret_cast<const uint8_t*>(raw.data()), len));
        } else {
          scratch_.clear();
          auto st = ConvertToUtf8(cs, raw, &scratch_);
          if (!st) return Corrupt(fmt::format("column '{}': {}", c.name, st.error().message()));
          *out = Value::Bytes(arena->Copy(scratch_));
        }
      } else if (c.type == column_type::kString && len < c.length) {
        // BINARY(n): the server drops trailing zero bytes; restore the padding.
        char* p = static_cast<char*>(arena->Allocate(c.length, 1));
        std::memcpy(p, raw.data(), len);
        std::memset(p + len, 0, c.length - len);
        *out = Value::Bytes({p, c.length});
      } else {
        *out = Value::Bytes(copy_bytes(reinterpret_cast<const uint8_t*>(raw.data()), len));
      }
      return Ok();
    }
    case column_type::kBlob:
    case column_type::kTinyBlob:
    case column_type::kMediumBlob:
    case column_type::kLongBlob:
    case column_type::kGeometry:
    case column_type::kJson: {
      size_t lb = c.length;
      if (lb < 1 || lb > 4) return Corrupt(fmt::format("column '{}': length size {}", c.name, lb));
      FLOE_RETURN_IF_ERROR(fixed(lb, "BLOB length"));
      uint64_t len = 0;
      for (size_t i = 0; i < lb; ++i) len |= uint64_t{base[off + i]} << (8 * i);
      off += lb;
      FLOE_RETURN_IF_ERROR(fixed(len, "BLOB"));
      std::string_view raw(reinterpret_cast<const char*>(base + off), len);
      off += len;
      if (c.type == column_type::kJson) {
        scratch_.clear();
        if (len == 0) {
          scratch_ = "null";
        } else {
          auto st = MySqlJsonToText({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()},
                                    &scratch_);
          if (!st) return Corrupt(fmt::format("column '{}': {}", c.name, st.error().message()));
        }
        *out = Value::Bytes(arena->Copy(scratch_));
      } else if (c.type == column_type::kGeometry) {
        if (len < 4)
          return Corrupt(fmt::format("column '{}': GEOMETRY shorter than its SRID", c.name));
        *out = Value::Bytes(copy_bytes(reinterpret_cast<const uint8_t*>(raw.data()) + 4, len - 4));
      } else if (c.is_text()) {
        std::string_view cs = CharsetOfCollation(c.collation);
        if (cs == "utf8mb4" || cs == "utf8mb3" || cs == "ascii") {
          *out = Value::Bytes(copy_bytes(reinterpret_cast<const uint8_t*>(raw.data()), len));
        } else {
          scratch_.clear();
          auto st = ConvertToUtf8(cs, raw, &scratch_);
          if (!st) return Corrupt(fmt::format("column '{}': {}", c.name, st.error().message()));
          *out = Value::Bytes(arena->Copy(scratch_));
        }
      } else {
        *out = Value::Bytes(copy_bytes(reinterpret_cast<const uint8_t*>(raw.data()), len));
      }
      return Ok();
    }
    case column_type::kEnum:
    case column_type::kSet:
      break;
    default:
      return Corrupt(fmt::format("column '{}' has unknown type {}", c.name, c.type));
  }
  // ENUM / SET (real type).
  size_t n = c.length;
  if (n < 1 || n > 8) return Corrupt(fmt::format("column '{}': ENUM/SET size {}", c.name, n));
  FLOE_RETURN_IF_ERROR(fixed(n, "ENUM/SET"));
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{base[off + i]} << (8 * i);
  off += n;
  if (c.real_type == column_type::kEnum) {
    if (v == 0 || c.enum_values.empty()) {
      *out = v == 0 ? Value::Bytes({}) : Value::Bytes(arena->Copy(std::to_string(v)));
    } else if (v > c.enum_values.size()) {
      return Corrupt(
          fmt::format("column '{}': ENUM index {} of {}", c.name, v, c.enum_values.size()));
    } else {
      const std::string& s = c.enum_values[v - 1];
      *out = Value::Bytes(arena->Copy(s));
    }
    return Ok();
  }
  scratch_.clear();
  if (c.enum_values.empty()) {
    scratch_ = std::to_string(v);
  } else {
    for (size_t i = 0; i < 64 && i < c.enum_values.size(); ++i) {
      if ((v >> i) & 1) {
        if (!scratch_.empty()) scratch_.push_back(',');
        scratch_ += c.enum_values[i];
      }
    }
  }
  *out = Value::Bytes(arena->Copy(scratch_));
  return Ok();
}

}  // namespace floe::cdc::mysql
