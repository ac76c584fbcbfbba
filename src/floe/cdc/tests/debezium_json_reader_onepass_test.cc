// The Debezium JSON reader's one-pass decoder against its simdjson decoder:
// every line here is decoded by two readers, one as `floe ingest` runs it
// (the one-pass decoder first) and one with the one-pass decoder off, and
// both must give the same event or the same error. The tests also assert
// which events the one-pass decoder took, so the comparison is not vacuous.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/debezium_json_reader_internal.h"

namespace floe::cdc {
namespace {

using types::NestedField;
using types::Type;
using types::Value;
using Kind = DebeziumEvent::Kind;

/// Two readers fed the same lines: `fast` as in production, `slow` with the
/// simdjson decoder only.
class Pair {
 public:
  Pair() { dbz::ReaderTesting::UseOnePass(&slow_, false); }

  /// Decodes `line` with both readers and checks that they agree. Returns
  /// the fast reader's result.
  Result<DebeziumEvent> Decode(std::string_view line, const types::Schema* known = nullptr) {
    auto a = fast_.Decode(line, known, &fast_arena_);
    auto b = slow_.Decode(line, known, &slow_arena_);
    EXPECT_EQ(a.has_value(), b.has_value()) << line;
    if (!a || !b) {
      if (!a && !b) {
        EXPECT_EQ(a.error().ToString(), b.error().ToString()) << line;
      }
      return a;
    }
    EXPECT_EQ(a->kind, b->kind) << line;
    EXPECT_EQ(a->op, b->op) << line;
    EXPECT_EQ(a->db, b->db) << line;
    EXPECT_EQ(a->table, b->table) << line;
    EXPECT_EQ(a->ts_ms, b->ts_ms) << line;
    EXPECT_EQ(a->schema_change_kind, b->schema_change_kind) << line;
    EXPECT_EQ(a->row_schema == nullptr, b->row_schema == nullptr) << line;
    if (a->row_schema && b->row_schema) {
      EXPECT_EQ(a->row_schema->ToString(), b->row_schema->ToString()) << line;
    }
    ExpectSameRow(a->before, b->before, line);
    ExpectSameRow(a->after, b->after, line);
    return a;
  }

  /// Limits the before images in both readers.
  void LimitBeforeImage(std::string_view db, std::string_view table, std::span<const int> fields) {
    fast_.LimitBeforeImage(db, table, fields);
    slow_.LimitBeforeImage(db, table, fields);
  }

  /// How many events the one-pass decoder has decoded in the fast reader.
  uint64_t onepass_events() const { return dbz::ReaderTesting::OnePassEvents(fast_); }

 private:
  static void ExpectSameRow(types::Row a, types::Row b, std::string_view line) {
    ASSERT_EQ(a.size(), b.size()) << line;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(types::SameValue(a[i], b[i])) << "field " << i << " of " << line;
    }
  }

  DebeziumJsonReader fast_, slow_;
  Arena fast_arena_, slow_arena_;
};

/// A wrapped event: a schema block of `fields` (Connect field schemas) for
/// before and after, and `payload`.
std::string Wrapped(std::string_view fields, std::string_view payload) {
  return fmt::format(
      R"({{"schema":{{"type":"struct","fields":[{{"type":"struct","fields":[{0}],"optional":true,)"
      R"("name":"s.d.t.Value","field":"before"}},{{"type":"struct","fields":[{0}],"optional":true,)"
      R"("name":"s.d.t.Value","field":"after"}},{{"type":"string","optional":false,"field":"op"}}],)"
      R"("optional":false,"name":"s.d.t.Envelope"}},"payload":{1}}})",
      fields, payload);
}

constexpr std::string_view kFields =
    R"({"type":"int64","optional":false,"field":"id"},)"
    R"({"type":"string","optional":true,"field":"name"},)"
    R"({"type":"bytes","optional":true,"field":"price","name":"org.apache.kafka.connect.data.Decimal",)"
    R"("parameters":{"scale":"2","connect.decimal.precision":"10"}},)"
    R"({"type":"int64","optional":true,"field":"at","name":"io.debezium.time.MicroTimestamp"},)"
    R"({"type":"int32","optional":true,"field":"day","name":"io.debezium.time.Date"},)"
    R"({"type":"int32","optional":true,"field":"t","name":"io.debezium.time.Time"},)"
    R"({"type":"string","optional":true,"field":"tz","name":"io.debezium.time.ZonedTimestamp"},)"
    R"({"type":"int64","optional":true,"field":"nano","name":"io.debezium.time.NanoTimestamp"},)"
    R"({"type":"double","optional":true,"field":"ratio"},)"
    R"({"type":"boolean","optional":true,"field":"flag"},)"
    R"({"type":"string","optional":true,"field":"uid","name":"io.debezium.data.Uuid"},)"
    R"({"type":"bytes","optional":true,"field":"bits","name":"io.debezium.data.Bits"},)"
    R"({"type":"array","optional":true,"field":"tags","items":{"type":"string","optional":false}},)"
    R"({"type":"bytes","optional":true,"field":"wide","name":"org.apache.kafka.connect.data.Decimal",)"
    R"("parameters":{"scale":"3","connect.decimal.precision":"60"}})";

constexpr std::string_view kAfter =
    R"({"id":1,"name":"a","price":"AeJA","at":1700000000123456,"day":19700,"t":3600000,)"
    R"("tz":"2024-05-01T10:15:30.123456789Z","nano":1700000000123456789,"ratio":-2.5e-3,)"
    R"("flag":true,"uid":"6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10","bits":"AQI=",)"
    R"("tags":["x","y"],"wide":"AeJA"})";

std::string Payload(std::string_view after, std::string_view op = "c",
                    std::string_view before = "null") {
  return fmt::format(R"({{"before":{},"after":{},"source":{{"db":"d","table":"t"}},"op":"{}",)"
                     R"("ts_ms":7}})",
                     before, after, op);
}

TEST(DebeziumOnePassTest, TakesCachedBlocksAndAgreesOnEveryType) {
  Pair pair;
  std::string line = Wrapped(kFields, Payload(kAfter));
  auto e = pair.Decode(line);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(pair.onepass_events(), 0u);  // a new block: parsed and cached by the simdjson decoder
  for (int i = 0; i < 3; ++i) {
    e = pair.Decode(line);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(e->kind, Kind::kRow);
    EXPECT_EQ(e->op, ChangeOp::kInsert);
    EXPECT_EQ(e->db, "d");
    EXPECT_EQ(e->table, "t");
    EXPECT_EQ(e->ts_ms, 7);
    ASSERT_EQ(e->after.size(), 14u);
    EXPECT_TRUE(e->before.empty());
    EXPECT_EQ(e->after[0].i64, 1);
    EXPECT_EQ(e->after[2].decimal, 123456);        // 0x01E240 at scale 2
    EXPECT_EQ(e->after[5].i64, 3600000000);        // Time: milliseconds
    EXPECT_EQ(e->after[7].i64, 1700000000123456);  // NanoTimestamp: floored to micros
    EXPECT_EQ(e->after[11].as_bytes(), std::string_view("\x02\x01", 2));  // Bits: little-endian
    EXPECT_EQ(e->after[13].as_bytes(), "123.456");  // wider than decimal(38): text
  }
  EXPECT_EQ(pair.onepass_events(), 3u);
  // An update with its before image, and a delete.
  std::string before = R"({"id":1,"name":"old","price":null})";
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter, "u", before))));
  e = pair.Decode(Wrapped(kFields, Payload("null", "d", before)));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->op, ChangeOp::kDelete);
  EXPECT_EQ(e->before[1].as_bytes(), "old");
  EXPECT_TRUE(e->after.empty());
  EXPECT_EQ(pair.onepass_events(), 5u);
}

TEST(DebeziumOnePassTest, MembersInAnyOrderWithWhiteSpaceAndUnknownMembers) {
  Pair pair;
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter))));
  const std::vector<std::string> afters = {
      // Reversed, then shuffled, then partial: the guesses are wrong each time.
      R"({"wide":null,"tags":[],"bits":null,"uid":null,"flag":false,"ratio":1,"nano":-1,)"
      R"("tz":null,"t":0,"day":-1,"at":-1,"price":"AA==","name":"b","id":2})",
      R"({"name":"c","id":3,"day":1,"price":"/w==","at":0})",
      R"({"id":4})",
      // Unknown members of every shape, between known ones.
      R"({"x":{"a":[1,{"b":null}],"c":"\"}"},"id":5,"y":[[],[[]],{}],"name":"e","z":-1.5e10,)"
      R"("w":true})",
      // A member twice: the last value is kept.
      R"({"id":6,"name":"first","name":"second"})",
      // White space everywhere.
      " {\n \"id\" :\t7 , \"name\"\r\n: \"g\" , \"tags\" : [ \"p\" , \"q\" ] } ",
  };
  for (const std::string& after : afters) {
    auto e = pair.Decode(Wrapped(kFields, Payload(after)));
    ASSERT_TRUE(e) << e.error().ToString();
  }
  EXPECT_EQ(pair.onepass_events(), afters.size());
  // The payload's members in another order, unknown members in the payload,
  // in source and after it, and white space between the wrapper's members.
  const std::vector<std::string> payloads = {
      R"({"op":"u","ts_ms":9,"source":{"table":"t","version":"2.5","db":"d","pos":[1,2]},)"
      R"("after":{"id":8},"transaction":{"id":"x","total_order":1},"before":null})",
      R"({"source":{"db":"d","table":"t"},"ts_us":1,"op":"r","after":{"id":9},"ts_ns":2})",
  };
  for (const std::string& payload : payloads) {
    auto e = pair.Decode(Wrapped(kFields, payload));
    ASSERT_TRUE(e) << e.error().ToString();
  }
  std::string spaced = Wrapped(kFields, Payload(R"({"id":10})"));
  spaced.insert(spaced.rfind(",\"payload\":") + 1, " \n");
  spaced.insert(spaced.size() - 1, ",\"extra\":{\"k\":[null]} ");
  auto e = pair.Decode(spaced);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->after[0].i64, 10);
  EXPECT_EQ(pair.onepass_events(), afters.size() + payloads.size() + 1);
}

TEST(DebeziumOnePassTest, EscapesInValuesNamesAndSource) {
  Pair pair;
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter))));
  auto e = pair.Decode(Wrapped(
      kFields,
      R"({"before":null,"after":{"\u0069d":11,"n\u0061me":"tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00",)"
      R"("tags":["\n","\u0000"]},"source":{"d\u0062":"d","table":"t\u00e9"},"op":"\u0063"})"));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->after[0].i64, 11);
  EXPECT_EQ(e->after[1].as_bytes(), "tab\there \"q\" \\ / \xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(e->after[12].as_children()[1].as_bytes(), std::string_view("\0", 1));
  EXPECT_EQ(e->table, "t\xc3\xa9");
  EXPECT_EQ(e->op, ChangeOp::kInsert);
  // UTF-8 as is.
  e = pair.Decode(Wrapped(kFields, Payload(R"({"id":12,"name":"caf\u00e9 ☕ 日本"})")));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->after[1].as_bytes(), "caf\xc3\xa9 ☕ 日本");
  EXPECT_EQ(pair.onepass_events(), 2u);
}

TEST(DebeziumOnePassTest, NullsAndPostgresSchemaAsDatabase) {
  Pair pair;
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter))));
  auto e = pair.Decode(Wrapped(
      kFields, R"({"before":null,"after":{"id":13,"name":null,"price":null,"at":null,"day":null,)"
               R"("t":null,"tz":null,"nano":null,"ratio":null,"flag":null,"uid":null,"bits":null,)"
               R"("tags":null,"wide":null},"source":{"db":null,"schema":"public","table":"t"},)"
               R"("op":"c","ts_ms":null})"));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->db, "public");
  EXPECT_EQ(e->ts_ms, 0);
  for (size_t i = 1; i < e->after.size(); ++i) EXPECT_TRUE(e->after[i].is_null()) << i;
  // source.db wins over source.schema in either order.
  e = pair.Decode(Wrapped(kFields, R"({"after":{"id":14},"source":{"schema":"public","db":"pg",)"
                                   R"("table":"t"},"op":"c"})"));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->db, "pg");
  // A null source member and a missing before.
  e = pair.Decode(Wrapped(kFields, R"({"after":{"id":15},"source":{"table":"t","db":null},)"
                                   R"("op":"u"})"));
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->db, "");
  EXPECT_EQ(pair.onepass_events(), 3u);
}

/// A known schema (events without a block) with nested types.
types::Schema KnownSchema() {
  return types::Schema(
      {
          {1, "id", true, Type::Long(), ""},
          {2, "amount", false, *Type::Decimal(9, 2), ""},
          {3, "day", false, Type::Date(), ""},
          {4, "t", false, Type::Time(), ""},
          {5, "ts", false, Type::Timestamp(), ""},
          {6, "tz", false, Type::TimestampTz(), ""},
          {7, "flag", false, Type::Boolean(), ""},
          {8, "f", false, Type::Float(), ""},
          {9, "point", false,
           Type::Struct(
               {{10, "x", true, Type::Int(), ""}, {11, "label", false, Type::String(), ""}}),
           ""},
          {12, "nums", false, Type::List(13, false, Type::Long()), ""},
          {14, "raw", false, Type::Binary(), ""},
      },
      0, {1});
}

TEST(DebeziumOnePassTest, KnownSchemaDecimalsTemporalsAndNestedValues) {
  Pair pair;
  const types::Schema known = KnownSchema();
  const std::vector<std::string> afters = {
      R"({"id":1,"amount":12.3,"day":"2024-01-31Z","t":"10:15:30.123456789Z",)"
      R"("ts":"2024-01-31T10:15:30.1234567","tz":"2024-01-31T10:15:30+02:00","flag":1,"f":1.5,)"
      R"("point":{"label":"p","x":-3,"other":[1]},"nums":[1,null,-9007199254740993],"raw":"AAE="})",
      R"({"id":2,"amount":"12.30","day":19700,"t":1,"ts":-1,"tz":0,"flag":0,"f":"NaN",)"
      R"("point":{"x":2147483647},"nums":[]})",
      R"({"id":3,"amount":"AeI=","f":-0,"flag":false,"point":null,"nums":null})",
      R"({"id":-9223372036854775808,"amount":-0.5,"f":3.4028235e38})",
  };
  for (const std::string& after : afters) {
    auto e = pair.Decode(
        fmt::format(R"({{"before":null,"after":{},"source":{{"db":"d","table":"k"}},"op":"r"}})",
                    after),
        &known);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(e->row_schema, nullptr);
  }
  EXPECT_EQ(pair.onepass_events(), afters.size());
  auto e = pair.Decode(
      R"({"after":{"id":1,"amount":12.3,"t":"10:15:30.123456789Z"},"source":{"db":"d","table":"k"},"op":"c"})",
      &known);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->after[1].decimal, 1230);
  EXPECT_EQ(e->after[3].i64, (10 * 3600 + 15 * 60 + 30) * int64_t{1000000} + 123456);
}

TEST(DebeziumOnePassTest, MalformedEventsGiveTheSimdjsonDecodersErrors) {
  Pair pair;
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter))));
  types::Schema known = KnownSchema();
  const std::vector<std::string> afters = {
      R"({"id":"1"})",                  // a string for a long
      R"({"id":1.5})",                  // not an integer
      R"({"id":9223372036854775808})",  // out of range
      R"({"id":null})",                 // required
      R"({"name":"x"})",                // required and missing
      R"({"id":1,"price":"not base64!"})",
      R"({"id":1,"price":"f/////////8="})",  // too wide for decimal(10,2)
      R"({"id":1,"day":4294967296})",
      R"({"id":1,"t":86400000})",  // not a time of day
      R"({"id":1,"t":9223372036854775807})",
      R"({"id":1,"tz":"yesterday"})",
      R"({"id":1,"ratio":"1.5"})",
      R"({"id":1,"ratio":1e400})",
      R"({"id":1,"flag":2})",
      R"({"id":1,"uid":"nope"})",
      R"({"id":1,"tags":["a",null]})",  // required elements
      R"({"id":1,"tags":{"a":1}})",
      R"({"id":1,"name":"\ud800"})",  // a lone surrogate
      R"({"id":1,"name":"\x"})",
      "{\"id\":1,\"name\":\"a\x01\"}",  // a raw control character
      "{\"id\":1,\"name\":\"\xff\"}",   // not UTF-8
      R"({"id":01})",
      R"({"id":1,})",
      R"({"id":1 "name":"a"})",
      R"({"id":1,"x":[1 2]})",
      R"({"id":1,"x":nul})",
      R"([1])",
      R"("after")",
  };
  for (const std::string& after : afters) {
    pair.Decode(Wrapped(kFields, Payload(after)));
  }
  const std::vector<std::string> payloads = {
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":"x"})",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":1})",
      R"({"after":{"id":1},"source":{"db":"d"},"op":"c"})",
      R"({"after":{"id":1},"source":{"db":"d","table":""},"op":"c"})",
      R"({"after":{"id":1},"source":{"db":"d","table":7},"op":"c"})",
      R"({"after":{"id":1},"op":"c"})",
      R"({"after":{"id":1},"source":[],"op":"c"})",
      R"({"after":null,"source":{"db":"d","table":"t"},"op":"c"})",
      R"({"before":null,"source":{"db":"d","table":"t"},"op":"d"})",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"}})",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c","ts_ms":"1"})",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c","ts_ms":1.5})",
      R"({"after":7,"source":{"db":"d","table":"t"},"op":"c"})",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c")",
      R"({"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c"}})",
  };
  for (const std::string& payload : payloads) {
    pair.Decode(Wrapped(kFields, payload));
  }
  // The wrapper: a second payload, a second schema, content after the event.
  std::string line = Wrapped(kFields, Payload(R"({"id":1})"));
  for (std::string_view extra : {R"(,"payload":{})", R"(,"schema":null)", R"(,"x":)"}) {
    std::string bad = line;
    bad.insert(bad.size() - 1, extra);
    pair.Decode(bad);
  }
  pair.Decode(line + "{}");
  pair.Decode(line + " x");
  pair.Decode(line.substr(0, line.size() - 1));
  // Bare events with the known schema.
  for (std::string_view bare : {
           R"({"after":{"id":1,"point":{"label":"no x"}},"source":{"table":"k"},"op":"c"})",
           R"({"after":{"id":1,"amount":1e3},"source":{"table":"k"},"op":"c"})",
           R"({"after":{"id":1,"amount":"12.345"},"source":{"table":"k"},"op":"c"})",
           R"({"after":{"id":1,"nums":[1,"2"]},"source":{"table":"k"},"op":"c"})",
           R"({"after":{"id":1},"source":{"table":"k"},"op":"c"} x)",
       }) {
    pair.Decode(bare, &known);
  }
  pair.Decode(R"({"after":{"id":1},"source":{"table":"k"},"op":"c"})", nullptr);
  // Nothing malformed was taken by the one-pass decoder, and a good event
  // still is afterwards.
  EXPECT_EQ(pair.onepass_events(), 0u);
  ASSERT_TRUE(pair.Decode(line));
  EXPECT_EQ(pair.onepass_events(), 1u);
}

TEST(DebeziumOnePassTest, LimitedBeforeImages) {
  Pair pair;
  const types::Schema known = KnownSchema();
  auto event = [](std::string_view table, std::string_view before_tail) {
    return fmt::format(R"({{"before":{{"id":1,"amount":"1.5"{}}},"after":{{"id":1}},)"
                       R"("source":{{"db":"d","table":"{}"}},"op":"u"}})",
                       before_tail, table);
  };
  auto e = pair.Decode(event("a", ""), &known);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_FALSE(e->before[1].is_null());
  static constexpr int kKey[] = {0};
  pair.LimitBeforeImage("d", "a", kKey);
  // Table a: only the key is read, the rest is skipped (even a value that
  // would not decode) and null.
  e = pair.Decode(event("a", R"(,"day":"not a date","point":{"x":[]})"), &known);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->before[0].i64, 1);
  EXPECT_TRUE(e->before[1].is_null());
  // Table b shares the schema: its before image is read in full.
  e = pair.Decode(event("b", ""), &known);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_FALSE(e->before[1].is_null());
  e = pair.Decode(event("b", R"(,"day":"not a date")"), &known);
  EXPECT_FALSE(e);
  EXPECT_EQ(pair.onepass_events(), 3u);
}

TEST(DebeziumOnePassTest, LeavesOtherEventsToTheSimdjsonDecoder) {
  Pair pair;
  ASSERT_TRUE(pair.Decode(Wrapped(kFields, Payload(kAfter))));
  const std::vector<std::string> lines = {
      "null",
      Wrapped(kFields, "null"),
      R"({"source":{"db":"d","table":"t"},"op":"t"})",
      R"({"status":"BEGIN","id":"1","event_count":null})",
      R"({"source":{"db":"d","table":"t"},"ddl":"ALTER TABLE t ADD c INT","tableChanges":[]})",
      R"({"payload":{"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c"},"schema":null})",
      R"({"schema":null,"payload":{"after":{"id":1},"source":{"db":"d","table":"t"},"op":"c"}})",
      R"({"ts_ms":1})",
  };
  for (const std::string& line : lines) {
    auto e = pair.Decode(line);
    if (e) {
      EXPECT_NE(e->kind, Kind::kRow) << line;
    }
  }
  // Shapes the one-pass decoder does not read: variable-scale decimals,
  // geometries and maps.
  std::string fields =
      R"({"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"struct","optional":true,"field":"v","name":"io.debezium.data.VariableScaleDecimal",)"
      R"("fields":[{"type":"int32","field":"scale"},{"type":"bytes","field":"value"}]},)"
      R"({"type":"struct","optional":true,"field":"g","name":"io.debezium.data.geometry.Point",)"
      R"("fields":[{"type":"bytes","field":"wkb"}]},)"
      R"({"type":"map","optional":true,"field":"m","keys":{"type":"string"},)"
      R"("values":{"type":"int32","optional":true}})";
  for (std::string_view after :
       {R"({"id":1,"v":{"scale":2,"value":"AeI="}})", R"({"id":1,"g":{"wkb":"AQE=","srid":4326}})",
        R"({"id":1,"m":{"a":1,"b":null}})"}) {
    for (int i = 0; i < 2; ++i) {
      auto e = pair.Decode(Wrapped(fields, Payload(after)));
      ASSERT_TRUE(e) << e.error().ToString();
    }
  }
  EXPECT_EQ(pair.onepass_events(), 0u);
  // Nulls of those types are read in one pass.
  ASSERT_TRUE(pair.Decode(Wrapped(fields, Payload(R"({"id":1,"v":null,"g":null,"m":null})"))));
  EXPECT_EQ(pair.onepass_events(), 1u);
}

}  // namespace
}  // namespace floe::cdc
