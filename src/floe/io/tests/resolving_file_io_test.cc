// ResolvingFileIO: each path goes to the FileIO of its scheme; the object
// store's FileIO is made lazily, once, from the properties in force then.
#include "floe/io/resolving_file_io.h"
#include "floe/testing/temp_dir.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

namespace floe::io {
namespace {

/// "s3://bucket/key" served from `<root>/bucket/key` on the local disk, so
/// that the test can see where each call went.
class FolderAsBucketIO final : public FileIO {
 public:
  explicit FolderAsBucketIO(std::string root) : root_(std::move(root)) {}
  std::string Local(std::string_view path) const {
    size_t at = path.find("://");
    return root_ + "/" + std::string(path.substr(at + 3));
  }
  Result<std::unique_ptr<InputFile>> OpenInput(std::string_view path) override {
    return local_.OpenInput(Local(path));
  }
  Result<std::unique_ptr<OutputFile>> CreateOutput(std::string_view path, bool overwrite) override {
    return local_.CreateOutput(Local(path), overwrite);
  }
  Status Delete(std::string_view path) override { return local_.Delete(Local(path)); }
  Result<bool> Exists(std::string_view path) override { return local_.Exists(Local(path)); }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    return local_.Rename(Local(from), Local(to), replace);
  }
  Result<std::vector<FileInfo>> List(std::string_view dir) override {
    return local_.List(Local(dir));
  }
  bool SupportsSyncFiles() const override { return true; }
  Status SyncFiles(std::span<const std::string> paths) override {
    synced.insert(synced.end(), paths.begin(), paths.end());
    return Ok();
  }
  std::vector<std::string> synced;

 private:
  std::string root_;
  LocalFileIO local_;
};

class ResolvingFileIOTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_ / "bucket"); }

  ResolvingFileIO::Factory Factory() {
    return [this](std::string_view scheme,
                  const ResolvingFileIO::Properties& p) -> Result<std::unique_ptr<FileIO>> {
      ++made_;
      schemes_.push_back(std::string(scheme));
      made_with_ = p;
      if (p.contains("fail")) return InvalidArgument("no credentials for S3");
      auto io = std::make_unique<FolderAsBucketIO>((dir_ / "bucket").string());
      store_ = io.get();
      return std::unique_ptr<FileIO>(std::move(io));
    };
  }
  std::string Local(const char* name) { return (dir_ / name).string(); }

  floe::testing::TempDir temp_dir_{"resolving_test"};
  std::filesystem::path dir_ = temp_dir_.path();
  std::atomic<int> made_ = 0;
  std::vector<std::string> schemes_;
  ResolvingFileIO::Properties made_with_;
  FolderAsBucketIO* store_ = nullptr;
};

TEST_F(ResolvingFileIOTest, SchemesMapToTheirStorage) {
  EXPECT_EQ(ResolvingFileIO::SchemeOf("/a/b"), "");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("rel/b"), "");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("file:///a/b"), "");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("file:/a/b"), "");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("s3://b/k"), "s3");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("S3A://b/k"), "s3");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("s3n://b/k"), "s3");
  EXPECT_EQ(ResolvingFileIO::SchemeOf("gs://b/k"), "gs");
}

TEST_F(ResolvingFileIOTest, LocalPathsNeverMakeTheObjectStore) {
  ResolvingFileIO io({{"fail", "1"}}, Factory());
  ASSERT_TRUE(io.WriteAtomically(Local("a/x.txt"), "local"));
  ASSERT_TRUE(io.WriteNew("file://" + Local("a/y.txt"), "uri"));
  EXPECT_EQ(*io.ReadAll(Local("a/y.txt")), "uri");
  EXPECT_EQ(io.List(Local("a"))->size(), 2u);
  ASSERT_TRUE(io.Rename(Local("a/x.txt"), "file://" + Local("a/z.txt"), false));
  EXPECT_FALSE(*io.Exists(Local("a/x.txt")));
  EXPECT_EQ(made_, 0);
}

TEST_F(ResolvingFileIOTest, ObjectStoreIsMadeOnceOnFirstUseWithTheLatestProperties) {
  ResolvingFileIO io({{"s3.region", "eu-west-1"}}, Factory());
  ASSERT_TRUE(io.SetProperties({{"s3.region", "eu-west-1"}, {"s3.endpoint", "http://x"}}));
  EXPECT_EQ(made_, 0);
  ASSERT_TRUE(io.WriteNew("s3://t/a.json", "one"));
  ASSERT_TRUE(io.WriteAtomically("s3a://t/b.json", "two"));
  auto out = io.CreateOutput("s3n://t/c.bin");
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->Write(std::string_view("three")));
  ASSERT_TRUE((*out)->Close());
  EXPECT_EQ(made_, 1);
  EXPECT_EQ(schemes_, std::vector<std::string>{"s3"});
  EXPECT_EQ(made_with_.at("s3.endpoint"), "http://x");
  // Where the bytes went: the bucket folder, not a local path named "s3:".
  EXPECT_TRUE(std::filesystem::exists(dir_ / "bucket/t/a.json"));
  EXPECT_EQ(*io.ReadAll("s3://t/c.bin"), "three");
  EXPECT_EQ(io.List("s3://t")->size(), 3u);
  EXPECT_TRUE(*io.Exists("s3://t/b.json"));
  ASSERT_TRUE(io.Delete("s3://t/b.json"));
  EXPECT_FALSE(*io.Exists("s3://t/b.json"));
  EXPECT_EQ(io.WriteNew("s3://t/a.json", "again").error().code(), ErrorCode::kAlreadyExists);
  // Same properties again: fine; other ones: refused, the store keeps its own.
  EXPECT_TRUE(io.SetProperties(io.properties()));
  auto changed = io.SetProperties({{"s3.region", "us-east-1"}});
  ASSERT_FALSE(changed);
  EXPECT_EQ(changed.error().code(), ErrorCode::kInvalidArgument);
}

TEST_F(ResolvingFileIOTest, FactoryErrorNamesThePathAndIsRetried) {
  ResolvingFileIO io({{"fail", "1"}}, Factory());
  auto r = io.OpenInput("s3://t/secret-free/a.parquet");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().ToString().find("s3://t/secret-free/a.parquet"), std::string::npos);
  EXPECT_NE(r.error().ToString().find("no credentials"), std::string::npos);
  ASSERT_TRUE(io.SetProperties({}));  // nothing was made: may still change
  ASSERT_TRUE(io.WriteNew("s3://t/a", "x"));
  EXPECT_EQ(made_, 2);
}

TEST_F(ResolvingFileIOTest, UnknownSchemesAndCrossStorageRenamesAreRefused) {
  ResolvingFileIO io({}, Factory());
  ResolvingFileIO none({}, nullptr);
  auto r = none.Exists("s3://b/k");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(r.error().ToString().find("'s3'"), std::string::npos);
  ASSERT_TRUE(io.WriteNew(Local("x"), "x"));
  auto moved = io.Rename(Local("x"), "s3://t/x", false);
  ASSERT_FALSE(moved);
  EXPECT_EQ(moved.error().code(), ErrorCode::kNotSupported);
  EXPECT_TRUE(*io.Exists(Local("x")));
}

TEST_F(ResolvingFileIOTest, SyncFilesGoesToEachStorage) {
  ResolvingFileIO io({}, Factory());
  ASSERT_TRUE(io.WriteNew(Local("l1"), "1"));
  ASSERT_TRUE(io.WriteNew("s3://t/o1", "2"));
  std::vector<std::string> paths = {Local("l1"), "s3://t/o1", "s3a://t/o1"};
  EXPECT_TRUE(io.SupportsSyncFiles());
  ASSERT_TRUE(io.SyncFiles(paths));
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(store_->synced, (std::vector<std::string>{"s3://t/o1", "s3a://t/o1"}));
}

TEST_F(ResolvingFileIOTest, LocationPropertiesOverlayTheCatalogsForPathsUnderThem) {
  ResolvingFileIO io({{"s3.endpoint", "http://e"}, {"s3.access-key-id", "catalog"}}, Factory());
  // A table's vended keys: its files, and only its, use them.
  io.SetLocationProperties("s3://t/ns/orders/", {{"s3.access-key-id", "vended-1"}});
  io.SetLocationProperties(Local("ignored"), {{"s3.access-key-id", "x"}});  // local: no effect
  ASSERT_TRUE(io.WriteNew("s3://t/ns/orders/data/a.parquet", "a"));
  EXPECT_EQ(made_with_.at("s3.access-key-id"), "vended-1");
  EXPECT_EQ(made_with_.at("s3.endpoint"), "http://e");  // the rest from the catalog
  EXPECT_TRUE(*io.Exists("s3://t/ns/orders"));
  EXPECT_EQ(made_, 1);  // the location itself is under it too
  ASSERT_TRUE(io.WriteNew("s3://t/ns/orders-2/data/b.parquet", "b"));  // a sibling, not under
  EXPECT_EQ(made_, 2);
  EXPECT_EQ(made_with_.at("s3.access-key-id"), "catalog");
  // A longer location wins over a shorter one holding it.
  io.SetLocationProperties("s3://t/ns", {{"s3.access-key-id", "namespace"}});
  ASSERT_TRUE(io.WriteNew("s3://t/ns/other/c", "c"));
  EXPECT_EQ(made_with_.at("s3.access-key-id"), "namespace");
  EXPECT_TRUE(*io.Exists("s3://t/ns/orders/data/a.parquet"));
  EXPECT_EQ(made_, 3);
  // The same keys again: nothing new; refreshed keys: a new FileIO for later calls.
  io.SetLocationProperties("s3://t/ns/orders", {{"s3.access-key-id", "vended-1"}});
  EXPECT_TRUE(*io.Exists("s3://t/ns/orders/data/a.parquet"));
  EXPECT_EQ(made_, 3);
  io.SetLocationProperties("s3://t/ns/orders", {{"s3.access-key-id", "vended-2"}});
  EXPECT_EQ(*io.ReadAll("s3://t/ns/orders/data/a.parquet"), "a");
  EXPECT_EQ(made_, 4);
  EXPECT_EQ(made_with_.at("s3.access-key-id"), "vended-2");
}

TEST_F(ResolvingFileIOTest, ManyThreadsMakeOneStore) {
  ResolvingFileIO io({}, Factory());
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&io, i] { (void)io.WriteNew("s3://t/f" + std::to_string(i), "x"); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(made_, 1);
  EXPECT_EQ(io.List("s3://t")->size(), 8u);
}

}  // namespace
}  // namespace floe::io
