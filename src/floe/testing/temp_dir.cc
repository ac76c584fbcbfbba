#include "floe/testing/temp_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

namespace floe::testing {

TempDir::TempDir(std::string_view prefix) {
  std::string name = fmt::format("floe_{}_{}", prefix, ::getpid());
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name += fmt::format("_{}_{}", info->test_suite_name(), info->name());
  }
  // Parameterized tests have '/' in their names.
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  path_ = std::filesystem::temp_directory_path() / name;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace floe::testing
