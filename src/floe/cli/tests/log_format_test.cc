// Where the logs of a command go (log_format.h): standard error, never
// standard output, which carries a command's result.

#include "floe/cli/log_format.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <string>

namespace floe::cli {
namespace {

struct CapturedLog {
  std::string out;
  std::string err;
};

CapturedLog WarnCaptured(const std::string& message) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  spdlog::warn("{}", message);
  spdlog::default_logger()->flush();
  CapturedLog log;
  log.out = ::testing::internal::GetCapturedStdout();
  log.err = ::testing::internal::GetCapturedStderr();
  return log;
}

TEST(LogFormatTest, DefaultLoggerWritesToStandardErrorOnly) {
  SetUpDefaultLogging();
  CapturedLog log = WarnCaptured("a warning\nwith a newline");
  EXPECT_EQ(log.out, "");
  EXPECT_NE(log.err.find("[warning] a warning\\nwith a newline"), std::string::npos) << log.err;
}

TEST(LogFormatTest, CommandLoggerWritesToStandardErrorOnly) {
  CommandLogOptions options;
  options.name = "log-format-test";
  ASSERT_TRUE(SetUpCommandLogging(options).has_value());
  CapturedLog log = WarnCaptured("from a command");
  EXPECT_EQ(log.out, "");
  EXPECT_NE(log.err.find("warning from a command"), std::string::npos) << log.err;
}

}  // namespace
}  // namespace floe::cli
