#include "floe/io/s3/s3_client.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include "floe/common/base64.h"
#include "floe/common/random.h"
#include "floe/io/s3/sigv4.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {

struct S3Client::Call {
  std::string method = {};
  std::string bucket = {};
  std::string key = {};  // empty: the bucket itself
  std::vector<std::pair<std::string, std::string>> query = {};
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::span<const uint8_t> body = {};
  /// A 200 answer may carry an <Error> document (CompleteMultipartUpload,
  /// CopyObject): treat one as a failed, retryable attempt.
  bool error_in_200 = false;
  /// The call targets the bucket, not an object ("bucket 'b'" in messages).
  bool bucket_call = false;
};

namespace {

bool IsSuccess(long status) { return status >= 200 && status < 300; }

bool IsIpOrLocalhost(std::string_view host) {
  size_t colon = host.rfind(':');
  if (!host.empty() && host.front() == '[') return true;  // IPv6 literal
  std::string_view name = colon == std::string_view::npos ? host : host.substr(0, colon);
  if (name == "localhost") return true;
  return !name.empty() && name.find_first_not_of("0123456789.") == std::string_view::npos;
}

std::string Unquote(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

}  // namespace

bool IsRetryableAnswer(long status, std::string_view code) {
  if (status == 500 || status == 502 || status == 503 || status == 504 || status == 429) {
    return true;
  }
  return code == "SlowDown" || code == "Throttling" || code == "ThrottlingException" ||
         code == "RequestLimitExceeded" || code == "RequestTimeout" || code == "InternalError" ||
         code == "ServiceUnavailable";
}

std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int attempt, double random) {
  double cap =
      static_cast<double>(policy.base_backoff.count()) * std::pow(2.0, std::min(attempt - 1, 30));
  cap = std::min(cap, static_cast<double>(policy.max_backoff.count()));
  return std::chrono::milliseconds(static_cast<int64_t>(cap * std::clamp(random, 0.0, 1.0)));
}

S3Client::S3Client(S3Options options, std::shared_ptr<HttpTransport> transport)
    : options_(std::move(options)), transport_(std::move(transport)) {
  sleep_ = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  now_ = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  std::string endpoint = options_.endpoint;
  if (endpoint.empty()) {
    endpoint = "https://s3." + options_.region + ".amazonaws.com";
  }
  size_t scheme_end = endpoint.find("://");
  endpoint_scheme_ = endpoint.substr(0, scheme_end);
  std::string rest = endpoint.substr(scheme_end + 3);
  size_t slash = rest.find('/');
  endpoint_host_ = rest.substr(0, slash);
  if (slash != std::string::npos) endpoint_base_path_ = rest.substr(slash);
  while (!endpoint_base_path_.empty() && endpoint_base_path_.back() == '/') {
    endpoint_base_path_.pop_back();
  }
  // Drop default ports from the Host header (what the server signs against).
  if ((endpoint_scheme_ == "https" && endpoint_host_.ends_with(":443")) ||
      (endpoint_scheme_ == "http" && endpoint_host_.ends_with(":80"))) {
    endpoint_host_.resize(endpoint_host_.rfind(':'));
  }
  endpoint_forces_path_style_ = IsIpOrLocalhost(endpoint_host_) || !endpoint_base_path_.empty();
}

std::shared_ptr<S3Client> S3Client::Make(S3Options options) {
  CurlTransportOptions t;
  t.connect_timeout = options.connect_timeout;
  t.idle_timeout = options.idle_timeout;
  std::shared_ptr<HttpTransport> transport = MakeCurlTransport(t);
  return std::make_shared<S3Client>(std::move(options), std::move(transport));
}

bool S3Client::UsePathStyle(std::string_view bucket) const {
  return options_.path_style || endpoint_forces_path_style_ ||
         (endpoint_scheme_ == "https" && bucket.find('.') != std::string_view::npos);
}

std::string S3Client::Describe(const Call& call) const {
  if (call.bucket_call) return fmt::format("{} of bucket '{}'", call.method, call.bucket);
  return fmt::format("{} s3://{}/{}", call.method, call.bucket, call.key);
}

HttpRequest S3Client::BuildRequest(const Call& call, std::string* amz_date) const {
  std::string host;
  std::string path;  // raw, as signed
  if (UsePathStyle(call.bucket)) {
    host = endpoint_host_;
    path = endpoint_base_path_ + "/" + call.bucket;
    if (!call.key.empty() || !call.bucket_call) path += "/" + call.key;
  } else {
    host = call.bucket + "." + endpoint_host_;
    path = "/" + call.key;
  }
  *amz_date = AmzDate(now_());
  std::string payload_hash =
      call.body.empty() ? std::string(kEmptyPayloadSha256) : Sha256Hex(call.body);

  SigningInput in;
  in.method = call.method;
  in.path = path;
  in.query = call.query;
  in.headers.emplace_back("host", host);
  in.headers.emplace_back("x-amz-content-sha256", payload_hash);
  in.headers.emplace_back("x-amz-date", *amz_date);
  if (!options_.credentials.session_token.empty()) {
    in.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
  }
  for (const auto& h : call.headers) in.headers.push_back(h);
  in.payload_sha256 = payload_hash;
  Signature signature = Sign(in, options_.credentials, options_.region, "s3", *amz_date);

  HttpRequest request;
  request.method = call.method;
  request.url = endpoint_scheme_ + "://" + host + UriEncodePath(path);
  std::string query = CanonicalQueryString(call.query);
  if (!query.empty()) request.url += "?" + query;
  request.headers = std::move(in.headers);
  request.headers.emplace_back("authorization", std::move(signature.authorization));
  request.body = call.body;
  return request;
}

Result<S3Client::Outcome> S3Client::Execute(const Call& call) {
  Outcome outcome;
  const int max_attempts = std::max(1, options_.retry.max_attempts);
  for (int attempt = 1;; ++attempt) {
    std::string amz_date;
    HttpRequest request = BuildRequest(call, &amz_date);
    requests_sent_.fetch_add(1);
    Result<HttpResponse> response = transport_->Send(request);
    bool retry = false;
    if (!response) {
      retry = response.error().code() == ErrorCode::kIo ||
              response.error().code() == ErrorCode::kTimedOut;
      if (!retry || attempt >= max_attempts) {
        return std::unexpected(std::move(response).error().WithContext(
            fmt::format("{} (endpoint {}, {} attempt{})", Describe(call), endpoint_host_, attempt,
                        attempt == 1 ? "" : "s")));
      }
    } else {
      long status = response->status;
      std::optional<S3ErrorDocument> doc;
      if (!IsSuccess(status) || (call.error_in_200 && status == 200)) {
        doc = ParseErrorDocument(response->body);
      }
      if (IsSuccess(status) && !doc) {
        outcome.response = std::move(*response);
        return outcome;
      }
      if (IsSuccess(status)) response->status = 500;  // an <Error> inside a 200
      retry = IsRetryableAnswer(response->status, doc ? doc->code : "");
      if (!retry || attempt >= max_attempts) {
        outcome.response = std::move(*response);
        if (retry) {
          return std::unexpected(ErrorFor(call, outcome.response, attempt));
        }
        return outcome;
      }
    }
    // The attempt may have been applied: no answer, or a server error.
    outcome.earlier_attempt_uncertain = true;
    retries_.fetch_add(1);
    sleep_(BackoffDelay(options_.retry, attempt, RandomUnit()));
  }
}

Error S3Client::ErrorFor(const Call& call, const HttpResponse& response, int attempts) const {
  std::optional<S3ErrorDocument> doc = ParseErrorDocument(response.body);
  std::string code = doc ? doc->code : "";
  std::string server_message = doc && !doc->message.empty() ? ": " + doc->message : "";
  long status = response.status;
  std::string what = Describe(call);
  std::string creds = options_.credentials_source.empty()
                          ? std::string("the configured credentials")
                          : "the credentials from " + options_.credentials_source;

  std::string region = doc ? doc->region : "";
  if (region.empty()) region = std::string(response.Header("x-amz-bucket-region"));
  if (status == 301 || code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" ||
      code == "IllegalLocationConstraintException" ||
      (status == 400 && !region.empty() && region != options_.region)) {
    if (!region.empty()) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: bucket '{}' is in region '{}', not '{}': set s3.region to {}",
                               what, call.bucket, region, options_.region, region));
    }
    return Error(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: bucket '{}' is not in region '{}' (HTTP {}{}): set s3.region "
                    "to the bucket's region{}",
                    what, call.bucket, options_.region, status, code.empty() ? "" : " " + code,
                    doc && !doc->endpoint.empty() ? ", endpoint " + doc->endpoint : ""));
  }
  if (code == "NoSuchBucket") {
    return Error(ErrorCode::kNotFound, fmt::format("{}: bucket '{}' does not exist (endpoint {})",
                                                   what, call.bucket, endpoint_host_));
  }
  if (code == "NoSuchUpload") {
    return Error(
        ErrorCode::kNotFound,
        fmt::format("{}: the multipart upload no longer exists (aborted or completed)", what));
  }
  if (status == 404) {
    if (call.bucket_call) {
      return Error(ErrorCode::kNotFound, fmt::format("{}: bucket '{}' does not exist (endpoint {})",
                                                     what, call.bucket, endpoint_host_));
    }
    return Error(ErrorCode::kNotFound,
                 fmt::format("s3://{}/{} does not exist ({}{})", call.bucket, call.key,
                             code.empty() ? "HTTP 404" : code, server_message));
  }
  if (code == "SignatureDoesNotMatch") {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the server refused the request's signature "
                             "(SignatureDoesNotMatch): the secret access key of {} does not "
                             "belong to its access key id, or the region or clock is wrong",
                             what, creds));
  }
  if (code == "InvalidAccessKeyId") {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the server does not know the access key id of {} "
                             "(InvalidAccessKeyId; endpoint {})",
                             what, creds, endpoint_host_));
  }
  if (code == "ExpiredToken" || code == "TokenRefreshRequired" || code == "InvalidToken") {
    return Error(
        ErrorCode::kInvalidArgument,
        fmt::format("{}: the session token of {} is expired or invalid ({})", what, creds, code));
  }
  if (code == "RequestTimeTooSkewed") {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: this machine's clock is too far from the server's "
                             "(RequestTimeTooSkewed)",
                             what));
  }
  if (code == "AccessDenied" || code == "AllAccessDisabled") {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: access denied to {} ({}{})", what, creds, code, server_message));
  }
  if (status == 403) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the server refused {} (HTTP 403{}): a wrong secret key, an "
                             "unknown key id or no permission",
                             what, creds, code.empty() ? "" : " " + code));
  }
  if (status == 412 || code == "PreconditionFailed") {
    return Error(ErrorCode::kAlreadyExists,
                 fmt::format("s3://{}/{} exists already ({} refused by If-None-Match)", call.bucket,
                             call.key, call.method));
  }
  if (code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists") {
    return Error(ErrorCode::kAlreadyExists,
                 fmt::format("bucket '{}' exists already ({})", call.bucket, code));
  }
  if (IsRetryableAnswer(status, code)) {
    return Error(ErrorCode::kIo,
                 fmt::format("{}: the server answered HTTP {}{}{} on all {} attempts", what, status,
                             code.empty() ? "" : " " + code, server_message, attempts));
  }
  return Error(status >= 400 && status < 500 ? ErrorCode::kInvalidArgument : ErrorCode::kIo,
               fmt::format("{}: the server answered HTTP {}{}{}", what, status,
                           code.empty() ? "" : " " + code, server_message));
}

Result<std::optional<ObjectInfo>> S3Client::StatObject(const S3Location& at) {
  Call call{.method = "HEAD", .bucket = at.bucket, .key = at.key};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  const HttpResponse& r = outcome.response;
  if (r.status == 404) return std::optional<ObjectInfo>();
  if (!IsSuccess(r.status)) {
    if (r.status == 403 || r.status == 400 || r.status == 301) {
      // HEAD answers have no body to say why: a one-byte GET gets the error
      // document (SignatureDoesNotMatch, a region, ...).
      Call get{
          .method = "GET", .bucket = at.bucket, .key = at.key, .headers = {{"range", "bytes=0-0"}}};
      auto probe = Execute(get);
      if (probe && !IsSuccess(probe->response.status) && ParseErrorDocument(probe->response.body)) {
        return std::unexpected(ErrorFor(get, probe->response, 1));
      }
    }
    return std::unexpected(ErrorFor(call, r, 1));
  }
  ObjectInfo info;
  std::string_view length = r.Header("content-length");
  auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), info.size);
  if (length.empty() || ec != std::errc() || end != length.data() + length.size()) {
    return Corruption("HEAD s3://{}/{}: no valid Content-Length in the answer", at.bucket, at.key);
  }
  info.etag = std::string(r.Header("etag"));
  return std::optional<ObjectInfo>(std::move(info));
}

Result<ObjectInfo> S3Client::HeadObject(const S3Location& at) {
  FLOE_ASSIGN_OR_RETURN(std::optional<ObjectInfo> info, StatObject(at));
  if (info) return std::move(*info);
  // Missing key or missing bucket? HEAD answers cannot say.
  FLOE_ASSIGN_OR_RETURN(bool bucket_exists, BucketExists(at.bucket));
  if (!bucket_exists) {
    return NotFound("HEAD s3://{}/{}: bucket '{}' does not exist (endpoint {})", at.bucket, at.key,
                    at.bucket, endpoint_host_);
  }
  return NotFound("s3://{}/{} does not exist", at.bucket, at.key);
}

Status S3Client::ReadObject(const S3Location& at, uint64_t offset, std::span<uint8_t> out) {
  if (out.empty()) return Ok();
  Call call{.method = "GET",
            .bucket = at.bucket,
            .key = at.key,
            .headers = {{"range", fmt::format("bytes={}-{}", offset, offset + out.size() - 1)}}};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  const HttpResponse& r = outcome.response;
  if (r.status == 416) {
    return Corruption("s3://{}/{}: read of {} bytes at offset {} is past the end of the object",
                      at.bucket, at.key, out.size(), offset);
  }
  if (!IsSuccess(r.status)) return std::unexpected(ErrorFor(call, r, 1));
  std::string_view body = r.body;
  if (r.status == 200) {
    // The server ignored the range and sent the whole object.
    body = offset <= body.size() ? body.substr(offset) : std::string_view();
  }
  if (body.size() < out.size()) {
    return Corruption("s3://{}/{}: read of {} bytes at offset {} got {} (the object is shorter)",
                      at.bucket, at.key, out.size(), offset, body.size());
  }
  std::copy_n(body.data(), out.size(), reinterpret_cast<char*>(out.data()));
  return Ok();
}

Result<std::string> S3Client::PutObject(const S3Location& at, std::span<const uint8_t> body,
                                        bool if_none_match) {
  Call call{.method = "PUT", .bucket = at.bucket, .key = at.key, .body = body};
  if (if_none_match) call.headers.emplace_back("if-none-match", "*");
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  const HttpResponse& r = outcome.response;
  if (r.status == 412 && outcome.earlier_attempt_uncertain) {
    // Our own lost attempt may have created it: same content, same ETag.
    auto head = HeadObject(at);
    if (head && Unquote(head->etag) == Md5Hex(body)) return head->etag;
  }
  if (!IsSuccess(r.status)) return std::unexpected(ErrorFor(call, r, 1));
  return std::string(r.Header("etag"));
}

Result<std::string> S3Client::CreateMultipartUpload(const S3Location& at) {
  Call call{.method = "POST", .bucket = at.bucket, .key = at.key, .query = {{"uploads", ""}}};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (!IsSuccess(outcome.response.status)) {
    return std::unexpected(ErrorFor(call, outcome.response, 1));
  }
  auto id = ParseInitiateMultipartUpload(outcome.response.body);
  if (!id) return std::unexpected(std::move(id).error().WithContext(Describe(call)));
  return id;
}

Result<std::string> S3Client::UploadPart(const S3Location& at, std::string_view upload_id,
                                         int part_number, std::span<const uint8_t> body) {
  Call call{
      .method = "PUT",
      .bucket = at.bucket,
      .key = at.key,
      .query = {{"partNumber", std::to_string(part_number)}, {"uploadId", std::string(upload_id)}},
      .body = body};
  Result<Outcome> attempted = Execute(call);
  if (!attempted) {
    return std::unexpected(
        std::move(attempted).error().WithContext(fmt::format("part {}", part_number)));
  }
  Outcome& outcome = *attempted;
  if (!IsSuccess(outcome.response.status)) {
    return std::unexpected(
        ErrorFor(call, outcome.response, 1).WithContext(fmt::format("part {}", part_number)));
  }
  std::string etag(outcome.response.Header("etag"));
  if (etag.empty()) {
    return Corruption("{} part {}: the answer has no ETag", Describe(call), part_number);
  }
  return etag;
}

Status S3Client::CompleteMultipartUpload(const S3Location& at, std::string_view upload_id,
                                         const std::vector<std::string>& part_etags,
                                         bool if_none_match) {
  std::string xml = CompleteMultipartUploadBody(part_etags);
  Call call{.method = "POST",
            .bucket = at.bucket,
            .key = at.key,
            .query = {{"uploadId", std::string(upload_id)}},
            .body = {reinterpret_cast<const uint8_t*>(xml.data()), xml.size()},
            .error_in_200 = true};
  if (if_none_match) call.headers.emplace_back("if-none-match", "*");
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  const HttpResponse& r = outcome.response;
  if (IsSuccess(r.status)) return Ok();
  std::optional<S3ErrorDocument> doc = ParseErrorDocument(r.body);
  bool gone = doc && doc->code == "NoSuchUpload";
  if ((gone || r.status == 412) && outcome.earlier_attempt_uncertain) {
    // A lost answer to an attempt that completed: the object is ours if its
    // ETag is the one our parts make.
    auto head = HeadObject(at);
    std::string expected = MultipartEtag(part_etags);
    if (head && (head->etag == expected || (expected.empty() && gone))) return Ok();
  }
  return std::unexpected(ErrorFor(call, r, 1));
}

Status S3Client::AbortMultipartUpload(const S3Location& at, std::string_view upload_id) {
  Call call{.method = "DELETE",
            .bucket = at.bucket,
            .key = at.key,
            .query = {{"uploadId", std::string(upload_id)}}};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (IsSuccess(outcome.response.status) || outcome.response.status == 404) return Ok();
  return std::unexpected(ErrorFor(call, outcome.response, 1));
}

Status S3Client::DeleteObject(const S3Location& at) {
  Call call{.method = "DELETE", .bucket = at.bucket, .key = at.key};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  const HttpResponse& r = outcome.response;
  if (IsSuccess(r.status)) return Ok();
  std::optional<S3ErrorDocument> doc = ParseErrorDocument(r.body);
  if (r.status == 404 && (!doc || doc->code != "NoSuchBucket")) return Ok();
  return std::unexpected(ErrorFor(call, r, 1));
}

Status S3Client::DeleteObjects(std::string_view bucket, std::span<const std::string> keys) {
  if (keys.empty()) return Ok();
  if (keys.size() > kMaxDeleteKeys) {
    return InvalidArgument("DeleteObjects of {} keys: at most {} per request", keys.size(),
                           kMaxDeleteKeys);
  }
  std::string xml = "<Delete><Quiet>true</Quiet>";
  for (const std::string& key : keys) xml += "<Object><Key>" + XmlEscape(key) + "</Key></Object>";
  xml += "</Delete>";
  std::span<const uint8_t> body(reinterpret_cast<const uint8_t*>(xml.data()), xml.size());
  // S3 requires Content-MD5 (base64 of the binary digest) on DeleteObjects.
  std::string md5_hex = Md5Hex(body), md5_raw, md5_base64;
  for (size_t i = 0; i < md5_hex.size(); i += 2) {
    md5_raw.push_back(static_cast<char>(std::stoi(md5_hex.substr(i, 2), nullptr, 16)));
  }
  Base64Encode(md5_raw, &md5_base64);
  Call call{.method = "POST",
            .bucket = std::string(bucket),
            .query = {{"delete", ""}},
            .headers = {{"content-md5", md5_base64}},
            .body = body,
            .bucket_call = true};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (!IsSuccess(outcome.response.status)) {
    return std::unexpected(ErrorFor(call, outcome.response, 1));
  }
  auto result = ParseXml(outcome.response.body);
  if (!result) {
    return std::unexpected(std::move(result).error().WithContext(Describe(call)));
  }
  if (const XmlElement* e = result->Child("Error")) {
    return IoError("deleting s3://{}/{}: {} {}", bucket, e->ChildText("Key"), e->ChildText("Code"),
                   e->ChildText("Message"));
  }
  return Ok();
}

Result<ListPage> S3Client::ListObjectsV2(std::string_view bucket, std::string_view prefix,
                                         std::string_view delimiter,
                                         std::string_view continuation_token, int max_keys) {
  Call call{.method = "GET", .bucket = std::string(bucket), .bucket_call = true};
  call.query = {{"list-type", "2"}, {"max-keys", std::to_string(max_keys)}};
  if (!prefix.empty()) call.query.emplace_back("prefix", std::string(prefix));
  if (!delimiter.empty()) call.query.emplace_back("delimiter", std::string(delimiter));
  if (!continuation_token.empty()) {
    call.query.emplace_back("continuation-token", std::string(continuation_token));
  }
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (!IsSuccess(outcome.response.status)) {
    return std::unexpected(ErrorFor(call, outcome.response, 1)
                               .WithContext(fmt::format("listing s3://{}/{}", bucket, prefix)));
  }
  auto page = ParseListObjectsV2(outcome.response.body);
  if (!page) {
    return std::unexpected(
        std::move(page).error().WithContext(fmt::format("listing s3://{}/{}", bucket, prefix)));
  }
  return page;
}

Status S3Client::CopyObject(const S3Location& from, const S3Location& to) {
  Call call{.method = "PUT", .bucket = to.bucket, .key = to.key, .error_in_200 = true};
  call.headers.emplace_back("x-amz-copy-source", "/" + from.bucket + "/" + UriEncodePath(from.key));
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (IsSuccess(outcome.response.status)) return Ok();
  return std::unexpected(
      ErrorFor(call, outcome.response, 1)
          .WithContext(fmt::format("copying s3://{}/{}", from.bucket, from.key)));
}

Status S3Client::CreateBucket(std::string_view bucket) {
  Call call{.method = "PUT", .bucket = std::string(bucket), .bucket_call = true};
  std::string xml;
  if (options_.region != "us-east-1") {
    xml = "<CreateBucketConfiguration><LocationConstraint>" + XmlEscape(options_.region) +
          "</LocationConstraint></CreateBucketConfiguration>";
    call.body = {reinterpret_cast<const uint8_t*>(xml.data()), xml.size()};
  }
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (IsSuccess(outcome.response.status)) return Ok();
  return std::unexpected(ErrorFor(call, outcome.response, 1));
}

Status S3Client::DeleteBucket(std::string_view bucket) {
  Call call{.method = "DELETE", .bucket = std::string(bucket), .bucket_call = true};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (IsSuccess(outcome.response.status)) return Ok();
  return std::unexpected(ErrorFor(call, outcome.response, 1));
}

Result<bool> S3Client::BucketExists(std::string_view bucket) {
  Call call{.method = "HEAD", .bucket = std::string(bucket), .bucket_call = true};
  FLOE_ASSIGN_OR_RETURN(Outcome outcome, Execute(call));
  if (IsSuccess(outcome.response.status)) return true;
  if (outcome.response.status == 404) return false;
  if (outcome.response.status == 403 || outcome.response.status == 301 ||
      outcome.response.status == 400) {
    // No body: list one key to get the error document.
    Call list{.method = "GET",
              .bucket = std::string(bucket),
              .query = {{"list-type", "2"}, {"max-keys", "1"}},
              .bucket_call = true};
    auto probe = Execute(list);
    if (probe && !IsSuccess(probe->response.status) && !probe->response.body.empty()) {
      return std::unexpected(ErrorFor(list, probe->response, 1));
    }
  }
  return std::unexpected(ErrorFor(call, outcome.response, 1));
}

}  // namespace floe::io::s3
