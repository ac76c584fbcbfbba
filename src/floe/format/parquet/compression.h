#pragma once
/// Page compression for Parquet: the codecs floe writes and reads, both
/// directions, on whole buffers (one page at a time).
///
/// Codecs: UNCOMPRESSED, SNAPPY (raw snappy, no framing), GZIP (zlib's gzip
/// wrapper), ZSTD (one frame), LZ4_RAW (the lz4 block format, no framing).
/// The deprecated Hadoop-framed LZ4, LZO and BROTLI are kNotSupported.
/// Thread-safe: the functions keep per-thread reusable contexts.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"

namespace floe::format::parquet {

/// The codec a user names, as Iceberg's `write.parquet.compression-codec`
/// and `floe parquet write --codec` take it, case-insensitively: `zstd`,
/// `snappy`, `gzip`, `lz4_raw`, `lz4` (written as LZ4_RAW: the Parquet spec
/// deprecates the Hadoop-framed LZ4 that parquet-mr writes under this name,
/// and every current reader reads LZ4_RAW), `uncompressed` or `none`.
/// Errors: kInvalidArgument naming the codecs floe writes (`brotli` and
/// `lzo` among the refused).
Result<CompressionCodec> ParseCodecName(std::string_view name);

/// The level pyarrow (Arrow C++) uses when none is given: ZSTD 1, GZIP 6
/// (zlib's Z_DEFAULT_COMPRESSION). Other codecs ignore the level.
int DefaultCompressionLevel(CompressionCodec codec);

/// Appends the compressed form of `in` to `*out`. `level` is the codec's own
/// level (ZSTD 1..22, GZIP 1..9); 0 picks DefaultCompressionLevel(codec).
/// Errors: kNotSupported for codecs floe does not write, kInternal if the
/// library fails.
Status Compress(CompressionCodec codec, std::span<const uint8_t> in, ByteBuffer* out,
                int level = 0);

/// Decompresses `in` into exactly `uncompressed_size` bytes at `out` (the
/// caller allocates them, after checking the size against its limits).
/// Errors: kCorruption if the input is malformed or does not decompress to
/// exactly `uncompressed_size` bytes; kNotSupported for unknown codecs.
Status Decompress(CompressionCodec codec, std::span<const uint8_t> in, size_t uncompressed_size,
                  uint8_t* out);

}  // namespace floe::format::parquet
