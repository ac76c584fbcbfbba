#include "floe/format/parquet/rle_decoder.h"

#include <cstring>

#include "floe/common/bytes.h"

namespace floe::format::parquet {

uint64_t ReadPackedBits(const uint8_t* data, size_t size, uint64_t bit, int width) {
  if (width == 0) return 0;
  size_t byte = bit >> 3;
  int shift = static_cast<int>(bit & 7);
  if (width <= 56 && byte + 8 <= size) {
    uint64_t word = LoadLittleEndian<uint64_t>(data + byte);
    uint64_t v = word >> shift;
    return width == 64 ? v : v & ((uint64_t{1} << width) - 1);
  }
  // Slow path: gather byte by byte (end of buffer, or widths above 56).
  uint64_t v = 0;
  int got = 0;
  while (got < width) {
    uint64_t b = data[byte++] >> shift;
    int take = 8 - shift;
    v |= b << got;
    got += take;
    shift = 0;
  }
  return width == 64 ? v : v & ((uint64_t{1} << width) - 1);
}

Result<uint64_t> ReadUleb128(std::span<const uint8_t> data, size_t* pos) {
  uint64_t v = 0;
  size_t start = *pos;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return Corruption("truncated varint at offset {}", start);
    uint8_t b = data[(*pos)++];
    if (shift == 63 && (b & 0x7e) != 0) return Corruption("varint overflow at offset {}", start);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  return Corruption("varint too long at offset {}", start);
}

void RleBitPackedDecoder::Reset(std::span<const uint8_t> data, int bit_width) {
  data_ = data;
  bit_width_ = bit_width;
  pos_ = 0;
  rle_ = false;
  run_left_ = 0;
  rle_value_ = 0;
  packed_start_ = 0;
  packed_index_ = 0;
}

Status RleBitPackedDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Corruption("RLE bit width {} out of range", bit_width_);
  }
  size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(uint64_t header, ReadUleb128(data_, &pos_));
  if (header & 1) {
    uint64_t groups = header >> 1;
    if (groups == 0) return Corruption("empty bit-packed run at offset {}", start);
    // A run may be truncated at the end of the data; only values backed by
    // bytes can be read.
    uint64_t available_bits = static_cast<uint64_t>(data_.size() - pos_) * 8;
    uint64_t values = groups > (uint64_t{1} << 59) ? (uint64_t{1} << 62) : groups * 8;
    if (bit_width_ > 0) {
      if (groups > (data_.size() - pos_)) {
        // More groups than bytes: only what fits is readable.
        values = available_bits / bit_width_;
      } else {
        values = std::min<uint64_t>(values, available_bits / bit_width_);
      }
    }
    if (values == 0) return Corruption("truncated bit-packed run at offset {}", start);
    rle_ = false;
    run_left_ = values;
    packed_start_ = pos_;
    packed_index_ = 0;
    uint64_t remaining = data_.size() - pos_;
    uint64_t bytes = bit_width_ == 0      ? 0
                     : groups > remaining ? remaining
                                          : std::min<uint64_t>(groups * bit_width_, remaining);
    pos_ += bytes;
  } else {
    uint64_t count = header >> 1;
    if (count == 0) return Corruption("empty RLE run at offset {}", start);
    size_t value_bytes = (bit_width_ + 7) / 8;
    if (data_.size() - pos_ < value_bytes) {
      return Corruption("truncated RLE run at offset {}", start);
    }
    uint32_t v = 0;
    for (size_t i = 0; i < value_bytes; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
    pos_ += value_bytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      return Corruption("RLE value {} wider than {} bits at offset {}", v, bit_width_, start);
    }
    rle_ = true;
    rle_value_ = v;
    run_left_ = count;
  }
  return Ok();
}

template <typename T>
Status RleBitPackedDecoder::Decode(T* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    if (run_left_ == 0) {
      if (pos_ >= data_.size()) {
        return Corruption("RLE stream ends after {} of {} values at offset {}", done, n, pos_);
      }
      FLOE_RETURN_IF_ERROR(NextRun());
    }
    size_t take = static_cast<size_t>(std::min<uint64_t>(run_left_, n - done));
    if (rle_) {
      T v = static_cast<T>(rle_value_);
      for (size_t i = 0; i < take; ++i) out[done + i] = v;
    } else {
      const uint8_t* base = data_.data() + packed_start_;
      size_t size = data_.size() - packed_start_;
      uint64_t bit = packed_index_ * static_cast<uint64_t>(bit_width_);
      for (size_t i = 0; i < take; ++i) {
        out[done + i] = static_cast<T>(ReadPackedBits(base, size, bit, bit_width_));
        bit += bit_width_;
      }
      packed_index_ += take;
    }
    run_left_ -= take;
    done += take;
  }
  return Ok();
}

template Status RleBitPackedDecoder::Decode<int16_t>(int16_t*, size_t);
template Status RleBitPackedDecoder::Decode<uint32_t>(uint32_t*, size_t);
template Status RleBitPackedDecoder::Decode<uint8_t>(uint8_t*, size_t);

Status DecodeLegacyBitPacked(std::span<const uint8_t> data, int bit_width, int16_t* out, size_t n,
                             size_t* consumed) {
  if (bit_width < 0 || bit_width > 16)
    return Corruption("BIT_PACKED width {} out of range", bit_width);
  uint64_t bits = static_cast<uint64_t>(n) * bit_width;
  uint64_t bytes = (bits + 7) / 8;
  if (bytes > data.size()) {
    return Corruption("BIT_PACKED levels need {} bytes, {} present", bytes, data.size());
  }
  uint64_t bit = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (int k = 0; k < bit_width; ++k, ++bit) {
      uint8_t b = data[bit >> 3];
      v = (v << 1) | ((b >> (7 - (bit & 7))) & 1);
    }
    out[i] = static_cast<int16_t>(v);
  }
  *consumed = static_cast<size_t>(bytes);
  return Ok();
}

}  // namespace floe::format::parquet
