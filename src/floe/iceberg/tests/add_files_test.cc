// AddFiles: existing Parquet files written by floe's own writer are added to
// a Hadoop-catalog table as they are, in one append, with their metrics and
// partition values; duplicates and incompatible schemas are refused.

#include "floe/iceberg/update/add_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "floe/format/parquet/writer.h"
#include "floe/iceberg/single_value.h"
#include "floe/iceberg/tests/producer_test_util.h"

namespace floe::iceberg::testing {
namespace {

using types::Value;

class AddFilesTest : public ProducerTest {
 protected:
  /// Writes `rows` (values of `schema`'s top-level fields) to a Parquet file
  /// outside the table's folder and returns its path.
  std::string WriteParquet(const std::string& name, const std::vector<std::vector<Value>>& rows,
                           const types::Schema& schema = TestSchema()) {
    std::string path = (dir_ / "incoming" / name).string();
    auto out = io_.CreateOutput(path, /*overwrite=*/true);
    EXPECT_TRUE(out) << out.error().ToString();
    auto writer = format::parquet::ParquetWriter::Open(std::move(*out), schema);
    EXPECT_TRUE(writer) << writer.error().ToString();
    for (const auto& row : rows) {
      auto appended = (*writer)->Append(types::Row(row.data(), row.size()));
      EXPECT_TRUE(appended) << appended.error().ToString();
    }
    auto closed = (*writer)->Close();
    EXPECT_TRUE(closed) << closed.error().ToString();
    return path;
  }

  static std::vector<Value> Row(int64_t id, const char* name, const char* region) {
    return {Value::Int64(id), name ? Value::Bytes(name) : Value::Null(),
            region ? Value::Bytes(region) : Value::Null()};
  }

  /// The live entry of `path` in the table's current snapshot.
  DataFile LiveFileAt(const Table& table, const std::string& path) {
    for (const auto& f : Live(table)) {
      if (f.entry.data_file.file_path == path) return f.entry.data_file;
    }
    ADD_FAILURE() << path << " is not in the table";
    return {};
  }

  static std::string LongBound(int64_t v) {
    auto bytes = SerializeSingleValue(*types::Type::Long(), Value::Int64(v));
    EXPECT_TRUE(bytes);
    return bytes ? *bytes : "";
  }
};

TEST_F(AddFilesTest, AddsTheFilesInOneAppendWithTheirMetrics) {
  Table table = CreateTable();
  std::string a =
      WriteParquet("a.parquet", {Row(1, "ann", "eu"), Row(2, nullptr, "eu"), Row(3, "cid", "us")});
  std::string b = WriteParquet("b.parquet", {Row(10, "dan", "eu"), Row(11, "eve", "eu")});

  auto added = AddFiles(table, {a, b});
  FLOE_ASSERT_OK(added);
  EXPECT_EQ(added->added_files, 2);
  EXPECT_EQ(added->added_records, 5);

  const Snapshot* snapshot = table.metadata().CurrentSnapshot();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->snapshot_id, added->snapshot_id);
  EXPECT_EQ(snapshot->operation, "append");
  EXPECT_EQ(table.metadata().snapshots.size(), 1u);
  EXPECT_EQ(Total(table, summary::kTotalRecords), 5);
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 2);

  // The table refers to the files where they lie, as reloaded from the catalog.
  Table reloaded = Reload();
  EXPECT_EQ(LivePaths(reloaded), (std::set<std::string>{a, b}));
  DataFile file = LiveFileAt(reloaded, a);
  EXPECT_EQ(file.file_format, "parquet");
  EXPECT_EQ(file.record_count, 3);
  EXPECT_EQ(file.file_size_in_bytes, static_cast<int64_t>(std::filesystem::file_size(a)));
  EXPECT_TRUE(file.partition.empty());
  EXPECT_EQ(file.value_counts[1], 3);
  EXPECT_EQ(file.value_counts[2], 3);
  EXPECT_EQ(file.null_value_counts[1], 0);
  EXPECT_EQ(file.null_value_counts[2], 1);
  EXPECT_EQ(file.lower_bounds[1], LongBound(1));
  EXPECT_EQ(file.upper_bounds[1], LongBound(3));
  EXPECT_EQ(file.lower_bounds[2], "ann");
  EXPECT_EQ(file.upper_bounds[2], "cid");
  EXPECT_EQ(file.lower_bounds[3], "eu");
  EXPECT_EQ(file.upper_bounds[3], "us");
  EXPECT_EQ(LiveFileAt(reloaded, b).lower_bounds[1], LongBound(10));
}

TEST_F(AddFilesTest, RefusesAFileTheTableAlreadyHasUnlessAsked) {
  Table table = CreateTable();
  std::string a = WriteParquet("a.parquet", {Row(1, "ann", "eu")});
  std::string b = WriteParquet("b.parquet", {Row(2, "bob", "eu")});
  FLOE_ASSERT_OK(AddFiles(table, {a}));
  const SnapshotId first = *table.metadata().current_snapshot_id;

  // One known file among new ones: nothing is added.
  auto again = AddFiles(table, {b, a});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_NE(again.error().message().find(a), std::string::npos) << again.error().message();
  EXPECT_EQ(*Reload().metadata().current_snapshot_id, first);
  EXPECT_EQ(LivePaths(Reload()), (std::set<std::string>{a}));

  // The same path twice in one call.
  auto twice = AddFiles(table, {b, b});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code(), ErrorCode::kInvalidArgument);

  // Asked to: the file is added a second time and its rows count twice.
  FLOE_ASSERT_OK(AddFiles(table, {a}, AddFilesOptions{.check_duplicate_files = false}));
  EXPECT_EQ(Total(table, summary::kTotalRecords), 2);
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 2);
}

TEST_F(AddFilesTest, RefusesAFileWhoseSchemaDoesNotFitTheTable) {
  Table table = CreateTable();
  std::string good = WriteParquet("good.parquet", {Row(1, "ann", "eu")});
  // id (field 1) as a string where the table has a long.
  std::string wrong_type =
      WriteParquet("wrong_type.parquet", {{Value::Bytes("1")}},
                   types::Schema({{1, "id", true, types::Type::String(), ""}}, 0));
  // A column the table does not have.
  std::string extra = WriteParquet("extra.parquet", {{Value::Int64(1), Value::Int32(5)}},
                                   types::Schema({{1, "id", true, types::Type::Long(), ""},
                                                  {9, "other", true, types::Type::Int(), ""}},
                                                 0));
  // Without the table's required id.
  std::string missing =
      WriteParquet("missing.parquet", {{Value::Bytes("ann")}},
                   types::Schema({{2, "name", false, types::Type::String(), ""}}, 0));

  for (const std::string& bad : {wrong_type, extra, missing}) {
    SCOPED_TRACE(bad);
    auto added = AddFiles(table, {good, bad});
    ASSERT_FALSE(added);
    EXPECT_EQ(added.error().code(), ErrorCode::kSchemaIncompatible);
    EXPECT_NE(added.error().message().find(bad), std::string::npos) << added.error().message();
  }
  EXPECT_EQ(Reload().metadata().CurrentSnapshot(), nullptr);

  // A file with only some of the optional columns fits.
  std::string narrow = WriteParquet("narrow.parquet", {{Value::Int64(7)}},
                                    types::Schema({{1, "id", true, types::Type::Long(), ""}}, 0));
  FLOE_ASSERT_OK(AddFiles(table, {narrow}));
  EXPECT_EQ(Total(table, summary::kTotalRecords), 1);
}

TEST_F(AddFilesTest, PartitionValuesComeFromTheBoundsOfTheSourceColumn) {
  Table table = CreateTable("identity(region)");
  std::string eu = WriteParquet("eu.parquet", {Row(1, "ann", "eu"), Row(2, "bob", "eu")});
  std::string none = WriteParquet("none.parquet", {Row(3, "cid", nullptr)});
  FLOE_ASSERT_OK(AddFiles(table, {eu, none}));
  Table reloaded = Reload();
  DataFile eu_file = LiveFileAt(reloaded, eu);
  ASSERT_EQ(eu_file.partition.size(), 1u);
  EXPECT_EQ(eu_file.partition[0].ToString(), Literal::String("eu").ToString());
  DataFile none_file = LiveFileAt(reloaded, none);
  ASSERT_EQ(none_file.partition.size(), 1u);
  EXPECT_TRUE(none_file.partition[0].is_null());

  // Rows of two partitions, or nulls with values, cannot be one file's.
  std::string mixed = WriteParquet("mixed.parquet", {Row(4, "dan", "eu"), Row(5, "eve", "us")});
  std::string some_null =
      WriteParquet("some_null.parquet", {Row(6, "fay", "eu"), Row(7, "gus", nullptr)});
  for (const std::string& bad : {mixed, some_null}) {
    SCOPED_TRACE(bad);
    auto added = AddFiles(table, {bad});
    ASSERT_FALSE(added);
    EXPECT_EQ(added.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(added.error().message().find("span more than one partition"), std::string::npos)
        << added.error().message();
  }
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 2);
}

TEST_F(AddFilesTest, MissingAndNonParquetFilesAreErrors) {
  Table table = CreateTable();
  std::string missing = (dir_ / "incoming" / "missing.parquet").string();
  auto added = AddFiles(table, {missing});
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().code(), ErrorCode::kNotFound);

  std::string text = (dir_ / "rows.json").string();
  FLOE_ASSERT_OK(io_.WriteAtomically(text, "{\"id\": 1}\n{\"id\": 2}\n"));
  EXPECT_FALSE(LooksLikeParquet(io_, text));
  EXPECT_FALSE(LooksLikeParquet(io_, missing));
  EXPECT_TRUE(LooksLikeParquet(io_, WriteParquet("a.parquet", {Row(1, "ann", "eu")})));
  auto not_parquet = AddFiles(table, {text});
  ASSERT_FALSE(not_parquet);
  EXPECT_EQ(not_parquet.error().code(), ErrorCode::kCorruption);

  auto nothing = AddFiles(table, {});
  ASSERT_FALSE(nothing);
  EXPECT_EQ(nothing.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Reload().metadata().CurrentSnapshot(), nullptr);
}

}  // namespace
}  // namespace floe::iceberg::testing
