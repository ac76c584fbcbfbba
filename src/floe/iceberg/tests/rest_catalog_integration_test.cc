// RestCatalog against Apache Iceberg's own REST catalog server
// (scripts/services/iceberg-rest.sh), at FLOE_TEST_REST_URI. Skipped when
// that variable is unset; when it is set (scripts/test.sh sets it) and the
// server does not answer, the tests fail.

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "floe/iceberg/catalog/rest_catalog.h"

namespace floe::iceberg {
namespace {

SnapshotRef BranchAt(SnapshotId id) {
  SnapshotRef ref;
  ref.snapshot_id = id;
  return ref;
}

TableMetadata NewMetadata() {
  TableMetadata m;
  m.format_version = 2;
  m.last_column_id = 2;
  m.schemas.push_back(types::Schema({types::NestedField{1, "id", true, types::Type::Long(), ""},
                                     types::NestedField{2, "v", false, types::Type::String(), ""}},
                                    0));
  m.current_schema_id = 0;
  m.partition_specs.push_back(PartitionSpec());
  m.sort_orders.push_back(SortOrder());
  return m;
}

// A snapshot appended to `base`, with a manifest list that is not read.
TableMetadata WithSnapshot(const TableMetadata& base, SnapshotId id) {
  TableMetadata next = base;
  Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = base.current_snapshot_id;
  s.sequence_number = base.last_sequence_number + 1;
  s.timestamp_ms = base.last_updated_ms + 1;
  s.manifest_list = base.location + "/metadata/snap-" + std::to_string(id) + ".avro";
  s.operation = "append";
  s.schema_id = base.current_schema_id;
  next.snapshots.push_back(s);
  next.last_sequence_number = s.sequence_number;
  next.current_snapshot_id = id;
  next.refs["main"] = BranchAt(id);
  return next;
}

class RestCatalogIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* uri = std::getenv("FLOE_TEST_REST_URI");
    if (uri == nullptr) GTEST_SKIP() << "FLOE_TEST_REST_URI is not set";
    RestCatalogOptions options;
    options.uri = uri;
    options.token = "integration-token";
    auto catalog = RestCatalog::Open("rest", options, &io_);
    ASSERT_TRUE(catalog) << "the REST catalog server at " << uri
                         << " does not answer (scripts/services/iceberg-rest.sh start): "
                         << catalog.error().ToString();
    catalog_ = std::move(*catalog);
    std::random_device rd;
    ns_ = {"it_" + std::to_string(rd()) + std::to_string(rd())};
    ASSERT_TRUE(catalog_->CreateNamespace(ns_));
  }

  io::LocalFileIO io_;
  std::unique_ptr<RestCatalog> catalog_;
  Namespace ns_;
};

TEST_F(RestCatalogIntegrationTest, NamespacesWithLevelsAndProperties) {
  Namespace child = ns_;
  child.push_back("eu");
  ASSERT_TRUE(catalog_->CreateNamespace(child, {{"owner", "floe"}}));
  auto again = catalog_->CreateNamespace(child);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  auto children = catalog_->ListNamespaces(ns_);
  ASSERT_TRUE(children) << children.error().ToString();
  EXPECT_EQ(*children, std::vector<Namespace>{child});
  ASSERT_TRUE(catalog_->UpdateNamespaceProperties(child, {"owner"}, {{"team", "lake"}}));
  auto props = catalog_->LoadNamespaceProperties(child);
  ASSERT_TRUE(props) << props.error().ToString();
  EXPECT_EQ(props->count("owner"), 0u);
  EXPECT_EQ(props->at("team"), "lake");
  ASSERT_TRUE(catalog_->DropNamespace(child));
  auto gone = catalog_->LoadNamespaceProperties(child);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(gone.error().message().find(NamespaceToString(child)), std::string::npos);
}

TEST_F(RestCatalogIntegrationTest, CreateRenameDrop) {
  TableIdentifier id{ns_, "t"};
  auto created = catalog_->CreateTable(id, NewMetadata());
  ASSERT_TRUE(created) << created.error().ToString();
  EXPECT_FALSE(created->metadata.table_uuid.empty());
  EXPECT_FALSE(created->metadata_location.empty());
  EXPECT_EQ(*catalog_->TableExists(id), true);
  auto twice = catalog_->CreateTable(id, NewMetadata());
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code(), ErrorCode::kAlreadyExists);
  auto not_empty = catalog_->DropNamespace(ns_);
  ASSERT_FALSE(not_empty);
  EXPECT_EQ(not_empty.error().code(), ErrorCode::kInvalidArgument);

  TableIdentifier renamed{ns_, "u"};
  ASSERT_TRUE(catalog_->RenameTable(id, renamed));
  EXPECT_EQ(*catalog_->TableExists(id), false);
  auto listed = catalog_->ListTables(ns_);
  ASSERT_TRUE(listed);
  EXPECT_EQ(*listed, std::vector<TableIdentifier>{renamed});
  ASSERT_TRUE(catalog_->DropTable(renamed, /*purge=*/true));
  auto missing = catalog_->LoadTable(renamed);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find(renamed.ToString()), std::string::npos);
  ASSERT_TRUE(catalog_->DropNamespace(ns_));
}

TEST_F(RestCatalogIntegrationTest, CommitFromAStaleBaseConflicts) {
  TableIdentifier id{ns_, "c"};
  auto base = catalog_->CreateTable(id, NewMetadata());
  ASSERT_TRUE(base) << base.error().ToString();
  TableMetadata first = WithSnapshot(base->metadata, 101);
  first.properties["floe.checkpoint-id"] = "1";
  auto committed = catalog_->CommitTable(*base, first);
  ASSERT_TRUE(committed) << committed.error().ToString();
  EXPECT_EQ(committed->metadata.current_snapshot_id, SnapshotId{101});
  EXPECT_NE(committed->metadata_location, base->metadata_location);

  // Another writer still on the first base: main moved, so it must lose.
  auto stale = catalog_->CommitTable(*base, WithSnapshot(base->metadata, 202));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code(), ErrorCode::kCommitConflict) << stale.error().ToString();
  EXPECT_NE(stale.error().message().find(id.ToString()), std::string::npos);

  // Reloaded, the change applies on top.
  auto reloaded = catalog_->LoadTable(id);
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(reloaded->metadata.current_snapshot_id, SnapshotId{101});
  EXPECT_EQ(reloaded->metadata.properties.at("floe.checkpoint-id"), "1");
  TableMetadata second = WithSnapshot(reloaded->metadata, 202);
  second.properties["floe.checkpoint-id"] = "2";
  second.properties.erase("floe.checkpoint-id");
  second.properties["floe.other"] = "x";
  auto retried = catalog_->CommitTable(*reloaded, second);
  ASSERT_TRUE(retried) << retried.error().ToString();
  EXPECT_EQ(retried->metadata.snapshots.size(), 2u);
  EXPECT_EQ(retried->metadata.current_snapshot_id, SnapshotId{202});
  EXPECT_EQ(retried->metadata.properties.count("floe.checkpoint-id"), 0u);
  EXPECT_EQ(retried->metadata.properties.at("floe.other"), "x");
}

TEST_F(RestCatalogIntegrationTest, SchemaEvolutionIsCommitted) {
  TableIdentifier id{ns_, "s"};
  auto base = catalog_->CreateTable(id, NewMetadata());
  ASSERT_TRUE(base) << base.error().ToString();
  TableMetadata next = base->metadata;
  std::vector<types::NestedField> fields = next.CurrentSchema()->fields();
  fields.push_back(
      types::NestedField{next.last_column_id + 1, "added", false, types::Type::Int(), ""});
  next.schemas.push_back(types::Schema(fields, 1));
  next.current_schema_id = 1;
  next.last_column_id += 1;
  auto committed = catalog_->CommitTable(*base, next);
  ASSERT_TRUE(committed) << committed.error().ToString();
  const types::Schema* schema = committed->metadata.CurrentSchema();
  ASSERT_NE(schema, nullptr);
  ASSERT_NE(schema->FindFieldByName("added"), nullptr);
  EXPECT_EQ(committed->metadata.schemas.size(), 2u);
}

}  // namespace
}  // namespace floe::iceberg
