// ChangeAssembler: pgoutput messages built by hand in, Debezium PostgreSQL
// envelopes out, one batch per committed transaction: the relation cache,
// values by type, streamed transactions (committed, aborted, a subtransaction
// aborted), unchanged TOASTed values with and without the old row, truncates
// and the table filter.
#include "floe/cdc/postgres/capture.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/cdc/postgres/tests/pgoutput_builder.h"
#include "floe/cdc/postgres/type_mapping.h"

namespace floe::cdc::postgres {
namespace {

using test_messages::kNull;
using test_messages::kToast;
using test_messages::Msg;
constexpr int64_t kCommitTime = 757'382'400'000'000;  // 2024-01-01 00:00:00 UTC in PG micros

std::string Begin(uint32_t xid) { return Msg('B').U64(0x100).U64(kCommitTime).U32(xid).b; }
std::string Commit(uint64_t end) { return Msg('C').U8(0).U64(end - 8).U64(end).U64(kCommitTime).b; }

struct Col {
  std::string name;
  uint32_t oid;
  int32_t mod = -1;
  bool key = false;
};

std::string Relation(uint32_t id, std::string_view table, const std::vector<Col>& cols,
                     char identity = 'd', std::optional<uint32_t> xid = std::nullopt) {
  Msg m('R');
  if (xid) m.U32(*xid);
  m.U32(id).Str("public").Str(table).U8(identity).U16(static_cast<uint16_t>(cols.size()));
  for (const auto& c : cols) m.U8(c.key ? 1 : 0).Str(c.name).U32(c.oid).U32(c.mod);
  return m.b;
}

class AssemblerTest : public ::testing::Test {
 protected:
  void SetUp() { Make({}); }
  void Make(std::optional<std::regex> tables) {
    ChangeAssembler::Options o;
    o.database = "shop";
    o.server_name = "srv";
    o.tables = std::move(tables);
    o.now_ms = [] { return int64_t{42}; };
    o.resolve_type = [](uint32_t oid) -> std::optional<std::pair<uint32_t, int32_t>> {
      if (oid == 50000) return std::make_pair(oid::kInt4, -1);  // a domain over integer
      return std::nullopt;
    };
    assembler_ = std::make_unique<ChangeAssembler>(PgoutputVersion::kV2, std::move(o));
  }
  Status Feed(const std::string& m, uint64_t lsn = 0x200) {
    return assembler_->Feed(Lsn{lsn}, m, [&](const CommittedLines& c) -> Status {
      batches_.push_back(std::string(c.lines));
      ends_.push_back(c.end_lsn);
      return Ok();
    });
  }
  void FeedOk(const std::string& m, uint64_t lsn = 0x200) {
    auto s = Feed(m, lsn);
    ASSERT_TRUE(s.has_value()) << s.error().ToString();
  }
  std::unique_ptr<ChangeAssembler> assembler_;
  std::vector<std::string> batches_;
  std::vector<Lsn> ends_;
};

std::string Source(std::string_view table, uint32_t xid, uint64_t lsn) {
  return fmt::format(
      "\"source\":{{\"version\":\"floe-0.1.0\",\"connector\":\"postgresql\",\"name\":\"srv\","
      "\"ts_ms\":1704067200000,\"snapshot\":\"false\",\"db\":\"shop\",\"schema\":\"public\","
      "\"table\":\"{}\",\"txId\":{},\"lsn\":{}}}",
      table, xid, lsn);
}

TEST_F(AssemblerTest, InsertUpdateDeleteTruncateOfManyTypes) {
  FeedOk(Begin(7));
  FeedOk(Relation(16384, "items",
                  {{"id", oid::kInt4, -1, true},
                   {"amount", oid::kNumeric, ((10 << 16) | 2) + 4},
                   {"at", oid::kTimestampTz},
                   {"tags", 1009},
                   {"raw", oid::kBytea},
                   {"u", oid::kUuid},
                   {"d", 50000},
                   {"f", oid::kFloat8},
                   {"ok", oid::kBool}}));
  FeedOk(Msg('I')
             .U32(16384)
             .U8('N')
             .Tuple({"1", "-3.50", "2024-01-02 03:04:05.5+00", "{a,\"b c\",NULL}", "\\x4142",
                     "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "12", "NaN", "t"})
             .b,
         0x300);
  FeedOk(Msg('U')
             .U32(16384)
             .U8('N')
             .Tuple({"1", kNull, kNull, "{}", kNull, kNull, "13", "1.5", "f"})
             .b,
         0x308);
  FeedOk(Msg('D')
             .U32(16384)
             .U8('K')
             .Tuple({"1", kNull, kNull, kNull, kNull, kNull, kNull, kNull, kNull})
             .b,
         0x310);
  FeedOk(Msg('T').U32(1).U8(0).U32(16384).b, 0x318);
  EXPECT_TRUE(batches_.empty());
  FeedOk(Commit(0x400));
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_EQ(ends_[0], Lsn{0x400});
  const std::string expected =
      "{\"before\":null,\"after\":{\"id\":1,\"amount\":\"-3.50\",\"at\":\"2024-01-02T03:04:05."
      "500000Z\",\"tags\":[\"a\",\"b c\",null],\"raw\":\"QUI=\",\"u\":\"a0eebc99-9c0b-4ef8-bb6d-"
      "6bb9bd380a11\",\"d\":12,\"f\":\"NaN\",\"ok\":true}," +
      Source("items", 7, 0x300) +
      ",\"op\":\"c\",\"ts_ms\":42,\"transaction\":null}\n"
      "{\"before\":null,\"after\":{\"id\":1,\"amount\":null,\"at\":null,\"tags\":[],\"raw\":null,"
      "\"u\":null,\"d\":13,\"f\":1.5,\"ok\":false}," +
      Source("items", 7, 0x308) +
      ",\"op\":\"u\",\"ts_ms\":42,\"transaction\":null}\n"
      "{\"before\":{\"id\":1,\"amount\":null,\"at\":null,\"tags\":null,\"raw\":null,\"u\":null,"
      "\"d\":null,\"f\":null,\"ok\":null},\"after\":null," +
      Source("items", 7, 0x310) +
      ",\"op\":\"d\",\"ts_ms\":42,\"transaction\":null}\n"
      "{\"before\":null,\"after\":null," +
      Source("items", 7, 0x318) + ",\"op\":\"t\",\"ts_ms\":42,\"transaction\":null}\n";
  EXPECT_EQ(batches_[0], expected);
  EXPECT_EQ(assembler_->events(), 4);
}

TEST_F(AssemblerTest, UnchangedToastTakesTheOldRowUnderReplicaIdentityFull) {
  FeedOk(Begin(8));
  FeedOk(Relation(1, "docs", {{"k", oid::kInt4}, {"big", oid::kText}}, 'f'));
  FeedOk(Msg('U').U32(1).U8('O').Tuple({"1", "long text"}).U8('N').Tuple({"2", kToast}).b);
  FeedOk(Commit(0x500));
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_NE(batches_[0].find("\"before\":{\"k\":1,\"big\":\"long text\"},\"after\":{\"k\":2,"
                             "\"big\":\"long text\"}"),
            std::string::npos)
      << batches_[0];
}

TEST_F(AssemblerTest, UnchangedToastWithoutTheOldRowFailsNamingTableAndColumn) {
  FeedOk(Begin(9));
  FeedOk(Relation(1, "docs", {{"k", oid::kInt4, -1, true}, {"big", oid::kText}}));
  auto s = Feed(Msg('U').U32(1).U8('N').Tuple({"1", kToast}).b);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(s.error().message().find("public.docs column big"), std::string::npos);
  EXPECT_NE(s.error().message().find("ALTER TABLE public.docs REPLICA IDENTITY FULL"),
            std::string::npos);
}

TEST_F(AssemblerTest, StreamedTransactionsWaitForStreamCommitAndAbortsAreDropped) {
  auto start = [](uint32_t xid, bool first) { return Msg('S').U32(xid).U8(first).b; };
  const std::string stop = Msg('E').b;
  // Transaction 20 streamed in two blocks with a subtransaction 21 that rolls
  // back; transaction 30 streamed and aborted; a plain one in between.
  FeedOk(start(20, true));
  FeedOk(Relation(1, "t", {{"k", oid::kInt4}}, 'd', 20));
  FeedOk(Msg('I').U32(20).U32(1).U8('N').Tuple({"1"}).b);
  FeedOk(Msg('I').U32(21).U32(1).U8('N').Tuple({"99"}).b);
  FeedOk(stop);
  FeedOk(start(30, true));
  FeedOk(Msg('I').U32(30).U32(1).U8('N').Tuple({"300"}).b);
  FeedOk(stop);
  EXPECT_EQ(assembler_->buffered_transactions(), 2u);
  FeedOk(Begin(25));
  FeedOk(Relation(1, "t", {{"k", oid::kInt4}}));
  FeedOk(Msg('I').U32(1).U8('N').Tuple({"5"}).b);
  FeedOk(Commit(0x600));
  FeedOk(start(20, false));
  FeedOk(Msg('I').U32(20).U32(1).U8('N').Tuple({"2"}).b);
  FeedOk(stop);
  FeedOk(Msg('A').U32(20).U32(21).b);  // the subtransaction rolls back
  FeedOk(Msg('A').U32(30).U32(30).b);  // transaction 30 rolls back
  EXPECT_EQ(assembler_->buffered_transactions(), 1u);
  FeedOk(Msg('c').U32(20).U8(0).U64(0x6f0).U64(0x700).U64(kCommitTime).b);
  EXPECT_EQ(assembler_->buffered_transactions(), 0u);
  ASSERT_EQ(batches_.size(), 2u);
  EXPECT_NE(batches_[0].find("\"after\":{\"k\":5}"), std::string::npos);
  EXPECT_EQ(ends_[1], Lsn{0x700});
  EXPECT_NE(batches_[1].find("\"after\":{\"k\":1}"), std::string::npos);
  EXPECT_NE(batches_[1].find("\"after\":{\"k\":2}"), std::string::npos);
  EXPECT_EQ(batches_[1].find("99"), std::string::npos);
  EXPECT_EQ(batches_[1].find("300"), std::string::npos);
  EXPECT_NE(batches_[1].find("\"txId\":20"), std::string::npos);
  EXPECT_EQ(assembler_->events(), 3);
}

TEST_F(AssemblerTest, TablesOutsideTheFilterPrintNothingButTheirCommitIsSeen) {
  Make(std::regex("public\\.keep"));
  FeedOk(Begin(40));
  FeedOk(Relation(1, "skip", {{"k", oid::kInt4}}));
  FeedOk(Relation(2, "keep", {{"k", oid::kInt4}}));
  FeedOk(Msg('I').U32(1).U8('N').Tuple({"1"}).b);
  FeedOk(Msg('I').U32(2).U8('N').Tuple({"2"}).b);
  FeedOk(Commit(0x800));
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_EQ(batches_[0].find("\"skip\""), std::string::npos);
  EXPECT_NE(batches_[0].find("\"keep\""), std::string::npos);
  EXPECT_EQ(assembler_->events(), 1);
}

TEST_F(AssemblerTest, BadInputIsAnErrorNamingWhere) {
  FeedOk(Begin(50));
  auto unknown = Feed(Msg('I').U32(77).U8('N').Tuple({"1"}).b);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code(), ErrorCode::kCorruption);
  FeedOk(Relation(1, "t", {{"k", oid::kInt4}, {"d", oid::kDate}}));
  auto columns = Feed(Msg('I').U32(1).U8('N').Tuple({"1"}).b);
  ASSERT_FALSE(columns.has_value());
  EXPECT_EQ(columns.error().code(), ErrorCode::kCorruption);
  auto value = Feed(Msg('I').U32(1).U8('N').Tuple({"1", "2024-02-30"}).b, 0x1234);
  ASSERT_FALSE(value.has_value());
  EXPECT_EQ(value.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(value.error().message().find("public.t column d at 0/1234"), std::string::npos)
      << value.error().message();
  auto garbage = Feed("\x42\x00", 0x1300);
  ASSERT_FALSE(garbage.has_value());
  EXPECT_EQ(garbage.error().code(), ErrorCode::kCorruption);
}

}  // namespace
}  // namespace floe::cdc::postgres
