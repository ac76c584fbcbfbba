#pragma once
// Runs the floe command line in process (cli_app.h), capturing what it
// prints, for the CLI's tests.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "floe/cli/cli_app.h"

namespace floe::cli::testing {

/// What one run of the command line did.
struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `floe <args...>` in process.
inline CliRun RunFloe(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"floe"};
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CliRun run;
  run.code = RunCli(static_cast<int>(argv.size()), argv.data());
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  run.out = ::testing::internal::GetCapturedStdout();
  run.err = ::testing::internal::GetCapturedStderr();
  return run;
}

/// A fresh folder per test, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes `text` to `name` in the test's folder and returns its path.
  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr) << path;
    if (f != nullptr) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
    return path;
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

}  // namespace floe::cli::testing
