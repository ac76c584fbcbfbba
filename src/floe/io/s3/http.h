#pragma once
/// The HTTP layer under the S3 client: one request in, one response out.
/// CurlTransport sends over libcurl; tests put a fake in its place to script
/// answers and failures (tests/s3_client_test.cc).

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"

namespace floe::io::s3 {

struct HttpRequest {
  std::string method;  ///< GET, HEAD, PUT, POST, DELETE.
  std::string url;     ///< Complete, query included, already encoded.
  std::vector<std::pair<std::string, std::string>> headers;
  std::span<const uint8_t> body;  ///< Not owned; must outlive Send.
  /// Send on a new connection. libcurl sends a request again by itself when
  /// a reused connection turns out closed before any answer; a request that
  /// must reach the server at most once (a catalog commit) asks for this.
  bool fresh_connection = false;
};

struct HttpResponse {
  long status = 0;
  /// Header names lower-case, values trimmed.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// The value of header `name` (lower-case), or empty.
  std::string_view Header(std::string_view name) const;
};

/// Sends requests. Implementations are thread-safe: S3FileIO uploads parts
/// from several threads through one transport.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  /// Sends `request` and returns the response whatever its status. Errors are
  /// for requests that got no complete response: kTimedOut (no progress for the
  /// timeout, or connecting took too long), kIo (refused, reset, DNS, TLS).
  /// The message names the method and URL (which carries no secret: requests
  /// are signed in headers), never a header.
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

struct CurlTransportOptions {
  /// Connecting (TCP + TLS) longer than this is kTimedOut.
  std::chrono::milliseconds connect_timeout{10'000};
  /// A transfer that moves no byte for this long is kTimedOut (a stall; a
  /// large upload that keeps moving is never cut).
  std::chrono::milliseconds idle_timeout{60'000};
  /// Verify the server's TLS certificate (https endpoints).
  bool verify_tls = true;
};

/// A transport on libcurl easy handles, reused across requests (keep-alive
/// connections) from a small pool. Thread-safe.
std::unique_ptr<HttpTransport> MakeCurlTransport(const CurlTransportOptions& options = {});

}  // namespace floe::io::s3
