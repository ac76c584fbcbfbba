// The client's retry policy and error messages, against the in-memory fake
// (fake_s3.h) with scripted failures.
#include <gtest/gtest.h>

#include "floe/io/s3/s3_client.h"
#include "floe/io/s3/tests/fake_s3.h"

namespace floe::io::s3 {
namespace {

using testing::Answer;
using testing::ErrorAnswer;
using testing::FakeS3;

constexpr std::string_view kSecret = "SECRETSECRETSECRET";

S3Options TestOptions() {
  S3Options o;
  o.endpoint = "http://127.0.0.1:1";
  o.credentials = {"AKIDTEST", std::string(kSecret), "SESSIONTOKENVALUE"};
  o.credentials_source = "s3.access-key-id";
  o.retry.max_attempts = 5;
  return o;
}

class S3ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = std::make_shared<FakeS3>();
    fake_->AddBucket("b");
    client_ = std::make_shared<S3Client>(TestOptions(), fake_);
    client_->SetSleepForTesting([this](std::chrono::milliseconds d) { sleeps_.push_back(d); });
  }
  static std::span<const uint8_t> Bytes(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
  }
  void ExpectNoSecret(const Error& e) {
    EXPECT_EQ(e.message().find(kSecret), std::string::npos) << e.message();
    EXPECT_EQ(e.message().find("SESSIONTOKENVALUE"), std::string::npos) << e.message();
  }
  std::shared_ptr<FakeS3> fake_;
  std::shared_ptr<S3Client> client_;
  std::vector<std::chrono::milliseconds> sleeps_;
};

TEST(BackoffTest, FullJitterExponentialCapped) {
  RetryPolicy p;
  p.base_backoff = std::chrono::milliseconds(100);
  p.max_backoff = std::chrono::milliseconds(1000);
  EXPECT_EQ(BackoffDelay(p, 1, 0.999).count(), 99);
  EXPECT_EQ(BackoffDelay(p, 2, 0.5).count(), 100);
  EXPECT_EQ(BackoffDelay(p, 3, 0.5).count(), 200);
  EXPECT_EQ(BackoffDelay(p, 10, 0.5).count(), 500);  // capped at 1000
  EXPECT_EQ(BackoffDelay(p, 60, 1.0).count(), 1000);
  EXPECT_EQ(BackoffDelay(p, 3, 0.0).count(), 0);
}

TEST(RetryableTest, Classification) {
  for (long s : {500L, 502L, 503L, 504L, 429L}) EXPECT_TRUE(IsRetryableAnswer(s, "")) << s;
  EXPECT_TRUE(IsRetryableAnswer(503, "SlowDown"));
  EXPECT_TRUE(IsRetryableAnswer(400, "RequestTimeout"));
  EXPECT_TRUE(IsRetryableAnswer(400, "Throttling"));
  EXPECT_TRUE(IsRetryableAnswer(200, "InternalError"));
  for (long s : {400L, 403L, 404L, 409L, 412L}) EXPECT_FALSE(IsRetryableAnswer(s, "")) << s;
  EXPECT_FALSE(IsRetryableAnswer(403, "SignatureDoesNotMatch"));
}

TEST_F(S3ClientTest, RetriesServerErrorsThrottlingAndTimeoutsThenSucceeds) {
  int calls = 0;
  fake_->hook = [&](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    switch (++calls) {
      case 1:
        return Result<HttpResponse>(ErrorAnswer(503, "SlowDown"));
      case 2:
        return Result<HttpResponse>(Answer(500));
      case 3:
        return Result<HttpResponse>(TimedOut("PUT: Timeout was reached"));
      case 4:
        return Result<HttpResponse>(IoError("PUT: Connection reset by peer"));
      default:
        return std::nullopt;
    }
  };
  auto etag = client_->PutObject({"s3", "b", "k"}, Bytes("hello"), false);
  ASSERT_TRUE(etag) << etag.error().ToString();
  EXPECT_EQ(fake_->objects("b")["k"], "hello");
  EXPECT_EQ(client_->requests_sent(), 5u);
  EXPECT_EQ(client_->retries(), 4u);
  ASSERT_EQ(sleeps_.size(), 4u);
  for (size_t i = 0; i < sleeps_.size(); ++i) {
    EXPECT_LE(sleeps_[i].count(), 100 << i) << i;  // full jitter under the cap
  }
}

TEST_F(S3ClientTest, GivesUpAfterMaxAttemptsNamingTheObject) {
  fake_->hook = [](const FakeS3::Parsed&) -> std::optional<Result<HttpResponse>> {
    return Result<HttpResponse>(ErrorAnswer(503, "SlowDown"));
  };
  auto r = client_->PutObject({"s3", "b", "dir/k"}, Bytes("x"), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kIo);
  EXPECT_NE(r.error().message().find("PUT s3://b/dir/k"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("SlowDown"), std::string::npos);
  EXPECT_NE(r.error().message().find("5 attempts"), std::string::npos);
  EXPECT_EQ(client_->requests_sent(), 5u);

  fake_->hook = [](const FakeS3::Parsed&) -> std::optional<Result<HttpResponse>> {
    return Result<HttpResponse>(TimedOut("GET http://127.0.0.1:1/b/k: Timeout was reached"));
  };
  std::vector<uint8_t> out(1);
  auto t = client_->ReadObject({"s3", "b", "k"}, 0, out);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code(), ErrorCode::kTimedOut);
  EXPECT_NE(t.error().message().find("GET s3://b/k"), std::string::npos) << t.error().message();
}

TEST_F(S3ClientTest, DoesNotRetryClientErrors) {
  fake_->hook = [](const FakeS3::Parsed&) -> std::optional<Result<HttpResponse>> {
    return Result<HttpResponse>(ErrorAnswer(403, "SignatureDoesNotMatch"));
  };
  auto r = client_->PutObject({"s3", "b", "k"}, Bytes("x"), false);
  ASSERT_FALSE(r);
  EXPECT_EQ(client_->requests_sent(), 1u);
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("SignatureDoesNotMatch"), std::string::npos);
  EXPECT_NE(r.error().message().find("s3.access-key-id"), std::string::npos);
  EXPECT_NE(r.error().message().find("s3://b/k"), std::string::npos);
  ExpectNoSecret(r.error());
}

TEST_F(S3ClientTest, ClearErrors) {
  struct Case {
    HttpResponse answer;
    ErrorCode code;
    std::string_view says;
  };
  std::vector<Case> cases = {
      {ErrorAnswer(403, "InvalidAccessKeyId"), ErrorCode::kInvalidArgument, "access key id"},
      {ErrorAnswer(403, "AccessDenied"), ErrorCode::kInvalidArgument, "access denied"},
      {ErrorAnswer(400, "ExpiredToken"), ErrorCode::kInvalidArgument, "session token"},
      {ErrorAnswer(404, "NoSuchBucket"), ErrorCode::kNotFound, "bucket 'b' does not exist"},
      {ErrorAnswer(404, "NoSuchKey"), ErrorCode::kNotFound, "s3://b/k does not exist"},
      {ErrorAnswer(400, "AuthorizationHeaderMalformed", "<Region>eu-west-1</Region>"),
       ErrorCode::kInvalidArgument, "bucket 'b' is in region 'eu-west-1', not 'us-east-1'"},
      {Answer(301, "", {{"x-amz-bucket-region", "ap-east-1"}}), ErrorCode::kInvalidArgument,
       "set s3.region to ap-east-1"},
      {ErrorAnswer(301, "PermanentRedirect", "<Endpoint>b.s3.eu-west-3.amazonaws.com</Endpoint>"),
       ErrorCode::kInvalidArgument, "b.s3.eu-west-3.amazonaws.com"},
  };
  for (const Case& c : cases) {
    fake_->hook = [&](const FakeS3::Parsed&) -> std::optional<Result<HttpResponse>> {
      return Result<HttpResponse>(c.answer);
    };
    std::vector<uint8_t> out(4);
    auto r = client_->ReadObject({"s3", "b", "k"}, 0, out);
    ASSERT_FALSE(r) << c.says;
    EXPECT_EQ(r.error().code(), c.code) << r.error().message();
    EXPECT_NE(r.error().message().find(c.says), std::string::npos) << r.error().message();
    ExpectNoSecret(r.error());
  }
}

TEST_F(S3ClientTest, HeadTellsMissingKeyFromMissingBucketAndExplains403) {
  auto key = client_->HeadObject({"s3", "b", "nope"});
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(key.error().message().find("s3://b/nope does not exist"), std::string::npos);
  auto bucket = client_->HeadObject({"s3", "nobucket", "k"});
  ASSERT_FALSE(bucket);
  EXPECT_EQ(bucket.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(bucket.error().message().find("bucket 'nobucket' does not exist"), std::string::npos)
      << bucket.error().message();

  // A HEAD 403 has no body: the client fetches the error document with a GET.
  fake_->hook = [](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    if (p.method == "HEAD") return Result<HttpResponse>(Answer(403));
    return Result<HttpResponse>(ErrorAnswer(403, "SignatureDoesNotMatch"));
  };
  auto refused = client_->HeadObject({"s3", "b", "k"});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("SignatureDoesNotMatch"), std::string::npos);
}

TEST_F(S3ClientTest, ErrorInsideA200IsRetried) {
  auto id = client_->CreateMultipartUpload({"s3", "b", "k"});
  ASSERT_TRUE(id);
  auto etag = client_->UploadPart({"s3", "b", "k"}, *id, 1, Bytes("abc"));
  ASSERT_TRUE(etag);
  int completes = 0;
  fake_->hook = [&](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    if (p.method == "POST" && ++completes == 1) {
      return Result<HttpResponse>(ErrorAnswer(200, "InternalError"));
    }
    return std::nullopt;
  };
  ASSERT_TRUE(client_->CompleteMultipartUpload({"s3", "b", "k"}, *id, {*etag}, false));
  EXPECT_EQ(completes, 2);
  EXPECT_EQ(fake_->objects("b")["k"], "abc");
}

TEST_F(S3ClientTest, LostAnswerOfAConditionalPutIsSettledByItsEtag) {
  // The first PUT is applied but its answer is lost; the retry gets 412.
  bool lost = false;
  fake_->hook = [&](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    if (p.method == "PUT" && !lost) {
      lost = true;
      (void)fake_->Send(*p.request);                                          // applied...
      return Result<HttpResponse>(IoError("PUT: Connection reset by peer"));  // ...answer lost
    }
    return std::nullopt;
  };
  auto r = client_->PutObject({"s3", "b", "new"}, Bytes("mine"), true);
  ASSERT_TRUE(r) << r.error().ToString();

  // Someone else's object under the name: kAlreadyExists.
  auto other = client_->PutObject({"s3", "b", "new"}, Bytes("theirs"), true);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code(), ErrorCode::kAlreadyExists);
}

TEST_F(S3ClientTest, LostAnswerOfACompleteIsSettledByTheMultipartEtag) {
  const S3Location at{"s3", "b", "mp"};
  auto id = client_->CreateMultipartUpload(at);
  ASSERT_TRUE(id);
  std::string p1(5 << 20, 'a'), p2 = "tail";
  auto e1 = client_->UploadPart(at, *id, 1, Bytes(p1));
  auto e2 = client_->UploadPart(at, *id, 2, Bytes(p2));
  ASSERT_TRUE(e1 && e2);
  // The first Complete is applied but its answer is lost; the retry finds
  // the upload gone (NoSuchUpload), and the object's ETag proves it is ours.
  bool lost = false;
  fake_->hook = [&](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    if (p.method == "POST" && !lost) {
      lost = true;
      (void)fake_->Send(*p.request);
      return Result<HttpResponse>(TimedOut("POST: Timeout was reached"));
    }
    return std::nullopt;
  };
  auto done = client_->CompleteMultipartUpload(at, *id, {*e1, *e2}, true);
  ASSERT_TRUE(done) << done.error().ToString();
  EXPECT_EQ(fake_->objects("b")["mp"], p1 + p2);

  // An upload that is really gone (aborted) stays an error.
  auto id2 = client_->CreateMultipartUpload({"s3", "b", "mp2"});
  ASSERT_TRUE(id2);
  ASSERT_TRUE(client_->AbortMultipartUpload({"s3", "b", "mp2"}, *id2));
  auto gone = client_->CompleteMultipartUpload({"s3", "b", "mp2"}, *id2, {*e1}, false);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(gone.error().message().find("no longer exists"), std::string::npos);
}

TEST_F(S3ClientTest, DeleteObjectsInOneRequest) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5; ++i) {
    keys.push_back(fmt::format("d/{}", i));
    ASSERT_TRUE(client_->PutObject({"s3", "b", keys.back()}, Bytes("x"), false));
  }
  keys.push_back("d/missing");
  uint64_t before = client_->requests_sent();
  ASSERT_TRUE(client_->DeleteObjects("b", keys));
  EXPECT_EQ(client_->requests_sent(), before + 1);
  EXPECT_TRUE(fake_->objects("b").empty());
  std::vector<std::string> too_many(S3Client::kMaxDeleteKeys + 1, "k");
  EXPECT_FALSE(client_->DeleteObjects("b", too_many));
}

// Records the URL and Host of each request and answers 200.
class UrlRecorder final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request) override {
    urls.push_back(request.url);
    for (const auto& [name, value] : request.headers) {
      if (name == "host") hosts.push_back(value);
    }
    return Answer(200, "", {{"etag", "\"e\""}});
  }
  std::vector<std::string> urls, hosts;
};

TEST(S3ClientUrlTest, VirtualHostedOrPathStyle) {
  auto urls_for = [](std::string endpoint, bool path_style, std::string bucket) {
    auto recorder = std::make_shared<UrlRecorder>();
    S3Options o = TestOptions();
    o.endpoint = std::move(endpoint);
    o.path_style = path_style;
    o.region = "eu-west-1";
    S3Client client(o, recorder);
    EXPECT_TRUE(client.PutObject({"s3", bucket, "a b/c+d"}, {}, false));
    return std::make_pair(recorder->urls.at(0), recorder->hosts.at(0));
  };
  EXPECT_EQ(urls_for("", false, "b"),
            std::make_pair(std::string("https://b.s3.eu-west-1.amazonaws.com/a%20b/c%2Bd"),
                           std::string("b.s3.eu-west-1.amazonaws.com")));
  EXPECT_EQ(urls_for("https://s3.example.com:443", false, "b").first,
            "https://b.s3.example.com/a%20b/c%2Bd");
  EXPECT_EQ(urls_for("https://s3.example.com", true, "b").first,
            "https://s3.example.com/b/a%20b/c%2Bd");
  // Dotted buckets over https, IP addresses and localhost: always path style.
  EXPECT_EQ(urls_for("https://s3.example.com", false, "my.bucket").first,
            "https://s3.example.com/my.bucket/a%20b/c%2Bd");
  EXPECT_EQ(urls_for("http://127.0.0.1:9000", false, "b"),
            std::make_pair(std::string("http://127.0.0.1:9000/b/a%20b/c%2Bd"),
                           std::string("127.0.0.1:9000")));
  EXPECT_EQ(urls_for("http://localhost:9000", false, "b").first,
            "http://localhost:9000/b/a%20b/c%2Bd");
}

TEST_F(S3ClientTest, ListWithContinuation) {
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(client_->PutObject({"s3", "b", fmt::format("p/{:03}", i)}, Bytes("x"), false));
  }
  std::vector<std::string> keys;
  std::string token;
  int pages = 0;
  do {
    auto page = client_->ListObjectsV2("b", "p/", "", token, 10);
    ASSERT_TRUE(page) << page.error().ToString();
    for (auto& o : page->objects) keys.push_back(o.key);
    token = page->truncated ? page->next_continuation_token : "";
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(keys.size(), 25u);
  EXPECT_EQ(keys.front(), "p/000");
  EXPECT_EQ(keys.back(), "p/024");
}

TEST_F(S3ClientTest, SignsEveryRequestWithTheSessionToken) {
  std::vector<std::string> auths;
  fake_->hook = [&](const FakeS3::Parsed& p) -> std::optional<Result<HttpResponse>> {
    EXPECT_EQ(p.Header("x-amz-security-token"), "SESSIONTOKENVALUE");
    auths.push_back(p.Header("authorization"));
    return std::nullopt;
  };
  ASSERT_TRUE(client_->PutObject({"s3", "b", "a b+c"}, Bytes("x"), false));
  EXPECT_EQ(fake_->objects("b").count("a b+c"), 1u);
  ASSERT_EQ(auths.size(), 1u);
  EXPECT_TRUE(auths[0].starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/"));
  EXPECT_NE(auths[0].find("x-amz-security-token"), std::string::npos);
}

}  // namespace
}  // namespace floe::io::s3
