#include "floe/format/parquet/compression.h"

#include <cstring>
#include <limits>

#include "floe/common/ascii.h"
#include "floe/format/compression/compression.h"

namespace floe::format::parquet {

namespace compression = format::compression;

int DefaultCompressionLevel(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kZstd:
      return 1;
    case CompressionCodec::kGzip:
      return 6;
    default:
      return 0;
  }
}

Status Compress(CompressionCodec codec, std::span<const uint8_t> in, ByteBuffer* out, int level) {
  if (level == 0) level = DefaultCompressionLevel(codec);
  if (in.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return InvalidArgument("page of {} bytes is too large to compress", in.size());
  }
  switch (codec) {
    case CompressionCodec::kUncompressed:
      out->Append(in);
      return Ok();
    case CompressionCodec::kSnappy:
      compression::SnappyCompress(in, out);
      return Ok();
    case CompressionCodec::kGzip:
      return compression::DeflateCompress(in, compression::DeflateContainer::kGzip, level, out);
    case CompressionCodec::kZstd:
      return compression::ZstdCompress(in, level, out);
    case CompressionCodec::kLz4Raw:
      return compression::Lz4Compress(in, out);
    default:
      return NotSupported("compression codec {} is not supported for writing", CodecName(codec));
  }
}

Status Decompress(CompressionCodec codec, std::span<const uint8_t> in, size_t uncompressed_size,
                  uint8_t* out) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      if (in.size() != uncompressed_size) {
        return Corruption("uncompressed page has {} bytes, header says {}", in.size(),
                          uncompressed_size);
      }
      if (!in.empty()) std::memcpy(out, in.data(), in.size());
      return Ok();
    case CompressionCodec::kSnappy:
      return compression::SnappyDecompress(in, uncompressed_size, out);
    case CompressionCodec::kGzip:
      return compression::Inflate(in, compression::DeflateContainer::kGzipOrZlib, uncompressed_size,
                                  out);
    case CompressionCodec::kZstd:
      return compression::ZstdDecompress(in, uncompressed_size, out);
    case CompressionCodec::kLz4Raw:
      return compression::Lz4Decompress(in, uncompressed_size, out);
    default:
      return NotSupported("compression codec {} is not supported", CodecName(codec));
  }
}

Result<CompressionCodec> ParseCodecName(std::string_view name) {
  const std::string lower = AsciiLower(name);
  if (lower == "zstd") return CompressionCodec::kZstd;
  if (lower == "snappy") return CompressionCodec::kSnappy;
  if (lower == "gzip") return CompressionCodec::kGzip;
  if (lower == "lz4_raw" || lower == "lz4") return CompressionCodec::kLz4Raw;
  if (lower == "uncompressed" || lower == "none") return CompressionCodec::kUncompressed;
  return InvalidArgument(
      "unknown or unwritable Parquet codec '{}' (floe writes zstd, snappy, gzip, lz4_raw or lz4, "
      "uncompressed)",
      name);
}

}  // namespace floe::format::parquet
