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
/// Thread-safe: the settings are fixed after Open and the transport is
/// thread-safe.

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "floe/iceberg/catalog.h"
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
  std::string token;
  /// OAuth2 client credentials "client_id:client_secret" (or a secret
  /// alone), exchanged once at Open for a token at `oauth2_server_uri`
  /// (default `<uri>/v1/oauth/tokens`) with `scope` (default "catalog").
  /// Ignored when `token` is set. The token is not refreshed yet.
  std::string credential;
  std::string oauth2_server_uri;
  std::string scope = "catalog";
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
  /// Sends rest::DiffForCommit(base.metadata, updated); the result holds the
  /// metadata the server wrote.
  Result<LoadedTable> CommitTable(const LoadedTable& base, TableMetadata updated) override;
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
  /// Sends one request to `<uri>/v1/<prefix>/<path>` (or `absolute_url`).
  Result<Answer> Send(std::string_view method, const std::string& url, const std::string& body,
                      std::string_view content_type = "application/json");
  std::string Url(std::string_view path) const;
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
  Status FetchToken();
  Status FetchConfig();

  std::string name_;
  RestCatalogOptions options_;
  io::FileIO* io_;
  std::shared_ptr<io::s3::HttpTransport> transport_;
  std::string separator_;
};

}  // namespace floe::iceberg
