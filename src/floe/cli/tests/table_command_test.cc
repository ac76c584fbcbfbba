// `floe table` against a Hadoop catalog in a temporary folder: the
// subcommands only parse and call the library, and report through the runner.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "floe/cli/tests/cli_test_util.h"

namespace floe::cli::testing {
namespace {

class TableCommandTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::filesystem::create_directories(dir_ / "warehouse");
    config_ = WriteFile("floe.yaml", "catalog:\n  default:\n    type: hadoop\n    warehouse: " +
                                         Path("warehouse") + "\n");
    schema_ = WriteFile("s.json", R"({"type":"struct","fields":[)"
                                  R"({"id":1,"name":"id","required":true,"type":"long"},)"
                                  R"({"id":2,"name":"name","required":false,"type":"string"}]})");
  }

  CliRun Table(std::vector<std::string> args) {
    args.insert(args.begin(), {"table", "--catalog-config", config_});
    return RunFloe(args);
  }

  /// A Parquet file of `rows` JSON rows, written by `floe parquet write`.
  std::string Parquet(const std::string& name, const std::string& rows) {
    std::string out = Path(name);
    CliRun run =
        RunFloe({"parquet", "write", "--schema", schema_, WriteFile(name + ".jsonl", rows), out});
    EXPECT_EQ(run.code, 0) << run.err;
    return out;
  }

  std::string config_;
  std::string schema_;
};

TEST_F(TableCommandTest, AddFilesAddsParquetFilesAndRefusesThemTwice) {
  ASSERT_EQ(Table({"create-namespace", "ns"}).code, 0);
  ASSERT_EQ(Table({"create", "ns.t", "--schema", schema_}).code, 0);
  std::string a = Parquet("a.parquet", "{\"id\": 1, \"name\": \"ann\"}\n{\"id\": 2}\n");
  std::string b = Parquet("b.parquet", "{\"id\": 3}\n");

  CliRun added = Table({"add-files", "ns.t", a, b});
  ASSERT_EQ(added.code, 0) << added.err;
  EXPECT_TRUE(added.out.starts_with("added 2 files (3 rows) to ns.t (snapshot ")) << added.out;

  CliRun files = Table({"files", "ns.t", "--json"});
  ASSERT_EQ(files.code, 0) << files.err;
  EXPECT_NE(files.out.find("\"file_path\":\"" + a + "\""), std::string::npos) << files.out;
  EXPECT_NE(files.out.find("\"file_path\":\"" + b + "\""), std::string::npos) << files.out;

  CliRun again = Table({"add-files", "ns.t", a});
  EXPECT_EQ(again.code, 1);
  EXPECT_TRUE(again.err.starts_with("error: already exists: table ns.t already has " + a))
      << again.err;
  CliRun allowed = Table({"add-files", "ns.t", a, "--allow-duplicates"});
  EXPECT_EQ(allowed.code, 0) << allowed.err;

  CliRun scan = Table({"scan", "ns.t", "--columns", "id"});
  ASSERT_EQ(scan.code, 0) << scan.err;
  // a.parquet's rows twice, b.parquet's once (in plan order).
  std::multiset<std::string> rows;
  for (size_t start = 0, end; (end = scan.out.find('\n', start)) != std::string::npos;
       start = end + 1) {
    rows.insert(scan.out.substr(start, end - start));
  }
  EXPECT_EQ(rows, (std::multiset<std::string>{"{\"id\":1}", "{\"id\":1}", "{\"id\":2}",
                                              "{\"id\":2}", "{\"id\":3}"}));
}

TEST_F(TableCommandTest, AppendTakesJsonLinesAndParquetInOneSnapshot) {
  ASSERT_EQ(Table({"create-namespace", "ns"}).code, 0);
  ASSERT_EQ(Table({"create", "ns.t", "--schema", schema_}).code, 0);
  std::string a = Parquet("a.parquet", "{\"id\": 1}\n");
  std::string rows = WriteFile("rows.jsonl", "{\"id\": 2}\n{\"id\": 3}\n");
  CliRun appended = Table({"append", "ns.t", a, rows});
  ASSERT_EQ(appended.code, 0) << appended.err;
  EXPECT_TRUE(appended.out.starts_with("appended 3 rows in 2 files to ns.t")) << appended.out;
  CliRun snapshots = Table({"snapshots", "ns.t", "--json"});
  EXPECT_EQ(snapshots.code, 0);
  EXPECT_EQ(snapshots.out.find("\"snapshot-id\""), snapshots.out.rfind("\"snapshot-id\""));

  CliRun bad = Table({"append", "ns.t", WriteFile("bad.jsonl", "{\"id\": \"x\"}\n")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("bad.jsonl:1: "), std::string::npos) << bad.err;
}

TEST_F(TableCommandTest, FailuresAndUsageErrorsOfTableSubcommands) {
  CliRun missing = Table({"describe", "ns.none"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(missing.err.starts_with("error: ")) << missing.err;
  EXPECT_EQ(Table({"add-files", "ns.t"}).code, 2);
  EXPECT_EQ(Table({"expire", "ns.t", "--older-than", "soon"}).code, 2);
  EXPECT_EQ(Table({"create-namespace", "ns\xff"}).code, 2);
}

}  // namespace
}  // namespace floe::cli::testing
