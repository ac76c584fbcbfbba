#pragma once
/// Block codecs of Avro object container files: "null", "deflate" (raw RFC 1951,
/// no zlib header), "snappy" (raw snappy + 4-byte big-endian CRC32 of the
/// uncompressed bytes) and "zstandard". "bzip2" and "xz" are kNotSupported.

#include <cstddef>
#include <string>
#include <string_view>

#include "floe/common/bytes.h"
#include "floe/common/result.h"

namespace floe::format::avro {

enum class Codec { kNull, kDeflate, kSnappy, kZstandard };

/// The name in the "avro.codec" metadata: "null", "deflate", "snappy", "zstandard".
std::string_view CodecName(Codec codec);

/// Parses a codec name. Errors: kNotSupported for "bzip2" and "xz",
/// kInvalidArgument for names that are not Avro codecs.
Result<Codec> ParseCodec(std::string_view name);

/// Appends `input` compressed with `codec` to `*out`. `level` < 0 is the
/// codec's default. Errors: kInternal if the library fails.
Status Compress(Codec codec, std::string_view input, int level, ByteBuffer* out);

/// Replaces `*out` with `input` decompressed. More than `max_output` bytes of
/// output, bad compressed bytes or a bad checksum are kCorruption with
/// `context` (e.g. "file.avro block at offset 123") in the message.
Status Decompress(Codec codec, std::string_view input, size_t max_output, std::string_view context,
                  ByteBuffer* out);

}  // namespace floe::format::avro
