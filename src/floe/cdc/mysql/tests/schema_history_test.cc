#include "floe/cdc/mysql/schema_history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "floe/testing/fault_file_io.h"
#include "floe/testing/temp_dir.h"

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
  floe::testing::TempDir dir_{"schema_history"};
  std::string path_ = dir_ / "history.jsonl";
  io::LocalFileIO io_;
};

TEST_F(SchemaHistoryTest, LoadAsOfRebuildsTheSchemaValidThen) {
  {
    auto h = SchemaHistory::Open(io_, path_);
    ASSERT_TRUE(h) << h.error().ToString();
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""},
                           {At(100), "app", "u", Schema("u", {"k"}), ""}}));
    ASSERT_TRUE(h->Append({{At(200), "app", "t", Schema("t", {"id", "a"}), "ALTER ..."}}));
    ASSERT_TRUE(h->Append({{At(300), "app", "u", std::nullopt, "DROP TABLE u"}}));
  }
  auto h = SchemaHistory::Open(io_, path_);
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
    auto h = SchemaHistory::Open(io_, path_);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""}}));
  }
  {
    std::ofstream f(path_, std::ios::app);
    f << "{\"pos\": {\"file\": \"mysql-bin.0000";  // crash mid-write
  }
  auto records = ReadSchemaHistory(io_, path_);
  ASSERT_TRUE(records) << records.error().ToString();
  EXPECT_EQ(records->size(), 1u);
  {
    auto h = SchemaHistory::Open(io_, path_);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->Append({{At(200), "app", "t", Schema("t", {"id", "b"}), ""}}));
  }
  records = ReadSchemaHistory(io_, path_);
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
  auto h = SchemaHistory::Open(io_, path_);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(h.error().message().find("line 2"), std::string::npos) << h.error().message();
}

// Crash safety through floe::testing::FaultyFileIO: a crash at any step of
// opening and appending, with the writes that were not synced lost, leaves a
// history that reopens with whole records, and a retried append lands.
TEST_F(SchemaHistoryTest, CrashAtEveryStepOfAnAppendKeepsWholeRecords) {
  auto first = [&] {
    auto h = SchemaHistory::Open(io_, path_);
    ASSERT_TRUE(h) << h.error().ToString();
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""}}));
  };
  auto second = [&](io::FileIO& file_io) -> Status {
    FLOE_ASSIGN_OR_RETURN(SchemaHistory h, SchemaHistory::Open(file_io, path_));
    return h.Append({{At(200), "app", "t", Schema("t", {"id", "b"}), "ALTER TABLE t ADD b INT"}});
  };
  first();
  floe::testing::FaultyFileIO clean;
  ASSERT_TRUE(second(clean));
  const int steps = clean.changes();
  ASSERT_GE(steps, 3);  // open, append, sync

  for (int k = 1; k <= steps; ++k) {
    SCOPED_TRACE("crash at change " + std::to_string(k));
    std::filesystem::remove(path_);
    first();
    floe::testing::FaultyFileIO faulty;
    faulty.FailNthChange(k);
    ASSERT_FALSE(second(faulty));
    faulty.Restart();
    faulty.LoseUnsyncedWrites();

    auto records = ReadSchemaHistory(io_, path_);
    ASSERT_TRUE(records) << records.error().ToString();
    ASSERT_GE(records->size(), 1u);
    ASSERT_LE(records->size(), 2u);
    if (records->size() == 1) ASSERT_TRUE(second(io_));
    records = ReadSchemaHistory(io_, path_);
    ASSERT_TRUE(records) << records.error().ToString();
    ASSERT_EQ(records->size(), 2u);
    EXPECT_EQ((*records)[1].ddl, "ALTER TABLE t ADD b INT");
  }
}

TEST_F(SchemaHistoryTest, TornAppendIsSkippedByReadersAndCutOffOnReopen) {
  {
    auto h = SchemaHistory::Open(io_, path_);
    ASSERT_TRUE(h);
    ASSERT_TRUE(h->Append({{At(100), "app", "t", Schema("t", {"id"}), ""}}));
  }
  uint64_t whole = std::filesystem::file_size(path_);
  floe::testing::FaultyFileIO faulty;
  {
    auto h = SchemaHistory::Open(faulty, path_);
    ASSERT_TRUE(h);
    faulty.Arm(
        {.contains = "", .suffix = "", .step = floe::testing::FaultStep::kTornWrite, .nth = 1});
    ASSERT_FALSE(h->Append({{At(200), "app", "t", Schema("t", {"id", "b"}), ""}}));
    // The process is dead: the failed append could not cut its half line off.
    auto again = h->Append({{At(300), "app", "t", Schema("t", {"id"}), ""}});
    ASSERT_FALSE(again);
  }
  faulty.Restart();
  ASSERT_GT(std::filesystem::file_size(path_), whole);  // the torn half line

  auto records = ReadSchemaHistory(faulty, path_);
  ASSERT_TRUE(records) << records.error().ToString();
  EXPECT_EQ(records->size(), 1u);
  {
    auto h = SchemaHistory::Open(faulty, path_);
    ASSERT_TRUE(h) << h.error().ToString();
    EXPECT_EQ(std::filesystem::file_size(path_), whole);
    ASSERT_TRUE(h->Append({{At(200), "app", "t", Schema("t", {"id", "b"}), ""}}));
  }
  faulty.LoseUnsyncedWrites();  // the cut and the append were synced: nothing lost
  records = ReadSchemaHistory(io_, path_);
  ASSERT_TRUE(records) << records.error().ToString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[1].schema->columns[1].name, "b");
}

TEST_F(SchemaHistoryTest, AFileIOThatCannotAppendIsNotSupported) {
  class NoAppend final : public io::FileIO {
   public:
    Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view p) override {
      return NotFound("{}", p);
    }
    Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view p, bool) override {
      return NotSupported("{}", p);
    }
    Status Delete(std::string_view) override { return Ok(); }
    Result<bool> Exists(std::string_view) override { return false; }
    Status Rename(std::string_view, std::string_view, bool) override { return Ok(); }
    Result<std::vector<io::FileInfo>> List(std::string_view) override {
      return std::vector<io::FileInfo>{};
    }
  } no_append;
  auto h = SchemaHistory::Open(no_append, path_);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().code(), ErrorCode::kNotSupported);
}

}  // namespace
}  // namespace floe::cdc::mysql
