// ParquetWriter::buffered_bytes and Flush: a flushed row group is written at
// once and the file reads back whole, with one row group per flush.

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "floe/common/arena.h"
#include "floe/format/parquet/reader.h"
#include "floe/format/parquet/writer.h"
#include "floe/io/file_io.h"
#include "floe/types/schema_json.h"

namespace floe::format::parquet {
namespace {

using types::Type;
using types::Value;

TEST(WriterFlushTest, FlushWritesOneRowGroupPerCallAndRowsReadBack) {
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_parquet_flush_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "f.parquet").string();
  io::LocalFileIO io;
  types::Schema schema({{1, "id", true, Type::Long(), ""}, {2, "s", false, Type::String(), ""}});
  auto out = io.CreateOutput(path);
  ASSERT_TRUE(out);
  auto writer = ParquetWriter::Open(std::move(*out), schema);
  ASSERT_TRUE(writer) << writer.error().ToString();
  EXPECT_EQ((*writer)->buffered_bytes(), 0u);
  ASSERT_TRUE((*writer)->Flush());  // empty: no row group
  std::string text = "some text";
  int64_t next = 0;
  uint64_t written = (*writer)->estimated_size();  // nothing buffered: the file's bytes
  for (int group = 0; group < 3; ++group) {
    for (int i = 0; i < 500; ++i, ++next) {
      Value row[2] = {Value::Int64(next), Value::Bytes(text)};
      ASSERT_TRUE((*writer)->Append(types::Row(row, 2)));
    }
    size_t before = (*writer)->buffered_bytes();
    EXPECT_GT(before, 0u);
    ASSERT_TRUE((*writer)->Flush());
    EXPECT_EQ((*writer)->buffered_bytes(), 0u);
    // The bytes moved from the buffer to the file (the buffer's count also
    // holds the dictionaries' hash tables, which are not written).
    EXPECT_GT((*writer)->estimated_size(), written);
    EXPECT_LE((*writer)->estimated_size() - written, before);
    written = (*writer)->estimated_size();
  }
  auto metrics = (*writer)->Close();
  ASSERT_TRUE(metrics) << metrics.error().ToString();
  EXPECT_EQ(metrics->record_count, 1500);
  EXPECT_EQ(metrics->split_offsets.size(), 3u);
  EXPECT_FALSE((*writer)->Flush());  // closed

  auto in = io.OpenInput(path);
  ASSERT_TRUE(in);
  auto reader = ParquetReader::Open(std::move(*in));
  ASSERT_TRUE(reader) << reader.error().ToString();
  EXPECT_EQ((*reader)->num_row_groups(), 3);
  Arena arena;
  std::vector<Value> row;
  int64_t expect = 0;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    ASSERT_TRUE(more) << more.error().ToString();
    if (!*more) break;
    EXPECT_EQ(row[0].i64, expect++);
  }
  EXPECT_EQ(expect, 1500);
  std::filesystem::remove_all(dir);
}

// Flat rows (every top-level field primitive) are checked and written in one
// loop each: a row that does not fit is refused whole, naming the field, and
// leaves nothing behind; the rows around it read back.
TEST(WriterFlushTest, ARefusedFlatRowLeavesNothing) {
  auto dir = std::filesystem::temp_directory_path() /
             ("floe_parquet_refused_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "f.parquet").string();
  io::LocalFileIO io;
  types::Schema schema({{1, "id", true, Type::Long(), ""},
                        {2, "s", false, Type::String(), ""},
                        {3, "d", false, *Type::Decimal(4, 2), ""},
                        {4, "fx", false, *Type::Fixed(2), ""},
                        {5, "big", false, *Type::Decimal(30, 0), ""}});
  auto out = io.CreateOutput(path);
  ASSERT_TRUE(out);
  auto writer = ParquetWriter::Open(std::move(*out), schema);
  ASSERT_TRUE(writer) << writer.error().ToString();
  auto row = [](int64_t id, Value d, Value fx) {
    return std::vector<Value>{Value::Int64(id), Value::Bytes("text"), d, fx,
                              Value::Decimal(types::int128_t{id} * 1000000000000000000LL)};
  };
  auto append = [&](std::vector<Value> values) {
    return (*writer)->Append(types::Row(values.data(), values.size()));
  };
  ASSERT_TRUE(append(row(1, Value::Decimal(-9999), Value::Bytes("ab"))));
  struct Bad {
    std::vector<Value> values;
    std::string message;
  };
  std::vector<Bad> bad = {
      {{Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null()},
       "field 'id': required but null"},
      {row(2, Value::Decimal(10000), Value::Null()), "field 'd': decimal(4, 2) value out of range"},
      {row(2, Value::Null(), Value::Bytes("abc")), "field 'fx': fixed[2] needs 2 bytes, got 3"},
      {row(2, Value::Int64(5), Value::Null()), "field 'd': expected decimal(4, 2), got int64"},
  };
  for (const Bad& b : bad) {
    uint64_t size = (*writer)->estimated_size();
    auto status = append(b.values);
    ASSERT_FALSE(status) << b.message;
    EXPECT_EQ(status.error().message(), b.message);
    EXPECT_EQ((*writer)->num_rows(), 1);
    EXPECT_EQ((*writer)->estimated_size(), size);
  }
  ASSERT_TRUE(append(row(3, Value::Null(), Value::Null())));
  auto metrics = (*writer)->Close();
  ASSERT_TRUE(metrics) << metrics.error().ToString();
  EXPECT_EQ(metrics->record_count, 2);
  EXPECT_EQ(metrics->null_value_counts.at(3), 1);

  auto in = io.OpenInput(path);
  ASSERT_TRUE(in);
  auto reader = ParquetReader::Open(std::move(*in));
  ASSERT_TRUE(reader) << reader.error().ToString();
  Arena arena;
  std::vector<Value> values;
  std::vector<int64_t> ids;
  while (true) {
    auto more = (*reader)->Next(&arena, &values);
    ASSERT_TRUE(more) << more.error().ToString();
    if (!*more) break;
    ids.push_back(values[0].i64);
    EXPECT_EQ(values[1].as_bytes(), "text");
    EXPECT_EQ(values[4].decimal, types::int128_t{values[0].i64} * 1000000000000000000LL);
    if (ids.size() == 1) {
      EXPECT_EQ(values[2].decimal, -9999);
      EXPECT_EQ(values[3].as_bytes(), "ab");
    } else {
      EXPECT_TRUE(values[2].is_null());
      EXPECT_TRUE(values[3].is_null());
    }
  }
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 3}));
  std::filesystem::remove_all(dir);
}

TEST(WriterFlushTest, OpenRefusesTypesNestedDeeperThanTheReaderReads) {
  types::TypePtr type = Type::Long();
  for (int i = 0; i < types::kMaxTypeDepth + 1; ++i) type = Type::List(i + 2, false, type);
  types::Schema schema({{1, "deep", false, type, ""}});
  auto dir =
      std::filesystem::temp_directory_path() / ("floe_parquet_deep_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  io::LocalFileIO io;
  auto out = io.CreateOutput((dir / "f.parquet").string());
  ASSERT_TRUE(out);
  auto writer = ParquetWriter::Open(std::move(*out), schema);
  ASSERT_FALSE(writer);
  EXPECT_NE(writer.error().message().find("deeper than the limit of 100"), std::string::npos)
      << writer.error().message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::format::parquet
