// S3FileIO against a real S3-compatible server (scripts/services/s3.sh start:
// moto's server mode, which checks SigV4 signatures). Reads
// FLOE_TEST_S3_ENDPOINT, FLOE_TEST_S3_ACCESS_KEY_ID and
// FLOE_TEST_S3_SECRET_ACCESS_KEY (scripts/test.sh sources them from
// .cache/s3/credentials.env); skipped only when FLOE_TEST_S3_ENDPOINT is unset.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "floe/io/s3/s3_file_io.h"
#include "floe/io/s3/sigv4.h"

namespace floe::io::s3 {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::map<std::string, std::string> Properties() {
  return {{"s3.endpoint", Env("FLOE_TEST_S3_ENDPOINT")},
          {"s3.access-key-id", Env("FLOE_TEST_S3_ACCESS_KEY_ID")},
          {"s3.secret-access-key", Env("FLOE_TEST_S3_SECRET_ACCESS_KEY")},
          {"s3.region", "us-east-1"},
          {"s3.path-style-access", "true"},
          {"s3.multipart.size", std::to_string(5 << 20)},
          {"s3.multipart.num-threads", "2"},
          {"s3.retry.num-retries", "2"}};
}

EnvLookup NoEnvironment() {
  return [](std::string_view) -> std::optional<std::string> { return std::nullopt; };
}

std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (char& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

class S3IntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Env("FLOE_TEST_S3_ENDPOINT").empty()) {
      GTEST_SKIP() << "FLOE_TEST_S3_ENDPOINT is not set";
    }
    auto io = S3FileIO::Make(Properties(), NoEnvironment());
    ASSERT_TRUE(io) << io.error().ToString();
    io_ = std::move(*io);
    bucket_ =
        "floe-it-" +
        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000000) +
        "-" + std::to_string(std::random_device{}() % 100000);
    auto created = io_->client().CreateBucket(bucket_);
    ASSERT_TRUE(created) << created.error().ToString();
  }
  void TearDown() override {
    if (!io_) return;
    // Best effort: empty and drop the bucket.
    std::string token;
    do {
      auto page = io_->client().ListObjectsV2(bucket_, "", "", token);
      if (!page) break;
      std::vector<std::string> keys;
      for (const auto& o : page->objects) keys.push_back(o.key);
      auto deleted = io_->client().DeleteObjects(bucket_, keys);
      EXPECT_TRUE(deleted) << deleted.error().ToString();
      token = page->truncated ? page->next_continuation_token : "";
    } while (!token.empty());
    (void)io_->client().DeleteBucket(bucket_);
  }
  std::string Uri(std::string_view key) const { return "s3://" + bucket_ + "/" + std::string(key); }

  std::unique_ptr<S3FileIO> io_;
  std::string bucket_;
};

TEST_F(S3IntegrationTest, PutThenGetRanges) {
  std::string data = Pattern(300000, 11);
  auto out = io_->CreateOutput(Uri("t/data/f.parquet"));
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Write(data));
  ASSERT_TRUE((*out)->Sync());
  EXPECT_FALSE(*io_->Exists(Uri("t/data/f.parquet")));  // nothing before Close
  ASSERT_TRUE((*out)->Close());

  auto in = io_->OpenInput(Uri("t/data/f.parquet"));
  ASSERT_TRUE(in) << in.error().ToString();
  ASSERT_EQ((*in)->size(), data.size());
  for (auto [offset, length] : std::vector<std::pair<size_t, size_t>>{
           {0, 4}, {1000, 50000}, {data.size() - 8, 8}, {data.size() - 70000, 70000}, {5, 1}}) {
    std::vector<uint8_t> buf(length);
    auto st = (*in)->ReadAt(offset, buf);
    ASSERT_TRUE(st) << st.error().ToString();
    EXPECT_EQ(std::string(buf.begin(), buf.end()), data.substr(offset, length)) << offset;
  }
  // Column chunks asked together: coalesced GETs, sent in parallel.
  std::vector<std::vector<uint8_t>> bufs = {std::vector<uint8_t>(10), std::vector<uint8_t>(20000),
                                            std::vector<uint8_t>(3000)};
  std::vector<InputFile::Range> ranges = {{100, bufs[0]}, {5000, bufs[1]}, {290000, bufs[2]}};
  auto read = (*in)->ReadRanges(ranges);
  ASSERT_TRUE(read) << read.error().ToString();
  for (const auto& r : ranges) {
    EXPECT_EQ(std::string(r.out.begin(), r.out.end()), data.substr(r.offset, r.out.size()));
  }

  std::vector<uint8_t> past(9);
  auto r = (*in)->ReadAt(data.size() - 8, past);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(*io_->ReadAll(Uri("t/data/f.parquet")), data);

  // A key with characters that need encoding in the URL and the signature.
  ASSERT_TRUE(io_->WriteAtomically(Uri("t/odd name+plus=eq&amp/é.txt"), "odd"));
  EXPECT_EQ(*io_->ReadAll(Uri("t/odd name+plus=eq&amp/é.txt")), "odd");
}

TEST_F(S3IntegrationTest, MultipartOf20MiBWrittenInPieces) {
  std::string data = Pattern(20 << 20, 5);
  auto out = io_->CreateOutput(Uri("big/20mib.bin"));
  ASSERT_TRUE(out);
  for (size_t at = 0; at < data.size(); at += 1000003) {
    auto st = (*out)->Write(std::string_view(data).substr(at, 1000003));
    ASSERT_TRUE(st) << st.error().ToString();
  }
  EXPECT_FALSE(*io_->Exists(Uri("big/20mib.bin")));
  auto closed = (*out)->Close();
  ASSERT_TRUE(closed) << closed.error().ToString();
  auto info = io_->client().HeadObject({"s3", bucket_, "big/20mib.bin"});
  ASSERT_TRUE(info);
  EXPECT_EQ(info->size, data.size());
  EXPECT_TRUE(info->etag.ends_with("-4\"")) << info->etag;  // 5 MiB parts: 4 of them
  auto back = io_->ReadAll(Uri("big/20mib.bin"));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_TRUE(*back == data);
}

TEST_F(S3IntegrationTest, ListWithContinuationOverMoreThan1000Keys) {
  constexpr int kKeys = 1100;
  static constexpr uint8_t kOne[1] = {'x'};
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kKeys; i += 8) {
        auto put = io_->client().PutObject({"s3", bucket_, fmt::format("many/f{:05}", i)},
                                           std::span<const uint8_t>(kOne, 1), false);
        if (!put) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_TRUE(io_->WriteAtomically(Uri("many/sub/inner"), "y"));

  auto first = io_->client().ListObjectsV2(bucket_, "many/", "/", "");
  ASSERT_TRUE(first) << first.error().ToString();
  EXPECT_TRUE(first->truncated);
  EXPECT_EQ(first->objects.size(), 1000u);

  auto list = io_->List(Uri("many"));
  ASSERT_TRUE(list) << list.error().ToString();
  int files = 0, dirs = 0;
  for (const FileInfo& f : *list) {
    if (f.is_directory) {
      ++dirs;
      EXPECT_EQ(f.path, Uri("many/sub"));
    } else {
      ++files;
      EXPECT_EQ(f.size, 1u);
    }
  }
  EXPECT_EQ(files, kKeys);
  EXPECT_EQ(dirs, 1);
  EXPECT_TRUE(*io_->Exists(Uri("many/sub")));
}

TEST_F(S3IntegrationTest, DeleteRenameAndExclusiveCreate) {
  ASSERT_TRUE(io_->WriteNew(Uri("m/v1.metadata.json"), "{}"));
  auto again = io_->WriteNew(Uri("m/v1.metadata.json"), "{\"x\":1}");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(*io_->ReadAll(Uri("m/v1.metadata.json")), "{}");

  // Another writer wins the race between CreateOutput and Close: the server's
  // If-None-Match check refuses ours.
  auto out = io_->CreateOutput(Uri("m/v2.metadata.json"), false);
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->Write("ours"));
  ASSERT_TRUE(io_->WriteAtomically(Uri("m/v2.metadata.json"), "theirs"));
  auto closed = (*out)->Close();
  ASSERT_FALSE(closed);
  EXPECT_EQ(closed.error().code(), ErrorCode::kAlreadyExists) << closed.error().ToString();
  EXPECT_EQ(*io_->ReadAll(Uri("m/v2.metadata.json")), "theirs");

  ASSERT_TRUE(io_->Rename(Uri("m/v1.metadata.json"), Uri("m/v3.metadata.json"), false));
  EXPECT_FALSE(*io_->Exists(Uri("m/v1.metadata.json")));
  EXPECT_EQ(*io_->ReadAll(Uri("m/v3.metadata.json")), "{}");

  ASSERT_TRUE(io_->Delete(Uri("m/v3.metadata.json")));
  EXPECT_FALSE(*io_->Exists(Uri("m/v3.metadata.json")));
  ASSERT_TRUE(io_->Delete(Uri("m/v3.metadata.json")));  // missing: fine
}

TEST_F(S3IntegrationTest, MissingBucketAndMissingKeyAreClearNotFound) {
  auto key = io_->OpenInput(Uri("no/such/key"));
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(key.error().message().find(Uri("no/such/key") + " does not exist"), std::string::npos)
      << key.error().message();

  std::string missing = bucket_ + "-missing";
  auto bucket = io_->OpenInput("s3://" + missing + "/k");
  ASSERT_FALSE(bucket);
  EXPECT_EQ(bucket.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(bucket.error().message().find("bucket '" + missing + "' does not exist"),
            std::string::npos)
      << bucket.error().message();

  auto write = io_->WriteAtomically("s3://" + missing + "/k", "x");
  ASSERT_FALSE(write);
  EXPECT_EQ(write.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(write.error().message().find("bucket '" + missing + "' does not exist"),
            std::string::npos)
      << write.error().message();

  auto list = io_->List("s3://" + missing + "/t");
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().code(), ErrorCode::kNotFound);
}

TEST_F(S3IntegrationTest, WrongSecretOrUnknownKeyIsAClear403WithoutSecrets) {
  ASSERT_TRUE(io_->WriteAtomically(Uri("k"), "x"));
  auto props = Properties();
  const std::string wrong_secret = "WRONGwrongWRONGwrongWRONGwrongWRONGwrong";
  props["s3.secret-access-key"] = wrong_secret;
  auto bad = S3FileIO::Make(props, NoEnvironment());
  ASSERT_TRUE(bad);

  auto read = (*bad)->OpenInput(Uri("k"));  // HEAD, then a GET for the reason
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(read.error().message().find("SignatureDoesNotMatch"), std::string::npos)
      << read.error().message();
  EXPECT_NE(read.error().message().find("s3.access-key-id"), std::string::npos);
  EXPECT_NE(read.error().message().find(Uri("k")), std::string::npos) << read.error().message();
  EXPECT_EQ(read.error().message().find(wrong_secret), std::string::npos);

  auto write = (*bad)->WriteAtomically(Uri("k2"), "x");
  ASSERT_FALSE(write);
  EXPECT_NE(write.error().message().find("SignatureDoesNotMatch"), std::string::npos)
      << write.error().message();
  EXPECT_EQ(write.error().message().find(wrong_secret), std::string::npos);
  EXPECT_EQ((*bad)->client().retries(), 0u);  // refused credentials are not retried

  props = Properties();
  props["s3.access-key-id"] = "AKIAUNKNOWNKEY000000";
  auto unknown = S3FileIO::Make(props, NoEnvironment());
  ASSERT_TRUE(unknown);
  auto st = (*unknown)->WriteAtomically(Uri("k3"), "x");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.error().message().find("InvalidAccessKeyId"), std::string::npos)
      << st.error().message();
  EXPECT_EQ(st.error().message().find(Env("FLOE_TEST_S3_SECRET_ACCESS_KEY")), std::string::npos);
}

TEST_F(S3IntegrationTest, UnreachableEndpointIsRetriedThenAnIoError) {
  auto props = Properties();
  props["s3.endpoint"] = "http://127.0.0.1:1";  // nothing listens there
  props["s3.retry.num-retries"] = "2";
  props["s3.retry.max-wait-ms"] = "10";
  auto io = S3FileIO::Make(props, NoEnvironment());
  ASSERT_TRUE(io);
  auto r = (*io)->OpenInput(Uri("k"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kIo) << r.error().ToString();
  EXPECT_NE(r.error().message().find("3 attempts"), std::string::npos) << r.error().message();
  EXPECT_EQ((*io)->client().retries(), 2u);
}

}  // namespace
}  // namespace floe::io::s3
