#include "floe/io/deferred_sync_file_io.h"
#include "floe/testing/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace floe::io {
namespace {

/// Local files, counting the syncs that reach the file system.
class CountingFileIO final : public FileIO {
 public:
  struct Counts {
    int file_syncs = 0;
    std::vector<std::vector<std::string>> sync_files_calls;
    std::vector<std::string> events;  // "sync-files <n>" and "rename <from>", in order
  };

  explicit CountingFileIO(bool supports_sync_files) : supports_(supports_sync_files) {}

  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) override {
    return local_.OpenInput(path);
  }
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path, bool overwrite) override {
    FLOE_ASSIGN_OR_RETURN(auto file, local_.CreateOutput(path, overwrite));
    return std::make_unique<CountingOutput>(std::move(file), counts_);
  }
  Status Delete(std::string_view path) override { return local_.Delete(path); }
  Result<bool> Exists(std::string_view path) override { return local_.Exists(path); }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    counts_.events.push_back("rename " + std::string(from));
    return local_.Rename(from, to, replace);
  }
  Result<std::vector<FileInfo>> List(std::string_view dir) override { return local_.List(dir); }
  bool SupportsSyncFiles() const override { return supports_; }
  Status SyncFiles(std::span<const std::string> paths) override {
    if (fail_next_) {
      fail_next_ = false;
      return MakeError(ErrorCode::kIo, "injected sync failure");
    }
    counts_.sync_files_calls.emplace_back(paths.begin(), paths.end());
    counts_.events.push_back("sync-files " + std::to_string(paths.size()));
    return local_.SyncFiles(paths);
  }

  Counts& counts() { return counts_; }
  void FailNextSyncFiles() { fail_next_ = true; }

 private:
  class CountingOutput final : public OutputFile {
   public:
    CountingOutput(std::unique_ptr<OutputFile> inner, Counts& counts)
        : inner_(std::move(inner)), counts_(counts) {}
    const std::string& path() const override { return inner_->path(); }
    Status Write(std::span<const uint8_t> bytes) override { return inner_->Write(bytes); }
    uint64_t position() const override { return inner_->position(); }
    Status Sync() override {
      ++counts_.file_syncs;
      return inner_->Sync();
    }
    Status Close() override { return inner_->Close(); }

   private:
    std::unique_ptr<OutputFile> inner_;
    Counts& counts_;
  };

  LocalFileIO local_;
  bool supports_;
  bool fail_next_ = false;
  Counts counts_;
};

class DeferredSyncFileIOTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) { return (dir_ / name).string(); }

  static void WriteSynced(FileIO& io, const std::string& path, std::string_view bytes) {
    auto out = io.CreateOutput(path, false);
    ASSERT_TRUE(out) << out.error().ToString();
    ASSERT_TRUE((*out)->Write(bytes));
    ASSERT_TRUE((*out)->Sync());
    ASSERT_TRUE((*out)->Close());
  }

  floe::testing::TempDir temp_dir_{"deferred_sync_test"};
  std::filesystem::path dir_ = temp_dir_.path();
};

TEST_F(DeferredSyncFileIOTest, SyncsAreRecordedAndMadeDurableTogether) {
  CountingFileIO inner(/*supports_sync_files=*/true);
  DeferredSyncFileIO io(inner);
  for (int i = 0; i < 20; ++i) WriteSynced(io, Path("f" + std::to_string(i)), "bytes");
  EXPECT_EQ(inner.counts().file_syncs, 0);
  EXPECT_EQ(io.deferred_files(), 20u);
  ASSERT_TRUE(io.SyncDeferred());
  ASSERT_EQ(inner.counts().sync_files_calls.size(), 1u);
  EXPECT_EQ(inner.counts().sync_files_calls[0].size(), 20u);
  EXPECT_EQ(io.deferred_files(), 0u);
  // Nothing new: no call.
  ASSERT_TRUE(io.SyncDeferred());
  EXPECT_EQ(inner.counts().sync_files_calls.size(), 1u);
  // The files are whole.
  auto back = io.ReadAll(Path("f7"));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "bytes");
}

TEST_F(DeferredSyncFileIOTest, AFailedBarrierKeepsTheFilesForTheNextOne) {
  CountingFileIO inner(true);
  DeferredSyncFileIO io(inner);
  WriteSynced(io, Path("a"), "1");
  WriteSynced(io, Path("b"), "2");
  inner.FailNextSyncFiles();
  auto failed = io.SyncDeferred();
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("injected"), std::string::npos);
  EXPECT_EQ(io.deferred_files(), 2u);
  ASSERT_TRUE(io.SyncDeferred());
  ASSERT_EQ(inner.counts().sync_files_calls.size(), 1u);
  EXPECT_EQ(inner.counts().sync_files_calls[0].size(), 2u);
}

TEST_F(DeferredSyncFileIOTest, ARenamedFileIsSyncedBeforeItsNewName) {
  CountingFileIO inner(true);
  DeferredSyncFileIO io(inner);
  WriteSynced(io, Path("other"), "x");
  ASSERT_TRUE(io.WriteNew(Path("final.json"), "{}"));
  // WriteNew synced its temporary and renamed it: the temporary was synced
  // on its own, before the rename, and is no longer recorded.
  const auto& events = inner.counts().events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0], "sync-files 1");
  EXPECT_TRUE(events[1].starts_with("rename ")) << events[1];
  EXPECT_EQ(io.deferred_files(), 1u);
  auto back = io.ReadAll(Path("final.json"));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "{}");
}

TEST_F(DeferredSyncFileIOTest, WithoutSyncFilesEverySyncHappensAtOnce) {
  CountingFileIO inner(/*supports_sync_files=*/false);
  DeferredSyncFileIO io(inner);
  WriteSynced(io, Path("a"), "1");
  WriteSynced(io, Path("b"), "2");
  EXPECT_EQ(inner.counts().file_syncs, 2);
  EXPECT_EQ(io.deferred_files(), 0u);
  ASSERT_TRUE(io.SyncDeferred());
  EXPECT_TRUE(inner.counts().sync_files_calls.empty());
}

TEST_F(DeferredSyncFileIOTest, LocalSyncFilesSkipsDeletedFilesAndRefusesOtherSchemes) {
  LocalFileIO local;
  std::vector<std::string> few, many;
  for (int i = 0; i < 3; ++i) {
    few.push_back(Path("few" + std::to_string(i)));
    ASSERT_TRUE(local.WriteAtomically(few.back(), "x"));
  }
  for (size_t i = 0; i < LocalFileIO::kSyncfsMinFiles + 2; ++i) {
    many.push_back("file://" + Path("many" + std::to_string(i)));
    ASSERT_TRUE(local.WriteAtomically(many.back(), "y"));
  }
  few.push_back(Path("deleted"));
  EXPECT_TRUE(local.SyncFiles(few));   // one fdatasync each, the missing one skipped
  EXPECT_TRUE(local.SyncFiles(many));  // one syncfs
  std::vector<std::string> remote{"s3://bucket/key"};
  auto refused = local.SyncFiles(remote);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kNotSupported);
}

}  // namespace
}  // namespace floe::io
