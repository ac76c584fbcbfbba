// Binary encoding vectors from the Avro specification, and decoding of bad bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "floe/format/avro/binary.h"

namespace floe::format::avro {
namespace {

std::string Hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

Schema MustParse(std::string_view json) {
  auto s = Schema::Parse(json);
  EXPECT_TRUE(s) << s.error().ToString();
  return *s;
}

std::string Encode(std::string_view schema, const Datum& d) {
  auto bytes = EncodeBinary(MustParse(schema), d);
  EXPECT_TRUE(bytes) << bytes.error().ToString();
  return bytes ? Hex(*bytes) : "";
}

TEST(AvroBinaryTest, ZigZagVarintsFromSpec) {
  // The table in the spec's "Binary Encoding / Primitive Types" section.
  const std::pair<int64_t, const char*> cases[] = {
      {0, "00"},   {-1, "01"},   {1, "02"},        {-2, "03"},        {2, "04"},
      {-64, "7f"}, {64, "8001"}, {8192, "808001"}, {-8193, "818001"},
  };
  for (const auto& [value, hex] : cases) {
    ByteBuffer out;
    AppendVarLong(value, &out);
    EXPECT_EQ(Hex(out.view()), hex) << value;
    BinaryDecoder d(out.span());
    auto back = d.ReadLong();
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, value);
    EXPECT_TRUE(d.at_end());
  }
}

TEST(AvroBinaryTest, VarintExtremes) {
  for (int64_t v : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                    int64_t{std::numeric_limits<int32_t>::min()}}) {
    ByteBuffer out;
    AppendVarLong(v, &out);
    EXPECT_LE(out.size(), 10u);
    BinaryDecoder d(out.span());
    EXPECT_EQ(*d.ReadLong(), v);
  }
  ByteBuffer max;
  AppendVarLong(std::numeric_limits<int64_t>::min(), &max);
  EXPECT_EQ(Hex(max.view()), "ffffffffffffffffff01");
}

TEST(AvroBinaryTest, PrimitiveEncodingsFromSpec) {
  EXPECT_EQ(Encode("\"null\"", Datum::Null()), "");
  EXPECT_EQ(Encode("\"boolean\"", Datum::Boolean(true)), "01");
  EXPECT_EQ(Encode("\"boolean\"", Datum::Boolean(false)), "00");
  EXPECT_EQ(Encode("\"int\"", Datum::Int(-64)), "7f");
  EXPECT_EQ(Encode("\"long\"", Datum::Long(64)), "8001");
  EXPECT_EQ(Encode("\"float\"", Datum::Float(1.0f)), "0000803f");
  EXPECT_EQ(Encode("\"double\"", Datum::Double(1.0)), "000000000000f03f");
  // The spec: the string "foo" is 06 66 6f 6f.
  EXPECT_EQ(Encode("\"string\"", Datum::String("foo")), "06666f6f");
  EXPECT_EQ(Encode("\"bytes\"", Datum::Bytes(std::string("\x00\xff", 2))), "0400ff");
}

TEST(AvroBinaryTest, ComplexEncodingsFromSpec) {
  // Record {"a": 27, "b": "foo"} is 36 06 66 6f 6f.
  EXPECT_EQ(Encode(R"({"type":"record","name":"test","fields":[
                      {"name":"a","type":"long"},{"name":"b","type":"string"}]})",
                   Datum::Record({Datum::Long(27), Datum::String("foo")})),
            "36066"
            "66f6f");
  // Enum ["A","B","C","D"]: "D" is 06.
  EXPECT_EQ(Encode(R"({"type":"enum","name":"Foo","symbols":["A","B","C","D"]})", Datum::Enum(3)),
            "06");
  // Array of longs [3, 27] is 04 06 36 00.
  EXPECT_EQ(
      Encode(R"({"type":"array","items":"long"})", Datum::Array({Datum::Long(3), Datum::Long(27)})),
      "04063600");
  EXPECT_EQ(Encode(R"({"type":"array","items":"long"})", Datum::Array({})), "00");
  // Map {"a": 1}.
  EXPECT_EQ(Encode(R"({"type":"map","values":"int"})", Datum::Map({"a"}, {Datum::Int(1)})),
            "0202610200");
  // Union ["null","string"]: null is 00, "a" is 02 02 61.
  EXPECT_EQ(Encode(R"(["null","string"])", Datum::Null()), "00");
  EXPECT_EQ(Encode(R"(["null","string"])", Datum::String("a")), "020261");
  // Explicit branch wins over the first fitting one.
  EXPECT_EQ(Encode(R"(["long","double"])", Datum::Long(1).WithBranch(1)), "02000000000000f03f");
  // Fixed is the raw bytes.
  EXPECT_EQ(Encode(R"({"type":"fixed","name":"md5","size":2})", Datum::Fixed("ab")), "6162");
}

TEST(AvroBinaryTest, EncodeRejectsValuesThatDoNotFit) {
  Schema record = MustParse(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"}]})");
  auto wrong_type = EncodeBinary(record, Datum::Record({Datum::String("x")}));
  ASSERT_FALSE(wrong_type);
  EXPECT_EQ(wrong_type.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(wrong_type.error().message().find("field 'a'"), std::string::npos);
  EXPECT_FALSE(EncodeBinary(record, Datum::Record({})));
  EXPECT_FALSE(
      EncodeBinary(MustParse(R"({"type":"fixed","name":"f","size":4})"), Datum::Fixed("ab")));
  EXPECT_FALSE(
      EncodeBinary(MustParse(R"({"type":"enum","name":"e","symbols":["A"]})"), Datum::Enum(1)));
  EXPECT_FALSE(EncodeBinary(MustParse(R"(["null","int"])"), Datum::String("x")));
  // Widening is allowed: int into long and double, string symbol into enum.
  EXPECT_TRUE(EncodeBinary(MustParse("\"long\""), Datum::Int(1)));
  EXPECT_TRUE(EncodeBinary(MustParse("\"double\""), Datum::Int(1)));
  auto sym = EncodeBinary(MustParse(R"({"type":"enum","name":"e","symbols":["A","B"]})"),
                          Datum::String("B"));
  ASSERT_TRUE(sym);
  EXPECT_EQ(Hex(*sym), "02");
}

TEST(AvroBinaryTest, RoundTripsEveryType) {
  Schema schema = MustParse(R"({"type":"record","name":"all","namespace":"t","fields":[
    {"name":"n","type":"null"},
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"by","type":"bytes"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
    {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
    {"name":"a","type":{"type":"array","items":["null","long"]}},
    {"name":"m","type":{"type":"map","values":"E"}},
    {"name":"u","type":["null","string","F"]},
    {"name":"rec","type":{"type":"record","name":"inner","fields":[{"name":"x","type":"int"}]}}
  ]})");
  Datum d = Datum::Record({Datum::Null(), Datum::Boolean(true), Datum::Int(-7),
                           Datum::Long(int64_t{1} << 40), Datum::Float(2.5f), Datum::Double(-0.125),
                           Datum::Bytes(std::string("\0\1\2", 3)), Datum::String("héllo"),
                           Datum::Enum(1), Datum::Fixed("xyz"),
                           Datum::Array({Datum::Long(1), Datum::Null(), Datum::Long(-1)}),
                           Datum::Map({"k1", "k2"}, {Datum::Enum(0), Datum::Enum(1)}),
                           Datum::Fixed("abc"), Datum::Record({Datum::Int(42)})});
  auto bytes = EncodeBinary(schema, d);
  ASSERT_TRUE(bytes) << bytes.error().ToString();
  auto back = DecodeBinary(schema, *bytes);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(*back, d) << back->DebugString();
  // The union value remembers its branch: index 2 (the fixed).
  EXPECT_EQ(back->field(12).branch(), 2);
  EXPECT_EQ(back->field(10).children()[1].branch(), 0);
}

TEST(AvroBinaryTest, ReadsNegativeBlockCountsWithByteSizes) {
  // Arrays may be written as blocks with a negative count followed by a byte size.
  Schema schema = MustParse(R"({"type":"array","items":"int"})");
  std::string bytes = Unhex(
      "03"
      "04"
      "0204"
      "02"
      "06"
      "00");  // -2 items (2 bytes), then 1 item
  auto d = DecodeBinary(schema, bytes);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(*d, Datum::Array({Datum::Int(1), Datum::Int(2), Datum::Int(3)}));
}

void ExpectCorrupt(std::string_view schema, std::string_view hex, std::string_view what) {
  auto d = DecodeBinary(MustParse(schema), Unhex(hex));
  ASSERT_FALSE(d) << "decoded " << d->DebugString() << " from " << hex;
  EXPECT_EQ(d.error().code(), ErrorCode::kCorruption) << d.error().ToString();
  EXPECT_NE(d.error().message().find(what), std::string::npos) << d.error().ToString();
  EXPECT_NE(d.error().message().find("offset"), std::string::npos) << d.error().ToString();
}

TEST(AvroBinaryTest, BadBytesAreCorruptionWithOffsets) {
  ExpectCorrupt("\"long\"", "ff", "truncated varint");
  ExpectCorrupt("\"long\"", "ffffffffffffffffff7f", "longer than 64 bits");
  ExpectCorrupt("\"int\"", "8080808020", "out of 32-bit range");
  ExpectCorrupt("\"boolean\"", "02", "not 0 or 1");
  ExpectCorrupt("\"double\"", "0000", "truncated double");
  ExpectCorrupt("\"string\"", "01", "length -1");
  ExpectCorrupt("\"string\"", "0a6162", "length 5 with 2 bytes left");
  ExpectCorrupt("\"bytes\"", "feffffffffffffffff01", "length");
  ExpectCorrupt(R"(["null","int"])", "04", "union branch 2 out of range");
  ExpectCorrupt(R"(["null","int"])", "01", "union branch -1 out of range");
  ExpectCorrupt(R"({"type":"enum","name":"e","symbols":["A"]})", "02", "enum index 1");
  ExpectCorrupt(R"({"type":"array","items":"long"})", "feffffffffffffffff01", "block count");
  ExpectCorrupt(R"({"type":"map","values":"long"})", "c8010261", "block count");
  // Two trailing bytes after a complete datum.
  ExpectCorrupt("\"int\"", "020000", "trailing bytes");
}

TEST(AvroBinaryTest, HugeCountsOfZeroByteItemsAreRefused) {
  // An array of nulls claiming 2^62 items must not loop or allocate.
  ExpectCorrupt(R"({"type":"array","items":"null"})",
                "808080808080808080"
                "01",
                "implausible");
  // Nested: arrays of arrays of nulls cannot multiply up either.
  ExpectCorrupt(R"({"type":"array","items":{"type":"array","items":"null"}})",
                "02"
                "feff07",
                "implausible");
}

TEST(AvroBinaryTest, DeepRecursiveDataIsRefused) {
  Schema list = MustParse(R"({"type":"record","name":"node","fields":[
      {"name":"next","type":["null","node"]}]})");
  std::string deep(100000, '\x02');  // branch 1 (another node) forever
  deep.push_back('\x00');
  auto d = DecodeBinary(list, deep);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(d.error().message().find("nested too deeply"), std::string::npos);
  // A short list decodes.
  auto ok = DecodeBinary(list, std::string("\x02\x02\x00", 3));
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->field(0).field(0).field(0).type(), Type::kNull);
}

TEST(AvroBinaryTest, DecodeReusesDatum) {
  Schema schema = MustParse(R"({"type":"record","name":"r","fields":[
      {"name":"s","type":"string"},{"name":"a","type":{"type":"array","items":"string"}}]})");
  auto reader = DatumReader::Make(schema);
  ASSERT_TRUE(reader);
  Datum d;
  for (const auto& s : {"first value", "2"}) {
    auto bytes =
        EncodeBinary(schema, Datum::Record({Datum::String(s), Datum::Array({Datum::String(s)})}));
    ASSERT_TRUE(bytes);
    BinaryDecoder decoder({reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()});
    ASSERT_TRUE(reader->Read(&decoder, &d));
    EXPECT_EQ(d.field(0).bytes(), s);
    EXPECT_EQ(d.field(1).children().size(), 1u);
  }
}

}  // namespace
}  // namespace floe::format::avro
