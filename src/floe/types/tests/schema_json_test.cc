#include "floe/types/schema_json.h"

#include <gtest/gtest.h>

namespace floe::types {
namespace {

constexpr const char* kSpecSchema = R"json({
  "type": "struct", "schema-id": 3, "identifier-field-ids": [1],
  "fields": [
    {"id": 1, "name": "id", "required": true, "type": "long"},
    {"id": 2, "name": "price", "required": false, "type": "decimal(9, 2)"},
    {"id": 3, "name": "hash", "required": false, "type": "fixed[16]"},
    {"id": 4, "name": "location", "required": false, "type": {
      "type": "struct", "fields": [
        {"id": 5, "name": "lat", "required": true, "type": "double"},
        {"id": 6, "name": "long", "required": true, "type": "double"}]}},
    {"id": 7, "name": "tags", "required": false, "type": {
      "type": "list", "element-id": 8, "element-required": false, "element": "string"}},
    {"id": 9, "name": "attrs", "required": false, "type": {
      "type": "map", "key-id": 10, "key": "string", "value-id": 11,
      "value-required": true, "value": "timestamptz"}}
  ]})json";

TEST(SchemaJsonTest, ParsesTheSpecFormAndRoundTrips) {
  auto schema = SchemaFromJson(nlohmann::json::parse(kSpecSchema));
  ASSERT_TRUE(schema) << schema.error().ToString();
  EXPECT_EQ(schema->schema_id(), 3);
  EXPECT_EQ(schema->identifier_field_ids(), std::vector<int32_t>{1});
  EXPECT_EQ(schema->highest_field_id(), 11);
  ASSERT_NE(schema->FindFieldByName("location.lat"), nullptr);
  EXPECT_EQ(schema->FindFieldByName("location.lat")->id, 5);
  EXPECT_EQ(schema->FindColumnName(8), "tags.element");
  EXPECT_EQ(schema->FindField(2)->type->precision(), 9);
  auto again = SchemaFromJson(SchemaToJson(*schema));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->Equals(*schema));
  EXPECT_EQ(SchemaToJson(*schema)["fields"][1]["type"], "decimal(9, 2)");
}

TEST(SchemaJsonTest, ErrorsNameThePath) {
  auto bad = SchemaFromJson(nlohmann::json::parse(
      R"({"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"lnog"}]})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message().find("fields[0].type"), std::string::npos);
  EXPECT_NE(bad.error().message().find("lnog"), std::string::npos);

  auto corrupt = SchemaFromJson(nlohmann::json::parse(R"({"type":"struct"})"), true);
  ASSERT_FALSE(corrupt);
  EXPECT_EQ(corrupt.error().code(), ErrorCode::kCorruption);
}

TEST(SchemaJsonTest, RejectsDuplicateIdsAndBadIdentifiers) {
  EXPECT_FALSE(SchemaFromJson(nlohmann::json::parse(
      R"({"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"int"},
                                    {"id":1,"name":"b","required":true,"type":"int"}]})")));
  EXPECT_FALSE(SchemaFromJson(nlohmann::json::parse(
      R"({"type":"struct","identifier-field-ids":[1],
          "fields":[{"id":1,"name":"a","required":false,"type":"int"}]})")));
  EXPECT_FALSE(SchemaFromJson(nlohmann::json::parse(
      R"({"type":"struct","identifier-field-ids":[1],
          "fields":[{"id":1,"name":"a","required":true,"type":"double"}]})")));
}

// Names go into JSON metadata: one that is not UTF-8 (a capture of a
// latin1-named column, a hand-made Schema) is refused by Validate, before a
// strict JSON writer could abort on it.
TEST(SchemaJsonTest, ValidateRefusesNamesThatAreNotUtf8) {
  Schema schema({NestedField{1, "ok", true, Type::Int(), ""},
                 NestedField{2, std::string("bad\xff"), false,
                             Type::Struct({NestedField{3, "x", false, Type::Int(), ""}}), ""}});
  auto status = schema.Validate();
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("not valid UTF-8 (byte 0xFF at offset 3)"),
            std::string::npos)
      << status.error().message();
  Schema fine({NestedField{1, "caf\xc3\xa9", true, Type::Int(), ""}});
  EXPECT_TRUE(fine.Validate().has_value());
}

TEST(TypeTest, ParsesPrimitiveNames) {
  EXPECT_EQ((*Type::ParsePrimitive("decimal(38,10)"))->scale(), 10);
  EXPECT_EQ((*Type::ParsePrimitive("fixed[3]"))->length(), 3);
  EXPECT_EQ((*Type::ParsePrimitive("timestamptz"))->id(), TypeId::kTimestampTz);
  EXPECT_FALSE(Type::ParsePrimitive("decimal(39,0)"));
  EXPECT_FALSE(Type::ParsePrimitive("decimal(5,6)"));
  EXPECT_FALSE(Type::ParsePrimitive("fixed[0]"));
  EXPECT_FALSE(Type::ParsePrimitive("varchar"));
}

// Schema JSON with `levels` nested types (lists, or structs) under field "a".
std::string NestedSchemaText(int levels, bool structs) {
  std::string open, close;
  for (int i = 0; i < levels; ++i) {
    std::string id = std::to_string(i + 2);
    open += structs ? R"({"type":"struct","fields":[{"id":)" + id +
                          R"(,"name":"f","required":false,"type":)"
                    : R"({"type":"list","element-id":)" + id +
                          R"(,"element-required":false,"element":)";
    close += structs ? "}]}" : "}";
  }
  return R"({"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":)" + open +
         "\"int\"" + close + "}]}";
}

TEST(SchemaJsonTest, TypesNestAtMostTheLimit) {
  for (bool structs : {false, true}) {
    auto ok = ParseSchemaText(NestedSchemaText(kMaxTypeDepth, structs), "deep.json");
    ASSERT_TRUE(ok) << ok.error().ToString();
    EXPECT_EQ(TypeDepth(*ok->fields()[0].type), kMaxTypeDepth);
    EXPECT_TRUE(CheckTypeDepth(*ok));
    auto wrapped = ParseSchemaText(R"({"schema":)" + NestedSchemaText(kMaxTypeDepth, structs) + "}",
                                   "wrapped.json");
    EXPECT_TRUE(wrapped) << wrapped.error().ToString();

    auto deeper = ParseSchemaText(NestedSchemaText(kMaxTypeDepth + 1, structs), "deep.json");
    ASSERT_FALSE(deeper);
    EXPECT_NE(deeper.error().message().find("deeper than the limit of 100 levels"),
              std::string::npos)
        << deeper.error().message();
  }
}

TEST(SchemaJsonTest, HostileNestingIsRefusedWithoutRecursion) {
  // A --schema file nested 50,000 levels overflowed the stack (C5).
  auto deep = ParseSchemaText(NestedSchemaText(50'000, false), "s.json");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(deep.error().message().find("s.json: JSON nested deeper than 310 levels"),
            std::string::npos)
      << deep.error().message();
  std::string brackets =
      R"({"type":"struct","fields":)" + std::string(200'000, '[') + std::string(200'000, ']') + "}";
  EXPECT_FALSE(ParseSchemaText(brackets, "b.json"));
  // A JSON value built elsewhere is bounded by the type depth while parsing.
  auto parsed = nlohmann::json::parse(NestedSchemaText(kMaxTypeDepth + 1, false));
  auto from_json = SchemaFromJson(parsed, /*corruption=*/true);
  ASSERT_FALSE(from_json);
  EXPECT_EQ(from_json.error().code(), ErrorCode::kCorruption);
}

TEST(SchemaJsonTest, CheckTypeDepthNamesTheField) {
  TypePtr type = *Type::ParsePrimitive("int");
  for (int i = 0; i < kMaxTypeDepth + 1; ++i) type = Type::List(i + 2, false, type);
  Schema schema({NestedField{1, "deep", false, type, ""}});
  auto status = CheckTypeDepth(schema);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            "schema field 'deep' nests types 101 levels deep, deeper than the limit of 100");
}

}  // namespace
}  // namespace floe::types
