// Decoder tests on byte sequences built by hand from the binlog format
// documentation (MySQL libbinlogevents, MariaDB KB event pages), including the
// MySQL 8 events MariaDB never writes (v2 rows with extra data, binary JSON,
// GTID_LOG_EVENT, PREVIOUS_GTIDS).
#include "floe/cdc/mysql/binlog_event.h"
#include "floe/cdc/mysql/binlog_row_image.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

namespace floe::cdc::mysql {
namespace {

using types::Value;
namespace ct = column_type;
namespace et = event_type;

struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Bytes& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& str(std::string_view s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& lenenc(uint64_t v) {
    if (v < 251) return u8(static_cast<uint8_t>(v));
    if (v < 65536) return u8(0xFC).le(v, 2);
    if (v < (1 << 24)) return u8(0xFD).le(v, 3);
    return u8(0xFE).le(v, 8);
  }
  Bytes& lstr(std::string_view s) { return lenenc(s.size()).str(s); }
  Bytes& append(const Bytes& o) {
    b.insert(b.end(), o.b.begin(), o.b.end());
    return *this;
  }
};

// Header + body (+ CRC32 when `crc`). `log_pos` is the end position.
std::vector<uint8_t> Event(uint8_t type, const Bytes& body, uint32_t end_pos, bool crc = true,
                           uint32_t server_id = 1) {
  Bytes e;
  uint32_t size = static_cast<uint32_t>(19 + body.b.size() + (crc ? 4 : 0));
  e.le(1700000000, 4).u8(type).le(server_id, 4).le(size, 4).le(end_pos, 4).le(0, 2).append(body);
  if (crc) {
    uint32_t c = static_cast<uint32_t>(crc32(0, e.b.data(), static_cast<uInt>(e.b.size())));
    e.le(c, 4);
  }
  return e.b;
}

Bytes FdeBody(std::string_view version, uint8_t alg) {
  Bytes b;
  b.le(4, 2);
  std::string v(version);
  v.resize(50, '\0');
  b.str(v).le(0, 4).u8(19);
  // Post-header lengths for event types 1..164 (the values that matter here).
  std::vector<uint8_t> phl(164, 0);
  phl[et::kQuery - 1] = 13;
  phl[et::kRotate - 1] = 8;
  phl[et::kXid - 1] = 0;
  phl[et::kTableMap - 1] = 8;
  for (uint8_t t : {et::kWriteRowsV1, et::kUpdateRowsV1, et::kDeleteRowsV1}) phl[t - 1] = 8;
  for (uint8_t t : {et::kWriteRowsV2, et::kUpdateRowsV2, et::kDeleteRowsV2}) phl[t - 1] = 10;
  phl[et::kGtid - 1] = 42;
  phl[et::kMariaGtid - 1] = 19;
  b.b.insert(b.b.end(), phl.begin(), phl.end());
  b.u8(alg);
  return b;
}

// An FDE with CRC32 checksums (the CRC covers the alg byte).
std::vector<uint8_t> Fde(std::string_view version = "10.11.6-MariaDB-log") {
  return Event(et::kFormatDescription, FdeBody(version, 1), 256);
}

class DecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    decoder_.set_current_file("mariadb-bin.000001");
    auto fde = decoder_.Decode(Fde());
    ASSERT_TRUE(fde) << fde.error().ToString();
    auto& f = std::get<FormatDescriptionEvent>(fde->body);
    EXPECT_EQ(f.checksum, ChecksumAlg::kCrc32);
    EXPECT_TRUE(f.is_mariadb);
  }
  BinlogDecoder decoder_;
  Arena arena_;
};

TEST_F(DecoderTest, RotateQueryXidAndMariaDbGtids) {
  auto rot = decoder_.Decode(Event(et::kRotate, Bytes().le(4, 8).str("mariadb-bin.000002"), 0));
  ASSERT_TRUE(rot) << rot.error().ToString();
  EXPECT_EQ(std::get<RotateEvent>(rot->body).next_file, "mariadb-bin.000002");
  EXPECT_EQ(decoder_.current_file(), "mariadb-bin.000002");

  Bytes q;
  q.le(77, 4)
      .le(0, 4)
      .u8(4)
      .le(0, 2)
      .le(3, 2)
      .str(std::string_view("\x00\x01\x02", 3))
      .str("shop")
      .u8(0)
      .str("ALTER TABLE t ADD c INT");
  auto qbytes = Event(et::kQuery, q, 500);
  auto qe = decoder_.Decode(qbytes);
  ASSERT_TRUE(qe) << qe.error().ToString();
  const auto& query = std::get<QueryEvent>(qe->body);
  EXPECT_EQ(query.thread_id, 77u);
  EXPECT_EQ(query.db, "shop");
  EXPECT_EQ(query.query, "ALTER TABLE t ADD c INT");
  EXPECT_EQ(qe->position, 500u - qe->header.event_size);

  auto xid = decoder_.Decode(Event(et::kXid, Bytes().le(991, 8), 600));
  ASSERT_TRUE(xid);
  EXPECT_EQ(std::get<XidEvent>(xid->body).xid, 991u);

  auto g = decoder_.Decode(
      Event(et::kMariaGtid, Bytes().le(42, 8).le(3, 4).u8(0x01).le(0, 6), 700, true, 9));
  ASSERT_TRUE(g);
  const auto& gtid = std::get<MariaDbGtidEvent>(g->body);
  EXPECT_EQ(gtid.gtid.ToString(), "3-9-42");
  EXPECT_TRUE(gtid.standalone());

  Bytes gl;
  gl.le(2, 4).le(0, 4).le(1, 4).le(100, 8).le(1, 4).le(2, 4).le(7, 8);
  auto list = decoder_.Decode(Event(et::kMariaGtidList, gl, 800));
  ASSERT_TRUE(list);
  EXPECT_EQ(std::get<GtidListEvent>(list->body).gtids.ToString(), "0-1-100,1-2-7");
}

TEST_F(DecoderTest, MySqlGtidAndPreviousGtids) {
  const uint8_t sid[16] = {0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1,
                           0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95, 0x62};
  Bytes g;
  g.u8(1);
  g.b.insert(g.b.end(), sid, sid + 16);
  g.le(23, 8).u8(2).le(5, 8).le(6, 8).le(1700000000123456ull, 7);
  auto e = decoder_.Decode(Event(et::kGtid, g, 900));
  ASSERT_TRUE(e) << e.error().ToString();
  const auto& mg = std::get<MySqlGtidEvent>(e->body);
  EXPECT_EQ(mg.ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:23");
  EXPECT_EQ(mg.last_committed, 5);
  EXPECT_EQ(mg.sequence_number, 6);
  EXPECT_EQ(mg.immediate_commit_timestamp_us, 1700000000123456ull);

  Bytes p;
  p.le(1, 8);
  p.b.insert(p.b.end(), sid, sid + 16);
  p.le(2, 8).le(1, 8).le(6, 8).le(8, 8).le(11, 8);  // [1,6) and [8,11)
  auto pe = decoder_.Decode(Event(et::kPreviousGtids, p, 1000));
  ASSERT_TRUE(pe) << pe.error().ToString();
  EXPECT_EQ(std::get<GtidListEvent>(pe->body).gtids.ToString(),
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:8-10");
}

TEST_F(DecoderTest, ChecksumMismatchIsCorruptionWithPosition) {
  auto ev = Event(et::kXid, Bytes().le(1, 8), 1234);
  ev[20] ^= 0xFF;
  auto r = decoder_.Decode(ev);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(r.error().message().find("mariadb-bin.000001:"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("checksum"), std::string::npos);
}

// A table with one column of every kind floe decodes.
struct AllTypes {
  Bytes table_map;
  uint64_t table_id = 0x0102030405;
};

AllTypes MakeAllTypesTableMap() {
  AllTypes t;
  // columns: 0 id INT, 1 u INT UNSIGNED, 2 tiny TINYINT, 3 med MEDIUMINT, 4 big BIGINT UNSIGNED,
  // 5 dec DECIMAL(10,2), 6 f FLOAT, 7 d DOUBLE, 8 bit BIT(10), 9 y YEAR, 10 dt DATE,
  // 11 dtm DATETIME(6), 12 ts TIMESTAMP(3), 13 tm TIME(2), 14 name VARCHAR(20) latin1,
  // 15 bin BINARY(4), 16 blob BLOB, 17 e ENUM('x','y'), 18 s SET('a','b','c'), 19 js JSON,
  // 20 g GEOMETRY, 21 txt TEXT utf8mb4, 22 b1 BIT(1)
  std::vector<uint8_t> types = {
      ct::kLong,       ct::kLong,   ct::kTiny,     ct::kInt24,  ct::kLongLong, ct::kNewDecimal,
      ct::kFloat,      ct::kDouble, ct::kBit,      ct::kYear,   ct::kDate,     ct::kDateTime2,
      ct::kTimestamp2, ct::kTime2,  ct::kVarchar,  ct::kString, ct::kBlob,     ct::kString,
      ct::kString,     ct::kJson,   ct::kGeometry, ct::kBlob,   ct::kBit};
  Bytes meta;
  meta.u8(10)
      .u8(2)  // DECIMAL(10,2)
      .u8(4)  // FLOAT
      .u8(8)  // DOUBLE
      .u8(2)
      .u8(1)      // BIT(10): 2 bits + 1 byte
      .u8(6)      // DATETIME(6)
      .u8(3)      // TIMESTAMP(3)
      .u8(2)      // TIME(2)
      .le(20, 2)  // VARCHAR(20) latin1: 20 bytes
      .u8(ct::kString)
      .u8(4)  // BINARY(4)
      .u8(2)  // BLOB: 2 length bytes
      .u8(ct::kEnum)
      .u8(1)
      .u8(ct::kSet)
      .u8(1)
      .u8(4)  // JSON
      .u8(4)  // GEOMETRY
      .u8(2)  // TEXT
      .u8(1)
      .u8(0);  // BIT(1)
  Bytes tm;
  tm.le(t.table_id, 6).le(1, 2).u8(4).str("shop").u8(0).u8(3).str("all").u8(0);
  tm.lenenc(types.size());
  tm.b.insert(tm.b.end(), types.begin(), types.end());
  tm.lenenc(meta.b.size()).append(meta);
  tm.le(0x7FFFFE, 3);  // nullable: all but column 0
  // Optional metadata.
  // SIGNEDNESS over numeric columns 0..7 (id,u,tiny,med,big,dec,f,d): u and big unsigned;
  // then MariaDB's bit for YEAR column 9 (MariaDB counts YEAR, and sets it unsigned).
  tm.u8(1).lenenc(2).u8(0b01001000).u8(0b10000000);
  // COLUMN_CHARSET for character columns 14 (latin1=8), 15 (binary=63), 16 (binary), 21
  // (utf8mb4=45) (MariaDB counts GEOMETRY column 20 among them.)
  tm.u8(3).lenenc(5).lenenc(8).lenenc(63).lenenc(63).lenenc(63).lenenc(45);
  Bytes names;
  for (const char* n :
       {"id", "u",  "tiny", "med", "big",  "dec", "f", "d",  "bit", "y",   "dt", "dtm",
        "ts", "tm", "name", "bin", "blob", "e",   "s", "js", "g",   "txt", "b1"}) {
    names.lstr(n);
  }
  tm.u8(4).lenenc(names.b.size()).append(names);
  Bytes sets;
  sets.lenenc(3).lstr("a").lstr("b").lstr("c");
  tm.u8(5).lenenc(sets.b.size()).append(sets);
  Bytes enums;
  enums.lenenc(2).lstr("x").lstr("y");
  tm.u8(6).lenenc(enums.b.size()).append(enums);
  tm.u8(8).lenenc(1).lenenc(0);  // PRIMARY KEY (id)
  t.table_map = tm;
  return t;
}

// MySQL binary JSON for {"a": [1, true, "x"], "b": 2.5}.
Bytes BinaryJsonDoc() {
  // Array [1, true, "x"]: small array, count 3.
  Bytes arr;
  size_t arr_header = 4 + 3 * 3;   // count, size, 3 value entries
  arr.le(3, 2).le(0, 2);           // size patched below
  arr.u8(0x05).le(1, 2);           // int16 1 inlined
  arr.u8(0x04).le(1, 2);           // literal true inlined
  arr.u8(0x0c).le(arr_header, 2);  // string at offset
  arr.u8(1).str("x");
  arr.b[2] = static_cast<uint8_t>(arr.b.size());
  // Object: count 2, keys "a","b".
  Bytes obj;
  size_t header = 4 + 2 * 4 + 2 * 3;
  size_t keys_at = header;
  size_t arr_at = keys_at + 2;
  size_t dbl_at = arr_at + arr.b.size();
  obj.le(2, 2).le(0, 2);
  obj.le(keys_at, 2).le(1, 2).le(keys_at + 1, 2).le(1, 2);
  obj.u8(0x02).le(arr_at, 2);
  obj.u8(0x0b).le(dbl_at, 2);
  obj.str("ab").append(arr);
  double d = 2.5;
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  obj.le(bits, 8);
  obj.b[2] = static_cast<uint8_t>(obj.b.size());
  Bytes doc;
  doc.u8(0x00).append(obj);
  return doc;
}

Bytes AllTypesRow() {
  Bytes r;
  r.u8(0).u8(0).u8(0);                 // NULL bitmap: 23 columns, none null
  r.le(static_cast<uint32_t>(-5), 4);  // id
  r.le(4000000000u, 4);                // u
  r.u8(0x80);                          // tiny = -128
  r.le(0x800000, 3);                   // med = -8388608
  r.le(18446744073709551615ull, 8);    // big
  // DECIMAL(10,2) -1234.56: intg 8 -> 4 bytes (8 digits... 8 = 0*9 + 8 -> 4 bytes), frac 2 -> 1
  // byte
  {
    Bytes d;
    d.be(1234, 4).u8(56);
    d.b[0] ^= 0x80;
    for (auto& x : d.b) x = static_cast<uint8_t>(~x);
    r.append(d);
  }
  float f = 1.5f;
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  r.le(fb, 4);
  double dd = -2.25;
  uint64_t db;
  std::memcpy(&db, &dd, 8);
  r.le(db, 8);
  r.u8(0x02).u8(0x01);                      // BIT(10) = 0b10_0000_0001 big-endian
  r.u8(124);                                // YEAR 2024
  r.le((2024u << 9) | (2u << 5) | 29u, 3);  // DATE 2024-02-29
  {
    // DATETIME(6) 2024-02-29 13:45:07.123456
    uint64_t ym = 2024 * 13 + 2;
    uint64_t ymd = (ym << 5) | 29;
    uint64_t hms = (13 << 12) | (45 << 6) | 7;
    uint64_t packed = ((ymd << 17) | hms) + 0x8000000000ull;
    r.be(packed, 5).be(123456, 3);
  }
  r.be(1700000000, 4).be(123, 2);  // TIMESTAMP(3): .123 -> 1230 in 2 bytes? see below
  // TIME(2) = -838:59:59.50
  {
    int64_t intpart = -((838 << 12) | (59 << 6) | 59);
    int64_t frac = -50;
    // Stored as: intpart' = intpart - 1 (when frac != 0), frac' = frac + 0x100
    r.be(static_cast<uint64_t>(intpart - 1 + 0x800000), 3).u8(static_cast<uint8_t>(frac + 0x100));
  }
  r.u8(3).str("\xe9t\xe9");                             // VARCHAR latin1 "été"
  r.u8(2).str("ab");                                    // BINARY(4) 'ab' (padding stripped)
  r.le(3, 2).str(std::string_view("\x00\x01\x02", 3));  // BLOB
  r.u8(2);                                              // ENUM 'y'
  r.u8(0b101);                                          // SET 'a,c'
  Bytes json = BinaryJsonDoc();
  r.le(json.b.size(), 4).append(json);                     // JSON
  r.le(4 + 5, 4).le(4326, 4).str("\x01\x02\x03\x04\x05");  // GEOMETRY: SRID + WKB
  r.le(4, 2).str("\xf0\x9f\x98\x80");                      // TEXT utf8mb4 emoji
  r.u8(1);                                                 // BIT(1)
  return r;
}

TEST_F(DecoderTest, TableMapWithFullMetadataAndEveryColumnType) {
  AllTypes t = MakeAllTypesTableMap();
  auto tm = decoder_.Decode(Event(et::kTableMap, t.table_map, 2000));
  ASSERT_TRUE(tm) << tm.error().ToString();
  const TableMapEvent* map = std::get<const TableMapEvent*>(tm->body);
  EXPECT_EQ(map->db, "shop");
  EXPECT_EQ(map->table, "all");
  ASSERT_EQ(map->columns.size(), 23u);
  EXPECT_TRUE(map->has_full_metadata);
  EXPECT_EQ(map->columns[1].name, "u");
  EXPECT_TRUE(map->columns[1].is_unsigned);
  EXPECT_FALSE(map->columns[0].is_unsigned);
  EXPECT_FALSE(map->columns[0].nullable);
  EXPECT_EQ(map->columns[15].real_type, ct::kString);
  EXPECT_EQ(map->columns[17].real_type, ct::kEnum);
  EXPECT_EQ(map->columns[18].enum_values.size(), 3u);
  EXPECT_EQ(map->columns[14].collation, 8u);
  EXPECT_EQ(map->primary_key, std::vector<uint32_t>{0});

  // The same row as MariaDB's v1 event and MySQL's v2 event with extra data.
  for (int version : {1, 2}) {
    Bytes rows;
    rows.le(t.table_id, 6).le(1, 2);
    if (version == 2) rows.le(2 + 3, 2).u8(0).u8(1).u8(0xAA);  // extra data (ignored)
    rows.lenenc(23).u8(0xFF).u8(0xFF).u8(0x7F).append(AllTypesRow());
    auto rbytes = Event(version == 1 ? et::kWriteRowsV1 : et::kWriteRowsV2, rows, 3000);
    auto re = decoder_.Decode(rbytes);
    ASSERT_TRUE(re) << re.error().ToString();
    const auto& rev = std::get<RowsEvent>(re->body);
    EXPECT_EQ(rev.version, version);
    EXPECT_EQ(rev.extra_data.size(), version == 2 ? 3u : 0u);
    RowImageDecoder rd;
    auto reset = rd.Reset(*map, rev, "mariadb-bin.000001:3000");
    ASSERT_TRUE(reset) << reset.error().ToString();
    types::Row before, after;
    auto more = rd.Next(&arena_, &before, &after);
    ASSERT_TRUE(more) << more.error().ToString();
    ASSERT_TRUE(*more);
    ASSERT_EQ(after.size(), 23u);
    EXPECT_EQ(after[0].i32, -5);
    EXPECT_EQ(after[1].kind, Value::Kind::kInt64);
    EXPECT_EQ(after[1].i64, 4000000000);
    EXPECT_EQ(after[2].i32, -128);
    EXPECT_EQ(after[3].i32, -8388608);
    EXPECT_EQ(after[4].kind, Value::Kind::kDecimal);
    EXPECT_TRUE(after[4].decimal == static_cast<types::int128_t>(18446744073709551615ull));
    EXPECT_TRUE(after[5].decimal == -123456);
    EXPECT_EQ(after[6].f32, 1.5f);
    EXPECT_EQ(after[7].f64, -2.25);
    EXPECT_EQ(after[8].as_bytes(), std::string_view("\x02\x01", 2));
    EXPECT_EQ(after[9].i32, 2024);
    EXPECT_EQ(after[10].i32, 19782);  // 2024-02-29
    EXPECT_EQ(after[11].i64, (19782LL * 86400 + 13 * 3600 + 45 * 60 + 7) * 1000000 + 123456);
    EXPECT_EQ(after[12].i64, 1700000000LL * 1000000 + 12300);  // 3-digit fsp: 2 bytes x 100
    EXPECT_EQ(after[13].i64, -((838LL * 3600 + 59 * 60 + 59) * 1000000 + 500000));
    EXPECT_EQ(after[14].as_bytes(), "\xc3\xa9t\xc3\xa9");
    EXPECT_EQ(after[15].as_bytes(), std::string_view("ab\0\0", 4));
    EXPECT_EQ(after[16].as_bytes(), std::string_view("\x00\x01\x02", 3));
    EXPECT_EQ(after[17].as_bytes(), "y");
    EXPECT_EQ(after[18].as_bytes(), "a,c");
    EXPECT_EQ(after[19].as_bytes(), "{\"a\":[1,true,\"x\"],\"b\":2.5}");
    EXPECT_EQ(after[20].as_bytes(), "\x01\x02\x03\x04\x05");
    EXPECT_EQ(after[21].as_bytes(), "\xf0\x9f\x98\x80");
    EXPECT_EQ(after[22].kind, Value::Kind::kBool);
    EXPECT_TRUE(after[22].b);
    auto end = rd.Next(&arena_, &before, &after);
    ASSERT_TRUE(end);
    EXPECT_FALSE(*end);
  }
}

TEST_F(DecoderTest, UpdateRowsNullsZeroDatesAndPartialImages) {
  // t(id INT, d DATE NULL, dt DATETIME(0) NULL)
  Bytes tm;
  tm.le(7, 6).le(1, 2).u8(1).str("d").u8(0).u8(1).str("t").u8(0);
  tm.lenenc(3).u8(ct::kLong).u8(ct::kDate).u8(ct::kDateTime2);
  tm.lenenc(1).u8(0);
  tm.u8(0b110);
  auto tme = decoder_.Decode(Event(et::kTableMap, tm, 100));
  ASSERT_TRUE(tme) << tme.error().ToString();
  const TableMapEvent* map = std::get<const TableMapEvent*>(tme->body);
  Bytes rows;
  rows.le(7, 6).le(1, 2).lenenc(3).u8(0x07).u8(0x07);
  // before: id=1, d=0000-00-00, dt NULL
  rows.u8(0b100).le(1, 4).le(0, 3);
  // after: id=1, d NULL, dt 0000-00-00 00:00:00
  rows.u8(0b010).le(1, 4).be(0x8000000000ull, 5);
  auto ubytes = Event(et::kUpdateRowsV1, rows, 200);
  auto ue = decoder_.Decode(ubytes);
  ASSERT_TRUE(ue) << ue.error().ToString();
  RowImageDecoder rd;
  ASSERT_TRUE(rd.Reset(*map, std::get<RowsEvent>(ue->body), "f:1"));
  types::Row before, after;
  auto more = rd.Next(&arena_, &before, &after);
  ASSERT_TRUE(more) << more.error().ToString();
  ASSERT_TRUE(*more);
  EXPECT_EQ(before[0].i32, 1);
  EXPECT_TRUE(before[1].is_null());  // zero date
  EXPECT_TRUE(before[2].is_null());
  EXPECT_TRUE(after[1].is_null());
  EXPECT_TRUE(after[2].is_null());  // zero datetime

  // A partial image (binlog_row_image=MINIMAL) is refused with the setting to fix.
  Bytes partial;
  partial.le(7, 6).le(1, 2).lenenc(3).u8(0x01).u8(0x07).u8(0).le(1, 4).u8(0).le(1, 4).le(0, 3).le(
      0, 5);
  auto pbytes = Event(et::kUpdateRowsV1, partial, 300);
  auto pe = decoder_.Decode(pbytes);
  ASSERT_TRUE(pe);
  auto st = rd.Reset(*map, std::get<RowsEvent>(pe->body), "f:2");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(st.error().message().find("binlog_row_image"), std::string::npos);
}

TEST_F(DecoderTest, TruncatedRowIsCorruption) {
  AllTypes t = MakeAllTypesTableMap();
  auto tm = decoder_.Decode(Event(et::kTableMap, t.table_map, 2000));
  ASSERT_TRUE(tm);
  const TableMapEvent* map = std::get<const TableMapEvent*>(tm->body);
  Bytes row = AllTypesRow();
  for (size_t cut : {size_t{1}, size_t{5}, row.b.size() / 2, row.b.size() - 1}) {
    Bytes rows;
    rows.le(t.table_id, 6).le(1, 2).lenenc(23).u8(0xFF).u8(0xFF).u8(0x7F);
    rows.b.insert(rows.b.end(), row.b.begin(), row.b.begin() + static_cast<long>(cut));
    auto rbytes = Event(et::kWriteRowsV1, rows, 3000);
    auto re = decoder_.Decode(rbytes);
    ASSERT_TRUE(re);
    RowImageDecoder rd;
    ASSERT_TRUE(rd.Reset(*map, std::get<RowsEvent>(re->body), "mariadb-bin.000001:2900"));
    types::Row before, after;
    auto r = rd.Next(&arena_, &before, &after);
    ASSERT_FALSE(r) << "cut " << cut;
    EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
    EXPECT_NE(r.error().message().find("mariadb-bin.000001:2900"), std::string::npos);
  }
  // A truncated TABLE_MAP too.
  for (size_t cut = 1; cut < t.table_map.b.size(); cut += 7) {
    Bytes tm2;
    tm2.b.assign(t.table_map.b.begin(), t.table_map.b.begin() + static_cast<long>(cut));
    auto r = decoder_.Decode(Event(et::kTableMap, tm2, 5000));
    if (!r) {
      EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
    }
  }
}

// ---------------------------------------------------------------------------
// The SIGNEDNESS optional metadata has one bit per column the server counts as
// numeric. MySQL 8 counts TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT, DECIMAL,
// FLOAT and DOUBLE; MariaDB counts YEAR as well. A decoder that counts one
// column too many or too few gives every later integer its neighbour's flag.
// These tests build TABLE_MAPs the way each server does, with every column
// type before and after every integer column (signed and unsigned, values
// with the top bit set), and check every decoded value.

struct ColumnCase {
  std::string name;
  uint8_t type = 0;
  Bytes meta;                // the column's TABLE_MAP metadata
  Bytes value;               // its bytes in the row image
  Value expected;            // what the decoder must give
  bool in_mysql = false;     // counted in MySQL 8's SIGNEDNESS bitmap
  bool in_mariadb = false;   // counted in MariaDB's
  bool is_unsigned = false;  // integer columns: the column's flag
  bool is_integer = false;
};

// The integer columns, each signed and unsigned, with the same bytes: a value
// whose top bit is set, so a wrong flag changes the decoded value.
std::vector<ColumnCase> IntegerCases() {
  std::vector<ColumnCase> out;
  auto add = [&](const char* name, uint8_t type, int bytes, Value as_signed, Value as_unsigned) {
    for (bool u : {false, true}) {
      ColumnCase c;
      c.name = std::string(name) + (u ? " UNSIGNED" : "");
      c.type = type;
      c.value.le(~uint64_t{6}, bytes);  // -7 in two's complement
      c.expected = u ? as_unsigned : as_signed;
      c.in_mysql = c.in_mariadb = true;
      c.is_unsigned = u;
      c.is_integer = true;
      out.push_back(std::move(c));
    }
  };
  add("TINYINT", ct::kTiny, 1, Value::Int32(-7), Value::Int32(249));
  add("SMALLINT", ct::kShort, 2, Value::Int32(-7), Value::Int32(65529));
  add("MEDIUMINT", ct::kInt24, 3, Value::Int32(-7), Value::Int32(16777209));
  add("INT", ct::kLong, 4, Value::Int32(-7), Value::Int64(4294967289LL));
  add("BIGINT", ct::kLongLong, 8, Value::Int64(-7),
      Value::Decimal(static_cast<types::int128_t>(18446744073709551609ull)));
  return out;
}

// Every other column type floe decodes, with one value each.
std::vector<ColumnCase> OtherCases() {
  std::vector<ColumnCase> out = IntegerCases();
  auto add = [&](const char* name, uint8_t type, Bytes meta, Bytes value, Value expected,
                 bool in_mysql, bool in_mariadb) {
    ColumnCase c;
    c.name = name;
    c.type = type;
    c.meta = std::move(meta);
    c.value = std::move(value);
    c.expected = expected;
    c.in_mysql = in_mysql;
    c.in_mariadb = in_mariadb;
    out.push_back(std::move(c));
  };
  {
    Bytes d;  // DECIMAL(10,2) -1234.56
    d.be(1234, 4).u8(56);
    d.b[0] ^= 0x80;
    for (auto& x : d.b) x = static_cast<uint8_t>(~x);
    add("DECIMAL(10,2)", ct::kNewDecimal, Bytes().u8(10).u8(2), d, Value::Decimal(-123456), true,
        true);
  }
  float f = -1.5f;
  uint32_t fb;
  std::memcpy(&fb, &f, 4);
  add("FLOAT", ct::kFloat, Bytes().u8(4), Bytes().le(fb, 4), Value::Float(f), true, true);
  double dd = -2.25;
  uint64_t db;
  std::memcpy(&db, &dd, 8);
  add("DOUBLE", ct::kDouble, Bytes().u8(8), Bytes().le(db, 8), Value::Double(dd), true, true);
  add("YEAR", ct::kYear, Bytes(), Bytes().u8(101), Value::Int32(2001), false, true);
  add("BIT(10)", ct::kBit, Bytes().u8(2).u8(1), Bytes().u8(0x02).u8(0x01),
      Value::Bytes(std::string_view("\x02\x01", 2)), false, false);
  add("BIT(1)", ct::kBit, Bytes().u8(1).u8(0), Bytes().u8(1), Value::Bool(true), false, false);
  add("DATE", ct::kDate, Bytes(), Bytes().le((2024u << 9) | (2u << 5) | 29u, 3),
      Value::Int32(19782), false, false);
  {
    uint64_t ymd = ((2024 * 13 + 2) << 5) | 29;
    uint64_t hms = (13 << 12) | (45 << 6) | 7;
    add("DATETIME(6)", ct::kDateTime2, Bytes().u8(6),
        Bytes().be(((ymd << 17) | hms) + 0x8000000000ull, 5).be(123456, 3),
        Value::Int64((19782LL * 86400 + 13 * 3600 + 45 * 60 + 7) * 1000000 + 123456), false, false);
  }
  add("DATETIME (old format)", ct::kDateTime, Bytes(), Bytes().le(20240229134507ull, 8),
      Value::Int64((19782LL * 86400 + 13 * 3600 + 45 * 60 + 7) * 1000000), false, false);
  add("TIMESTAMP(3)", ct::kTimestamp2, Bytes().u8(3), Bytes().be(1700000000, 4).be(123, 2),
      Value::Int64(1700000000LL * 1000000 + 12300), false, false);
  add("TIMESTAMP (old format)", ct::kTimestamp, Bytes(), Bytes().le(1700000000, 4),
      Value::Int64(1700000000LL * 1000000), false, false);
  add("TIME(0) 25:00:00", ct::kTime2, Bytes().u8(0), Bytes().be((25 << 12) + 0x800000, 3),
      Value::Int64(25LL * 3600 * 1000000), false, false);
  add("TIME (old format) -838:59:59", ct::kTime, Bytes(),
      Bytes().le(static_cast<uint32_t>(-8385959) & 0xFFFFFF, 3),
      Value::Int64(-(838LL * 3600 + 59 * 60 + 59) * 1000000), false, false);
  add("VARCHAR(20)", ct::kVarchar, Bytes().le(20, 2), Bytes().u8(3).str("abc"), Value::Bytes("abc"),
      false, false);
  add("CHAR(4)", ct::kString, Bytes().u8(ct::kString).u8(4), Bytes().u8(2).str("ab"),
      Value::Bytes("ab"), false, false);
  add("BLOB", ct::kBlob, Bytes().u8(2), Bytes().le(3, 2).str(std::string_view("\x00\x01\xff", 3)),
      Value::Bytes(std::string_view("\x00\x01\xff", 3)), false, false);
  add("ENUM", ct::kString, Bytes().u8(ct::kEnum).u8(1), Bytes().u8(2), Value::Bytes("2"), false,
      false);
  add("SET", ct::kString, Bytes().u8(ct::kSet).u8(1), Bytes().u8(0b101), Value::Bytes("5"), false,
      false);
  add("JSON", ct::kJson, Bytes().u8(4), Bytes().le(2, 4).u8(0x04).u8(0x01), Value::Bytes("true"),
      false, false);
  add("GEOMETRY", ct::kGeometry, Bytes().u8(4), Bytes().le(7, 4).le(0, 4).str("\x01\x02\x03"),
      Value::Bytes("\x01\x02\x03"), false, false);
  return out;
}

// Decodes one row of a table (id BIGINT, columns..., z TINYINT UNSIGNED) whose
// TABLE_MAP carries the SIGNEDNESS bitmap the server would write. A column
// that is counted but is not an integer gets the flag opposite to `hint`, so
// that a shifted bitmap shows.
void CheckRow(BinlogDecoder& decoder, bool mariadb, uint64_t table_id,
              const std::vector<const ColumnCase*>& middle, bool hint, Arena* arena,
              const std::string& what) {
  ColumnCase id;
  id.name = "id BIGINT";
  id.type = ct::kLongLong;
  id.value.le(static_cast<uint64_t>(-3), 8);
  id.expected = Value::Int64(-3);
  id.in_mysql = id.in_mariadb = id.is_integer = true;
  ColumnCase z;
  z.name = "z TINYINT UNSIGNED";
  z.type = ct::kTiny;
  z.value.u8(0xFE);
  z.expected = Value::Int32(254);
  z.in_mysql = z.in_mariadb = z.is_integer = z.is_unsigned = true;
  std::vector<const ColumnCase*> cols = {&id};
  cols.insert(cols.end(), middle.begin(), middle.end());
  cols.push_back(&z);

  Bytes tm;
  tm.le(table_id, 6).le(1, 2).u8(1).str("d").u8(0).u8(1).str("t").u8(0);
  tm.lenenc(cols.size());
  Bytes meta;
  for (const ColumnCase* c : cols) {
    tm.u8(c->type);
    meta.append(c->meta);
  }
  tm.lenenc(meta.b.size()).append(meta);
  tm.le(0, (cols.size() + 7) / 8);  // nullable bitmap: all NOT NULL
  std::vector<bool> bits;
  for (const ColumnCase* c : cols) {
    if (mariadb ? c->in_mariadb : c->in_mysql)
      bits.push_back(c->is_integer ? c->is_unsigned : !hint);
  }
  Bytes bitmap;
  for (size_t i = 0; i < bits.size(); i += 8) {
    uint8_t byte = 0;
    for (size_t k = 0; k < 8 && i + k < bits.size(); ++k) {
      if (bits[i + k]) byte |= static_cast<uint8_t>(0x80 >> k);
    }
    bitmap.u8(byte);
  }
  tm.u8(1).lenenc(bitmap.b.size()).append(bitmap);
  auto tme = decoder.Decode(Event(et::kTableMap, tm, 1000));
  ASSERT_TRUE(tme) << what << ": " << tme.error().ToString();
  const TableMapEvent* map = std::get<const TableMapEvent*>(tme->body);

  Bytes rows;
  rows.le(table_id, 6).le(1, 2);
  if (!mariadb) rows.le(2, 2);  // MySQL: v2 rows, no extra data
  rows.lenenc(cols.size());
  for (size_t i = 0; i < (cols.size() + 7) / 8; ++i) rows.u8(0xFF);  // every column present
  rows.le(0, (cols.size() + 7) / 8);                                 // no NULLs
  for (const ColumnCase* c : cols) rows.append(c->value);
  auto re = decoder.Decode(Event(mariadb ? et::kWriteRowsV1 : et::kWriteRowsV2, rows, 2000));
  ASSERT_TRUE(re) << what << ": " << re.error().ToString();
  RowImageDecoder rd;
  auto reset = rd.Reset(*map, std::get<RowsEvent>(re->body), "f:2000");
  ASSERT_TRUE(reset) << what << ": " << reset.error().ToString();
  types::Row before, after;
  auto more = rd.Next(arena, &before, &after);
  ASSERT_TRUE(more) << what << ": " << more.error().ToString();
  ASSERT_TRUE(*more) << what;
  ASSERT_EQ(after.size(), cols.size()) << what;
  for (size_t i = 0; i < cols.size(); ++i) {
    EXPECT_TRUE(types::SameValue(after[i], cols[i]->expected))
        << what << ": column " << i << " (" << cols[i]->name << ") decoded wrong";
  }
}

void CheckEveryTypeAroundEveryInteger(bool mariadb) {
  BinlogDecoder decoder;
  decoder.set_current_file("bin.000001");
  auto fde = decoder.Decode(Fde(mariadb ? "10.11.6-MariaDB-log" : "8.0.36"));
  ASSERT_TRUE(fde) << fde.error().ToString();
  ASSERT_EQ(std::get<FormatDescriptionEvent>(fde->body).is_mariadb, mariadb);
  Arena arena;
  uint64_t table_id = 100;
  auto integers = IntegerCases();
  auto others = OtherCases();
  for (const ColumnCase& i : integers) {
    for (const ColumnCase& x : others) {
      for (bool x_first : {true, false}) {
        std::vector<const ColumnCase*> middle = x_first ? std::vector<const ColumnCase*>{&x, &i}
                                                        : std::vector<const ColumnCase*>{&i, &x};
        std::string what = std::string(mariadb ? "MariaDB" : "MySQL 8") + " table (id, " +
                           middle[0]->name + ", " + middle[1]->name + ", z)";
        CheckRow(decoder, mariadb, table_id++, middle, i.is_unsigned, &arena, what);
      }
    }
  }
}

TEST(SignednessTest, MariaDbCountsYearEveryTypeAroundEveryInteger) {
  CheckEveryTypeAroundEveryInteger(/*mariadb=*/true);
}

TEST(SignednessTest, MySql8SkipsYearEveryTypeAroundEveryInteger) {
  CheckEveryTypeAroundEveryInteger(/*mariadb=*/false);
}

// The reproducer: MariaDB, t(id BIGINT PRIMARY KEY, y YEAR, k TINYINT,
// i INT), INSERT (2, 2001, -5, -7); the bitmap has bits for id, y (unsigned),
// k, i. k decoded as 251 before the fix.
TEST(SignednessTest, MariaDbYearBeforeSignedIntegers) {
  BinlogDecoder decoder;
  decoder.set_current_file("mariadb-bin.000001");
  ASSERT_TRUE(decoder.Decode(Fde("10.11.6-MariaDB-log")));
  Bytes tm;
  tm.le(9, 6).le(1, 2).u8(1).str("d").u8(0).u8(1).str("t").u8(0);
  tm.lenenc(4).u8(ct::kLongLong).u8(ct::kYear).u8(ct::kTiny).u8(ct::kLong);
  tm.lenenc(0).u8(0b1110);
  tm.u8(1).lenenc(1).u8(0b01000000);  // id signed, y unsigned, k signed, i signed
  auto tme = decoder.Decode(Event(et::kTableMap, tm, 100));
  ASSERT_TRUE(tme) << tme.error().ToString();
  const TableMapEvent* map = std::get<const TableMapEvent*>(tme->body);
  EXPECT_FALSE(map->columns[2].is_unsigned);
  EXPECT_FALSE(map->columns[3].is_unsigned);
  Bytes rows;
  rows.le(9, 6).le(1, 2).lenenc(4).u8(0x0F).u8(0);
  rows.le(2, 8).u8(101).u8(static_cast<uint8_t>(-5)).le(static_cast<uint32_t>(-7), 4);
  auto re = decoder.Decode(Event(et::kWriteRowsV1, rows, 200));
  ASSERT_TRUE(re) << re.error().ToString();
  RowImageDecoder rd;
  ASSERT_TRUE(rd.Reset(*map, std::get<RowsEvent>(re->body), "f:1"));
  Arena arena;
  types::Row before, after;
  auto more = rd.Next(&arena, &before, &after);
  ASSERT_TRUE(more && *more);
  EXPECT_TRUE(types::SameValue(after[1], Value::Int32(2001)));
  EXPECT_TRUE(types::SameValue(after[2], Value::Int32(-5)));
  EXPECT_TRUE(types::SameValue(after[3], Value::Int32(-7)));
}

TEST(BinaryDecimalTest, KnownEncodings) {
  // 1234567890.1234 as DECIMAL(14,4): intg 10 = 1 full group (9) + 1 digit (1 byte); frac 4 -> 2
  // bytes.
  Bytes d;
  d.u8(1).be(234567890, 4).be(1234, 2);
  d.b[0] ^= 0x80;
  types::int128_t v = 0;
  std::string text;
  auto used = DecodeBinaryDecimal(d.b, 14, 4, &v, &text);
  ASSERT_TRUE(used);
  EXPECT_EQ(*used, 7u);
  EXPECT_TRUE(v == static_cast<types::int128_t>(12345678901234LL));
  // DECIMAL(65,30) -> text.
  std::vector<uint8_t> big(30, 0);
  big[0] = 0x80;  // +0
  used = DecodeBinaryDecimal(big, 65, 30, &v, &text);
  ASSERT_TRUE(used);
  EXPECT_EQ(*used, 30u);
  EXPECT_EQ(text, "0.000000000000000000000000000000");
  EXPECT_FALSE(DecodeBinaryDecimal(std::span<const uint8_t>(big).subspan(0, 3), 65, 30, &v, &text));
}

TEST(MySqlJsonTest, ScalarsAndOpaque) {
  std::string out;
  std::vector<uint8_t> lit = {0x04, 0x00};
  ASSERT_TRUE(MySqlJsonToText(lit, &out));
  EXPECT_EQ(out, "null");
  out.clear();
  std::vector<uint8_t> s = {0x0c, 0x03, 'a', '"', 'b'};
  ASSERT_TRUE(MySqlJsonToText(s, &out));
  EXPECT_EQ(out, "\"a\\\"b\"");
  out.clear();
  std::vector<uint8_t> bad = {0x0c, 0x09, 'a'};
  EXPECT_FALSE(MySqlJsonToText(bad, &out));
  std::vector<uint8_t> deep;
  for (int i = 0; i < 500; ++i) {
    // nested small arrays of one element each, offsets to the next
    deep.insert(deep.end(), {0x02});
  }
  out.clear();
  EXPECT_FALSE(MySqlJsonToText(deep, &out));
}

TEST(CharsetTest, ConvertsToUtf8) {
  EXPECT_EQ(CharsetOfCollation(8), "latin1");
  EXPECT_EQ(CharsetOfCollation(255), "utf8mb4");
  EXPECT_EQ(CharsetOfCollation(1069), "utf8mb4");  // MariaDB utf8mb4_general_nopad_ci
  EXPECT_EQ(CharsetOfCollation(63), "binary");
  std::string out;
  ASSERT_TRUE(ConvertToUtf8("latin1", "\x80\xe9", &out));
  EXPECT_EQ(out, "\xe2\x82\xac\xc3\xa9");
  out.clear();
  ASSERT_TRUE(ConvertToUtf8("utf16", std::string_view("\xd8\x3d\xde\x00", 4), &out));
  EXPECT_EQ(out, "\xf0\x9f\x98\x80");
  EXPECT_FALSE(ConvertToUtf8("sjis", "x", &out));
}

}  // namespace
}  // namespace floe::cdc::mysql
