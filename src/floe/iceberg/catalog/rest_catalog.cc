#include "floe/iceberg/catalog/rest_catalog.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <thread>

#include "floe/common/json_dump.h"
#include "floe/common/printable.h"
#include "floe/common/random.h"
#include "floe/iceberg/catalog/rest_protocol.h"
#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/iceberg/table_properties.h"
#include "floe/io/resolving_file_io.h"
#include "floe/io/s3/s3_client.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {
namespace {

using rest::Call;
using rest::ErrorForAnswer;
using rest::PercentEncode;

Result<nlohmann::json> ParseJson(std::string_view body, std::string_view what) {
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return Corruption("{}: the server's answer is not JSON: '{}'", what,
                      PrintableMessage(body.substr(0, 200)));
  }
  return json;
}

Result<Namespace> NamespaceFromJson(const nlohmann::json& json, std::string_view what) {
  if (!json.is_array()) return Corruption("{}: a namespace in the answer is not an array", what);
  Namespace ns;
  for (const auto& level : json) {
    if (!level.is_string()) return Corruption("{}: a namespace level is not a string", what);
    ns.push_back(level.get<std::string>());
  }
  return ns;
}

Result<Properties> PropertiesFromJson(const nlohmann::json& json, std::string_view what) {
  Properties out;
  if (json.is_null()) return out;
  if (!json.is_object()) return Corruption("{}: properties in the answer are not an object", what);
  for (const auto& [key, value] : json.items()) {
    if (!value.is_string()) return Corruption("{}: property '{}' is not a string", what, key);
    out[key] = value.get<std::string>();
  }
  return out;
}

// The next-page-token of a list answer, or empty when there is none.
std::string NextPageToken(const nlohmann::json& json) {
  auto it = json.find("next-page-token");
  if (it == json.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

std::string TrimSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  while (!text.empty() && text.front() == '/') text.erase(0, 1);
  return text;
}

// The grant and token type names of a token exchange (RFC 8693).
constexpr std::string_view kTokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr std::string_view kAccessTokenType = "urn:ietf:params:oauth:token-type:access_token";
// Iceberg Java's names of the settings that turn renewals off.
constexpr std::string_view kRefreshEnabled = "token-refresh-enabled";
constexpr std::string_view kExchangeEnabled = "token-exchange-enabled";

// The multi-table commit as the server's config lists it in `endpoints`.
constexpr std::string_view kTransactionsEndpoint = "POST /v1/{prefix}/transactions/commit";
// floe's setting that turns multi-table commits off (`false`).
constexpr std::string_view kMultiTableCommitSetting = "multi-table-commit";

bool SettingIsNotFalse(const Properties& properties, std::string_view key) {
  auto it = properties.find(std::string(key));
  return it == properties.end() || (it->second != "false" && it->second != "False");
}

// Whether an answer says the token was refused: 401, or 419 (the spec's
// "authentication timeout").
bool TokenRefused(long status) { return status == 401 || status == 419; }

// The lifetime a token answer gives in `expires_in` (a number of seconds,
// or digits in a string), or nullopt without a usable one.
std::optional<std::chrono::seconds> ExpiresIn(const nlohmann::json& answer) {
  auto it = answer.find("expires_in");
  if (it == answer.end()) return std::nullopt;
  int64_t seconds = 0;
  if (it->is_number_integer()) {
    seconds = it->get<int64_t>();
  } else if (it->is_number_float()) {
    seconds = static_cast<int64_t>(it->get<double>());
  } else if (it->is_string()) {
    const std::string& text = it->get_ref<const std::string&>();
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  }
  if (seconds <= 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

// How long before its expiry a token is renewed: a tenth of its lifetime, at
// most 5 minutes (Iceberg Java's refresh window).
std::chrono::milliseconds RenewalMargin(std::chrono::milliseconds lifetime) {
  return std::min<std::chrono::milliseconds>(lifetime / 10, std::chrono::minutes(5));
}

// Whether a transport error happened before anything was sent.
bool NothingSent(const Error& error) {
  const std::string& m = error.message();
  return m.find("Couldn't connect") != std::string::npos ||
         m.find("Couldn't resolve") != std::string::npos;
}

}  // namespace

RestCatalog::RestCatalog(std::string name, RestCatalogOptions options, io::FileIO* io,
                         std::shared_ptr<io::s3::HttpTransport> transport)
    : name_(std::move(name)),
      options_(std::move(options)),
      io_(io),
      transport_(std::move(transport)),
      separator_(rest::kDefaultNamespaceSeparator) {}

Result<std::unique_ptr<RestCatalog>> RestCatalog::Open(
    std::string name, RestCatalogOptions options, io::FileIO* file_io,
    std::shared_ptr<io::s3::HttpTransport> transport) {
  if (options.uri.empty())
    return InvalidArgument("catalog '{}': a rest catalog needs a 'uri'", name);
  if (!options.uri.starts_with("http://") && !options.uri.starts_with("https://")) {
    return InvalidArgument("catalog '{}': uri '{}' is not an http:// or https:// URI", name,
                           io::RedactUri(options.uri));
  }
  while (options.uri.ends_with('/')) options.uri.pop_back();
  if (options.uri.ends_with("/v1")) options.uri.resize(options.uri.size() - 3);
  if (!transport) transport = io::s3::MakeCurlTransport();
  std::unique_ptr<RestCatalog> catalog(
      new RestCatalog(std::move(name), std::move(options), file_io, std::move(transport)));
  catalog->refresh_enabled_ = SettingIsNotFalse(catalog->options_.properties, kRefreshEnabled);
  catalog->exchange_enabled_ = SettingIsNotFalse(catalog->options_.properties, kExchangeEnabled);
  catalog->token_ = catalog->options_.token;
  if (catalog->token_.empty() && catalog->CanObtainTokens()) {
    std::lock_guard lock(catalog->token_mu_);
    FLOE_RETURN_IF_ERROR_CTX(catalog->ObtainToken(Grant::kClientCredentials), "catalog '{}'",
                             catalog->name_);
  }
  FLOE_RETURN_IF_ERROR_CTX(catalog->FetchConfig(), "catalog '{}'", catalog->name_);
  return catalog;
}

Result<RestCatalog::Answer> RestCatalog::Send(std::string_view method, const std::string& url,
                                              const std::string& body, bool* token_failed) {
  auto no_token = [&](Error error) {
    if (token_failed != nullptr) *token_failed = true;
    return std::unexpected(std::move(error).WithContext(fmt::format("catalog '{}'", name_)));
  };
  auto token = CurrentToken();
  if (!token) return no_token(std::move(token).error());
  FLOE_ASSIGN_OR_RETURN(Answer answer, Exchange(method, url, body, "application/json", *token));
  if (!TokenRefused(answer.status) || !CanObtainTokens()) return answer;
  // Refused before the server did anything (a commit included): once more
  // with a new token.
  spdlog::debug("rest catalog '{}': the server refused the token (HTTP {}); obtaining a new one",
                name_, answer.status);
  if (auto renewed = RenewRefusedToken(*token); !renewed) {
    return no_token(std::move(renewed).error());
  }
  token = CurrentToken();
  if (!token) return no_token(std::move(token).error());
  return Exchange(method, url, body, "application/json", *token);
}

Result<RestCatalog::Answer> RestCatalog::Exchange(std::string_view method, const std::string& url,
                                                  const std::string& body,
                                                  std::string_view content_type,
                                                  const std::string& bearer) {
  io::s3::HttpRequest request;
  request.method = std::string(method);
  request.url = url;
  request.headers.emplace_back("Accept", "application/json");
  request.headers.emplace_back("X-Client-Version", "floe");
  // As PyIceberg: the server may hand out storage keys for a table's files
  // (UseStorageSettings).
  request.headers.emplace_back("X-Iceberg-Access-Delegation", "vended-credentials");
  if (!body.empty() || method == "POST") {
    request.headers.emplace_back("Content-Type", std::string(content_type));
  }
  if (!bearer.empty()) request.headers.emplace_back("Authorization", "Bearer " + bearer);
  request.body = std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  const bool read = method == "GET" || method == "HEAD";
  // Never delivered twice by the transport itself (HttpRequest::fresh_connection).
  request.fresh_connection = !read;
  // A read is sent again after a busy or failed answer, or a lost one;
  // anything else only when the server cannot have acted on it (throttled,
  // or never reached), so a commit is never sent twice: its lost answer is
  // the committer's to resolve (kCommitStateUnknown).
  for (int attempt = 1;; ++attempt) {
    auto response = transport_->Send(request);
    bool again;
    if (response) {
      const long status = response->status;
      again = status == 429 || (read && (status == 502 || status == 503 || status == 504));
    } else {
      again = read || NothingSent(response.error());
    }
    if (!again || attempt >= options_.retry.max_attempts) {
      if (!response) return std::unexpected(std::move(response).error());
      return Answer{response->status, std::move(response->body)};
    }
    spdlog::debug("rest catalog: {} {} answered {}; attempt {} of {}", method, io::RedactUri(url),
                  response ? std::to_string(response->status) : response.error().message(),
                  attempt + 1, options_.retry.max_attempts);
    std::this_thread::sleep_for(io::s3::BackoffDelay(options_.retry, attempt, RandomUnit()));
  }
}

std::string RestCatalog::Url(std::string_view path) const {
  std::string url = options_.uri + "/v1/";
  if (!options_.prefix.empty()) url += options_.prefix + "/";
  url += path;
  return url;
}

std::string RestCatalog::NamespacePath(const Namespace& ns) const {
  return "namespaces/" + rest::EncodeNamespace(ns, separator_);
}

std::string RestCatalog::TablePath(const TableIdentifier& id) const {
  return NamespacePath(id.ns) + "/tables/" + PercentEncode(id.name);
}

std::chrono::steady_clock::time_point RestCatalog::Now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

std::optional<std::chrono::milliseconds> RestCatalog::JwtLifetime(const std::string& token) const {
  std::optional<int64_t> expires_at = rest::JwtExpiresAt(token);
  if (!expires_at) return std::nullopt;
  const auto now = options_.wall_clock ? options_.wall_clock() : std::chrono::system_clock::now();
  const auto lifetime = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::time_point(std::chrono::seconds(*expires_at)) - now);
  if (lifetime <= std::chrono::milliseconds::zero()) {
    // Expired when given (or the clocks disagree): used until it is refused,
    // rather than asked for again and again.
    spdlog::warn(
        "rest catalog '{}': the token's JWT says it expired {} s ago; using it until the "
        "server refuses it",
        name_, -std::chrono::duration_cast<std::chrono::seconds>(lifetime).count());
    return std::nullopt;
  }
  return lifetime;
}

Status RestCatalog::ObtainToken(Grant grant) {
  std::string url = options_.oauth2_server_uri.empty() ? options_.uri + "/v1/oauth/tokens"
                                                       : options_.oauth2_server_uri;
  std::string form;
  std::string bearer;
  std::string_view what;
  if (grant == Grant::kTokenExchange) {
    // Iceberg Java's refresh: the current token, sent as the subject and as
    // the request's own authorization.
    what = "renewing the OAuth2 token (token exchange)";
    form = "grant_type=" + PercentEncode(kTokenExchangeGrant) +
           "&subject_token=" + PercentEncode(token_) +
           "&subject_token_type=" + PercentEncode(kAccessTokenType);
    bearer = token_;
  } else {
    what = "obtaining an OAuth2 token";
    std::string client_id, secret = options_.credential;
    if (size_t colon = options_.credential.find(':'); colon != std::string::npos) {
      client_id = options_.credential.substr(0, colon);
      secret = options_.credential.substr(colon + 1);
    }
    form = "grant_type=client_credentials";
    if (!client_id.empty()) form += "&client_id=" + PercentEncode(client_id);
    form += "&client_secret=" + PercentEncode(secret);
  }
  form += "&scope=" + PercentEncode(options_.scope);
  const auto asked_at = Now();
  auto answer = Exchange("POST", url, form, "application/x-www-form-urlencoded", bearer);
  if (!answer) return std::unexpected(std::move(answer).error().WithContext(what));
  if (answer->status != 200) {
    // The OAuth2 error shape: {"error": "invalid_client", "error_description": ...}.
    auto json = nlohmann::json::parse(answer->body, nullptr, false);
    std::string reason;
    if (json.is_object() && json.contains("error") && json["error"].is_string()) {
      reason = json["error"].get<std::string>();
      if (json.contains("error_description") && json["error_description"].is_string()) {
        reason += ": " + json["error_description"].get<std::string>();
      }
    }
    if (reason.empty()) {
      return std::unexpected(ErrorForAnswer(Call::kRead, answer->status, answer->body, what));
    }
    return InvalidArgument("{}: refused: {} (HTTP {})", what, PrintableMessage(reason),
                           answer->status);
  }
  FLOE_ASSIGN_OR_RETURN(auto json, ParseJson(answer->body, what));
  if (!json.is_object() || !json.contains("access_token") || !json["access_token"].is_string() ||
      json["access_token"].get_ref<const std::string&>().empty()) {
    return Corruption("{}: the answer has no access_token", what);
  }
  token_ = json["access_token"].get<std::string>();
  renew_at_.reset();
  expires_at_.reset();
  std::optional<std::chrono::milliseconds> lifetime = ExpiresIn(json);
  if (!lifetime) lifetime = JwtLifetime(token_);
  if (lifetime) {
    expires_at_ = asked_at + *lifetime;
    renew_at_ = *expires_at_ - RenewalMargin(*lifetime);
  }
  return Ok();
}

Result<std::string> RestCatalog::CurrentToken() {
  std::lock_guard lock(token_mu_);
  if (!CanObtainTokens() || !refresh_enabled_ || !renew_at_ || Now() < *renew_at_) return token_;
  const bool expired = Now() >= *expires_at_;
  if (exchange_enabled_ && !exchange_refused_ && !expired) {
    auto exchanged = ObtainToken(Grant::kTokenExchange);
    if (exchanged) return token_;
    // Servers that do not exchange tokens refuse it; ask them no more.
    spdlog::debug("rest catalog '{}': {}; renewing with the client credentials", name_,
                  exchanged.error().message());
    const ErrorCode code = exchanged.error().code();
    if (code != ErrorCode::kIo && code != ErrorCode::kTimedOut) exchange_refused_ = true;
  }
  auto renewed = ObtainToken(Grant::kClientCredentials);
  if (renewed) return token_;
  if (expired) {
    return std::unexpected(std::move(renewed).error().WithContext(
        "the token expired and a new one could not be obtained"));
  }
  // Still valid: used meanwhile; tried again when half its remaining life is gone.
  spdlog::warn("rest catalog '{}': renewing the token failed ({}); trying again later", name_,
               renewed.error().message());
  renew_at_ = Now() + (*expires_at_ - Now()) / 2;
  return token_;
}

Status RestCatalog::RenewRefusedToken(const std::string& refused) {
  std::lock_guard lock(token_mu_);
  // Another call renewed it meanwhile: use that one.
  if (token_ != refused) return Ok();
  // The refused token cannot vouch for an exchange: the client credentials.
  return ObtainToken(Grant::kClientCredentials);
}

Error RestCatalog::AnswerError(Call call, const Answer& answer, std::string_view what) const {
  Error error = ErrorForAnswer(call, answer.status, answer.body, what);
  if (!TokenRefused(answer.status)) return error;
  std::string advice;
  if (CanObtainTokens()) {
    advice = fmt::format(
        "the server refused a token just obtained with the credential of catalog '{}': check "
        "the credential and its scope",
        name_);
  } else if (!options_.token.empty()) {
    advice = fmt::format(
        "the server refused the token of catalog '{}' (expired or revoked?): set a new "
        "'token', or a 'credential' with which floe obtains and renews tokens itself",
        name_);
  } else {
    advice = fmt::format("catalog '{}' sends no token: set a 'token' or a 'credential'", name_);
  }
  return Error(error.code(), fmt::format("{}; {}", error.message(), advice));
}

Status RestCatalog::FetchConfig() {
  std::string url = options_.uri + "/v1/config";
  if (!options_.warehouse.empty()) url += "?warehouse=" + PercentEncode(options_.warehouse);
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("GET", url, ""));
  if (answer.status != 200) {
    return std::unexpected(AnswerError(Call::kRead, answer, "loading the server's config"));
  }
  FLOE_ASSIGN_OR_RETURN(auto json, ParseJson(answer.body, "loading the server's config"));
  if (!json.is_object()) return Corruption("loading the server's config: not a JSON object");
  FLOE_ASSIGN_OR_RETURN(Properties defaults,
                        PropertiesFromJson(json.value("defaults", nlohmann::json()), "config"));
  FLOE_ASSIGN_OR_RETURN(Properties overrides,
                        PropertiesFromJson(json.value("overrides", nlohmann::json()), "config"));
  Properties merged = std::move(defaults);
  for (const auto& [k, v] : options_.properties) merged[k] = v;
  if (!options_.prefix.empty()) merged["prefix"] = options_.prefix;
  for (const auto& [k, v] : overrides) merged[k] = v;
  options_.properties = std::move(merged);
  if (auto it = options_.properties.find("prefix"); it != options_.properties.end()) {
    options_.prefix = TrimSlashes(it->second);
  }
  // Without an `endpoints` list the server is taken to offer what Iceberg
  // Java's RESTSessionCatalog assumes of it (DEFAULT_ENDPOINTS), which
  // includes the multi-table commit.
  if (auto it = json.find("endpoints"); it != json.end() && it->is_array()) {
    transactions_endpoint_ = false;
    for (const auto& endpoint : *it) {
      if (endpoint.is_string() && endpoint.get_ref<const std::string&>() == kTransactionsEndpoint) {
        transactions_endpoint_ = true;
      }
    }
  }
  multi_table_commit_ =
      transactions_endpoint_ && SettingIsNotFalse(options_.properties, kMultiTableCommitSetting);
  if (auto it = options_.properties.find("namespace-separator"); it != options_.properties.end()) {
    // Kept encoded, as sent; it must decode to something.
    FLOE_ASSIGN_OR_RETURN(std::string separator, rest::PercentDecode(it->second));
    if (separator.empty()) return Corruption("the server's namespace-separator is empty");
    separator_ = it->second;
  }
  return Ok();
}

Status RestCatalog::ListPages(const std::string& url, const std::string& query,
                              const std::string& member, const std::string& what,
                              const std::function<Status(const nlohmann::json&)>& each) {
  std::string page_token;
  do {
    std::string page_url = query.empty() ? url : url + "?" + query;
    if (!page_token.empty()) {
      page_url += (query.empty() ? "?pageToken=" : "&pageToken=") + PercentEncode(page_token);
    }
    FLOE_ASSIGN_OR_RETURN(Answer answer, Send("GET", page_url, ""));
    if (answer.status != 200) {
      return std::unexpected(AnswerError(Call::kRead, answer, what));
    }
    FLOE_ASSIGN_OR_RETURN(auto json, ParseJson(answer.body, what));
    if (!json.is_object() || !json.contains(member) || !json[member].is_array()) {
      return Corruption("{}: the answer has no {} array", what, member);
    }
    for (const auto& item : json[member]) FLOE_RETURN_IF_ERROR(each(item));
    page_token = NextPageToken(json);
  } while (!page_token.empty());
  return Ok();
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces(const Namespace& parent) {
  std::vector<Namespace> out;
  std::string what = parent.empty()
                         ? "listing namespaces"
                         : fmt::format("listing namespaces under {}", NamespaceToString(parent));
  std::string query;
  if (!parent.empty()) query = "parent=" + rest::EncodeNamespace(parent, separator_);
  FLOE_RETURN_IF_ERROR(ListPages(
      Url("namespaces"), query, "namespaces", what, [&](const nlohmann::json& item) -> Status {
        FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFromJson(item, what));
        out.push_back(std::move(ns));
        return Ok();
      }));
  return out;
}

Status RestCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  for (const auto& level : ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace"));
  if (ns.empty()) return InvalidArgument("cannot create an empty namespace");
  nlohmann::json body = {{"namespace", ns}, {"properties", properties}};
  std::string what = fmt::format("creating namespace {}", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("POST", Url("namespaces"), DumpJson(body)));
  if (answer.status != 200) {
    return std::unexpected(AnswerError(Call::kCreate, answer, what));
  }
  return Ok();
}

Result<Properties> RestCatalog::LoadNamespaceProperties(const Namespace& ns) {
  std::string what = fmt::format("loading namespace {}", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("GET", Url(NamespacePath(ns)), ""));
  if (answer.status != 200) {
    return std::unexpected(AnswerError(Call::kRead, answer, what));
  }
  FLOE_ASSIGN_OR_RETURN(auto json, ParseJson(answer.body, what));
  if (!json.is_object()) return Corruption("{}: not a JSON object", what);
  return PropertiesFromJson(json.value("properties", nlohmann::json()), what);
}

Status RestCatalog::UpdateNamespaceProperties(const Namespace& ns,
                                              const std::vector<std::string>& removals,
                                              const Properties& updates) {
  std::string what = fmt::format("updating the properties of namespace {}", NamespaceToString(ns));
  nlohmann::json body = {{"removals", removals}, {"updates", updates}};
  FLOE_ASSIGN_OR_RETURN(Answer answer,
                        Send("POST", Url(NamespacePath(ns) + "/properties"), DumpJson(body)));
  if (answer.status != 200) {
    return std::unexpected(AnswerError(Call::kOther, answer, what));
  }
  return Ok();
}

Status RestCatalog::DropNamespace(const Namespace& ns) {
  std::string what = fmt::format("dropping namespace {}", NamespaceToString(ns));
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("DELETE", Url(NamespacePath(ns)), ""));
  if (answer.status != 204 && answer.status != 200) {
    return std::unexpected(AnswerError(Call::kDropNamespace, answer, what));
  }
  return Ok();
}

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) {
  std::vector<TableIdentifier> out;
  std::string what = fmt::format("listing the tables of namespace {}", NamespaceToString(ns));
  FLOE_RETURN_IF_ERROR(ListPages(
      Url(NamespacePath(ns) + "/tables"), "", "identifiers", what,
      [&](const nlohmann::json& item) -> Status {
        if (!item.is_object() || !item.contains("name") || !item["name"].is_string() ||
            !item.contains("namespace")) {
          return Corruption("{}: a table identifier lacks its namespace or name", what);
        }
        FLOE_ASSIGN_OR_RETURN(Namespace table_ns, NamespaceFromJson(item["namespace"], what));
        out.push_back(TableIdentifier{std::move(table_ns), item["name"].get<std::string>()});
        return Ok();
      }));
  return out;
}

Result<bool> RestCatalog::TableExists(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("HEAD", Url(TablePath(id)), ""));
  if (answer.status == 204 || answer.status == 200) return true;
  if (answer.status == 404) return false;
  return std::unexpected(
      AnswerError(Call::kRead, answer, fmt::format("checking table {}", id.ToString())));
}

Result<LoadedTable> RestCatalog::ParseLoadResult(const TableIdentifier& id, std::string_view body) {
  std::string what = fmt::format("table {}", id.ToString());
  FLOE_ASSIGN_OR_RETURN(auto json, ParseJson(body, what));
  if (!json.is_object() || !json.contains("metadata") || !json["metadata"].is_object()) {
    return Corruption("{}: the server's answer has no metadata", what);
  }
  LoadedTable loaded;
  loaded.id = id;
  if (json.contains("metadata-location") && json["metadata-location"].is_string()) {
    loaded.metadata_location = json["metadata-location"].get<std::string>();
  }
  auto metadata = TableMetadataFromJson(json["metadata"]);
  if (!metadata) {
    return std::unexpected(std::move(metadata).error().WithContext(
        fmt::format("{}: the metadata the server sent", what)));
  }
  loaded.metadata = std::move(*metadata);
  FLOE_RETURN_IF_ERROR(UseStorageSettings(json, loaded.metadata.location, what));
  return loaded;
}

Status RestCatalog::UseStorageSettings(const nlohmann::json& answer, const std::string& location,
                                       std::string_view what) {
  auto* resolving = dynamic_cast<io::ResolvingFileIO*>(io_);
  if (resolving == nullptr) return Ok();
  // Only storage settings make a FileIO of their own (docs/s3.md).
  auto storage = [](Properties all) {
    std::erase_if(all, [](const auto& kv) {
      return !kv.first.starts_with("s3.") && !kv.first.starts_with("client.");
    });
    return all;
  };
  if (auto it = answer.find("config"); it != answer.end()) {
    FLOE_ASSIGN_OR_RETURN(Properties config, PropertiesFromJson(*it, what));
    resolving->SetLocationProperties(location, storage(std::move(config)));
  }
  if (auto it = answer.find("storage-credentials"); it != answer.end() && it->is_array()) {
    for (const auto& credential : *it) {
      if (!credential.is_object() || !credential.contains("prefix") ||
          !credential["prefix"].is_string() || !credential.contains("config")) {
        return Corruption("{}: a storage credential lacks its prefix or config", what);
      }
      FLOE_ASSIGN_OR_RETURN(Properties config, PropertiesFromJson(credential["config"], what));
      resolving->SetLocationProperties(credential["prefix"].get<std::string>(),
                                       storage(std::move(config)));
    }
  }
  return Ok();
}

Result<LoadedTable> RestCatalog::CreateTable(const TableIdentifier& id, TableMetadata metadata) {
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  std::string what = fmt::format("creating table {}", id.ToString());
  if (!metadata.snapshots.empty()) {
    return NotSupported("{}: the REST catalog creates tables without snapshots", what);
  }
  const types::Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("{}: the metadata has no current schema", what);
  nlohmann::ordered_json body;
  body["name"] = id.name;
  if (!metadata.location.empty()) body["location"] = metadata.location;
  body["schema"] = types::SchemaToJson(*schema);
  if (const PartitionSpec* spec = metadata.DefaultSpec()) {
    body["partition-spec"] = PartitionSpecToJsonValue(*spec);
  }
  if (const SortOrder* order = metadata.SortOrderById(metadata.default_sort_order_id)) {
    body["write-order"] = SortOrderToJsonValue(*order);
  }
  Properties properties = metadata.properties;
  properties[std::string(table_properties::kFormatVersion)] =
      std::to_string(metadata.format_version);
  body["properties"] = properties;
  body["stage-create"] = false;
  FLOE_ASSIGN_OR_RETURN(Answer answer,
                        Send("POST", Url(NamespacePath(id.ns) + "/tables"), DumpJson(body)));
  if (answer.status != 200) {
    return std::unexpected(AnswerError(Call::kCreate, answer, what));
  }
  return ParseLoadResult(id, answer.body);
}

Result<LoadedTable> RestCatalog::LoadTable(const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("GET", Url(TablePath(id)), ""));
  if (answer.status != 200) {
    return std::unexpected(
        AnswerError(Call::kRead, answer, fmt::format("loading table {}", id.ToString())));
  }
  return ParseLoadResult(id, answer.body);
}

Result<LoadedTable> RestCatalog::RegisterTable(const TableIdentifier& id,
                                               const std::string& metadata_location,
                                               bool overwrite) {
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  std::string what = fmt::format("registering table {} at {}{}", id.ToString(),
                                 io::RedactUri(metadata_location), overwrite ? " (overwrite)" : "");
  if (metadata_location.empty()) return InvalidArgument("{}: no metadata location", what);
  nlohmann::json body = {{"name", id.name}, {"metadata-location", metadata_location}};
  // Sent only when asked for, as Iceberg Java does: servers before the
  // flag existed refuse unknown members.
  if (overwrite) body["overwrite"] = true;
  FLOE_ASSIGN_OR_RETURN(Answer answer,
                        Send("POST", Url(NamespacePath(id.ns) + "/register"), DumpJson(body)));
  if (answer.status != 200) {
    Error error = AnswerError(Call::kCreate, answer, what);
    if (overwrite && error.code() == ErrorCode::kNotSupported) {
      error.AddContext(
          fmt::format("the server of catalog '{}' cannot overwrite a table by "
                      "registering (drop it without purge, then register)",
                      name_));
    }
    return std::unexpected(std::move(error));
  }
  return ParseLoadResult(id, answer.body);
}

Result<RestCatalog::Answer> RestCatalog::SendCommit(const std::string& url,
                                                    const nlohmann::ordered_json& body,
                                                    long success, std::string_view what) {
  bool token_failed = false;
  auto answer = Send("POST", url, DumpJson(body), &token_failed);
  if (!answer) {
    // Without a token the commit was not sent.
    if (token_failed || NothingSent(answer.error())) {
      return std::unexpected(std::move(answer).error().WithContext(what));
    }
    return CommitStateUnknown(
        "{}: no answer from the server, the commit may or may not have "
        "happened: {}",
        what, answer.error().message());
  }
  if (answer->status != success) {
    return std::unexpected(AnswerError(Call::kCommit, *answer, what));
  }
  return answer;
}

Result<LoadedTable> RestCatalog::CommitTable(const LoadedTable& base, TableMetadata updated) {
  std::string what = fmt::format("committing table {}", base.id.ToString());
  auto changes = rest::DiffForCommit(base.metadata, updated);
  if (!changes) return std::unexpected(std::move(changes).error().WithContext(what));
  nlohmann::ordered_json body = rest::CommitRequestJson(base.id, *changes, updated.format_version);
  auto answer = SendCommit(Url(TablePath(base.id)), body, 200, what);
  if (!answer) return std::unexpected(std::move(answer).error());
  auto loaded = ParseLoadResult(base.id, answer->body);
  if (!loaded) {
    // The server answered 200: the commit happened, but its answer is unusable.
    return CommitStateUnknown("{}: the commit was accepted but its answer is unreadable: {}", what,
                              loaded.error().message());
  }
  return loaded;
}

Result<std::vector<LoadedTable>> RestCatalog::CommitTables(std::vector<TableCommit> commits) {
  std::string names;
  for (const TableCommit& commit : commits) {
    names += names.empty() ? "" : ", ";
    names += commit.base->id.ToString();
  }
  std::string what = fmt::format("committing tables {} in one transaction", names);
  if (!SupportsMultiTableCommit()) {
    return NotSupported("{}: catalog '{}' does not commit several tables at once ({})", what, name_,
                        transactions_endpoint_ ? "turned off by its multi-table-commit setting"
                                               : "the server does not offer it");
  }
  nlohmann::ordered_json body;
  body["table-changes"] = nlohmann::ordered_json::array();
  for (const TableCommit& commit : commits) {
    auto changes = rest::DiffForCommit(commit.base->metadata, commit.updated);
    if (!changes) {
      return std::unexpected(std::move(changes).error().WithContext(
          fmt::format("{}: table {}", what, commit.base->id.ToString())));
    }
    body["table-changes"].push_back(
        rest::CommitRequestJson(commit.base->id, *changes, commit.updated.format_version));
  }
  FLOE_RETURN_IF_ERROR(SendCommit(Url("transactions/commit"), body, 204, what));
  // The answer has no body: the tables as the server committed them are
  // loaded. The commit has happened; a table that cannot be loaded now
  // leaves its state to be found by reloading (kCommitStateUnknown).
  std::vector<LoadedTable> out;
  out.reserve(commits.size());
  for (const TableCommit& commit : commits) {
    auto loaded = LoadTable(commit.base->id);
    if (!loaded) {
      return CommitStateUnknown("{}: committed, but loading table {} afterwards failed: {}", what,
                                commit.base->id.ToString(), loaded.error().message());
    }
    out.push_back(std::move(*loaded));
  }
  return out;
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_IF_ERROR(ValidateName(to.name, "table"));
  std::string what = fmt::format("renaming table {} to {}", from.ToString(), to.ToString());
  nlohmann::json body = {{"source", {{"namespace", from.ns}, {"name", from.name}}},
                         {"destination", {{"namespace", to.ns}, {"name", to.name}}}};
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("POST", Url("tables/rename"), DumpJson(body)));
  if (answer.status != 204 && answer.status != 200) {
    return std::unexpected(AnswerError(Call::kCreate, answer, what));
  }
  return Ok();
}

Status RestCatalog::DropTable(const TableIdentifier& id, bool purge) {
  std::string url = Url(TablePath(id));
  if (purge) url += "?purgeRequested=true";
  FLOE_ASSIGN_OR_RETURN(Answer answer, Send("DELETE", url, ""));
  if (answer.status != 204 && answer.status != 200) {
    return std::unexpected(
        AnswerError(Call::kOther, answer, fmt::format("dropping table {}", id.ToString())));
  }
  return Ok();
}

std::string RestCatalog::DefaultTableLocation(const TableIdentifier& id) {
  if (auto properties = LoadNamespaceProperties(id.ns)) {
    if (auto it = properties->find("location"); it != properties->end() && !it->second.empty()) {
      std::string location = it->second;
      while (location.ends_with('/')) location.pop_back();
      return location + "/" + id.name;
    }
  }
  // Only a warehouse that is a local path or file:// URI names a place; any
  // other value is the server's business (a warehouse name, an s3:// URI).
  const std::string& warehouse = options_.warehouse;
  if (!warehouse.starts_with("/") && !warehouse.starts_with("file:/")) return {};
  std::string location = warehouse;
  while (location.ends_with('/')) location.pop_back();
  for (const auto& level : id.ns) location += "/" + level;
  return location + "/" + id.name;
}

}  // namespace floe::iceberg
