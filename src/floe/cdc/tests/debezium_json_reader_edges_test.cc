// The Debezium JSON reader's edge cases: every op with and without a schema
// block, null and missing images, member names matched where simdjson found
// them (escaped names, long names, prefixes, any order), strings read without
// a copy unless they hold escapes, before images limited to the key
// (LimitBeforeImage), and malformed input named with its path.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/cdc/debezium_json_reader.h"

namespace floe::cdc {
namespace {

using types::Type;
using types::Value;
using Kind = DebeziumEvent::Kind;

/// A schema block of an envelope whose row has `fields_json` (Connect field
/// schemas), for table `table`.
std::string Block(std::string_view fields_json, std::string_view table = "t") {
  return fmt::format(
      R"({{"type":"struct","fields":[{{"type":"struct","fields":[{0}],"optional":true,)"
      R"("name":"s.d.{1}.Value","field":"before"}},{{"type":"struct","fields":[{0}],)"
      R"("optional":true,"name":"s.d.{1}.Value","field":"after"}},)"
      R"({{"type":"string","optional":false,"field":"op"}}],"optional":false,)"
      R"("name":"s.d.{1}.Envelope"}})",
      fields_json, table);
}

constexpr std::string_view kIdNameQty = R"({"type":"int64","optional":false,"field":"id"},)"
                                        R"({"type":"string","optional":true,"field":"name"},)"
                                        R"({"type":"int32","optional":true,"field":"qty"})";

/// A payload; `before`/`after` are JSON (or "null"), empty leaves the member out.
std::string Payload(std::string_view op, std::string_view before, std::string_view after,
                    std::string_view table = "t") {
  std::string out = fmt::format(R"({{"op":"{}")", op);
  if (!before.empty()) out += fmt::format(R"(,"before":{})", before);
  if (!after.empty()) out += fmt::format(R"(,"after":{})", after);
  out += fmt::format(R"(,"source":{{"db":"d","table":"{}"}},"ts_ms":7}})", table);
  return out;
}

std::string Wrapped(std::string_view block, std::string_view payload) {
  return fmt::format(R"({{"schema":{},"payload":{}}})", block, payload);
}

types::Schema KnownSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "name", false, Type::String(), ""},
                        {3, "qty", false, Type::Int(), ""}});
}

/// The event's row as "id,name,qty" ("-" for null, "" for an absent image).
std::string Show(types::Row row) {
  if (row.empty()) return "";
  std::string out;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i) out += ",";
    const Value& v = row[i];
    if (v.is_null()) {
      out += "-";
    } else if (v.kind == Value::Kind::kInt64) {
      out += std::to_string(v.i64);
    } else if (v.kind == Value::Kind::kInt32) {
      out += std::to_string(v.i32);
    } else {
      out += std::string(v.as_bytes());
    }
  }
  return out;
}

void ExpectError(DebeziumJsonReader& reader, std::string_view line, const types::Schema* known,
                 std::string_view want) {
  Arena arena;
  auto e = reader.Decode(line, known, &arena);
  ASSERT_FALSE(e) << "accepted: " << line;
  EXPECT_EQ(e.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(e.error().message().find(want), std::string::npos)
      << "message: " << e.error().message() << "\nwanted: " << want;
}

TEST(DebeziumJsonReaderEdgesTest, EveryOpWithAndWithoutSchemaBlock) {
  types::Schema known = KnownSchema();
  std::string block = Block(kIdNameQty);
  struct Case {
    std::string_view op, before, after;
    ChangeOp want_op;
    std::string_view want_before, want_after;
  };
  const Case cases[] = {
      {"c", "null", R"({"id":1,"name":"a","qty":2})", ChangeOp::kInsert, "", "1,a,2"},
      {"c", "", R"({"id":1,"name":null})", ChangeOp::kInsert, "", "1,-,-"},
      {"r", "null", R"({"id":2,"name":"b","qty":null})", ChangeOp::kRead, "", "2,b,-"},
      {"u", R"({"id":3,"name":"x","qty":1})", R"({"id":3,"name":"y","qty":2})", ChangeOp::kUpdate,
       "3,x,1", "3,y,2"},
      {"u", "null", R"({"id":3,"name":"y","qty":2})", ChangeOp::kUpdate, "", "3,y,2"},
      {"u", "", R"({"id":3,"name":"y","qty":2})", ChangeOp::kUpdate, "", "3,y,2"},
      {"u", R"({"id":3})", R"({"id":4,"name":"y"})", ChangeOp::kUpdate, "3,-,-", "4,y,-"},
      {"d", R"({"id":5,"name":"z","qty":9})", "null", ChangeOp::kDelete, "5,z,9", ""},
      {"d", R"({"id":5})", "", ChangeOp::kDelete, "5,-,-", ""},
  };
  for (bool with_block : {true, false}) {
    DebeziumJsonReader reader;
    for (const Case& c : cases) {
      std::string payload = Payload(c.op, c.before, c.after);
      std::string line = with_block ? Wrapped(block, payload) : payload;
      Arena arena;
      auto e = reader.Decode(line, with_block ? nullptr : &known, &arena);
      ASSERT_TRUE(e) << line << ": " << e.error().ToString();
      EXPECT_EQ(e->kind, Kind::kRow) << line;
      EXPECT_EQ(e->op, c.want_op) << line;
      EXPECT_EQ(e->db, "d");
      EXPECT_EQ(e->table, "t");
      EXPECT_EQ(e->ts_ms, 7);
      EXPECT_EQ(e->row_schema != nullptr, with_block);
      EXPECT_EQ(Show(e->before), c.want_before) << line;
      EXPECT_EQ(Show(e->after), c.want_after) << line;
    }
    // Truncation and a tombstone payload.
    Arena arena;
    auto t = reader.Decode(
        with_block ? Wrapped(block, Payload("t", "null", "null")) : Payload("t", "null", "null"),
        &known, &arena);
    ASSERT_TRUE(t) << t.error().ToString();
    EXPECT_EQ(t->kind, Kind::kTruncate);
    EXPECT_TRUE(t->before.empty() && t->after.empty());
    auto tomb = reader.Decode(with_block ? Wrapped(block, "null") : "null", &known, &arena);
    ASSERT_TRUE(tomb) << tomb.error().ToString();
    EXPECT_EQ(tomb->kind, Kind::kTombstone);

    // Missing images, required values and unknown ops.
    auto line = [&](std::string_view payload) {
      return with_block ? Wrapped(block, payload) : std::string(payload);
    };
    std::string prefix = with_block ? "payload." : "";
    ExpectError(reader, line(Payload("c", "null", "null")), &known,
                prefix + "after: op 'c' needs the after image");
    ExpectError(reader, line(Payload("u", R"({"id":1})", "")), &known,
                prefix + "after: op 'u' needs the after image");
    ExpectError(reader, line(Payload("d", "null", R"({"id":1})")), &known,
                prefix + "before: op 'd' needs the before image");
    ExpectError(reader, line(Payload("c", "", R"({"name":"a"})")), &known,
                prefix + "after.id: is required but null or missing");
    ExpectError(reader, line(Payload("x", "", R"({"id":1})")), &known,
                prefix + "op: unknown op 'x'");
    ExpectError(reader, line(Payload("c", "", R"({"id":"one"})")), &known,
                prefix + "after.id: expected an integer for long, got a string");
    ExpectError(reader, line(Payload("c", "", R"({"id":1,"qty":[1]})")), &known,
                prefix + "after.qty: expected an integer for int, got an array");
  }
}

TEST(DebeziumJsonReaderEdgesTest, MemberNamesAsWritten) {
  // Names of 1, 15, 16 and 40 bytes, one that is a prefix of another, and one
  // JSON must escape.
  std::string long_name(40, 'L');
  std::string fields =
      fmt::format(R"({{"type":"int64","optional":false,"field":"i"}},)"
                  R"({{"type":"int64","optional":true,"field":"id"}},)"
                  R"({{"type":"int64","optional":true,"field":"fifteen_bytes_x"}},)"
                  R"({{"type":"int64","optional":true,"field":"sixteen_bytes_xy"}},)"
                  R"({{"type":"int64","optional":true,"field":"{}"}},)"
                  R"({{"type":"int64","optional":true,"field":"q\"uote"}},)"
                  R"({{"type":"int64","optional":true,"field":"caf\u00e9"}})",
                  long_name);
  std::string block = Block(fields);
  DebeziumJsonReader reader;
  auto decode = [&](std::string_view after) {
    Arena arena;
    auto e = reader.Decode(Wrapped(block, Payload("c", "null", after)), nullptr, &arena);
    EXPECT_TRUE(e) << after << ": " << (e ? "" : e.error().ToString());
    std::vector<int64_t> out;
    if (!e) return out;
    for (size_t k = 0; k < e->after.size(); ++k) {
      out.push_back(e->after[k].is_null() ? -1 : e->after[k].i64);
    }
    return out;
  };
  using V = std::vector<int64_t>;
  // In schema order.
  EXPECT_EQ(decode(fmt::format(R"({{"i":1,"id":2,"fifteen_bytes_x":3,"sixteen_bytes_xy":4,)"
                               R"("{}":5,"q\"uote":6,"café":7}})",
                               long_name)),
            (V{1, 2, 3, 4, 5, 6, 7}));
  // Reversed, with unknown members (a longer name sharing a prefix, a shorter
  // one) in between, and names written with escapes.
  EXPECT_EQ(decode(fmt::format(R"({{"caf\u00e9":7,"q\u0022uote":6,"idx":99,"{}":5,)"
                               R"("sixteen_bytes_xy":4,"fifteen_bytes_":98,"fifteen_bytes_x":3,)"
                               R"("\u0069d":2,"":97,"i":1}})",
                               long_name)),
            (V{1, 2, 3, 4, 5, 6, 7}));
  // Missing members are null; a repeated member's last value counts.
  EXPECT_EQ(decode(R"({"id":2,"i":1,"i":8})"), (V{8, 2, -1, -1, -1, -1, -1}));
}

TEST(DebeziumJsonReaderEdgesTest, StringsWithAndWithoutEscapes) {
  types::Schema known({{1, "id", true, Type::Long(), ""}, {2, "s", false, Type::String(), ""}});
  DebeziumJsonReader reader;
  struct Case {
    std::string_view json, want;
  };
  const Case cases[] = {
      {R"("")", ""},
      {R"("plain")", "plain"},
      {R"("plain"   )", "plain"},  // blanks before the next member
      {R"("a\nb")", "a\nb"},
      {R"("\"quoted\"")", "\"quoted\""},
      {R"("ends with \\")", "ends with \\"},
      {R"("caf\u00e9 \ud83d\ude00")", "caf\xc3\xa9 \xf0\x9f\x98\x80"},
      {R"("caf\u00e9 raw é")", "caf\xc3\xa9 raw \xc3\xa9"},
      {R"("slash \/")", "slash /"},
  };
  for (const Case& c : cases) {
    for (std::string_view after : {R"({{"s":{},"id":1}})", R"({{"id":1,"s":{}}})"}) {
      Arena arena;
      std::string line = Payload("c", "null", fmt::format(fmt::runtime(after), c.json));
      auto e = reader.Decode(line, &known, &arena);
      ASSERT_TRUE(e) << line << ": " << e.error().ToString();
      EXPECT_EQ(e->after[1].as_bytes(), c.want) << line;
    }
  }
  // Source names with escapes are unescaped too.
  Arena arena;
  auto e = reader.Decode(R"({"op":"c","after":{"id":1},"source":{"db":"d\u0031","table":"t\"x"}})",
                         &known, &arena);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->db, "d1");
  EXPECT_EQ(e->table, "t\"x");
}

TEST(DebeziumJsonReaderEdgesTest, MalformedInputIsNamed) {
  types::Schema known = KnownSchema();
  DebeziumJsonReader reader;
  std::string good = Wrapped(Block(kIdNameQty), Payload("c", "null", R"({"id":1})"));
  // Cut anywhere: never accepted, never a crash.
  for (size_t n = 0; n + 1 < good.size(); n += 7) {
    Arena arena;
    auto e = reader.Decode(std::string_view(good).substr(0, n), &known, &arena);
    EXPECT_FALSE(e) << "accepted: " << good.substr(0, n);
  }
  ExpectError(reader, Payload("c", "null", R"({"id":1,"name":"bad \x escape"})"), &known,
              "invalid JSON");
  ExpectError(reader, Payload("c", "null", R"({"id":1,"name":"unterminated})"), &known,
              "invalid JSON");
  ExpectError(reader, Payload("c", "null", R"({"id":1,"name":tru})"), &known, "after.name");
  ExpectError(reader, Payload("c", "null", R"({"id":1 "name":"a"})"), &known, "invalid JSON");
  ExpectError(reader, good + " x", &known, "content after the event");
  ExpectError(reader, Payload("c", "null", "\"row\""), &known,
              "after: expected an object or null, got a string");
  ExpectError(reader, R"({"op":"c","after":{"id":1},"source":{"db":"d"}})", &known,
              "source.table: missing");
  ExpectError(reader, R"({"op":"c","after":{"id":1}})", &known, "source: missing");
  ExpectError(reader, R"({"before":null,"after":{"id":1},"source":{"table":"t"}})", &known,
              "op: missing in a row change");
  ExpectError(reader, Payload("c", "null", R"({"id":1})"), nullptr,
              "no schema block in the event and no known schema");
}

TEST(DebeziumJsonReaderEdgesTest, BeforeImageLimitedToTheKey) {
  std::string block = Block(kIdNameQty);
  DebeziumJsonReader reader;
  Arena arena;
  auto decode = [&](std::string_view line, const types::Schema* known = nullptr) {
    arena.Reset();
    auto e = reader.Decode(line, known, &arena);
    EXPECT_TRUE(e) << line << ": " << (e ? "" : e.error().ToString());
    return e ? Show(e->before) + " | " + Show(e->after) : std::string("error");
  };
  std::string update = Wrapped(
      block, Payload("u", R"({"id":1,"name":"a","qty":2})", R"({"id":1,"name":"b","qty":3})"));
  EXPECT_EQ(decode(update), "1,a,2 | 1,b,3");
  // Nothing is limited before the caller asks, and only the table asked for.
  int key[] = {0};
  reader.LimitBeforeImage("d", "t", key);
  EXPECT_EQ(decode(update), "1,-,- | 1,b,3");
  EXPECT_EQ(decode(Wrapped(block, Payload("d", R"({"id":4,"name":"a","qty":2})", "null"))),
            "4,-,- | ");
  // A bad value outside the key is skipped unparsed; one in the key is an error.
  EXPECT_EQ(decode(Wrapped(block, Payload("u", R"({"id":1,"name":7,"qty":"x"})",
                                          R"({"id":1,"name":"b","qty":3})"))),
            "1,-,- | 1,b,3");
  ExpectError(reader, Wrapped(block, Payload("u", R"({"id":"x","name":"a"})", R"({"id":1})")),
              nullptr, "payload.before.id: expected an integer for long, got a string");
  // Malformed JSON is still refused.
  ExpectError(reader, Wrapped(block, Payload("u", R"({"id":1,"name":"a" "qty":2})", R"({"id":1})")),
              nullptr, "invalid JSON");
  // Another table with the same schema block: its before image in full.
  EXPECT_EQ(decode(Wrapped(block, Payload("u", R"({"id":1,"name":"a","qty":2})",
                                          R"({"id":1,"name":"b","qty":3})", "other"))),
            "1,a,2 | 1,b,3");
  EXPECT_EQ(decode(update), "1,-,- | 1,b,3");
  // Several fields; indexes outside the schema are ignored.
  int key_and_qty[] = {2, 0, 17, -1};
  reader.LimitBeforeImage("d", "t", key_and_qty);
  EXPECT_EQ(decode(update), "1,-,2 | 1,b,3");
  // A changed schema block starts unlimited.
  std::string wider =
      Block(std::string(kIdNameQty) + R"(,{"type":"string","optional":true,"field":"extra"})");
  EXPECT_EQ(decode(Wrapped(wider, Payload("u", R"({"id":1,"name":"a","qty":2,"extra":"e"})",
                                          R"({"id":1,"name":"b","qty":3,"extra":"f"})"))),
            "1,a,2,e | 1,b,3,f");
  // Events without a schema block: the limit belongs to the known schema.
  types::Schema known = KnownSchema();
  std::string bare =
      Payload("u", R"({"id":1,"name":"a","qty":2})", R"({"id":1,"name":"b","qty":3})");
  EXPECT_EQ(decode(bare, &known), "1,a,2 | 1,b,3");
  reader.LimitBeforeImage("d", "t", key);
  EXPECT_EQ(decode(bare, &known), "1,-,- | 1,b,3");
  EXPECT_EQ(decode(Payload("u", R"({"id":1,"name":"a","qty":2})", R"({"id":1,"name":"b","qty":3})",
                           "other"),
                   &known),
            "1,a,2 | 1,b,3");
  types::Schema other_known = KnownSchema();
  EXPECT_EQ(decode(bare, &other_known), "1,a,2 | 1,b,3");
}

}  // namespace
}  // namespace floe::cdc
