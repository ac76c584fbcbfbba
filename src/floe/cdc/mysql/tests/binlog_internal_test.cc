// The binlog decoder's pieces on their own: one event body decoder at a time,
// on hand-made bodies (no header, no checksum), and the TABLE_MAP metadata
// readers.
#include "floe/cdc/mysql/binlog_internal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::cdc::mysql::binlog_internal {
namespace {

namespace ct = column_type;
namespace et = event_type;

struct Body {
  std::vector<uint8_t> b;
  Body& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Body& le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Body& str(std::string_view s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Body& lstr(std::string_view s) { return u8(static_cast<uint8_t>(s.size())).str(s); }
  Reader reader() const { return Reader(b); }
};

TEST(BinlogBodyTest, XidAndTruncatedXid) {
  Body body;
  body.le(0x0102030405060708ull, 8);
  Reader r = body.reader();
  EventContext ctx{"bin.000001", 120, et::kXid};
  auto x = DecodeXid(r, ctx);
  ASSERT_TRUE(x) << x.error().ToString();
  EXPECT_EQ(x->xid, 0x0102030405060708ull);

  Body short_body;
  short_body.le(1, 4);
  Reader r2 = short_body.reader();
  auto bad = DecodeXid(r2, ctx);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(bad.error().message().find("bin.000001:120"), std::string::npos);
  EXPECT_NE(bad.error().message().find("truncated XID event (type 16)"), std::string::npos);
}

TEST(BinlogBodyTest, UnknownFileIsAQuestionMark) {
  EventContext ctx{"", 4, et::kRotate};
  EXPECT_NE(ctx.Fail("x").error().message().find("binlog ?:4: x"), std::string::npos);
}

TEST(BinlogBodyTest, MySqlGtidWithLogicalTimestamps) {
  Body body;
  body.u8(1);
  for (int i = 0; i < 16; ++i) body.u8(static_cast<uint8_t>(0x10 + i));
  body.le(42, 8).u8(2).le(7, 8).le(8, 8).le(1700000000123456ull | (uint64_t{1} << 55), 7);
  Reader r = body.reader();
  auto g = DecodeMySqlGtid(r, EventContext{"f", 0, et::kGtid});
  ASSERT_TRUE(g) << g.error().ToString();
  EXPECT_EQ(g->ToString(), "10111213-1415-1617-1819-1a1b1c1d1e1f:42");
  EXPECT_EQ(g->last_committed, 7);
  EXPECT_EQ(g->sequence_number, 8);
  EXPECT_EQ(g->immediate_commit_timestamp_us, 1700000000123456ull);

  Reader r2 = body.reader();
  auto anon = DecodeMySqlGtid(r2, EventContext{"f", 0, et::kAnonymousGtid});
  ASSERT_TRUE(anon);
  EXPECT_TRUE(anon->anonymous);
  EXPECT_EQ(anon->ToString(), "");
}

TEST(BinlogBodyTest, MariaDbGtidAndGtidList) {
  Body gtid;
  gtid.le(99, 8).le(3, 4).u8(0x03).le(555, 8);
  Reader r = gtid.reader();
  auto g = DecodeMariaDbGtid(r, EventContext{"f", 0, et::kMariaGtid}, 11);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->gtid.domain_id, 3u);
  EXPECT_EQ(g->gtid.server_id, 11u);
  EXPECT_EQ(g->gtid.sequence, 99u);
  EXPECT_TRUE(g->standalone());
  EXPECT_EQ(g->commit_id, 555u);

  Body list;
  list.le(2, 4).le(0, 4).le(1, 4).le(10, 8).le(1, 4).le(2, 4).le(20, 8);
  Reader r2 = list.reader();
  auto l = DecodeMariaDbGtidList(r2, EventContext{"f", 0, et::kMariaGtidList});
  ASSERT_TRUE(l) << l.error().ToString();
  EXPECT_EQ(l->gtids.ToString(), "0-1-10,1-2-20");

  Body too_many;
  too_many.le(5, 4).le(0, 4);
  Reader r3 = too_many.reader();
  EXPECT_FALSE(DecodeMariaDbGtidList(r3, EventContext{"f", 0, et::kMariaGtidList}));
}

TEST(BinlogBodyTest, QuerySkipsStatusVariables) {
  Body body;
  body.le(7, 4).le(0, 4).u8(4).le(0, 2).le(3, 2);  // post-header of 13 bytes
  body.u8(0xAA).u8(0xBB).u8(0xCC);                 // status variables
  body.str("shop").u8(0).str("CREATE TABLE t (a INT)");
  Reader r = body.reader();
  auto q = DecodeQuery(r, EventContext{"f", 0, et::kQuery}, 13);
  ASSERT_TRUE(q) << q.error().ToString();
  EXPECT_EQ(q->thread_id, 7u);
  EXPECT_EQ(q->db, "shop");
  EXPECT_EQ(q->query, "CREATE TABLE t (a INT)");
}

TEST(BinlogBodyTest, RowsV2UpdateHasTwoBitmaps) {
  Body body;
  body.le(77, 6).le(1, 2).le(2, 2).u8(2).u8(0x03).u8(0x03).str("rowbytes");
  Reader r = body.reader();
  auto e = DecodeRows(r, EventContext{"f", 0, et::kUpdateRowsV2}, 10);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->kind, RowsKind::kUpdate);
  EXPECT_EQ(e->version, 2);
  EXPECT_EQ(e->table_id, 77u);
  EXPECT_TRUE(e->end_of_statement());
  EXPECT_EQ(e->column_count, 2u);
  EXPECT_EQ(e->rows.size(), 8u);

  Body v1;
  v1.le(77, 6).le(0, 2).u8(1).u8(0x01).str("x");
  Reader r2 = v1.reader();
  auto d = DecodeRows(r2, EventContext{"f", 0, et::kDeleteRowsV1}, 8);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, RowsKind::kDelete);
  EXPECT_EQ(d->version, 1);
  EXPECT_EQ(d->columns_after.data(), d->columns_before.data());
}

TEST(BinlogBodyTest, RowsQueryAndAnnotateRows) {
  Body rq;
  rq.u8(5).str("INSERT");
  Reader r = rq.reader();
  auto q = DecodeRowsQuery(r, EventContext{"f", 0, et::kRowsQuery});
  ASSERT_TRUE(q);
  EXPECT_EQ(q->query, "INSERT");  // the length byte is skipped, the text runs to the end
  Reader r2 = rq.reader();
  auto a = DecodeRowsQuery(r2, EventContext{"f", 0, et::kMariaAnnotateRows});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->query.size(), 7u);
}

TEST(BinlogTableMapTest, ColumnMetadataPerType) {
  TableMapEvent t;
  t.db = "d";
  t.table = "t";
  t.columns.resize(4);
  uint8_t types[] = {ct::kVarchar, ct::kNewDecimal, ct::kString, ct::kDateTime2};
  for (int i = 0; i < 4; ++i) t.columns[i].type = t.columns[i].real_type = types[i];
  Body meta;
  meta.le(300, 2).u8(12).u8(2).u8(ct::kEnum).u8(2).u8(6);
  auto st = DecodeColumnMetadata(meta.b, EventContext{"f", 0, et::kTableMap}, &t);
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(t.columns[0].length, 300u);
  EXPECT_EQ(t.columns[1].length, 12u);
  EXPECT_EQ(t.columns[1].scale, 2);
  EXPECT_EQ(t.columns[2].real_type, ct::kEnum);
  EXPECT_EQ(t.columns[3].length, 6u);
  EXPECT_EQ(t.columns[3].name, "col_4");

  Body too_long = meta;
  too_long.u8(0);
  EXPECT_FALSE(DecodeColumnMetadata(too_long.b, EventContext{"f", 0, et::kTableMap}, &t));
  Body bad_fsp;
  bad_fsp.le(300, 2).u8(12).u8(2).u8(ct::kEnum).u8(2).u8(7);
  EXPECT_FALSE(DecodeColumnMetadata(bad_fsp.b, EventContext{"f", 0, et::kTableMap}, &t));
}

TEST(BinlogTableMapTest, OptionalMetadataFields) {
  TableMapEvent t;
  t.db = "d";
  t.table = "t";
  t.columns.resize(3);
  t.columns[0].type = t.columns[0].real_type = ct::kLong;
  t.columns[1].type = t.columns[1].real_type = ct::kVarchar;
  t.columns[2].type = ct::kString;
  t.columns[2].real_type = ct::kEnum;
  Body opt;
  opt.u8(1).u8(1).u8(0x80);                            // SIGNEDNESS: column 0 unsigned
  opt.u8(2).u8(1).u8(45);                              // DEFAULT_CHARSET for column 1
  opt.u8(4).u8(10).lstr("id").lstr("name").lstr("k");  // COLUMN_NAME
  opt.u8(6).u8(5).u8(2).lstr("a").lstr("b");           // ENUM_STR_VALUE
  opt.u8(8).u8(1).u8(0);                               // SIMPLE_PRIMARY_KEY
  opt.u8(10).u8(1).u8(33);                             // ENUM_AND_SET_DEFAULT_CHARSET
  opt.u8(12).u8(1).u8(0);                              // COLUMN_VISIBILITY: ignored
  auto st = ParseOptionalMetadata(opt.b, false, &t);
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_TRUE(t.has_signedness);
  EXPECT_TRUE(t.columns[0].is_unsigned);
  EXPECT_EQ(t.columns[1].collation, 45u);
  EXPECT_EQ(t.columns[2].collation, 33u);
  EXPECT_TRUE(t.has_full_metadata);
  EXPECT_EQ(t.columns[1].name, "name");
  EXPECT_EQ(t.columns[2].enum_values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.primary_key, std::vector<uint32_t>{0});
  EXPECT_TRUE(t.columns[0].in_primary_key);

  Body bad_pk;
  bad_pk.u8(8).u8(1).u8(9);
  auto bad = ParseOptionalMetadata(bad_pk.b, false, &t);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("TABLE_MAP d.t: optional metadata: bad primary key column"),
            std::string::npos);
}

}  // namespace
}  // namespace floe::cdc::mysql::binlog_internal
