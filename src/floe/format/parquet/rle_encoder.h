#pragma once
/// The RLE / bit-packing hybrid encoding of parquet-format's Encodings.md,
/// used for definition and repetition levels and for dictionary indices.
///
///   run := rle-run | bit-packed-run
///   rle-run := varint(count << 1) value (ceil(bit_width / 8) bytes, little-endian)
///   bit-packed-run := varint(groups << 1 | 1) groups * 8 values packed LSB first
///
/// The encoder emits an RLE run for 8 or more equal values that start a group
/// of 8, and bit-packed runs (up to 63 groups behind one header byte)
/// otherwise. The last bit-packed group is padded with zeros; readers stop at
/// the number of values the page header gives.

#include <cstdint>
#include <span>

#include "floe/common/bytes.h"

namespace floe::format::parquet {

/// The number of bits needed to store `max_value` (0 for 0).
int BitWidth(uint64_t max_value);

/// Appends RLE/bit-packed runs to a ByteBuffer. Reusable: `Reset()` after
/// `Flush()` starts a new stream with the same memory. Not thread-safe.
class RleBitPackedEncoder {
 public:
  /// `bit_width` in [0, 32]; `out` must outlive the encoder's use.
  RleBitPackedEncoder(ByteBuffer* out, int bit_width) { Reset(out, bit_width); }
  RleBitPackedEncoder() = default;

  /// Starts a new stream appending to `out`.
  void Reset(ByteBuffer* out, int bit_width);

  void Put(uint32_t value) {
    if (value == current_ && repeat_ > 0) {
      ++repeat_;
      if (repeat_ > 8) return;  // extends an RLE run; nothing to buffer
    } else {
      if (repeat_ >= 8) WriteRleRun();
      repeat_ = 1;
      current_ = value;
    }
    buffered_[num_buffered_++] = value;
    if (num_buffered_ == 8) EndGroup();
  }

  /// Puts `count` copies of `value` (faster than repeated Put for long runs).
  void PutRepeated(uint32_t value, uint64_t count);

  /// Writes everything pending. Call once at the end of the stream.
  void Flush();

 private:
  void EndGroup();
  void WriteRleRun();
  void EndBitPackedRun();
  void PackGroup(const uint32_t* values);

  ByteBuffer* out_ = nullptr;
  int bit_width_ = 0;
  uint32_t current_ = 0;
  uint64_t repeat_ = 0;        // length of the current run of `current_`
  uint32_t buffered_[8] = {};  // the group being filled
  int num_buffered_ = 0;
  int bit_packed_groups_ = 0;    // groups in the open bit-packed run
  size_t indicator_offset_ = 0;  // where the open bit-packed run's header byte is
};

/// Encodes `levels` as one RLE/bit-packed stream appended to `*out`.
void EncodeRleLevels(std::span<const int16_t> levels, int bit_width, ByteBuffer* out);

}  // namespace floe::format::parquet
