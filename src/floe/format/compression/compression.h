#pragma once
/// The compression libraries under Avro blocks and Parquet pages, called on
/// whole buffers: snappy (raw blocks), zstd, deflate (zlib) and lz4 (the
/// block format). Each format keeps its own codec names, default levels and
/// framing (Avro's snappy checksum, Parquet's Hadoop LZ4) and calls these.
///
/// Compression appends to a ByteBuffer. Decompression comes in two forms:
/// into exactly `size` bytes the caller allocated (Parquet pages record
/// their size), or into a ByteBuffer up to a limit (Avro blocks do not).
/// Errors of decompression are kCorruption, with a message naming the
/// library and no context: the caller adds which block or page it was.
/// Thread-safe: zstd and zlib state is kept per thread and reused.

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/common/bytes.h"
#include "floe/common/result.h"

namespace floe::format::compression {

// ------------------------------------------------------------------ snappy

/// Appends `in` as one raw snappy block.
void SnappyCompress(std::span<const uint8_t> in, ByteBuffer* out);

/// The size a raw snappy block says it decompresses to. Errors: kCorruption
/// for a bad header.
Result<size_t> SnappyUncompressedLength(std::span<const uint8_t> in);

/// Decompresses the raw snappy block `in` into exactly `size` bytes at `out`.
/// Errors: kCorruption for bad data or another size.
Status SnappyDecompress(std::span<const uint8_t> in, size_t size, uint8_t* out);

// -------------------------------------------------------------------- zstd

/// Appends `in` as one zstd frame compressed at `level` (zstd's levels).
/// Errors: kInternal if zstd fails.
Status ZstdCompress(std::span<const uint8_t> in, int level, ByteBuffer* out);

/// Decompresses zstd frames into exactly `size` bytes at `out`. Errors:
/// kCorruption for bad data or another size.
Status ZstdDecompress(std::span<const uint8_t> in, size_t size, uint8_t* out);

/// Replaces `*out` with the zstd frames `in` decompressed. Errors:
/// kCorruption for bad or truncated data, or more than `max_output` bytes.
Status ZstdDecompressBounded(std::span<const uint8_t> in, size_t max_output, ByteBuffer* out);

// ----------------------------------------------------------------- deflate

/// The container around deflate data.
enum class DeflateContainer {
  kRaw,   ///< none (RFC 1951), as Avro's "deflate"
  kGzip,  ///< gzip (RFC 1952), as Parquet's GZIP
  /// Reading only: gzip or zlib (RFC 1950), whichever the header says.
  kGzipOrZlib,
};

/// Appends `in` deflated at `level` (zlib's 0..9, -1 for its default) in
/// `container` (kGzipOrZlib writes gzip). Errors: kInternal if zlib fails.
Status DeflateCompress(std::span<const uint8_t> in, DeflateContainer container, int level,
                       ByteBuffer* out);

/// Inflates `in` into exactly `size` bytes at `out`. Errors: kCorruption for
/// bad data or another size.
Status Inflate(std::span<const uint8_t> in, DeflateContainer container, size_t size, uint8_t* out);

/// Replaces `*out` with `in` inflated. Errors: kCorruption for bad or
/// truncated data, or more than `max_output` bytes.
Status InflateBounded(std::span<const uint8_t> in, DeflateContainer container, size_t max_output,
                      ByteBuffer* out);

/// zlib's CRC-32 of `data`.
uint32_t Crc32(std::span<const uint8_t> data);

// --------------------------------------------------------------------- lz4

/// Appends `in` as one lz4 block. Errors: kInvalidArgument past lz4's input
/// limit (about 2 GiB), kInternal if lz4 fails.
Status Lz4Compress(std::span<const uint8_t> in, ByteBuffer* out);

/// Decompresses the lz4 block `in` into exactly `size` bytes at `out`.
/// Errors: kCorruption for bad data or another size.
Status Lz4Decompress(std::span<const uint8_t> in, size_t size, uint8_t* out);

}  // namespace floe::format::compression
