// Fuzzes RestCatalog's handling of server answers (floe/iceberg/catalog/
// rest_catalog.h): the input is the script of a server that answers every
// request the catalog sends — opening (an OAuth2 token, the config), then
// listing, loading, creating, committing, renaming and dropping — with the
// next answer of the script. An answer is one byte choosing the status (or a
// failed transfer), two bytes of body length (little-endian) and the body;
// when the script runs out, requests fail as if the server went away.
// Nothing may crash, hang or over-read; errors are fine. No error message
// may carry the bearer token or the credential's secret unless the server's
// answers themselves held it (an echo is the server's leak, not floe's).
// Seeds and crash regressions: tests/fuzz/rest_catalog/ (made by
// tests/fuzz/rest_catalog/make_seeds.py).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/iceberg/catalog/rest_catalog.h"
#include "floe/io/resolving_file_io.h"

namespace {

using floe::Result;
using floe::Status;
using floe::fuzz::Check;
using floe::io::s3::HttpRequest;
using floe::io::s3::HttpResponse;
namespace iceberg = floe::iceberg;

constexpr std::string_view kToken = "tok-7f3e9a1c55d04b2e";
constexpr std::string_view kSecret = "sec-0b8d4e6f2a9c7135";

// Statuses a server sends; the last two bytes of the range fail the
// transfer instead (a timeout, a reset).
constexpr long kStatuses[] = {200, 200, 200, 200, 204, 400, 401, 403, 404,
                              406, 409, 419, 422, 429, 500, 502, 503, 504};

class ScriptTransport final : public floe::io::s3::HttpTransport {
 public:
  explicit ScriptTransport(std::string_view script) : script_(script) {}

  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::lock_guard lock(mu_);
    (void)request;
    if (script_.size() < 3) return floe::IoError("the server went away");
    const auto choice = static_cast<uint8_t>(script_[0]);
    const size_t length = static_cast<uint8_t>(script_[1]) |
                          (static_cast<size_t>(static_cast<uint8_t>(script_[2])) << 8);
    script_.remove_prefix(3);
    std::string_view body = script_.substr(0, length);
    script_.remove_prefix(body.size());
    constexpr size_t kCount = sizeof(kStatuses) / sizeof(kStatuses[0]);
    const size_t pick = choice % (kCount + 2);
    if (pick == kCount) return floe::TimedOut("no answer in time");
    if (pick == kCount + 1) return floe::IoError("connection reset");
    HttpResponse response;
    response.status = kStatuses[pick];
    response.body.assign(body);
    return response;
  }

 private:
  std::mutex mu_;
  std::string_view script_;
};

// Whether the server's answers hold a secret (then messages may too).
bool g_answers_hold_secret = false;

// Traps if an error leaks a secret; returns whether `result` is ok.
template <typename T>
bool Ok(const T& result) {
  if (result) return true;
  if (g_answers_hold_secret) return false;
  const std::string text = result.error().ToString();
  Check(text.find(kToken) == std::string::npos);
  Check(text.find(kSecret) == std::string::npos);
  return false;
}

iceberg::TableMetadata SmallTable() {
  iceberg::TableMetadata m;
  m.format_version = 2;
  m.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  m.location = "s3://bucket/db/t";
  m.last_column_id = 1;
  m.schemas.push_back(floe::types::Schema(
      {floe::types::NestedField{1, "id", true, floe::types::Type::Long(), ""}}, 0));
  m.current_schema_id = 0;
  m.partition_specs.push_back(iceberg::PartitionSpec());
  m.sort_orders.push_back(iceberg::SortOrder());
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  // The first byte: which way to authenticate.
  const uint8_t auth = static_cast<uint8_t>(input[0]);
  input.remove_prefix(1);
  // The random part of a secret is enough: a message may print a byte
  // before it as an escape ("\\t" then "ok-..." reads "tok-...").
  g_answers_hold_secret = input.find(kToken.substr(4)) != std::string_view::npos ||
                          input.find(kSecret.substr(4)) != std::string_view::npos;
  auto transport = std::make_shared<ScriptTransport>(input);
  floe::io::ResolvingFileIO io({}, nullptr);
  iceberg::RestCatalogOptions options;
  options.uri = "http://127.0.0.1:1";
  options.warehouse = "wh";
  options.retry.base_backoff = std::chrono::milliseconds(0);  // retries without waiting
  if (auth & 1) options.token = std::string(kToken);
  if (auth & 2) options.credential = "client:" + std::string(kSecret);
  auto opened = iceberg::RestCatalog::Open("fuzz", options, &io, transport);
  if (!Ok(opened)) return 0;
  iceberg::RestCatalog& catalog = **opened;
  const iceberg::Namespace ns{"db"};
  const iceberg::TableIdentifier id{ns, "t"};

  Ok(catalog.ListNamespaces());
  Ok(catalog.ListNamespaces(ns));
  Ok(catalog.CreateNamespace(ns, {{"owner", "floe"}}));
  Ok(catalog.LoadNamespaceProperties(ns));
  Ok(catalog.UpdateNamespaceProperties(ns, {"gone"}, {{"k", "v"}}));
  Ok(catalog.ListTables(ns));
  Ok(catalog.TableExists(id));
  (void)catalog.DefaultTableLocation(id);
  auto created = catalog.CreateTable(id, SmallTable());
  if (Ok(created)) Check(!created->metadata.schemas.empty());
  auto loaded = catalog.LoadTable(id);
  if (Ok(loaded)) {
    iceberg::TableMetadata updated = loaded->metadata;
    updated.properties["floe.fuzz"] = "1";
    Ok(catalog.CommitTable(*loaded, std::move(updated)));
  }
  Ok(catalog.RenameTable(id, iceberg::TableIdentifier{ns, "u"}));
  Ok(catalog.DropTable(id, /*purge=*/true));
  Ok(catalog.DropNamespace(ns));
  return 0;
}
