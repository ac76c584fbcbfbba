#include "floe/iceberg/update/schema_update.h"

#include <gtest/gtest.h>

#include "floe/iceberg/update/table_metadata_builder.h"

namespace floe::iceberg {
namespace {

using types::NestedField;
using types::Type;

types::Schema TestSchema() {
  auto point =
      Type::Struct({{5, "x", true, Type::Double(), ""}, {6, "y", true, Type::Double(), ""}});
  auto price = *Type::Decimal(9, 2);
  return types::Schema(
      {{1, "id", true, Type::Long(), ""},
       {2, "name", false, Type::String(), ""},
       {3, "count", true, Type::Int(), ""},
       {4, "location", false, point, ""},
       {7, "price", false, price, ""},
       {8, "ratio", false, Type::Float(), ""},
       {9, "points", false,
        Type::List(10, true, Type::Struct({{11, "lat", true, Type::Double(), ""}})), ""}},
      0, {1});
}

UpdateSchema Update(std::set<int32_t> partition_sources = {}, int version = 2) {
  return UpdateSchema(TestSchema(), 11, {version, std::move(partition_sources)});
}

std::vector<std::string> TopNames(const types::Schema& s) {
  std::vector<std::string> out;
  for (const auto& f : s.fields()) out.push_back(f.name);
  return out;
}

TEST(SchemaUpdateTest, AddOptionalColumnsGetNewIds) {
  auto u = Update();
  auto tags = Type::Map(1, Type::String(), 2, false, Type::String());  // ids replaced
  u.AddColumn("email", Type::String(), "contact").AddColumn("tags", tags);
  u.AddColumn("location", "z", Type::Double());
  u.AddColumn("points", "lon", Type::Double());
  auto r = u.Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->last_column_id, 17);
  const NestedField* email = r->schema.FindFieldByName("email");
  ASSERT_NE(email, nullptr);
  EXPECT_EQ(email->id, 12);
  EXPECT_FALSE(email->required);
  EXPECT_EQ(email->doc, "contact");
  const NestedField* t = r->schema.FindFieldByName("tags");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->id, 13);
  EXPECT_EQ(t->type->key().id, 14);
  EXPECT_EQ(t->type->value().id, 15);
  EXPECT_EQ(r->schema.FindFieldByName("location.z")->id, 16);
  EXPECT_EQ(r->schema.FindFieldByName("points.element.lon")->id, 17);
  EXPECT_EQ(r->schema.identifier_field_ids(), std::vector<int32_t>{1});
}

TEST(SchemaUpdateTest, AddRequiredColumnIsRefusedWithTheRule) {
  auto r = Update().AddColumn("", "must", Type::Int(), /*required=*/true).Apply();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(r.error().message().find("a required column cannot be added to a v2 table"),
            std::string::npos);
  auto v3 = Update({}, 3).AddColumn("", "must", Type::Int(), true).Apply();
  ASSERT_FALSE(v3);
  EXPECT_EQ(v3.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(v3.error().message().find("initial-default"), std::string::npos);
}

TEST(SchemaUpdateTest, AddClashingOrMisplacedColumnsIsRefused) {
  EXPECT_EQ(Update().AddColumn("name", Type::String()).Apply().error().code(),
            ErrorCode::kSchemaIncompatible);
  EXPECT_EQ(Update().AddColumn("a.b", Type::String()).Apply().error().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(Update().AddColumn("name", "x", Type::String()).Apply().error().code(),
            ErrorCode::kSchemaIncompatible);  // parent is a string
  EXPECT_EQ(Update().AddColumn("nope", "x", Type::String()).Apply().error().code(),
            ErrorCode::kInvalidArgument);
  // Dropping a column frees its name.
  auto r = Update().DeleteColumn("name").AddColumn("name", Type::Long()).Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->schema.FindFieldByName("name")->id, 12);
}

TEST(SchemaUpdateTest, DropColumns) {
  auto r = Update().DeleteColumn("name").DeleteColumn("location.y").Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->schema.FindFieldByName("name"), nullptr);
  EXPECT_EQ(r->schema.FindFieldByName("location.y"), nullptr);
  EXPECT_NE(r->schema.FindFieldByName("location.x"), nullptr);
  EXPECT_EQ(r->last_column_id, 11);  // ids are never reused
}

TEST(SchemaUpdateTest, DropStructHoldingAnIdentifierFieldIsRefused) {
  auto key =
      Type::Struct({{3, "tenant", true, Type::Long(), ""}, {4, "n", false, Type::Int(), ""}});
  types::Schema schema({{1, "id", true, Type::Long(), ""}, {2, "key", true, key, ""}}, 0, {3});
  auto dropped = UpdateSchema(schema, 4, {2, {}}).DeleteColumn("key").Apply();
  ASSERT_FALSE(dropped);
  EXPECT_EQ(dropped.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(dropped.error().message().find("key.tenant"), std::string::npos)
      << dropped.error().message();
  // Other fields of the struct may go; after changing the identifier fields, the struct too.
  ASSERT_TRUE(UpdateSchema(schema, 4, {2, {}}).DeleteColumn("key.n").Apply());
  auto ok =
      UpdateSchema(schema, 4, {2, {}}).SetIdentifierFields({"id"}).DeleteColumn("key").Apply();
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->schema.identifier_field_ids(), std::vector<int32_t>{1});
}

TEST(SchemaUpdateTest, DropIdentifierOrPartitionSourceIsRefused) {
  auto id = Update().DeleteColumn("id").Apply();
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(id.error().message().find("identifier field"), std::string::npos);
  auto part = Update({3}).DeleteColumn("count").Apply();
  ASSERT_FALSE(part);
  EXPECT_EQ(part.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(part.error().message().find("partition spec"), std::string::npos);
  // Changing the identifier fields first makes the drop legal.
  auto ok = Update().SetIdentifierFields({"count"}).DeleteColumn("id").Apply();
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->schema.identifier_field_ids(), std::vector<int32_t>{3});
}

TEST(SchemaUpdateTest, RenameKeepsIds) {
  auto r = Update().RenameColumn("name", "full_name").RenameColumn("location.x", "lon").Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->schema.FindFieldByName("full_name")->id, 2);
  EXPECT_EQ(r->schema.FindFieldByName("location.lon")->id, 5);
  auto clash = Update().RenameColumn("name", "id").Apply();
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code(), ErrorCode::kSchemaIncompatible);
}

TEST(SchemaUpdateTest, Reorder) {
  auto r = Update()
               .MoveFirst("price")
               .MoveAfter("id", "count")
               .MoveBefore("location.y", "location.x")
               .Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(TopNames(r->schema), (std::vector<std::string>{"price", "name", "count", "id",
                                                           "location", "ratio", "points"}));
  EXPECT_EQ(r->schema.FindFieldByName("location")->type->fields()[0].name, "y");
  // A new column can be placed too.
  auto added = Update().AddColumn("email", Type::String()).MoveAfter("email", "id").Apply();
  ASSERT_TRUE(added) << added.error().ToString();
  EXPECT_EQ(TopNames(added->schema)[1], "email");
  auto across = Update().MoveAfter("location.x", "id").Apply();
  ASSERT_FALSE(across);
  EXPECT_EQ(across.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(across.error().message().find("within one struct"), std::string::npos);
  EXPECT_EQ(Update().MoveAfter("id", "id").Apply().error().code(), ErrorCode::kInvalidArgument);
}

TEST(SchemaUpdateTest, AllowedPromotions) {
  auto r = Update()
               .UpdateColumn("count", Type::Long())
               .UpdateColumn("ratio", Type::Double())
               .UpdateColumn("price", *Type::Decimal(18, 2))
               .Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->schema.FindFieldByName("count")->type->id(), types::TypeId::kLong);
  EXPECT_TRUE(r->schema.FindFieldByName("count")->required);
  EXPECT_EQ(r->schema.FindFieldByName("ratio")->type->id(), types::TypeId::kDouble);
  EXPECT_EQ(r->schema.FindFieldByName("price")->type->precision(), 18);
}

TEST(SchemaUpdateTest, OtherTypeChangesAreRefusedNamingTheRule) {
  struct Case {
    const char* column;
    types::TypePtr type;
  };
  std::vector<Case> cases = {
      {"name", Type::Int()},            // string -> int
      {"id", Type::Int()},              // long -> int (narrowing)
      {"count", Type::String()},        // int -> string
      {"ratio", Type::Long()},          // float -> long
      {"price", *Type::Decimal(9, 3)},  // scale change
      {"price", *Type::Decimal(8, 2)},  // precision narrowing
      {"location", Type::String()},     // struct -> primitive
  };
  for (const auto& c : cases) {
    auto r = Update().UpdateColumn(c.column, c.type).Apply();
    ASSERT_FALSE(r) << c.column << " -> " << c.type->ToString();
    EXPECT_EQ(r.error().code(), ErrorCode::kSchemaIncompatible);
    EXPECT_NE(r.error().message().find("int -> long"), std::string::npos) << r.error().message();
  }
}

TEST(SchemaUpdateTest, RequiredToOptionalOnlyOneWay) {
  auto r = Update().MakeColumnOptional("count").Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_FALSE(r->schema.FindFieldByName("count")->required);
  auto back = Update().RequireColumn("name").Apply();
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(back.error().message().find("cannot become required"), std::string::npos);
  EXPECT_EQ(Update().MakeColumnOptional("id").Apply().error().code(),
            ErrorCode::kSchemaIncompatible);  // identifier field
}

TEST(SchemaUpdateTest, IdentifierFieldRules) {
  auto ok = Update().SetIdentifierFields({"id", "location.x"}).Apply();
  EXPECT_FALSE(ok);  // location.x is a double
  EXPECT_EQ(ok.error().code(), ErrorCode::kSchemaIncompatible);
  auto optional = Update().SetIdentifierFields({"name"}).Apply();
  ASSERT_FALSE(optional);
  EXPECT_EQ(optional.error().code(), ErrorCode::kSchemaIncompatible);
  auto good = Update().SetIdentifierFields({"id", "count"}).Apply();
  ASSERT_TRUE(good) << good.error().ToString();
  EXPECT_EQ(good->schema.identifier_field_ids(), (std::vector<int32_t>{1, 3}));
}

TEST(SchemaUpdateTest, CommitsThroughTheBuilder) {
  auto builder = TableMetadataBuilder::ForNewTable(2, {.now_ms = 1});
  ASSERT_TRUE(builder);
  ASSERT_TRUE(builder->ApplyAll({update::AddSchema{TestSchema(), {}}, update::SetCurrentSchema{-1},
                                 update::SetLocation{"file:///t"}}));
  auto m = builder->Build();
  ASSERT_TRUE(m) << m.error().ToString();
  auto u = UpdateSchema::ForTable(*m);
  u.AddColumn("email", Type::String());
  auto r = u.Apply();
  ASSERT_TRUE(r) << r.error().ToString();
  auto next = CommitTableChanges(
      &*m, "v1.metadata.json",
      {requirement::AssertCurrentSchemaId{0}, requirement::AssertLastAssignedFieldId{11}},
      {update::AddSchema{r->schema, r->last_column_id}, update::SetCurrentSchema{-1}});
  ASSERT_TRUE(next) << next.error().ToString();
  EXPECT_EQ(next->current_schema_id, 1);
  EXPECT_EQ(next->last_column_id, 12);
  EXPECT_EQ(next->schemas.size(), 2u);
}

}  // namespace
}  // namespace floe::iceberg
