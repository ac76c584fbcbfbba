// URI helpers of file_io.h: schemes, redaction of secrets, local paths.

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "floe/common/ascii.h"
#include "floe/io/file_io.h"

namespace floe::io {
namespace {

// Whether a query parameter named `name` carries a secret.
bool IsSecretParameter(std::string_view name) {
  std::string n = AsciiLower(name);
  for (std::string_view word :
       {"password", "passwd", "pwd", "token", "secret", "key", "credential", "signature", "auth"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string NormalizedPath(std::string_view path) {
  std::string out = std::filesystem::path(std::string(path)).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

std::string UriScheme(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return {};
  size_t i = 1;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '+' ||
                          s[i] == '-' || s[i] == '.')) {
    ++i;
  }
  if (i >= s.size() || s[i] != ':') return {};
  std::string scheme = AsciiLower(s.substr(0, i));
  std::string_view rest = s.substr(i + 1);
  if (rest.starts_with("//")) return scheme;
  if (scheme == "file" && rest.starts_with("/")) return scheme;
  return {};
}

std::string RedactUri(std::string_view uri) {
  std::string out(uri);
  // User info: scheme://user:password@host -> scheme://user:***@host. The
  // scheme ("postgresql", "jdbc:postgresql") must start the text, so a "://"
  // inside a query value is not taken for an authority.
  size_t query_from = 0;
  size_t authority = out.find("://");
  bool has_scheme = authority != std::string::npos && authority > 0;
  for (size_t i = 0; has_scheme && i < authority; ++i) {
    char c = out[i];
    has_scheme =
        std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.' || c == ':';
  }
  if (has_scheme) {
    authority += 3;
    size_t end = out.find_first_of("/?#", authority);
    if (end == std::string::npos) end = out.size();
    size_t at = out.rfind('@', end - 1);
    if (at != std::string::npos && at >= authority) {
      size_t colon = out.find(':', authority);
      if (colon != std::string::npos && colon < at) {
        out.replace(colon + 1, at - colon - 1, "***");
        end = end - (at - colon - 1) + 3;
      }
    }
    query_from = end;
  }
  // Query parameters (and ;-separated parameters some drivers use).
  size_t query = out.find_first_of("?;", query_from);
  if (query == std::string::npos) return out;
  std::string redacted = out.substr(0, query + 1);
  size_t pos = query + 1;
  while (pos <= out.size()) {
    size_t end = out.find_first_of("&;#", pos);
    if (end == std::string::npos) end = out.size();
    std::string_view param = std::string_view(out).substr(pos, end - pos);
    size_t eq = param.find('=');
    if (eq != std::string_view::npos && IsSecretParameter(param.substr(0, eq))) {
      redacted.append(param.substr(0, eq + 1));
      redacted += "***";
    } else {
      redacted.append(param);
    }
    if (end >= out.size()) break;
    redacted += out[end];
    pos = end + 1;
  }
  return redacted;
}

std::string AbsoluteLocalPath(std::string_view path_or_uri, std::string_view base_dir) {
  std::string scheme = UriScheme(path_or_uri);
  if (!scheme.empty() && scheme != "file") return std::string(path_or_uri);
  std::string_view path = LocalPath(path_or_uri);
  if (path.starts_with("/")) return NormalizedPath(path);
  std::string base;
  if (!base_dir.empty()) {
    base = std::string(LocalPath(base_dir));
  }
  if (base.empty() || !base.starts_with("/")) {
    char cwd[4096];
    std::string here = ::getcwd(cwd, sizeof cwd) != nullptr ? std::string(cwd) : std::string("/");
    base = base.empty() ? here : here + "/" + base;
  }
  if (path.empty()) return NormalizedPath(base);
  return NormalizedPath(base + "/" + std::string(path));
}

bool PathIsWithin(std::string_view path, std::string_view dir) {
  std::string path_scheme = UriScheme(path), dir_scheme = UriScheme(dir);
  if (path_scheme.empty()) path_scheme = "file";
  if (dir_scheme.empty()) dir_scheme = "file";
  if (path_scheme != dir_scheme) return false;
  if (path_scheme != "file") {
    // Object store URIs: compare the text after normalizing the key part.
    size_t p = path.find("://"), d = dir.find("://");
    std::string_view pa = path.substr(0, p + 3), da = dir.substr(0, d + 3);
    if (AsciiLower(pa) != AsciiLower(da)) return false;
    std::string pk = NormalizedPath("/" + std::string(path.substr(p + 3)));
    std::string dk = NormalizedPath("/" + std::string(dir.substr(d + 3)));
    if (dk == "/") return true;
    return pk == dk || pk.starts_with(dk + "/");
  }
  std::string p = NormalizedPath(LocalPath(path));
  std::string d = NormalizedPath(LocalPath(dir));
  if (p.empty() || d.empty()) return false;
  if (p.starts_with("/") != d.starts_with("/")) return false;
  if (d == "/") return p.starts_with("/");
  return p == d || p.starts_with(d + "/");
}

}  // namespace floe::io
