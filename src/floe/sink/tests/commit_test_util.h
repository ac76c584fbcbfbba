#pragma once
// The fixture of the committer tests: a Hadoop catalog in a temp folder on a
// FaultyFileIO (floe/testing/fault_file_io.h), tables (id long, v string)
// partitioned or not, real Parquet data and delete files, and readers of what
// a table holds.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "floe/common/arena.h"
#include "floe/engine/operator.h"
#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/update/table_metadata_builder.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"
#include "floe/testing/fault_file_io.h"
#include "floe/testing/faulty_catalog.h"
#include "floe/testing/status_matchers.h"
#include "floe/testing/temp_dir.h"

namespace floe::sink::testing {

using ::floe::testing::CommitFault;
using ::floe::testing::FaultRule;
using ::floe::testing::FaultState;
using ::floe::testing::FaultStep;
using ::floe::testing::FaultyCatalog;
using ::floe::testing::FaultyFileIO;

using Rows = std::multiset<std::pair<int64_t, std::string>>;

inline types::Schema KvSchema() {
  return types::Schema(
      {{1, "id", true, types::Type::Long(), ""}, {2, "v", false, types::Type::String(), ""}}, 0,
      {1});
}

template <typename T>
class VectorCollector final : public engine::Collector<T> {
 public:
  Status Emit(T record) override {
    items.push_back(std::move(record));
    return Ok();
  }
  std::vector<T> items;
};

/// Data files holding `rows` (one per partition) of a table (id, v).
inline Result<std::vector<iceberg::DataFile>> WriteRowsTo(
    io::FileIO& io, const TableTarget& target,
    const std::vector<std::pair<int64_t, std::string>>& rows) {
  FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::DataWriter::Make(io, *target.metadata, {}));
  for (const auto& [id, v] : rows) {
    types::Value values[2] = {types::Value::Int64(id), types::Value::Bytes(v)};
    if (auto s = writer->Write(types::Row(values, 2)); !s) {
      writer->Abort();
      return std::unexpected(s.error());
    }
  }
  return writer->Close();
}

/// Equality delete files (on id) deleting `ids`, partitioned as the table.
inline Result<std::vector<iceberg::DataFile>> WriteEqualityDeletesTo(
    io::FileIO& io, const TableTarget& target, const std::vector<int64_t>& ids) {
  types::Schema schema({{1, "id", true, types::Type::Long(), ""}}, 0);
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::DataWriter::Make(io, target.metadata->location, schema,
                                                  *target.metadata->DefaultSpec(), {}));
  for (int64_t id : ids) {
    types::Value value = types::Value::Int64(id);
    if (auto s = writer->Write(types::Row(&value, 1)); !s) {
      writer->Abort();
      return std::unexpected(s.error());
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto files, writer->Close());
  for (auto& f : files) {
    f.content = iceberg::DataFileContent::kEqualityDeletes;
    f.equality_ids = {1};
  }
  return files;
}

class CommitFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "warehouse");
    io_ = std::make_shared<FaultyFileIO>();
    auto hadoop = std::make_shared<iceberg::HadoopCatalog>("default", (dir_ / "warehouse").string(),
                                                           io_.get());
    catalog_ = std::make_shared<FaultyCatalog>(hadoop, io_->shared_state());
    ASSERT_TRUE(catalog_->CreateNamespace({"ns"}));
    options_.pipeline_id = "p1";
    options_.commit_threads = 2;
    auto catalog = catalog_;
    options_.catalog = [catalog]() -> Result<std::shared_ptr<iceberg::Catalog>> {
      return std::shared_ptr<iceberg::Catalog>(catalog);
    };
  }

  /// Creates ns.<name> partitioned by `partition_by` and returns its target.
  TableTargetPtr CreateTable(const std::string& name, const std::string& partition_by = "",
                             bool upsert = false,
                             const std::map<std::string, std::string>& properties = {}) {
    auto builder = iceberg::TableMetadataBuilder::ForNewTable();
    EXPECT_TRUE(builder);
    EXPECT_TRUE(builder->Apply(iceberg::update::AddSchema{KvSchema(), std::nullopt}));
    EXPECT_TRUE(builder->Apply(iceberg::update::SetCurrentSchema{-1}));
    iceberg::TableIdentifier id{{"ns"}, name};
    EXPECT_TRUE(builder->Apply(iceberg::update::SetLocation{catalog_->DefaultTableLocation(id)}));
    if (!partition_by.empty()) {
      auto spec = iceberg::ParsePartitionSpecText(partition_by, KvSchema());
      EXPECT_TRUE(spec) << spec.error().ToString();
      EXPECT_TRUE(builder->Apply(iceberg::update::AddPartitionSpec{*spec, false}));
      EXPECT_TRUE(builder->Apply(iceberg::update::SetDefaultSpec{-1}));
    }
    if (!properties.empty()) {
      EXPECT_TRUE(builder->Apply(iceberg::update::SetProperties{properties}));
    }
    auto metadata = builder->Build();
    EXPECT_TRUE(metadata) << metadata.error().ToString();
    auto loaded = catalog_->CreateTable(id, *metadata);
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return MakeTarget(id, loaded->metadata, upsert);
  }

  static TableTargetPtr MakeTarget(const iceberg::TableIdentifier& id,
                                   const iceberg::TableMetadata& metadata, bool upsert) {
    auto target = std::make_shared<TableTarget>();
    target->id = id;
    target->key = id.ToString();
    target->metadata = std::make_shared<iceberg::TableMetadata>(metadata);
    target->upsert = upsert;
    target->equality_field_ids = {1};
    return target;
  }

  std::vector<iceberg::DataFile> WriteRows(
      const TableTargetPtr& target, const std::vector<std::pair<int64_t, std::string>>& rows) {
    auto files = WriteRowsTo(*io_, *target, rows);
    EXPECT_TRUE(files) << files.error().ToString();
    return files ? *files : std::vector<iceberg::DataFile>{};
  }
  std::vector<iceberg::DataFile> WriteEqualityDeletes(const TableTargetPtr& target,
                                                      const std::vector<int64_t>& ids) {
    auto files = WriteEqualityDeletesTo(*io_, *target, ids);
    EXPECT_TRUE(files) << files.error().ToString();
    return files ? *files : std::vector<iceberg::DataFile>{};
  }

  static WriteResult ResultOf(const TableTargetPtr& target, std::vector<iceberg::DataFile> data,
                              std::vector<iceberg::DataFile> deletes = {}) {
    WriteResult r;
    r.target = target;
    r.spec_id = target->metadata->default_spec_id;
    for (const auto& f : data) r.rows_written += f.record_count;
    r.data_files = std::move(data);
    r.delete_files = std::move(deletes);
    return r;
  }

  iceberg::TableMetadata Metadata(const std::string& name) {
    auto loaded = catalog_->LoadTable({{"ns"}, name});
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return loaded ? loaded->metadata : iceberg::TableMetadata{};
  }

  /// The rows of the table's current snapshot, deletes applied.
  Rows ReadRows(const std::string& name) {
    Rows rows;
    iceberg::TableMetadata metadata = Metadata(name);
    auto scan = iceberg::TableScan::Make(*io_, metadata, {});
    EXPECT_TRUE(scan) << scan.error().ToString();
    if (!scan) return rows;
    auto tasks = scan->PlanFiles();
    EXPECT_TRUE(tasks) << tasks.error().ToString();
    if (!tasks) return rows;
    for (const auto& task : *tasks) {
      auto reader = iceberg::DataReader::Open(*io_, task, scan->schema(), scan->projected_schema(),
                                              scan->bound_filter());
      EXPECT_TRUE(reader) << reader.error().ToString();
      if (!reader) return rows;
      Arena arena;
      while (true) {
        std::vector<types::Value> values;
        auto n = (*reader)->ReadBatch(&arena, &values);
        EXPECT_TRUE(n) << n.error().ToString();
        if (!n || *n == 0) break;
        for (size_t i = 0; i < *n; ++i) {
          const types::Value& v = values[2 * i + 1];
          rows.emplace(values[2 * i].i64, v.kind == types::Value::Kind::kNull
                                              ? std::string("<null>")
                                              : std::string(v.bytes, v.size));
        }
        arena.Reset();
      }
    }
    return rows;
  }

  /// How many snapshots of the table's history carry each checkpoint id of
  /// pipeline `pipeline`.
  std::map<int64_t, int> CheckpointSnapshots(const std::string& name,
                                             const std::string& pipeline = "p1") {
    std::map<int64_t, int> out;
    for (const auto& s : Metadata(name).snapshots) {
      auto p = s.SummaryValue(kSummaryPipelineId);
      auto c = s.SummaryValue(kSummaryCheckpointId);
      if (p && *p == pipeline && c) ++out[std::stoll(*c)];
    }
    return out;
  }

  static void ExpectNoCheckpointTwice(const std::map<int64_t, int>& counts,
                                      const std::string& table) {
    for (const auto& [id, n] : counts) {
      EXPECT_EQ(n, 1) << "checkpoint " << id << " committed " << n << " times to " << table;
    }
  }

  floe::testing::TempDir temp_dir_{"commit"};
  std::filesystem::path dir_ = temp_dir_.path();
  std::shared_ptr<FaultyFileIO> io_;
  std::shared_ptr<FaultyCatalog> catalog_;
  SinkOptions options_;
};

}  // namespace floe::sink::testing
