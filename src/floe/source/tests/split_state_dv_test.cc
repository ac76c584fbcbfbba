// The split state keeps what a split reader needs of a deletion vector: its
// Puffin file, referenced data file, blob offset and size.

#include <gtest/gtest.h>

#include "floe/source/split.h"

namespace floe::source {
namespace {

TEST(SplitStateTest, DeletionVectorFieldsSurviveTheState) {
  IcebergSplit split;
  split.snapshot_id = 5;
  iceberg::FileScanTask task;
  task.data_file.file_path = "/t/data/a.parquet";
  task.data_file.record_count = 10;
  auto dv = std::make_shared<iceberg::DeleteFileEntry>();
  dv->file.content = iceberg::DataFileContent::kPositionDeletes;
  dv->file.file_format = "puffin";
  dv->file.file_path = "/t/data/d.puffin";
  dv->file.record_count = 3;
  dv->file.referenced_data_file = "/t/data/a.parquet";
  dv->file.content_offset = 4;
  dv->file.content_size_in_bytes = 42;
  dv->data_sequence_number = 2;
  task.deletes.push_back(dv);
  split.tasks.push_back(task);
  split.ranges.push_back({});
  auto back = SplitFromJson(SplitToJson(split));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->tasks.size(), 1u);
  ASSERT_EQ(back->tasks[0].deletes.size(), 1u);
  const iceberg::DataFile& f = back->tasks[0].deletes[0]->file;
  EXPECT_EQ(f.file_format, "puffin");
  EXPECT_EQ(f.referenced_data_file, "/t/data/a.parquet");
  EXPECT_EQ(f.content_offset, 4);
  EXPECT_EQ(f.content_size_in_bytes, 42);
  EXPECT_EQ(f.record_count, 3);

  nlohmann::json bad = SplitToJson(split);
  bad["tasks"][0]["deletes"][0]["file"]["content_offset"] = "four";
  auto refused = SplitFromJson(bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), ErrorCode::kCorruption);
}

}  // namespace
}  // namespace floe::source
