#include "floe/format/parquet/compression.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <limits>
#include <memory>

#include "floe/common/ascii.h"
#include "floe/common/zstd_contexts.h"

namespace floe::format::parquet {
namespace {

Status CompressGzip(std::span<const uint8_t> in, ByteBuffer* out, int level) {
  z_stream stream{};
  // 15 window bits + 16 selects the gzip wrapper.
  if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return InternalError("zlib deflateInit2 failed");
  }
  size_t bound = deflateBound(&stream, in.size()) + 32;
  uint8_t* dst = out->Ensure(bound);
  stream.next_in = const_cast<Bytef*>(in.data());
  stream.avail_in = static_cast<uInt>(in.size());
  stream.next_out = dst;
  stream.avail_out = static_cast<uInt>(bound);
  int rc = deflate(&stream, Z_FINISH);
  size_t written = stream.total_out;
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) return InternalError("zlib deflate failed ({})", rc);
  out->Advance(written);
  return Ok();
}

Status DecompressGzip(std::span<const uint8_t> in, size_t size, uint8_t* out) {
  z_stream stream{};
  // 15 + 32: accept both the gzip and the zlib wrapper.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return InternalError("zlib inflateInit2 failed");
  stream.next_in = const_cast<Bytef*>(in.data());
  stream.avail_in = static_cast<uInt>(in.size());
  // zlib makes no progress into an empty output buffer (Z_BUF_ERROR), even
  // for a stream that inflates to nothing: give it one spare byte then.
  uint8_t spare = 0;
  stream.next_out = size == 0 ? &spare : out;
  stream.avail_out = size == 0 ? 1 : static_cast<uInt>(size);
  int rc = inflate(&stream, Z_FINISH);
  size_t produced = stream.total_out;
  inflateEnd(&stream);
  if (rc != Z_STREAM_END || produced != size) {
    return Corruption("gzip page does not decompress to {} bytes (zlib status {}, got {})", size,
                      rc, produced);
  }
  return Ok();
}

}  // namespace

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
    case CompressionCodec::kSnappy: {
      uint8_t* dst = out->Ensure(snappy::MaxCompressedLength(in.size()));
      size_t n = 0;
      snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                          reinterpret_cast<char*>(dst), &n);
      out->Advance(n);
      return Ok();
    }
    case CompressionCodec::kGzip:
      return CompressGzip(in, out, level);
    case CompressionCodec::kZstd: {
      size_t bound = ZSTD_compressBound(in.size());
      uint8_t* dst = out->Ensure(bound);
      size_t n =
          ZSTD_compressCCtx(ThreadZstdContexts().cctx, dst, bound, in.data(), in.size(), level);
      if (ZSTD_isError(n))
        return InternalError("zstd compression failed: {}", ZSTD_getErrorName(n));
      out->Advance(n);
      return Ok();
    }
    case CompressionCodec::kLz4Raw: {
      int bound = LZ4_compressBound(static_cast<int>(in.size()));
      uint8_t* dst = out->Ensure(static_cast<size_t>(bound));
      int n =
          LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                               reinterpret_cast<char*>(dst), static_cast<int>(in.size()), bound);
      if (n <= 0 && !in.empty()) return InternalError("lz4 compression failed");
      out->Advance(static_cast<size_t>(n));
      return Ok();
    }
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
    case CompressionCodec::kSnappy: {
      size_t n = 0;
      const char* src = reinterpret_cast<const char*>(in.data());
      if (!snappy::GetUncompressedLength(src, in.size(), &n) || n != uncompressed_size ||
          !snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out))) {
        return Corruption("snappy page does not decompress to {} bytes", uncompressed_size);
      }
      return Ok();
    }
    case CompressionCodec::kGzip:
      if (in.size() > std::numeric_limits<uInt>::max() ||
          uncompressed_size > std::numeric_limits<uInt>::max()) {
        return Corruption("gzip page too large ({} bytes)", in.size());
      }
      return DecompressGzip(in, uncompressed_size, out);
    case CompressionCodec::kZstd: {
      size_t n = ZSTD_decompressDCtx(ThreadZstdContexts().dctx, out, uncompressed_size, in.data(),
                                     in.size());
      if (ZSTD_isError(n)) {
        return Corruption("zstd page does not decompress: {}", ZSTD_getErrorName(n));
      }
      if (n != uncompressed_size) {
        return Corruption("zstd page decompresses to {} bytes, header says {}", n,
                          uncompressed_size);
      }
      return Ok();
    }
    case CompressionCodec::kLz4Raw: {
      if (in.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
          uncompressed_size > static_cast<size_t>(std::numeric_limits<int>::max())) {
        return Corruption("lz4 page too large ({} bytes)", in.size());
      }
      int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                  reinterpret_cast<char*>(out), static_cast<int>(in.size()),
                                  static_cast<int>(uncompressed_size));
      if (n < 0 || static_cast<size_t>(n) != uncompressed_size) {
        return Corruption("lz4_raw page does not decompress to {} bytes", uncompressed_size);
      }
      return Ok();
    }
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
