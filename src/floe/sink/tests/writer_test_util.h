#pragma once
// Shared helpers of the sink writer tests: tables on local disk (the scan
// tests' TestTable), targets for them, a collecting Collector, committing
// WriteResults as one snapshot, and reading a table back as sorted JSON rows.

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/engine/operator.h"
#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/sink/record.h"
#include "floe/testing/status_matchers.h"

namespace floe::sink::testing {

using iceberg::scantest::TestTable;
using types::Type;
using types::Value;

template <typename T>
class CollectingCollector : public engine::Collector<T> {
 public:
  Status Emit(T record) override {
    records.push_back(std::move(record));
    return Ok();
  }
  std::vector<T> records;
};

/// id long (key), region string, name string, n int.
inline types::Schema PeopleSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "region", true, Type::String(), ""},
                        {3, "name", false, Type::String(), ""},
                        {4, "n", false, Type::Int(), ""}},
                       0);
}

inline TableTargetPtr MakeTarget(TestTable& table, std::string name,
                                 std::vector<int32_t> equality_ids, bool upsert) {
  auto t = std::make_shared<TableTarget>();
  t->id = iceberg::TableIdentifier{{"db"}, name};
  t->key = t->id.ToString();
  t->metadata = std::make_shared<iceberg::TableMetadata>(table.metadata());
  t->upsert = upsert;
  t->equality_field_ids = std::move(equality_ids);
  return t;
}

/// Commits the files of `results` as one snapshot of `table`.
inline void CommitResults(TestTable& table, const std::vector<WriteResult>& results) {
  std::vector<TestTable::Added> files;
  for (const auto& r : results) {
    for (const auto& f : r.data_files) files.push_back({f, r.spec_id});
    for (const auto& f : r.delete_files) files.push_back({f, r.spec_id});
  }
  table.Commit("delta", files);
}

/// The table's rows as JSON lines, sorted.
inline std::vector<std::string> Rows(TestTable& table) {
  auto rows = iceberg::scantest::ScanJson(table.io(), table.metadata(), {});
  EXPECT_TRUE(rows) << rows.error().ToString();
  if (!rows) return {};
  std::sort(rows->begin(), rows->end());
  return *rows;
}

/// A row of PeopleSchema; the strings must outlive its use.
struct Person {
  int64_t id;
  std::string region;
  std::string name;
  int32_t n;
  std::vector<Value> values() const {
    return {Value::Int64(id), Value::Bytes(region), Value::Bytes(name), Value::Int32(n)};
  }
  std::string json() const {
    return "{\"id\":" + std::to_string(id) + ",\"region\":\"" + region + "\",\"name\":\"" + name +
           "\",\"n\":" + std::to_string(n) + "}";
  }
};

/// LocalFileIO whose files skip fsync: for tests that measure memory with
/// thousands of files, not durability.
class NoSyncFileIO final : public io::FileIO {
 public:
  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view path) override {
    return local_.OpenInput(path);
  }
  Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view path,
                                                       bool overwrite) override {
    FLOE_ASSIGN_OR_RETURN(auto file, local_.CreateOutput(path, overwrite));
    return std::unique_ptr<io::OutputFile>(new NoSync(std::move(file)));
  }
  Status Delete(std::string_view path) override { return local_.Delete(path); }
  Result<bool> Exists(std::string_view path) override { return local_.Exists(path); }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    return local_.Rename(from, to, replace);
  }
  Result<std::vector<io::FileInfo>> List(std::string_view dir) override { return local_.List(dir); }

 private:
  class NoSync final : public io::OutputFile {
   public:
    explicit NoSync(std::unique_ptr<io::OutputFile> file) : file_(std::move(file)) {}
    const std::string& path() const override { return file_->path(); }
    Status Write(std::span<const uint8_t> bytes) override { return file_->Write(bytes); }
    uint64_t position() const override { return file_->position(); }
    Status Sync() override { return Ok(); }
    Status Close() override { return file_->Close(); }

   private:
    std::unique_ptr<io::OutputFile> file_;
  };
  io::LocalFileIO local_;
};

/// Resident and peak resident memory of this process (kB), from /proc.
inline std::pair<long, long> RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  long rss = -1, hwm = -1;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::stol(line.substr(6));
  }
  return {rss, hwm};
}

}  // namespace floe::sink::testing
