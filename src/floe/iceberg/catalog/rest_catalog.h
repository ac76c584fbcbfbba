#pragma once
/// A catalog behind an Iceberg REST catalog server (Polaris, Nessie,
/// Lakekeeper, Unity, Iceberg's own test server, ...), after Iceberg's REST
/// OpenAPI spec (`open-api/rest-catalog-open-api.yaml`). The server decides
/// commits: floe sends the requirements it based a change on and the
/// updates that make it (rest_protocol.h); the server checks, applies and
/// writes the metadata file. See docs/catalogs.md.
///
/// Opening fetches `GET /v1/config?warehouse=...`: the server's defaults,
/// then floe's settings, then the server's overrides make the settings used
/// (`prefix`, `namespace-separator`, and the `s3.*` storage settings when the
/// FileIO is an io::ResolvingFileIO, see catalog_config.h). Every later call
/// goes to `<uri>/v1/<prefix>/...`. A table's load result may carry storage
/// settings of its own (`config`, `storage-credentials`: vended keys); they
/// apply to the table's files, as in PyIceberg (docs/s3.md).
///
/// Errors name the table or namespace and carry the server's message
/// (rest::ErrorForAnswer). A commit answered 409 is kCommitConflict; a
/// commit answered 5xx, or sent without a complete answer (timeout, reset),
/// is kCommitStateUnknown: reload the table and look for the change. The
/// bearer token and the credential are never put in a message or a log.
///
/// Tokens (docs/catalogs.md, "Tokens"): a token obtained with the
/// `credential` is renewed before it expires, when its answer gave
/// `expires_in` or the token is a JWT with an `exp` claim (at the lifetime
/// minus a tenth of it, at most 5 minutes early), by a token exchange of
/// the current token, else with the client
/// credentials; a call answered 401 or 419 while a credential is set gets a
/// new token (client credentials) and is sent once more. A fixed `token` is
/// never renewed: its refusal is an error naming the catalog.
///
/// Thread-safe: the settings are fixed after Open, the token is guarded by a
/// mutex (one renewal at a time; other calls wait for it), and the
/// transport is thread-safe.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "floe/iceberg/catalog.h"
#include "floe/iceberg/catalog/rest_protocol.h"
#include "floe/io/s3/http.h"
#include "floe/io/s3/s3_options.h"

namespace floe::iceberg {

struct RestCatalogOptions {
  /// The server's base URI, e.g. "http://127.0.0.1:9181" (no "/v1"). Required.
  std::string uri;
  /// Sent to `GET /v1/config` as `warehouse`; what it means is the server's
  /// (a location, or the name of a warehouse). Optional.
  std::string warehouse;
  /// A bearer token sent as `Authorization: Bearer <token>`. Optional.
  /// Used as it is until the server refuses it; then, with a `credential`,
  /// a new one is obtained, else the call fails (kInvalidArgument naming the
  /// catalog and saying to set a new token or a credential).
  std::string token;
  /// OAuth2 client credentials "client_id:client_secret" (or a secret
  /// alone), exchanged for a token (`grant_type=client_credentials`) at
  /// `oauth2_server_uri` (default `<uri>/v1/oauth/tokens`) with `scope`
  /// (default "catalog"): at Open when `token` is empty, and whenever the
  /// server refuses the token in use. Tokens it gives are renewed before
  /// they expire (see above). The settings `token-refresh-enabled: false`
  /// (no renewal before expiry) and `token-exchange-enabled: false` (renew
  /// with the client credentials only) in `properties` are Iceberg Java's.
  std::string credential;
  std::string oauth2_server_uri;
  std::string scope = "catalog";
  /// The clock token lifetimes are measured on; null is
  /// std::chrono::steady_clock::now (tests pass their own).
  std::function<std::chrono::steady_clock::time_point()> clock;
  /// The wall clock a JWT's `exp` claim is compared with; null is
  /// std::chrono::system_clock::now (tests pass their own).
  std::function<std::chrono::system_clock::time_point()> wall_clock;
  /// The path prefix; the server's config may set or override it.
  std::string prefix;
  /// Every other setting of the catalog's entry, sent nowhere; the server's
  /// config defaults and overrides are merged into it.
  Properties properties;
  /// Attempts of one request. Reads (GET, HEAD) are sent again after 429,
  /// 502, 503, 504 or a failed transfer; other requests only after 429 or
  /// when the server was never reached (a commit whose answer was lost is
  /// not sent again: see CommitTable). Full-jitter exponential backoff.
  io::s3::RetryPolicy retry{.max_attempts = 6,
                            .base_backoff = std::chrono::milliseconds(100),
                            .max_backoff = std::chrono::milliseconds(5'000)};
};

class RestCatalog final : public Catalog {
 public:
  /// Connects: obtains a token when `credential` is given, then fetches the
  /// server's config. `transport` may be null (a libcurl transport is made);
  /// `file_io` must outlive the catalog. Errors: kInvalidArgument for a
  /// missing or malformed `uri` or refused credentials; kIo/kTimedOut when
  /// the server does not answer; the server's error otherwise.
  static Result<std::unique_ptr<RestCatalog>> Open(
      std::string name, RestCatalogOptions options, io::FileIO* file_io,
      std::shared_ptr<io::s3::HttpTransport> transport = nullptr);

  const std::string& name() const override { return name_; }
  io::FileIO& file_io() override { return *io_; }

  /// The settings in force after the server's config (tests).
  const Properties& properties() const { return options_.properties; }
  const std::string& prefix() const { return options_.prefix; }
  /// Percent-encoded, e.g. "%1F".
  const std::string& namespace_separator() const { return separator_; }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) override;
  Status CreateNamespace(const Namespace& ns, const Properties& properties = {}) override;
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const std::vector<std::string>& removals,
                                   const Properties& updates) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<bool> TableExists(const TableIdentifier& id) override;
  /// The server creates the table from the metadata's current schema,
  /// default spec, default sort order, properties (with `format-version`)
  /// and location (the server's default when empty), and may renumber
  /// field ids as Iceberg Java does; the result holds the server's
  /// metadata. kNotSupported if `metadata` already has snapshots.
  Result<LoadedTable> CreateTable(const TableIdentifier& id, TableMetadata metadata) override;
  Result<LoadedTable> LoadTable(const TableIdentifier& id) override;
  /// `POST /v1/{prefix}/namespaces/{ns}/register` with the table's name and
  /// `metadata_location`; the server reads the file and makes the table (it
  /// must be able to read that location). The result holds the server's
  /// metadata. Errors: the server's, mapped as for CreateTable (409
  /// kAlreadyExists, 404 kNotFound for a missing namespace or file).
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location,
                                    bool overwrite = false) override;
  /// Sends rest::DiffForCommit(base.metadata, updated); the result holds the
  /// metadata the server wrote.
  Result<LoadedTable> CommitTable(const LoadedTable& base, TableMetadata updated) override;
  /// Whether the server's config lists `POST /v1/{prefix}/transactions/commit`
  /// in its `endpoints` (or has no such list: Iceberg Java then assumes it),
  /// and the setting `multi-table-commit` is not `false`.
  bool SupportsMultiTableCommit() const override { return multi_table_commit_; }
  /// `POST /v1/{prefix}/transactions/commit` with one CommitTableRequest
  /// (identifier, requirements, updates: rest::DiffForCommit) per table. The
  /// server answers 204 without a body, so the tables are loaded after it.
  /// Outcomes as for CommitTable: 409 kCommitConflict, 5xx or a lost answer
  /// kCommitStateUnknown; a table that cannot be loaded after the commit is
  /// kCommitStateUnknown too (the commit happened; reloading tells).
  Result<std::vector<LoadedTable>> CommitTables(std::vector<TableCommit> commits) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  /// The server drops the table; with `purge` it is asked to delete its
  /// files too (`purgeRequested=true`).
  Status DropTable(const TableIdentifier& id, bool purge) override;
  /// `<namespace location>/<table>` when the namespace has a `location`
  /// property, else `<warehouse>/<levels...>/<table>` for a warehouse that
  /// is an absolute local path or file:// URI, else empty (the server
  /// chooses at CreateTable).
  std::string DefaultTableLocation(const TableIdentifier& id) override;

 private:
  RestCatalog(std::string name, RestCatalogOptions options, io::FileIO* io,
              std::shared_ptr<io::s3::HttpTransport> transport);

  struct Answer {
    long status = 0;
    std::string body;
  };
  /// Sends a call of the catalog to `url` with the current token (renewed
  /// first when due); answered 401 or 419 while tokens can be obtained with
  /// the credential, gets a new token and sends the call once more. On
  /// failure, `*token_failed` (when given) says whether obtaining a token
  /// failed: the call was then not sent, or refused when it was.
  Result<Answer> Send(std::string_view method, const std::string& url, const std::string& body,
                      bool* token_failed = nullptr);
  /// Sends one request with `bearer` (none when empty) as its token, with
  /// the retries of RestCatalogOptions::retry.
  Result<Answer> Exchange(std::string_view method, const std::string& url, const std::string& body,
                          std::string_view content_type, const std::string& bearer);
  /// The error for a failed answer (rest::ErrorForAnswer); a refused token
  /// (401, 419) also says what to change in the catalog's settings.
  Error AnswerError(rest::Call call, const Answer& answer, std::string_view what) const;
  std::string Url(std::string_view path) const;
  /// POSTs a commit `body` to `url`: the answer when its status is
  /// `success`; kCommitStateUnknown when it was sent and no answer came;
  /// the error for the answer otherwise (rest::ErrorForAnswer, kCommit).
  Result<Answer> SendCommit(const std::string& url, const nlohmann::ordered_json& body,
                            long success, std::string_view what);
  /// GETs `url` (with `query`, e.g. "parent=a", when not empty) page after
  /// page (pageToken) and calls `each` on every element of the answers'
  /// array `member`. Errors: the server's error for a failed GET, kCorruption
  /// for an answer without the array, or the first error of `each`.
  Status ListPages(const std::string& url, const std::string& query, const std::string& member,
                   const std::string& what,
                   const std::function<Status(const nlohmann::json&)>& each);
  std::string NamespacePath(const Namespace& ns) const;
  std::string TablePath(const TableIdentifier& id) const;
  Result<LoadedTable> ParseLoadResult(const TableIdentifier& id, std::string_view body);
  /// When the FileIO is an io::ResolvingFileIO: the storage settings (s3.*,
  /// client.*) of a load-table answer's `config` apply to the table's
  /// location, those of its `storage-credentials` to their prefixes.
  Status UseStorageSettings(const nlohmann::json& answer, const std::string& location,
                            std::string_view what);
  /// How a token is asked for at the token endpoint.
  enum class Grant {
    kClientCredentials,  ///< with the credential
    kTokenExchange,      ///< the current token for a new one (RFC 8693)
  };
  /// Asks for a token and makes it current, with its renewal time when the
  /// answer has `expires_in`, else when the token is a JWT with an `exp`
  /// claim. Called with token_mu_ held.
  Status ObtainToken(Grant grant);
  /// The time `token` has left by its JWT `exp` claim, or nullopt (not a JWT,
  /// no claim, or already expired by the wall clock).
  std::optional<std::chrono::milliseconds> JwtLifetime(const std::string& token) const;
  /// The token to send (empty: none), renewed first when its renewal time
  /// has come. Takes token_mu_.
  Result<std::string> CurrentToken();
  /// After `refused` was refused: a new token from the credential, unless
  /// another call renewed it meanwhile. Takes token_mu_.
  Status RenewRefusedToken(const std::string& refused);
  /// Whether tokens can be obtained (a credential is set).
  bool CanObtainTokens() const { return !options_.credential.empty(); }
  std::chrono::steady_clock::time_point Now() const;
  Status FetchConfig();

  std::string name_;
  RestCatalogOptions options_;
  io::FileIO* io_;
  std::shared_ptr<io::s3::HttpTransport> transport_;
  std::string separator_;
  bool refresh_enabled_ = true;   ///< `token-refresh-enabled`
  bool exchange_enabled_ = true;  ///< `token-exchange-enabled`
  /// The server offers `POST /v1/{prefix}/transactions/commit`.
  bool transactions_endpoint_ = true;
  /// ... and the `multi-table-commit` setting does not turn it off.
  bool multi_table_commit_ = false;

  std::mutex token_mu_;
  std::string token_;  ///< sent as the bearer token; empty: none
  /// When to renew token_ (a token with a known lifetime), and when it expires.
  std::optional<std::chrono::steady_clock::time_point> renew_at_, expires_at_;
  /// The server refused a token exchange once: renew with the client credentials.
  bool exchange_refused_ = false;
};

}  // namespace floe::iceberg
