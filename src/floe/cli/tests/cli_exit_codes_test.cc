// The command line's contract (docs/errors.md, "Exit codes and messages"),
// run in process: --help for every command, exit 2 with one message format
// for a wrong command line, exit 1 with `error: <code>: <message>` for a
// failure.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "floe/cli/cli_app.h"
#include "floe/cli/tests/cli_test_util.h"

namespace floe::cli::testing {
namespace {

/// The command path of every command and subcommand ("table", "table scan").
std::vector<std::vector<std::string>> EveryCommand() {
  int exit_code = 0;
  auto app = BuildApp(&exit_code);
  std::vector<std::vector<std::string>> out;
  std::function<void(const CLI::App&, std::vector<std::string>)> walk =
      [&](const CLI::App& command, std::vector<std::string> path) {
        for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) {
          std::vector<std::string> sub_path = path;
          sub_path.push_back(sub->get_name());
          out.push_back(sub_path);
          walk(*sub, sub_path);
        }
      };
  walk(*app, {});
  return out;
}

void ExpectUsageError(const CliRun& run, const std::string& needle) {
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_TRUE(run.err.starts_with("error: ")) << run.err;
  EXPECT_NE(run.err.find(needle), std::string::npos) << run.err;
  EXPECT_TRUE(run.err.ends_with("\nrun with --help for usage\n")) << run.err;
  EXPECT_EQ(run.out, "");
}

void ExpectFailure(const CliRun& run, const std::string& needle) {
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(run.err.starts_with("error: ")) << run.err;
  EXPECT_NE(run.err.find(needle), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("--help"), std::string::npos) << run.err;
}

TEST(CliHelpTest, EveryCommandHasHelpThatExitsZero) {
  auto commands = EveryCommand();
  // parquet, avro, capture, table, ingest, run, read and their subcommands.
  ASSERT_GE(commands.size(), 25u);
  for (auto args : commands) {
    std::string path = "floe";
    for (const auto& a : args) path += " " + a;
    SCOPED_TRACE(path);
    args.push_back("--help");
    CliRun run = RunFloe(args);
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_NE(run.out.find("Usage: " + path), std::string::npos) << run.out;
    EXPECT_EQ(run.err, "");
  }
}

TEST(CliHelpTest, TopLevelHelpAndVersion) {
  CliRun help = RunFloe({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* command : {"parquet", "avro", "capture", "table", "ingest", "run", "read"}) {
    EXPECT_NE(help.out.find(command), std::string::npos) << command;
  }
  CliRun version = RunFloe({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("floe "), std::string::npos);
}

TEST(CliUsageTest, NoCommandOrAnUnknownOneExitsTwo) {
  ExpectUsageError(RunFloe({}), "floe");
  ExpectUsageError(RunFloe({"bogus"}), "unknown command 'floe bogus' (expected one of: parquet");
  ExpectUsageError(RunFloe({"table", "bogus"}), "unknown command 'floe table bogus'");
}

TEST(CliUsageTest, AnUnknownFlagExitsTwo) {
  ExpectUsageError(RunFloe({"parquet", "cat", "--bogus", "x.parquet"}), "--bogus");
  ExpectUsageError(RunFloe({"ingest", "--no-such-flag", "in.json"}), "--no-such-flag");
  ExpectUsageError(RunFloe({"table", "list", "--bogus"}), "--bogus");
}

TEST(CliUsageTest, AMissingRequiredArgumentExitsTwo) {
  ExpectUsageError(RunFloe({"parquet", "cat"}), "file is required");
  ExpectUsageError(RunFloe({"table", "create", "ns.t"}), "--schema");
  ExpectUsageError(RunFloe({"avro", "write", "--schema", "s.avsc", "in.json"}), "OUT");
  ExpectUsageError(RunFloe({"run"}), "pipeline");
}

TEST(CliUsageTest, AnInvalidValueExitsTwo) {
  ExpectUsageError(
      RunFloe({"parquet", "write", "--codec", "brotli", "--schema", "s.json", "in", "out"}),
      "'brotli' is not one of");
  ExpectUsageError(RunFloe({"ingest", "--compression-codec", "brotli", "in.json"}), "brotli");
  ExpectUsageError(RunFloe({"read", "ns.t", "--parallelism", "0"}), "out of range");
  ExpectUsageError(RunFloe({"ingest", "--memory-budget", "lots", "in.json"}), "not a size");
  ExpectUsageError(RunFloe({"run", "p.yaml", "--log-level", "loud"}), "'loud' is not one of");
  ExpectUsageError(RunFloe({"table", "expire", "ns.t", "--retain-last", "0"}), "out of range");
  ExpectUsageError(RunFloe({"capture", "mysql", "--port", "70000"}), "--port");
}

TEST(CliUsageTest, ConflictingOrMissingChoicesExitTwo) {
  ExpectUsageError(RunFloe({"table", "scan", "ns.t", "--snapshot", "1", "--as-of", "2024-01-01"}),
                   "excludes");
  ExpectUsageError(RunFloe({"table", "evolve", "ns.t"}), "nothing to change");
}

TEST(CliUsageTest, OptionsACommandRefusesBeforeOpeningAnythingExitTwo) {
  // Found by the command, not by the parser: still a usage error.
  ExpectUsageError(RunFloe({"read", "ns.t", "--starting-strategy", "incremental-from-snapshot-id"}),
                   "--start-snapshot-id");
  ExpectUsageError(RunFloe({"capture", "postgres", "--slot", ""}), "--slot: empty");
}

TEST_F(CliTest, AMissingInputFileExitsOneWithTheErrorFormat) {
  std::string missing = Path("missing.parquet");
  CliRun run = RunFloe({"parquet", "cat", missing});
  ExpectFailure(run, missing);
  EXPECT_TRUE(run.err.starts_with("error: not found: ")) << run.err;
  ExpectFailure(RunFloe({"avro", "schema", Path("missing.avro")}), "missing.avro");
  ExpectFailure(RunFloe({"parquet", "write", "--schema", Path("missing.json"), "-", Path("o")}),
                "missing.json");
}

TEST_F(CliTest, AMissingCatalogConfigExitsOne) {
  ExpectFailure(RunFloe({"table", "--catalog-config", Path("none.yaml"), "list"}), "none.yaml");
}

TEST_F(CliTest, ABadRowIsAFailureNamingTheLine) {
  std::string schema = WriteFile(
      "s.json",
      R"({"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]})");
  std::string rows = WriteFile("rows.jsonl", "{\"id\": 1}\n{\"id\": \"x\"}\n");
  std::string out = Path("out.parquet");
  CliRun run = RunFloe({"parquet", "write", "--schema", schema, rows, out});
  ExpectFailure(run, "rows.jsonl:2: ");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(CliTest, ANameWithANewlineCannotForgeALine) {
  std::string missing = Path("x") + "\nerror: forged";
  CliRun run = RunFloe({"parquet", "meta", missing});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
}

TEST_F(CliTest, ASuccessfulCommandExitsZero) {
  std::string schema = WriteFile(
      "s.json",
      R"({"type":"struct","fields":[{"id":1,"name":"id","required":true,"type":"long"}]})");
  std::string rows = WriteFile("rows.jsonl", "{\"id\": 1}\n{\"id\": 2}\n");
  std::string out = Path("out.parquet");
  CliRun write = RunFloe({"parquet", "write", "--schema", schema, rows, out});
  EXPECT_EQ(write.code, 0) << write.err;
  EXPECT_NE(write.out.find("wrote 2 rows"), std::string::npos) << write.out;
  CliRun cat = RunFloe({"parquet", "cat", out});
  EXPECT_EQ(cat.code, 0) << cat.err;
  EXPECT_EQ(cat.out, "{\"id\":1}\n{\"id\":2}\n");
  EXPECT_EQ(cat.err, "");
}

}  // namespace
}  // namespace floe::cli::testing
