#pragma once
/// Decoding of the bit-level encodings of parquet-format's Encodings.md: the
/// RLE / bit-packing hybrid (levels, dictionary indices, RLE booleans) and the
/// deprecated BIT_PACKED level encoding. Every read is bounds-checked; bad
/// bytes are kCorruption naming the offset within the decoded section.

#include <cstddef>
#include <cstdint>
#include <span>

#include "floe/common/result.h"

namespace floe::format::parquet {

/// Reads `width` (0..64) bits at bit offset `bit` of `data`, LSB first.
/// The caller guarantees `bit + width <= 8 * size`.
uint64_t ReadPackedBits(const uint8_t* data, size_t size, uint64_t bit, int width);

/// Decodes an RLE / bit-packed hybrid stream (no length prefix) of values of
/// `bit_width` bits (0..32).
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(std::span<const uint8_t> data, int bit_width) { Reset(data, bit_width); }
  void Reset(std::span<const uint8_t> data, int bit_width);

  /// Decodes exactly `n` values into `out`. kCorruption if the stream ends
  /// first or is malformed.
  template <typename T>
  Status Decode(T* out, size_t n);

  /// Bytes consumed by the runs started so far.
  size_t position() const { return pos_; }

 private:
  Status NextRun();

  std::span<const uint8_t> data_;
  int bit_width_ = 0;
  size_t pos_ = 0;
  // Current run.
  bool rle_ = false;
  uint64_t run_left_ = 0;  ///< values left in the run
  uint32_t rle_value_ = 0;
  size_t packed_start_ = 0;    ///< byte offset of the bit-packed run's data
  uint64_t packed_index_ = 0;  ///< next value index within the bit-packed run
};

/// Decodes `n` levels of the deprecated BIT_PACKED encoding (MSB first, no
/// header) from `data`; `*consumed` receives the bytes used.
Status DecodeLegacyBitPacked(std::span<const uint8_t> data, int bit_width, int16_t* out, size_t n,
                             size_t* consumed);

/// Reads an unsigned LEB128 varint at `*pos`. kCorruption if truncated or
/// longer than 10 bytes.
Result<uint64_t> ReadUleb128(std::span<const uint8_t> data, size_t* pos);

}  // namespace floe::format::parquet
