// The Debezium JSON reader's value decoding: Connect types and logical
// names of schema blocks, nested types, the forms a known schema accepts,
// error messages and the decimal byte helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "floe/cdc/debezium_json.h"
#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/debezium_json_reader_internal.h"
#include "floe/cdc/tests/debezium_json_reader_test_util.h"
#include "floe/common/base64.h"
#include "floe/types/temporal.h"

namespace floe::cdc {
namespace {

using test_util::Describe;
using test_util::ExpectError;
using test_util::Wrap;
using types::SameValue;
using types::Type;
using types::TypeId;
using types::Value;
using Kind = DebeziumEvent::Kind;

// ---------------------------------------------------------------------------
// Type mapping of schema blocks

TEST(DebeziumJsonReaderTest, ConnectTypesAndLogicalNames) {
  struct Case {
    const char* field_schema;  // without "field"
    const char* iceberg;
    const char* json_value;
    Value want;
  };
  std::string uuid_bytes;
  ASSERT_TRUE(types::ParseUuid("6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10", &uuid_bytes));
  std::vector<Case> cases = {
      {R"("type":"int8")", "int", "-5", Value::Int32(-5)},
      {R"("type":"int16")", "int", "300", Value::Int32(300)},
      {R"("type":"int32")", "int", "-70000", Value::Int32(-70000)},
      {R"("type":"int64")", "long", "9007199254740993", Value::Int64(9007199254740993)},
      {R"("type":"float32")", "float", "1.25", Value::Float(1.25f)},
      {R"("type":"float")", "float", "\"NaN\"", Value::Float(NAN)},
      {R"("type":"float64")", "double", "-2.5e-3", Value::Double(-2.5e-3)},
      {R"("type":"double")", "double", "\"-Infinity\"", Value::Double(-INFINITY)},
      {R"("type":"boolean")", "boolean", "true", Value::Bool(true)},
      {R"("type":"string")", "string", "\"a\\u00e9\"", Value::Bytes("a\xc3\xa9")},
      {R"("type":"bytes")", "binary", "\"AAE=\"", Value::Bytes(std::string_view("\x00\x01", 2))},
      {R"("type":"int32","name":"io.debezium.time.Date")", "date", "-1", Value::Int32(-1)},
      {R"("type":"int32","name":"org.apache.kafka.connect.data.Date")", "date", "19675",
       Value::Int32(19675)},
      {R"("type":"int32","name":"io.debezium.time.Time")", "time", "1500", Value::Int64(1500000)},
      {R"("type":"int32","name":"org.apache.kafka.connect.data.Time")", "time", "1",
       Value::Int64(1000)},
      {R"("type":"int64","name":"io.debezium.time.MicroTime")", "time", "86399999999",
       Value::Int64(86399999999)},
      {R"("type":"int64","name":"io.debezium.time.NanoTime")", "time", "1999", Value::Int64(1)},
      {R"("type":"int64","name":"io.debezium.time.Timestamp")", "timestamp", "-1",
       Value::Int64(-1000)},
      {R"("type":"int64","name":"org.apache.kafka.connect.data.Timestamp")", "timestamp",
       "1700000000123", Value::Int64(1700000000123000)},
      {R"("type":"int64","name":"io.debezium.time.MicroTimestamp")", "timestamp", "5",
       Value::Int64(5)},
      {R"("type":"int64","name":"io.debezium.time.NanoTimestamp")", "timestamp", "-1",
       Value::Int64(-1)},  // floor of -1 ns
      {R"("type":"string","name":"io.debezium.time.ZonedTimestamp")", "timestamptz",
       "\"2023-11-14T23:13:20.123456789+01:00\"", Value::Int64(1700000000123456)},
      {R"("type":"string","name":"io.debezium.time.ZonedTime")", "string", "\"10:15:30Z\"",
       Value::Bytes("10:15:30Z")},
      {R"("type":"int32","name":"io.debezium.time.Year")", "int", "2024", Value::Int32(2024)},
      {R"("type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"5"})",
       "decimal(5, 2)", "\"/w==\"", Value::Decimal(-1)},
      {R"("type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"3"})",
       "decimal(38, 3)", "12.5", Value::Decimal(12500)},  // decimal.format=NUMERIC
      {R"("type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2","connect.decimal.precision":"40"})",
       "string", "\"AQ==\"", Value::Bytes("0.01")},
      {R"("type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},{"type":"bytes","optional":false,"field":"value"}],"name":"io.debezium.data.VariableScaleDecimal")",
       "string", R"({"scale":4,"value":"/4A="})", Value::Bytes("-0.0128")},
      {R"("type":"string","name":"io.debezium.data.Json")", "string", "\"{}\"", Value::Bytes("{}")},
      {R"("type":"string","name":"io.debezium.data.Enum","parameters":{"allowed":"a,b"})", "string",
       "\"b\"", Value::Bytes("b")},
      {R"("type":"string","name":"io.debezium.data.EnumSet")", "string", "\"a,b\"",
       Value::Bytes("a,b")},
      {R"("type":"string","name":"io.debezium.data.Xml")", "string", "\"<a/>\"",
       Value::Bytes("<a/>")},
      {R"("type":"string","name":"io.debezium.data.Uuid")", "uuid",
       "\"6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10\"", Value::Bytes(uuid_bytes)},
      {R"("type":"bytes","name":"io.debezium.data.Bits","parameters":{"length":"12"})", "binary",
       "\"NBI=\"", Value::Bytes(std::string_view("\x12\x34", 2))},
      {R"("type":"struct","fields":[{"type":"bytes","optional":false,"field":"wkb"},{"type":"int32","optional":true,"field":"srid"}],"name":"io.debezium.data.geometry.Geometry")",
       "binary", R"({"wkb":"AQI=","srid":4326})", Value::Bytes(std::string_view("\x01\x02", 2))},
      {R"("type":"struct","fields":[{"type":"double","optional":false,"field":"x"},{"type":"double","optional":false,"field":"y"},{"type":"bytes","optional":true,"field":"wkb"},{"type":"int32","optional":true,"field":"srid"}],"name":"io.debezium.data.geometry.Point")",
       "binary", R"({"x":1,"y":2,"wkb":"AQI=","srid":null})",
       Value::Bytes(std::string_view("\x01\x02", 2))},
  };
  DebeziumJsonReader reader;
  Arena arena;
  for (const auto& c : cases) {
    std::string fields = fmt::format(
        R"({{"type":"int32","optional":false,"field":"id"}},{{{},"optional":true,"field":"v"}})",
        c.field_schema);
    std::string line = Wrap(fields, fmt::format(R"({{"id":1,"v":{}}})", c.json_value));
    auto e = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(e) << c.field_schema << ": " << e.error().ToString();
    ASSERT_NE(e->row_schema, nullptr);
    ASSERT_EQ(e->row_schema->fields().size(), 2u);
    EXPECT_EQ(e->row_schema->fields()[1].type->ToString(), c.iceberg) << c.field_schema;
    EXPECT_FALSE(e->row_schema->fields()[1].required);
    EXPECT_TRUE(e->row_schema->fields()[0].required);
    ASSERT_EQ(e->after.size(), 2u);
    EXPECT_TRUE(SameValue(e->after[1], c.want))
        << c.field_schema << ": got " << Describe(e->after[1]) << ", want " << Describe(c.want);
  }
}

TEST(DebeziumJsonReaderTest, NestedTypesAndFieldIds) {
  // struct, array, map (string keys as an object, int keys as [k, v] pairs).
  std::string fields =
      R"({"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"struct","fields":[{"type":"string","optional":true,"field":"city"},)"
      R"({"type":"int32","optional":false,"name":"io.debezium.time.Date","field":"since"}],)"
      R"("optional":true,"field":"addr"},)"
      R"({"type":"array","items":{"type":"int64","optional":false},"optional":true,"field":"nums"},)"
      R"({"type":"map","keys":{"type":"string","optional":false},"values":{"type":"double","optional":true},"optional":true,"field":"m"},)"
      R"({"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"string","optional":false},"optional":true,"field":"im"})";
  std::string line = Wrap(fields, R"({"id":1,"addr":{"since":3,"city":"Oslo"},"nums":[1,2,3],)"
                                  R"("m":{"a":0.5,"b":null},"im":[[1,"x"],[2,"y"]]})");
  DebeziumJsonReader reader;
  Arena arena;
  auto e = reader.Decode(line, nullptr, &arena);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(
      e->row_schema->ToString(),
      types::Schema({{1, "id", true, Type::Int(), ""},
                     {2, "addr", false,
                      Type::Struct({{6, "city", false, Type::String(), ""},
                                    {7, "since", true, Type::Date(), ""}}),
                      ""},
                     {3, "nums", false, Type::List(8, true, Type::Long()), ""},
                     {4, "m", false, Type::Map(9, Type::String(), 10, false, Type::Double()), ""},
                     {5, "im", false, Type::Map(11, Type::Int(), 12, true, Type::String()), ""}})
          .ToString());
  EXPECT_TRUE(e->row_schema->Validate());
  const auto& a = e->after;
  ASSERT_EQ(a[1].size, 2u);
  EXPECT_EQ(a[1].children[0].as_bytes(), "Oslo");
  EXPECT_EQ(a[1].children[1].i32, 3);
  ASSERT_EQ(a[2].size, 3u);
  EXPECT_EQ(a[2].children[2].i64, 3);
  ASSERT_EQ(a[3].map_size(), 2u);
  EXPECT_EQ(a[3].children[0].as_bytes(), "a");
  EXPECT_EQ(a[3].children[1].f64, 0.5);
  EXPECT_TRUE(a[3].children[3].is_null());
  ASSERT_EQ(a[4].map_size(), 2u);
  EXPECT_EQ(a[4].children[2].i32, 2);
  EXPECT_EQ(a[4].children[3].as_bytes(), "y");
}

TEST(DebeziumJsonReaderTest, SchemaCacheSharesObjectsPerIdenticalBlock) {
  DebeziumJsonReader reader;
  Arena arena;
  std::string a1 = Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":1})");
  std::string a2 = Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":2})");
  std::string b = Wrap(R"({"type":"int64","optional":false,"field":"id"})", R"({"id":3})");
  auto e1 = reader.Decode(a1, nullptr, &arena);
  auto eb = reader.Decode(b, nullptr, &arena);
  auto e2 = reader.Decode(a2, nullptr, &arena);
  ASSERT_TRUE(e1 && e2 && eb);
  EXPECT_EQ(e1->row_schema.get(), e2->row_schema.get());
  EXPECT_NE(e1->row_schema.get(), eb->row_schema.get());
  EXPECT_EQ(eb->row_schema->fields()[0].type->id(), TypeId::kLong);
  EXPECT_EQ(e2->after[0].i32, 2);
  // Another reader parses its own objects.
  DebeziumJsonReader other;
  auto o = other.Decode(a1, nullptr, &arena);
  ASSERT_TRUE(o);
  EXPECT_NE(o->row_schema.get(), e1->row_schema.get());
  EXPECT_TRUE(o->row_schema->Equals(*e1->row_schema));
}

TEST(DebeziumJsonReaderTest, RecentBlockFastPathAgreesWithFullParse) {
  // 12 tables interleaved (more than the reader's 8 recent blocks), each line
  // decoded by a warm reader (fast path when the block is recent) and by a
  // fresh one (full parse): the same values.
  std::vector<std::string> lines;
  for (int round = 0; round < 3; ++round) {
    for (int table = 0; table < 12; ++table) {
      std::string fields = fmt::format(
          R"({{"type":"int32","optional":false,"field":"id"}},{{"type":"string","optional":true,)"
          R"("field":"c{}"}})",
          table);
      lines.push_back(Wrap(fields, fmt::format(R"({{"id":{},"c{}":"v{}"}})", round, table, round)));
    }
  }
  DebeziumJsonReader warm;
  Arena arena;
  for (const auto& line : lines) {
    DebeziumJsonReader fresh;
    auto a0 = warm.Decode(line, nullptr, &arena);
    ASSERT_TRUE(a0);
    auto a = warm.Decode(line, nullptr, &arena);  // the block is the most recent one now
    auto b = fresh.Decode(line, nullptr, &arena);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->row_schema->Equals(*b->row_schema));
    ASSERT_EQ(a->after.size(), 2u);
    EXPECT_TRUE(SameValue(a->after[0], b->after[0]));
    EXPECT_TRUE(SameValue(a->after[1], b->after[1]));
    EXPECT_EQ(a->table, "t");
  }
  // A recent block followed by something that is not a valid rest of the event.
  std::string line = Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":1})");
  ASSERT_TRUE(warm.Decode(line, nullptr, &arena));
  size_t payload_at = line.find(",\"payload\"");
  ASSERT_NE(payload_at, std::string::npos);
  std::string block_then = line.substr(0, payload_at + 1);
  ExpectError(warm, block_then + "}", nullptr, "payload: missing");
  ExpectError(warm, block_then + "\"payload\":{},}", nullptr, "invalid JSON");
  ExpectError(warm, block_then + "\"schema\":null,\"payload\":{}}", nullptr,
              "schema: appears twice");
  ExpectError(
      warm,
      block_then +
          "\"payload\":{\"op\":\"c\",\"after\":{\"id\":\"x\"},\"source\":{\"table\":\"t\"}}}",
      nullptr, "payload.after.id: expected an integer");
}

TEST(DebeziumJsonReaderTest, PayloadBeforeSchemaAndWhitespace) {
  DebeziumJsonReader reader;
  Arena arena;
  std::string line =
      R"( { "payload" : {"op":"c","after":{"id":9},"before":null,"source":{"table":"t","db":"d"}},)"
      R"( "schema" : {"type":"struct","fields":[{"type":"struct","fields":[{"type":"int16",)"
      R"("optional":false,"field":"id"}],"optional":true,"field":"after"}],"name":"x.Envelope"} } )";
  auto e = reader.Decode(line, nullptr, &arena);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->after[0].i32, 9);
  EXPECT_EQ(e->db, "d");
  ASSERT_NE(e->row_schema, nullptr);
}

// ---------------------------------------------------------------------------
// Decoding with a known schema: the accepted forms

TEST(DebeziumJsonReaderTest, KnownSchemaValueForms) {
  types::Schema known({{1, "id", true, Type::Long(), ""},
                       {2, "d", false, Type::Date(), ""},
                       {3, "t", false, Type::Time(), ""},
                       {4, "ts", false, Type::Timestamp(), ""},
                       {5, "tz", false, Type::TimestampTz(), ""},
                       {6, "dec", false, *Type::Decimal(9, 2), ""},
                       {7, "bin", false, Type::Binary(), ""},
                       {8, "fx", false, *Type::Fixed(2), ""},
                       {9, "flag", false, Type::Boolean(), ""},
                       {10, "tags", false, Type::List(11, false, Type::String()), ""}});
  DebeziumJsonReader reader;
  Arena arena;
  auto decode = [&](std::string_view after) {
    return reader.Decode(
        fmt::format(R"({{"op":"c","after":{},"source":{{"db":"d","table":"t"}}}})", after), &known,
        &arena);
  };
  // Numbers: days, microseconds; decimals as base64, number, text.
  auto a = decode(R"({"id":1,"d":19675,"t":3600000000,"ts":1700000000123456,)"
                  R"("tz":1700000000123456,"dec":"MDk=","bin":"AAE=","fx":"AQI=","flag":1,)"
                  R"("tags":["x",null],"ignored":{"deep":[1,2]}})");
  ASSERT_TRUE(a) << a.error().ToString();
  EXPECT_EQ(a->after[1].i32, 19675);
  EXPECT_EQ(a->after[2].i64, 3600000000);
  EXPECT_EQ(a->after[3].i64, 1700000000123456);
  EXPECT_EQ(a->after[4].i64, 1700000000123456);
  EXPECT_EQ(a->after[5].decimal, 12345);  // base64 0x3039
  EXPECT_EQ(a->after[6].as_bytes(), std::string_view("\x00\x01", 2));
  EXPECT_EQ(a->after[7].as_bytes(), "\x01\x02");
  EXPECT_TRUE(a->after[8].b);
  ASSERT_EQ(a->after[9].size, 2u);
  EXPECT_TRUE(a->after[9].children[1].is_null());
  // ISO strings.
  auto b = decode(R"({"id":2,"d":"2023-11-14","t":"01:00:00.5","ts":"2023-11-14T22:13:20.123456",)"
                  R"("tz":"2023-11-14T22:13:20.123456789Z","dec":"-123.4","flag":false})");
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_EQ(b->after[1].i32, 19675);
  EXPECT_EQ(b->after[2].i64, 3600500000);
  EXPECT_EQ(b->after[3].i64, 1700000000123456);
  EXPECT_EQ(b->after[4].i64, 1700000000123456);  // nanoseconds truncated
  EXPECT_EQ(b->after[5].decimal, -12340);
  EXPECT_FALSE(b->after[8].b);
  EXPECT_TRUE(b->after[6].is_null());  // missing: null
  auto c = decode(R"({"id":3,"dec":7.25})");
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->after[5].decimal, 725);
  auto v = decode(R"({"id":3,"dec":{"scale":1,"value":"DA=="}})");  // 1.2
  ASSERT_TRUE(v) << v.error().ToString();
  EXPECT_EQ(v->after[5].decimal, 120);
}

// ---------------------------------------------------------------------------
// Errors: a path and a reason, never a crash

TEST(DebeziumJsonReaderTest, ErrorsNamePathAndReason) {
  types::Schema known({{1, "id", true, Type::Long(), ""},
                       {2, "price", false, *Type::Decimal(5, 2), ""},
                       {3, "t", false, Type::Time(), ""},
                       {4, "u", false, Type::Uuid(), ""},
                       {5, "n", false, Type::Int(), ""}});
  DebeziumJsonReader reader;
  auto row = [](std::string_view op, std::string_view after) {
    return fmt::format(
        R"({{"op":"{}","before":null,"after":{},"source":{{"db":"d","table":"t"}}}})", op, after);
  };
  ExpectError(reader, "", &known, "invalid JSON");
  ExpectError(reader, "{\"op\":", &known, "invalid JSON");
  ExpectError(reader, "[1,2]", &known, "must be a JSON object or null, got an array");
  ExpectError(reader, "42", &known, "must be a JSON object or null");
  ExpectError(reader, "null null", &known, "invalid JSON");
  ExpectError(reader, row("c", R"({"id":1})") + " {}", &known, "content after the event");
  // Text after a whole event is named as such, not as an event that "ended early".
  ExpectError(reader, row("c", R"({"id":1})") + " xyz", &known,
              "content after the event at offset");
  ExpectError(reader, row("c", R"({"id":1})") + "}", &known, "content after the event at offset");
  ExpectError(reader, row("x", R"({"id":1})"), &known, "op: unknown op 'x'");
  ExpectError(reader, row("truncate", R"({"id":1})"), &known, "unknown op 'truncate'");
  ExpectError(reader, R"({"op":"c","after":{"id":1},"source":{"db":"d"}})", &known,
              "source.table: missing");
  ExpectError(reader, R"({"op":"c","after":{"id":1}})", &known, "source: missing");
  ExpectError(reader, R"({"after":{"id":1},"source":{"table":"t"}})", &known, "op: missing");
  ExpectError(reader, row("c", R"({"id":"one"})"), &known,
              "after.id: expected an integer for long, got a string");
  ExpectError(reader, row("c", R"({"id":1.5})"), &known, "after.id: expected a 64-bit integer");
  ExpectError(reader, row("c", R"({"price":1})"), &known,
              "after.id: is required but null or missing");
  ExpectError(reader, row("c", R"({"id":1,"price":"12.345"})"), &known, "after.price:");
  ExpectError(reader, row("c", R"({"id":1,"price":"AQAAAAA="})"), &known,
              "after.price: the value does not fit decimal(5, 2)");
  ExpectError(reader, row("c", R"({"id":1,"price":true})"), &known,
              "after.price: expected a base64 string, a number or decimal text");
  ExpectError(reader, row("c", R"({"id":1,"price":1e5})"), &known, "exponent");
  ExpectError(reader, row("c", R"({"id":1,"t":86400000000})"), &known,
              "after.t: 86400000000 us is not a time of day");
  ExpectError(reader, row("c", R"({"id":1,"t":-1})"), &known, "is not a time of day");
  ExpectError(reader, row("c", R"({"id":1,"u":"not-a-uuid"})"), &known, "after.u:");
  ExpectError(reader, row("c", R"({"id":1,"n":2147483648})"), &known,
              "after.n: 2147483648 is out of range for int");
  ExpectError(reader, row("c", "[1]"), &known, "after: expected an object or null, got an array");
  ExpectError(reader, row("c", "null"), &known, "after: op 'c' needs the after image");
  ExpectError(reader, R"({"op":"d","before":null,"after":null,"source":{"table":"t"}})", &known,
              "before: op 'd' needs the before image");
  ExpectError(reader, R"({"op":1,"after":{"id":1},"source":{"table":"t"}})", &known,
              "op: expected a string");
  ExpectError(reader, R"({"op":"c","after":{"id":1},"source":{"table":5}})", &known,
              "source.table: expected a string, got a number");
  ExpectError(reader, R"({"op":"c","after":{"id":1},"source":{"table":"t"},"ts_ms":"x"})", &known,
              "ts_ms: expected an integer");
  ExpectError(reader, "{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"table\":\"\xff\"}}", &known,
              "invalid JSON");
  // With the wrapper the path starts at payload.
  ExpectError(reader, Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":"x"})"),
              nullptr, "payload.after.id: expected an integer for int, got a string");
  ExpectError(reader, Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":null})"),
              nullptr, "payload.after.id: is required but null");
  ExpectError(reader,
              Wrap(R"({"type":"int32","optional":false,"field":"id"})", R"({"id":1})") + "x",
              nullptr, "invalid JSON");
  ExpectError(
      reader,
      R"({"schema":{"type":"struct"},"payload":{"op":"c","after":{"id":1},"source":{"table":"t"}}})",
      nullptr, "payload.after: no schema block in the event and no known schema");
  ExpectError(reader, R"({"schema":{"type":"struct"}})", nullptr, "payload: missing");
  ExpectError(reader, R"({"schema":5,"payload":{}})", nullptr, "schema: expected an object");
  // Bad schema blocks: the block's path and the reason.
  ExpectError(reader, Wrap(R"({"type":"uint32","optional":false,"field":"id"})", R"({"id":1})"),
              nullptr, "schema.fields[1].fields[0].type: unknown Connect type 'uint32'");
  ExpectError(reader, Wrap(R"({"type":"int32","field":"a"},{"type":"int32","field":"a"})", "{}"),
              nullptr, "field name 'a' appears twice");
  ExpectError(reader, Wrap(R"({"type":"int32"})", "{}"), nullptr,
              ".field: expected the field's name");
  ExpectError(
      reader,
      Wrap(R"({"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","field":"p"})", "{}"),
      nullptr, "parameters.scale: a Decimal needs its scale");
  ExpectError(reader, Wrap(R"({"type":"array","field":"a"})", "{}"), nullptr, ".items: expected");
  std::string deep = R"({"type":"int32","field":"x"})";
  for (int i = 0; i < 40; ++i) {
    deep = fmt::format(R"({{"type":"struct","fields":[{}],"field":"s{}"}})", deep, i);
  }
  ExpectError(reader, Wrap(deep, "{}"), nullptr, "nested deeper than");
  // The reader keeps working after errors.
  Arena arena;
  auto ok = reader.Decode(row("c", R"({"id":1})"), &known, &arena);
  ASSERT_TRUE(ok) << ok.error().ToString();
}

TEST(DebeziumJsonReaderTest, DeeplyNestedInputIsRejectedWithoutCrashing) {
  types::Schema known({{1, "id", true, Type::Long(), ""}});
  DebeziumJsonReader reader;
  Arena arena;
  std::string deep(100000, '[');
  auto e = reader.Decode(deep, &known, &arena);
  EXPECT_FALSE(e);
  std::string skipped = R"({"op":"c","after":{"id":1,"x":)" + std::string(5000, '[') +
                        std::string(5000, ']') + R"(},"source":{"table":"t"}})";
  auto s = reader.Decode(skipped, &known, &arena);
  // simdjson refuses depths beyond its limit; either way, no crash and a message.
  if (!s) {
    EXPECT_NE(s.error().message().find("invalid JSON"), std::string::npos);
  }
}

// ---------------------------------------------------------------------------
// Decimal helpers

TEST(DebeziumDecimalBytesTest, BigEndianConversions) {
  types::int128_t v;
  ASSERT_TRUE(dbz::BigEndianToInt128(std::string_view("\xff\x7f", 2), &v));
  EXPECT_EQ(v, -129);
  ASSERT_TRUE(dbz::BigEndianToInt128(std::string_view("\x00\x80", 2), &v));
  EXPECT_EQ(v, 128);
  ASSERT_TRUE(dbz::BigEndianToInt128({}, &v));
  EXPECT_EQ(v, 0);
  // 17 bytes with a redundant sign byte fit; 17 significant bytes do not.
  std::string s17(17, '\xff');
  ASSERT_TRUE(dbz::BigEndianToInt128(s17, &v));
  EXPECT_EQ(v, -1);
  s17[0] = '\x01';
  EXPECT_FALSE(dbz::BigEndianToInt128(s17, &v));
  std::string text;
  dbz::AppendBigEndianDecimalText(std::string_view("\xff\x7f", 2), 2, &text);
  EXPECT_EQ(text, "-1.29");
  text.clear();
  dbz::AppendBigEndianDecimalText(std::string_view("\x05", 1), 3, &text);
  EXPECT_EQ(text, "0.005");
  text.clear();
  dbz::AppendBigEndianDecimalText(std::string_view("\x00", 1), 2, &text);
  EXPECT_EQ(text, "0.00");
  text.clear();
  dbz::AppendBigEndianDecimalText(std::string_view("\x05", 1), -2, &text);
  EXPECT_EQ(text, "500");
  // Wider than 128 bits: 10^40.
  auto bytes = DecimalTextToBigEndianBytes("10000000000000000000000000000000000000000", 0);
  ASSERT_TRUE(bytes);
  text.clear();
  dbz::AppendBigEndianDecimalText(*bytes, 0, &text);
  EXPECT_EQ(text, "10000000000000000000000000000000000000000");
  EXPECT_TRUE(dbz::FitsPrecision(99999, 5));
  EXPECT_FALSE(dbz::FitsPrecision(-100000, 5));
}

}  // namespace
}  // namespace floe::cdc
