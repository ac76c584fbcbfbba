#pragma once
// Shared fixture of the snapshot producer tests: a fresh warehouse per test
// with a Hadoop or SQL catalog, a table (id long, name string, region
// string), and helpers to make data files.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/snapshot_producer.h"
#include "floe/iceberg/update/table_metadata_builder.h"
#include "floe/testing/status_matchers.h"
#include "floe/testing/temp_dir.h"

// The name the producer tests have used; the assertion is floe::testing's.
#define ASSERT_OK(expr) FLOE_ASSERT_OK(expr)

namespace floe::iceberg::testing {

inline types::Schema TestSchema() {
  return types::Schema({{1, "id", true, types::Type::Long(), ""},
                        {2, "name", false, types::Type::String(), ""},
                        {3, "region", false, types::Type::String(), ""}},
                       0);
}

class ProducerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "warehouse");
    catalog_ = std::make_unique<HadoopCatalog>("default", (dir_ / "warehouse").string(), &io_);
    ASSERT_TRUE(catalog_->CreateNamespace({"ns"}));
  }

  void UseSqlCatalog() {
    auto sql = SqlCatalog::Open("default", "sqlite:///" + (dir_ / "catalog.db").string(),
                                "file://" + (dir_ / "warehouse").string(), &io_);
    ASSERT_TRUE(sql) << sql.error().ToString();
    catalog_ = std::move(*sql);
    ASSERT_TRUE(catalog_->CreateNamespace({"ns"}));
  }

  /// Creates ns.t, partitioned by `partition_by` (blank: unpartitioned).
  Table CreateTable(const std::string& partition_by = "",
                    std::map<std::string, std::string> properties = {},
                    int format_version = kDefaultFormatVersion) {
    auto builder = TableMetadataBuilder::ForNewTable(format_version);
    EXPECT_TRUE(builder);
    EXPECT_TRUE(builder->Apply(update::AddSchema{TestSchema(), std::nullopt}));
    EXPECT_TRUE(builder->Apply(update::SetCurrentSchema{-1}));
    EXPECT_TRUE(builder->Apply(update::SetLocation{catalog_->DefaultTableLocation({{"ns"}, "t"})}));
    if (!partition_by.empty()) {
      auto spec = ParsePartitionSpecText(partition_by, TestSchema());
      EXPECT_TRUE(spec) << spec.error().ToString();
      EXPECT_TRUE(builder->Apply(update::AddPartitionSpec{*spec, false}));
      EXPECT_TRUE(builder->Apply(update::SetDefaultSpec{-1}));
    }
    if (!properties.empty()) {
      EXPECT_TRUE(builder->Apply(update::SetProperties{properties}));
    }
    auto metadata = builder->Build();
    EXPECT_TRUE(metadata) << metadata.error().ToString();
    auto loaded = catalog_->CreateTable({{"ns"}, "t"}, *metadata);
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return Table(catalog_.get(), *loaded);
  }

  Table Reload() {
    auto t = Table::Load(*catalog_, {{"ns"}, "t"});
    EXPECT_TRUE(t) << t.error().ToString();
    return std::move(*t);
  }

  /// A data file (not written) of `records` rows; for identity(region)
  /// tables pass the region as partition.
  DataFile MakeFile(const std::string& name, int64_t records,
                    std::optional<std::string> region = std::nullopt) {
    DataFile f;
    f.file_path = (dir_ / "warehouse" / "ns" / "t" / "data" / (name + ".parquet")).string();
    f.record_count = records;
    f.file_size_in_bytes = 100 * records;
    if (region) {
      f.partition.push_back(Literal::String(*region));
      f.lower_bounds[3] = *region;
      f.upper_bounds[3] = *region;
      f.null_value_counts[3] = 0;
    }
    return f;
  }

  std::vector<LiveFile> Live(const Table& table) {
    auto files = ReadLiveFiles(io_, table.metadata(), table.metadata().CurrentSnapshot());
    EXPECT_TRUE(files) << files.error().ToString();
    return files ? *files : std::vector<LiveFile>{};
  }

  std::set<std::string> LivePaths(const Table& table) {
    std::set<std::string> out;
    for (const auto& f : Live(table)) out.insert(f.entry.data_file.file_path);
    return out;
  }

  static int64_t Total(const Table& t, std::string_view key) {
    auto v = t.metadata().CurrentSnapshot()->SummaryValue(key);
    return v ? std::stoll(*v) : -1;
  }

  io::LocalFileIO io_;
  floe::testing::TempDir temp_dir_{"producer"};
  std::filesystem::path dir_ = temp_dir_.path();
  std::unique_ptr<Catalog> catalog_;
};

}  // namespace floe::iceberg::testing
