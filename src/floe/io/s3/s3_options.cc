#include "floe/io/s3/s3_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace floe::io::s3 {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string* Find(const std::map<std::string, std::string>& m, std::string_view key) {
  auto it = m.find(std::string(key));
  return it == m.end() || it->second.empty() ? nullptr : &it->second;
}

Result<bool> ParseBool(std::string_view name, std::string_view value) {
  std::string v(Trim(value));
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "no") return false;
  return InvalidArgument("{}: '{}' is not true or false", name, value.substr(0, 40));
}

Result<uint64_t> ParseCount(std::string_view name, std::string_view value, uint64_t min,
                            uint64_t max) {
  value = Trim(value);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < min || v > max) {
    return InvalidArgument("{}: '{}' is not a whole number from {} to {}", name,
                           value.substr(0, 40), min, max);
  }
  return v;
}

Result<std::chrono::milliseconds> ParseSeconds(std::string_view name, std::string_view value) {
  std::string v(Trim(value));
  char* end = nullptr;
  double seconds = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 86400) {
    return InvalidArgument("{}: '{}' is not a number of seconds (0 to 86400)", name,
                           value.substr(0, 40));
  }
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000 + 0.5));
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

std::map<std::string, std::map<std::string, std::string>> ParseIni(std::string_view text) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::string section;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      size_t close = line.find(']');
      section = std::string(
          Trim(line.substr(1, close == std::string_view::npos ? line.size() - 1 : close - 1)));
      out[section];
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || section.empty()) continue;
    std::string key(Trim(line.substr(0, eq)));
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out[section][key] = std::string(Trim(line.substr(eq + 1)));
  }
  return out;
}

namespace {

// The AWS profile the environment selects (AWS_PROFILE, else "default"): its
// sections of the shared credentials file and of the config file.
struct AwsProfile {
  std::string name;
  bool named = false;  ///< AWS_PROFILE set
  bool found = false;  ///< either file has the profile
  std::string credentials_path, config_path;
  std::map<std::string, std::string> credentials, config;
};

AwsProfile LoadAwsProfile(const EnvLookup& env) {
  AwsProfile profile;
  std::optional<std::string> home = env("HOME");
  profile.name = env("AWS_PROFILE").value_or("");
  profile.named = !profile.name.empty();
  if (!profile.named) profile.name = "default";
  profile.credentials_path =
      env("AWS_SHARED_CREDENTIALS_FILE").value_or(home ? *home + "/.aws/credentials" : "");
  profile.config_path = env("AWS_CONFIG_FILE").value_or(home ? *home + "/.aws/config" : "");
  if (!profile.credentials_path.empty()) {
    if (auto text = ReadFile(profile.credentials_path)) {
      auto ini = ParseIni(*text);
      if (auto it = ini.find(profile.name); it != ini.end()) {
        profile.credentials = it->second;
        profile.found = true;
      }
    }
  }
  if (!profile.config_path.empty()) {
    if (auto text = ReadFile(profile.config_path)) {
      auto ini = ParseIni(*text);
      auto it = ini.find(profile.name == "default" ? "default" : "profile " + profile.name);
      if (it == ini.end()) it = ini.find(profile.name);
      if (it != ini.end()) {
        profile.config = it->second;
        profile.found = true;
      }
    }
  }
  return profile;
}

// s3.endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
// endpoint_url: the first set, without trailing slashes; empty when none is.
Result<std::string> ResolveEndpoint(const std::map<std::string, std::string>& properties,
                                    const EnvLookup& env, const AwsProfile& profile) {
  std::string endpoint;
  if (auto* v = Find(properties, "s3.endpoint")) {
    endpoint = *v;
  } else if (auto e = env("AWS_ENDPOINT_URL_S3")) {
    endpoint = *e;
  } else if (auto e2 = env("AWS_ENDPOINT_URL")) {
    endpoint = *e2;
  } else if (auto* p = Find(profile.config, "endpoint_url")) {
    endpoint = *p;
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (!endpoint.empty() && !endpoint.starts_with("http://") && !endpoint.starts_with("https://")) {
    return InvalidArgument("s3.endpoint: '{}' is not an http:// or https:// URL",
                           endpoint.substr(0, 200));
  }
  return endpoint;
}

// s3.region, client.region, AWS_REGION, AWS_DEFAULT_REGION, the profile's
// region: the first set; nullopt when none is.
std::optional<std::string> ResolveRegion(const std::map<std::string, std::string>& properties,
                                         const EnvLookup& env, const AwsProfile& profile) {
  if (auto* v = Find(properties, "s3.region")) return *v;
  if (auto* c = Find(properties, "client.region")) return *c;
  if (auto e = env("AWS_REGION")) return *e;
  if (auto e2 = env("AWS_DEFAULT_REGION")) return *e2;
  if (auto* p = Find(profile.config, "region")) return *p;
  return std::nullopt;
}

// The first profile section (credentials file, then config file) with a key
// pair; leaves `o` without credentials when neither has one.
Status CredentialsFromProfile(const AwsProfile& profile, S3Options& o) {
  for (const auto* section : {&profile.credentials, &profile.config}) {
    const std::string* pid = Find(*section, "aws_access_key_id");
    const std::string* psecret = Find(*section, "aws_secret_access_key");
    if (!pid && !psecret) continue;
    const std::string& where =
        section == &profile.credentials ? profile.credentials_path : profile.config_path;
    if (!pid || !psecret) {
      return InvalidArgument("profile '{}' of {} has {} but not {}", profile.name, where,
                             pid ? "aws_access_key_id" : "aws_secret_access_key",
                             pid ? "aws_secret_access_key" : "aws_access_key_id");
    }
    o.credentials.access_key_id = *pid;
    o.credentials.secret_access_key = *psecret;
    if (auto* t = Find(*section, "aws_session_token")) o.credentials.session_token = *t;
    o.credentials_source = fmt::format("profile '{}' of {}", profile.name, where);
    break;
  }
  return {};
}

/// kInvalidArgument naming both when only one of two settings that go
/// together (a key id and its secret) is set.
Status BothOrNeither(std::string_view a, bool a_set, std::string_view b, bool b_set) {
  if (a_set == b_set) return Ok();
  return InvalidArgument("{} is set but {} is not: set both", a_set ? a : b, a_set ? b : a);
}

// Credentials from the properties, else the environment, else the profile:
// the three sources are never mixed.
Status ResolveCredentials(const std::map<std::string, std::string>& properties,
                          const EnvLookup& env, const AwsProfile& profile, S3Options& o) {
  bool profile_needed = true;
  const std::string* key_id = Find(properties, "s3.access-key-id");
  const std::string* secret = Find(properties, "s3.secret-access-key");
  if (key_id || secret) {
    FLOE_RETURN_IF_ERROR(BothOrNeither("s3.access-key-id", key_id != nullptr,
                                       "s3.secret-access-key", secret != nullptr));
    o.credentials.access_key_id = *key_id;
    o.credentials.secret_access_key = *secret;
    if (auto* t = Find(properties, "s3.session-token")) o.credentials.session_token = *t;
    o.credentials_source = "s3.access-key-id";
    profile_needed = false;
  } else if (auto e_id = env("AWS_ACCESS_KEY_ID"), e_secret = env("AWS_SECRET_ACCESS_KEY");
             e_id || e_secret) {
    FLOE_RETURN_IF_ERROR(BothOrNeither("AWS_ACCESS_KEY_ID", e_id.has_value(),
                                       "AWS_SECRET_ACCESS_KEY", e_secret.has_value()));
    o.credentials.access_key_id = *e_id;
    o.credentials.secret_access_key = *e_secret;
    o.credentials.session_token = env("AWS_SESSION_TOKEN").value_or("");
    o.credentials_source = "AWS_ACCESS_KEY_ID";
    profile_needed = false;
  } else {
    FLOE_RETURN_IF_ERROR(CredentialsFromProfile(profile, o));
  }
  if (profile.named && profile_needed && !profile.found) {
    return InvalidArgument("AWS_PROFILE names profile '{}', which neither {} nor {} has",
                           profile.name, profile.credentials_path, profile.config_path);
  }
  if (o.credentials.access_key_id.empty()) {
    return InvalidArgument(
        "no S3 credentials: set s3.access-key-id and s3.secret-access-key, or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws/credentials");
  }
  return {};
}

// Addressing, multipart, retry and timeout properties, each checked.
Status ReadTransferProperties(const std::map<std::string, std::string>& properties, S3Options& o) {
  if (auto* v = Find(properties, "s3.path-style-access")) {
    FLOE_ASSIGN_OR_RETURN(o.path_style, ParseBool("s3.path-style-access", *v));
  }
  if (auto* v = Find(properties, "s3.multipart.size")) {
    FLOE_ASSIGN_OR_RETURN(o.part_size, ParseCount("s3.multipart.size", *v, 5ull << 20, 5ull << 30));
  }
  if (auto* v = Find(properties, "s3.multipart.num-threads")) {
    FLOE_ASSIGN_OR_RETURN(uint64_t n, ParseCount("s3.multipart.num-threads", *v, 1, 64));
    o.max_parts_in_flight = static_cast<int>(n);
  }
  if (auto* v = Find(properties, "s3.retry.num-retries")) {
    FLOE_ASSIGN_OR_RETURN(uint64_t n, ParseCount("s3.retry.num-retries", *v, 0, 100));
    o.retry.max_attempts = static_cast<int>(n) + 1;
  }
  if (auto* v = Find(properties, "s3.retry.min-wait-ms")) {
    FLOE_ASSIGN_OR_RETURN(uint64_t n, ParseCount("s3.retry.min-wait-ms", *v, 0, 3'600'000));
    o.retry.base_backoff = std::chrono::milliseconds(n);
  }
  if (auto* v = Find(properties, "s3.retry.max-wait-ms")) {
    FLOE_ASSIGN_OR_RETURN(uint64_t n, ParseCount("s3.retry.max-wait-ms", *v, 0, 3'600'000));
    o.retry.max_backoff = std::chrono::milliseconds(n);
  }
  if (auto* v = Find(properties, "s3.connect-timeout")) {
    FLOE_ASSIGN_OR_RETURN(o.connect_timeout, ParseSeconds("s3.connect-timeout", *v));
  }
  if (auto* v = Find(properties, "s3.request-timeout")) {
    FLOE_ASSIGN_OR_RETURN(o.idle_timeout, ParseSeconds("s3.request-timeout", *v));
  }
  return {};
}

}  // namespace

Result<S3Options> S3OptionsFromProperties(const std::map<std::string, std::string>& properties,
                                          const EnvLookup& env) {
  S3Options o;
  const AwsProfile profile = LoadAwsProfile(env);
  FLOE_ASSIGN_OR_RETURN(o.endpoint, ResolveEndpoint(properties, env, profile));
  if (auto region = ResolveRegion(properties, env, profile)) o.region = std::move(*region);
  FLOE_RETURN_IF_ERROR(ResolveCredentials(properties, env, profile, o));
  FLOE_RETURN_IF_ERROR(ReadTransferProperties(properties, o));
  return o;
}

}  // namespace floe::io::s3
