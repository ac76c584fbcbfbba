// pgoutput messages and replication frames built by hand from PostgreSQL's
// "Logical Replication Message Formats" and "Streaming Replication Protocol".
#include "floe/cdc/postgres/pgoutput.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/replication_protocol.h"

namespace floe::cdc::postgres {
namespace {

// Builds a message field by field, big-endian as on the wire.
class Msg {
 public:
  explicit Msg(char tag) { bytes_.push_back(tag); }
  Msg& U8(uint8_t v) {
    bytes_.push_back(static_cast<char>(v));
    return *this;
  }
  Msg& U16(uint16_t v) { return BigEndian(v, 2); }
  Msg& U32(uint32_t v) { return BigEndian(v, 4); }
  Msg& U64(uint64_t v) { return BigEndian(v, 8); }
  Msg& Str(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  Msg& Raw(std::string_view s) {
    bytes_.append(s);
    return *this;
  }
  // A 't' or 'b' column.
  Msg& Value(char kind, std::string_view data) {
    U8(static_cast<uint8_t>(kind));
    U32(static_cast<uint32_t>(data.size()));
    return Raw(data);
  }
  const std::string& bytes() const { return bytes_; }
  operator std::string_view() const { return bytes_; }

 private:
  Msg& BigEndian(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) bytes_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    return *this;
  }
  std::string bytes_;
};

constexpr uint64_t kLsn = 0x16'B374D848ULL;

// The decoded message of type T, by value (its views point into the message
// bytes and the decoder's buffers, not into the Result).
template <typename T>
T As(const Result<PgoutputMessage>& r) {
  if (!r) {
    ADD_FAILURE() << r.error().ToString();
    return T{};
  }
  if (!std::holds_alternative<T>(*r)) {
    ADD_FAILURE() << "decoded " << PgoutputMessageName(*r);
    return T{};
  }
  return std::get<T>(*r);
}

void ExpectCorruption(PgoutputDecoder& decoder, std::string_view bytes, std::string_view what) {
  auto r = decoder.Decode(bytes);
  ASSERT_FALSE(r) << "decoded " << PgoutputMessageName(*r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
  EXPECT_NE(r.error().message().find(what), std::string::npos) << r.error().ToString();
}

// Every strict prefix of `bytes` and `bytes` plus one byte are refused.
void ExpectStrict(PgoutputDecoder& decoder, std::string_view bytes) {
  const bool in_stream = decoder.in_stream();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = decoder.Decode(bytes.substr(0, n));
    ASSERT_FALSE(r) << "a prefix of " << n << " of " << bytes.size() << " bytes decoded";
    EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
    EXPECT_EQ(decoder.in_stream(), in_stream);
  }
  std::string longer(bytes);
  longer.push_back('\0');
  ExpectCorruption(decoder, longer, "1 bytes after its last field");
  EXPECT_EQ(decoder.in_stream(), in_stream);
}

TEST(LsnTest, PrintsAndParsesPostgresForm) {
  EXPECT_EQ(Lsn{kLsn}.ToString(), "16/B374D848");
  EXPECT_EQ(Lsn{0}.ToString(), "0/0");
  EXPECT_EQ(Lsn{0xFFFFFFFF'FFFFFFFFULL}.ToString(), "FFFFFFFF/FFFFFFFF");
  EXPECT_EQ(Lsn{0x1'00000000ULL}.ToString(), "1/0");
  EXPECT_EQ(Lsn::Parse("16/B374D848")->value, kLsn);
  EXPECT_EQ(Lsn::Parse("16/b374d848")->value, kLsn);
  EXPECT_EQ(Lsn::Parse("0/0")->value, 0u);
  EXPECT_EQ(Lsn::Parse("00000016/0000000A")->value, 0x16'0000000AULL);
  EXPECT_FALSE(Lsn{0}.valid());
  EXPECT_LT(Lsn{1}, Lsn{2});
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, kLsn, uint64_t{0xFFFFFFFF'FFFFFFFFULL}}) {
    EXPECT_EQ(Lsn::Parse(Lsn{v}.ToString())->value, v);
  }
}

TEST(LsnTest, RefusesAnythingElse) {
  for (std::string_view bad : {"", "/", "1/", "/1", "16", "123456789/0", "0/123456789", "1/2/3",
                               "g/0", " 1/0", "1/0 ", "-1/0", "+1/0", "0x1/0"}) {
    auto r = Lsn::Parse(bad);
    ASSERT_FALSE(r) << "'" << bad << "' parsed";
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find("is not an LSN"), std::string::npos);
  }
}

TEST(LsnTest, ConvertsServerTimes) {
  EXPECT_EQ(PostgresTimeToUnixMicros(0), 946684800000000);
  EXPECT_EQ(UnixMicrosToPostgresTime(946684800000000), 0);
  EXPECT_EQ(PostgresTimeToUnixMicros(INT64_MAX), INT64_MAX);
  EXPECT_EQ(UnixMicrosToPostgresTime(INT64_MIN), INT64_MIN);
}

TEST(PgoutputTest, BeginCommitOrigin) {
  PgoutputDecoder d(PgoutputVersion::kV1);
  Msg begin('B');
  begin.U64(kLsn).U64(12345).U32(771);
  const auto& b = As<BeginMessage>(d.Decode(begin));
  EXPECT_EQ(b.final_lsn.value, kLsn);
  EXPECT_EQ(b.commit_time, 12345);
  EXPECT_EQ(b.xid, 771u);
  ExpectStrict(d, begin);

  Msg commit('C');
  commit.U8(0).U64(kLsn).U64(kLsn + 40).U64(uint64_t(-5));
  const auto& c = As<CommitMessage>(d.Decode(commit));
  EXPECT_EQ(c.commit_lsn.value, kLsn);
  EXPECT_EQ(c.end_lsn.value, kLsn + 40);
  EXPECT_EQ(c.commit_time, -5);
  ExpectStrict(d, commit);

  Msg origin('O');
  origin.U64(7).Str("pg_16385");
  const auto& o = As<OriginMessage>(d.Decode(origin));
  EXPECT_EQ(o.commit_lsn.value, 7u);
  EXPECT_EQ(o.name, "pg_16385");
  ExpectStrict(d, origin);
}

Msg RelationBytes() {
  Msg m('R');
  m.U32(16390).Str("public").Str("items").U8('f').U16(3);
  m.U8(1).Str("id").U32(20).U32(uint32_t(-1));
  m.U8(0).Str("price").U32(1700).U32((10 << 16 | 2) + 4);  // numeric(10,2)
  m.U8(0).Str("note").U32(25).U32(uint32_t(-1));
  return m;
}

TEST(PgoutputTest, RelationAndType) {
  PgoutputDecoder d;
  Msg rel = RelationBytes();
  auto r = d.Decode(rel);
  const auto& m = As<RelationMessage>(r);
  EXPECT_EQ(m.xid, 0u);
  EXPECT_EQ(m.relation_id, 16390u);
  EXPECT_EQ(m.namespace_name, "public");
  EXPECT_EQ(m.name, "items");
  EXPECT_EQ(m.replica_identity, ReplicaIdentity::kFull);
  ASSERT_EQ(m.columns.size(), 3u);
  EXPECT_TRUE(m.columns[0].is_key());
  EXPECT_EQ(m.columns[0].name, "id");
  EXPECT_EQ(m.columns[0].type_oid, 20u);
  EXPECT_EQ(m.columns[0].type_modifier, -1);
  EXPECT_FALSE(m.columns[1].is_key());
  EXPECT_EQ(m.columns[1].type_modifier, (10 << 16 | 2) + 4);
  EXPECT_EQ(m.columns[2].name, "note");
  // Names point into the message bytes.
  EXPECT_GE(m.name.data(), rel.bytes().data());
  EXPECT_LT(m.name.data(), rel.bytes().data() + rel.bytes().size());
  ExpectStrict(d, rel);

  Msg nocols('R');
  nocols.U32(1).Str("").Str("t").U8('n').U16(0);
  EXPECT_EQ(As<RelationMessage>(d.Decode(nocols)).columns.size(), 0u);

  Msg type('Y');
  type.U32(16400).Str("public").Str("mood");
  const auto& t = As<TypeMessage>(d.Decode(type));
  EXPECT_EQ(t.type_oid, 16400u);
  EXPECT_EQ(t.namespace_name, "public");
  EXPECT_EQ(t.name, "mood");
  ExpectStrict(d, type);
}

TEST(PgoutputTest, InsertWithEveryColumnKind) {
  PgoutputDecoder d;
  Msg ins('I');
  ins.U32(16390).U8('N').U16(4).Value('t', "42").U8('n').U8('u').Value('b', std::string("\0\1", 2));
  auto r = d.Decode(ins);
  const auto& m = As<InsertMessage>(r);
  EXPECT_EQ(m.relation_id, 16390u);
  const auto& cols = m.new_tuple.columns;
  ASSERT_EQ(cols.size(), 4u);
  EXPECT_EQ(cols[0].kind, ColumnValue::Kind::kText);
  EXPECT_EQ(cols[0].data, "42");
  EXPECT_EQ(cols[1].kind, ColumnValue::Kind::kNull);
  EXPECT_TRUE(cols[1].data.empty());
  EXPECT_EQ(cols[2].kind, ColumnValue::Kind::kUnchangedToast);
  EXPECT_EQ(cols[3].kind, ColumnValue::Kind::kBinary);
  EXPECT_EQ(cols[3].data, std::string_view("\0\1", 2));
  ExpectStrict(d, ins);

  Msg empty_text('I');
  empty_text.U32(1).U8('N').U16(1).Value('t', "");
  const auto& e = As<InsertMessage>(d.Decode(empty_text));
  ASSERT_EQ(e.new_tuple.columns.size(), 1u);
  EXPECT_EQ(e.new_tuple.columns[0].kind, ColumnValue::Kind::kText);
  EXPECT_EQ(e.new_tuple.columns[0].data, "");
}

TEST(PgoutputTest, UpdateWithoutWithKeyAndWithOldRow) {
  PgoutputDecoder d;
  Msg plain('U');
  plain.U32(5).U8('N').U16(2).Value('t', "1").U8('u');
  const auto& p = As<UpdateMessage>(d.Decode(plain));
  EXPECT_EQ(p.old_kind, OldTupleKind::kNone);
  EXPECT_TRUE(p.old_tuple.columns.empty());
  ASSERT_EQ(p.new_tuple.columns.size(), 2u);
  EXPECT_EQ(p.new_tuple.columns[1].kind, ColumnValue::Kind::kUnchangedToast);
  ExpectStrict(d, plain);

  Msg key('U');
  key.U32(5).U8('K').U16(2).Value('t', "1").U8('n').U8('N').U16(2).Value('t', "2").Value('t', "x");
  auto rk = d.Decode(key);
  const auto& k = As<UpdateMessage>(rk);
  EXPECT_EQ(k.old_kind, OldTupleKind::kKey);
  ASSERT_EQ(k.old_tuple.columns.size(), 2u);
  EXPECT_EQ(k.old_tuple.columns[0].data, "1");
  EXPECT_EQ(k.old_tuple.columns[1].kind, ColumnValue::Kind::kNull);
  ASSERT_EQ(k.new_tuple.columns.size(), 2u);
  EXPECT_EQ(k.new_tuple.columns[0].data, "2");
  EXPECT_EQ(k.new_tuple.columns[1].data, "x");
  ExpectStrict(d, key);

  Msg old('U');
  old.U32(5).U8('O').U16(1).Value('t', "old").U8('N').U16(1).Value('t', "new");
  auto ro = d.Decode(old);
  const auto& o = As<UpdateMessage>(ro);
  EXPECT_EQ(o.old_kind, OldTupleKind::kOld);
  EXPECT_EQ(o.old_tuple.columns[0].data, "old");
  EXPECT_EQ(o.new_tuple.columns[0].data, "new");
  ExpectStrict(d, old);
}

TEST(PgoutputTest, DeleteByKeyAndByOldRow) {
  PgoutputDecoder d;
  Msg key('D');
  key.U32(9).U8('K').U16(2).Value('t', "7").U8('n');
  auto rk = d.Decode(key);
  const auto& k = As<DeleteMessage>(rk);
  EXPECT_EQ(k.relation_id, 9u);
  EXPECT_EQ(k.old_kind, OldTupleKind::kKey);
  ASSERT_EQ(k.old_tuple.columns.size(), 2u);
  EXPECT_EQ(k.old_tuple.columns[0].data, "7");
  ExpectStrict(d, key);

  Msg old('D');
  old.U32(9).U8('O').U16(1).Value('t', "7");
  EXPECT_EQ(As<DeleteMessage>(d.Decode(old)).old_kind, OldTupleKind::kOld);
  ExpectStrict(d, old);

  Msg bad('D');
  bad.U32(9).U8('N').U16(0);
  ExpectCorruption(d, bad, "old tuple marker ('K' or 'O')");
}

TEST(PgoutputTest, TruncateAndMessage) {
  PgoutputDecoder d;
  Msg trunc('T');
  trunc.U32(2).U8(3).U32(16390).U32(16391);
  auto rt = d.Decode(trunc);
  const auto& t = As<TruncateMessage>(rt);
  EXPECT_TRUE(t.cascade());
  EXPECT_TRUE(t.restart_identity());
  ASSERT_EQ(t.relation_ids.size(), 2u);
  EXPECT_EQ(t.relation_ids[0], 16390u);
  EXPECT_EQ(t.relation_ids[1], 16391u);
  ExpectStrict(d, trunc);

  Msg msg('M');
  msg.U8(1).U64(kLsn).Str("floe").U32(5).Raw("hello");
  auto rm = d.Decode(msg);
  const auto& m = As<LogicalMessage>(rm);
  EXPECT_TRUE(m.transactional());
  EXPECT_EQ(m.lsn.value, kLsn);
  EXPECT_EQ(m.prefix, "floe");
  EXPECT_EQ(m.content, "hello");
  ExpectStrict(d, msg);
}

TEST(PgoutputTest, StreamedTransactionCarriesXids) {
  PgoutputDecoder d(PgoutputVersion::kV2);
  Msg start('S');
  start.U32(900).U8(1);
  const auto& s = As<StreamStartMessage>(d.Decode(start));
  EXPECT_EQ(s.xid, 900u);
  EXPECT_TRUE(s.first_segment);
  EXPECT_TRUE(d.in_stream());
  EXPECT_EQ(d.stream_xid(), 900u);

  // Inside the block every data message starts with the xid.
  Msg rel('R');
  rel.U32(900).U32(16390).Str("public").Str("t").U8('d').U16(1).U8(1).Str("id").U32(23).U32(
      uint32_t(-1));
  const auto& r = As<RelationMessage>(d.Decode(rel));
  EXPECT_EQ(r.xid, 900u);
  EXPECT_EQ(r.relation_id, 16390u);
  ExpectStrict(d, rel);

  Msg ins('I');
  ins.U32(900).U32(16390).U8('N').U16(1).Value('t', "1");
  const auto& i = As<InsertMessage>(d.Decode(ins));
  EXPECT_EQ(i.xid, 900u);
  EXPECT_EQ(i.new_tuple.columns[0].data, "1");
  ExpectStrict(d, ins);

  Msg upd('U');
  upd.U32(901).U32(16390).U8('N').U16(1).Value('t', "2");  // a subtransaction's xid
  EXPECT_EQ(As<UpdateMessage>(d.Decode(upd)).xid, 901u);
  Msg del('D');
  del.U32(900).U32(16390).U8('K').U16(1).Value('t', "2");
  EXPECT_EQ(As<DeleteMessage>(d.Decode(del)).xid, 900u);
  Msg trunc('T');
  trunc.U32(900).U32(1).U8(0).U32(16390);
  EXPECT_EQ(As<TruncateMessage>(d.Decode(trunc)).relation_ids[0], 16390u);
  Msg type('Y');
  type.U32(900).U32(5).Str("s").Str("n");
  EXPECT_EQ(As<TypeMessage>(d.Decode(type)).xid, 900u);
  Msg msg('M');
  msg.U32(900).U8(1).U64(1).Str("p").U32(0);
  EXPECT_EQ(As<LogicalMessage>(d.Decode(msg)).xid, 900u);

  // The same insert without the xid is now cut short.
  Msg plain('I');
  plain.U32(16390).U8('N').U16(1).Value('t', "1");
  ExpectCorruption(d, plain, "Insert message");
  EXPECT_TRUE(d.in_stream());

  Msg begin('B');
  begin.U64(1).U64(2).U32(3);
  ExpectCorruption(d, begin, "inside the stream block of transaction 900");
  ExpectCorruption(d, start, "inside the stream block");
  Msg commit('c');
  commit.U32(900).U8(0).U64(kLsn).U64(kLsn + 8).U64(77);
  ExpectCorruption(d, commit, "inside the stream block");
  EXPECT_TRUE(d.in_stream());

  Msg stop('E');
  ASSERT_TRUE(std::holds_alternative<StreamStopMessage>(*d.Decode(stop)));
  EXPECT_FALSE(d.in_stream());
  ExpectCorruption(d, stop, "outside a stream block");
  // Outside the block, messages have no xid again.
  EXPECT_EQ(As<InsertMessage>(d.Decode(plain)).xid, 0u);

  const auto& c = As<StreamCommitMessage>(d.Decode(commit));
  EXPECT_EQ(c.xid, 900u);
  EXPECT_EQ(c.commit_lsn.value, kLsn);
  EXPECT_EQ(c.end_lsn.value, kLsn + 8);
  EXPECT_EQ(c.commit_time, 77);
  ExpectStrict(d, commit);

  Msg abort('A');
  abort.U32(900).U32(901);
  const auto& a = As<StreamAbortMessage>(d.Decode(abort));
  EXPECT_EQ(a.xid, 900u);
  EXPECT_EQ(a.subxid, 901u);
  ExpectStrict(d, abort);

  Msg later('S');
  later.U32(900).U8(0);
  EXPECT_FALSE(As<StreamStartMessage>(d.Decode(later)).first_segment);
  d.Reset();
  EXPECT_FALSE(d.in_stream());
  ExpectStrict(d, start);
}

TEST(PgoutputTest, StreamMessagesNeedVersion2) {
  PgoutputDecoder d(PgoutputVersion::kV1);
  Msg start('S');
  start.U32(900).U8(1);
  ExpectCorruption(d, start, "protocol version 1");
  EXPECT_FALSE(d.in_stream());
  ExpectCorruption(d, Msg('E'), "protocol version 1");
  Msg commit('c');
  commit.U32(900).U8(0).U64(1).U64(2).U64(3);
  ExpectCorruption(d, commit, "protocol version 1");
  Msg abort('A');
  abort.U32(1).U32(1);
  ExpectCorruption(d, abort, "protocol version 1");
}

TEST(PgoutputTest, RefusesMalformedMessages) {
  PgoutputDecoder d;
  ExpectCorruption(d, "", "empty");
  ExpectCorruption(d, "Z", "unknown tag 0x5a");
  ExpectCorruption(d, std::string_view("\0", 1), "unknown tag 0x00");

  Msg many('I');
  many.U32(1).U8('N').U16(1000).U8('n');
  ExpectCorruption(d, many, "counts 1000 columns but only 1 bytes are left");

  Msg negative('I');
  negative.U32(1).U8('N').U16(1).U8('t').U32(0xFFFFFFFF);
  ExpectCorruption(d, negative, "column 1 has length -1");

  Msg beyond('I');
  beyond.U32(1).U8('N').U16(1).U8('t').U32(1000).Raw("abc");
  ExpectCorruption(d, beyond, "goes beyond the 3 bytes left");

  Msg kind('I');
  kind.U32(1).U8('N').U16(2).U8('n').U8('x');
  ExpectCorruption(d, kind, "column 2 has the unknown kind byte 0x78");

  Msg marker('I');
  marker.U32(1).U8('K').U16(0);
  ExpectCorruption(d, marker, "where the new tuple marker 'N' belongs");

  Msg update_marker('U');
  update_marker.U32(1).U8('K').U16(0).U8('O').U16(0);
  ExpectCorruption(d, update_marker, "where a tuple marker");

  Msg identity('R');
  identity.U32(1).Str("s").Str("t").U8('x').U16(0);
  ExpectCorruption(d, identity, "unknown replica identity 0x78");

  Msg columns('R');
  columns.U32(1).Str("s").Str("t").U8('d').U16(65535).U8(0).Str("a").U32(1).U32(1);
  ExpectCorruption(d, columns, "counts 65535 columns");

  Msg unterminated('R');
  unterminated.U32(1).Raw("public");
  ExpectCorruption(d, unterminated, "namespace has no terminating NUL");

  Msg relations('T');
  relations.U32(0xFFFFFFFF).U8(0).U32(1);
  ExpectCorruption(d, relations, "counts 4294967295 relations");

  Msg content('M');
  content.U8(0).U64(1).Str("p").U32(0x80000000);
  ExpectCorruption(d, content, "content length is -2147483648");

  Msg first('S');
  first.U32(1).U8(2);
  ExpectCorruption(d, first, "first segment flag is 2");
  EXPECT_FALSE(d.in_stream());
}

TEST(PgoutputTest, TwoPhaseMessagesAreNotSupported) {
  PgoutputDecoder d;
  for (char tag : {'b', 'P', 'K', 'r', 'p'}) {
    auto r = d.Decode(Msg(tag).U64(1));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), ErrorCode::kNotSupported) << r.error().ToString();
    EXPECT_NE(r.error().message().find("two-phase"), std::string::npos);
  }
}

TEST(PgoutputTest, ReusesColumnBuffersBetweenMessages) {
  PgoutputDecoder d;
  Msg wide('I');
  wide.U32(1).U8('N').U16(8);
  for (int i = 0; i < 8; ++i) wide.Value('t', "v");
  auto r1 = d.Decode(wide);
  ASSERT_TRUE(r1);
  const ColumnValue* first = std::get<InsertMessage>(*r1).new_tuple.columns.data();
  Msg narrow('I');
  narrow.U32(1).U8('N').U16(2).U8('n').U8('n');
  auto r2 = d.Decode(narrow);
  ASSERT_TRUE(r2);
  EXPECT_EQ(std::get<InsertMessage>(*r2).new_tuple.columns.data(), first);
}

TEST(PgoutputTest, NamesMessages) {
  EXPECT_EQ(PgoutputMessageName(BeginMessage{}), "Begin");
  EXPECT_EQ(PgoutputMessageName(TruncateMessage{}), "Truncate");
  EXPECT_EQ(PgoutputMessageName(StreamAbortMessage{}), "Stream Abort");
}

// The fuzz seeds are real PostgreSQL 15 output (tests/fuzz/pgoutput/README.md):
// every message in them decodes, with the shapes the workload made.
TEST(PgoutputTest, DecodesMessagesOfARealServer) {
  const std::filesystem::path dir = std::filesystem::path(FLOE_TEST_DATA_DIR) / "../fuzz/pgoutput";
  std::map<std::string, int> counts;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("seed-", 0) != 0) continue;
    ++files;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    ASSERT_FALSE(bytes.empty()) << name;
    PgoutputDecoder d(bytes[0] & 1 ? PgoutputVersion::kV2 : PgoutputVersion::kV1);
    size_t off = 1;
    while (off + 2 <= bytes.size()) {
      size_t len =
          (size_t{static_cast<uint8_t>(bytes[off])} << 8) | static_cast<uint8_t>(bytes[off + 1]);
      off += 2;
      ASSERT_LE(len, bytes.size() - off) << name;
      std::string_view frame(bytes.data() + off, len);
      off += len;
      if (name.find("xlogdata") != std::string::npos) {
        auto f = DecodeReplicationMessage(frame);
        ASSERT_TRUE(f) << name << ": " << f.error().ToString();
        if (std::holds_alternative<PrimaryKeepalive>(*f)) continue;
        frame = std::get<XLogData>(*f).data;
      }
      auto m = d.Decode(frame);
      ASSERT_TRUE(m) << name << ": " << m.error().ToString();
      ++counts[std::string(PgoutputMessageName(*m))];
      if (auto* u = std::get_if<UpdateMessage>(&*m)) {
        for (const ColumnValue& c : u->new_tuple.columns) {
          counts["unchanged toast"] += c.kind == ColumnValue::Kind::kUnchangedToast;
          counts["binary"] += c.kind == ColumnValue::Kind::kBinary;
        }
      }
    }
    EXPECT_EQ(off, bytes.size()) << name;
    EXPECT_FALSE(d.in_stream()) << name;
  }
  EXPECT_EQ(files, 5);
  for (const char* kind : {"Begin", "Commit", "Relation", "Type", "Insert", "Update", "Delete",
                           "Truncate", "Message", "Stream Start", "Stream Stop", "Stream Commit",
                           "Stream Abort", "unchanged toast", "binary"}) {
    EXPECT_GT(counts[kind], 0) << kind;
  }
}

TEST(ReplicationProtocolTest, DecodesXLogData) {
  Msg frame('w');
  frame.U64(kLsn).U64(kLsn + 100).U64(555).Raw("B....");
  auto r = DecodeReplicationMessage(frame);
  ASSERT_TRUE(r) << r.error().ToString();
  const auto& x = std::get<XLogData>(*r);
  EXPECT_EQ(x.wal_start.value, kLsn);
  EXPECT_EQ(x.wal_end.value, kLsn + 100);
  EXPECT_EQ(x.send_time, 555);
  EXPECT_EQ(x.data, "B....");

  Msg header_only('w');
  header_only.U64(1).U64(2).U64(3);
  EXPECT_EQ(std::get<XLogData>(*DecodeReplicationMessage(header_only)).data, "");
  for (size_t n = 0; n < header_only.bytes().size(); ++n) {
    auto bad = DecodeReplicationMessage(header_only.bytes().substr(0, n));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
  }
}

TEST(ReplicationProtocolTest, DecodesKeepalive) {
  Msg frame('k');
  frame.U64(kLsn).U64(99).U8(1);
  auto r = DecodeReplicationMessage(frame);
  ASSERT_TRUE(r) << r.error().ToString();
  const auto& k = std::get<PrimaryKeepalive>(*r);
  EXPECT_EQ(k.wal_end.value, kLsn);
  EXPECT_EQ(k.send_time, 99);
  EXPECT_TRUE(k.reply_requested);

  for (size_t n = 0; n < frame.bytes().size(); ++n) {
    auto bad = DecodeReplicationMessage(frame.bytes().substr(0, n));
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), ErrorCode::kCorruption);
  }
  std::string longer = frame.bytes() + "x";
  EXPECT_NE(DecodeReplicationMessage(longer).error().message().find("not 18"), std::string::npos);
  Msg flag('k');
  flag.U64(1).U64(1).U8(2);
  EXPECT_NE(DecodeReplicationMessage(flag).error().message().find("flag 2"), std::string::npos);
  auto unknown = DecodeReplicationMessage("q123");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("unknown tag 0x71"), std::string::npos);
}

TEST(ReplicationProtocolTest, EncodesStandbyStatusUpdate) {
  StandbyStatusUpdate u;
  u.written = Lsn{0x0102030405060708ULL};
  u.flushed = Lsn{kLsn};
  u.applied = Lsn{1};
  u.client_time = -2;
  u.reply_requested = true;
  auto bytes = EncodeStandbyStatusUpdate(u);
  Msg want('r');
  want.U64(0x0102030405060708ULL).U64(kLsn).U64(1).U64(uint64_t(-2)).U8(1);
  EXPECT_EQ(std::string_view(bytes.data(), bytes.size()), want.bytes());
  u.reply_requested = false;
  EXPECT_EQ(EncodeStandbyStatusUpdate(u)[33], 0);
}

}  // namespace
}  // namespace floe::cdc::postgres
