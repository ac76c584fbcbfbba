// Manifest merging: the manifest count of the current snapshot stays bounded
// by commit.manifest.min-count-to-merge however many appends accumulate (so
// a commit reads and writes a bounded amount), and merged manifests keep
// every file with its sequence numbers.

#include "floe/iceberg/manifest/manifest_merge.h"

#include "floe/iceberg/tests/producer_test_util.h"
#include "floe/iceberg/update/fast_append.h"

namespace floe::iceberg::testing {
namespace {

TEST_F(ProducerTest, MergingKeepsManifestCountBoundedAndFilesIntact) {
  Table table = CreateTable("", {{"commit.manifest.min-count-to-merge", "5"}});
  size_t max_manifests = 0;
  for (int i = 0; i < 23; ++i) {
    auto a = table.NewAppend();
    a->AppendFile(MakeFile("f" + std::to_string(i), i + 1));
    FLOE_ASSERT_OK(a->Commit());
    auto manifests = SnapshotManifests(io_, *table.metadata().CurrentSnapshot(), 2);
    FLOE_ASSERT_OK(manifests);
    max_manifests = std::max(max_manifests, manifests->size());
  }
  EXPECT_LE(max_manifests, 5u);
  auto live = Live(Reload());
  ASSERT_EQ(live.size(), 23u);
  for (const auto& f : live) {
    // f<i> was added by commit i + 1, and keeps that sequence number through merges.
    int i = std::stoi(std::filesystem::path(f.entry.data_file.file_path).stem().string().substr(1));
    EXPECT_EQ(f.entry.sequence_number, i + 1);
    EXPECT_EQ(f.entry.file_sequence_number, i + 1);
    EXPECT_EQ(f.entry.data_file.record_count, i + 1);
  }
  EXPECT_EQ(Total(table, summary::kTotalDataFiles), 23);
}

TEST_F(ProducerTest, MergingCanBeDisabled) {
  Table table = CreateTable("", {{"commit.manifest.min-count-to-merge", "2"},
                                 {"commit.manifest-merge.enabled", "false"}});
  for (int i = 0; i < 6; ++i) {
    auto a = table.NewAppend();
    a->AppendFile(MakeFile("f" + std::to_string(i), 1));
    FLOE_ASSERT_OK(a->Commit());
  }
  auto manifests = SnapshotManifests(io_, *table.metadata().CurrentSnapshot(), 2);
  FLOE_ASSERT_OK(manifests);
  EXPECT_EQ(manifests->size(), 6u);
}

}  // namespace
}  // namespace floe::iceberg::testing
