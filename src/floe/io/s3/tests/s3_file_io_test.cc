// S3FileIO against the in-memory fake (fake_s3.h): buffering, multipart with
// bounded parts in flight, nothing visible before Close, aborts on failure,
// the footer tail read, list, rename. The same behaviour against a real
// S3-compatible server: s3_integration_test.cc.
#include <gtest/gtest.h>

#include <filesystem>

#include "floe/io/deferred_sync_file_io.h"
#include "floe/io/s3/s3_file_io.h"
#include "floe/io/s3/tests/fake_s3.h"

namespace floe::io::s3 {
namespace {

using testing::ErrorAnswer;
using testing::FakeS3;

class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = std::make_shared<FakeS3>();
    fake_->AddBucket("b");
    S3Options o;
    o.endpoint = "http://127.0.0.1:1";
    o.credentials = {"AKIDTEST", "secret", ""};
    o.part_size = 5 << 20;
    o.max_parts_in_flight = 2;
    o.retry.max_attempts = 3;
    client_ = std::make_shared<S3Client>(o, fake_);
    client_->SetSleepForTesting([](std::chrono::milliseconds) {});
    io_ = std::make_unique<S3FileIO>(client_);
  }
  static std::string Pattern(size_t n, uint32_t seed) {
    std::string s(n, '\0');
    uint32_t x = seed;
    for (char& c : s) {
      x = x * 1664525u + 1013904223u;
      c = static_cast<char>(x >> 24);
    }
    return s;
  }
  std::shared_ptr<FakeS3> fake_;
  std::shared_ptr<S3Client> client_;
  std::unique_ptr<S3FileIO> io_;
};

TEST_F(S3FileIOTest, SmallFileIsOnePutOnCloseAndInvisibleBefore) {
  auto out = io_->CreateOutput("s3://b/t/small.bin");
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Write("hello "));
  ASSERT_TRUE((*out)->Write("world"));
  ASSERT_TRUE((*out)->Sync());
  EXPECT_EQ((*out)->position(), 11u);
  EXPECT_FALSE(*io_->Exists("s3://b/t/small.bin"));  // not before Close
  ASSERT_TRUE((*out)->Close());
  ASSERT_TRUE((*out)->Close());  // idempotent
  EXPECT_TRUE(*io_->Exists("s3://b/t/small.bin"));
  EXPECT_EQ(*io_->ReadAll("s3://b/t/small.bin"), "hello world");
  EXPECT_FALSE((*out)->Write("more"));
}

TEST_F(S3FileIOTest, LargeFileGoesUpInPartsWithBoundedParallelism) {
  fake_->part_delay = std::chrono::milliseconds(30);
  std::string data = Pattern((5 << 20) * 5 + 12345, 7);  // 5 full parts and a short last one
  auto out = io_->CreateOutput("s3a://b/t/big.bin");
  ASSERT_TRUE(out);
  for (size_t at = 0; at < data.size(); at += 777777) {
    ASSERT_TRUE((*out)->Write(std::string_view(data).substr(at, 777777)));
  }
  EXPECT_EQ(fake_->open_uploads(), 1u);
  EXPECT_EQ(fake_->objects("b").count("t/big.bin"), 0u);
  ASSERT_TRUE((*out)->Close());
  EXPECT_EQ(fake_->open_uploads(), 0u);
  EXPECT_EQ(fake_->objects("b")["t/big.bin"], data);
  EXPECT_EQ(fake_->max_parts_in_flight.load(), 2);  // overlapping, but never more than 2
}

TEST_F(S3FileIOTest, AFailedPartAbortsTheUploadAndNothingAppears) {
  fake_->hook = [](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    if (p.query.count("partNumber") && p.query.at("partNumber") == "2") {
      return Result<HttpResponse>(ErrorAnswer(500, "InternalError"));
    }
    return std::nullopt;
  };
  std::string data = Pattern((5 << 20) * 3, 1);
  auto out = io_->CreateOutput("s3://b/t/fail.bin");
  ASSERT_TRUE(out);
  Status written = (*out)->Write(data);
  Status closed = written ? (*out)->Close() : written;
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code(), ErrorCode::kIo);
  EXPECT_NE(closed.error().message().find("s3://b/t/fail.bin"), std::string::npos)
      << closed.error().message();
  EXPECT_NE(closed.error().message().find("part 2"), std::string::npos) << closed.error().message();
  EXPECT_EQ(fake_->open_uploads(), 0u);  // aborted
  EXPECT_EQ(fake_->objects("b").count("t/fail.bin"), 0u);
}

TEST_F(S3FileIOTest, AnOutputDroppedWithoutCloseLeavesNothing) {
  {
    auto out = io_->CreateOutput("s3://b/t/dropped.bin");
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->Write(Pattern((5 << 20) + 1, 2)));
    EXPECT_EQ(fake_->open_uploads(), 1u);
  }
  EXPECT_EQ(fake_->open_uploads(), 0u);
  EXPECT_TRUE(fake_->objects("b").empty());
}

TEST_F(S3FileIOTest, ExclusiveCreate) {
  ASSERT_TRUE(io_->WriteAtomically("s3://b/k", "one"));
  auto again = io_->CreateOutput("s3://b/k", /*overwrite=*/false);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);

  // A writer that created the key after our CreateOutput: Close says so.
  auto racing = io_->CreateOutput("s3://b/k2", false);
  ASSERT_TRUE(racing);
  ASSERT_TRUE((*racing)->Write("mine"));
  ASSERT_TRUE(client_->PutObject({"s3", "b", "k2"}, {}, false));
  Status closed = (*racing)->Close();
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(fake_->objects("b")["k2"], "");

  auto replace = io_->CreateOutput("s3://b/k", true);
  ASSERT_TRUE(replace);
  ASSERT_TRUE((*replace)->Write("two"));
  ASSERT_TRUE((*replace)->Close());
  EXPECT_EQ(*io_->ReadAll("s3://b/k"), "two");
}

TEST_F(S3FileIOTest, FooterReadsComeFromOneTailRequest) {
  std::string data = Pattern(200000, 3);
  ASSERT_TRUE(io_->WriteAtomically("s3://b/f.parquet", data));
  auto in = io_->OpenInput("s3://b/f.parquet");
  ASSERT_TRUE(in);
  EXPECT_EQ((*in)->size(), data.size());
  size_t before = fake_->log().size();
  std::vector<uint8_t> footer_len(8), footer(5000), head(16);
  ASSERT_TRUE((*in)->ReadAt(data.size() - 8, footer_len));
  ASSERT_TRUE((*in)->ReadAt(data.size() - 8 - 5000, footer));
  ASSERT_TRUE((*in)->ReadAt(0, head));
  EXPECT_EQ(fake_->log().size(), before + 2);  // one tail GET, one GET for the head
  EXPECT_EQ(std::string(footer_len.begin(), footer_len.end()), data.substr(data.size() - 8));
  EXPECT_EQ(std::string(footer.begin(), footer.end()), data.substr(data.size() - 5008, 5000));
  EXPECT_EQ(std::string(head.begin(), head.end()), data.substr(0, 16));

  std::vector<uint8_t> past(9);
  auto r = (*in)->ReadAt(data.size() - 8, past);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);

  auto missing = io_->OpenInput("s3://b/none");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
}

TEST_F(S3FileIOTest, ReadRangesCoalescesNearbyRangesIntoFewerGets) {
  std::string data = Pattern(8 << 20, 9);
  ASSERT_TRUE(io_->WriteAtomically("s3://b/r.parquet", data));
  auto in = io_->OpenInput("s3://b/r.parquet");
  ASSERT_TRUE(in);
  // Three column chunks close together, one far away, one in the footer tail.
  std::vector<std::pair<uint64_t, size_t>> asked = {
      {4, 1000}, {200000, 300000}, {100000, 50000}, {6 << 20, 4096}, {data.size() - 100, 100}};
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<InputFile::Range> ranges;
  for (auto [offset, size] : asked) bufs.emplace_back(size);
  for (size_t i = 0; i < asked.size(); ++i) ranges.push_back({asked[i].first, bufs[i]});
  size_t before = fake_->log().size();
  auto st = (*in)->ReadRanges(ranges);
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(fake_->log().size(), before + 3);  // the near three, the far one, the tail
  for (size_t i = 0; i < asked.size(); ++i) {
    EXPECT_EQ(std::string(bufs[i].begin(), bufs[i].end()),
              data.substr(asked[i].first, asked[i].second))
        << i;
  }
  std::vector<uint8_t> past(10);
  std::vector<InputFile::Range> bad = {{data.size() - 5, past}};
  auto r = (*in)->ReadRanges(bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
}

TEST_F(S3FileIOTest, ListExistsDeleteRename) {
  for (std::string k : {"t/a", "t/b", "t/data/x", "t/data/y", "t/metadata/m", "u/z"}) {
    ASSERT_TRUE(io_->WriteAtomically("s3://b/" + k, k));
  }
  auto list = io_->List("s3://b/t");
  ASSERT_TRUE(list) << list.error().ToString();
  std::vector<std::string> got;
  for (const FileInfo& f : *list) got.push_back(f.path + (f.is_directory ? "/" : ""));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"s3://b/t/a", "s3://b/t/b", "s3://b/t/data/",
                                           "s3://b/t/metadata/"}));
  EXPECT_TRUE(*io_->Exists("s3://b/t/data"));  // a "folder"
  EXPECT_FALSE(*io_->Exists("s3://b/t/dat"));
  auto no_bucket = io_->Exists("s3://nobucket/x");
  ASSERT_FALSE(no_bucket);
  EXPECT_EQ(no_bucket.error().code(), ErrorCode::kNotFound);

  ASSERT_TRUE(io_->Rename("s3://b/t/a", "s3://b/t/c", false));
  EXPECT_FALSE(*io_->Exists("s3://b/t/a"));
  EXPECT_EQ(*io_->ReadAll("s3://b/t/c"), "t/a");
  auto clash = io_->Rename("s3://b/t/b", "s3://b/t/c", false);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_TRUE(*io_->Exists("s3://b/t/b"));
  ASSERT_TRUE(io_->Rename("s3://b/t/b", "s3://b/t/c", true));
  EXPECT_EQ(*io_->ReadAll("s3://b/t/c"), "t/b");

  ASSERT_TRUE(io_->Delete("s3://b/t/c"));
  ASSERT_TRUE(io_->Delete("s3://b/t/c"));  // missing: not an error
  EXPECT_FALSE(*io_->Exists("s3://b/t/c"));
  auto bad = io_->OpenInput("file:///etc/passwd");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::io::s3

namespace floe::io::s3 {
namespace {

// The sink and the sql catalog write through DeferredSyncFileIO: over S3 a
// deferred Sync() must not make anything visible, SyncDeferred() must send
// nothing (closed objects are durable), and the object appears at Close().
TEST_F(S3FileIOTest, DeferredSyncOverS3IsVisibleOnlyAfterCloseAndSendsNoSync) {
  DeferredSyncFileIO deferred(*io_);
  auto out = deferred.CreateOutput("s3://b/t/data.parquet");
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Write("rows"));
  ASSERT_TRUE((*out)->Sync());
  EXPECT_EQ(deferred.deferred_files(), 1u);
  const size_t requests = fake_->log().size();
  ASSERT_TRUE(deferred.SyncDeferred());
  EXPECT_EQ(fake_->log().size(), requests);  // nothing sent
  EXPECT_FALSE(*io_->Exists("s3://b/t/data.parquet"));
  ASSERT_TRUE((*out)->Close());
  EXPECT_EQ(*io_->ReadAll("s3://b/t/data.parquet"), "rows");
}

TEST(MakeResolvingFileIOTest, S3SettingsAreReadOnlyForS3Paths) {
  auto dir = std::filesystem::temp_directory_path() /
             ("floe_make_resolving_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  // No credentials anywhere: local paths still work.
  EnvLookup empty = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
  auto io = MakeResolvingFileIO({{"type", "sql"}}, empty);
  ASSERT_TRUE(io->WriteNew((dir / "x").string(), "local"));
  EXPECT_EQ(*io->ReadAll("file://" + (dir / "x").string()), "local");
  auto r = io->OpenInput("s3://bucket/ns/t/metadata/v1.metadata.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().ToString().find("s3://bucket/ns/t/metadata/v1.metadata.json"),
            std::string::npos);
  EXPECT_NE(r.error().ToString().find("credentials"), std::string::npos);
  auto gs = io->Exists("gs://bucket/k");
  ASSERT_FALSE(gs);
  EXPECT_EQ(gs.error().code(), ErrorCode::kNotSupported);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::io::s3
