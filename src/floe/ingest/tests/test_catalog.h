#pragma once
// Test helpers: a temporary folder and a Hadoop catalog in it.

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/io/file_io.h"

namespace floe::ingest::testing {

/// A fresh folder named after the running test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("floe_ingest_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" +
             info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// A Hadoop catalog over the local file system that owns its FileIO.
inline std::shared_ptr<iceberg::Catalog> MakeHadoopCatalog(const std::string& warehouse) {
  struct Holder {
    explicit Holder(const std::string& w) : catalog("test", w, &io) {}
    io::LocalFileIO io;
    iceberg::HadoopCatalog catalog;
  };
  auto holder = std::make_shared<Holder>(warehouse);
  return std::shared_ptr<iceberg::Catalog>(holder, &holder->catalog);
}

}  // namespace floe::ingest::testing
