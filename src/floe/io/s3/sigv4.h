#pragma once
/// AWS Signature Version 4 (SigV4) for S3 requests, written on OpenSSL's
/// HMAC-SHA256 and SHA-256 (docs/s3.md, "Signing"; docs/dependencies.md says
/// why not libcurl's CURLOPT_AWS_SIGV4). Checked against AWS's published
/// vectors: the aws-sig-v4-test-suite and the S3 examples of "Signature
/// Calculations for the Authorization Header" (tests/sigv4_test.cc).
///
/// Pure functions; thread-safe. Nothing here logs or keeps a secret.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::io::s3 {

/// An access key pair and an optional session token (STS). `secret_access_key`
/// and `session_token` are secrets: never put them into a message or a log.
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  ///< Empty when the keys are long-term keys.
};

/// What SigV4 signs of a request.
struct SigningInput {
  std::string method;  ///< "GET", "PUT", ...
  /// The path as the server sees it before percent-decoding is undone, e.g.
  /// "/bucket/my key" (raw, not encoded): each byte other than unreserved
  /// characters and '/' is percent-encoded once (S3 rules: no normalization of
  /// "//" or "."). Use UriEncodePath for the URL sent, so both agree.
  std::string path;
  /// Query parameters, raw (not encoded), in any order; a parameter without a
  /// value ("?uploads") has an empty value.
  std::vector<std::pair<std::string, std::string>> query;
  /// Every header to sign, as sent (names in any case, repeated names allowed:
  /// their values are joined with ',' in the order given). Must include "host"
  /// and "x-amz-date".
  std::vector<std::pair<std::string, std::string>> headers;
  /// Hex SHA-256 of the payload, or "UNSIGNED-PAYLOAD".
  std::string payload_sha256;
};

/// The intermediate strings and the result, so tests can check each step.
struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      ///< Hex HMAC-SHA256 of string_to_sign.
  std::string authorization;  ///< The value of the Authorization header.
};

/// Signs `input` at time `amz_date` ("YYYYMMDDTHHMMSSZ", also sent as
/// x-amz-date) for `region` and `service` ("s3").
Signature Sign(const SigningInput& input, const Credentials& credentials, std::string_view region,
               std::string_view service, std::string_view amz_date);

/// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters
/// (A-Z a-z 0-9 - . _ ~) stay, every other byte becomes %XX (upper-case hex).
std::string UriEncode(std::string_view raw);
/// Like UriEncode but keeps '/' (for paths).
std::string UriEncodePath(std::string_view raw);
/// The query string to send: raw parameters encoded and sorted as SigV4
/// signs them ("a=1&b=&c=x%2Fy").
std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query);

/// Hex SHA-256 of `bytes` (lower-case).
std::string Sha256Hex(std::span<const uint8_t> bytes);
std::string Sha256Hex(std::string_view bytes);
/// Hex MD5 of `bytes` (lower-case): S3's ETag of an object stored by one PUT.
std::string Md5Hex(std::span<const uint8_t> bytes);
/// HMAC-SHA256 of `data` under `key`, raw 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
/// Lower-case hex of raw bytes.
std::string HexEncode(std::string_view raw);

/// The hex SHA-256 of an empty payload.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// `unix_seconds` as SigV4's "YYYYMMDDTHHMMSSZ" (UTC).
std::string AmzDate(int64_t unix_seconds);

}  // namespace floe::io::s3
