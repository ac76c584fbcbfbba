// EqualityDeleteWriter: files hold only the equality columns, carry
// equality_ids, land in the partition of their key, and delete the matching
// rows of older data files when scanned.

#include "floe/iceberg/data/equality_delete_writer.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/format/parquet/reader.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::RowValues;
using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

types::Schema KeyedSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "region", true, Type::String(), ""},
                        {3, "payload", false, Type::String(), ""},
                        {4, "score", false, Type::Double(), ""}},
                       0);
}

PartitionSpec RegionSpec() {
  auto spec = ParsePartitionSpecText("region", KeyedSchema());
  EXPECT_TRUE(spec) << spec.error().ToString();
  return *spec;
}

std::vector<std::string> ReadKeys(io::FileIO& io, const std::string& path, size_t* width) {
  auto in = io.OpenInput(path);
  EXPECT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  EXPECT_TRUE(reader) << reader.error().ToString();
  *width = (*reader)->schema().fields().size();
  std::vector<std::string> out;
  Arena arena;
  std::vector<Value> row;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    EXPECT_TRUE(more) << more.error().ToString();
    if (!more || !*more) break;
    out.push_back(std::to_string(row[0].i64) + "/" + std::string(row[1].as_bytes()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(EqualityDeleteWriterTest, WritesKeyColumnsPerPartitionAndDeletesOlderRows) {
  TestTable t("eqdel", KeyedSchema(), RegionSpec());
  DataFile eu = t.WriteData({{Value::Int64(1), Str("eu"), Str("a"), Value::Double(1)},
                             {Value::Int64(2), Str("eu"), Str("b"), Value::Double(2)},
                             {Value::Int64(3), Str("eu"), Str("c"), Value::Double(3)}},
                            {Literal::String("eu")});
  DataFile us = t.WriteData({{Value::Int64(1), Str("us"), Str("d"), Value::Double(4)},
                             {Value::Int64(5), Str("us"), Str("e"), Value::Double(5)}},
                            {Literal::String("us")});
  t.Commit("append", {{eu}, {us}});

  auto writer = EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), RegionSpec(),
                                           {2, 1}, {});
  ASSERT_TRUE(writer) << writer.error().ToString();
  EXPECT_EQ((*writer)->delete_schema().fields().size(), 2u);
  EXPECT_EQ((*writer)->delete_schema().fields()[0].name, "id");  // schema order
  // A full row (the other columns are ignored) and a key-only row.
  RowValues full = {Value::Int64(2), Str("eu"), Str("ignored"), Value::Double(9)};
  ASSERT_TRUE((*writer)->Delete(types::Row(full.data(), full.size())));
  RowValues key_only = {Value::Int64(1), Str("us"), Value::Null(), Value::Null()};
  ASSERT_TRUE((*writer)->Delete(types::Row(key_only.data(), key_only.size())));
  RowValues eu3 = {Value::Int64(3), Str("eu"), Value::Null(), Value::Null()};
  ASSERT_TRUE((*writer)->Delete(types::Row(eu3.data(), eu3.size())));
  EXPECT_GT((*writer)->buffered_bytes(), 0u);
  EXPECT_EQ((*writer)->num_open_files(), 2u);
  auto files = (*writer)->Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 2u);
  std::map<std::string, DataFile> by_region;
  for (const DataFile& f : *files) {
    EXPECT_EQ(f.content, DataFileContent::kEqualityDeletes);
    EXPECT_EQ(f.equality_ids, (std::vector<int32_t>{2, 1}));
    ASSERT_EQ(f.partition.size(), 1u);
    std::string region(f.partition[0].value().as_bytes());
    EXPECT_NE(f.file_path.find("/data/region=" + region + "/"), std::string::npos);
    by_region[region] = f;
  }
  ASSERT_EQ(by_region.size(), 2u);
  size_t width = 0;
  EXPECT_EQ(ReadKeys(t.io(), by_region["eu"].file_path, &width),
            (std::vector<std::string>{"2/eu", "3/eu"}));
  EXPECT_EQ(width, 2u);  // only the equality columns
  EXPECT_EQ(by_region["eu"].record_count, 2);
  EXPECT_EQ(ReadKeys(t.io(), by_region["us"].file_path, &width),
            (std::vector<std::string>{"1/us"}));

  t.Commit("delete", {{by_region["eu"]}, {by_region["us"]}});
  auto rows = scantest::ScanJson(t.io(), t.metadata(), {});
  ASSERT_TRUE(rows) << rows.error().ToString();
  std::sort(rows->begin(), rows->end());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_NE((*rows)[0].find("\"id\":1,\"region\":\"eu\""), std::string::npos) << (*rows)[0];
  EXPECT_NE((*rows)[1].find("\"id\":5,\"region\":\"us\""), std::string::npos) << (*rows)[1];
}

TEST(EqualityDeleteWriterTest, RefusesBadEqualityFields) {
  TestTable t("eqdel_bad", KeyedSchema(), RegionSpec());
  auto no_ids = EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), {}, {}, {});
  ASSERT_FALSE(no_ids);
  auto missing =
      EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), {}, {1, 42}, {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("42"), std::string::npos);
  auto dbl = EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), {}, {4}, {});
  ASSERT_FALSE(dbl);
  EXPECT_NE(dbl.error().ToString().find("score"), std::string::npos);
  // region partitions the table but is not an equality field.
  auto part =
      EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), RegionSpec(), {1}, {});
  ASSERT_FALSE(part);
  EXPECT_NE(part.error().ToString().find("region"), std::string::npos) << part.error().ToString();
  // Stored beside the key, region places the deletes in their partitions.
  auto with_region = EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(),
                                                RegionSpec(), {1}, {}, {2});
  ASSERT_TRUE(with_region) << with_region.error().ToString();
  EXPECT_EQ((*with_region)->delete_schema().fields().size(), 2u);
  EXPECT_EQ((*with_region)->equality_field_ids(), (std::vector<int32_t>{1}));
}

TEST(EqualityDeleteWriterTest, RollsAtTargetSizeAndAborts) {
  TestTable t("eqdel_roll", KeyedSchema());
  DataWriterOptions options;
  options.target_file_size_bytes = 1;  // every delete is its own file
  auto writer =
      EqualityDeleteWriter::Make(t.io(), t.metadata().location, t.schema(), {}, {1}, options);
  ASSERT_TRUE(writer) << writer.error().ToString();
  for (int i = 0; i < 3; ++i) {
    RowValues row = {Value::Int64(i), Str("x"), Value::Null(), Value::Null()};
    ASSERT_TRUE((*writer)->Delete(types::Row(row.data(), row.size())));
  }
  RowValues short_row = {Value::Int64(1)};
  EXPECT_FALSE((*writer)->Delete(types::Row(short_row.data(), short_row.size())));
  EXPECT_EQ((*writer)->deletes_written(), 3);
  (*writer)->Abort();
  size_t files = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(t.metadata().location)) {
    files += e.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(files, 0u);
}

}  // namespace
}  // namespace floe::iceberg
