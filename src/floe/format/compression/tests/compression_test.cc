#include "floe/format/compression/compression.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::format::compression {
namespace {

std::vector<uint8_t> SampleBytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7) % 23 + (i / 100) % 3);
  return v;
}

TEST(CompressionTest, SnappyRoundTrip) {
  auto in = SampleBytes(10000);
  ByteBuffer packed;
  SnappyCompress(in, &packed);
  EXPECT_LT(packed.size(), in.size());
  auto n = SnappyUncompressedLength(packed.span());
  ASSERT_TRUE(n.has_value());
  ASSERT_EQ(*n, in.size());
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(SnappyDecompress(packed.span(), out.size(), out.data()).has_value());
  EXPECT_EQ(out, in);
  EXPECT_EQ(SnappyDecompress(packed.span(), out.size() - 1, out.data()).error().code(),
            ErrorCode::kCorruption);
}

TEST(CompressionTest, ZstdRoundTripBothWays) {
  auto in = SampleBytes(50000);
  ByteBuffer packed;
  ASSERT_TRUE(ZstdCompress(in, 3, &packed).has_value());
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(ZstdDecompress(packed.span(), out.size(), out.data()).has_value());
  EXPECT_EQ(out, in);
  ByteBuffer bounded;
  ASSERT_TRUE(ZstdDecompressBounded(packed.span(), in.size(), &bounded).has_value());
  EXPECT_EQ(std::vector<uint8_t>(bounded.span().begin(), bounded.span().end()), in);
  EXPECT_EQ(ZstdDecompressBounded(packed.span(), in.size() - 1, &bounded).error().code(),
            ErrorCode::kCorruption);
  auto truncated = packed.span().subspan(0, packed.size() - 3);
  EXPECT_EQ(ZstdDecompressBounded(truncated, in.size(), &bounded).error().code(),
            ErrorCode::kCorruption);
}

TEST(CompressionTest, DeflateContainers) {
  auto in = SampleBytes(20000);
  for (auto container : {DeflateContainer::kRaw, DeflateContainer::kGzip}) {
    ByteBuffer packed;
    ASSERT_TRUE(DeflateCompress(in, container, 6, &packed).has_value());
    std::vector<uint8_t> out(in.size());
    ASSERT_TRUE(Inflate(packed.span(), container, out.size(), out.data()).has_value());
    EXPECT_EQ(out, in);
    ByteBuffer bounded;
    ASSERT_TRUE(InflateBounded(packed.span(), container, in.size(), &bounded).has_value());
    EXPECT_EQ(bounded.size(), in.size());
    EXPECT_EQ(InflateBounded(packed.span(), container, in.size() / 2, &bounded).error().code(),
              ErrorCode::kCorruption);
  }
  // The gzip magic bytes: 1f 8b.
  ByteBuffer gzip;
  ASSERT_TRUE(DeflateCompress(in, DeflateContainer::kGzip, -1, &gzip).has_value());
  EXPECT_EQ(gzip.data()[0], 0x1f);
  EXPECT_EQ(gzip.data()[1], 0x8b);
  std::vector<uint8_t> out(in.size());
  EXPECT_TRUE(Inflate(gzip.span(), DeflateContainer::kGzipOrZlib, out.size(), out.data()));
  // Empty input inflates to nothing.
  ByteBuffer empty;
  ASSERT_TRUE(DeflateCompress({}, DeflateContainer::kGzip, 6, &empty).has_value());
  EXPECT_TRUE(Inflate(empty.span(), DeflateContainer::kGzipOrZlib, 0, nullptr).has_value());
}

TEST(CompressionTest, Lz4RoundTripAndGarbage) {
  auto in = SampleBytes(30000);
  ByteBuffer packed;
  ASSERT_TRUE(Lz4Compress(in, &packed).has_value());
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(Lz4Decompress(packed.span(), out.size(), out.data()).has_value());
  EXPECT_EQ(out, in);
  std::vector<uint8_t> garbage = {0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_EQ(Lz4Decompress(garbage, out.size(), out.data()).error().code(), ErrorCode::kCorruption);
}

TEST(CompressionTest, Crc32KnownValue) {
  std::string text = "123456789";
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  EXPECT_EQ(Crc32(bytes), 0xCBF43926u);
}

}  // namespace
}  // namespace floe::format::compression
