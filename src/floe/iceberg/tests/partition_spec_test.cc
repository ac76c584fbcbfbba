#include "floe/iceberg/partition_spec.h"

#include <gtest/gtest.h>

#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/types/temporal.h"

namespace floe::iceberg {
namespace {

using types::NestedField;
using types::Schema;
using types::Type;
using types::TypeId;
using types::Value;

Schema TestSchema() {
  std::vector<NestedField> loc = {{11, "lat", false, Type::Double(), ""},
                                  {12, "zip", false, Type::String(), ""}};
  return Schema({{1, "id", true, Type::Long(), ""},
                 {2, "name", false, Type::String(), ""},
                 {3, "region", false, Type::String(), ""},
                 {4, "ts", false, Type::Timestamp(), ""},
                 {5, "flag", false, Type::Boolean(), ""},
                 {6, "amount", false, Type::Decimal(9, 2).value(), ""},
                 {7, "tags", false, Type::List(8, false, Type::String()), ""},
                 {10, "location", false, Type::Struct(loc), ""}});
}

TEST(PartitionSpecTest, ParsesUserTextWithJavaDefaultNames) {
  Schema schema = TestSchema();
  auto spec = ParsePartitionSpecText("bucket(16, id), day(ts), truncate(4, name), identity(region)",
                                     schema);
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  ASSERT_EQ(spec->fields().size(), 4u);
  EXPECT_EQ(spec->fields()[0],
            (PartitionField{1, 1000, "id_bucket", Transform::Bucket(16).value()}));
  EXPECT_EQ(spec->fields()[1], (PartitionField{4, 1001, "ts_day", Transform::Day()}));
  EXPECT_EQ(spec->fields()[2],
            (PartitionField{2, 1002, "name_trunc", Transform::Truncate(4).value()}));
  EXPECT_EQ(spec->fields()[3], (PartitionField{3, 1003, "region", Transform::Identity()}));

  auto plain = ParsePartitionSpecText("id", schema);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->fields()[0], (PartitionField{1, 1000, "id", Transform::Identity()}));

  auto spark = ParsePartitionSpecText(
      "years(ts), MONTHS(ts), hours(ts), bucket(id, 8), truncate(name, 2) AS n2, location.zip",
      schema, 3, 1004);
  ASSERT_TRUE(spark.has_value()) << spark.error().ToString();
  EXPECT_EQ(spark->spec_id(), 3);
  EXPECT_EQ(spark->fields()[0].name, "ts_year");
  EXPECT_EQ(spark->fields()[0].field_id, 1005);
  EXPECT_EQ(spark->fields()[1].name, "ts_month");
  EXPECT_EQ(spark->fields()[2].name, "ts_hour");
  EXPECT_EQ(spark->fields()[3].transform, Transform::Bucket(8).value());
  EXPECT_EQ(spark->fields()[4].name, "n2");
  EXPECT_EQ(spark->fields()[5].name, "location.zip");
  EXPECT_EQ(spark->fields()[5].source_id, 12);

  auto quoted = ParsePartitionSpecText("day(`ts`), \"REGION\"", schema);
  ASSERT_TRUE(quoted.has_value()) << quoted.error().ToString();
  EXPECT_EQ(quoted->fields()[1].source_id, 3);

  EXPECT_TRUE(ParsePartitionSpecText("  ", schema)->fields().empty());
}

TEST(PartitionSpecTest, RejectsBadUserText) {
  Schema schema = TestSchema();
  auto unknown = ParsePartitionSpecText("bucket(16, nope)", schema);
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("nope"), std::string::npos);
  EXPECT_NE(unknown.error().message().find("id, name"), std::string::npos);

  auto bad_type = ParsePartitionSpecText("day(name)", schema);
  ASSERT_FALSE(bad_type.has_value());
  EXPECT_NE(bad_type.error().message().find("day cannot be applied"), std::string::npos);

  EXPECT_FALSE(ParsePartitionSpecText("bucket(flag, 4)", schema).has_value());  // boolean
  EXPECT_FALSE(ParsePartitionSpecText("bucket(0, id)", schema).has_value());
  EXPECT_FALSE(ParsePartitionSpecText("zorder(id)", schema).has_value());
  EXPECT_FALSE(ParsePartitionSpecText("day(ts", schema).has_value());
  EXPECT_FALSE(ParsePartitionSpecText("id id", schema).has_value());
  EXPECT_FALSE(ParsePartitionSpecText("id, id", schema).has_value());           // duplicate
  EXPECT_FALSE(ParsePartitionSpecText("tags", schema).has_value());             // list
  EXPECT_FALSE(ParsePartitionSpecText("day(ts) AS name", schema).has_value());  // shadows a column
  auto pos = ParsePartitionSpecText("id, day(ts), ???", schema);
  ASSERT_FALSE(pos.has_value());
  EXPECT_NE(pos.error().message().find("position 14"), std::string::npos) << pos.error().message();
}

TEST(PartitionSpecTest, PartitionTypeUsesFieldIdsAndResultTypes) {
  Schema schema = TestSchema();
  auto spec = ParsePartitionSpecText("bucket(16, id), day(ts), truncate(4, name), amount", schema);
  ASSERT_TRUE(spec.has_value());
  auto type = spec->PartitionType(schema);
  ASSERT_TRUE(type.has_value());
  const auto& fields = (*type)->fields();
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].id, 1000);
  EXPECT_EQ(fields[0].name, "id_bucket");
  EXPECT_EQ(fields[0].type->id(), TypeId::kInt);
  EXPECT_FALSE(fields[0].required);
  EXPECT_EQ(fields[1].type->id(), TypeId::kDate);
  EXPECT_EQ(fields[2].type->id(), TypeId::kString);
  EXPECT_EQ(fields[3].type->ToString(), Type::Decimal(9, 2).value()->ToString());
}

TEST(PartitionSpecTest, TransformerAndPartitionPath) {
  Schema schema = TestSchema();
  auto spec =
      ParsePartitionSpecText("day(ts), bucket(16, id), truncate(2, name), location.zip", schema);
  ASSERT_TRUE(spec.has_value());
  auto transformer = PartitionTransformer::Make(*spec, schema);
  ASSERT_TRUE(transformer.has_value()) << transformer.error().ToString();
  Value loc[] = {Value::Double(1.5), Value::Bytes("10 115/ä")};
  Value row[] = {
      Value::Int64(34), Value::Bytes("iceberg"),
      Value::Null(),    Value::Int64(types::ParseTimestamp("2024-02-29T13:45:00").value()),
      Value::Null(),    Value::Null(),
      Value::Null(),    Value::Struct(loc, 2)};
  Value out[4];
  ASSERT_TRUE(transformer->Apply(row, out).has_value());
  EXPECT_EQ(out[0].i32, types::ParseDate("2024-02-29").value());
  EXPECT_EQ(out[1].i32, 2017239379 % 16);
  EXPECT_EQ(out[2].as_bytes(), "ic");
  EXPECT_EQ(out[3].as_bytes(), "10 115/ä");
  auto path = spec->PartitionPath(schema, out);
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(*path, "ts_day=2024-02-29/id_bucket=3/name_trunc=ic/location.zip=10+115%2F%C3%A4");

  // A null struct gives null nested partition values.
  row[7] = Value::Null();
  ASSERT_TRUE(transformer->Apply(row, out).has_value());
  EXPECT_TRUE(out[3].is_null());
  EXPECT_EQ(spec->PartitionPath(schema, out).value(),
            "ts_day=2024-02-29/id_bucket=3/name_trunc=ic/location.zip=null");
}

TEST(PartitionSpecTest, EvolutionV2ReusesIdsAndSpecs) {
  Schema schema = TestSchema();
  PartitionSpec s0(0, {{1, 1000, "id_bucket", Transform::Bucket(16).value()},
                       {4, 1001, "ts_day", Transform::Day()}});
  std::vector<PartitionSpec> specs = {s0};

  // Remove ts_day, add region: new spec 1, region gets 1002.
  auto e1 = EvolvePartitionSpec(
      schema, specs, 0, 1001,
      {{1, "id_bucket", Transform::Bucket(16).value()}, {3, "region", Transform::Identity()}}, 2);
  ASSERT_TRUE(e1.has_value()) << e1.error().ToString();
  EXPECT_FALSE(e1->is_existing);
  EXPECT_EQ(e1->spec.spec_id(), 1);
  EXPECT_EQ(e1->spec.fields()[0].field_id, 1000);
  EXPECT_EQ(e1->spec.fields()[1].field_id, 1002);
  EXPECT_EQ(e1->last_partition_id, 1002);
  specs.push_back(e1->spec);

  // Re-add day(ts): its old id 1001 is reused.
  auto e2 = EvolvePartitionSpec(
      schema, specs, 1, 1002,
      {{3, "region", Transform::Identity()}, {4, "ts_day", Transform::Day()}}, 2);
  ASSERT_TRUE(e2.has_value());
  EXPECT_EQ(e2->spec.spec_id(), 2);
  EXPECT_EQ(e2->spec.fields()[0].field_id, 1002);
  EXPECT_EQ(e2->spec.fields()[1].field_id, 1001);
  EXPECT_EQ(e2->last_partition_id, 1002);

  // Going back to exactly spec 0 reuses spec 0.
  auto e3 = EvolvePartitionSpec(
      schema, specs, 1, 1002,
      {{1, "id_bucket", Transform::Bucket(16).value()}, {4, "ts_day", Transform::Day()}}, 2);
  ASSERT_TRUE(e3.has_value());
  EXPECT_TRUE(e3->is_existing);
  EXPECT_EQ(e3->spec.spec_id(), 0);

  // Changing the bucket count is a new field.
  auto e4 = EvolvePartitionSpec(schema, specs, 1, 1002,
                                {{1, "id_bucket", Transform::Bucket(32).value()}}, 2);
  ASSERT_TRUE(e4.has_value());
  EXPECT_EQ(e4->spec.fields()[0].field_id, 1003);

  // Invalid results are refused.
  EXPECT_FALSE(
      EvolvePartitionSpec(schema, specs, 1, 1002, {{2, "x", Transform::Day()}}, 2).has_value());
}

TEST(PartitionSpecTest, EvolutionV1KeepsFieldsAsVoid) {
  Schema schema = TestSchema();
  PartitionSpec s0(0, {{1, 1000, "id_bucket", Transform::Bucket(16).value()},
                       {4, 1001, "ts_day", Transform::Day()}});
  auto e = EvolvePartitionSpec(
      schema, {s0}, 0, 1001,
      {{4, "ts_day", Transform::Day()}, {3, "region", Transform::Identity()}}, 1);
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  ASSERT_EQ(e->spec.fields().size(), 3u);
  EXPECT_EQ(e->spec.fields()[0], (PartitionField{1, 1000, "id_bucket_1000", Transform::Void()}));
  EXPECT_EQ(e->spec.fields()[1], (PartitionField{4, 1001, "ts_day", Transform::Day()}));
  EXPECT_EQ(e->spec.fields()[2], (PartitionField{3, 1002, "region", Transform::Identity()}));
  EXPECT_FALSE(e->spec.is_unpartitioned());
}

TEST(PartitionSpecJsonTest, RoundTripsTheSpecExample) {
  const char* text =
      R"({"spec-id":0,"fields":[{"source-id":4,"field-id":1000,"name":"ts_day","transform":"day"},)"
      R"({"source-id":1,"field-id":1001,"name":"id_bucket","transform":"bucket[16]"}]})";
  auto spec = ParsePartitionSpecJson(text);
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  EXPECT_EQ(spec->fields()[1],
            (PartitionField{1, 1001, "id_bucket", Transform::Bucket(16).value()}));
  EXPECT_EQ(PartitionSpecToJsonText(*spec), text);
}

TEST(PartitionSpecJsonTest, ReadsV1BareArraysAndUnknownTransforms) {
  auto spec = ParsePartitionSpecJson(
      R"([{"source-id":4,"name":"ts_day","transform":"day"},
          {"source-id":1,"name":"id_z","transform":"zorder"}])",
      7);
  ASSERT_TRUE(spec.has_value()) << spec.error().ToString();
  EXPECT_EQ(spec->spec_id(), 7);
  EXPECT_EQ(spec->fields()[0].field_id, 1000);
  EXPECT_EQ(spec->fields()[1].field_id, 1001);
  EXPECT_TRUE(spec->fields()[1].transform.is_unknown());
  EXPECT_EQ(PartitionFieldsToJsonValue(*spec)[1]["transform"], "zorder");
}

TEST(PartitionSpecJsonTest, CorruptInputNamesTheField) {
  auto missing = ParsePartitionSpecJson(
      R"({"spec-id":0,"fields":[{"field-id":1000,"name":"a","transform":"day"}]})");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(missing.error().message().find("source-id"), std::string::npos);
  EXPECT_EQ(ParsePartitionSpecJson("{").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(ParsePartitionSpecJson(R"({"fields":[]})").error().code(), ErrorCode::kCorruption);
  EXPECT_EQ(ParsePartitionSpecJson(
                R"({"spec-id":0,"fields":[{"source-id":1,"name":"a","transform":"bucket[x]"}]})")
                .error()
                .code(),
            ErrorCode::kCorruption);
  EXPECT_EQ(ParsePartitionSpecJson(
                R"({"spec-id":0,"fields":[{"source-ids":[1,2],"name":"a","transform":"x"}]})")
                .error()
                .code(),
            ErrorCode::kNotSupported);
}

}  // namespace
}  // namespace floe::iceberg
