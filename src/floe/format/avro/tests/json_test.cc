// Datums as JSON: the conventions `floe avro cat` prints and `floe avro write` reads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "floe/format/avro/json.h"

namespace floe::format::avro {
namespace {

std::string ToJson(std::string_view schema_text, const Datum& d, bool logical = true) {
  auto schema = Schema::Parse(schema_text);
  EXPECT_TRUE(schema) << schema.error().ToString();
  std::string out;
  AppendDatumJson(schema->root(), d, {.logical_types = logical}, &out);
  return out;
}

TEST(AvroJsonTest, PlainValues) {
  EXPECT_EQ(ToJson("\"null\"", Datum::Null()), "null");
  EXPECT_EQ(ToJson("\"boolean\"", Datum::Boolean(true)), "true");
  EXPECT_EQ(ToJson("\"long\"", Datum::Long(-9007199254740993)), "-9007199254740993");
  EXPECT_EQ(ToJson("\"float\"", Datum::Float(1.5f)), "1.5");
  EXPECT_EQ(ToJson("\"double\"", Datum::Double(3)), "3.0");
  EXPECT_EQ(ToJson("\"double\"", Datum::Double(0.1)), "0.1");
  EXPECT_EQ(ToJson("\"double\"", Datum::Double(std::nan(""))), "\"NaN\"");
  EXPECT_EQ(ToJson("\"float\"", Datum::Float(-std::numeric_limits<float>::infinity())),
            "\"-Infinity\"");
  EXPECT_EQ(ToJson("\"string\"", Datum::String("a\"b\n\x01\xff")),
            "\"a\\\"b\\n\\u0001\xef\xbf\xbd\"");
  EXPECT_EQ(ToJson("\"bytes\"", Datum::Bytes("hello")), "\"aGVsbG8=\"");
  EXPECT_EQ(ToJson(R"({"type":"enum","name":"e","symbols":["A","B"]})", Datum::Enum(1)), "\"B\"");
  EXPECT_EQ(ToJson(R"(["null","int"])", Datum::Int(5).WithBranch(1)), "5");
  EXPECT_EQ(ToJson(R"({"type":"map","values":["null","string"]})",
                   Datum::Map({"k", "n"}, {Datum::String("v"), Datum::Null()})),
            R"({"k":"v","n":null})");
  EXPECT_EQ(
      ToJson(
          R"({"type":"record","name":"r","fields":[{"name":"a","type":{"type":"array","items":"int"}}]})",
          Datum::Record({Datum::Array({Datum::Int(1), Datum::Int(2)})})),
      R"({"a":[1,2]})");
}

TEST(AvroJsonTest, LogicalTypes) {
  EXPECT_EQ(ToJson(R"({"type":"int","logicalType":"date"})", Datum::Int(19782)), "\"2024-02-29\"");
  EXPECT_EQ(ToJson(R"({"type":"int","logicalType":"date"})", Datum::Int(-1)), "\"1969-12-31\"");
  EXPECT_EQ(ToJson(R"({"type":"int","logicalType":"date"})", Datum::Int(19782), false), "19782");
  EXPECT_EQ(ToJson(R"({"type":"long","logicalType":"time-micros"})", Datum::Long(49500000001)),
            "\"13:45:00.000001\"");
  EXPECT_EQ(ToJson(R"({"type":"int","logicalType":"time-millis"})", Datum::Int(1500)),
            "\"00:00:01.500000\"");
  EXPECT_EQ(
      ToJson(R"({"type":"long","logicalType":"timestamp-micros"})", Datum::Long(1709214300000001)),
      "\"2024-02-29T13:45:00.000001+00:00\"");
  EXPECT_EQ(ToJson(R"({"type":"long","logicalType":"timestamp-millis"})", Datum::Long(-1)),
            "\"1969-12-31T23:59:59.999000+00:00\"");
  EXPECT_EQ(ToJson(R"({"type":"long","logicalType":"local-timestamp-micros"})", Datum::Long(0)),
            "\"1970-01-01T00:00:00.000000\"");
  EXPECT_EQ(ToJson(R"({"type":"long","logicalType":"timestamp-nanos"})", Datum::Long(1)),
            "\"1970-01-01T00:00:00.000000001+00:00\"");
  const char* dec = R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})";
  EXPECT_EQ(ToJson(dec, Datum::Bytes(std::string("\x04\xd2", 2))), "\"12.34\"");
  EXPECT_EQ(ToJson(dec, Datum::Bytes(std::string("\xff\xce", 2))), "\"-0.50\"");
  EXPECT_EQ(ToJson(dec, Datum::Bytes("")), "\"0.00\"");
  EXPECT_EQ(
      ToJson(
          R"({"type":"fixed","name":"d","size":16,"logicalType":"decimal","precision":38,"scale":0})",
          Datum::Fixed(std::string("\x7f") + std::string(15, '\xff'))),
      "\"170141183460469231731687303715884105727\"");
  EXPECT_EQ(
      ToJson(R"({"type":"fixed","name":"u","size":16,"logicalType":"uuid"})",
             Datum::Fixed("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7")),
      "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
}

TEST(AvroJsonTest, FromJson) {
  auto schema = Schema::Parse(R"({"type":"record","name":"r","fields":[
      {"name":"i","type":"int"},
      {"name":"b","type":"bytes"},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
      {"name":"u","type":["null","long","string"]},
      {"name":"t","type":["null",{"type":"record","name":"s","fields":[{"name":"x","type":"int"}]}]},
      {"name":"d","type":"double"},
      {"name":"opt","type":["null","int"]},
      {"name":"def","type":"string","default":"dflt"}]})");
  ASSERT_TRUE(schema);
  auto d = DatumFromJson(
      schema->root(),
      Json::parse(R"({"i":1,"b":"aGk=","e":"Y","u":"str","t":{"s":{"x":2}},"d":"NaN"})"));
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(d->field(0), Datum::Int(1));
  EXPECT_EQ(d->field(1), Datum::Bytes("hi"));
  EXPECT_EQ(d->field(2), Datum::Enum(1));
  EXPECT_EQ(d->field(3), Datum::String("str"));
  EXPECT_EQ(d->field(3).branch(), 2);
  EXPECT_EQ(d->field(4), Datum::Record({Datum::Int(2)}));
  EXPECT_TRUE(std::isnan(d->field(5).double_value()));
  EXPECT_TRUE(d->field(6).is_null());
  EXPECT_EQ(d->field(7), Datum::String("dflt"));
  auto bad = DatumFromJson(schema->root(), Json::parse(R"({"i":"x","b":"","e":"X","d":1})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message().find("field 'i'"), std::string::npos) << bad.error().message();
  auto missing = DatumFromJson(schema->root(), Json::parse(R"({"b":"","e":"X","d":1})"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("'i' is required"), std::string::npos);
}

}  // namespace
}  // namespace floe::format::avro
