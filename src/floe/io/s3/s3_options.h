#pragma once
/// Configuration of the S3 client and S3FileIO, from the property names
/// PyIceberg and Iceberg Java use, the AWS_* environment variables and the
/// ~/.aws/credentials and ~/.aws/config profiles (docs/s3.md, "Configuration").

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/io/s3/sigv4.h"

namespace floe::io::s3 {

/// Retries of one S3 request (docs/s3.md, "Retries"): attempts are spaced by
/// "full jitter" exponential backoff, a uniformly random wait in
/// [0, min(max_backoff, base_backoff * 2^(attempt-1))].
struct RetryPolicy {
  int max_attempts = 8;  ///< Including the first; 1 = no retry.
  std::chrono::milliseconds base_backoff{100};
  std::chrono::milliseconds max_backoff{10'000};
};

struct S3Options {
  /// "http(s)://host[:port]" of an S3-compatible server; empty means AWS
  /// (https://s3.<region>.amazonaws.com).
  std::string endpoint;
  std::string region = "us-east-1";
  Credentials credentials;
  /// Where the credentials came from ("s3.access-key-id", "AWS_ACCESS_KEY_ID",
  /// "profile 'x' of ~/.aws/credentials"), for messages; never the keys.
  std::string credentials_source;
  /// Path-style URLs (endpoint/bucket/key) instead of virtual-hosted ones
  /// (bucket.endpoint/key). Forced for endpoints that are IP addresses or
  /// "localhost", and for bucket names with '.' over https.
  bool path_style = false;
  /// Multipart part size (bytes): an output file larger than this is uploaded
  /// in parts of this size while it is being written; a smaller one with one
  /// PUT on Close. At least 5 MiB (S3's minimum part size).
  uint64_t part_size = 8ull << 20;
  /// Parts of one output file uploading at once; the file's memory is at most
  /// (max_parts_in_flight + 1) * part_size.
  int max_parts_in_flight = 4;
  RetryPolicy retry;
  std::chrono::milliseconds connect_timeout{10'000};
  /// A request that moves no byte for this long fails (and is retried).
  std::chrono::milliseconds idle_timeout{60'000};
};

/// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
/// The process's environment (getenv).
EnvLookup ProcessEnvironment();

/// S3Options from catalog/FileIO properties, then the environment, then AWS
/// profiles; the first that sets a value wins:
///
/// | what | properties | environment | profile (AWS_PROFILE, else "default") |
/// |---|---|---|---|
/// | endpoint | s3.endpoint | AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL | endpoint_url |
/// | region | s3.region, client.region | AWS_REGION, AWS_DEFAULT_REGION | region (config) |
/// | keys | s3.access-key-id, s3.secret-access-key, s3.session-token | AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN | aws_access_key_id, aws_secret_access_key,
/// aws_session_token | | path style | s3.path-style-access | | |
///
/// Profiles are read from AWS_SHARED_CREDENTIALS_FILE (default
/// ~/.aws/credentials, section [name]) and AWS_CONFIG_FILE (default
/// ~/.aws/config, section [profile name], or [default]); HOME comes from
/// `env`. Tuning: s3.multipart.size (bytes), s3.multipart.num-threads,
/// s3.retry.num-retries (retries after the first attempt),
/// s3.retry.min-wait-ms, s3.retry.max-wait-ms, s3.connect-timeout and
/// s3.request-timeout (seconds, fractions allowed; the latter is the idle
/// timeout).
///
/// kInvalidArgument, naming the property (never its value if it is a secret),
/// for a malformed value, a key id without its secret (or the reverse), a
/// named AWS_PROFILE that no file has, or no credentials at all.
Result<S3Options> S3OptionsFromProperties(const std::map<std::string, std::string>& properties,
                                          const EnvLookup& env = ProcessEnvironment());

/// The sections of an INI file (~/.aws/credentials, ~/.aws/config): section
/// name -> key -> value. Keys are lower-cased, values trimmed; "#" and ";"
/// start comment lines.
std::map<std::string, std::map<std::string, std::string>> ParseIni(std::string_view text);

}  // namespace floe::io::s3
