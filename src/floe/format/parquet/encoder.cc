#include "floe/format/parquet/encoder.h"

#include <algorithm>
#include <bit>

namespace floe::format::parquet {
namespace {

constexpr size_t kInitialSlots = 64;

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/// The hash of the `n` bytes at `p`: whole words first, then the last
/// partial word, read by copying (any input) or as a whole word when the
/// bytes are followed by zeros (`padded`), which gives the same word.
template <bool padded>
uint64_t HashWords(const uint8_t* p, size_t n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = n * kMul;
  while (n >= 8) {
    h = (h ^ LoadLittleEndian<uint64_t>(p)) * kMul;
    h = std::rotl(h, 29);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t tail = 0;
    if constexpr (padded) {
      tail = LoadLittleEndian<uint64_t>(p);
    } else {
      std::memcpy(&tail, p, n);
    }
    h = (h ^ tail) * kMul;
  }
  return Mix(h);
}

}  // namespace

uint64_t HashBytes(const uint8_t* p, size_t n) { return HashWords<false>(p, n); }

uint64_t HashPaddedBytes(const uint8_t* p, size_t n) { return HashWords<true>(p, n); }

void NumericDictionary::Clear() {
  if (table_.size() != kInitialSlots) {
    std::vector<uint32_t>(kInitialSlots, kEmpty).swap(table_);  // frees a grown table
  } else {
    std::fill(table_.begin(), table_.end(), kEmpty);
  }
  mask_ = kInitialSlots - 1;
  shift_ = 64 - std::countr_zero(kInitialSlots);
  size_ = 0;
  plain_.Clear();
}

void NumericDictionary::Grow() {
  // The old table is not needed: every value is in plain(), in index order.
  size_t slots = table_.size() * 2;
  std::vector<uint32_t>().swap(table_);
  table_.assign(slots, kEmpty);
  mask_ = slots - 1;
  shift_ = 64 - std::countr_zero(slots);
  const uint8_t* values = plain_.data();
  for (uint32_t index = 0; index < size_; ++index) {
    uint64_t i = Slot(ValueAt(values, index));
    while (table_[i] != kEmpty) i = (i + 1) & mask_;
    table_[i] = index;
  }
}

void BytesDictionary::Clear() {
  if (table_.size() != kInitialSlots) std::vector<Entry>().swap(table_);  // frees a grown table
  table_.assign(kInitialSlots, Entry{0, 0, 0, kEmpty, 0, 0});
  mask_ = kInitialSlots - 1;
  size_ = 0;
  plain_.Clear();
}

void BytesDictionary::Grow() {
  std::vector<Entry> old = std::move(table_);
  size_t slots = old.size() * 2;
  table_.assign(slots, Entry{0, 0, 0, kEmpty, 0, 0});
  mask_ = slots - 1;
  for (const Entry& e : old) {
    if (e.index == kEmpty) continue;
    uint64_t h = HashBytes(plain_.data() + e.offset, e.length);
    uint64_t i = (h >> 32) & mask_;
    while (table_[i].index != kEmpty) i = (i + 1) & mask_;
    table_[i] = e;
  }
}

}  // namespace floe::format::parquet
