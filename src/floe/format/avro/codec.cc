#include "floe/format/avro/codec.h"

#include <cstring>
#include <span>
#include <utility>

#include "floe/format/compression/compression.h"

namespace floe::format::avro {

namespace {

/// Each codec with its name in the "avro.codec" metadata.
constexpr std::pair<Codec, std::string_view> kCodecNames[] = {
    {Codec::kNull, "null"},
    {Codec::kDeflate, "deflate"},
    {Codec::kSnappy, "snappy"},
    {Codec::kZstandard, "zstandard"},
};

}  // namespace

std::string_view CodecName(Codec codec) {
  for (const auto& [c, name] : kCodecNames) {
    if (c == codec) return name;
  }
  return "?";
}

Result<Codec> ParseCodec(std::string_view name) {
  for (const auto& [codec, n] : kCodecNames) {
    if (n == name) return codec;
  }
  if (name == "bzip2" || name == "xz")
    return NotSupported("avro codec '{}' is not supported", name);
  return InvalidArgument("unknown avro codec '{}'", name);
}

namespace {

namespace compression = format::compression;

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// `status` with `context` (the block) before its message.
Status InContext(Status status, std::string_view context) {
  if (status) return status;
  return std::unexpected(std::move(status).error().WithContext(context));
}

}  // namespace

Status Compress(Codec codec, std::string_view input, int level, ByteBuffer* out) {
  switch (codec) {
    case Codec::kNull:
      out->Append(input);
      return Ok();
    case Codec::kDeflate:
      return compression::DeflateCompress(Bytes(input), compression::DeflateContainer::kRaw,
                                          level < 0 ? -1 : level, out);
    case Codec::kZstandard:
      return compression::ZstdCompress(Bytes(input), level < 0 ? 3 : level, out);
    case Codec::kSnappy: {
      // Avro's snappy block: the raw block, then the CRC-32 of the
      // uncompressed bytes, big-endian.
      compression::SnappyCompress(Bytes(input), out);
      uint32_t crc = compression::Crc32(Bytes(input));
      uint8_t* tail = out->Ensure(4);
      tail[0] = static_cast<uint8_t>(crc >> 24);
      tail[1] = static_cast<uint8_t>(crc >> 16);
      tail[2] = static_cast<uint8_t>(crc >> 8);
      tail[3] = static_cast<uint8_t>(crc);
      out->Advance(4);
      return Ok();
    }
  }
  return InternalError("bad codec");
}

Status Decompress(Codec codec, std::string_view input, size_t max_output, std::string_view context,
                  ByteBuffer* out) {
  switch (codec) {
    case Codec::kNull:
      if (input.size() > max_output) {
        return Corruption("{}: block of {} bytes exceeds the limit {}", context, input.size(),
                          max_output);
      }
      out->Clear();
      out->Append(input);
      return Ok();
    case Codec::kDeflate:
      return InContext(compression::InflateBounded(
                           Bytes(input), compression::DeflateContainer::kRaw, max_output, out),
                       context);
    case Codec::kZstandard:
      return InContext(compression::ZstdDecompressBounded(Bytes(input), max_output, out), context);
    case Codec::kSnappy: {
      if (input.size() < 4)
        return Corruption("{}: snappy block shorter than its checksum", context);
      std::string_view body = input.substr(0, input.size() - 4);
      auto n = compression::SnappyUncompressedLength(Bytes(body));
      if (!n) return InContext(std::unexpected(std::move(n).error()), context);
      if (*n > max_output) {
        return Corruption("{}: snappy block decompresses to {} bytes, over the limit {}", context,
                          *n, max_output);
      }
      out->Clear();
      out->Resize(*n);
      FLOE_RETURN_IF_ERROR(
          InContext(compression::SnappyDecompress(Bytes(body), *n, out->data()), context));
      const auto* tail = reinterpret_cast<const uint8_t*>(input.data() + body.size());
      uint32_t want = (uint32_t{tail[0]} << 24) | (uint32_t{tail[1]} << 16) |
                      (uint32_t{tail[2]} << 8) | uint32_t{tail[3]};
      if (compression::Crc32(out->span()) != want)
        return Corruption("{}: snappy block checksum mismatch", context);
      return Ok();
    }
  }
  return InternalError("bad codec");
}

}  // namespace floe::format::avro
