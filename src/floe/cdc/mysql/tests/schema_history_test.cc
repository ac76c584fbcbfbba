#include "floe/cdc/mysql/schema_history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace floe::cdc::mysql {
namespace {

SourcePosition At(uint64_t pos) {
  SourcePosition p;
  p.binlog = BinlogFilePos{"mysql-bin.000001", pos};
  return p;
}

TableSchema Schema(std::string table, std::vector<std::string> columns) {
  TableSchema t;
  t.db = "app";
  t.table = std::move(table);
  for (auto& c : columns) t.columns.push_back(ColumnDef{.name = c, .type = MysqlType::kInt});
  AssignFieldIds(t);
  return t;
}

class SchemaHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("floe_schema_history_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                .string();
    std::filesystem::remove(path_);
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(SchemaHistoryTest, LoadAsOfRebuildsTheSchemaValidThen) {
  {
    auto h = SchemaHistory::Open(path_);
    ASSERT_TRUE(h) << h.error().ToString();
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""},
                           {At(100), "app", "u", Schema("u", {"k"}), ""}}));
    ASSERT_TRUE(h->Append({{At(200), "app", "t", Schema("t", {"id", "a"}), "ALTER ..."}}));
    ASSERT_TRUE(h->Append({{At(300), "app", "u", std::nullopt, "DROP TABLE u"}}));
  }
  auto h = SchemaHistory::Open(path_);
  ASSERT_TRUE(h);
  auto at150 = h->LoadAsOf(At(150));
  ASSERT_TRUE(at150) << at150.error().ToString();
  ASSERT_EQ(at150->size(), 2u);
  EXPECT_EQ((*at150)[0].columns.size(), 1u);
  auto at250 = h->LoadAsOf(At(250));
  ASSERT_TRUE(at250);
  ASSERT_EQ(at250->size(), 2u);
  EXPECT_EQ((*at250)[0].columns.size(), 2u);
  EXPECT_EQ((*at250)[0].columns[1].field_id, 2);
  auto at300 = h->LoadAsOf(At(300));
  ASSERT_TRUE(at300);
  ASSERT_EQ(at300->size(), 1u);
  EXPECT_EQ((*at300)[0].table, "t");
  EXPECT_TRUE(h->LoadAsOf(At(50))->empty());
}

TEST_F(SchemaHistoryTest, TornLastLineIsIgnoredAndCutOff) {
  {
    auto h = SchemaHistory::Open(path_);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""}}));
  }
  {
    std::ofstream f(path_, std::ios::app);
    f << "{\"pos\": {\"file\": \"mysql-bin.0000";  // crash mid-write
  }
  auto records = ReadSchemaHistory(path_);
  ASSERT_TRUE(records) << records.error().ToString();
  EXPECT_EQ(records->size(), 1u);
  {
    auto h = SchemaHistory::Open(path_);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->Append({{At(200), "app", "t", Schema("t", {"id", "b"}), ""}}));
  }
  records = ReadSchemaHistory(path_);
  ASSERT_TRUE(records) << records.error().ToString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[1].schema->columns[1].name, "b");
}

TEST_F(SchemaHistoryTest, CorruptCompleteLineIsCorruption) {
  {
    std::ofstream f(path_);
    f << "{\"pos\": {\"file\": \"mysql-bin.000001\", \"pos\": 4}, \"db\": \"a\", \"table\": "
         "\"t\", \"schema\": null}\n";
    f << "not json\n";
  }
  auto h = SchemaHistory::Open(path_);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(h.error().message().find("line 2"), std::string::npos) << h.error().message();
}

}  // namespace
}  // namespace floe::cdc::mysql
