#pragma once
/// The pieces of the Iceberg REST catalog protocol that need no network:
/// URL encoding of namespaces, the requirements and updates of a commit
/// derived from two versions of a table's metadata, and the mapping of an
/// HTTP error answer to floe's error codes. RestCatalog (rest_catalog.h)
/// sends what these build. The protocol is Iceberg's OpenAPI spec,
/// `open-api/rest-catalog-open-api.yaml`; see docs/catalogs.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/update/table_requirement.h"
#include "floe/iceberg/update/table_update.h"

namespace floe::iceberg::rest {

/// The separator of namespace levels in a URL, percent-encoded, when the
/// server's config does not name another: the unit separator 0x1F. A
/// server's `namespace-separator` is taken as it comes, already encoded
/// (Iceberg's own server sends "%2E", a dot).
inline constexpr std::string_view kDefaultNamespaceSeparator = "%1F";

/// Percent-encodes everything but RFC 3986's unreserved characters
/// (A-Z a-z 0-9 - . _ ~), as a path segment or query value.
std::string PercentEncode(std::string_view text);
/// Decodes %XX escapes ('+' stays '+'). kInvalidArgument for a bad escape.
Result<std::string> PercentDecode(std::string_view text);

/// One path segment (or `parent` query value) for a namespace: each level
/// percent-encoded, joined by `encoded_separator` ("a%1Fb" for {"a", "b"}).
std::string EncodeNamespace(const Namespace& ns,
                            std::string_view encoded_separator = kDefaultNamespaceSeparator);

/// What a commit sends: the requirements the server checks against the
/// table's current metadata, and the updates it then applies.
struct CommitChanges {
  std::vector<TableRequirement> requirements;
  std::vector<TableUpdate> updates;
};

/// The requirements and updates that turn `base` into `updated`.
///
/// Requirements: the table's uuid and the snapshot `main` points at (or that
/// it has none) are always asserted, so a commit conflicts with any commit
/// that moved `main` meanwhile, as the SQL catalog's pointer swap does; each
/// other ref this commit moves, the last assigned field and partition ids
/// when schemas or specs are added, and the current schema, default spec and
/// default sort order when they change.
///
/// Updates, in the order the server applies them: upgrade-format-version,
/// add-schema, set-current-schema, add-spec, set-default-spec,
/// add-sort-order, set-default-sort-order, set-location, set-properties,
/// remove-properties, add-snapshot (oldest first), remove-snapshot-ref,
/// remove-snapshots, set-snapshot-ref, set/remove-statistics,
/// set/remove-partition-statistics, remove-schemas, remove-partition-specs.
/// A schema, spec or sort order made current in the same commit is named
/// by -1 ("the one added last") when it was added last, since the server
/// may number it differently.
///
/// Errors: kInvalidArgument if the uuid differs; kNotSupported for changes
/// the REST client does not send yet (encryption keys).
Result<CommitChanges> DiffForCommit(const TableMetadata& base, const TableMetadata& updated);

/// The JSON body of a commit (CommitTableRequest) for table `id`.
nlohmann::ordered_json CommitRequestJson(const TableIdentifier& id, const CommitChanges& changes,
                                         int format_version);

/// The `exp` claim of a token that is a JWT (three base64url parts, the
/// second a JSON object with an integer `exp`): when it expires, in seconds
/// since the Unix epoch. nullopt for any other token (not a JWT, no `exp`,
/// bad base64 or JSON), as Iceberg Java's OAuth2Util.expiresAtMillis.
std::optional<int64_t> JwtExpiresAt(std::string_view token);

/// What kind of call failed, for the error mapping.
enum class Call {
  kRead,           ///< loads, lists, config
  kCreate,         ///< 409 means "already exists"
  kDropNamespace,  ///< 409 means "not empty"
  kCommit,         ///< 409 means conflict; 5xx means the state is unknown
  kOther,
};

/// The error for a non-2xx answer: the code follows the status (400, 422
/// kInvalidArgument; 401, 403, 419 kInvalidArgument saying authorization
/// failed; 404 kNotFound; 406, 501 kNotSupported; 409 per `call`; 429 and
/// 5xx kIo, except for kCommit, where any 5xx is kCommitStateUnknown). The
/// message is "`what`: <server's message> (HTTP <status> <error type>)", the
/// server's message taken from its ErrorModel JSON (or the start of the body
/// when it is not JSON), never a stack trace.
Error ErrorForAnswer(Call call, long status, std::string_view body, std::string_view what);

}  // namespace floe::iceberg::rest
