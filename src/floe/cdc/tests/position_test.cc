#include "floe/cdc/position.h"

#include <gtest/gtest.h>

namespace floe::cdc {
namespace {

TEST(BinlogFilePosTest, ParseAndOrderByFileSequence) {
  auto a = BinlogFilePos::Parse("mysql-bin.000009:1234");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->file, "mysql-bin.000009");
  EXPECT_EQ(a->pos, 1234u);
  auto b = BinlogFilePos::Parse("mysql-bin.000010:4");
  ASSERT_TRUE(b);
  EXPECT_EQ(Compare(*a, *b), -1);
  EXPECT_EQ(Compare(*b, *a), 1);
  EXPECT_EQ(Compare(*a, *a), 0);
  EXPECT_FALSE(BinlogFilePos::Parse("nocolon"));
  EXPECT_FALSE(BinlogFilePos::Parse("f.1:x"));
  EXPECT_EQ(a->ToString(), "mysql-bin.000009:1234");
}

TEST(GtidSetTest, MySqlSetsMergeAndContain) {
  auto s = GtidSet::Parse(
      "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7,3e11fa47-71ca-11e1-9e33-c80aa9429562:6");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->flavor(), GtidSet::Flavor::kMySql);
  EXPECT_EQ(s->ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7");
  EXPECT_TRUE(s->ContainsGtid("3e11fa47-71ca-11e1-9e33-c80aa9429562:4"));
  EXPECT_FALSE(s->ContainsGtid("3e11fa47-71ca-11e1-9e33-c80aa9429562:8"));
  ASSERT_TRUE(s->AddMySql("3e11fa47-71ca-11e1-9e33-c80aa9429562", 8));
  EXPECT_EQ(s->ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-8");
  ASSERT_TRUE(s->AddMySql("3e11fa47-71ca-11e1-9e33-c80aa9429562", 10));
  EXPECT_EQ(s->ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-8:10");
  EXPECT_FALSE(GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:5-3"));
  EXPECT_FALSE(GtidSet::Parse("not-a-uuid:1"));
  EXPECT_FALSE(s->AddMariaDb(MariaDbGtid{0, 1, 5}));
}

TEST(GtidSetTest, MariaDbPositions) {
  auto s = GtidSet::Parse("1-2-50,0-1-100");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->flavor(), GtidSet::Flavor::kMariaDb);
  EXPECT_EQ(s->ToString(), "0-1-100,1-2-50");
  EXPECT_TRUE(s->ContainsGtid("0-1-99"));
  EXPECT_TRUE(s->ContainsGtid("0-1-100"));
  EXPECT_FALSE(s->ContainsGtid("0-1-101"));
  EXPECT_FALSE(s->ContainsGtid("2-1-1"));
  EXPECT_FALSE(GtidSet::Parse("0-1"));
  EXPECT_FALSE(GtidSet::Parse("0-1-100,3e11fa47-71ca-11e1-9e33-c80aa9429562:1"));
}

TEST(SourcePositionTest, JsonRoundTripAndCompare) {
  SourcePosition p;
  p.binlog = {"mariadb-bin.000002", 3456};
  p.gtids = *GtidSet::Parse("0-1-42");
  p.server_id = 1;
  p.gtid = "0-1-42";
  auto back = SourcePosition::FromJsonString(p.ToJsonString());
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(*back, p);

  SourcePosition q = p;
  q.gtids = *GtidSet::Parse("0-1-43");
  q.binlog.pos = 4000;
  EXPECT_EQ(ComparePositions(p, q), -1);
  EXPECT_EQ(ComparePositions(q, p), 1);
  SourcePosition r;
  r.binlog = {"mariadb-bin.000003", 4};
  SourcePosition s;
  s.binlog = {"mariadb-bin.000002", 999999};
  EXPECT_EQ(ComparePositions(r, s), 1);
  EXPECT_FALSE(ComparePositions(SourcePosition{}, SourcePosition{}).has_value());
  EXPECT_FALSE(SourcePosition::FromJsonString("{\"pos\": \"x\"}"));
  EXPECT_FALSE(SourcePosition::FromJsonString("not json"));
}

}  // namespace
}  // namespace floe::cdc
