#include "floe/format/parquet/rle_encoder.h"

#include <bit>

namespace floe::format::parquet {
int BitWidth(uint64_t max_value) { return max_value == 0 ? 0 : 64 - std::countl_zero(max_value); }

void RleBitPackedEncoder::Reset(ByteBuffer* out, int bit_width) {
  out_ = out;
  bit_width_ = bit_width;
  current_ = 0;
  repeat_ = 0;
  num_buffered_ = 0;
  bit_packed_groups_ = 0;
  indicator_offset_ = 0;
}

void RleBitPackedEncoder::PackGroup(const uint32_t* values) {
  // 8 values of bit_width bits occupy exactly bit_width bytes.
  uint8_t* p = out_->Ensure(static_cast<size_t>(bit_width_) + 8);
  uint64_t acc = 0;
  int bits = 0;
  size_t n = 0;
  const uint64_t mask = bit_width_ == 32 ? 0xffffffffull : ((1ull << bit_width_) - 1);
  for (int i = 0; i < 8; ++i) {
    acc |= (static_cast<uint64_t>(values[i]) & mask) << bits;
    bits += bit_width_;
    while (bits >= 8) {
      p[n++] = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
  out_->Advance(n);
}

void RleBitPackedEncoder::EndGroup() {
  if (repeat_ >= 8) {
    // All 8 buffered values are equal: they begin an RLE run, written when it ends.
    num_buffered_ = 0;
    if (bit_packed_groups_ > 0) EndBitPackedRun();
    return;
  }
  if (bit_packed_groups_ == 0) {
    indicator_offset_ = out_->size();
    out_->PushByte(0);  // patched by EndBitPackedRun
  }
  PackGroup(buffered_);
  ++bit_packed_groups_;
  num_buffered_ = 0;
  repeat_ = 0;  // a run must start at a group boundary to become an RLE run
  if (bit_packed_groups_ == 63) EndBitPackedRun();
}

void RleBitPackedEncoder::EndBitPackedRun() {
  out_->data()[indicator_offset_] = static_cast<uint8_t>((bit_packed_groups_ << 1) | 1);
  bit_packed_groups_ = 0;
}

void RleBitPackedEncoder::WriteRleRun() {
  if (bit_packed_groups_ > 0) EndBitPackedRun();
  AppendVarint(out_, repeat_ << 1);
  int bytes = (bit_width_ + 7) / 8;
  uint8_t* p = out_->Ensure(4);
  StoreLittleEndian<uint32_t>(p, current_);
  out_->Advance(static_cast<size_t>(bytes));
  repeat_ = 0;
  num_buffered_ = 0;
}

void RleBitPackedEncoder::PutRepeated(uint32_t value, uint64_t count) {
  // Fill the current group value by value, then extend the run in one step.
  while (count > 0 && (repeat_ < 8 || value != current_)) {
    Put(value);
    --count;
  }
  repeat_ += count;
}

void RleBitPackedEncoder::Flush() {
  if (repeat_ >= 8) {
    WriteRleRun();
  } else if (num_buffered_ > 0) {
    if (bit_packed_groups_ == 0 && repeat_ == static_cast<uint64_t>(num_buffered_)) {
      WriteRleRun();  // a short tail of equal values: one small RLE run
    } else {
      for (int i = num_buffered_; i < 8; ++i) buffered_[i] = 0;
      repeat_ = 0;
      num_buffered_ = 8;
      EndGroup();
    }
  }
  if (bit_packed_groups_ > 0) EndBitPackedRun();
  repeat_ = 0;
  num_buffered_ = 0;
}

void EncodeRleLevels(std::span<const int16_t> levels, int bit_width, ByteBuffer* out) {
  RleBitPackedEncoder encoder(out, bit_width);
  size_t i = 0;
  while (i < levels.size()) {
    size_t j = i + 1;
    while (j < levels.size() && levels[j] == levels[i]) ++j;
    encoder.PutRepeated(static_cast<uint16_t>(levels[i]), j - i);
    i = j;
  }
  encoder.Flush();
}

}  // namespace floe::format::parquet
