// RestCatalog against a scripted transport: the requests it builds (URLs,
// namespace encoding, commit requirements and updates from a metadata diff),
// and how it maps the server's answers to error codes. The real server is
// exercised by tests/interop/iceberg/test_rest_catalog.py.

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <mutex>
#include <optional>

#include "floe/common/base64.h"
#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/iceberg/catalog/rest_catalog.h"
#include "floe/iceberg/catalog/rest_protocol.h"
#include "floe/iceberg/json/metadata_json.h"

namespace floe::iceberg {
namespace {

using io::s3::HttpRequest;
using io::s3::HttpResponse;

/// Answers requests from a queue of scripted answers, recording each request.
class ScriptedTransport : public io::s3::HttpTransport {
 public:
  struct Seen {
    std::string method, url, body;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string Header(std::string_view name) const {
      for (const auto& [k, v] : headers) {
        if (k == name) return v;
      }
      return "";
    }
  };
  void Answer(long status, std::string body) {
    answers_.push_back([=](const HttpRequest&) -> Result<HttpResponse> {
      HttpResponse r;
      r.status = status;
      r.body = body;
      return r;
    });
  }
  void Fail(Error error) {
    answers_.push_back(
        [=](const HttpRequest&) -> Result<HttpResponse> { return std::unexpected(error); });
  }
  Result<HttpResponse> Send(const HttpRequest& request) override {
    std::lock_guard lock(mu_);
    seen.push_back({request.method, request.url,
                    std::string(request.body.begin(), request.body.end()), request.headers});
    if (answers_.empty()) return InternalError("no scripted answer for {}", request.url);
    auto answer = std::move(answers_.front());
    answers_.pop_front();
    return answer(request);
  }
  std::vector<Seen> seen;

 private:
  std::mutex mu_;
  std::deque<std::function<Result<HttpResponse>(const HttpRequest&)>> answers_;
};

constexpr const char* kUuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";

SnapshotRef BranchAt(SnapshotId id) {
  SnapshotRef ref;
  ref.snapshot_id = id;
  return ref;
}

TableMetadata BaseMetadata() {
  TableMetadata m;
  m.format_version = 2;
  m.table_uuid = kUuid;
  m.location = "/lake/db/t";
  m.last_updated_ms = 1'700'000'000'000;
  m.last_column_id = 1;
  m.schemas.push_back(
      types::Schema({types::NestedField{1, "id", true, types::Type::Long(), ""}}, 0));
  m.current_schema_id = 0;
  m.partition_specs.push_back(PartitionSpec());
  m.sort_orders.push_back(SortOrder());
  m.properties = {{"keep", "1"}, {"gone", "x"}};
  return m;
}

Snapshot MakeSnapshot(SnapshotId id, std::optional<SnapshotId> parent, int64_t sequence) {
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence;
  s.timestamp_ms = 1'700'000'000'000 + sequence;
  s.manifest_list = "/lake/db/t/metadata/snap-" + std::to_string(id) + ".avro";
  s.operation = "append";
  s.schema_id = 0;
  return s;
}

std::string LoadAnswer(const TableMetadata& m, const std::string& location) {
  nlohmann::ordered_json j;
  j["metadata-location"] = location;
  j["metadata"] = TableMetadataToJson(m);
  return j.dump();
}

std::vector<std::string> Actions(const rest::CommitChanges& changes) {
  std::vector<std::string> out;
  for (const auto& u : changes.updates) out.emplace_back(TableUpdateAction(u));
  return out;
}

std::vector<std::string> Types(const rest::CommitChanges& changes) {
  std::vector<std::string> out;
  for (const auto& r : changes.requirements) out.emplace_back(TableRequirementType(r));
  return out;
}

// ---------------------------------------------------------------- encoding

TEST(RestProtocolTest, NamespacesAreJoinedByTheEncodedUnitSeparator) {
  EXPECT_EQ(rest::EncodeNamespace({"sales"}), "sales");
  EXPECT_EQ(rest::EncodeNamespace({"sales", "eu"}), "sales%1Feu");
  EXPECT_EQ(rest::EncodeNamespace({"a b", "c/d", "e%f", "ü"}), "a%20b%1Fc%2Fd%1Fe%25f%1F%C3%BC");
  // A server's own separator, as its config sends it.
  EXPECT_EQ(rest::EncodeNamespace({"a", "b", "c"}, "%2E"), "a%2Eb%2Ec");
  // A dot inside a level stays a dot: only the separator is "%2E".
  EXPECT_EQ(rest::EncodeNamespace({"a.b", "c"}, "%2E"), "a.b%2Ec");
}

TEST(RestProtocolTest, PercentDecodeRefusesBrokenEscapes) {
  EXPECT_EQ(*rest::PercentDecode("%2E"), ".");
  EXPECT_EQ(*rest::PercentDecode("a%1Fb"),
            "a\x1f"
            "b");
  EXPECT_FALSE(rest::PercentDecode("%2"));
  EXPECT_FALSE(rest::PercentDecode("%zz"));
  EXPECT_FALSE(rest::PercentDecode("abc%"));
}

// ------------------------------------------------------------ metadata diff

TEST(RestProtocolTest, AppendAssertsUuidAndMainAndAddsSnapshotThenRef) {
  TableMetadata base = BaseMetadata();
  TableMetadata next = base;
  next.snapshots.push_back(MakeSnapshot(11, std::nullopt, 1));
  next.current_snapshot_id = 11;
  next.refs["main"] = BranchAt(11);
  next.properties["floe.checkpoint-id"] = "7";
  auto changes = rest::DiffForCommit(base, next);
  ASSERT_TRUE(changes) << changes.error().ToString();
  EXPECT_EQ(Types(*changes),
            (std::vector<std::string>{"assert-table-uuid", "assert-ref-snapshot-id"}));
  EXPECT_EQ(Actions(*changes),
            (std::vector<std::string>{"set-properties", "add-snapshot", "set-snapshot-ref"}));
  auto json = rest::CommitRequestJson({{"db"}, "t"}, *changes, 2);
  EXPECT_EQ(json["identifier"]["namespace"], nlohmann::json({"db"}));
  EXPECT_EQ(json["requirements"][0]["uuid"], kUuid);
  // main did not exist: the requirement says so with a null snapshot id.
  EXPECT_EQ(json["requirements"][1]["ref"], "main");
  EXPECT_TRUE(json["requirements"][1]["snapshot-id"].is_null());
  EXPECT_EQ(json["updates"][0]["updates"]["floe.checkpoint-id"], "7");
  EXPECT_EQ(json["updates"][1]["snapshot"]["snapshot-id"], 11);
  EXPECT_EQ(json["updates"][2]["ref-name"], "main");
  EXPECT_EQ(json["updates"][2]["snapshot-id"], 11);
}

TEST(RestProtocolTest, SecondAppendAssertsTheBaseSnapshotOfMain) {
  TableMetadata base = BaseMetadata();
  base.snapshots.push_back(MakeSnapshot(11, std::nullopt, 1));
  base.current_snapshot_id = 11;
  base.refs["main"] = BranchAt(11);
  TableMetadata next = base;
  // Two snapshots in one commit, listed newest first: sent oldest first.
  next.snapshots.push_back(MakeSnapshot(13, 12, 3));
  next.snapshots.push_back(MakeSnapshot(12, 11, 2));
  next.current_snapshot_id = 13;
  next.refs["main"] = BranchAt(13);
  auto changes = rest::DiffForCommit(base, next);
  ASSERT_TRUE(changes);
  auto json = rest::CommitRequestJson({{"db"}, "t"}, *changes, 2);
  EXPECT_EQ(json["requirements"][1]["snapshot-id"], 11);
  ASSERT_EQ(Actions(*changes),
            (std::vector<std::string>{"add-snapshot", "add-snapshot", "set-snapshot-ref"}));
  EXPECT_EQ(json["updates"][0]["snapshot"]["snapshot-id"], 12);
  EXPECT_EQ(json["updates"][1]["snapshot"]["snapshot-id"], 13);
}

TEST(RestProtocolTest, SchemaSpecAndPropertyChanges) {
  TableMetadata base = BaseMetadata();
  TableMetadata next = base;
  next.schemas.push_back(
      types::Schema({types::NestedField{1, "id", true, types::Type::Long(), ""},
                     types::NestedField{2, "v", false, types::Type::String(), ""}},
                    1));
  next.current_schema_id = 1;
  next.last_column_id = 2;
  next.partition_specs.push_back(
      PartitionSpec(1, {PartitionField{1, 1000, "id_bucket", *Transform::Bucket(4)}}));
  next.default_spec_id = 1;
  next.last_partition_id = 1000;
  next.properties.erase("gone");
  next.properties["keep"] = "2";
  auto changes = rest::DiffForCommit(base, next);
  ASSERT_TRUE(changes) << changes.error().ToString();
  EXPECT_EQ(Types(*changes), (std::vector<std::string>{
                                 "assert-table-uuid", "assert-ref-snapshot-id",
                                 "assert-last-assigned-field-id", "assert-current-schema-id",
                                 "assert-last-assigned-partition-id", "assert-default-spec-id"}));
  EXPECT_EQ(Actions(*changes),
            (std::vector<std::string>{"add-schema", "set-current-schema", "add-spec",
                                      "set-default-spec", "set-properties", "remove-properties"}));
  auto json = rest::CommitRequestJson({{"db"}, "t"}, *changes, 2);
  EXPECT_EQ(json["requirements"][2]["last-assigned-field-id"], 1);
  EXPECT_EQ(json["requirements"][3]["current-schema-id"], 0);
  // The new schema and spec are named "the one just added": the server numbers them.
  EXPECT_EQ(json["updates"][1]["schema-id"], -1);
  EXPECT_EQ(json["updates"][3]["spec-id"], -1);
  EXPECT_EQ(json["updates"][4]["updates"], nlohmann::json({{"keep", "2"}}));
  EXPECT_EQ(json["updates"][5]["removals"], nlohmann::json({"gone"}));
}

TEST(RestProtocolTest, NothingChangedSendsOnlyRequirements) {
  auto changes = rest::DiffForCommit(BaseMetadata(), BaseMetadata());
  ASSERT_TRUE(changes);
  EXPECT_TRUE(changes->updates.empty());
  EXPECT_EQ(changes->requirements.size(), 2u);
}

TEST(RestProtocolTest, RefusesAnotherUuidAndEncryptionKeys) {
  TableMetadata next = BaseMetadata();
  next.table_uuid = "00000000-0000-0000-0000-000000000000";
  auto other = rest::DiffForCommit(BaseMetadata(), next);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code(), ErrorCode::kInvalidArgument);
  next = BaseMetadata();
  next.encryption_keys.push_back(EncryptionKey{"k1", {{"encrypted-key-metadata", "c2VjcmV0"}}});
  auto keys = rest::DiffForCommit(BaseMetadata(), next);
  ASSERT_FALSE(keys);
  EXPECT_EQ(keys.error().code(), ErrorCode::kNotSupported);
}

// ------------------------------------------------------------ error mapping

TEST(RestProtocolTest, ErrorMapping) {
  const std::string body =
      R"({"error":{"message":"Table does not exist: db.t","type":"NoSuchTableException","code":404,"stack":["at x"]}})";
  Error e = rest::ErrorForAnswer(rest::Call::kRead, 404, body, "loading table db.t");
  EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  EXPECT_EQ(e.message(),
            "loading table db.t: Table does not exist: db.t (HTTP 404 NoSuchTableException)");
  using rest::Call;
  EXPECT_EQ(rest::ErrorForAnswer(Call::kCommit, 409, "{}", "x").code(), ErrorCode::kCommitConflict);
  EXPECT_EQ(rest::ErrorForAnswer(Call::kCreate, 409, "{}", "x").code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(rest::ErrorForAnswer(Call::kDropNamespace, 409, "{}", "x").code(),
            ErrorCode::kInvalidArgument);
  for (long status : {500L, 502L, 503L, 504L}) {
    EXPECT_EQ(rest::ErrorForAnswer(Call::kCommit, status, "", "x").code(),
              ErrorCode::kCommitStateUnknown)
        << status;
    EXPECT_EQ(rest::ErrorForAnswer(Call::kRead, status, "", "x").code(), ErrorCode::kIo) << status;
  }
  EXPECT_EQ(rest::ErrorForAnswer(Call::kRead, 400, "", "x").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(rest::ErrorForAnswer(Call::kRead, 429, "", "x").code(), ErrorCode::kIo);
  EXPECT_EQ(rest::ErrorForAnswer(Call::kRead, 501, "", "x").code(), ErrorCode::kNotSupported);
  Error auth = rest::ErrorForAnswer(Call::kRead, 401, "<html>denied</html>", "listing namespaces");
  EXPECT_EQ(auth.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(auth.message().find("not authorized"), std::string::npos);
  EXPECT_NE(auth.message().find("<html>denied</html>"), std::string::npos);
}

// ------------------------------------------------------ catalog over a fake

class RestCatalogTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestCatalog> Open(RestCatalogOptions options,
                                    std::string config = R"({"defaults":{},"overrides":{}})") {
    transport_->Answer(200, config);
    options.retry.base_backoff = std::chrono::milliseconds(0);  // retries without waiting
    auto catalog = RestCatalog::Open("remote", std::move(options), &io_, transport_);
    EXPECT_TRUE(catalog) << catalog.error().ToString();
    return catalog ? std::move(*catalog) : nullptr;
  }
  /// Opens a catalog of http://rest.test that sends `token` (none when empty).
  std::unique_ptr<RestCatalog> OpenTestServer(std::string token = "") {
    RestCatalogOptions options;
    options.uri = "http://rest.test";
    options.token = std::move(token);
    return Open(options);
  }
  io::LocalFileIO io_;
  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
};

TEST_F(RestCatalogTest, ConfigSetsPrefixAndSeparatorAndTheTokenIsSent) {
  RestCatalogOptions options;
  options.uri = "http://rest.test:8181/";
  options.warehouse = "s3://bucket/wh";
  options.token = "t0ken";
  auto catalog =
      Open(options, R"({"defaults":{"prefix":"ignored","a":"1"},"overrides":{"prefix":"cat/1",)"
                    R"("namespace-separator":"%2E"}})");
  ASSERT_TRUE(catalog);
  EXPECT_EQ(transport_->seen[0].url,
            "http://rest.test:8181/v1/config?warehouse=s3%3A%2F%2Fbucket%2Fwh");
  EXPECT_EQ(transport_->seen[0].Header("Authorization"), "Bearer t0ken");
  EXPECT_EQ(catalog->prefix(), "cat/1");
  EXPECT_EQ(catalog->namespace_separator(), "%2E");
  EXPECT_EQ(catalog->properties().at("a"), "1");

  transport_->Answer(200, R"({"namespaces":[["a","b"]],"next-page-token":"p2"})");
  transport_->Answer(200, R"({"namespaces":[["a","c"]]})");
  auto listed = catalog->ListNamespaces({"a"});
  ASSERT_TRUE(listed) << listed.error().ToString();
  EXPECT_EQ(*listed, (std::vector<Namespace>{{"a", "b"}, {"a", "c"}}));
  EXPECT_EQ(transport_->seen[1].url, "http://rest.test:8181/v1/cat/1/namespaces?parent=a");
  EXPECT_EQ(transport_->seen[2].url,
            "http://rest.test:8181/v1/cat/1/namespaces?parent=a&pageToken=p2");

  transport_->Answer(204, "");
  ASSERT_TRUE(catalog->TableExists({{"a", "b c"}, "t 1"}));
  EXPECT_EQ(transport_->seen[3].method, "HEAD");
  EXPECT_EQ(transport_->seen[3].url,
            "http://rest.test:8181/v1/cat/1/namespaces/a%2Eb%20c/tables/t%201");
}

TEST_F(RestCatalogTest, DefaultSeparatorIsTheUnitSeparator) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  transport_->Answer(200, R"({"namespace":["a","b"],"properties":{"location":"/w/a/b"}})");
  auto props = catalog->LoadNamespaceProperties({"a", "b"});
  ASSERT_TRUE(props);
  EXPECT_EQ(transport_->seen[1].url, "http://rest.test/v1/namespaces/a%1Fb");
  EXPECT_TRUE(transport_->seen[1].Header("Authorization").empty());
}

TEST_F(RestCatalogTest, CommitOutcomes) {
  auto catalog = OpenTestServer("sekr1t-token");
  ASSERT_TRUE(catalog);
  LoadedTable base{{{"db"}, "t"}, "/lake/db/t/metadata/00000-a.metadata.json", BaseMetadata()};
  TableMetadata next = base.metadata;
  next.properties["k"] = "v";

  // Accepted: the result is the server's metadata.
  TableMetadata written = next;
  written.last_updated_ms += 5;
  transport_->Answer(200, LoadAnswer(written, "/lake/db/t/metadata/00001-b.metadata.json"));
  auto ok = catalog->CommitTable(base, next);
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->metadata_location, "/lake/db/t/metadata/00001-b.metadata.json");
  EXPECT_EQ(ok->metadata.last_updated_ms, written.last_updated_ms);
  EXPECT_EQ(transport_->seen.back().method, "POST");
  EXPECT_EQ(transport_->seen.back().url, "http://rest.test/v1/namespaces/db/tables/t");
  auto sent = nlohmann::json::parse(transport_->seen.back().body);
  EXPECT_EQ(sent["updates"][0]["action"], "set-properties");

  transport_->Answer(409, R"({"error":{"message":"Requirement failed: branch main has changed",)"
                          R"("type":"CommitFailedException","code":409}})");
  auto conflict = catalog->CommitTable(base, next);
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code(), ErrorCode::kCommitConflict);
  EXPECT_NE(conflict.error().message().find("db.t"), std::string::npos);
  EXPECT_NE(conflict.error().message().find("branch main has changed"), std::string::npos);

  transport_->Answer(502, "bad gateway");
  auto gateway = catalog->CommitTable(base, next);
  ASSERT_FALSE(gateway);
  EXPECT_EQ(gateway.error().code(), ErrorCode::kCommitStateUnknown);

  transport_->Fail(Error(ErrorCode::kTimedOut, "POST http://rest.test/...: Timeout was reached"));
  auto timeout = catalog->CommitTable(base, next);
  ASSERT_FALSE(timeout);
  EXPECT_EQ(timeout.error().code(), ErrorCode::kCommitStateUnknown);
  EXPECT_NE(timeout.error().message().find("db.t"), std::string::npos);

  // Nothing was sent: tried again; then an ordinary I/O error, the commit
  // certainly did not happen.
  const size_t before = transport_->seen.size();
  const int attempts = RestCatalogOptions().retry.max_attempts;
  for (int i = 0; i < attempts; ++i) {
    transport_->Fail(
        Error(ErrorCode::kIo, "POST http://rest.test/...: Couldn't connect to server"));
  }
  auto refused = catalog->CommitTable(base, next);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kIo);
  EXPECT_EQ(transport_->seen.size() - before, static_cast<size_t>(attempts));

  for (const auto* r : {&conflict, &gateway, &timeout, &refused}) {
    EXPECT_EQ(r->error().message().find("sekr1t"), std::string::npos);
  }
}

// Reads are sent again after busy or lost answers; a commit only when the
// server cannot have acted on it (429), never after a 5xx or a lost answer.
TEST_F(RestCatalogTest, RetriesReadsAndThrottledCallsButNeverALostCommit) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  const std::string load = LoadAnswer(BaseMetadata(), "/lake/db/t/metadata/00000-a.metadata.json");

  size_t before = transport_->seen.size();
  transport_->Answer(503, "busy");
  transport_->Fail(Error(ErrorCode::kTimedOut, "GET http://rest.test/...: Timeout was reached"));
  transport_->Answer(429, "slow down");
  transport_->Answer(504, "gateway timeout");
  transport_->Answer(200, load);
  auto loaded = catalog->LoadTable({{"db"}, "t"});
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_EQ(transport_->seen.size() - before, 5u);

  // A read that stays busy fails after the last attempt with the server's answer.
  before = transport_->seen.size();
  for (int i = 0; i < options.retry.max_attempts; ++i) transport_->Answer(503, "busy");
  auto busy = catalog->LoadTable({{"db"}, "t"});
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().code(), ErrorCode::kIo);
  EXPECT_EQ(transport_->seen.size() - before, static_cast<size_t>(options.retry.max_attempts));

  // A not-found answer is final.
  before = transport_->seen.size();
  transport_->Answer(
      404, R"({"error":{"message":"no such table","type":"NoSuchTableException","code":404}})");
  auto missing = catalog->LoadTable({{"db"}, "gone"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(transport_->seen.size() - before, 1u);

  LoadedTable base = *loaded;
  TableMetadata next = base.metadata;
  next.properties["k"] = "v";
  // Throttled: the server did nothing, the commit is sent again.
  before = transport_->seen.size();
  transport_->Answer(429, "slow down");
  transport_->Answer(200, load);
  ASSERT_TRUE(catalog->CommitTable(base, next));
  EXPECT_EQ(transport_->seen.size() - before, 2u);
  // A 503 or a lost answer: the commit may have happened; it is not sent again.
  before = transport_->seen.size();
  transport_->Answer(503, "busy");
  auto unavailable = catalog->CommitTable(base, next);
  ASSERT_FALSE(unavailable);
  EXPECT_EQ(unavailable.error().code(), ErrorCode::kCommitStateUnknown);
  transport_->Fail(Error(ErrorCode::kIo, "POST http://rest.test/...: Empty reply from server"));
  auto lost = catalog->CommitTable(base, next);
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().code(), ErrorCode::kCommitStateUnknown);
  EXPECT_EQ(transport_->seen.size() - before, 2u);
}

TEST_F(RestCatalogTest, CreateSendsSchemaSpecOrderAndFormatVersion) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  TableMetadata m = BaseMetadata();
  m.location.clear();
  transport_->Answer(200, LoadAnswer(BaseMetadata(), "/lake/db/t/metadata/00000-a.metadata.json"));
  auto created = catalog->CreateTable({{"db"}, "t"}, m);
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_EQ(created->metadata.table_uuid, kUuid);
  auto sent = nlohmann::json::parse(transport_->seen.back().body);
  EXPECT_EQ(transport_->seen.back().url, "http://rest.test/v1/namespaces/db/tables");
  EXPECT_EQ(sent["name"], "t");
  EXPECT_FALSE(sent.contains("location"));
  EXPECT_EQ(sent["schema"]["fields"][0]["name"], "id");
  EXPECT_TRUE(sent.contains("partition-spec"));
  EXPECT_TRUE(sent.contains("write-order"));
  EXPECT_EQ(sent["properties"]["format-version"], "2");
  EXPECT_EQ(sent["stage-create"], false);

  transport_->Answer(
      409,
      R"({"error":{"message":"Table already exists: db.t","type":"AlreadyExistsException","code":409}})");
  auto again = catalog->CreateTable({{"db"}, "t"}, m);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
}

TEST_F(RestCatalogTest, DropRenameAndNamespaceErrors) {
  RestCatalogOptions options;
  options.uri = "http://rest.test/v1";  // a trailing /v1 is tolerated
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(transport_->seen[0].url, "http://rest.test/v1/config");
  transport_->Answer(204, "");
  ASSERT_TRUE(catalog->DropTable({{"db"}, "t"}, /*purge=*/true));
  EXPECT_EQ(transport_->seen.back().method, "DELETE");
  EXPECT_EQ(transport_->seen.back().url,
            "http://rest.test/v1/namespaces/db/tables/t?purgeRequested=true");
  transport_->Answer(204, "");
  ASSERT_TRUE(catalog->RenameTable({{"db"}, "t"}, {{"db2"}, "u"}));
  auto rename = nlohmann::json::parse(transport_->seen.back().body);
  EXPECT_EQ(rename["source"]["name"], "t");
  EXPECT_EQ(rename["destination"]["namespace"], nlohmann::json({"db2"}));
  transport_->Answer(
      409,
      R"({"error":{"message":"Namespace not empty: db","type":"NamespaceNotEmptyException","code":409}})");
  auto not_empty = catalog->DropNamespace({"db"});
  ASSERT_FALSE(not_empty);
  EXPECT_EQ(not_empty.error().code(), ErrorCode::kInvalidArgument);
  transport_->Answer(
      404,
      R"({"error":{"message":"Namespace does not exist: zz","type":"NoSuchNamespaceException","code":404}})");
  auto missing = catalog->LoadNamespaceProperties({"zz"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
}

TEST_F(RestCatalogTest, CredentialIsExchangedForAToken) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  options.credential = "client:s3cret";
  transport_->Answer(200, R"({"access_token":"tok-123","token_type":"bearer","expires_in":3600})");
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(transport_->seen[0].url, "http://rest.test/v1/oauth/tokens");
  EXPECT_EQ(transport_->seen[0].body,
            "grant_type=client_credentials&client_id=client&client_secret=s3cret&scope=catalog");
  EXPECT_EQ(transport_->seen[1].Header("Authorization"), "Bearer tok-123");

  auto refused_transport = std::make_shared<ScriptedTransport>();
  refused_transport->Answer(401, R"({"error":"invalid_client","error_description":"bad secret"})");
  auto refused = RestCatalog::Open("remote", options, &io_, refused_transport);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.error().message().find("invalid_client: bad secret"), std::string::npos);
  EXPECT_EQ(refused.error().message().find("s3cret"), std::string::npos);
}

// ------------------------------------------------------------------ tokens

constexpr const char* kTokenUrl = "http://rest.test/v1/oauth/tokens";
constexpr const char* kNamespaceAnswer = R"({"namespace":["db"],"properties":{}})";

std::string TokenAnswer(const std::string& token, std::optional<int> expires_in = std::nullopt) {
  nlohmann::json j = {{"access_token", token}, {"token_type", "bearer"}};
  if (expires_in) j["expires_in"] = *expires_in;
  return j.dump();
}

/// Expects an authorization error whose message holds each of `present` and
/// none of `absent`.
void ExpectRefusal(const Error& error, std::initializer_list<std::string_view> present,
                   std::initializer_list<std::string_view> absent) {
  EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
  for (std::string_view text : present) {
    EXPECT_NE(error.message().find(text), std::string::npos)
        << text << " not in " << error.message();
  }
  for (std::string_view text : absent) {
    EXPECT_EQ(error.message().find(text), std::string::npos) << text << " in " << error.message();
  }
}

constexpr const char* kClientCredentials =
    "grant_type=client_credentials&client_id=client&client_secret=s3cret&scope=catalog";

/// A catalog whose token comes from a credential, on a clock the test moves.
class RestTokenTest : public RestCatalogTest {
 protected:
  std::unique_ptr<RestCatalog> OpenWithCredential(std::optional<int> expires_in,
                                                  Properties properties = {},
                                                  const std::string& token = "tok-1") {
    RestCatalogOptions options;
    options.uri = "http://rest.test";
    options.credential = "client:s3cret";
    options.properties = std::move(properties);
    options.clock = [now = now_] { return *now; };
    // The wall clock starts at kWallStart and moves with the test's clock.
    options.wall_clock = [now = now_] {
      return std::chrono::system_clock::time_point(std::chrono::seconds(kWallStart)) +
             std::chrono::duration_cast<std::chrono::system_clock::duration>(
                 now->time_since_epoch());
    };
    transport_->Answer(200, TokenAnswer(token, expires_in));
    return Open(options);
  }
  static constexpr int64_t kWallStart = 1'800'000'000;
  /// Moves the clock on by `later`, loads namespace "db" with the scripted
  /// `answers` queued before its own, and returns the requests it sent as
  /// "METHOD URL [Authorization]"; `first_` is the index of the first.
  std::vector<std::string> LoadAfter(
      RestCatalog& catalog, std::chrono::milliseconds later,
      const std::vector<std::pair<long, std::string>>& answers = {}) {
    *now_ += later;
    first_ = transport_->seen.size();
    for (const auto& [status, body] : answers) transport_->Answer(status, body);
    transport_->Answer(200, kNamespaceAnswer);
    auto loaded = catalog.LoadNamespaceProperties({"db"});
    EXPECT_TRUE(loaded) << loaded.error().ToString();
    return SeenSince(first_);
  }
  std::vector<std::string> SeenSince(size_t from) const {
    std::vector<std::string> out;
    for (size_t i = from; i < transport_->seen.size(); ++i) {
      const auto& r = transport_->seen[i];
      out.push_back(r.method + " " + r.url + " [" + r.Header("Authorization") + "]");
    }
    return out;
  }
  /// LoadAfter `later`, expecting the token to be replaced first, with the
  /// client credentials, by `token`.
  void ExpectClientCredentialsAfter(RestCatalog& catalog, std::chrono::milliseconds later,
                                    const std::string& token) {
    EXPECT_EQ(LoadAfter(catalog, later, {{200, TokenAnswer(token, 100)}}),
              (std::vector<std::string>{TokenAsked(), LoadWith(token)}));
    EXPECT_EQ(BodySent(0), kClientCredentials);
  }
  /// The body of the `i`th request LoadAfter sent.
  const std::string& BodySent(size_t i) const { return transport_->seen[first_ + i].body; }
  static std::string LoadWith(const std::string& token) {
    return "GET http://rest.test/v1/namespaces/db [Bearer " + token + "]";
  }
  static std::string TokenAsked(const std::string& bearer = "") {
    return std::string("POST ") + kTokenUrl + " [" + (bearer.empty() ? "" : "Bearer " + bearer) +
           "]";
  }

  std::shared_ptr<std::chrono::steady_clock::time_point> now_ =
      std::make_shared<std::chrono::steady_clock::time_point>();
  size_t first_ = 0;
};

// A token that expires is renewed before it does: at expires_in minus a
// tenth of it, by exchanging the current token (as Iceberg Java does).
TEST_F(RestTokenTest, ATokenIsRenewedBeforeItExpires) {
  auto catalog = OpenWithCredential(100);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(transport_->seen[1].Header("Authorization"), "Bearer tok-1");
  // 89 s of 100: not yet (renewed 10 s before expiry).
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(89)),
            (std::vector<std::string>{LoadWith("tok-1")}));
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(2), {{200, TokenAnswer("tok-2", 100)}}),
            (std::vector<std::string>{TokenAsked("tok-1"), LoadWith("tok-2")}));
  EXPECT_EQ(BodySent(0),
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange"
            "&subject_token=tok-1"
            "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
            "&scope=catalog");
  // The new token's lifetime counts from its own answer.
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(50)),
            (std::vector<std::string>{LoadWith("tok-2")}));
}

/// A JWT (unsigned: floe never checks signatures) with `claims` as its payload.
std::string Jwt(const nlohmann::json& claims) {
  auto part = [](std::string_view text) {
    std::string out;
    Base64Encode(text, &out);
    for (char& c : out) {
      if (c == '+') c = '-';
      if (c == '/') c = '_';
    }
    while (out.ends_with('=')) out.pop_back();
    return out;
  };
  return part(R"({"alg":"none","typ":"JWT"})") + "." + part(claims.dump()) + ".c2ln";
}

TEST(RestJwtTest, TheExpClaimOfAJwt) {
  EXPECT_EQ(rest::JwtExpiresAt(Jwt({{"exp", 1'800'000'100}, {"sub", "floe"}})), 1'800'000'100);
  // Every payload length (base64url drops the padding).
  for (std::string sub : {"", "a", "ab", "abc"}) {
    EXPECT_EQ(rest::JwtExpiresAt(Jwt({{"sub", sub}, {"exp", 7}})), 7) << sub;
  }
  EXPECT_EQ(rest::JwtExpiresAt(Jwt({{"sub", "floe"}})), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt(Jwt({{"exp", "1800000100"}})), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt(Jwt(nlohmann::json::array({1, 2}))), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt("tok-1"), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt("a.b"), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt("a.b.c.d"), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt("e30.!!!!.c2ln"), std::nullopt);
  EXPECT_EQ(rest::JwtExpiresAt("e30.bm90IGpzb24.c2ln"), std::nullopt);  // "not json"
  EXPECT_EQ(rest::JwtExpiresAt(""), std::nullopt);
}

// A token answer without expires_in whose token is a JWT with an `exp` claim
// is renewed by that claim, as Iceberg Java does.
TEST_F(RestTokenTest, AJwtWithoutExpiresInIsRenewedByItsExpClaim) {
  const std::string jwt = Jwt({{"sub", "client"}, {"exp", kWallStart + 100}});
  auto catalog = OpenWithCredential(std::nullopt, {}, jwt);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(89)),
            (std::vector<std::string>{LoadWith(jwt)}));
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(2), {{200, TokenAnswer("tok-2", 100)}}),
            (std::vector<std::string>{TokenAsked(jwt), LoadWith("tok-2")}));
  EXPECT_NE(BodySent(0).find("subject_token=" + jwt), std::string::npos);
}

// A JWT already expired when it is given (or a wall clock far off) is used
// until the server refuses it, not asked for again before every call.
TEST_F(RestTokenTest, AJwtExpiredWhenGivenIsUsedUntilRefused) {
  const std::string jwt = Jwt({{"exp", kWallStart - 10}});
  auto catalog = OpenWithCredential(std::nullopt, {}, jwt);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(1)),
            (std::vector<std::string>{LoadWith(jwt)}));
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::hours(5)), (std::vector<std::string>{LoadWith(jwt)}));
}

// A short lifetime is cut by a tenth too (not rounded to whole seconds).
TEST_F(RestTokenTest, AShortLivedTokenIsRenewedAtNineTenthsOfItsLife) {
  auto catalog = OpenWithCredential(5);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::milliseconds(4'400)),
            (std::vector<std::string>{LoadWith("tok-1")}));
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::milliseconds(200), {{200, TokenAnswer("tok-2", 5)}}),
            (std::vector<std::string>{TokenAsked("tok-1"), LoadWith("tok-2")}));
}

// A server that refuses the exchange is asked with the client credentials
// (which send no bearer token), and not asked for an exchange again.
TEST_F(RestTokenTest, ARefusedExchangeFallsBackToTheClientCredentials) {
  auto catalog = OpenWithCredential(100);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(
      LoadAfter(*catalog, std::chrono::seconds(95),
                {{400, R"({"error":"unsupported_grant_type"})"}, {200, TokenAnswer("tok-2", 100)}}),
      (std::vector<std::string>{TokenAsked("tok-1"), TokenAsked(), LoadWith("tok-2")}));
  EXPECT_NE(BodySent(0).find("token-exchange"), std::string::npos);
  EXPECT_EQ(BodySent(1), kClientCredentials);
  ExpectClientCredentialsAfter(*catalog, std::chrono::seconds(95), "tok-3");
}

// An expired token is never exchanged: the client credentials replace it.
TEST_F(RestTokenTest, AnExpiredTokenIsReplacedWithTheClientCredentials) {
  auto catalog = OpenWithCredential(60);
  ASSERT_TRUE(catalog);
  ExpectClientCredentialsAfter(*catalog, std::chrono::seconds(61), "tok-2");
}

TEST_F(RestTokenTest, RenewalCanBeTurnedOffAsInIcebergJava) {
  auto no_refresh = OpenWithCredential(100, {{"token-refresh-enabled", "false"}});
  ASSERT_TRUE(no_refresh);
  EXPECT_EQ(LoadAfter(*no_refresh, std::chrono::seconds(95)),
            (std::vector<std::string>{LoadWith("tok-1")}));

  auto no_exchange = OpenWithCredential(100, {{"token-exchange-enabled", "false"}});
  ASSERT_TRUE(no_exchange);
  ExpectClientCredentialsAfter(*no_exchange, std::chrono::seconds(95), "tok-2");
}

// A renewal that fails while the token is still valid keeps the token; once
// it has expired, the call fails naming the catalog.
TEST_F(RestTokenTest, AFailedRenewalKeepsAValidTokenAndFailsAnExpiredOne) {
  auto catalog = OpenWithCredential(100, {{"token-exchange-enabled", "false"}});
  ASSERT_TRUE(catalog);
  const std::string refused = R"({"error":"invalid_client","error_description":"disabled"})";
  EXPECT_EQ(LoadAfter(*catalog, std::chrono::seconds(92), {{401, refused}}),
            (std::vector<std::string>{TokenAsked(), LoadWith("tok-1")}));

  *now_ += std::chrono::seconds(10);
  transport_->Answer(401, refused);
  auto expired = catalog->LoadNamespaceProperties({"db"});
  ASSERT_FALSE(expired);
  ExpectRefusal(expired.error(), {"catalog 'remote'", "expired", "invalid_client: disabled"},
                {"s3cret", "tok-1"});
}

constexpr const char* kNotAuthorized =
    R"({"error":{"message":"token expired","type":"NotAuthorizedException","code":401}})";

/// A commit of table db.t that sets one property: its base and its metadata.
std::pair<LoadedTable, TableMetadata> PropertyCommit() {
  LoadedTable base{{{"db"}, "t"}, "/lake/db/t/metadata/00000-a.metadata.json", BaseMetadata()};
  TableMetadata next = base.metadata;
  next.properties["k"] = "v";
  return {base, next};
}

// A call refused with 401 gets one new token and is sent once more.
TEST_F(RestTokenTest, ARefusedTokenIsReplacedAndTheCallSentOnceMore) {
  auto catalog = OpenWithCredential(std::nullopt);
  ASSERT_TRUE(catalog);
  EXPECT_EQ(LoadAfter(*catalog, {}, {{401, kNotAuthorized}, {200, TokenAnswer("tok-2")}}),
            (std::vector<std::string>{LoadWith("tok-1"), TokenAsked(), LoadWith("tok-2")}));
  EXPECT_EQ(BodySent(1), kClientCredentials);

  // A commit refused with 401 was not applied: it is sent again too.
  auto [base, next] = PropertyCommit();
  size_t before = transport_->seen.size();
  transport_->Answer(401, "");
  transport_->Answer(200, TokenAnswer("tok-3"));
  transport_->Answer(200, LoadAnswer(next, "/lake/db/t/metadata/00001-b.metadata.json"));
  auto committed = catalog->CommitTable(base, next);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(transport_->seen.size() - before, 3u);
  EXPECT_EQ(transport_->seen[before].body, transport_->seen[before + 2].body);
  EXPECT_EQ(transport_->seen[before + 2].Header("Authorization"), "Bearer tok-3");
}

// Refused again with the new token: the call fails, once, clearly.
TEST_F(RestTokenTest, ASecondRefusalFailsClearly) {
  auto catalog = OpenWithCredential(std::nullopt);
  ASSERT_TRUE(catalog);
  size_t before = transport_->seen.size();
  transport_->Answer(401, kNotAuthorized);
  transport_->Answer(200, TokenAnswer("tok-2"));
  transport_->Answer(401, kNotAuthorized);
  auto refused = catalog->LoadTable({{"db"}, "t"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(transport_->seen.size() - before, 3u);
  ExpectRefusal(refused.error(),
                {"loading table db.t", "not authorized", "catalog 'remote'", "credential"},
                {"s3cret", "tok-1", "tok-2"});

  // The token endpoint refusing the credential: the commit was not sent
  // again, so its state is known (not kCommitStateUnknown).
  auto [base, next] = PropertyCommit();
  transport_->Answer(401, "");
  transport_->Answer(401, R"({"error":"invalid_client","error_description":"revoked"})");
  auto commit = catalog->CommitTable(base, next);
  ASSERT_FALSE(commit);
  ExpectRefusal(commit.error(), {"invalid_client: revoked"}, {"s3cret"});
}

// A fixed token the server refuses: an error that names the catalog and what
// to change, without the token.
TEST_F(RestTokenTest, ARefusedFixedTokenSaysWhatToDo) {
  auto catalog = OpenTestServer("fixed-t0ken");
  ASSERT_TRUE(catalog);
  size_t before = transport_->seen.size();
  transport_->Answer(401, kNotAuthorized);
  auto refused = catalog->ListNamespaces();
  ASSERT_FALSE(refused);
  EXPECT_EQ(transport_->seen.size() - before, 1u);  // no token to ask for
  ExpectRefusal(refused.error(), {"catalog 'remote'", "set a new 'token'", "token expired"},
                {"fixed-t0ken"});
}

// The multi-table commit is offered when the config's `endpoints` lists it,
// or lists nothing (Iceberg Java's DEFAULT_ENDPOINTS include it), unless
// floe's setting turns it off.
TEST_F(RestCatalogTest, MultiTableCommitFollowsTheServersEndpoints) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  EXPECT_TRUE(Open(options)->SupportsMultiTableCommit());
  EXPECT_TRUE(Open(options, R"({"endpoints":["GET /v1/{prefix}/namespaces",)"
                            R"("POST /v1/{prefix}/transactions/commit"]})")
                  ->SupportsMultiTableCommit());
  EXPECT_FALSE(Open(options, R"({"endpoints":["GET /v1/{prefix}/namespaces"]})")
                   ->SupportsMultiTableCommit());
  options.properties["multi-table-commit"] = "false";
  auto off = Open(options);
  EXPECT_FALSE(off->SupportsMultiTableCommit());
  LoadedTable base{{{"db"}, "t"}, "/lake/db/t/metadata/00000-a.metadata.json", BaseMetadata()};
  std::vector<TableCommit> commits;
  commits.push_back(TableCommit{&base, base.metadata});
  auto refused = off->CommitTables(std::move(commits));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(refused.error().message().find("multi-table-commit"), std::string::npos);
}

TEST_F(RestCatalogTest, MultiTableCommitOutcomes) {
  auto catalog = OpenTestServer();
  ASSERT_TRUE(catalog);
  LoadedTable t{{{"db"}, "t"}, "/lake/db/t/metadata/00000-a.metadata.json", BaseMetadata()};
  LoadedTable u{{{"db", "eu"}, "u"}, "/lake/db/u/metadata/00000-b.metadata.json", BaseMetadata()};
  auto commits = [&] {
    std::vector<TableCommit> out;
    for (const LoadedTable* base : {&t, &u}) {
      TableMetadata next = base->metadata;
      next.properties["k"] = base->id.name;
      out.push_back(TableCommit{base, std::move(next)});
    }
    return out;
  };

  // 204 without a body: the tables are loaded after it, in order.
  transport_->Answer(204, "");
  TableMetadata t_written = t.metadata, u_written = u.metadata;
  t_written.properties["k"] = "t";
  u_written.properties["k"] = "u";
  transport_->Answer(200, LoadAnswer(t_written, "/lake/db/t/metadata/00001-c.metadata.json"));
  transport_->Answer(200, LoadAnswer(u_written, "/lake/db/u/metadata/00001-d.metadata.json"));
  const size_t first = transport_->seen.size();
  auto ok = catalog->CommitTables(commits());
  ASSERT_TRUE(ok) << ok.error().ToString();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].metadata_location, "/lake/db/t/metadata/00001-c.metadata.json");
  EXPECT_EQ((*ok)[1].metadata.properties.at("k"), "u");
  ASSERT_EQ(transport_->seen.size() - first, 3u);
  const auto& sent = transport_->seen[first];
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://rest.test/v1/transactions/commit");
  auto body = nlohmann::json::parse(sent.body);
  ASSERT_EQ(body["table-changes"].size(), 2u);
  EXPECT_EQ(body["table-changes"][1]["identifier"],
            nlohmann::json({{"namespace", {"db", "eu"}}, {"name", "u"}}));
  EXPECT_EQ(body["table-changes"][0]["requirements"][0]["type"], "assert-table-uuid");
  EXPECT_EQ(body["table-changes"][0]["updates"][0]["action"], "set-properties");
  EXPECT_EQ(body["table-changes"][1]["updates"][0]["updates"]["k"], "u");
  EXPECT_EQ(transport_->seen[first + 2].url, "http://rest.test/v1/namespaces/db%1Feu/tables/u");

  transport_->Answer(409, R"({"error":{"message":"Requirement failed: branch main has changed",)"
                          R"("type":"CommitFailedException","code":409}})");
  auto conflict = catalog->CommitTables(commits());
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code(), ErrorCode::kCommitConflict);
  EXPECT_NE(conflict.error().message().find("db.t, db.eu.u"), std::string::npos);

  transport_->Answer(500, R"({"error":{"message":"Internal Server Error",)"
                          R"("type":"CommitStateUnknownException","code":500}})");
  EXPECT_EQ(catalog->CommitTables(commits()).error().code(), ErrorCode::kCommitStateUnknown);
  transport_->Fail(Error(ErrorCode::kTimedOut, "POST http://rest.test/...: Timeout was reached"));
  EXPECT_EQ(catalog->CommitTables(commits()).error().code(), ErrorCode::kCommitStateUnknown);
  // Committed, but a table cannot be loaded afterwards: reloading will tell.
  transport_->Answer(204, "");
  transport_->Answer(200, LoadAnswer(t_written, "/lake/db/t/metadata/00001-c.metadata.json"));
  transport_->Answer(404, R"({"error":{"message":"no such table","type":"NoSuchTableException",)"
                          R"("code":404}})");
  auto unloadable = catalog->CommitTables(commits());
  ASSERT_FALSE(unloadable);
  EXPECT_EQ(unloadable.error().code(), ErrorCode::kCommitStateUnknown);
  EXPECT_NE(unloadable.error().message().find("db.eu.u"), std::string::npos);
}

TEST_F(RestCatalogTest, RegisterSendsTheNameAndMetadataLocation) {
  auto catalog = OpenTestServer();
  ASSERT_TRUE(catalog);
  const std::string file = "s3://bucket/wh/db/t/metadata/00003-c.metadata.json";
  transport_->Answer(200, LoadAnswer(BaseMetadata(), file));
  auto registered = catalog->RegisterTable({{"db", "eu"}, "t"}, file);
  ASSERT_TRUE(registered) << registered.error().ToString();
  EXPECT_EQ(registered->metadata_location, file);
  EXPECT_EQ(registered->metadata.table_uuid, kUuid);
  EXPECT_EQ(transport_->seen.back().method, "POST");
  EXPECT_EQ(transport_->seen.back().url, "http://rest.test/v1/namespaces/db%1Feu/register");
  auto sent = nlohmann::json::parse(transport_->seen.back().body);
  EXPECT_EQ(sent, nlohmann::json({{"name", "t"}, {"metadata-location", file}}));

  transport_->Answer(
      409, R"({"error":{"message":"Table already exists: db.t","type":"AlreadyExistsException",)"
           R"("code":409}})");
  auto again = catalog->RegisterTable({{"db"}, "t"}, file);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_NE(again.error().message().find("registering table db.t"), std::string::npos);
  transport_->Answer(404,
                     R"({"error":{"message":"Location does not exist","type":"NotFoundException",)"
                     R"("code":404}})");
  auto missing = catalog->RegisterTable({{"db"}, "u"}, file);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(catalog->RegisterTable({{"db"}, "u"}, ""));
}

TEST_F(RestCatalogTest, RegisterWithOverwriteSendsTheFlag) {
  auto catalog = OpenTestServer();
  ASSERT_TRUE(catalog);
  const std::string file = "s3://bucket/wh/db/t/metadata/00001-a.metadata.json";
  transport_->Answer(200, LoadAnswer(BaseMetadata(), file));
  auto registered = catalog->RegisterTable({{"db"}, "t"}, file, /*overwrite=*/true);
  ASSERT_TRUE(registered) << registered.error().ToString();
  auto sent = nlohmann::json::parse(transport_->seen.back().body);
  EXPECT_EQ(sent,
            nlohmann::json({{"name", "t"}, {"metadata-location", file}, {"overwrite", true}}));

  // Iceberg's JDBC catalog behind its test server cannot overwrite (406).
  transport_->Answer(406, R"({"error":{"message":"Registering tables with overwrite is not )"
                          R"(supported","type":"UnsupportedOperationException","code":406}})");
  auto refused = catalog->RegisterTable({{"db"}, "t"}, file, true);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(refused.error().message().find("cannot overwrite"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("with overwrite is not supported"), std::string::npos)
      << refused.error().message();
}

TEST_F(RestCatalogTest, DefaultTableLocation) {
  RestCatalogOptions options;
  options.uri = "http://rest.test";
  options.warehouse = "/lake/wh";
  auto catalog = Open(options);
  ASSERT_TRUE(catalog);
  transport_->Answer(200, R"({"namespace":["a"],"properties":{"location":"/ns/a/"}})");
  EXPECT_EQ(catalog->DefaultTableLocation({{"a"}, "t"}), "/ns/a/t");
  transport_->Answer(200, R"({"namespace":["a","b"],"properties":{}})");
  EXPECT_EQ(catalog->DefaultTableLocation({{"a", "b"}, "t"}), "/lake/wh/a/b/t");
  // A warehouse that is a name or a remote URI gives no location: the server chooses.
  for (const char* warehouse : {"my_warehouse", "s3://bucket/wh"}) {
    options.warehouse = warehouse;
    auto named = Open(options);
    ASSERT_TRUE(named);
    transport_->Answer(
        404, R"({"error":{"message":"no","type":"NoSuchNamespaceException","code":404}})");
    EXPECT_EQ(named->DefaultTableLocation({{"a"}, "t"}), "") << warehouse;
  }
}

TEST_F(RestCatalogTest, ConfigFileOpensARestCatalog) {
  auto config = ParseCatalogConfig("catalog:\n  r:\n    type: rest\n", "test.yaml", "r");
  ASSERT_TRUE(config);
  auto missing_uri = OpenCatalog(*config, &io_);
  ASSERT_FALSE(missing_uri);
  EXPECT_EQ(missing_uri.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(missing_uri.error().message().find("uri"), std::string::npos);
  config->properties["uri"] = "ftp://x";
  auto bad_uri = OpenCatalog(*config, &io_);
  ASSERT_FALSE(bad_uri);
  EXPECT_EQ(bad_uri.error().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace floe::iceberg
