// Schema JSON parsing and serialization: properties round-trip, names resolve.
#include <gtest/gtest.h>

#include <string>

#include "floe/format/avro/schema.h"

namespace floe::format::avro {
namespace {

// An Iceberg manifest-entry-like schema with field ids and custom properties.
constexpr const char* kIcebergLike = R"({
  "type": "record",
  "name": "manifest_entry",
  "fields": [
    {"name": "status", "type": "int", "field-id": 0},
    {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
    {"name": "data_file", "type": {
      "type": "record", "name": "r2", "fields": [
        {"name": "file_path", "type": "string", "doc": "Location URI", "field-id": 100},
        {"name": "column_sizes", "type": ["null", {
          "type": "array", "logicalType": "map",
          "items": {"type": "record", "name": "k117_v118", "fields": [
            {"name": "key", "type": "int", "field-id": 117},
            {"name": "value", "type": "long", "field-id": 118}]}
        }], "default": null, "field-id": 108},
        {"name": "tags", "type": {"type": "map", "values": "string", "key-id": 7, "value-id": 8}, "field-id": 6},
        {"name": "ids", "type": {"type": "array", "items": "int", "element-id": 9}, "field-id": 5},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true}, "field-id": 4},
        {"name": "amount", "type": {"type": "fixed", "name": "dec", "size": 9, "logicalType": "decimal", "precision": 20, "scale": 2}, "field-id": 3}
      ]}, "field-id": 2, "x-custom": {"nested": [1, 2, 3]}}
  ],
  "x-top": "kept"
})";

TEST(AvroSchemaTest, ParsesIcebergProperties) {
  auto schema = Schema::Parse(kIcebergLike);
  ASSERT_TRUE(schema) << schema.error().ToString();
  const Node& root = schema->root();
  ASSERT_EQ(root.type(), Type::kRecord);
  EXPECT_EQ(root.name(), "manifest_entry");
  ASSERT_EQ(root.fields().size(), 3u);
  EXPECT_EQ(root.fields()[0].field_id, 0);
  EXPECT_EQ(root.fields()[1].field_id, 1);
  ASSERT_TRUE(root.fields()[1].default_value);
  EXPECT_TRUE(root.fields()[1].default_value->is_null());
  const Node& data_file = *root.fields()[2].type;
  EXPECT_EQ(root.fields()[2].properties["x-custom"]["nested"][2], 3);
  EXPECT_EQ(data_file.fields()[0].doc, "Location URI");
  const Node& sizes = *data_file.fields()[1].type->branches()[1];
  EXPECT_EQ(sizes.type(), Type::kArray);
  EXPECT_EQ(sizes.logical_type(), "map");
  EXPECT_EQ(sizes.items()->fields()[1].field_id, 118);
  EXPECT_EQ(data_file.fields()[2].type->IntProperty("key-id"), 7);
  EXPECT_EQ(data_file.fields()[2].type->IntProperty("value-id"), 8);
  EXPECT_EQ(data_file.fields()[3].type->IntProperty("element-id"), 9);
  const Node& ts = *data_file.fields()[4].type;
  EXPECT_EQ(ts.logical_type(), "timestamp-micros");
  EXPECT_EQ(ts.properties()["adjust-to-utc"], true);
  const Node& amount = *data_file.fields()[5].type;
  EXPECT_EQ(amount.logical_type(), "decimal");
  EXPECT_EQ(amount.precision(), 20);
  EXPECT_EQ(amount.scale(), 2);
  EXPECT_EQ(amount.min_encoded_size(), 9u);
  EXPECT_EQ(root.properties()["x-top"], "kept");
}

TEST(AvroSchemaTest, JsonRoundTripKeepsEverything) {
  auto schema = Schema::Parse(kIcebergLike);
  ASSERT_TRUE(schema);
  Json original = Json::parse(kIcebergLike);
  Json written = schema->ToJson();
  // Same content (key order aside): compare as unordered JSON.
  EXPECT_EQ(nlohmann::json::parse(written.dump()), nlohmann::json::parse(original.dump()))
      << written.dump(2);
  // Writing the re-parsed schema again is a fixed point.
  auto again = Schema::Parse(schema->ToString());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->ToString(), schema->ToString());
}

TEST(AvroSchemaTest, NamespacesAndReferences) {
  auto schema = Schema::Parse(R"({
    "type": "record", "name": "Outer", "namespace": "a.b",
    "fields": [
      {"name": "x", "type": {"type": "fixed", "name": "F", "size": 4}},
      {"name": "y", "type": "F"},
      {"name": "z", "type": "a.b.F"},
      {"name": "w", "type": {"type": "enum", "name": "c.E", "symbols": ["P"]}},
      {"name": "v", "type": "c.E"},
      {"name": "self", "type": ["null", "Outer"]}
    ]})");
  ASSERT_TRUE(schema) << schema.error().ToString();
  const Node& root = schema->root();
  EXPECT_EQ(root.fullname(), "a.b.Outer");
  EXPECT_EQ(root.fields()[0].type->fullname(), "a.b.F");
  EXPECT_EQ(root.fields()[1].type, root.fields()[0].type);
  EXPECT_EQ(root.fields()[2].type, root.fields()[0].type);
  EXPECT_EQ(root.fields()[3].type->fullname(), "c.E");
  EXPECT_EQ(root.fields()[4].type, root.fields()[3].type);
  EXPECT_EQ(root.fields()[5].type->branches()[1], &root);
  // Serialized: defined once, then referenced; re-parses to the same thing.
  std::string text = schema->ToString();
  EXPECT_EQ(text.find("\"size\""), text.rfind("\"size\"")) << text;
  auto again = Schema::Parse(text);
  ASSERT_TRUE(again) << again.error().ToString() << "\n" << text;
  EXPECT_EQ(again->ToString(), text);
  EXPECT_EQ(again->root().fields()[3].type->fullname(), "c.E");
}

TEST(AvroSchemaTest, PrimitivesKeepTheirForm) {
  for (const char* text :
       {R"("int")", R"({"type":"int"})", R"({"type":"string","avro.java.string":"String"})",
        R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":2})",
        R"({"type":"int","logicalType":"date"})"}) {
    auto schema = Schema::Parse(text);
    ASSERT_TRUE(schema) << text;
    EXPECT_EQ(schema->ToString(), text);
  }
}

TEST(AvroSchemaTest, InvalidDecimalKeepsAttributesAsProperties) {
  auto schema = Schema::Parse(R"({"type":"bytes","logicalType":"decimal","precision":-1})");
  ASSERT_TRUE(schema);
  EXPECT_EQ(schema->root().logical_type(), "");
  EXPECT_EQ(schema->root().properties()["precision"], -1);
}

TEST(AvroSchemaTest, RejectsBadSchemas) {
  const char* bad[] = {
      "not json",
      R"("nosuchtype")",
      R"({"type":"record","name":"r"})",
      R"({"type":"record","name":"r","fields":[{"name":"a"}]})",
      R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})",
      R"({"type":"enum","name":"e","symbols":["A","A"]})",
      R"({"type":"fixed","name":"f"})",
      R"({"type":"fixed","name":"f","size":-1})",
      R"(["int","int"])",
      R"(["null",["int"]])",
      R"([])",
      R"({"type":"array"})",
      R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"fixed","name":"r","size":1}}]})",
      R"({"type":"record","name":"int","fields":[]})",
  };
  for (const char* text : bad) {
    auto schema = Schema::Parse(text);
    EXPECT_FALSE(schema) << text;
    if (!schema) {
      EXPECT_EQ(schema.error().code(), ErrorCode::kInvalidArgument) << text;
    }
  }
}

TEST(AvroSchemaTest, RejectsDeepNesting) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += R"({"type":"array","items":)";
  deep += "\"int\"";
  for (int i = 0; i < 10000; ++i) deep += "}";
  auto schema = Schema::Parse(deep);
  ASSERT_FALSE(schema);
  EXPECT_NE(schema.error().message().find("deeper"), std::string::npos);
  // Deep JSON inside an unknown property is refused too (it would be printed recursively).
  std::string prop =
      R"({"type":"int","x":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_FALSE(Schema::Parse(prop));
  // Moderate nesting is fine.
  std::string ok;
  for (int i = 0; i < 50; ++i) ok += R"({"type":"array","items":)";
  ok += "\"int\"";
  for (int i = 0; i < 50; ++i) ok += "}";
  EXPECT_TRUE(Schema::Parse(ok));
}

}  // namespace
}  // namespace floe::format::avro
