// Schema resolution: the Avro spec's rules, plus field-id matching.
#include <gtest/gtest.h>

#include <string>

#include "floe/format/avro/binary.h"

namespace floe::format::avro {
namespace {

Schema MustParse(std::string_view json) {
  auto s = Schema::Parse(json);
  EXPECT_TRUE(s) << s.error().ToString() << "\n" << json;
  return *s;
}

// Encodes `datum` with `writer` and decodes it as `reader`.
Result<Datum> Resolve(std::string_view writer, std::string_view reader, const Datum& datum,
                      ResolveOptions options = {}) {
  Schema w = MustParse(writer);
  Schema r = MustParse(reader);
  auto bytes = EncodeBinary(w, datum);
  EXPECT_TRUE(bytes) << bytes.error().ToString();
  return DecodeBinary(w, r, *bytes, options);
}

TEST(AvroResolveTest, Promotions) {
  struct Case {
    const char* writer;
    Datum value;
    const char* reader;
    Datum expected;
  };
  const Case cases[] = {
      {"\"int\"", Datum::Int(-5), "\"long\"", Datum::Long(-5)},
      {"\"int\"", Datum::Int(7), "\"float\"", Datum::Float(7.0f)},
      {"\"int\"", Datum::Int(7), "\"double\"", Datum::Double(7.0)},
      {"\"long\"", Datum::Long(int64_t{1} << 40), "\"float\"", Datum::Float(1099511627776.0f)},
      {"\"long\"", Datum::Long(int64_t{1} << 40), "\"double\"", Datum::Double(1099511627776.0)},
      {"\"float\"", Datum::Float(0.5f), "\"double\"", Datum::Double(0.5)},
      {"\"string\"", Datum::String("ab"), "\"bytes\"", Datum::Bytes("ab")},
      {"\"bytes\"", Datum::Bytes("cd"), "\"string\"", Datum::String("cd")},
  };
  for (const auto& c : cases) {
    auto d = Resolve(c.writer, c.reader, c.value);
    ASSERT_TRUE(d) << c.writer << " -> " << c.reader << ": " << d.error().ToString();
    EXPECT_EQ(*d, c.expected) << c.writer << " -> " << c.reader;
  }
  // No demotions.
  for (auto [w, r] : {std::pair{"\"long\"", "\"int\""},
                      {"\"double\"", "\"float\""},
                      {"\"string\"", "\"int\""},
                      {"\"float\"", "\"long\""}}) {
    auto reader = DatumReader::Make(MustParse(w), MustParse(r));
    ASSERT_FALSE(reader) << w << " -> " << r;
    EXPECT_EQ(reader.error().code(), ErrorCode::kSchemaIncompatible);
  }
}

constexpr const char* kWriterRecord = R"({"type":"record","name":"r","fields":[
    {"name":"a","type":"int"},
    {"name":"dropped","type":{"type":"array","items":{"type":"map","values":"string"}}},
    {"name":"b","type":"string"}]})";

Datum WriterValue() {
  return Datum::Record({Datum::Int(1), Datum::Array({Datum::Map({"k"}, {Datum::String("v")})}),
                        Datum::String("bee")});
}

TEST(AvroResolveTest, SkipsWriterFieldsAndFillsDefaults) {
  auto d = Resolve(kWriterRecord, R"({"type":"record","name":"r","fields":[
      {"name":"b","type":"string"},
      {"name":"c","type":"long","default":42},
      {"name":"d","type":["null","string"],"default":null},
      {"name":"e","type":{"type":"record","name":"sub","fields":[
          {"name":"x","type":"bytes","default":"\u00ff\u0001"}]},"default":{}},
      {"name":"a","type":"long"}]})",
                   WriterValue());
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(*d, Datum::Record({Datum::String("bee"), Datum::Long(42), Datum::Null(),
                               Datum::Record({Datum::Bytes("\xff\x01")}), Datum::Long(1)}))
      << d->DebugString();
  EXPECT_EQ(d->field(2).branch(), 0);
}

TEST(AvroResolveTest, MissingFieldWithoutDefaultIsIncompatible) {
  Schema w = MustParse(kWriterRecord);
  Schema r = MustParse(R"({"type":"record","name":"r","fields":[
      {"name":"a","type":"int"},{"name":"new","type":["null","int"]}]})");
  auto reader = DatumReader::Make(w, r);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(reader.error().message().find("'new'"), std::string::npos);
  // Iceberg's rule, on request: an optional field reads as null.
  auto lenient = DatumReader::Make(w, r, {.missing_optional_as_null = true});
  ASSERT_TRUE(lenient) << lenient.error().ToString();
  auto d = DecodeBinary(w, r, *EncodeBinary(w, WriterValue()), {.missing_optional_as_null = true});
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, Datum::Record({Datum::Int(1), Datum::Null()}));
}

TEST(AvroResolveTest, MatchesFieldsByIdAcrossRenames) {
  const char* writer = R"({"type":"record","name":"r","fields":[
      {"name":"old_name","type":"int","field-id":1},
      {"name":"b","type":"string","field-id":2}]})";
  // Field 1 was renamed; "b" was dropped and a new column re-used its name with id 3.
  const char* reader = R"({"type":"record","name":"r","fields":[
      {"name":"new_name","type":"long","field-id":1},
      {"name":"b","type":["null","string"],"default":null,"field-id":3}]})";
  auto d = Resolve(writer, reader, Datum::Record({Datum::Int(9), Datum::String("x")}));
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(*d, Datum::Record({Datum::Long(9), Datum::Null()})) << d->DebugString();
}

TEST(AvroResolveTest, MatchesByNameAndAliasesWithoutIds) {
  const char* writer = R"({"type":"record","name":"r","fields":[
      {"name":"x","type":"int"},{"name":"y","type":"int"}]})";
  const char* reader = R"({"type":"record","name":"r","fields":[
      {"name":"renamed","aliases":["y"],"type":"int"},{"name":"x","type":"int"}]})";
  auto d = Resolve(writer, reader, Datum::Record({Datum::Int(1), Datum::Int(2)}));
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(*d, Datum::Record({Datum::Int(2), Datum::Int(1)}));
}

TEST(AvroResolveTest, Unions) {
  // Writer non-union, reader union: the matching branch, then a promotion.
  auto a = Resolve("\"int\"", R"(["null","string","int"])", Datum::Int(3));
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, Datum::Int(3));
  EXPECT_EQ(a->branch(), 2);
  auto b = Resolve("\"int\"", R"(["null","double"])", Datum::Int(3));
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, Datum::Double(3));
  EXPECT_EQ(b->branch(), 1);
  // Writer union, reader non-union: works for values whose branch resolves.
  auto c = Resolve(R"(["null","int"])", "\"long\"", Datum::Int(4));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, Datum::Long(4));
  EXPECT_EQ(c->branch(), -1);
  auto d = Resolve(R"(["null","int"])", "\"long\"", Datum::Null());
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), ErrorCode::kSchemaIncompatible);
  // Union to union, reordered branches.
  auto e =
      Resolve(R"(["null","string","long"])", R"(["long","string","null"])", Datum::String("s"));
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, Datum::String("s"));
  EXPECT_EQ(e->branch(), 1);
  auto f = Resolve(R"(["null","string","long"])", R"(["long","string","null"])", Datum::Null());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->branch(), 2);
  // Named branches match by name.
  auto g = Resolve(
      R"([{"type":"fixed","name":"A","size":1},{"type":"fixed","name":"B","size":2}])",
      R"(["null",{"type":"fixed","name":"B","size":2},{"type":"fixed","name":"A","size":1}])",
      Datum::Fixed("zz").WithBranch(1));
  ASSERT_TRUE(g) << g.error().ToString();
  EXPECT_EQ(g->branch(), 1);
  // No branch fits: incompatible when building.
  EXPECT_FALSE(DatumReader::Make(MustParse("\"boolean\""), MustParse(R"(["null","int"])")));
}

TEST(AvroResolveTest, EnumsBySymbol) {
  const char* writer = R"({"type":"enum","name":"e","symbols":["A","B","C"]})";
  const char* reader = R"({"type":"enum","name":"e","symbols":["C","A"]})";
  auto a = Resolve(writer, reader, Datum::Enum(0));
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, Datum::Enum(1));
  auto b = Resolve(writer, reader, Datum::Enum(1));
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code(), ErrorCode::kSchemaIncompatible);
  EXPECT_NE(b.error().message().find("'B'"), std::string::npos);
  // With a reader default, unknown symbols map to it.
  auto c = Resolve(writer, R"({"type":"enum","name":"e","symbols":["C","A"],"default":"C"})",
                   Datum::Enum(1));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, Datum::Enum(0));
}

TEST(AvroResolveTest, NestedArraysMapsAndFixed) {
  auto a = Resolve(R"({"type":"map","values":{"type":"array","items":"int"}})",
                   R"({"type":"map","values":{"type":"array","items":"double"}})",
                   Datum::Map({"k"}, {Datum::Array({Datum::Int(1), Datum::Int(2)})}));
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, Datum::Map({"k"}, {Datum::Array({Datum::Double(1), Datum::Double(2)})}));
  EXPECT_FALSE(DatumReader::Make(MustParse(R"({"type":"fixed","name":"f","size":2})"),
                                 MustParse(R"({"type":"fixed","name":"f","size":3})")));
}

TEST(AvroResolveTest, RecursiveSchemas) {
  const char* writer = R"({"type":"record","name":"node","fields":[
      {"name":"v","type":"int"},{"name":"next","type":["null","node"]}]})";
  const char* reader = R"({"type":"record","name":"node","fields":[
      {"name":"next","type":["null","node"]},{"name":"v","type":"long"}]})";
  Datum list = Datum::Record({Datum::Int(1), Datum::Record({Datum::Int(2), Datum::Null()})});
  auto d = Resolve(writer, reader, list);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(*d, Datum::Record({Datum::Record({Datum::Null(), Datum::Long(2)}), Datum::Long(1)}))
      << d->DebugString();
}

TEST(AvroResolveTest, BadDefaultIsIncompatible) {
  auto reader = DatumReader::Make(
      MustParse(R"({"type":"record","name":"r","fields":[]})"),
      MustParse(
          R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","default":"x"}]})"));
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code(), ErrorCode::kSchemaIncompatible);
}

}  // namespace
}  // namespace floe::format::avro
