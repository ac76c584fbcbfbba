// RowDelta: sequence numbers (an equality delete applies only to older data)
// and the validation of referenced data files against concurrent commits.

#include "floe/iceberg/update/row_delta.h"

#include "floe/iceberg/data/delete_files.h"
#include "floe/iceberg/tests/producer_test_util.h"
#include "floe/iceberg/update/fast_append.h"

namespace floe::iceberg::testing {
namespace {

DataFile EqualityDeletes(const std::string& path, int64_t records) {
  DataFile f;
  f.content = DataFileContent::kEqualityDeletes;
  f.file_path = path;
  f.record_count = records;
  f.file_size_in_bytes = 10;
  f.equality_ids = {1};
  return f;
}

DataFile PositionDeletes(const std::string& path, const std::string& data_file) {
  DataFile f;
  f.content = DataFileContent::kPositionDeletes;
  f.file_path = path;
  f.record_count = 1;
  f.file_size_in_bytes = 10;
  f.referenced_data_file = data_file;
  return f;
}

TEST_F(ProducerTest, RowDeltaSequenceNumbersOrderDeletesAfterOlderData) {
  Table table = CreateTable();
  auto append = table.NewAppend();
  append->AppendFile(MakeFile("old", 10));
  FLOE_ASSERT_OK(append->Commit());

  auto delta = table.NewRowDelta();
  delta->AddRows(MakeFile("new", 3));
  delta->AddDeletes(EqualityDeletes((dir_ / "eq.parquet").string(), 2));
  FLOE_ASSERT_OK(delta->Commit());
  const Snapshot* s = table.metadata().CurrentSnapshot();
  EXPECT_EQ(s->operation, "overwrite");
  EXPECT_EQ(s->sequence_number, 2);
  EXPECT_EQ(Total(table, summary::kTotalEqualityDeletes), 2);
  EXPECT_EQ(Total(table, summary::kTotalDeleteFiles), 1);
  EXPECT_EQ(Total(table, summary::kTotalRecords), 13);

  std::map<std::string, std::pair<int64_t, int64_t>> seq;  // stem -> (data, file)
  for (const auto& f : Live(Reload())) {
    seq[std::filesystem::path(f.entry.data_file.file_path).stem()] = {
        *f.entry.sequence_number, *f.entry.file_sequence_number};
  }
  // The delete (2) applies to "old" (1 < 2) but not to "new" (2, same commit).
  EXPECT_EQ(seq["old"], std::make_pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(seq["new"], std::make_pair(int64_t{2}, int64_t{2}));
  EXPECT_EQ(seq["eq"], std::make_pair(int64_t{2}, int64_t{2}));
  EXPECT_GT(seq["eq"].first, seq["old"].first);
  EXPECT_FALSE(seq["eq"].first > seq["new"].first);
}

TEST_F(ProducerTest, RowDeltaFailsWhenReferencedFileWasRemovedConcurrently) {
  Table table = CreateTable("", {{"commit.retry.min-wait-ms", "1"}});
  auto append = table.NewAppend();
  DataFile a = MakeFile("a", 10), b = MakeFile("b", 10);
  append->AppendFile(a).AppendFile(b);
  FLOE_ASSERT_OK(append->Commit());

  Table writer = Reload();  // reads the table at this snapshot
  auto delta = writer.NewRowDelta();
  delta->AddDeletes(PositionDeletes((dir_ / "pos-a.parquet").string(), a.file_path));

  // Meanwhile another handle removes file a.
  Table other = Reload();
  auto del = other.NewDelete();
  del->DeleteFile(a.file_path);
  FLOE_ASSERT_OK(del->Commit());

  auto s = delta->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kCommitConflict) << s.error().ToString();
  EXPECT_NE(s.error().message().find(a.file_path), std::string::npos) << s.error().ToString();

  // A delta referencing only b commits on top of the concurrent delete.
  auto ok_delta = writer.NewRowDelta();
  ok_delta->ValidateFromSnapshot(append->snapshot_id());
  ok_delta->AddDeletes(PositionDeletes((dir_ / "pos-b.parquet").string(), b.file_path));
  FLOE_ASSERT_OK(ok_delta->Commit());
  EXPECT_EQ(writer.metadata().CurrentSnapshot()->operation, "delete");
  auto paths = LivePaths(writer);
  EXPECT_FALSE(paths.contains(a.file_path));
  EXPECT_TRUE(paths.contains(b.file_path));
  EXPECT_TRUE(paths.contains((dir_ / "pos-b.parquet").string()));
}

TEST_F(ProducerTest, RowDeltaRefusesPositionDeleteFilesThatAreNotDeletionVectorsInV3) {
  Table table = CreateTable("", {}, 3);
  auto append = table.NewAppend();
  DataFile a = MakeFile("a", 10);
  append->AppendFile(a);
  FLOE_ASSERT_OK(append->Commit());
  const SnapshotId before = table.metadata().CurrentSnapshot()->snapshot_id;

  // A Parquet position delete file: v3 forbids it.
  auto delta = table.NewRowDelta();
  delta->AddDeletes(PositionDeletes((dir_ / "pos-a.parquet").string(), a.file_path));
  auto s = delta->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument) << s.error().ToString();
  EXPECT_NE(s.error().ToString().find("ns.t"), std::string::npos) << s.error().ToString();
  EXPECT_NE(s.error().ToString().find("deletion vectors"), std::string::npos)
      << s.error().ToString();
  EXPECT_EQ(Reload().metadata().CurrentSnapshot()->snapshot_id, before);

  // A deletion vector (a Puffin blob) and an equality delete file commit.
  DataFile dv = PositionDeletes((dir_ / "dv.puffin").string(), a.file_path);
  dv.file_format = "puffin";
  dv.content_offset = 4;
  dv.content_size_in_bytes = 6;
  auto ok_delta = table.NewRowDelta();
  ok_delta->AddDeletes(dv).AddDeletes(EqualityDeletes((dir_ / "eq.parquet").string(), 1));
  FLOE_ASSERT_OK(ok_delta->Commit());
  EXPECT_TRUE(LivePaths(table).contains(dv.file_path));

  // The same Parquet file is fine in a v2 table.
  ASSERT_TRUE(catalog_->DropTable({{"ns"}, "t"}, false));
  Table v2 = CreateTable();
  auto v2_delta = v2.NewRowDelta();
  v2_delta->AddDeletes(PositionDeletes((dir_ / "pos-a.parquet").string(), a.file_path));
  FLOE_ASSERT_OK(v2_delta->Commit());
}

DataFile Vector(const std::string& path, const std::string& data_file) {
  DataFile f = PositionDeletes(path, data_file);
  f.file_format = "puffin";
  f.content_offset = 4;
  f.content_size_in_bytes = 6;
  return f;
}

TEST_F(ProducerTest, RowDeltaKeepsOneDeletionVectorPerDataFile) {
  Table table = CreateTable("", {{"commit.retry.min-wait-ms", "1"}}, 3);
  auto append = table.NewAppend();
  DataFile a = MakeFile("a", 10);
  append->AppendFile(a);
  FLOE_ASSERT_OK(append->Commit());
  const std::string first = (dir_ / "first.puffin").string();
  const std::string second = (dir_ / "second.puffin").string();

  // Two writers add a vector for a from the same base: the second conflicts
  // (its vector did not merge the first's).
  Table writer = Reload();
  auto delta = writer.NewRowDelta();
  delta->AddDeletes(Vector(second, a.file_path));
  auto other = table.NewRowDelta();
  other->AddDeletes(Vector(first, a.file_path));
  FLOE_ASSERT_OK(other->Commit());
  auto s = delta->Commit();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kCommitConflict) << s.error().ToString();
  EXPECT_NE(s.error().message().find(first), std::string::npos) << s.error().ToString();

  // Replacing the first vector by a merged one removes it in the same commit.
  auto merged = table.NewRowDelta();
  merged->AddDeletes(Vector(second, a.file_path)).RemoveDeletionVector(first, a.file_path);
  FLOE_ASSERT_OK(merged->Commit());
  auto paths = LivePaths(table);
  EXPECT_FALSE(paths.contains(first));
  EXPECT_TRUE(paths.contains(second));

  // The vector to replace is gone: conflict.
  auto stale = table.NewRowDelta();
  stale->AddDeletes(Vector((dir_ / "third.puffin").string(), a.file_path))
      .RemoveDeletionVector(first, a.file_path);
  auto gone = stale->Commit();
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kCommitConflict) << gone.error().ToString();
}

}  // namespace
}  // namespace floe::iceberg::testing
