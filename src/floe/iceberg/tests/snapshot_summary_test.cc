#include "floe/iceberg/snapshot_summary.h"

#include <gtest/gtest.h>

namespace floe::iceberg {
namespace {

DataFile File(DataFileContent content, int64_t records, int64_t size, int32_t day) {
  DataFile f;
  f.content = content;
  f.file_path = "f" + std::to_string(records);
  f.record_count = records;
  f.file_size_in_bytes = size;
  f.partition.push_back(Literal::Date(day));
  return f;
}

TEST(SnapshotSummaryTest, FirstAppendStartsTotalsAtZero) {
  SnapshotSummaryBuilder b;
  b.AddedFile(File(DataFileContent::kData, 10, 100, 1));
  b.AddedFile(File(DataFileContent::kData, 5, 50, 2));
  b.Set("floe.committed-offset", "binlog.000001:4");
  b.Set("operation", "ignored");
  auto s = b.Build(nullptr);
  EXPECT_EQ(s.at("added-data-files"), "2");
  EXPECT_EQ(s.at("added-records"), "15");
  EXPECT_EQ(s.at("added-files-size"), "150");
  EXPECT_EQ(s.at("changed-partition-count"), "2");
  EXPECT_EQ(s.at("total-records"), "15");
  EXPECT_EQ(s.at("total-files-size"), "150");
  EXPECT_EQ(s.at("total-data-files"), "2");
  EXPECT_EQ(s.at("total-delete-files"), "0");
  EXPECT_EQ(s.at("total-position-deletes"), "0");
  EXPECT_EQ(s.at("total-equality-deletes"), "0");
  EXPECT_EQ(s.at("floe.committed-offset"), "binlog.000001:4");
  EXPECT_FALSE(s.contains("operation"));
  EXPECT_FALSE(s.contains("deleted-data-files"));  // zero deltas are left out
}

TEST(SnapshotSummaryTest, RowDeltaAddsToPreviousTotals) {
  Snapshot previous;
  previous.summary = {{"total-records", "15"},         {"total-files-size", "150"},
                      {"total-data-files", "2"},       {"total-delete-files", "1"},
                      {"total-position-deletes", "3"}, {"total-equality-deletes", "0"}};
  SnapshotSummaryBuilder b;
  b.AddedFile(File(DataFileContent::kData, 4, 40, 1));
  b.RemovedFile(File(DataFileContent::kData, 10, 100, 1));
  b.AddedFile(File(DataFileContent::kPositionDeletes, 2, 20, 1));
  b.AddedFile(File(DataFileContent::kEqualityDeletes, 7, 30, 1));
  auto s = b.Build(&previous);
  EXPECT_EQ(s.at("added-records"), "4");
  EXPECT_EQ(s.at("deleted-records"), "10");
  EXPECT_EQ(s.at("deleted-data-files"), "1");
  EXPECT_EQ(s.at("removed-files-size"), "100");
  EXPECT_EQ(s.at("added-files-size"), "90");
  EXPECT_EQ(s.at("added-delete-files"), "2");
  EXPECT_EQ(s.at("added-position-delete-files"), "1");
  EXPECT_EQ(s.at("added-equality-delete-files"), "1");
  EXPECT_EQ(s.at("added-position-deletes"), "2");
  EXPECT_EQ(s.at("added-equality-deletes"), "7");
  EXPECT_EQ(s.at("changed-partition-count"), "1");
  EXPECT_EQ(s.at("total-records"), "9");
  EXPECT_EQ(s.at("total-files-size"), "140");
  EXPECT_EQ(s.at("total-data-files"), "2");
  EXPECT_EQ(s.at("total-delete-files"), "3");
  EXPECT_EQ(s.at("total-position-deletes"), "5");
  EXPECT_EQ(s.at("total-equality-deletes"), "7");
}

TEST(SnapshotSummaryTest, RemovedDeleteFilesAndDeletionVectors) {
  Snapshot previous;
  previous.summary = {{"total-delete-files", "2"}, {"total-position-deletes", "9"}};
  SnapshotSummaryBuilder b;
  DataFile dv = File(DataFileContent::kPositionDeletes, 3, 10, 1);
  dv.file_format = "puffin";
  b.AddedFile(dv);
  b.RemovedFile(File(DataFileContent::kPositionDeletes, 6, 60, 1));
  auto s = b.Build(&previous);
  EXPECT_EQ(s.at("added-dvs"), "1");
  EXPECT_FALSE(s.contains("added-position-delete-files"));
  EXPECT_EQ(s.at("removed-position-delete-files"), "1");
  EXPECT_EQ(s.at("removed-delete-files"), "1");
  EXPECT_EQ(s.at("removed-position-deletes"), "6");
  EXPECT_EQ(s.at("total-delete-files"), "2");
  EXPECT_EQ(s.at("total-position-deletes"), "6");
}

TEST(SnapshotSummaryTest, TotalsUnknownBeforeStayUnknown) {
  Snapshot previous;
  previous.summary = {{"total-records", "not a number"}};
  SnapshotSummaryBuilder b;
  b.AddedFile(File(DataFileContent::kData, 1, 1, 1));
  auto s = b.Build(&previous);
  EXPECT_FALSE(s.contains("total-records"));
  EXPECT_FALSE(s.contains("total-data-files"));
  EXPECT_EQ(s.at("added-records"), "1");
}

}  // namespace
}  // namespace floe::iceberg
