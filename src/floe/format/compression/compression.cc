#include "floe/format/compression/compression.h"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace floe::format::compression {
namespace {

const char* Chars(std::span<const uint8_t> in) { return reinterpret_cast<const char*>(in.data()); }

// ------------------------------------------------------------------ state
//
// Setting a zstd context or a zlib stream up allocates its tables (a few
// hundred KiB for deflate), more work than compressing a small page or
// block: each thread keeps one of each kind and resets it per call.

struct ZstdContexts {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZstdContexts() = default;
  ZstdContexts(const ZstdContexts&) = delete;
  ZstdContexts& operator=(const ZstdContexts&) = delete;
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};

ZstdContexts& ThreadZstdContexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}

/// zlib's windowBits for a container: 15 (32 KiB), negated for raw
/// deflate, plus 16 for gzip, plus 32 to detect gzip or zlib.
int WindowBits(DeflateContainer container) {
  switch (container) {
    case DeflateContainer::kRaw:
      return -15;
    case DeflateContainer::kGzip:
      return 15 + 16;
    case DeflateContainer::kGzipOrZlib:
      return 15 + 32;
  }
  return -15;
}

class DeflateStream {
 public:
  DeflateStream() = default;
  DeflateStream(const DeflateStream&) = delete;
  DeflateStream& operator=(const DeflateStream&) = delete;
  ~DeflateStream() {
    if (ready_) deflateEnd(&z_);
  }
  /// The stream reset for new data at `level`, or nullptr.
  z_stream* Get(int window_bits, int level) {
    if (ready_ && level == level_ && deflateReset(&z_) == Z_OK) return &z_;
    if (ready_) deflateEnd(&z_);
    z_ = z_stream{};
    ready_ = deflateInit2(&z_, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) == Z_OK;
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
  InflateStream() = default;
  InflateStream(const InflateStream&) = delete;
  InflateStream& operator=(const InflateStream&) = delete;
  ~InflateStream() {
    if (ready_) inflateEnd(&z_);
  }
  /// The stream reset for new data, or nullptr.
  z_stream* Get(int window_bits) {
    if (ready_ && inflateReset(&z_) == Z_OK) return &z_;
    if (ready_) inflateEnd(&z_);
    z_ = z_stream{};
    ready_ = inflateInit2(&z_, window_bits) == Z_OK;
    return ready_ ? &z_ : nullptr;
  }

 private:
  z_stream z_{};
  bool ready_ = false;
};

/// This thread's deflate stream for `container` (one per container: the
/// window bits are fixed when a stream is set up).
DeflateStream& ThreadDeflateStream(DeflateContainer container) {
  thread_local DeflateStream raw, gzip;
  return container == DeflateContainer::kRaw ? raw : gzip;
}

InflateStream& ThreadInflateStream(DeflateContainer container) {
  thread_local InflateStream streams[3];
  return streams[static_cast<int>(container)];
}

constexpr size_t kZlibMaxLength = std::numeric_limits<uInt>::max();

}  // namespace

// ------------------------------------------------------------------ snappy

void SnappyCompress(std::span<const uint8_t> in, ByteBuffer* out) {
  uint8_t* dst = out->Ensure(snappy::MaxCompressedLength(in.size()));
  size_t n = 0;
  snappy::RawCompress(Chars(in), in.size(), reinterpret_cast<char*>(dst), &n);
  out->Advance(n);
}

Result<size_t> SnappyUncompressedLength(std::span<const uint8_t> in) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(Chars(in), in.size(), &n)) {
    return Corruption("bad snappy block header");
  }
  return n;
}

Status SnappyDecompress(std::span<const uint8_t> in, size_t size, uint8_t* out) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(Chars(in), in.size(), &n) || n != size ||
      !snappy::RawUncompress(Chars(in), in.size(), reinterpret_cast<char*>(out))) {
    return Corruption("snappy data does not decompress to {} bytes", size);
  }
  return Ok();
}

// -------------------------------------------------------------------- zstd

Status ZstdCompress(std::span<const uint8_t> in, int level, ByteBuffer* out) {
  ZSTD_CCtx* ctx = ThreadZstdContexts().cctx;
  if (ctx == nullptr) return InternalError("ZSTD_createCCtx failed");
  size_t bound = ZSTD_compressBound(in.size());
  uint8_t* dst = out->Ensure(bound);
  size_t n = ZSTD_compressCCtx(ctx, dst, bound, in.data(), in.size(), level);
  if (ZSTD_isError(n)) return InternalError("zstd compression failed: {}", ZSTD_getErrorName(n));
  out->Advance(n);
  return Ok();
}

Status ZstdDecompress(std::span<const uint8_t> in, size_t size, uint8_t* out) {
  ZSTD_DCtx* ctx = ThreadZstdContexts().dctx;
  if (ctx == nullptr) return InternalError("ZSTD_createDCtx failed");
  size_t n = ZSTD_decompressDCtx(ctx, out, size, in.data(), in.size());
  if (ZSTD_isError(n)) return Corruption("bad zstd data: {}", ZSTD_getErrorName(n));
  if (n != size) return Corruption("zstd data decompresses to {} bytes, not {}", n, size);
  return Ok();
}

Status ZstdDecompressBounded(std::span<const uint8_t> in, size_t max_output, ByteBuffer* out) {
  ZSTD_DCtx* ctx = ThreadZstdContexts().dctx;
  if (ctx == nullptr) return InternalError("ZSTD_createDCtx failed");
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  out->Clear();
  size_t rc = 1;
  while (true) {
    if (out->size() >= max_output && rc != 0) {
      return Corruption("zstd data decompresses to more than {} bytes", max_output);
    }
    size_t chunk =
        std::min<size_t>(std::max<size_t>(in.size() * 4, 4096), max_output - out->size());
    ZSTD_outBuffer o{out->Ensure(chunk), chunk, 0};
    rc = ZSTD_decompressStream(ctx, &o, &input);
    out->Advance(o.pos);
    if (ZSTD_isError(rc)) return Corruption("bad zstd data: {}", ZSTD_getErrorName(rc));
    if (rc == 0 && input.pos == input.size) break;  // frame(s) complete, input consumed
    if (input.pos == input.size && o.pos < chunk) return Corruption("truncated zstd data");
  }
  return Ok();
}

// ----------------------------------------------------------------- deflate

Status DeflateCompress(std::span<const uint8_t> in, DeflateContainer container, int level,
                       ByteBuffer* out) {
  if (in.size() > kZlibMaxLength) {
    return InvalidArgument("{} bytes are too many to deflate at once", in.size());
  }
  if (container == DeflateContainer::kGzipOrZlib) container = DeflateContainer::kGzip;
  z_stream* z = ThreadDeflateStream(container).Get(WindowBits(container), level);
  if (z == nullptr) return InternalError("zlib deflateInit2 failed");
  // deflateBound counts the container's header and trailer; a margin for
  // the gzip header fields zlib may add.
  uLong bound = deflateBound(z, static_cast<uLong>(in.size())) + 32;
  z->next_in = const_cast<Bytef*>(in.data());
  z->avail_in = static_cast<uInt>(in.size());
  z->next_out = out->Ensure(bound);
  z->avail_out = static_cast<uInt>(bound);
  int rc = deflate(z, Z_FINISH);
  if (rc != Z_STREAM_END) return InternalError("zlib deflate failed ({})", rc);
  out->Advance(z->total_out);
  return Ok();
}

Status Inflate(std::span<const uint8_t> in, DeflateContainer container, size_t size, uint8_t* out) {
  if (in.size() > kZlibMaxLength || size > kZlibMaxLength) {
    return Corruption("deflate data too large ({} bytes to {})", in.size(), size);
  }
  z_stream* z = ThreadInflateStream(container).Get(WindowBits(container));
  if (z == nullptr) return InternalError("zlib inflateInit2 failed");
  z->next_in = const_cast<Bytef*>(in.data());
  z->avail_in = static_cast<uInt>(in.size());
  // zlib makes no progress into an empty output buffer (Z_BUF_ERROR), even
  // for a stream that inflates to nothing: give it one spare byte then.
  uint8_t spare = 0;
  z->next_out = size == 0 ? &spare : out;
  z->avail_out = size == 0 ? 1 : static_cast<uInt>(size);
  int rc = inflate(z, Z_FINISH);
  size_t produced = z->total_out;
  if (rc != Z_STREAM_END || produced != size) {
    return Corruption("deflate data does not inflate to {} bytes (zlib status {}, got {})", size,
                      rc, produced);
  }
  return Ok();
}

Status InflateBounded(std::span<const uint8_t> in, DeflateContainer container, size_t max_output,
                      ByteBuffer* out) {
  if (in.size() > kZlibMaxLength) return Corruption("deflate data too large ({} bytes)", in.size());
  z_stream* z = ThreadInflateStream(container).Get(WindowBits(container));
  if (z == nullptr) return InternalError("zlib inflateInit2 failed");
  z->next_in = const_cast<Bytef*>(in.data());
  z->avail_in = static_cast<uInt>(in.size());
  out->Clear();
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out->size() >= max_output) {
      return Corruption("deflate data inflates to more than {} bytes", max_output);
    }
    size_t chunk =
        std::min<size_t>(std::max<size_t>(in.size() * 4, 4096), max_output - out->size());
    chunk = std::min<size_t>(chunk, 1u << 30);
    z->next_out = out->Ensure(chunk);
    z->avail_out = static_cast<uInt>(chunk);
    rc = inflate(z, Z_NO_FLUSH);
    out->Advance(chunk - z->avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && z->avail_out == 0)) {
      return Corruption("bad deflate data ({})", z->msg ? z->msg : "truncated");
    }
  }
  return Ok();
}

uint32_t Crc32(std::span<const uint8_t> data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed large inputs in pieces.
  while (!data.empty()) {
    size_t n = std::min<size_t>(data.size(), 1u << 30);
    crc = crc32(crc, data.data(), static_cast<uInt>(n));
    data = data.subspan(n);
  }
  return static_cast<uint32_t>(crc);
}

// --------------------------------------------------------------------- lz4

Status Lz4Compress(std::span<const uint8_t> in, ByteBuffer* out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return InvalidArgument("{} bytes are too many for one lz4 block", in.size());
  }
  int bound = LZ4_compressBound(static_cast<int>(in.size()));
  uint8_t* dst = out->Ensure(static_cast<size_t>(bound));
  int n = LZ4_compress_default(Chars(in), reinterpret_cast<char*>(dst), static_cast<int>(in.size()),
                               bound);
  if (n <= 0 && !in.empty()) return InternalError("lz4 compression failed");
  out->Advance(static_cast<size_t>(std::max(n, 0)));
  return Ok();
}

Status Lz4Decompress(std::span<const uint8_t> in, size_t size, uint8_t* out) {
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int>::max());
  if (in.size() > kMax || size > kMax) {
    return Corruption("lz4 data too large ({} bytes to {})", in.size(), size);
  }
  int n = LZ4_decompress_safe(Chars(in), reinterpret_cast<char*>(out), static_cast<int>(in.size()),
                              static_cast<int>(size));
  if (n < 0 || static_cast<size_t>(n) != size) {
    return Corruption("lz4 data does not decompress to {} bytes", size);
  }
  return Ok();
}

}  // namespace floe::format::compression
