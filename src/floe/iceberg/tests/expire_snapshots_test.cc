// ExpireSnapshots: which snapshots go, and that exactly the files no kept
// snapshot reaches are deleted.

#include "floe/iceberg/update/expire_snapshots.h"

#include <fstream>

#include "floe/iceberg/data/delete_files.h"
#include "floe/iceberg/tests/producer_test_util.h"
#include "floe/iceberg/update/fast_append.h"

namespace floe::iceberg::testing {
namespace {

std::set<std::string> FilesUnder(const std::filesystem::path& dir) {
  std::set<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(e.path().string());
  }
  return out;
}

TEST_F(ProducerTest, ExpireDeletesExactlyTheUnreachableFiles) {
  Table table = CreateTable();
  auto touch = [&](const DataFile& f) {
    std::filesystem::create_directories(std::filesystem::path(f.file_path).parent_path());
    std::ofstream(f.file_path) << "x";
  };
  DataFile a = MakeFile("a", 3), b = MakeFile("b", 4), c = MakeFile("c", 5);
  for (const auto& f : {a, b, c}) touch(f);
  auto s1 = table.NewAppend();
  s1->AppendFile(a);
  FLOE_ASSERT_OK(s1->Commit());
  const std::string list1 = table.metadata().CurrentSnapshot()->manifest_list;
  auto s2 = table.NewAppend();
  s2->AppendFile(b);
  FLOE_ASSERT_OK(s2->Commit());
  const std::string list2 = table.metadata().CurrentSnapshot()->manifest_list;
  auto s3 = table.NewDelete();  // removes a
  s3->DeleteFile(a.file_path);
  FLOE_ASSERT_OK(s3->Commit());
  auto s4 = table.NewAppend();
  s4->AppendFile(c);
  FLOE_ASSERT_OK(s4->Commit());

  const auto table_dir = dir_ / "warehouse" / "ns" / "t";
  const auto before = FilesUnder(table_dir);
  auto expire = table.NewExpireSnapshots();
  expire->ExpireOlderThan(table.metadata().CurrentSnapshot()->timestamp_ms + 1).RetainLast(2);
  auto result = expire->Commit();
  FLOE_ASSERT_OK(result);
  EXPECT_EQ(result->expired_snapshot_ids.size(), 2u);
  EXPECT_EQ(table.metadata().snapshots.size(), 2u);
  EXPECT_EQ(table.metadata().SnapshotById(s1->snapshot_id()), nullptr);
  EXPECT_EQ(table.metadata().SnapshotById(s2->snapshot_id()), nullptr);

  const auto after = FilesUnder(table_dir);
  std::set<std::string> deleted;
  for (const auto& f : before) {
    if (!after.contains(f)) deleted.insert(f);
  }
  // Deleted: data file a (live only in s1, s2), the manifest lists of s1 and
  // s2, and the manifest of s1 (s3 rewrote it). Not b's manifest (s3, s4 list it).
  EXPECT_TRUE(deleted.contains(a.file_path));
  EXPECT_TRUE(deleted.contains(list1));
  EXPECT_TRUE(deleted.contains(list2));
  EXPECT_EQ(result->deleted_data_files, 1);
  EXPECT_EQ(result->deleted_manifest_lists, 2);
  EXPECT_EQ(result->deleted_manifests, 1);
  EXPECT_EQ(deleted.size(), 4u);
  for (const auto& f : {b, c}) EXPECT_TRUE(after.contains(f.file_path)) << f.file_path;
  // Every file the kept snapshots reach still exists.
  for (const auto& s : table.metadata().snapshots) {
    EXPECT_TRUE(std::filesystem::exists(s.manifest_list));
    auto manifests = SnapshotManifests(io_, s, 2);
    FLOE_ASSERT_OK(manifests);
    for (const auto& m : *manifests) EXPECT_TRUE(std::filesystem::exists(m.manifest_path));
  }
  EXPECT_EQ(LivePaths(table), (std::set<std::string>{b.file_path, c.file_path}));
}

TEST_F(ProducerTest, ExpireKeepsRetainLastAndRecentSnapshots) {
  Table table = CreateTable();
  for (int i = 0; i < 4; ++i) {
    auto a = table.NewAppend();
    a->AppendFile(MakeFile("f" + std::to_string(i), 1));
    FLOE_ASSERT_OK(a->Commit());
  }
  // Nothing is older than the default 5 days: nothing expires.
  auto none = table.NewExpireSnapshots();
  FLOE_ASSERT_OK(none->Commit());
  EXPECT_EQ(table.metadata().snapshots.size(), 4u);
  auto some = table.NewExpireSnapshots();
  some->ExpireOlderThan(table.metadata().CurrentSnapshot()->timestamp_ms + 1).RetainLast(3);
  FLOE_ASSERT_OK(some->Commit());
  EXPECT_EQ(table.metadata().snapshots.size(), 3u);
  EXPECT_EQ(LivePaths(table).size(), 4u);  // all data is still live in the current snapshot
}

// A manifest that names a file outside the table's location (rewritten or
// hostile metadata) must not make expire delete it unless asked to.
TEST_F(ProducerTest, ExpireSkipsFilesOutsideTheTableLocationUnlessAllowed) {
  for (bool allow : {false, true}) {
    SCOPED_TRACE(allow ? "allowed" : "default");
    std::filesystem::remove_all(dir_ / "warehouse" / "ns" / "t");
    Table table = CreateTable();
    const auto victim = dir_ / "outside" / "victim.parquet";
    std::filesystem::create_directories(victim.parent_path());
    std::ofstream(victim) << "not the table's";
    DataFile foreign = MakeFile("foreign", 1);
    foreign.file_path = victim.string();
    DataFile sneaky = MakeFile("sneaky", 1);  // inside by prefix, outside after ".."
    sneaky.file_path = table.metadata().location + "/data/../../../../outside/victim.parquet";
    auto s1 = table.NewAppend();
    s1->AppendFile(foreign).AppendFile(sneaky);
    FLOE_ASSERT_OK(s1->Commit());
    auto s2 = table.NewDelete();
    s2->DeleteFile(foreign.file_path).DeleteFile(sneaky.file_path);
    FLOE_ASSERT_OK(s2->Commit());
    auto expire = table.NewExpireSnapshots();
    expire->ExpireOlderThan(table.metadata().CurrentSnapshot()->timestamp_ms + 1).RetainLast(1);
    expire->DeleteOutsideLocation(allow);
    auto result = expire->Commit();
    FLOE_ASSERT_OK(result);
    EXPECT_EQ(result->expired_snapshot_ids.size(), 1u);
    if (allow) {
      EXPECT_FALSE(std::filesystem::exists(victim));
      EXPECT_TRUE(result->skipped_outside_location.empty());
    } else {
      EXPECT_TRUE(std::filesystem::exists(victim));
      EXPECT_EQ(result->deleted_data_files, 0);
      EXPECT_EQ(result->skipped_outside_location,
                (std::vector<std::string>{foreign.file_path, sneaky.file_path}));
    }
  }
}

}  // namespace
}  // namespace floe::iceberg::testing
