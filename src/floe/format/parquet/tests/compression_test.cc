#include "floe/format/parquet/compression.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace floe::format::parquet {
namespace {

std::vector<uint8_t> SampleBytes() {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 10000; ++i) bytes.push_back(static_cast<uint8_t>((i * 7) % 13 + (i / 100)));
  return bytes;
}

class CompressionTest : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(CompressionTest, RoundTrips) {
  std::vector<uint8_t> in = SampleBytes();
  ByteBuffer compressed;
  compressed.Append("prefix");  // Compress appends
  ASSERT_TRUE(Compress(GetParam(), in, &compressed).has_value());
  std::span<const uint8_t> body = compressed.span().subspan(6);
  if (GetParam() != CompressionCodec::kUncompressed) EXPECT_LT(body.size(), in.size());
  std::vector<uint8_t> out(in.size());
  ASSERT_TRUE(Decompress(GetParam(), body, out.size(), out.data()).has_value());
  EXPECT_EQ(out, in);
}

TEST_P(CompressionTest, RoundTripsEmpty) {
  ByteBuffer compressed;
  ASSERT_TRUE(Compress(GetParam(), {}, &compressed).has_value());
  uint8_t dummy = 0;
  EXPECT_TRUE(Decompress(GetParam(), compressed.span(), 0, &dummy).has_value());
  // Readers pass no buffer for an empty page (a pyarrow v2 page of an
  // all-null column, an empty dictionary): zlib must still finish the stream.
  EXPECT_TRUE(Decompress(GetParam(), compressed.span(), 0, nullptr).has_value());
}

TEST_P(CompressionTest, WrongSizeIsCorruption) {
  std::vector<uint8_t> in = SampleBytes();
  ByteBuffer compressed;
  ASSERT_TRUE(Compress(GetParam(), in, &compressed).has_value());
  std::vector<uint8_t> out(in.size() + 10);
  auto status = Decompress(GetParam(), compressed.span(), out.size(), out.data());
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code(), ErrorCode::kCorruption);
}

TEST_P(CompressionTest, GarbageIsCorruption) {
  if (GetParam() == CompressionCodec::kUncompressed) GTEST_SKIP();
  std::vector<uint8_t> garbage(100, 0xff);
  std::vector<uint8_t> out(1000);
  auto status = Decompress(GetParam(), garbage, out.size(), out.data());
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code(), ErrorCode::kCorruption);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressionTest,
                         ::testing::Values(CompressionCodec::kUncompressed,
                                           CompressionCodec::kSnappy, CompressionCodec::kGzip,
                                           CompressionCodec::kZstd, CompressionCodec::kLz4Raw));

TEST(CompressionTest, UnsupportedCodec) {
  ByteBuffer out;
  auto status = Compress(CompressionCodec::kLzo, {}, &out);
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code(), ErrorCode::kNotSupported);
}

TEST(CompressionTest, CodecNamesAreParsedOneWayForTablesAndTheCli) {
  EXPECT_EQ(*ParseCodecName("zstd"), CompressionCodec::kZstd);
  EXPECT_EQ(*ParseCodecName("ZSTD"), CompressionCodec::kZstd);
  EXPECT_EQ(*ParseCodecName("Snappy"), CompressionCodec::kSnappy);
  EXPECT_EQ(*ParseCodecName("gzip"), CompressionCodec::kGzip);
  // Iceberg's property says "lz4"; the CLI said "lz4_raw": both write LZ4_RAW.
  EXPECT_EQ(*ParseCodecName("lz4"), CompressionCodec::kLz4Raw);
  EXPECT_EQ(*ParseCodecName("lz4_raw"), CompressionCodec::kLz4Raw);
  EXPECT_EQ(*ParseCodecName("uncompressed"), CompressionCodec::kUncompressed);
  EXPECT_EQ(*ParseCodecName("none"), CompressionCodec::kUncompressed);
  for (const char* refused : {"brotli", "lzo", "", "zstd "}) {
    auto codec = ParseCodecName(refused);
    ASSERT_FALSE(codec.has_value()) << refused;
    EXPECT_EQ(codec.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(codec.error().message().find("floe writes zstd"), std::string::npos);
  }
}

}  // namespace
}  // namespace floe::format::parquet
