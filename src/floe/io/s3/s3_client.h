#pragma once
/// A small S3 client: the object calls S3FileIO needs, signed with SigV4,
/// sent through an HttpTransport, retried with jittered exponential backoff
/// (docs/s3.md). Thread-safe: one client serves every thread.
///
/// Errors (each message names the bucket and key, the HTTP method, and where
/// the credentials came from; never a secret):
/// - kNotFound: no such bucket ("bucket 'b' does not exist"), key or upload.
/// - kInvalidArgument: refused credentials (403 SignatureDoesNotMatch,
///   InvalidAccessKeyId, ExpiredToken, AccessDenied), a wrong region (301
///   PermanentRedirect, 400 AuthorizationHeaderMalformed: the message names the
///   bucket's region when the server says it), other 4xx requests S3 refuses.
/// - kAlreadyExists: a conditional create (If-None-Match) found the key.
/// - kIo / kTimedOut: the server or network failed on every attempt (5xx,
///   SlowDown, throttling, resets, stalls).
/// - kCorruption: a response that does not parse, or a read shorter than asked.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/s3/http.h"
#include "floe/io/s3/s3_options.h"
#include "floe/io/s3/s3_uri.h"
#include "floe/io/s3/s3_xml.h"

namespace floe::io::s3 {

struct ObjectInfo {
  uint64_t size = 0;
  std::string etag;  ///< As the server sends it, quotes included.
};

/// Whether an answer is worth another attempt: 500, 502, 503, 504 and 429,
/// and the error codes SlowDown, Throttling, ThrottlingException,
/// RequestLimitExceeded, RequestTimeout, InternalError, ServiceUnavailable
/// (whatever their status). `code` may be empty.
bool IsRetryableAnswer(long status, std::string_view code);

/// The wait before attempt `attempt` + 1 (attempt >= 1): uniform in
/// [0, min(max_backoff, base_backoff * 2^(attempt-1))], with `random` a
/// uniform draw in [0, 1).
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int attempt, double random);

class S3Client {
 public:
  S3Client(S3Options options, std::shared_ptr<HttpTransport> transport);

  /// A client on a CurlTransport with the options' timeouts.
  static std::shared_ptr<S3Client> Make(S3Options options);

  const S3Options& options() const { return options_; }

  /// Replaces the wait between attempts (tests: record instead of sleeping).
  void SetSleepForTesting(std::function<void(std::chrono::milliseconds)> sleep) {
    sleep_ = std::move(sleep);
  }
  /// Replaces the clock that dates signatures (unix seconds).
  void SetClockForTesting(std::function<int64_t()> now) { now_ = std::move(now); }

  /// Size and ETag of an object. kNotFound for a missing key or bucket (told
  /// apart by a second request).
  Result<ObjectInfo> HeadObject(const S3Location& at);
  /// Like HeadObject, but a missing key (or bucket) is nullopt, with one request.
  Result<std::optional<ObjectInfo>> StatObject(const S3Location& at);
  /// Reads exactly `out.size()` bytes at `offset` with one ranged GET.
  /// kCorruption if the object holds fewer bytes there.
  Status ReadObject(const S3Location& at, uint64_t offset, std::span<uint8_t> out);
  /// Stores `body` as the object (one PUT). With `if_none_match`, fails with
  /// kAlreadyExists if the key exists (If-None-Match: *). Returns the ETag.
  Result<std::string> PutObject(const S3Location& at, std::span<const uint8_t> body,
                                bool if_none_match);
  /// Starts a multipart upload; returns its upload id.
  Result<std::string> CreateMultipartUpload(const S3Location& at);
  /// Uploads part `part_number` (1-based); returns its ETag.
  Result<std::string> UploadPart(const S3Location& at, std::string_view upload_id, int part_number,
                                 std::span<const uint8_t> body);
  /// Assembles parts 1..N with these ETags into the object, which appears now
  /// (atomically). With `if_none_match`, kAlreadyExists if the key exists.
  /// An attempt whose answer was lost and that a retry then finds gone
  /// (NoSuchUpload) or refused (412) is settled by a HEAD that compares ETags.
  Status CompleteMultipartUpload(const S3Location& at, std::string_view upload_id,
                                 const std::vector<std::string>& part_etags, bool if_none_match);
  /// Drops an unfinished upload and its parts. A gone upload is not an error.
  Status AbortMultipartUpload(const S3Location& at, std::string_view upload_id);
  /// Deletes an object; a missing key is not an error.
  Status DeleteObject(const S3Location& at);
  /// Deletes up to kMaxDeleteKeys keys of one bucket with one request
  /// (DeleteObjects); missing keys are not an error. kIo naming the first key
  /// the server could not delete.
  Status DeleteObjects(std::string_view bucket, std::span<const std::string> keys);
  static constexpr size_t kMaxDeleteKeys = 1000;
  /// One page of keys under `prefix` (ListObjectsV2). With a `delimiter`,
  /// keys below the next delimiter are rolled up into common prefixes.
  Result<ListPage> ListObjectsV2(std::string_view bucket, std::string_view prefix,
                                 std::string_view delimiter, std::string_view continuation_token,
                                 int max_keys = 1000);
  /// Server-side copy (objects up to 5 GiB).
  Status CopyObject(const S3Location& from, const S3Location& to);
  Status CreateBucket(std::string_view bucket);
  Status DeleteBucket(std::string_view bucket);
  /// Whether the bucket exists (HEAD bucket); errors for refused credentials.
  Result<bool> BucketExists(std::string_view bucket);

  /// Requests sent (every attempt) and retries made, since construction.
  uint64_t requests_sent() const { return requests_sent_.load(); }
  uint64_t retries() const { return retries_.load(); }

 private:
  struct Call;
  struct Outcome {
    HttpResponse response;
    /// An earlier attempt got no answer or a 5xx: it may have been applied.
    bool earlier_attempt_uncertain = false;
  };
  Result<Outcome> Execute(const Call& call);
  Error ErrorFor(const Call& call, const HttpResponse& response, int attempts) const;
  HttpRequest BuildRequest(const Call& call, std::string* amz_date_storage) const;
  std::string Describe(const Call& call) const;
  bool UsePathStyle(std::string_view bucket) const;

  S3Options options_;
  std::shared_ptr<HttpTransport> transport_;
  std::function<void(std::chrono::milliseconds)> sleep_;
  std::function<int64_t()> now_;
  std::string endpoint_scheme_;  // "https"
  std::string endpoint_host_;    // "s3.us-east-1.amazonaws.com" or "127.0.0.1:9000"
  std::string endpoint_base_path_;
  bool endpoint_forces_path_style_ = false;
  std::atomic<uint64_t> requests_sent_{0};
  std::atomic<uint64_t> retries_{0};
};

}  // namespace floe::io::s3
