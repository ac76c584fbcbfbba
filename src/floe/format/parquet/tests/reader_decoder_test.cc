// Decoder vectors from parquet-format's Encodings.md, and bad inputs.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "floe/format/parquet/decoder.h"
#include "floe/format/parquet/rle_decoder.h"

namespace floe::format::parquet {
namespace {

using types::Value;

std::vector<uint8_t> B(std::initializer_list<int> b) {
  std::vector<uint8_t> v;
  for (int x : b) v.push_back(static_cast<uint8_t>(x));
  return v;
}

std::vector<uint8_t> Cat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<uint8_t> Text(std::string_view s) { return {s.begin(), s.end()}; }

ReaderLeaf Leaf(Type type, LeafConversion conversion, int32_t length = 0) {
  ReaderLeaf leaf;
  leaf.physical_type = type;
  leaf.conversion = conversion;
  leaf.type_length = length;
  return leaf;
}

TEST(ReaderDecoderTest, RleBitPackedSpecExample) {
  // Encodings.md: values 0..7 bit-packed with width 3 are 10001000 11000110 11111010.
  auto data = B({0x03, 0x88, 0xc6, 0xfa});
  RleBitPackedDecoder d(data, 3);
  uint32_t out[8];
  ASSERT_TRUE(d.Decode(out, 8).has_value());
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
}

TEST(ReaderDecoderTest, RleRunsAndMixedRuns) {
  // RLE run of 5 x 3 (width 2), then a bit-packed group: 1,0,1,1,0,0,0,0 (width 2).
  auto data = B({0x0a, 0x03, 0x03, 0x45, 0x00});
  RleBitPackedDecoder d(data, 2);
  int16_t out[10];
  ASSERT_TRUE(d.Decode(out, 10).has_value());
  const int16_t want[10] = {3, 3, 3, 3, 3, 1, 1, 0, 1, 0};
  // 0x45 = 01 00 01 01 -> values 1,1,0,1 (LSB first), 0x00 -> 0,0,0,0
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], want[i]) << i;
}

TEST(ReaderDecoderTest, RleRejectsBadStreams) {
  int16_t out[16];
  auto truncated = B({0x10});  // RLE run of 8, value byte missing
  RleBitPackedDecoder d1(truncated, 1);
  EXPECT_FALSE(d1.Decode(out, 8).has_value());
  auto short_stream = B({0x04, 0x01});  // 2 values, 3 asked
  RleBitPackedDecoder d2(short_stream, 1);
  EXPECT_FALSE(d2.Decode(out, 3).has_value());
  auto wide_value = B({0x02, 0x07});  // value 7 with width 2
  RleBitPackedDecoder d3(wide_value, 2);
  EXPECT_FALSE(d3.Decode(out, 1).has_value());
  // A bit-packed run claiming 2^40 groups over 1 byte reads only what is there.
  auto huge = B({0x81, 0x80, 0x80, 0x80, 0x80, 0x40, 0xff});
  RleBitPackedDecoder d4(huge, 1);
  EXPECT_TRUE(d4.Decode(out, 8).has_value());
  EXPECT_FALSE(d4.Decode(out, 1).has_value());
  auto bad_varint = B({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  RleBitPackedDecoder d5(bad_varint, 1);
  EXPECT_FALSE(d5.Decode(out, 1).has_value());
}

TEST(ReaderDecoderTest, LegacyBitPackedSpecExample) {
  // Encodings.md: 0..7 with width 3, MSB first: 00000101 00111001 01110111.
  auto data = B({0x05, 0x39, 0x77});
  int16_t out[8];
  size_t consumed = 0;
  ASSERT_TRUE(DecodeLegacyBitPacked(data, 3, out, 8, &consumed).has_value());
  EXPECT_EQ(consumed, 3u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
  EXPECT_FALSE(DecodeLegacyBitPacked(data, 3, out, 9, &consumed).has_value());
}

TEST(ReaderDecoderTest, DeltaBinaryPackedSpecExamples) {
  // Example 1: 1 2 3 4 5 (deltas 1, bit width 0).
  auto ex1 = B({0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00});
  DeltaBitPackedDecoder d1;
  ASSERT_TRUE(d1.Init(ex1).has_value());
  EXPECT_EQ(d1.total_values(), 5u);
  int64_t out[8];
  ASSERT_TRUE(d1.Decode(out, 5).has_value());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], i + 1);
  EXPECT_FALSE(d1.Decode(out, 1).has_value());

  // Example 2: 7 5 3 1 2 3 4 5 (min delta -2, relative 0 0 0 3 3 3 3, width 2).
  auto ex2 = Cat(B({0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00, 0x00, 0xc0, 0x3f}),
                 std::vector<uint8_t>(6, 0));
  DeltaBitPackedDecoder d2;
  ASSERT_TRUE(d2.Init(ex2).has_value());
  ASSERT_TRUE(d2.Decode(out, 8).has_value());
  const int64_t want[8] = {7, 5, 3, 1, 2, 3, 4, 5};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], want[i]) << i;
  EXPECT_EQ(d2.position(), ex2.size());
}

TEST(ReaderDecoderTest, DeltaBinaryPackedRejectsBadHeaders) {
  DeltaBitPackedDecoder d;
  EXPECT_FALSE(d.Init(B({0x81, 0x01, 0x04, 0x01, 0x00})).has_value());  // block 129
  EXPECT_FALSE(d.Init(B({0x80, 0x01, 0x00, 0x01, 0x00})).has_value());  // 0 miniblocks
  EXPECT_FALSE(d.Init(B({0x80, 0x01, 0x08, 0x01, 0x00})).has_value());  // 16 per miniblock
  // Width 40 miniblock with no data behind it.
  auto wide = B({0x80, 0x01, 0x04, 0x03, 0x00, 0x00, 40, 0, 0, 0});
  ASSERT_TRUE(d.Init(wide).has_value());
  int64_t out[3];
  EXPECT_FALSE(d.Decode(out, 3).has_value());
}

TEST(ReaderDecoderTest, DeltaLengthByteArraySpecExample) {
  // "Hello", "World", "Foobar", "ABCDEF": lengths 5 5 6 6.
  auto data = Cat(B({0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0, 0, 0}),
                  Text("HelloWorldFoobarABCDEF"));
  ReaderLeaf leaf = Leaf(Type::kByteArray, LeafConversion::kBytes);
  ValueDecoder dec(&leaf);
  Arena arena;
  Value out[4];
  ASSERT_TRUE(dec.Decode(Encoding::kDeltaLengthByteArray, data, 4, {}, &arena, out).has_value());
  EXPECT_EQ(out[0].as_bytes(), "Hello");
  EXPECT_EQ(out[1].as_bytes(), "World");
  EXPECT_EQ(out[2].as_bytes(), "Foobar");
  EXPECT_EQ(out[3].as_bytes(), "ABCDEF");
}

TEST(ReaderDecoderTest, DeltaByteArraySpecExample) {
  // "axis", "axle", "babble", "babyhood": prefixes 0 2 0 3, suffixes axis le babble yhood.
  auto prefixes = Cat(B({0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00, 0x44, 0x01}),
                      std::vector<uint8_t>(10, 0));
  auto suffix_lengths =
      Cat(B({0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0x00, 0x00, 0x00, 0x70, 0x00}),
          std::vector<uint8_t>(10, 0));
  auto data = Cat(Cat(prefixes, suffix_lengths), Text("axislebabbleyhood"));
  ReaderLeaf leaf = Leaf(Type::kByteArray, LeafConversion::kBytes);
  ValueDecoder dec(&leaf);
  Arena arena;
  Value out[4];
  auto st = dec.Decode(Encoding::kDeltaByteArray, data, 4, {}, &arena, out);
  ASSERT_TRUE(st.has_value()) << st.error().ToString();
  EXPECT_EQ(out[0].as_bytes(), "axis");
  EXPECT_EQ(out[1].as_bytes(), "axle");
  EXPECT_EQ(out[2].as_bytes(), "babble");
  EXPECT_EQ(out[3].as_bytes(), "babyhood");

  // A prefix longer than the previous value is corruption.
  auto bad_prefixes = Cat(B({0x80, 0x01, 0x04, 0x04, 0x0a, 0x03, 0x03, 0x00, 0x00, 0x00}),
                          std::vector<uint8_t>(12, 0));
  auto bad = Cat(Cat(bad_prefixes, suffix_lengths), Text("axislebabbleyhood"));
  auto st2 = dec.Decode(Encoding::kDeltaByteArray, bad, 4, {}, &arena, out);
  ASSERT_FALSE(st2.has_value());
  EXPECT_EQ(st2.error().code(), ErrorCode::kCorruption);
}

TEST(ReaderDecoderTest, ByteStreamSplit) {
  const float values[3] = {1.5f, -2.25f, 1e30f};
  uint8_t bytes[12];
  for (int i = 0; i < 3; ++i) {
    uint8_t b[4];
    std::memcpy(b, &values[i], 4);
    for (int k = 0; k < 4; ++k) bytes[k * 3 + i] = b[k];
  }
  ReaderLeaf leaf = Leaf(Type::kFloat, LeafConversion::kFloat);
  ValueDecoder dec(&leaf);
  Arena arena;
  Value out[3];
  ASSERT_TRUE(dec.Decode(Encoding::kByteStreamSplit, bytes, 3, {}, &arena, out).has_value());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i].f32, values[i]);
  EXPECT_FALSE(
      dec.Decode(Encoding::kByteStreamSplit, std::span(bytes, 11), 3, {}, &arena, out).has_value());
}

TEST(ReaderDecoderTest, PlainChecksLengths) {
  ReaderLeaf leaf = Leaf(Type::kByteArray, LeafConversion::kBytes);
  ValueDecoder dec(&leaf);
  Arena arena;
  Value out[2];
  auto ok = B({2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0});
  ASSERT_TRUE(dec.Decode(Encoding::kPlain, ok, 2, {}, &arena, out).has_value());
  EXPECT_EQ(out[0].as_bytes(), "hi");
  EXPECT_EQ(out[1].size, 0u);
  auto bad = B({0xff, 0xff, 0xff, 0x7f, 'h'});
  auto st = dec.Decode(Encoding::kPlain, bad, 1, {}, &arena, out);
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().code(), ErrorCode::kCorruption);

  ReaderLeaf i64 = Leaf(Type::kInt64, LeafConversion::kInt64);
  ValueDecoder dec64(&i64);
  EXPECT_FALSE(dec64.Decode(Encoding::kPlain, ok, 2, {}, &arena, out).has_value());
}

TEST(ReaderDecoderTest, DictionaryIndices) {
  ReaderLeaf leaf = Leaf(Type::kInt32, LeafConversion::kInt32);
  ValueDecoder dec(&leaf);
  Arena arena;
  std::vector<Value> dict = {Value::Int32(10), Value::Int32(20), Value::Int32(30)};
  Value out[4];
  // width 2; bit-packed group 2,0,1,2
  auto data = B({0x02, 0x03, 0x92, 0x00});
  ASSERT_TRUE(dec.Decode(Encoding::kRleDictionary, data, 4, dict, &arena, out).has_value());
  EXPECT_EQ(out[0].i32, 30);
  EXPECT_EQ(out[1].i32, 10);
  EXPECT_EQ(out[2].i32, 20);
  EXPECT_EQ(out[3].i32, 30);
  auto out_of_range = B({0x02, 0x02, 0x03});  // RLE run of index 3
  auto st = dec.Decode(Encoding::kRleDictionary, out_of_range, 1, dict, &arena, out);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message().find("out of range"), std::string::npos);
  EXPECT_FALSE(dec.Decode(Encoding::kRleDictionary, data, 4, {}, &arena, out).has_value());
  auto too_wide = B({40, 0x02, 0});
  EXPECT_FALSE(dec.Decode(Encoding::kRleDictionary, too_wide, 1, dict, &arena, out).has_value());
}

TEST(ReaderDecoderTest, Conversions) {
  Arena arena;
  Value v[2];
  // INT96: Julian day 2440589 (1970-01-02) + 1 second in nanos.
  uint8_t int96[12];
  int64_t nanos = 1'000'000'000;
  int32_t day = 2440589;
  std::memcpy(int96, &nanos, 8);
  std::memcpy(int96 + 8, &day, 4);
  ReaderLeaf l96 = Leaf(Type::kInt96, LeafConversion::kInt96Timestamp);
  ValueDecoder d96(&l96);
  ASSERT_TRUE(d96.Decode(Encoding::kPlain, int96, 1, {}, &arena, v).has_value());
  EXPECT_EQ(v[0].i64, 86'400'000'000LL + 1'000'000);
  // Regression (fuzz, tests/fuzz/parquet/regression-int96-overflow): a day far
  // out of range wraps instead of overflowing.
  int32_t far = 1'030'210'164 + 2440588;
  std::memcpy(int96 + 8, &far, 4);
  EXPECT_TRUE(d96.Decode(Encoding::kPlain, int96, 1, {}, &arena, v).has_value());

  // Decimal bytes, big-endian two's complement: -2 and 258.
  ReaderLeaf ldec = Leaf(Type::kFixedLenByteArray, LeafConversion::kDecimalBytes, 2);
  ValueDecoder ddec(&ldec);
  auto dec = B({0xff, 0xfe, 0x01, 0x02});
  ASSERT_TRUE(ddec.Decode(Encoding::kPlain, dec, 2, {}, &arena, v).has_value());
  EXPECT_EQ(static_cast<int64_t>(v[0].decimal), -2);
  EXPECT_EQ(static_cast<int64_t>(v[1].decimal), 258);

  // Timestamp nanos floor to micros, also below the epoch.
  ReaderLeaf lns = Leaf(Type::kInt64, LeafConversion::kNanosToMicros);
  ValueDecoder dns(&lns);
  int64_t ns[2] = {1999, -1};
  ASSERT_TRUE(
      dns.Decode(Encoding::kPlain, std::span(reinterpret_cast<uint8_t*>(ns), 16), 2, {}, &arena, v)
          .has_value());
  EXPECT_EQ(v[0].i64, 1);
  EXPECT_EQ(v[1].i64, -1);

  // float16 1.5 = 0x3e00.
  ReaderLeaf lh = Leaf(Type::kFixedLenByteArray, LeafConversion::kFloat16, 2);
  ValueDecoder dh(&lh);
  auto half = B({0x00, 0x3e});
  ASSERT_TRUE(dh.Decode(Encoding::kPlain, half, 1, {}, &arena, v).has_value());
  EXPECT_EQ(v[0].f32, 1.5f);
}

}  // namespace
}  // namespace floe::format::parquet
