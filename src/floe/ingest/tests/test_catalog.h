#pragma once
// Test helpers: a temporary folder and a Hadoop catalog in it.

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/io/file_io.h"
#include "floe/testing/temp_dir.h"

namespace floe::ingest::testing {

using ::floe::testing::TempDir;

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
