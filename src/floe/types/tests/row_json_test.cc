#include "floe/types/row_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
  EXPECT_EQ(
      out,
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

Schema Flat() {
  return *SchemaFromJson(nlohmann::json::parse(R"json({"type":"struct","fields":[
    {"id":1,"name":"a","required":true,"type":"long"},
    {"id":2,"name":"b","required":false,"type":"string"},
    {"id":3,"name":"c","required":false,"type":"double"},
    {"id":4,"name":"a long member name","required":false,"type":"int"}
  ]})json"));
}

// The parser guesses each member from the order of the last object: rows
// whose order changes, or that skip, repeat or add members, read the same.
TEST(RowJsonTest, MemberOrderMayChangeFromRowToRow) {
  Schema schema = Flat();
  JsonRowParser parser(schema);
  Arena arena;
  auto expect_row = [&](const std::string& line, const std::string& want) {
    arena.Reset();
    auto row = parser.Parse(line, &arena);
    ASSERT_TRUE(row) << line << ": " << row.error().ToString();
    std::string out;
    AppendRowJson(schema, *row, &out);
    EXPECT_EQ(out, want) << line;
  };
  const std::string full = R"({"a":1,"b":"x","c":2.5,"a long member name":7})";
  expect_row(R"({"a":1,"b":"x","c":2.5,"a long member name":7})", full);
  expect_row(R"({"a long member name":7,"c":2.5,"b":"x","a":1})", full);
  expect_row(R"({"a long member name":7,"c":2.5,"b":"x","a":1})", full);  // learned order
  expect_row(R"({"a":1,"b":"x","c":2.5,"a long member name":7})", full);  // and back
  expect_row(R"({"c":2.5,"a":1})", R"({"a":1,"b":null,"c":2.5,"a long member name":null})");
  // Unknown members (of any kind, nested) are skipped, wherever they are.
  expect_row(R"({"z":{"a":[1,{"b":null}],"c":"\"}"},"a":1,"q":[],"b":"x","c":2.5,)"
             R"("a long member name":7,"r":-1.5e3})",
             full);
  // A member given twice keeps its last value.
  expect_row(R"({"a":5,"b":"y","a":1,"b":"x","c":2.5,"a long member name":7})", full);
  expect_row(R"({"a":1,"b":"x","b":null})",
             R"({"a":1,"b":null,"c":null,"a long member name":null})");
  // Names with escapes, and a name that only starts like a field's.
  expect_row(R"({"\u0061":1,"b\u0000":"no","\/b":"no","ab":2,"b":"x"})",
             R"({"a":1,"b":"x","c":null,"a long member name":null})");
  // White space anywhere between tokens.
  expect_row(" \t{ \"a\" :\n1 , \"b\"\r\n:\"x\" ,\"c\": 2.5 ,\"a long member name\" : 7 } \r\n",
             full);
}

// What is not one JSON object of RFC 8259 is refused, whichever member it is
// in, known or not (nlohmann::json agrees that each line is invalid).
TEST(RowJsonTest, RefusesWhatIsNotJson) {
  Schema schema = Flat();
  JsonRowParser parser(schema);
  Arena arena;
  const std::vector<std::string> lines = {
      R"({"a":1,})",
      R"({"a":1 "b":"x"})",
      R"({"a":01})",
      R"({"a":1.})",
      R"({"a":-})",
      R"({"a":1,"c":.5})",
      R"({"a":1,"c":1e})",
      R"({"a":+1})",
      R"({"a":1,"b":"x)",
      R"({"a":1,"b":'x'})",
      R"({"a":1,"b":"\x"})",
      R"({"a":1,"b":"\u12"})",
      R"({a:1})",
      R"({"a":1,"z":[1,]})",
      R"({"a":1,"z":{"k" 1}})",
      R"({"a":1,"z":tru})",
      R"({"a":1,"z":[[[]]})",
      R"({"a":1,"z":nul})",
      R"({"a":1,"z":"\q"})",
      "{\"a\":1,\"b\":\"tab\there\"}",
      "{\"a\":1,\"b\":\"\xff\"}",
      "{\"a\":1,\"b\":\"\xc3\"}",
      "{\"a\":1,\"b\":\"\xed\xa0\x80\"}",  // an encoded surrogate
      "{\"a\":1,\"z\":\"\xc0\xaf\"}",      // overlong, in an unknown member
      std::string(2000, '[') + std::string(2000, ']'),
      R"({"a":1,"z":)" + std::string(2000, '[') + std::string(2000, ']') + "}",
  };
  for (const std::string& line : lines) {
    EXPECT_FALSE(nlohmann::json::accept(line) && line.size() < 1000) << "not a bad line: " << line;
    arena.Reset();
    auto row = parser.Parse(line, &arena);
    EXPECT_FALSE(row) << "accepted: " << line;
  }
  // A NUL after the object (nlohmann::json stops reading at it).
  EXPECT_FALSE(parser.Parse(std::string_view("{\"a\":1}\0", 8), &arena));
  // Lone surrogates: nlohmann::json refuses them too.
  for (const std::string& line : {R"({"a":1,"b":"\ud800"})", R"({"a":1,"b":"\udc00x"})"}) {
    EXPECT_FALSE(nlohmann::json::accept(line)) << line;
    EXPECT_FALSE(parser.Parse(line, &arena)) << "accepted: " << line;
  }
  // What is valid JSON in them parses.
  for (const std::string& line :
       {std::string(R"({"a":-0,"c":-0.0e+0,"b":"\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t"})"),
        std::string("{\"a\":1,\"b\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}"),
        std::string(
            R"({"a":-9223372036854775808,"c":1e308,"z":[{"":[]},-0.5E-3,true,false,null]})")}) {
    ASSERT_TRUE(nlohmann::json::accept(line)) << line;
    arena.Reset();
    auto row = parser.Parse(line, &arena);
    EXPECT_TRUE(row) << line << ": " << row.error().ToString();
  }
  arena.Reset();
  auto row = parser.Parse(
      R"({"b":"\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t","a":9223372036854775807,"c":-0})", &arena);
  ASSERT_TRUE(row) << row.error().ToString();
  EXPECT_EQ((*row)[0].i64, INT64_MAX);
  EXPECT_EQ((*row)[1].as_bytes(), "\xc3\xa9\xf0\x9f\x98\x80\"\\/\b\f\n\r\t");
  EXPECT_TRUE(std::signbit((*row)[2].f64));
  EXPECT_FALSE(parser.Parse(R"({"a":9223372036854775808})", &arena));
  EXPECT_FALSE(parser.Parse(R"({"a":1e2})", &arena));
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
  values[10] =
      Value::Bytes(std::string_view("a\xff"
                                    "b\x01",
                                    4));
  std::string out;
  AppendRowJson(schema, Row(values, 17), &out);
  EXPECT_NE(out.find(R"("s":"a)"
                     "\xEF\xBF\xBD"
                     R"(b\u0001")"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace floe::types
