// FileIO::OpenAppend: LocalFileIO appends, truncates and syncs; the wrapping
// FileIOs hand the call to the FileIO of the path; object stores refuse it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "floe/io/deferred_sync_file_io.h"
#include "floe/io/file_io.h"
#include "floe/io/resolving_file_io.h"
#include "floe/testing/temp_dir.h"

namespace floe::io {
namespace {

class AppendFileTest : public ::testing::Test {
 protected:
  std::string Path(const char* name) { return (dir_ / name).string(); }
  std::string Contents(const std::string& path) {
    auto all = io_.ReadAll(path);
    EXPECT_TRUE(all) << all.error().ToString();
    return all ? *all : std::string();
  }

  floe::testing::TempDir temp_dir_{"append_test"};
  std::filesystem::path dir_ = temp_dir_.path();
  LocalFileIO io_;
};

TEST_F(AppendFileTest, CreatesTheFileAndItsFoldersThenAppends) {
  auto file = io_.OpenAppend(Path("a/b/log.jsonl"));
  ASSERT_TRUE(file) << file.error().ToString();
  EXPECT_EQ((*file)->size(), 0u);
  ASSERT_TRUE((*file)->Append(std::string_view("one\n")));
  ASSERT_TRUE((*file)->Append(std::string_view("two\n")));
  EXPECT_EQ((*file)->size(), 8u);
  ASSERT_TRUE((*file)->Sync());
  ASSERT_TRUE((*file)->Close());
  EXPECT_EQ(Contents(Path("a/b/log.jsonl")), "one\ntwo\n");
}

TEST_F(AppendFileTest, ReopeningContinuesAtTheEnd) {
  ASSERT_TRUE(io_.WriteAtomically(Path("log"), "old\n"));
  auto file = io_.OpenAppend("file://" + Path("log"));
  ASSERT_TRUE(file) << file.error().ToString();
  EXPECT_EQ((*file)->size(), 4u);
  ASSERT_TRUE((*file)->Append(std::string_view("new\n")));
  ASSERT_TRUE((*file)->Close());
  EXPECT_EQ(Contents(Path("log")), "old\nnew\n");
}

TEST_F(AppendFileTest, TruncateCutsBackAndLaterAppendsFollowTheCut) {
  auto file = io_.OpenAppend(Path("log"));
  ASSERT_TRUE(file);
  ASSERT_TRUE((*file)->Append(std::string_view("whole\ntorn")));
  ASSERT_TRUE((*file)->Truncate(6));
  EXPECT_EQ((*file)->size(), 6u);
  ASSERT_TRUE((*file)->Append(std::string_view("next\n")));
  ASSERT_TRUE((*file)->Sync());
  EXPECT_EQ((*file)->size(), 11u);
  EXPECT_EQ(Contents(Path("log")), "whole\nnext\n");
}

TEST_F(AppendFileTest, TruncatePastTheEndIsRefused) {
  auto file = io_.OpenAppend(Path("log"));
  ASSERT_TRUE(file);
  ASSERT_TRUE((*file)->Append(std::string_view("abc")));
  Status grown = (*file)->Truncate(4);
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ((*file)->size(), 3u);
}

TEST_F(AppendFileTest, CallsAfterCloseFail) {
  auto file = io_.OpenAppend(Path("log"));
  ASSERT_TRUE(file);
  ASSERT_TRUE((*file)->Close());
  ASSERT_TRUE((*file)->Close());  // idempotent
  EXPECT_FALSE((*file)->Append(std::string_view("x")));
  EXPECT_FALSE((*file)->Truncate(0));
  EXPECT_FALSE((*file)->Sync());
}

TEST_F(AppendFileTest, AFolderIsNotAnAppendFile) {
  std::filesystem::create_directories(Path("folder"));
  auto file = io_.OpenAppend(Path("folder"));
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().code(), ErrorCode::kInvalidArgument);
}

TEST_F(AppendFileTest, ObjectStoresCannotAppend) {
  auto local = io_.OpenAppend("s3://bucket/log");
  ASSERT_FALSE(local);
  EXPECT_EQ(local.error().code(), ErrorCode::kNotSupported);

  ResolvingFileIO resolving(
      {},
      [](std::string_view, const ResolvingFileIO::Properties&) -> Result<std::unique_ptr<FileIO>> {
        // A FileIO that keeps FileIO's default OpenAppend, as S3FileIO does.
        class NoAppend final : public FileIO {
         public:
          Result<std::unique_ptr<InputFile>> OpenInput(std::string_view p) override {
            return NotFound("{}", p);
          }
          Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view p, bool) override {
            return NotSupported("{}", p);
          }
          Status Delete(std::string_view) override { return Ok(); }
          Result<bool> Exists(std::string_view) override { return false; }
          Status Rename(std::string_view, std::string_view, bool) override { return Ok(); }
          Result<std::vector<FileInfo>> List(std::string_view) override {
            return std::vector<FileInfo>{};
          }
        };
        return std::unique_ptr<FileIO>(std::make_unique<NoAppend>());
      });
  auto remote = resolving.OpenAppend("s3://bucket/log");
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(remote.error().message().find("s3://bucket/log"), std::string::npos);

  auto here = resolving.OpenAppend(Path("log"));
  ASSERT_TRUE(here) << here.error().ToString();
  ASSERT_TRUE((*here)->Append(std::string_view("x")));
}

TEST_F(AppendFileTest, DeferredSyncHandsAppendsToTheWrappedFileIO) {
  DeferredSyncFileIO deferred(io_);
  auto file = deferred.OpenAppend(Path("log"));
  ASSERT_TRUE(file) << file.error().ToString();
  ASSERT_TRUE((*file)->Append(std::string_view("x\n")));
  ASSERT_TRUE((*file)->Sync());
  EXPECT_EQ(deferred.deferred_files(), 0u);
  EXPECT_EQ(Contents(Path("log")), "x\n");
}

}  // namespace
}  // namespace floe::io
