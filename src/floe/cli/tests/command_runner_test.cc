// The runner: a command body's outcome becomes the exit code and the one
// message format of docs/errors.md.

#include "floe/cli/command_runner.h"

#include <gtest/gtest.h>

#include <string>

namespace floe::cli {
namespace {

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `body` as the callback of `app sub`.
Outcome RunBody(std::function<CommandStatus()> body) {
  CLI::App app{"test", "floe"};
  CLI::App* sub = app.add_subcommand("sub", "a command");
  int exit_code = -1;
  SetCommandBody(*sub, &exit_code, std::move(body));
  const char* argv[] = {"floe", "sub"};
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  app.parse(2, argv);
  std::fflush(stdout);
  std::fflush(stderr);
  Outcome outcome;
  outcome.out = ::testing::internal::GetCapturedStdout();
  outcome.err = ::testing::internal::GetCapturedStderr();
  outcome.code = exit_code;
  return outcome;
}

TEST(CommandRunnerTest, SuccessExitsZeroAndPrintsNothingToStandardError) {
  Outcome o = RunBody([]() -> CommandStatus {
    std::fputs("done\n", stdout);
    return {};
  });
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out, "done\n");
  EXPECT_EQ(o.err, "");
}

TEST(CommandRunnerTest, AFailureExitsOneWithTheCodeAndMessage) {
  Outcome o = RunBody([]() -> CommandStatus { return NotFound("cannot open {}", "a.parquet"); });
  EXPECT_EQ(o.code, kExitFailure);
  EXPECT_EQ(o.err, "error: not found: cannot open a.parquet\n");
}

TEST(CommandRunnerTest, ALibraryStatusIsAFailure) {
  Outcome o = RunBody([]() -> CommandStatus {
    Status s = Corruption("bad bytes");
    FLOE_RETURN_IF_ERROR(s);
    return {};
  });
  EXPECT_EQ(o.code, kExitFailure);
  EXPECT_EQ(o.err, "error: corruption: bad bytes\n");
}

TEST(CommandRunnerTest, AUsageErrorExitsTwoAndPointsAtHelp) {
  Outcome o = RunBody([]() -> CommandStatus { return UsageError("--slot: empty"); });
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_EQ(o.err, "error: invalid argument: --slot: empty\nrun with --help for usage\n");
}

TEST(CommandRunnerTest, AsUsageTurnsAnErrorIntoAUsageError) {
  Outcome o = RunBody([]() -> CommandStatus { return AsUsage(InvalidArgument("--x: bad")); });
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_TRUE(AsUsage(Ok()).has_value());
}

TEST(CommandRunnerTest, WhatWasPrintedComesBeforeTheErrorAndTheMessageIsOneLine) {
  Outcome o = RunBody([]() -> CommandStatus {
    std::fputs("partial", stdout);
    return IoError("cannot open {}", "x\nerror: forged");
  });
  EXPECT_EQ(o.code, kExitFailure);
  EXPECT_EQ(o.out, "partial");
  EXPECT_EQ(o.err, "error: i/o error: cannot open x\\nerror: forged\n");
}

}  // namespace
}  // namespace floe::cli
