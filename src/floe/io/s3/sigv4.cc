#include "floe/io/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "floe/common/ascii.h"

namespace floe::io::s3 {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kHexUpper[] = "0123456789ABCDEF";

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

std::string Encode(std::string_view raw, bool keep_slash) {
  std::string out;
  out.reserve(raw.size() + raw.size() / 4);
  for (unsigned char c : raw) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHexUpper[c >> 4]);
      out.push_back(kHexUpper[c & 15]);
    }
  }
  return out;
}

// Trims leading and trailing spaces and turns each run of spaces and tabs
// inside into one space (SigV4's header value rule).
std::string TrimAll(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string Digest(const EVP_MD* md, const void* data, size_t size) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data, size, out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string HexEncode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out.push_back(kHexDigits[c >> 4]);
    out.push_back(kHexDigits[c & 15]);
  }
  return out;
}

std::string Sha256Hex(std::span<const uint8_t> bytes) {
  return HexEncode(Digest(EVP_sha256(), bytes.data(), bytes.size()));
}

std::string Sha256Hex(std::string_view bytes) {
  return HexEncode(Digest(EVP_sha256(), bytes.data(), bytes.size()));
}

std::string Md5Hex(std::span<const uint8_t> bytes) {
  return HexEncode(Digest(EVP_md5(), bytes.data(), bytes.size()));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string UriEncode(std::string_view raw) { return Encode(raw, false); }
std::string UriEncodePath(std::string_view raw) { return Encode(raw, true); }

std::string CanonicalQueryString(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(UriEncode(name), UriEncode(value));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string AmzDate(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

Signature Sign(const SigningInput& input, const Credentials& credentials, std::string_view region,
               std::string_view service, std::string_view amz_date) {
  // Canonical headers: lower-case names, sorted (stable, so repeated names keep
  // their order), values trimmed; repeated names joined with ','.
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(input.headers.size());
  for (const auto& [name, value] : input.headers)
    headers.emplace_back(AsciiLower(name), TrimAll(value));
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  std::string signed_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.back() = ',';
      canonical_headers += headers[i].second;
      canonical_headers.push_back('\n');
      continue;
    }
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += headers[i].first;
    canonical_headers += headers[i].first;
    canonical_headers.push_back(':');
    canonical_headers += headers[i].second;
    canonical_headers.push_back('\n');
  }

  Signature out;
  out.canonical_request = fmt::format(
      "{}\n{}\n{}\n{}\n{}\n{}", input.method, UriEncodePath(input.path.empty() ? "/" : input.path),
      CanonicalQueryString(input.query), canonical_headers, signed_headers, input.payload_sha256);
  std::string_view date = amz_date.substr(0, 8);
  std::string scope = fmt::format("{}/{}/{}/aws4_request", date, region, service);
  out.string_to_sign = fmt::format("AWS4-HMAC-SHA256\n{}\n{}\n{}", amz_date, scope,
                                   Sha256Hex(out.canonical_request));
  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  out.signature = HexEncode(HmacSha256(key, out.string_to_sign));
  out.authorization =
      fmt::format("AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
                  credentials.access_key_id, scope, signed_headers, out.signature);
  return out;
}

}  // namespace floe::io::s3
