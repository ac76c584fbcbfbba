#include <gtest/gtest.h>

#include <filesystem>

#include "floe/io/file_io.h"

namespace floe::io {
namespace {

class LocalFileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("floe_io_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const char* name) { return (dir_ / name).string(); }

  std::filesystem::path dir_;
  LocalFileIO io_;
};

TEST_F(LocalFileIOTest, WriteThenReadBack) {
  auto out = io_.CreateOutput(Path("a/b/file.bin"));
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Write(std::string_view("hello world")));
  EXPECT_EQ((*out)->position(), 11u);
  ASSERT_TRUE((*out)->Sync());
  ASSERT_TRUE((*out)->Close());
  auto all = io_.ReadAll("file://" + Path("a/b/file.bin"));
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, "hello world");
}

TEST_F(LocalFileIOTest, ExclusiveCreateRefusesExistingFile) {
  ASSERT_TRUE(io_.WriteAtomically(Path("x"), "1"));
  auto again = io_.CreateOutput(Path("x"));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
}

TEST_F(LocalFileIOTest, ReadPastEndIsCorruptionNamingTheFile) {
  ASSERT_TRUE(io_.WriteAtomically(Path("short"), "abc"));
  auto in = io_.OpenInput(Path("short"));
  ASSERT_TRUE(in);
  uint8_t buf[8];
  auto s = (*in)->ReadAt(1, buf);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(s.error().message().find("short"), std::string::npos);
}

TEST_F(LocalFileIOTest, RenameWithoutReplaceLosesToExistingTarget) {
  ASSERT_TRUE(io_.WriteAtomically(Path("from"), "new"));
  ASSERT_TRUE(io_.WriteAtomically(Path("to"), "old"));
  auto s = io_.Rename(Path("from"), Path("to"), /*replace=*/false);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(*io_.ReadAll(Path("to")), "old");
  EXPECT_TRUE(*io_.Exists(Path("from")));
}

TEST_F(LocalFileIOTest, MissingFileIsNotFound) {
  auto in = io_.OpenInput(Path("nope"));
  ASSERT_FALSE(in);
  EXPECT_EQ(in.error().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace floe::io
