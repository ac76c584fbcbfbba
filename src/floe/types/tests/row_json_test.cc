#include "floe/types/row_json.h"

#include <gtest/gtest.h>

#include "floe/types/schema_json.h"

namespace floe::types {
namespace {

Schema AllTypes() {
  return *SchemaFromJson(nlohmann::json::parse(R"json({"type":"struct","fields":[
    {"id":1,"name":"b","required":false,"type":"boolean"},
    {"id":2,"name":"i","required":true,"type":"int"},
    {"id":3,"name":"l","required":false,"type":"long"},
    {"id":4,"name":"f","required":false,"type":"float"},
    {"id":5,"name":"d","required":false,"type":"double"},
    {"id":6,"name":"dec","required":false,"type":"decimal(10, 2)"},
    {"id":7,"name":"date","required":false,"type":"date"},
    {"id":8,"name":"time","required":false,"type":"time"},
    {"id":9,"name":"ts","required":false,"type":"timestamp"},
    {"id":10,"name":"tstz","required":false,"type":"timestamptz"},
    {"id":11,"name":"s","required":false,"type":"string"},
    {"id":12,"name":"u","required":false,"type":"uuid"},
    {"id":13,"name":"fx","required":false,"type":"fixed[2]"},
    {"id":14,"name":"bin","required":false,"type":"binary"},
    {"id":15,"name":"st","required":false,"type":{"type":"struct","fields":[
       {"id":16,"name":"x","required":true,"type":"int"}]}},
    {"id":17,"name":"li","required":false,"type":{"type":"list","element-id":18,
       "element-required":false,"element":{"type":"list","element-id":19,
       "element-required":true,"element":"long"}}},
    {"id":20,"name":"m","required":false,"type":{"type":"map","key-id":21,"key":"string",
       "value-id":22,"value-required":false,"value":"double"}}
  ]})json"));
}

TEST(RowJsonTest, RoundTripsEveryType) {
  Schema schema = AllTypes();
  JsonRowParser parser(schema);
  Arena arena;
  const std::string line =
      R"({"b":true,"i":-2147483648,"l":9223372036854775807,"f":0.1,"d":"NaN","dec":"-12.30",)"
      R"("date":"2024-02-29","time":"23:59:59.999999","ts":"1970-01-01T00:00:00.000001",)"
      R"("tstz":"2024-02-29T12:34:56.123456+00:00","s":"h\u00e9llo \"w\" 世界 😀",)"
      R"("u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"AAE=","bin":"",)"
      R"("st":{"x":7},"li":[[1,2],[],null],"m":[{"key":"a","value":"-Infinity"},{"key":"b","value":null}]})";
  auto row = parser.Parse(line, &arena);
  ASSERT_TRUE(row) << row.error().ToString();
  std::string out;
  AppendRowJson(schema, *row, &out);
  EXPECT_EQ(out,
            R"({"b":true,"i":-2147483648,"l":9223372036854775807,"f":0.1,"d":"NaN","dec":"-12.30",)"
            R"("date":"2024-02-29","time":"23:59:59.999999","ts":"1970-01-01T00:00:00.000001",)"
            R"("tstz":"2024-02-29T12:34:56.123456+00:00","s":"héllo \"w\" 世界 😀",)"
            R"("u":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fx":"AAE=","bin":"",)"
            R"("st":{"x":7},"li":[[1,2],[],null],"m":[{"key":"a","value":"-Infinity"},{"key":"b","value":null}]})");
}

TEST(RowJsonTest, MissingFieldsAreNullAndOrderDoesNotMatter) {
  Schema schema = AllTypes();
  JsonRowParser parser(schema);
  Arena arena;
  auto row = parser.Parse(R"({"s":"x","unknown":[1,{"a":2}],"i":5})", &arena);
  ASSERT_TRUE(row) << row.error().ToString();
  EXPECT_EQ((*row)[1].i32, 5);
  EXPECT_TRUE((*row)[0].is_null());
  EXPECT_EQ((*row)[10].as_bytes(), "x");
}

TEST(RowJsonTest, ErrorsNameTheField) {
  Schema schema = AllTypes();
  JsonRowParser parser(schema);
  Arena arena;
  auto expect_error = [&](const std::string& line, const std::string& needle) {
    auto row = parser.Parse(line, &arena);
    ASSERT_FALSE(row) << line;
    EXPECT_NE(row.error().message().find(needle), std::string::npos)
        << row.error().message() << " should mention " << needle;
  };
  expect_error(R"({"l":1})", "field 'i': is required but missing");
  expect_error(R"({"i":null})", "field 'i': is required but null");
  expect_error(R"({"i":"5"})", "field 'i': expected int, got string");
  expect_error(R"({"i":5000000000})", "out of range for int");
  expect_error(R"({"i":1.5})", "field 'i'");
  expect_error(R"({"i":1,"st":{}})", "field 'st.x': is required but missing");
  expect_error(R"({"i":1,"li":[[1,null]]})", "field 'li.element.element'");
  expect_error(R"({"i":1,"dec":"1.234"})", "field 'dec'");
  expect_error(R"({"i":1,"fx":"AAAA"})", "expected 2 bytes");
  expect_error(R"({"i":1,"date":"2024-02-30"})", "field 'date'");
  expect_error(R"({"i":1,)", "invalid JSON");
  expect_error(R"([1,2])", "must be a JSON object");
  // Regression (fuzz/row_json): a second object on the line was dropped.
  expect_error(R"({"i":1}{"i":2})", "content after the row object at offset 7");
  expect_error(R"({"i":1} x)", "content after the row object at offset 8");
  expect_error(R"({"i":1}})", "content after the row object at offset 7");
  expect_error(R"({"s":"}"} x)", "content after the row object at offset 10");
}

TEST(RowJsonTest, DecimalAcceptsJsonNumbersExactly) {
  Schema schema = AllTypes();
  JsonRowParser parser(schema);
  Arena arena;
  auto row = parser.Parse(R"({"i":1,"dec":12345678.91})", &arena);
  ASSERT_TRUE(row) << row.error().ToString();
  EXPECT_EQ((*row)[5].decimal, 1234567891);
}

TEST(RowJsonTest, InvalidUtf8IsReplacedInOutput) {
  Schema schema = AllTypes();
  Value values[17];
  values[1] = Value::Int32(1);
  values[10] = Value::Bytes(std::string_view("a\xff" "b\x01", 4));
  std::string out;
  AppendRowJson(schema, Row(values, 17), &out);
  EXPECT_NE(out.find(R"("s":"a)" "\xEF\xBF\xBD" R"(b\u0001")"), std::string::npos) << out;
}

}  // namespace
}  // namespace floe::types
