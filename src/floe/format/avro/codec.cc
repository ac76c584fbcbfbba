#include "floe/format/avro/codec.h"

#include <cstring>

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include "floe/common/zstd_contexts.h"

namespace floe::format::avro {

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "?";
}

Result<Codec> ParseCodec(std::string_view name) {
  if (name == "null") return Codec::kNull;
  if (name == "deflate") return Codec::kDeflate;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "zstandard") return Codec::kZstandard;
  if (name == "bzip2" || name == "xz")
    return NotSupported("avro codec '{}' is not supported", name);
  return InvalidArgument("unknown avro codec '{}'", name);
}

namespace {

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed large inputs in pieces.
  while (!data.empty()) {
    size_t n = std::min<size_t>(data.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(n));
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

// zlib state is kept per thread (as zstd's, common/zstd_contexts.h) and
// reset for each block: setting a stream up allocates a few hundred KiB
// (deflate's window and hash tables), more work than compressing the small
// blocks of a manifest.
class DeflateStream {
 public:
  ~DeflateStream() {
    if (ready_) deflateEnd(&z_);
  }
  /// A stream reset for a new block at `level`, or nullptr.
  z_stream* Get(int level) {
    if (ready_ && level == level_ && deflateReset(&z_) == Z_OK) return &z_;
    if (ready_) deflateEnd(&z_);
    z_ = z_stream{};
    ready_ = deflateInit2(&z_, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    level_ = level;
    return ready_ ? &z_ : nullptr;
  }

 private:
  z_stream z_{};
  bool ready_ = false;
  int level_ = 0;
};

class InflateStream {
 public:
  ~InflateStream() {
    if (ready_) inflateEnd(&z_);
  }
  z_stream* Get() {
    if (ready_ && inflateReset(&z_) == Z_OK) return &z_;
    if (ready_) inflateEnd(&z_);
    z_ = z_stream{};
    ready_ = inflateInit2(&z_, -15) == Z_OK;
    return ready_ ? &z_ : nullptr;
  }

 private:
  z_stream z_{};
  bool ready_ = false;
};

Status Deflate(std::string_view input, int level, ByteBuffer* out) {
  thread_local DeflateStream stream;
  z_stream* z = stream.Get(level < 0 ? Z_DEFAULT_COMPRESSION : level);
  if (z == nullptr) return InternalError("deflateInit2 failed");
  uLong bound = deflateBound(z, static_cast<uLong>(input.size()));
  uint8_t* dst = out->Ensure(bound);
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z->avail_in = static_cast<uInt>(input.size());
  z->next_out = dst;
  z->avail_out = static_cast<uInt>(bound);
  int rc = deflate(z, Z_FINISH);
  size_t produced = z->total_out;
  if (rc != Z_STREAM_END) return InternalError("deflate failed: {}", rc);
  out->Advance(produced);
  return Ok();
}

Status Inflate(std::string_view input, size_t max_output, std::string_view context,
               ByteBuffer* out) {
  thread_local InflateStream stream;
  z_stream* z = stream.Get();
  if (z == nullptr) return InternalError("inflateInit2 failed");
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z->avail_in = static_cast<uInt>(input.size());
  out->Clear();
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out->size() >= max_output) {
      return Corruption("{}: deflate block inflates to more than {} bytes", context, max_output);
    }
    size_t chunk =
        std::min<size_t>(std::max<size_t>(input.size() * 4, 4096), max_output - out->size());
    chunk = std::min<size_t>(chunk, 1u << 30);
    z->next_out = out->Ensure(chunk);
    z->avail_out = static_cast<uInt>(chunk);
    rc = inflate(z, Z_NO_FLUSH);
    out->Advance(chunk - z->avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && z->avail_out == 0)) {
      return Corruption("{}: bad deflate data ({})", context, z->msg ? z->msg : "truncated");
    }
  }
  return Ok();
}

Status Zstd(std::string_view input, int level, ByteBuffer* out) {
  size_t bound = ZSTD_compressBound(input.size());
  uint8_t* dst = out->Ensure(bound);
  size_t n = ZSTD_compressCCtx(ThreadZstdContexts().cctx, dst, bound, input.data(), input.size(),
                               level < 0 ? 3 : level);
  if (ZSTD_isError(n)) return InternalError("zstd compression failed: {}", ZSTD_getErrorName(n));
  out->Advance(n);
  return Ok();
}

Status Unzstd(std::string_view input, size_t max_output, std::string_view context,
              ByteBuffer* out) {
  ZSTD_DCtx* ctx = ThreadZstdContexts().dctx;
  if (ctx == nullptr) return InternalError("ZSTD_createDCtx failed");
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  out->Clear();
  size_t rc = 1;
  while (true) {
    if (out->size() >= max_output && rc != 0) {
      return Corruption("{}: zstandard block decompresses to more than {} bytes", context,
                        max_output);
    }
    size_t chunk =
        std::min<size_t>(std::max<size_t>(input.size() * 4, 4096), max_output - out->size());
    ZSTD_outBuffer o{out->Ensure(chunk), chunk, 0};
    rc = ZSTD_decompressStream(ctx, &o, &in);
    out->Advance(o.pos);
    if (ZSTD_isError(rc)) {
      return Corruption("{}: bad zstandard data: {}", context, ZSTD_getErrorName(rc));
    }
    if (rc == 0 && in.pos == in.size) break;  // frame(s) complete, input consumed
    if (in.pos == in.size && o.pos < chunk) {
      return Corruption("{}: truncated zstandard data", context);
    }
  }
  return Ok();
}

}  // namespace

Status Compress(Codec codec, std::string_view input, int level, ByteBuffer* out) {
  switch (codec) {
    case Codec::kNull:
      out->Append(input);
      return Ok();
    case Codec::kDeflate:
      return Deflate(input, level, out);
    case Codec::kZstandard:
      return Zstd(input, level, out);
    case Codec::kSnappy: {
      size_t bound = snappy::MaxCompressedLength(input.size());
      uint8_t* dst = out->Ensure(bound + 4);
      size_t n = 0;
      snappy::RawCompress(input.data(), input.size(), reinterpret_cast<char*>(dst), &n);
      uint32_t crc = Crc32(input);
      dst[n] = static_cast<uint8_t>(crc >> 24);
      dst[n + 1] = static_cast<uint8_t>(crc >> 16);
      dst[n + 2] = static_cast<uint8_t>(crc >> 8);
      dst[n + 3] = static_cast<uint8_t>(crc);
      out->Advance(n + 4);
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
      return Inflate(input, max_output, context, out);
    case Codec::kZstandard:
      return Unzstd(input, max_output, context, out);
    case Codec::kSnappy: {
      if (input.size() < 4)
        return Corruption("{}: snappy block shorter than its checksum", context);
      std::string_view body = input.substr(0, input.size() - 4);
      size_t n = 0;
      if (!snappy::GetUncompressedLength(body.data(), body.size(), &n)) {
        return Corruption("{}: bad snappy block header", context);
      }
      if (n > max_output) {
        return Corruption("{}: snappy block decompresses to {} bytes, over the limit {}", context,
                          n, max_output);
      }
      out->Clear();
      out->Resize(n);
      if (!snappy::RawUncompress(body.data(), body.size(), reinterpret_cast<char*>(out->data()))) {
        return Corruption("{}: bad snappy data", context);
      }
      const auto* tail = reinterpret_cast<const uint8_t*>(input.data() + body.size());
      uint32_t want = (uint32_t{tail[0]} << 24) | (uint32_t{tail[1]} << 16) |
                      (uint32_t{tail[2]} << 8) | uint32_t{tail[3]};
      if (Crc32(out->view()) != want)
        return Corruption("{}: snappy block checksum mismatch", context);
      return Ok();
    }
  }
  return InternalError("bad codec");
}

}  // namespace floe::format::avro
