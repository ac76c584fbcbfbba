// DataWriter's row locations, buffered bytes, Flush and CloseFiles: the
// additions the sink's writers rely on (position deletes of rows written in
// the same checkpoint, memory budget).

#include <gtest/gtest.h>

#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

types::Schema TwoColumns() {
  return types::Schema({{1, "id", true, Type::Long(), ""}, {2, "region", true, Type::String(), ""}},
                       0);
}

std::vector<int64_t> ReadIds(io::FileIO& io, const std::string& path) {
  auto in = io.OpenInput(path);
  EXPECT_TRUE(in);
  auto reader = format::parquet::ParquetReader::Open(std::move(*in));
  EXPECT_TRUE(reader);
  std::vector<int64_t> out;
  Arena arena;
  std::vector<Value> row;
  while (true) {
    auto more = (*reader)->Next(&arena, &row);
    EXPECT_TRUE(more);
    if (!more || !*more) break;
    out.push_back(row[0].i64);
  }
  return out;
}

TEST(DataWriterLocationTest, ReportsFileAndPositionAcrossFlushesAndCloses) {
  auto spec = ParsePartitionSpecText("region", TwoColumns());
  ASSERT_TRUE(spec);
  TestTable t("dw_location", TwoColumns(), *spec);
  auto writer = DataWriter::Make(t.io(), t.metadata(), {});
  ASSERT_TRUE(writer) << writer.error().ToString();
  DataWriter& w = **writer;
  std::map<int64_t, DataWriter::RowLocation> where;
  std::string regions[2] = {"eu", "us"};
  for (int64_t i = 0; i < 300; ++i) {
    Value row[2] = {Value::Int64(i), Str(regions[i % 2])};
    DataWriter::RowLocation loc;
    ASSERT_TRUE(w.Write(types::Row(row, 2), &loc));
    where[i] = loc;
    if (i == 100) {
      EXPECT_GT(w.buffered_bytes(), 0u);
      ASSERT_TRUE(w.Flush());  // row groups written, files stay open
      EXPECT_EQ(w.buffered_bytes(), 0u);
      EXPECT_EQ(w.num_open_files(), 2u);
    }
    if (i == 200) {
      ASSERT_TRUE(w.CloseFiles());  // the next rows start new files
      EXPECT_EQ(w.num_open_files(), 0u);
    }
  }
  EXPECT_EQ(w.num_files(), 4u);
  EXPECT_EQ(where[0].file_index, 0u);
  EXPECT_EQ(where[1].file_index, 1u);
  EXPECT_EQ(where[201].pos, 0);  // first row of a new file
  EXPECT_EQ(std::string(w.file_partition(where[3].file_index)[0].value().as_bytes()), "us");
  auto files = w.Close();
  ASSERT_TRUE(files) << files.error().ToString();
  ASSERT_EQ(files->size(), 4u);
  // Every row is at the position reported, in the file reported.
  std::map<std::string, std::vector<int64_t>> contents;
  for (const DataFile& f : *files) contents[f.file_path] = ReadIds(t.io(), f.file_path);
  for (const auto& [id, loc] : where) {
    const auto& ids = contents.at(w.file_path(loc.file_index));
    ASSERT_LT(loc.pos, static_cast<int64_t>(ids.size()));
    EXPECT_EQ(ids[loc.pos], id);
  }
  // Flushed files have more than one row group.
  EXPECT_EQ(contents.at(w.file_path(0)).size(), 101u);
}

}  // namespace
}  // namespace floe::iceberg
