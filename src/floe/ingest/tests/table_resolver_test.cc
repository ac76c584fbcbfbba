#include "floe/ingest/table_resolver.h"

#include <gtest/gtest.h>

#include "floe/ingest/tests/test_catalog.h"

namespace floe::ingest {
namespace {

using types::NestedField;
using types::Schema;
using types::Type;
using types::Value;

std::shared_ptr<const Schema> RowSchema(std::vector<NestedField> fields) {
  return std::make_shared<const Schema>(std::move(fields));
}

NestedField Field(int32_t id, std::string name, types::TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(type), ""};
}

class TableResolverTest : public ::testing::Test {
 protected:
  TableResolverTest() : catalog_(testing::MakeHadoopCatalog(dir_ / "warehouse")) {}

  std::unique_ptr<TableResolver> Make(TableResolverOptions options) {
    EXPECT_TRUE(ValidateTableResolverOptions(options).has_value());
    return std::make_unique<TableResolver>(std::move(options), catalog_, &stats_);
  }

  testing::TempDir dir_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  IngestStats stats_;
};

TEST_F(TableResolverTest, RouteCreatesTheTableAndItsNamespace) {
  auto resolver = Make({.route = "lake.{db}_{table}", .primary_key = {"id"}});
  auto row = RowSchema({Field(1, "id", Type::Long()), Field(2, "name", Type::String())});
  bool event_error = true;
  auto state = resolver->Resolve("shop", "orders", row, &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  EXPECT_FALSE(event_error);

  auto loaded = catalog_->LoadTable({{"lake"}, "shop_orders"});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().ToString();
  const Schema& schema = *loaded->metadata.CurrentSchema();
  ASSERT_EQ(schema.fields().size(), 2u);
  EXPECT_EQ(schema.fields()[0].name, "id");
  EXPECT_TRUE(schema.fields()[0].required);  // identifier fields are required
  EXPECT_EQ(schema.identifier_field_ids(), std::vector<int32_t>{schema.fields()[0].id});
  EXPECT_EQ(stats_.tables_created.load(), 1);

  const auto& target = TableResolver::TargetOf(*state);
  EXPECT_EQ(target->key, "lake.shop_orders");
  EXPECT_EQ(target->equality_field_ids, schema.identifier_field_ids());
  EXPECT_FALSE(target->upsert);

  // The same source table again is the same state; another one is a new table.
  auto again = resolver->Resolve("shop", "orders", row, &event_error);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *state);
  ASSERT_TRUE(resolver->Resolve("shop", "items", row, &event_error).has_value());
  EXPECT_EQ(resolver->TableNames(),
            (std::vector<std::string>{"lake.shop_items", "lake.shop_orders"}));
}

TEST_F(TableResolverTest, RouteTemplatesAreChecked) {
  TableResolverOptions bad{.route = "{db}.{tabel}"};
  auto s = ValidateTableResolverOptions(bad);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("{tabel}"), std::string::npos) << s.error().message();
  EXPECT_FALSE(ValidateTableResolverOptions({.route = "{table}"}).has_value());  // no namespace
  EXPECT_FALSE(ValidateTableResolverOptions({}).has_value());                    // neither
  EXPECT_FALSE(
      ValidateTableResolverOptions({.route = "a.{table}", .upsert = true, .overwrite = true})
          .has_value());
  auto id = RenderRoute("lake.{db}_{table}", "db1", "t");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->ToString(), "lake.db1_t");
  // A source name that is not a valid table name is the event's fault.
  auto resolver = Make({.route = "{db}.{table}"});
  bool event_error = false;
  auto state =
      resolver->Resolve("db", "a/b", RowSchema({Field(1, "x", Type::Int())}), &event_error);
  ASSERT_FALSE(state.has_value());
  EXPECT_TRUE(event_error);
  // So is a name no file system can hold as a folder (it failed every commit
  // with ENAMETOOLONG, which --on-error skip could not skip).
  std::string long_name(kMaxRoutedNameBytes + 1, 't');
  event_error = false;
  state = resolver->Resolve("db", long_name, RowSchema({Field(1, "x", Type::Int())}), &event_error);
  ASSERT_FALSE(state.has_value());
  EXPECT_TRUE(event_error);
  EXPECT_NE(state.error().message().find("longer than 240 bytes"), std::string::npos)
      << state.error().message();
  EXPECT_TRUE(RenderRoute("{db}.{table}", "db", std::string(kMaxRoutedNameBytes, 't')).has_value());
  EXPECT_FALSE(
      RenderRoute("{db}.{table}", std::string(kMaxRoutedNameBytes + 1, 'd'), "t").has_value());
}

TEST_F(TableResolverTest, MissingTableWithoutSchemaCannotBeCreated) {
  auto resolver = Make({.route = "{db}.{table}"});
  bool event_error = false;
  auto state = resolver->Resolve("db", "t", nullptr, &event_error);
  ASSERT_FALSE(state.has_value());
  EXPECT_TRUE(event_error);
  EXPECT_EQ(state.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(state.error().message().find("db.t does not exist"), std::string::npos)
      << state.error().message();
}

TEST_F(TableResolverTest, FixedTableFromSchemaFileWithPartitionSpec) {
  auto schema = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "ts", Type::Timestamp())});
  auto resolver = Make({.table = iceberg::TableIdentifier{{"a", "b"}, "events"},
                        .schema = schema,
                        .primary_key = {"id"},
                        .partition_by = "bucket(4,id)"});
  bool event_error = false;
  auto state = resolver->Resolve("x", "y", nullptr, &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  auto loaded = catalog_->LoadTable({{"a", "b"}, "events"});
  ASSERT_TRUE(loaded.has_value()) << loaded.error().ToString();
  ASSERT_NE(loaded->metadata.DefaultSpec(), nullptr);
  EXPECT_EQ(loaded->metadata.DefaultSpec()->fields().size(), 1u);
  // Every source table goes to the fixed one.
  auto other = resolver->Resolve("p", "q", nullptr, &event_error);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(*other, *state);
}

TEST_F(TableResolverTest, MappingReordersByNameAndFlagsNullRequiredColumns) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  auto v1 = RowSchema({Field(1, "id", Type::Long()), Field(2, "name", Type::String()),
                       Field(3, "qty", Type::Int())});
  bool event_error = false;
  auto state = resolver->Resolve("db", "t", v1, &event_error);
  ASSERT_TRUE(state.has_value());
  // An event schema with the columns in another order and one missing.
  auto shuffled = RowSchema({Field(1, "qty", Type::Int()), Field(2, "id", Type::Long())});
  auto mapping = resolver->MappingFor(*state, shuffled, &event_error);
  ASSERT_TRUE(mapping.has_value()) << mapping.error().ToString();
  Value in[2] = {Value::Int32(7), Value::Int64(42)};
  Value out[3];
  EXPECT_EQ((*mapping)->Map(types::Row(in, 2), std::span<Value>(out, 3), false), "");
  EXPECT_EQ(out[0].i64, 42);
  EXPECT_TRUE(out[1].is_null());
  EXPECT_EQ(out[2].i32, 7);
  Value null_key[2] = {Value::Int32(7), Value::Null()};
  EXPECT_EQ((*mapping)->Map(types::Row(null_key, 2), std::span<Value>(out, 3), true), "id");
}

TEST_F(TableResolverTest, ViewPassesTableRowsThroughAndCopiesOthers) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  auto v1 = RowSchema({Field(1, "id", Type::Long()), Field(2, "qty", Type::Long())});
  bool event_error = false;
  auto state = resolver->Resolve("db", "t", v1, &event_error);
  ASSERT_TRUE(state.has_value());
  Value out[2];
  std::string_view missing;
  // The table's columns in its order: the row itself, checked.
  auto same = resolver->MappingFor(*state, v1, &event_error);
  ASSERT_TRUE(same.has_value());
  Value in[2] = {Value::Int64(42), Value::Int64(7)};
  types::Row row = (*same)->View(types::Row(in, 2), std::span<Value>(out, 2), false, &missing);
  EXPECT_EQ(row.data(), in);
  EXPECT_EQ(missing, "");
  Value null_key[2] = {Value::Null(), Value::Int64(7)};
  (*same)->View(types::Row(null_key, 2), std::span<Value>(out, 2), true, &missing);
  EXPECT_EQ(missing, "id");
  // Another order, or a value to widen: a copy in table order.
  auto swapped = RowSchema({Field(1, "qty", Type::Long()), Field(2, "id", Type::Long())});
  auto reordered = resolver->MappingFor(*state, swapped, &event_error);
  ASSERT_TRUE(reordered.has_value());
  row = (*reordered)->View(types::Row(in, 2), std::span<Value>(out, 2), false, &missing);
  EXPECT_EQ(row.data(), out);
  EXPECT_EQ(out[0].i64, 7);
  EXPECT_EQ(out[1].i64, 42);
  auto narrow = RowSchema({Field(1, "id", Type::Long()), Field(2, "qty", Type::Int())});
  auto widened = resolver->MappingFor(*state, narrow, &event_error);
  ASSERT_TRUE(widened.has_value());
  Value small[2] = {Value::Int64(1), Value::Int32(5)};
  row = (*widened)->View(types::Row(small, 2), std::span<Value>(out, 2), false, &missing);
  EXPECT_EQ(row.data(), out);
  EXPECT_EQ(out[1].kind, Value::Kind::kInt64);
  EXPECT_EQ(out[1].i64, 5);
}

TEST_F(TableResolverTest, EvolutionAddsColumnsWidensAndIsIdempotent) {
  auto v1 = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "qty", Type::Int()),
                       Field(3, "price", *Type::Decimal(9, 2))});
  auto v2 = RowSchema({Field(1, "id", Type::Long(), true), Field(2, "qty", Type::Long()),
                       Field(3, "price", *Type::Decimal(12, 2)), Field(4, "note", Type::String())});
  {
    auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
    bool event_error = false;
    auto state = resolver->Resolve("db", "t", v1, &event_error);
    ASSERT_TRUE(state.has_value());
    auto m1 = resolver->MappingFor(*state, v1, &event_error);
    ASSERT_TRUE(m1.has_value());
    auto target1 = (*m1)->target();

    auto m2 = resolver->MappingFor(*state, v2, &event_error);
    ASSERT_TRUE(m2.has_value()) << m2.error().ToString();
    auto target2 = (*m2)->target();
    EXPECT_NE(target1, target2);  // a new table version is a new target
    EXPECT_EQ(target1->metadata->CurrentSchema()->fields().size(), 3u);  // immutable
    const Schema& evolved = *target2->metadata->CurrentSchema();
    ASSERT_EQ(evolved.fields().size(), 4u);
    EXPECT_EQ(evolved.fields()[1].type->ToString(), "long");
    EXPECT_EQ(evolved.fields()[2].type->ToString(), "decimal(12, 2)");
    EXPECT_EQ(evolved.fields()[3].name, "note");
    EXPECT_FALSE(evolved.fields()[3].required);
    EXPECT_EQ(stats_.schema_changes.load(), 1);

    // The table in the catalog has it already.
    auto loaded = catalog_->LoadTable({{"db"}, "t"});
    ASSERT_TRUE(loaded.has_value());
    EXPECT_TRUE(loaded->metadata.CurrentSchema()->Equals(evolved));

    // Old-schema rows still map, int widened to long.
    auto m1again = resolver->MappingFor(*state, v1, &event_error);
    ASSERT_TRUE(m1again.has_value());
    EXPECT_EQ((*m1again)->target(), target2);
    Value in[3] = {Value::Int64(1), Value::Int32(5), Value::Decimal(1234)};
    Value out[4];
    EXPECT_EQ((*m1again)->Map(types::Row(in, 3), std::span<Value>(out, 4), false), "");
    EXPECT_EQ(out[1].kind, Value::Kind::kInt64);
    EXPECT_EQ(out[1].i64, 5);
    EXPECT_TRUE(out[3].is_null());
  }
  // A restart replaying the same events commits nothing new.
  size_t schemas_before = catalog_->LoadTable({{"db"}, "t"})->metadata.schemas.size();
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"id"}});
  bool event_error = false;
  auto state = resolver->Resolve("db", "t", v1, &event_error);
  ASSERT_TRUE(state.has_value());
  ASSERT_TRUE(resolver->MappingFor(*state, v1, &event_error).has_value());
  ASSERT_TRUE(resolver->MappingFor(*state, v2, &event_error).has_value());
  EXPECT_EQ(stats_.schema_changes.load(), 1);
  EXPECT_EQ(catalog_->LoadTable({{"db"}, "t"})->metadata.schemas.size(), schemas_before);
}

TEST_F(TableResolverTest, IncompatibleChangeIsRefusedWithTableColumnAndTypes) {
  auto resolver = Make({.route = "{db}.{table}"});
  auto v1 = RowSchema({Field(1, "id", Type::Long()), Field(2, "code", Type::String())});
  auto bad = RowSchema({Field(1, "id", Type::Long()), Field(2, "code", Type::Int())});
  auto narrowed = RowSchema({Field(1, "id", Type::Int()), Field(2, "code", Type::String())});
  bool event_error = false;
  auto state = resolver->Resolve("db", "t", v1, &event_error);
  ASSERT_TRUE(state.has_value());
  auto mapping = resolver->MappingFor(*state, bad, &event_error);
  ASSERT_FALSE(mapping.has_value());
  EXPECT_TRUE(event_error);
  EXPECT_EQ(mapping.error().code(), ErrorCode::kSchemaIncompatible);
  const std::string& message = mapping.error().message();
  EXPECT_NE(message.find("db.t"), std::string::npos) << message;
  EXPECT_NE(message.find("'code'"), std::string::npos) << message;
  EXPECT_NE(message.find("from string to int"), std::string::npos) << message;
  // A narrower type than the table's is read into the table's type.
  auto ok = resolver->MappingFor(*state, narrowed, &event_error);
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ(TableResolver::SchemaOf(*state).fields()[0].type->ToString(), "long");
}

TEST_F(TableResolverTest, UpsertNeedsIdentifierFields) {
  auto resolver = Make({.route = "{db}.{table}", .upsert = true});
  bool event_error = true;
  auto state =
      resolver->Resolve("db", "t", RowSchema({Field(1, "id", Type::Long())}), &event_error);
  ASSERT_FALSE(state.has_value());
  EXPECT_FALSE(event_error);  // a configuration error: the job fails
  EXPECT_NE(state.error().message().find("upsert needs identifier fields"), std::string::npos)
      << state.error().message();

  auto with_key = Make({.route = "{db}.{table}", .primary_key = {"id"}, .upsert = true});
  auto keyed =
      with_key->Resolve("db", "u", RowSchema({Field(1, "id", Type::Long())}), &event_error);
  ASSERT_TRUE(keyed.has_value()) << keyed.error().ToString();
  EXPECT_TRUE(TableResolver::TargetOf(*keyed)->upsert);
}

TEST_F(TableResolverTest, UpsertFromTheTableProperty) {
  auto resolver = Make({.route = "{db}.{table}",
                        .primary_key = {"id"},
                        .table_properties = {{"write.upsert.enabled", "true"}}});
  bool event_error = false;
  auto state =
      resolver->Resolve("db", "t", RowSchema({Field(1, "id", Type::Long())}), &event_error);
  ASSERT_TRUE(state.has_value()) << state.error().ToString();
  EXPECT_TRUE(TableResolver::TargetOf(*state)->upsert);
}

TEST_F(TableResolverTest, PrimaryKeyMustBeAColumn) {
  auto resolver = Make({.route = "{db}.{table}", .primary_key = {"nope"}});
  bool event_error = false;
  auto state =
      resolver->Resolve("db", "t", RowSchema({Field(1, "id", Type::Long())}), &event_error);
  ASSERT_FALSE(state.has_value());
  EXPECT_NE(state.error().message().find("'nope'"), std::string::npos);
}

}  // namespace
}  // namespace floe::ingest
