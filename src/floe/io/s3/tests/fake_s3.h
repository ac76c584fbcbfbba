#pragma once
// An in-memory S3 behind the HttpTransport interface, for unit tests of the
// client and S3FileIO without a server: path-style requests only, the calls
// S3Client makes, and hooks to inject failures and watch concurrency.
// (The real protocol is tested against moto: s3_integration_test.cc.)

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "floe/io/s3/http.h"
#include "floe/io/s3/s3_xml.h"
#include "floe/io/s3/sigv4.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3::testing {

inline std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

inline HttpResponse Answer(long status, std::string body = {},
                           std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

inline HttpResponse ErrorAnswer(long status, std::string_view code, std::string_view extra = {}) {
  return Answer(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" +
                            std::string(code) + "</Code><Message>fake " + std::string(code) +
                            "</Message>" + std::string(extra) + "</Error>");
}

class FakeS3 final : public HttpTransport {
 public:
  struct Parsed {
    std::string method, bucket, key;
    std::map<std::string, std::string> query;
    const HttpRequest* request;
    std::string Header(std::string_view name) const {
      for (const auto& [n, v] : request->headers) {
        if (n == name) return v;
      }
      return {};
    }
  };

  /// Called before each request is served; an answer (or error) replaces it.
  std::function<std::optional<Result<HttpResponse>>(const Parsed&)> hook;
  /// Delay inside each UploadPart, so overlapping uploads can be observed.
  std::chrono::milliseconds part_delay{0};

  std::atomic<int> parts_in_flight{0};
  std::atomic<int> max_parts_in_flight{0};

  std::map<std::string, std::string> objects(const std::string& bucket) {
    std::lock_guard lock(mu_);
    return buckets_[bucket];
  }
  size_t open_uploads() {
    std::lock_guard lock(mu_);
    return uploads_.size();
  }
  void AddBucket(const std::string& bucket) {
    std::lock_guard lock(mu_);
    buckets_[bucket];
  }
  std::vector<std::string> log() {
    std::lock_guard lock(mu_);
    return log_;
  }

  Result<HttpResponse> Send(const HttpRequest& request) override {
    Parsed p;
    p.request = &request;
    p.method = request.method;
    std::string_view url = request.url;
    url.remove_prefix(url.find("://") + 3);
    url.remove_prefix(url.find('/'));
    std::string_view path = url.substr(0, url.find('?'));
    if (url.find('?') != std::string_view::npos) {
      std::string_view q = url.substr(url.find('?') + 1);
      while (!q.empty()) {
        std::string_view part = q.substr(0, q.find('&'));
        q = q.find('&') == std::string_view::npos ? std::string_view() : q.substr(q.find('&') + 1);
        size_t eq = part.find('=');
        p.query[PercentDecode(part.substr(0, eq))] =
            eq == std::string_view::npos ? "" : PercentDecode(part.substr(eq + 1));
      }
    }
    std::string decoded = PercentDecode(path.substr(1));
    size_t slash = decoded.find('/');
    p.bucket = decoded.substr(0, slash);
    bool bucket_call = slash == std::string::npos;
    if (!bucket_call) p.key = decoded.substr(slash + 1);
    {
      std::lock_guard lock(mu_);
      log_.push_back(p.method + " " + decoded);
    }
    if (hook) {
      if (auto replaced = hook(p)) return *replaced;
    }
    return Serve(p, bucket_call);
  }

 private:
  HttpResponse Serve(const Parsed& p, bool bucket_call) {
    const HttpRequest& r = *p.request;
    std::string body(reinterpret_cast<const char*>(r.body.data()), r.body.size());
    if (p.method == "PUT" && p.query.count("partNumber")) {
      int now = ++parts_in_flight;
      int seen = max_parts_in_flight.load();
      while (now > seen && !max_parts_in_flight.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(part_delay);
      --parts_in_flight;
    }
    std::lock_guard lock(mu_);
    if (bucket_call && p.method == "PUT") {
      if (buckets_.count(p.bucket)) return ErrorAnswer(409, "BucketAlreadyOwnedByYou");
      buckets_[p.bucket];
      return Answer(200);
    }
    auto b = buckets_.find(p.bucket);
    if (b == buckets_.end()) {
      if (p.method == "HEAD") return Answer(404);
      return ErrorAnswer(404, "NoSuchBucket");
    }
    auto& objects = b->second;
    if (bucket_call && p.method == "HEAD") return Answer(200);
    if (bucket_call && p.method == "GET") return List(objects, p);
    if (p.method == "HEAD" || (p.method == "GET")) {
      auto it = objects.find(p.key);
      if (it == objects.end()) {
        return p.method == "HEAD" ? Answer(404) : ErrorAnswer(404, "NoSuchKey");
      }
      const std::string& data = it->second;
      std::string etag =
          "\"" + Md5Hex({reinterpret_cast<const uint8_t*>(data.data()), data.size()}) + "\"";
      if (auto m = multipart_etags_.find(p.bucket + "/" + p.key); m != multipart_etags_.end()) {
        etag = m->second;
      }
      std::vector<std::pair<std::string, std::string>> h = {{"etag", etag}};
      if (p.method == "HEAD") {
        h.emplace_back("content-length", std::to_string(data.size()));
        return Answer(200, "", h);
      }
      std::string range = p.Header("range");
      if (range.empty()) return Answer(200, data, h);
      size_t dash = range.find('-');
      uint64_t first = std::stoull(range.substr(6, dash - 6));
      uint64_t last = std::stoull(range.substr(dash + 1));
      if (first >= data.size()) return ErrorAnswer(416, "InvalidRange");
      return Answer(206, data.substr(first, last - first + 1), h);
    }
    if (p.method == "PUT" && p.query.count("partNumber")) {
      auto u = uploads_.find(p.query.at("uploadId"));
      if (u == uploads_.end()) return ErrorAnswer(404, "NoSuchUpload");
      u->second[std::stoi(p.query.at("partNumber"))] = body;
      return Answer(200, "", {{"etag", "\"" + Md5Hex(r.body) + "\""}});
    }
    if (p.method == "PUT") {
      std::string source = p.Header("x-amz-copy-source");
      if (!source.empty()) {
        std::string from = PercentDecode(source.substr(source.find('/', 1) + 1));
        auto it = objects.find(from);
        if (it == objects.end()) return ErrorAnswer(404, "NoSuchKey");
        objects[p.key] = it->second;
        multipart_etags_.erase(p.bucket + "/" + p.key);
        return Answer(200, "<CopyObjectResult><ETag>\"x\"</ETag></CopyObjectResult>");
      }
      if (p.Header("if-none-match") == "*" && objects.count(p.key)) {
        return ErrorAnswer(412, "PreconditionFailed");
      }
      objects[p.key] = body;
      multipart_etags_.erase(p.bucket + "/" + p.key);
      return Answer(200, "", {{"etag", "\"" + Md5Hex(r.body) + "\""}});
    }
    if (p.method == "POST" && p.query.count("uploads")) {
      std::string id = "upload-" + std::to_string(++next_upload_);
      uploads_[id];
      return Answer(200, "<InitiateMultipartUploadResult><UploadId>" + id +
                             "</UploadId></InitiateMultipartUploadResult>");
    }
    if (p.method == "POST" && p.query.count("uploadId")) {
      auto u = uploads_.find(p.query.at("uploadId"));
      if (u == uploads_.end()) return ErrorAnswer(404, "NoSuchUpload");
      if (p.Header("if-none-match") == "*" && objects.count(p.key)) {
        return ErrorAnswer(412, "PreconditionFailed");
      }
      auto doc = ParseXml(body);
      if (!doc) return ErrorAnswer(400, "MalformedXML");
      std::string data;
      std::vector<std::string> etags;
      int n = 0;
      for (const XmlElement* part : doc->Children("Part")) {
        int number = std::stoi(std::string(part->ChildText("PartNumber")));
        if (number != ++n || !u->second.count(number)) return ErrorAnswer(400, "InvalidPart");
        const std::string& bytes = u->second[number];
        data += bytes;
        etags.push_back(Md5Hex({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}));
      }
      objects[p.key] = data;
      multipart_etags_[p.bucket + "/" + p.key] = MultipartEtag(etags);
      uploads_.erase(u);
      return Answer(200,
                    "<CompleteMultipartUploadResult><ETag>\"m\"</ETag>"
                    "</CompleteMultipartUploadResult>");
    }
    if (p.method == "POST" && p.query.count("delete")) {
      if (p.Header("content-md5").empty()) return ErrorAnswer(400, "InvalidRequest");
      auto doc = ParseXml(body);
      if (!doc) return ErrorAnswer(400, "MalformedXML");
      for (const XmlElement* o : doc->Children("Object"))
        objects.erase(std::string(o->ChildText("Key")));
      return Answer(200, "<DeleteResult></DeleteResult>");
    }
    if (p.method == "DELETE" && p.query.count("uploadId")) {
      if (!uploads_.erase(p.query.at("uploadId"))) return ErrorAnswer(404, "NoSuchUpload");
      return Answer(204);
    }
    if (p.method == "DELETE") {
      objects.erase(p.key);
      multipart_etags_.erase(p.bucket + "/" + p.key);
      return Answer(204);
    }
    return ErrorAnswer(400, "NotImplemented");
  }

  HttpResponse List(const std::map<std::string, std::string>& objects, const Parsed& p) {
    std::string prefix = p.query.count("prefix") ? p.query.at("prefix") : "";
    std::string delimiter = p.query.count("delimiter") ? p.query.at("delimiter") : "";
    size_t max_keys = p.query.count("max-keys") ? std::stoul(p.query.at("max-keys")) : 1000;
    std::string after = p.query.count("continuation-token") ? p.query.at("continuation-token") : "";
    std::string xml = "<ListBucketResult>";
    std::set<std::string> prefixes;
    size_t count = 0;
    std::string last;
    bool truncated = false;
    for (auto it = after.empty() ? objects.lower_bound(prefix) : objects.upper_bound(after);
         it != objects.end() && it->first.starts_with(prefix); ++it) {
      if (count == max_keys) {
        truncated = true;
        break;
      }
      std::string rest = it->first.substr(prefix.size());
      if (!delimiter.empty() && rest.find(delimiter) != std::string::npos) {
        std::string cp = prefix + rest.substr(0, rest.find(delimiter) + 1);
        if (prefixes.insert(cp).second) {
          xml += "<CommonPrefixes><Prefix>" + XmlEscape(cp) + "</Prefix></CommonPrefixes>";
          ++count;
        }
      } else {
        xml += "<Contents><Key>" + XmlEscape(it->first) + "</Key><Size>" +
               std::to_string(it->second.size()) + "</Size></Contents>";
        ++count;
      }
      last = it->first;
    }
    xml += std::string("<IsTruncated>") + (truncated ? "true" : "false") + "</IsTruncated>";
    if (truncated) xml += "<NextContinuationToken>" + XmlEscape(last) + "</NextContinuationToken>";
    xml += "</ListBucketResult>";
    return Answer(200, xml);
  }

  std::mutex mu_;
  std::map<std::string, std::map<std::string, std::string>> buckets_;
  std::map<std::string, std::string> multipart_etags_;  // "bucket/key" -> ETag
  std::map<std::string, std::map<int, std::string>> uploads_;
  int next_upload_ = 0;
  std::vector<std::string> log_;
};

}  // namespace floe::io::s3::testing
