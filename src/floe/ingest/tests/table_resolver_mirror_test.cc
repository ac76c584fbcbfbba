// TableResolver against a SQL catalog in a temporary folder: MirrorSchema
// (schema.change.behavior: evolve), evolve_schemas = false (ignore), RouteOf
// and Forget, and creating a table whose default location is still held by a
// table renamed away from that name.

#include <gtest/gtest.h>

#include "floe/ingest/tests/schema_columns.h"

#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/ingest/table_resolver.h"
#include "floe/ingest/tests/test_catalog.h"
#include "floe/io/file_io.h"

namespace floe::ingest {
namespace {

using iceberg::TableIdentifier;
using types::NestedField;
using types::Schema;
using types::Type;
using types::Value;

NestedField Field(int32_t id, std::string name, types::TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(type), ""};
}

std::shared_ptr<const Schema> RowSchema(std::vector<NestedField> fields,
                                        std::vector<int32_t> key = {}) {
  return std::make_shared<const Schema>(std::move(fields), 0, std::move(key));
}

using test::Ids;
using test::Names;
using test::TypeNames;

/// A SQL catalog (SQLite file) over the local file system that owns its FileIO.
std::shared_ptr<iceberg::Catalog> MakeSqlCatalog(const testing::TempDir& dir) {
  struct Holder {
    io::LocalFileIO io;
    std::unique_ptr<iceberg::SqlCatalog> catalog;
  };
  auto holder = std::make_shared<Holder>();
  auto opened = iceberg::SqlCatalog::Open("test", "sqlite:///" + (dir / "catalog.db"),
                                          dir / "warehouse", &holder->io);
  EXPECT_TRUE(opened.has_value()) << opened.error().ToString();
  if (!opened) return nullptr;
  holder->catalog = std::move(*opened);
  return std::shared_ptr<iceberg::Catalog>(holder, holder->catalog.get());
}

class TableResolverMirrorTest : public ::testing::Test {
 protected:
  TableResolverMirrorTest() : catalog_(MakeSqlCatalog(dir_)) {}

  std::unique_ptr<TableResolver> Make(TableResolverOptions options) {
    EXPECT_TRUE(ValidateTableResolverOptions(options).has_value());
    return std::make_unique<TableResolver>(std::move(options), catalog_, &stats_);
  }

  iceberg::LoadedTable Load(const TableIdentifier& id) {
    auto loaded = catalog_->LoadTable(id);
    EXPECT_TRUE(loaded.has_value()) << id.ToString() << ": " << loaded.error().ToString();
    return loaded ? *loaded : iceberg::LoadedTable{};
  }

  testing::TempDir dir_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  IngestStats stats_;
};

/// id (key), name, qty: the source table before its ALTER.
std::shared_ptr<const Schema> OrdersV1() {
  return RowSchema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                    Field(3, "qty", Type::Int())},
                   {1});
}

TEST_F(TableResolverMirrorTest, MirrorSchemaCommitsOnceAndAReplayAppliesNothing) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  bool event_error = true;
  auto state = resolver->Resolve("shop", "orders", OrdersV1(), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  const TableIdentifier id{{"shop"}, "orders"};
  const iceberg::LoadedTable before = Load(id);

  // CHANGE name full_name, MODIFY qty BIGINT, ADD note FIRST.
  auto v2 = RowSchema({Field(1, "note", Type::String()), Field(2, "id", Type::Long(), true),
                       Field(3, "full_name", Type::String()), Field(4, "qty", Type::Long())},
                      {2});
  auto outcome = resolver->MirrorSchema(*state, v2, "name", "full_name", &event_error);
  ASSERT_TRUE(outcome.has_value()) << outcome.error().ToString();
  EXPECT_FALSE(event_error);
  EXPECT_NE(outcome->applied.find("rename name to full_name"), std::string::npos)
      << outcome->applied;
  EXPECT_NE(outcome->applied.find("widen qty to long"), std::string::npos) << outcome->applied;
  EXPECT_NE(outcome->applied.find("add note string"), std::string::npos) << outcome->applied;
  EXPECT_TRUE(outcome->notes.empty());
  EXPECT_EQ(stats_.schema_changes.load(), 1);

  const iceberg::LoadedTable after = Load(id);
  EXPECT_NE(after.metadata_location, before.metadata_location);
  const Schema& schema = *after.metadata.CurrentSchema();
  const Schema& old_schema = *before.metadata.CurrentSchema();
  EXPECT_EQ(Names(schema), (std::vector<std::string>{"note", "id", "full_name", "qty"}));
  EXPECT_EQ(TypeNames(schema), (std::vector<std::string>{"string", "long", "string", "long"}));
  // id, name->full_name and qty keep their ids; note is new.
  const std::vector<int32_t> old_ids = Ids(old_schema);
  EXPECT_EQ(Ids(schema), (std::vector<int32_t>{after.metadata.last_column_id, old_ids[0],
                                               old_ids[1], old_ids[2]}));
  EXPECT_GT(after.metadata.last_column_id, old_schema.highest_field_id());
  EXPECT_EQ(schema.identifier_field_ids(), std::vector<int32_t>{old_ids[0]});
  EXPECT_TRUE(schema.fields()[1].required);
  EXPECT_FALSE(schema.fields()[0].required);
  EXPECT_EQ(after.metadata.schemas.size(), 2u);

  // The state's target and metadata are the new table version.
  const auto& target = TableResolver::TargetOf(*state);
  EXPECT_TRUE(TableResolver::SchemaOf(*state).Equals(schema));
  EXPECT_EQ(target->metadata->current_schema_id, after.metadata.current_schema_id);
  EXPECT_EQ(target->equality_field_ids, schema.identifier_field_ids());

  // The same statement again (a replay): nothing to do, nothing committed.
  auto replay = resolver->MirrorSchema(*state, v2, "name", "full_name", &event_error);
  ASSERT_TRUE(replay.has_value()) << replay.error().ToString();
  EXPECT_EQ(replay->applied, "");
  EXPECT_FALSE(event_error);
  EXPECT_EQ(Load(id).metadata_location, after.metadata_location);
  EXPECT_EQ(stats_.schema_changes.load(), 1);

  // A fresh resolver (a restart) sees the evolved table and replays as nothing too.
  auto restarted = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  auto state2 = restarted->Resolve("shop", "orders", v2, &event_error);
  ASSERT_TRUE(state2.has_value()) << state2.error().ToString();
  auto replay2 = restarted->MirrorSchema(*state2, v2, "name", "full_name", &event_error);
  ASSERT_TRUE(replay2.has_value()) << replay2.error().ToString();
  EXPECT_EQ(replay2->applied, "");
  EXPECT_EQ(Load(id).metadata_location, after.metadata_location);

  // Rows of the new schema map straight into the table, without evolving it.
  auto mapping = resolver->MappingFor(*state, v2, &event_error);
  ASSERT_TRUE(mapping.has_value()) << mapping.error().ToString();
  Value in[4] = {Value::Null(), Value::Int64(7), Value::Null(), Value::Int64(3)};
  Value out[4];
  EXPECT_EQ((*mapping)->Map(types::Row(in, 4), std::span<Value>(out, 4), false), "");
  EXPECT_EQ(out[1].i64, 7);
  EXPECT_EQ(out[3].i64, 3);
  EXPECT_EQ(Load(id).metadata_location, after.metadata_location);
}

TEST_F(TableResolverMirrorTest, MirrorSchemaRefusesWhatIcebergCannotExpress) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  bool event_error = false;
  auto state = resolver->Resolve("shop", "orders", OrdersV1(), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  const std::string location = Load({{"shop"}, "orders"}).metadata_location;
  auto v2 = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::Int()),
                       Field(3, "qty", Type::Int())},
                      {1});
  auto outcome = resolver->MirrorSchema(*state, v2, {}, {}, &event_error);
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_TRUE(event_error);
  EXPECT_NE(outcome.error().message().find("shop.orders"), std::string::npos)
      << outcome.error().message();
  EXPECT_EQ(Load({{"shop"}, "orders"}).metadata_location, location);
  EXPECT_EQ(stats_.schema_changes.load(), 0);
}

TEST_F(TableResolverMirrorTest, IgnoreKeepsTheTableAndMapsTheKnownColumns) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}, .evolve_schemas = false});
  bool event_error = true;
  auto state = resolver->Resolve("shop", "orders", OrdersV1(), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  const TableIdentifier id{{"shop"}, "orders"};
  const std::string location = Load(id).metadata_location;

  // An extra column, and id as INT (narrower: its values still fit the long column).
  auto extra = RowSchema({Field(1, "note", Type::String()), Field(2, "id", Type::Int(), true),
                          Field(3, "name", Type::String()), Field(4, "qty", Type::Int())},
                         {2});
  auto mapping = resolver->MappingFor(*state, extra, &event_error);
  ASSERT_TRUE(mapping.has_value()) << mapping.error().ToString();
  EXPECT_FALSE(event_error);
  EXPECT_EQ((*mapping)->width(), 3u);
  Value in[4] = {Value::Null(), Value::Int32(42), Value::Null(), Value::Int32(5)};
  Value out[3];
  EXPECT_EQ((*mapping)->Map(types::Row(in, 4), std::span<Value>(out, 3), false), "");
  ASSERT_EQ(out[0].kind, Value::Kind::kInt64);
  EXPECT_EQ(out[0].i64, 42);
  EXPECT_TRUE(out[1].is_null());
  EXPECT_EQ(out[2].i32, 5);
  // The table did not change.
  const iceberg::LoadedTable loaded = Load(id);
  EXPECT_EQ(loaded.metadata_location, location);
  EXPECT_EQ(Names(*loaded.metadata.CurrentSchema()),
            (std::vector<std::string>{"id", "name", "qty"}));
  EXPECT_EQ(stats_.schema_changes.load(), 0);

  // A wider type no longer fits, and the table does not widen.
  auto wider = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                          Field(3, "qty", Type::Long())},
                         {1});
  event_error = false;
  auto refused = resolver->MappingFor(*state, wider, &event_error);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_TRUE(event_error);
  EXPECT_NE(refused.error().message().find("shop.orders"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("'qty'"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(Load(id).metadata_location, location);

  // So does an incompatible one.
  auto other = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::Int())}, {1});
  event_error = false;
  auto refused2 = resolver->MappingFor(*state, other, &event_error);
  ASSERT_FALSE(refused2.has_value());
  EXPECT_EQ(refused2.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_TRUE(event_error);
  EXPECT_EQ(Load(id).metadata_location, location);
}

TEST_F(TableResolverMirrorTest, RouteOfAndForget) {
  auto resolver = Make({.route = "lake.{db}_{table}", .primary_key = {"id"}});
  auto routed = resolver->RouteOf("shop", "orders");
  ASSERT_TRUE(routed.has_value()) << routed.error().ToString();
  EXPECT_EQ(routed->ToString(), "lake.shop_orders");
  EXPECT_FALSE(catalog_->TableExists(*routed).value());  // RouteOf creates nothing
  EXPECT_FALSE(resolver->RouteOf("shop", "a/b").has_value());

  bool event_error = false;
  auto state = resolver->Resolve("shop", "orders", OrdersV1(), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  EXPECT_EQ(resolver->TableNames(), std::vector<std::string>{"lake.shop_orders"});
  resolver->Forget("shop", "unknown");  // nothing resolved: nothing to forget
  EXPECT_EQ(resolver->TableNames(), std::vector<std::string>{"lake.shop_orders"});
  resolver->Forget("shop", "orders");
  EXPECT_TRUE(resolver->TableNames().empty());
  // The next event resolves (loads) it again.
  auto again = resolver->Resolve("shop", "orders", OrdersV1(), &event_error);
  ASSERT_TRUE(again.has_value()) << again.error().ToString();
  EXPECT_EQ(resolver->TableNames(), std::vector<std::string>{"lake.shop_orders"});
  EXPECT_EQ(stats_.tables_created.load(), 1);
}

/// Resolves a.t (creating it), optionally commits a schema change to it,
/// renames it to a.<renamed_to>, forgets it, and resolves a.t again.
void CreateRenameCreate(TableResolver& resolver, iceberg::Catalog& catalog, bool commit_first,
                        const std::string& renamed_to) {
  bool event_error = false;
  auto state = resolver.Resolve("a", "t", OrdersV1(), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  if (commit_first) {
    auto v2 = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "name", Type::String()),
                         Field(3, "qty", Type::Int()), Field(4, "note", Type::String())},
                        {1});
    auto outcome = resolver.MirrorSchema(*state, v2, {}, {}, &event_error);
    ASSERT_TRUE(outcome.has_value()) << outcome.error().ToString();
    ASSERT_NE(outcome->applied, "");
  }
  auto renamed = catalog.RenameTable({{"a"}, "t"}, {{"a"}, renamed_to});
  ASSERT_TRUE(renamed.has_value()) << renamed.error().ToString();
  resolver.Forget("a", "t");
  auto created = resolver.Resolve("a", "t", OrdersV1(), &event_error);
  ASSERT_TRUE(created.has_value()) << created.error().ToString();
}

TEST_F(TableResolverMirrorTest, CreateAfterRenameTakesAFreshLocation) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  const std::string location = catalog_->DefaultTableLocation({{"a"}, "t"});
  ASSERT_FALSE(location.empty());

  ASSERT_NO_FATAL_FAILURE(CreateRenameCreate(*resolver, *catalog_, true, "u"));
  const iceberg::LoadedTable u = Load({{"a"}, "u"});
  const iceberg::LoadedTable t = Load({{"a"}, "t"});
  EXPECT_EQ(u.metadata.location, location);
  EXPECT_EQ(t.metadata.location, location + "-2");
  EXPECT_EQ(Names(*u.metadata.CurrentSchema()),
            (std::vector<std::string>{"id", "name", "qty", "note"}));
  EXPECT_EQ(Names(*t.metadata.CurrentSchema()), (std::vector<std::string>{"id", "name", "qty"}));
  EXPECT_NE(u.metadata.table_uuid, t.metadata.table_uuid);

  // Once more: the default and "-2" are both held, the next table gets "-3".
  ASSERT_NO_FATAL_FAILURE(CreateRenameCreate(*resolver, *catalog_, true, "v"));
  EXPECT_EQ(Load({{"a"}, "v"}).metadata.location, location + "-2");
  EXPECT_EQ(Load({{"a"}, "t"}).metadata.location, location + "-3");
  EXPECT_EQ(Load({{"a"}, "u"}).metadata.location, location);
  EXPECT_EQ(stats_.tables_created.load(), 3);
}

// A renamed table that never committed (only its first metadata file, e.g.
// an empty source table renamed before any row) still holds the default
// location by the catalog's records: the new table takes the next one.
TEST_F(TableResolverMirrorTest, CreateAfterRenamingATableThatNeverCommitted) {
  // The renamed table has only its first metadata file: its folder holds no
  // committed files, but the catalog still names that file as a table's.
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  const std::string location = catalog_->DefaultTableLocation({{"a"}, "t"});
  ASSERT_NO_FATAL_FAILURE(CreateRenameCreate(*resolver, *catalog_, false, "u"));
  const iceberg::LoadedTable u = Load({{"a"}, "u"});
  const iceberg::LoadedTable t = Load({{"a"}, "t"});
  EXPECT_EQ(u.metadata.location, location);
  EXPECT_NE(t.metadata.location, location);
  EXPECT_NE(u.metadata.table_uuid, t.metadata.table_uuid);
}

}  // namespace
}  // namespace floe::ingest
