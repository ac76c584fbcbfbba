#pragma once
/// Value decoding for the data section of Parquet pages (parquet-format's
/// Encodings.md): PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY, RLE (booleans),
/// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
/// BYTE_STREAM_SPLIT, followed by the conversion of physical values to
/// floe's `types::Value` representation (see schema_reader.h LeafConversion).
///
/// Every length and count is checked against the bytes present; bad bytes
/// are kCorruption with the offset within the page's value section.

#include <cstdint>
#include <span>
#include <vector>

#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema_reader.h"
#include "floe/types/value.h"

namespace floe::format::parquet {

/// Decodes DELTA_BINARY_PACKED integers.
class DeltaBitPackedDecoder {
 public:
  /// Reads the header. kCorruption if it is malformed.
  Status Init(std::span<const uint8_t> data);
  /// The value count the header announces.
  uint64_t total_values() const { return total_values_; }
  /// Decodes the next `n` values (wrapping 64-bit arithmetic).
  Status Decode(int64_t* out, size_t n);
  /// Bytes consumed: the end of the last miniblock started.
  size_t position() const { return pos_; }

 private:
  Status StartBlock();

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;
  uint64_t values_per_miniblock_ = 0;
  uint64_t total_values_ = 0;
  uint64_t emitted_ = 0;
  uint64_t last_ = 0;
  uint64_t min_delta_ = 0;
  uint8_t widths_[256] = {};
  uint64_t miniblock_ = 0;     ///< index of the current miniblock within the block
  uint64_t in_miniblock_ = 0;  ///< values read from the current miniblock
  size_t mini_start_ = 0;
  size_t mini_bytes_ = 0;
  bool in_block_ = false;
  bool mini_loaded_ = false;
};

/// Decodes page values for one leaf column. Reusable across pages; keeps its
/// scratch buffers. Not thread-safe.
class ValueDecoder {
 public:
  explicit ValueDecoder(const ReaderLeaf* leaf) : leaf_(leaf) {}

  /// Decodes `n` values of `encoding` from `data` into `out` (converted to
  /// floe's representation). Dictionary encodings look up `dictionary`.
  /// Bytes of string/binary values point into `data`, into `dictionary`'s
  /// storage, or into `scratch` (DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT fixed).
  Status Decode(Encoding encoding, std::span<const uint8_t> data, size_t n,
                std::span<const types::Value> dictionary, Arena* scratch, types::Value* out);

  /// Decodes one statistics value (PLAIN bytes; BYTE_ARRAY without the length
  /// prefix) and converts it. kCorruption if the size does not fit the type.
  /// Byte values point into `bytes`.
  Status DecodeStatistic(std::string_view bytes, types::Value* out);

 private:
  Status DecodePlain(std::span<const uint8_t> data, size_t n, types::Value* out);
  Status DecodeDictionary(std::span<const uint8_t> data, size_t n,
                          std::span<const types::Value> dictionary, types::Value* out);
  Status DecodeRleBoolean(std::span<const uint8_t> data, size_t n, types::Value* out);
  Status DecodeDeltaBinaryPacked(std::span<const uint8_t> data, size_t n, types::Value* out);
  Status DecodeDeltaLengthByteArray(std::span<const uint8_t> data, size_t n, types::Value* out,
                                    size_t* consumed);
  Status DecodeDeltaByteArray(std::span<const uint8_t> data, size_t n, Arena* scratch,
                              types::Value* out);
  Status DecodeByteStreamSplit(std::span<const uint8_t> data, size_t n, Arena* scratch,
                               types::Value* out);
  Status Convert(types::Value* values, size_t n);

  const ReaderLeaf* leaf_;
  std::vector<uint32_t> indices_;
  std::vector<int64_t> ints_;
  std::vector<int64_t> prefixes_;
};

}  // namespace floe::format::parquet
