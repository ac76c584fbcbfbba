#pragma once
/// TempDir: a fresh, empty folder for one test, removed with everything in it
/// when the TempDir is destroyed. Its name holds the running test's suite and
/// name and the process id, so that tests of one binary run in parallel
/// (ctest -j) never share a folder.

#include <filesystem>
#include <string>
#include <string_view>

namespace floe::testing {

class TempDir {
 public:
  /// Makes `<temp>/floe_<prefix>_<pid>_<suite>_<test>`; a folder left there
  /// by an earlier run is emptied first. `prefix` tells modules apart.
  explicit TempDir(std::string_view prefix = "test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The path as a string.
  std::string str() const { return path_.string(); }
  /// `name` inside the folder (which need not exist).
  std::string operator/(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace floe::testing
