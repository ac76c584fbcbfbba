// Unit tests of the snapshot's pieces that need no server: key ordering,
// which tables are chunked, the stream filter's decisions and its state
// round trip, and the COM_BINLOG_DUMP_GTID body (from the protocol docs).

#include "floe/cdc/mysql/incremental_snapshot.h"

#include <gtest/gtest.h>

#include "floe/cdc/mysql/schema_tracker.h"

namespace floe::cdc::mysql {
namespace {

using types::Value;

TableSchema Table(const std::string& ddl) {
  SchemaTracker tracker;
  auto st = tracker.Apply(ddl, "app");
  EXPECT_TRUE(st) << st.error().ToString();
  return *tracker.Find("app", "t");
}

TEST(IncrementalSnapshot, WhichKeysAreChunked) {
  EXPECT_TRUE(PrimaryKeyIsChunkable(Table("CREATE TABLE t (id INT PRIMARY KEY)")));
  EXPECT_TRUE(
      PrimaryKeyIsChunkable(Table("CREATE TABLE t (a BIGINT UNSIGNED, b DATETIME(3), c "
                                  "DECIMAL(10,2), PRIMARY KEY (a, b, c))")));
  EXPECT_FALSE(PrimaryKeyIsChunkable(Table("CREATE TABLE t (a INT)")));
  EXPECT_FALSE(PrimaryKeyIsChunkable(Table("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)")));
  EXPECT_FALSE(
      PrimaryKeyIsChunkable(Table("CREATE TABLE t (a INT, k BINARY(4), PRIMARY KEY (a, k))")));
  EXPECT_FALSE(PrimaryKeyIsChunkable(Table("CREATE TABLE t (d DECIMAL(50,0) PRIMARY KEY)")));
}

TEST(IncrementalSnapshot, CompareKeysIsLexicographicAndNumeric) {
  std::vector<Value> a{Value::Int32(2), Value::Int64(-5)};
  std::vector<Value> b{Value::Int32(2), Value::Int64(3)};
  std::vector<Value> c{Value::Int32(10), Value::Int64(-100)};
  EXPECT_LT(CompareKeys(a, b), 0);
  EXPECT_LT(CompareKeys(b, c), 0);  // 2 < 10 numerically (not as text)
  EXPECT_EQ(CompareKeys(a, a), 0);
  std::vector<Value> big{Value::Decimal(static_cast<types::int128_t>(18446744073709551615ull))};
  std::vector<Value> small{Value::Decimal(9)};
  EXPECT_GT(CompareKeys(big, small), 0);
}

// Table t (id INT PRIMARY KEY, v INT): chunks (-inf, 100) HW f.1:500,
// [100, 200) HW f.1:900, [200, +inf) HW f.2:300.
SnapshotFilter Filter(const TableSchema& t) {
  SnapshotFilter f;
  std::vector<SnapshotFilter::Chunk> chunks;
  chunks.push_back({std::vector<std::string>{"100"}, {"bin.000001", 500}});
  chunks.push_back({std::vector<std::string>{"200"}, {"bin.000001", 900}});
  chunks.push_back({std::nullopt, {"bin.000002", 300}});
  auto st = f.AddTable(t, std::move(chunks));
  EXPECT_TRUE(st) << st.error().ToString();
  return f;
}

TEST(IncrementalSnapshot, FilterDropsEventsTheChunkAlreadyHolds) {
  TableSchema t = Table("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
  SnapshotFilter f = Filter(t);
  using D = SnapshotFilter::Decision;
  auto row = [](int id) { return std::vector<Value>{Value::Int32(id), Value::Int32(0)}; };
  auto r50 = row(50), r150 = row(150), r99 = row(99), r100 = row(100), r5000 = row(5000);
  BinlogFilePos p600{"bin.000001", 600};
  // Insert of key 50 at 600: its chunk's HW is 500, the event is after it.
  EXPECT_EQ(f.Decide("app", "t", {}, r50, p600), D::kEmit);
  // Key 150 at 600: chunk HW 900, already in the snapshot.
  EXPECT_EQ(f.Decide("app", "t", {}, r150, p600), D::kSkip);
  EXPECT_EQ(f.Decide("app", "t", r150, {}, p600), D::kSkip);
  // Bounds: 99 is in the first chunk, 100 in the second.
  EXPECT_EQ(f.Decide("app", "t", {}, r99, p600), D::kEmit);
  EXPECT_EQ(f.Decide("app", "t", {}, r100, p600), D::kSkip);
  // Last chunk (unbounded), HW in the next file.
  EXPECT_EQ(f.Decide("app", "t", {}, r5000, {"bin.000001", 99999}), D::kSkip);
  EXPECT_EQ(f.Decide("app", "t", {}, r5000, {"bin.000002", 300}), D::kEmit);
  // A key change from chunk 2 (already applied) to chunk 1 (not yet): only the insert half.
  EXPECT_EQ(f.Decide("app", "t", r150, r50, p600), D::kEmitInsert);
  EXPECT_EQ(f.Decide("app", "t", r50, r150, p600), D::kEmitDelete);
  EXPECT_EQ(f.Decide("app", "t", r50, r99, p600), D::kEmit);
  // Other tables, and anything at or after the last HW, pass.
  EXPECT_EQ(f.Decide("app", "other", {}, r150, p600), D::kEmit);
  EXPECT_EQ(f.Decide("app", "t", {}, r150, {"bin.000002", 300}), D::kEmit);
  EXPECT_EQ(f.end(), (BinlogFilePos{"bin.000002", 300}));
}

TEST(IncrementalSnapshot, FilterRoundTripsThroughTheState) {
  TableSchema t = Table("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
  SnapshotFilter f = Filter(t);
  auto json = f.ToJson();
  auto back = SnapshotFilter::FromJson(
      json, [&](std::string_view db, std::string_view table) -> const TableSchema* {
        return db == "app" && table == "t" ? &t : nullptr;
      });
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->ToJson(), json);
  std::vector<Value> r150{Value::Int32(150), Value::Int32(0)};
  EXPECT_EQ(back->Decide("app", "t", {}, r150, {"bin.000001", 600}),
            SnapshotFilter::Decision::kSkip);
  // A state naming a table without a schema is refused.
  auto bad = SnapshotFilter::FromJson(
      json, [](std::string_view, std::string_view) -> const TableSchema* { return nullptr; });
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("app.t"), std::string::npos);
}

// COM_BINLOG_DUMP_GTID, laid out from the MySQL protocol documentation.
TEST(IncrementalSnapshot, BinlogDumpGtidBody) {
  auto set = GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7");
  ASSERT_TRUE(set);
  auto body = EncodeBinlogDumpGtid(0x01020304, false, *set);
  ASSERT_TRUE(body) << body.error().ToString();
  const std::vector<uint8_t> want = {
      0x04, 0x00,                                      // flags: BINLOG_THROUGH_GTID
      0x04, 0x03, 0x02, 0x01,                          // server id
      0x00, 0x00, 0x00, 0x00,                          // binlog name length
      0x04, 0,    0,    0,    0,    0,    0,    0,     // binlog position 4
      64,   0,    0,    0,                             // size of the GTID set
      1,    0,    0,    0,    0,    0,    0,    0,     // one source
      0x3e, 0x11, 0xfa, 0x47, 0x71, 0xca, 0x11, 0xe1,  // its uuid
      0x9e, 0x33, 0xc8, 0x0a, 0xa9, 0x42, 0x95, 0x62,  //
      2,    0,    0,    0,    0,    0,    0,    0,     // two intervals
      1,    0,    0,    0,    0,    0,    0,    0,    6, 0, 0, 0, 0, 0, 0, 0,  // [1, 6)
      7,    0,    0,    0,    0,    0,    0,    0,    8, 0, 0, 0, 0, 0, 0, 0,  // [7, 8)
  };
  EXPECT_EQ(std::vector<uint8_t>(body->begin(), body->end()), want);
  auto non_blocking = EncodeBinlogDumpGtid(1, true, *set);
  ASSERT_TRUE(non_blocking);
  EXPECT_EQ(static_cast<uint8_t>((*non_blocking)[0]), 0x05);
  auto maria = GtidSet::Parse("0-1-100");
  ASSERT_TRUE(maria);
  EXPECT_FALSE(EncodeBinlogDumpGtid(1, false, *maria));
}

}  // namespace
}  // namespace floe::cdc::mysql
