#include "floe/format/parquet/rle_encoder.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "writer_test_util.h"

namespace floe::format::parquet {
namespace {

std::vector<uint8_t> Encode(const std::vector<uint32_t>& values, int bit_width) {
  ByteBuffer out;
  RleBitPackedEncoder encoder(&out, bit_width);
  for (uint32_t v : values) encoder.Put(v);
  encoder.Flush();
  return {out.data(), out.data() + out.size()};
}

TEST(RleEncoderTest, BitWidth) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(7), 3);
  EXPECT_EQ(BitWidth(8), 4);
  EXPECT_EQ(BitWidth(0xffffffff), 32);
}

// Encodings.md, "Bit-packed": 0..7 with bit width 3 pack to 10001000 11000110 11111010.
TEST(RleEncoderTest, SpecBitPackedExample) {
  std::vector<uint8_t> bytes = Encode({0, 1, 2, 3, 4, 5, 6, 7}, 3);
  // One bit-packed run of one group: header (1 << 1) | 1.
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x03, 0x88, 0xC6, 0xFA}));
}

// An RLE run: varint(count << 1) then the value in ceil(bit_width / 8) bytes.
TEST(RleEncoderTest, RleRun) {
  std::vector<uint8_t> bytes = Encode(std::vector<uint32_t>(100, 5), 3);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0xC8, 0x01, 0x05}));
  bytes = Encode(std::vector<uint32_t>(10, 0x1234), 13);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x14, 0x34, 0x12}));
}

TEST(RleEncoderTest, ShortTailIsRle) {
  // Fewer than 8 equal values with nothing before them: one short RLE run.
  EXPECT_EQ(Encode({1, 1, 1}, 1), (std::vector<uint8_t>{0x06, 0x01}));
}

TEST(RleEncoderTest, PaddedBitPackedTail) {
  // 3 distinct values: one bit-packed group padded with zeros.
  EXPECT_EQ(Encode({1, 0, 1}, 1), (std::vector<uint8_t>{0x03, 0x05}));
}

TEST(RleEncoderTest, MixedRunsRoundTrip) {
  std::mt19937 rng(42);
  for (int bit_width : {1, 2, 3, 7, 8, 13, 16, 20, 32}) {
    std::vector<uint32_t> values;
    uint64_t max = bit_width == 32 ? 0xffffffffull : (1ull << bit_width) - 1;
    for (int block = 0; block < 200; ++block) {
      uint32_t v = static_cast<uint32_t>(rng() % (max + 1));
      int kind = static_cast<int>(rng() % 3);
      int n = static_cast<int>(rng() % 40) + 1;
      for (int i = 0; i < n; ++i) {
        values.push_back(kind == 0 ? v : static_cast<uint32_t>(rng() % (max + 1)));
      }
    }
    std::vector<uint8_t> bytes = Encode(values, bit_width);
    std::vector<uint32_t> decoded = test::DecodeRle(bytes, bit_width, values.size());
    ASSERT_EQ(decoded, values) << "bit width " << bit_width;
  }
}

TEST(RleEncoderTest, LongBitPackedRunsSplitAt63Groups) {
  std::vector<uint32_t> values;
  for (int i = 0; i < 8 * 100; ++i) values.push_back(static_cast<uint32_t>(i % 2 == 0 ? i % 7 : 3));
  std::vector<uint8_t> bytes = Encode(values, 3);
  EXPECT_EQ(bytes[0], (63 << 1) | 1);
  EXPECT_EQ(test::DecodeRle(bytes, 3, values.size()), values);
}

TEST(RleEncoderTest, PutRepeatedMatchesPut) {
  ByteBuffer a, b;
  RleBitPackedEncoder ea(&a, 2), eb(&b, 2);
  std::vector<std::pair<uint32_t, int>> runs = {{1, 3}, {2, 20}, {0, 1}, {3, 9}, {1, 100}, {2, 2}};
  for (auto [v, n] : runs) {
    for (int i = 0; i < n; ++i) ea.Put(v);
    eb.PutRepeated(v, static_cast<uint64_t>(n));
  }
  ea.Flush();
  eb.Flush();
  EXPECT_EQ(a.view(), b.view());
}

}  // namespace
}  // namespace floe::format::parquet
