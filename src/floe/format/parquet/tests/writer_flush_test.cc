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

namespace floe::parquet {
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
  for (int group = 0; group < 3; ++group) {
    for (int i = 0; i < 500; ++i, ++next) {
      Value row[2] = {Value::Int64(next), Value::Bytes(text)};
      ASSERT_TRUE((*writer)->Append(types::Row(row, 2)));
    }
    size_t before = (*writer)->buffered_bytes();
    EXPECT_GT(before, 0u);
    uint64_t size_before = (*writer)->estimated_size();
    ASSERT_TRUE((*writer)->Flush());
    EXPECT_EQ((*writer)->buffered_bytes(), 0u);
    // The bytes moved from the buffer to the file.
    EXPECT_GT((*writer)->estimated_size(), size_before - before);
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

TEST(WriterFlushTest, OpenRefusesTypesNestedDeeperThanTheReaderReads) {
  types::TypePtr type = Type::Long();
  for (int i = 0; i < types::kMaxTypeDepth + 1; ++i) type = Type::List(i + 2, false, type);
  types::Schema schema({{1, "deep", false, type, ""}});
  auto dir = std::filesystem::temp_directory_path() /
             ("floe_parquet_deep_" + std::to_string(::getpid()));
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
}  // namespace floe::parquet
