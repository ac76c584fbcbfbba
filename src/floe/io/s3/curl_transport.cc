#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "floe/io/file_io.h"
#include "floe/io/s3/http.h"

namespace floe::io::s3 {

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return {};
}

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  std::span<const uint8_t> body;
  size_t sent = 0;
  HttpResponse* response = nullptr;
};

size_t ReadBody(char* buffer, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = std::min(size * count, t->body.size() - t->sent);
  std::memcpy(buffer, t->body.data() + t->sent, n);
  t->sent += n;
  return n;
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  t->response->body.append(data, size * count);
  return size * count;
}

size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    t->response->headers.clear();  // a new response (after a 100 Continue)
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  t->response->headers.emplace_back(std::move(name), std::string(value));
  return size * count;
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const CurlTransportOptions& options) : options_(options) { GlobalInit(); }
  ~CurlTransport() override {
    for (CURL* h : idle_) curl_easy_cleanup(h);
  }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    CURL* h = Acquire();
    if (!h) return InternalError("curl_easy_init failed");
    HttpResponse response;
    Transfer t{request.body, 0, &response};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    }
    // No "Expect: 100-continue" round trip before bodies; no default
    // Content-Type on POST (it would not be signed).
    headers = curl_slist_append(headers, "Expect:");
    if (request.method == "POST" || request.method == "PUT") {
      headers = curl_slist_append(headers, "Content-Type:");
    }

    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, request.fresh_connection ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    // A stall (less than one byte per second for idle_timeout) is a timeout.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(options_.idle_timeout.count() / 1000)));
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, WriteBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, WriteHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    if (request.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (request.method == "PUT") {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_READFUNCTION, ReadBody);
      curl_easy_setopt(h, CURLOPT_READDATA, &t);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    } else if (request.method == "POST") {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    } else if (request.method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }

    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      // A failed handle may hold a broken connection: do not reuse it.
      curl_easy_cleanup(h);
      std::string what =
          fmt::format("{} {}: {}", request.method, RedactUri(request.url), curl_easy_strerror(rc));
      if (rc == CURLE_OPERATION_TIMEDOUT) return TimedOut("{}", what);
      return IoError("{}", what);
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
    Release(h);
    return response;
  }

 private:
  CURL* Acquire() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        curl_easy_reset(h);  // keeps the handle's connection cache
        return h;
      }
    }
    return curl_easy_init();
  }

  void Release(CURL* h) {
    std::lock_guard lock(mu_);
    if (idle_.size() < kMaxIdle) {
      idle_.push_back(h);
    } else {
      curl_easy_cleanup(h);
    }
  }

  static constexpr size_t kMaxIdle = 16;
  CurlTransportOptions options_;
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

}  // namespace

std::unique_ptr<HttpTransport> MakeCurlTransport(const CurlTransportOptions& options) {
  return std::make_unique<CurlTransport>(options);
}

}  // namespace floe::io::s3
