#include <gtest/gtest.h>

#include <filesystem>

#include "floe/io/file_io.h"
#include "floe/testing/temp_dir.h"

namespace floe::io {
namespace {

class LocalFileIOTest : public ::testing::Test {
 protected:
  std::string Path(const char* name) { return (dir_ / name).string(); }

  floe::testing::TempDir temp_dir_{"io_test"};
  std::filesystem::path dir_ = temp_dir_.path();
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

// S4: another scheme is refused by name, never taken for a relative folder.
TEST_F(LocalFileIOTest, OtherSchemesAreNotSupported) {
  for (const char* uri :
       {"s3://bucket/wh/t/metadata/snap.avro", "gs://b/x", "hdfs://nn:8020/x", "S3A://Bucket/x"}) {
    SCOPED_TRACE(uri);
    auto in = io_.OpenInput(uri);
    ASSERT_FALSE(in);
    EXPECT_EQ(in.error().code(), ErrorCode::kNotSupported);
    EXPECT_NE(in.error().message().find("not supported"), std::string::npos);
    EXPECT_NE(in.error().message().find("scheme '" + UriScheme(uri) + "'"), std::string::npos);
    EXPECT_EQ(io_.CreateOutput(uri).error().code(), ErrorCode::kNotSupported);
    EXPECT_EQ(io_.Exists(uri).error().code(), ErrorCode::kNotSupported);
    EXPECT_EQ(io_.List(uri).error().code(), ErrorCode::kNotSupported);
    EXPECT_EQ(io_.Delete(uri).error().code(), ErrorCode::kNotSupported);
    EXPECT_EQ(CreateDirectories(uri).error().code(), ErrorCode::kNotSupported);
  }
  EXPECT_EQ(io_.OpenInput("s3://u:TopSecret@bucket/x").error().message().find("TopSecret"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("s3:"));
  // file:// and plain paths still work.
  ASSERT_TRUE(io_.WriteAtomically("file://" + Path("f"), "1"));
  EXPECT_EQ(*io_.ReadAll(Path("f")), "1");
}

TEST(UriTest, SchemeOfPathsAndUris) {
  EXPECT_EQ(UriScheme("s3://b/k"), "s3");
  EXPECT_EQ(UriScheme("S3A://b/k"), "s3a");
  EXPECT_EQ(UriScheme("file:///a"), "file");
  EXPECT_EQ(UriScheme("file:/a"), "file");
  EXPECT_EQ(UriScheme("/abs/path"), "");
  EXPECT_EQ(UriScheme("relative/a:b"), "");
  EXPECT_EQ(UriScheme("c:b"), "");
  EXPECT_EQ(UriScheme(""), "");
}

// S2: one helper hides the secrets of every URI that goes into a message.
TEST(UriTest, RedactHidesPasswordsAndSecretParameters) {
  EXPECT_EQ(RedactUri("postgresql://floe:TopSecret123@db:5432/cat"),
            "postgresql://floe:***@db:5432/cat");
  EXPECT_EQ(RedactUri("mysql://u:p@ss:w@rd@h/db"), "mysql://u:***@h/db");
  EXPECT_EQ(RedactUri("postgresql://floe@db/cat"), "postgresql://floe@db/cat");
  EXPECT_EQ(RedactUri("jdbc:postgresql://db/cat?user=floe&password=s3cret&ssl=true"),
            "jdbc:postgresql://db/cat?user=floe&password=***&ssl=true");
  EXPECT_EQ(RedactUri("https://h/x?X-Amz-Signature=abc&token=t&secret=s&api_key=k&Region=eu"),
            "https://h/x?X-Amz-Signature=***&token=***&secret=***&api_key=***&Region=eu");
  EXPECT_EQ(RedactUri("sqlite:///a/b.db"), "sqlite:///a/b.db");
  EXPECT_EQ(RedactUri("/plain/path"), "/plain/path");
  // A "://" inside a query value is not an authority (the scheme starts the text).
  EXPECT_EQ(RedactUri("x?note=see http://u:pw@h&k=1"), "x?note=see http://u:pw@h&k=1");
  EXPECT_EQ(RedactUri("sqlite:/a?token=b c:///d&r p://u:pass@h"),
            "sqlite:/a?token=***&r p://u:pass@h");
  for (const char* uri : {"a://u:p@h?password=x", "x?token=", "?", "a://:@", "s://u:@h;pwd=1#f",
                          "sqlite:/a?token=b c:///d&r p://u:pass@h", "j:p://u:a;b@h/x;key=1"}) {
    EXPECT_EQ(RedactUri(RedactUri(uri)), RedactUri(uri)) << uri;
  }
}

TEST(UriTest, AbsolutePathsAndContainment) {
  EXPECT_EQ(AbsoluteLocalPath("./lake", "/etc/floe"), "/etc/floe/lake");
  EXPECT_EQ(AbsoluteLocalPath("file:///a/b/../c/"), "/a/c");
  EXPECT_EQ(AbsoluteLocalPath("s3://b/k"), "s3://b/k");
  EXPECT_TRUE(AbsoluteLocalPath("x").starts_with("/"));
  EXPECT_TRUE(PathIsWithin("/t/data/f.parquet", "/t"));
  EXPECT_TRUE(PathIsWithin("file:///t/data/f.parquet", "/t/"));
  EXPECT_TRUE(PathIsWithin("/t", "/t"));
  EXPECT_FALSE(PathIsWithin("/t2/f", "/t"));
  EXPECT_FALSE(PathIsWithin("/t/data/../../etc/passwd", "/t"));
  EXPECT_FALSE(PathIsWithin("s3://b/t/f", "/t"));
  EXPECT_TRUE(PathIsWithin("s3://b/t/f", "s3://b/t"));
  EXPECT_FALSE(PathIsWithin("s3://b/t/../u/f", "s3://b/t"));
}

// D3: WriteNew never leaves a partial file under the final name, and never replaces.
TEST_F(LocalFileIOTest, WriteNewCreatesWholeFilesOnly) {
  ASSERT_TRUE(io_.WriteNew(Path("m/v1.json"), "first"));
  EXPECT_EQ(*io_.ReadAll(Path("m/v1.json")), "first");
  auto again = io_.WriteNew(Path("m/v1.json"), "second");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(*io_.ReadAll(Path("m/v1.json")), "first");
  auto listed = io_.List(Path("m"));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 1u);  // no temporary left behind
}

}  // namespace
}  // namespace floe::io
