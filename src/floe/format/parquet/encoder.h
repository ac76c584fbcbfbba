#pragma once
/// Dictionaries for Parquet's dictionary encoding: open-addressing hash tables
/// that map a value to its index in insertion order and keep the dictionary
/// page's PLAIN bytes as they go. The tables double when half full, so
/// inserting allocates only O(log n) times per row group; `Clear()` keeps the
/// memory for the next row group. Not thread-safe.

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "floe/common/bytes.h"

namespace floe::format::parquet {

/// A 64-bit hash of a byte string (not stable across floe versions; in-memory only).
uint64_t HashBytes(const uint8_t* p, size_t n);
/// HashBytes of `n` bytes at `p` that are followed by at least 8 zero bytes
/// (a padded copy): the same value, without copying the last word.
uint64_t HashPaddedBytes(const uint8_t* p, size_t n);

/// Values of 4 or 8 bytes (INT32, INT64, FLOAT, DOUBLE), keyed by their bit
/// pattern: -0.0 and 0.0 are distinct entries, and so are NaN payloads.
///
/// A slot of the hash table holds only the value's 4-byte index; the value
/// itself is read from plain() (the dictionary page body, which holds every
/// value once anyway). That is a quarter of the memory of a slot holding the
/// value beside its index (16 bytes with padding): a 2 MiB dictionary of
/// 262,144 longs needs a 2 MiB table instead of 8 MiB. The price is one more
/// load per probe, from bytes in index order.
class NumericDictionary {
 public:
  /// `width` is 4 or 8: the PLAIN size of one value.
  explicit NumericDictionary(int width) : width_(width) { Clear(); }

  /// Past this many bytes of plain() the table stops doubling while it has
  /// room (up to 7/8 full): a dictionary over its page limit falls back to
  /// PLAIN at the end of the row, so a table twice the size would be built
  /// only to be released. Default: no limit.
  void set_size_limit(size_t bytes) { size_limit_ = bytes; }

  /// Starts loading the slot `GetOrInsert(bits)` will probe first, so that a
  /// caller that asks one value later finds it in cache.
  void Prefetch(uint64_t bits) const { __builtin_prefetch(&table_[Slot(bits)]); }

  /// The index of `bits` (the value's bit pattern, zero-extended), inserting
  /// it if new; `*inserted` tells which. Not after ReleaseTable.
  uint32_t GetOrInsert(uint64_t bits, bool* inserted) {
    uint64_t i = Slot(bits);
    const uint8_t* values = plain_.data();
    while (true) {
      const uint32_t index = table_[i];
      if (index == kEmpty) break;
      if (ValueAt(values, index) == bits) {
        *inserted = false;
        return index;
      }
      i = (i + 1) & mask_;
    }
    *inserted = true;
    uint32_t index = size_++;
    table_[i] = index;
    uint8_t* p = plain_.Ensure(8);
    std::memcpy(p, &bits, 8);  // little-endian: the low `width_` bytes are the value
    plain_.Advance(static_cast<size_t>(width_));
    if (size_ * 2 > table_.size() &&
        (plain_.size() <= size_limit_ || size_ * 8 > table_.size() * 7)) {
      Grow();
    }
    return index;
  }

  uint32_t size() const { return size_; }
  /// The dictionary page body: the values PLAIN-encoded in index order.
  const ByteBuffer& plain() const { return plain_; }
  /// Forgets every value; a table grown past its initial size is freed.
  void Clear();
  /// Frees the hash table, keeping plain() and size(): for a column chunk
  /// that stopped adding values (fell back to PLAIN). Only Clear() may follow.
  void ReleaseTable() { std::vector<uint32_t>().swap(table_); }
  /// Bytes of the hash table (0 after ReleaseTable).
  size_t table_bytes() const { return table_.capacity() * sizeof(uint32_t); }
  /// Bytes held: the table and plain()'s buffer.
  size_t memory_bytes() const { return table_bytes() + plain_.capacity(); }

 private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  uint64_t Slot(uint64_t bits) const { return (bits * 0x9E3779B97F4A7C15ull) >> shift_; }
  uint64_t ValueAt(const uint8_t* values, uint32_t index) const {
    if (width_ == 8) return LoadLittleEndian<uint64_t>(values + size_t{index} * 8);
    return LoadLittleEndian<uint32_t>(values + size_t{index} * 4);
  }
  void Grow();

  int width_;
  std::vector<uint32_t> table_;  // indices into plain(), kEmpty for a free slot
  uint64_t mask_ = 0;
  int shift_ = 0;
  uint32_t size_ = 0;
  size_t size_limit_ = std::numeric_limits<size_t>::max();
  ByteBuffer plain_;
};

/// Byte strings: BYTE_ARRAY values (PLAIN with a 4-byte length prefix) or
/// FIXED_LEN_BYTE_ARRAY values (PLAIN without one).
class BytesDictionary {
 public:
  /// Values of up to this many bytes are kept in the table's slots too, so
  /// that finding them reads one slot and not the dictionary's bytes.
  static constexpr uint32_t kInlineBytes = 12;

  explicit BytesDictionary(bool length_prefixed) : length_prefixed_(length_prefixed) { Clear(); }

  /// As NumericDictionary::set_size_limit.
  void set_size_limit(size_t bytes) { size_limit_ = bytes; }

  /// Starts loading the slot that `GetOrInsert` with hash `h` (`HashBytes` of
  /// the value) will probe first.
  void Prefetch(uint64_t h) const { __builtin_prefetch(&table_[(h >> 32) & mask_]); }

  /// The index of the `n` bytes at `p`, whose `HashBytes` is `h`, inserting
  /// them if new; `*inserted` tells which. `p` must be readable for at least
  /// kInlineBytes bytes, those past `n` zero (a caller's padded copy).
  uint32_t GetOrInsertPadded(const uint8_t* p, uint32_t n, uint64_t h, bool* inserted) {
    uint32_t tag = static_cast<uint32_t>(h);
    uint64_t head0 = LoadLittleEndian<uint64_t>(p);
    uint32_t head1 = LoadLittleEndian<uint32_t>(p + 8);
    uint64_t i = (h >> 32) & mask_;
    while (true) {
      Entry& e = table_[i];
      if (e.index == kEmpty) break;
      if (e.hash == tag && e.length == n && e.head0 == head0 && e.head1 == head1 &&
          (n <= kInlineBytes || SameTail(plain_.data() + e.offset, p, n))) {
        *inserted = false;
        return e.index;
      }
      i = (i + 1) & mask_;
    }
    *inserted = true;
    uint32_t index = size_++;
    if (length_prefixed_) plain_.AppendLittleEndian<uint32_t>(n);
    table_[i] = Entry{static_cast<uint64_t>(plain_.size()), tag, n, index, head1, head0};
    plain_.Append(p, n);
    if (size_ * 2 > table_.size() &&
        (plain_.size() <= size_limit_ || size_ * 8 > table_.size() * 7)) {
      Grow();
    }
    return index;
  }
  /// The same for any `n` bytes at `p`.
  uint32_t GetOrInsert(const uint8_t* p, uint32_t n, bool* inserted) {
    if (n >= kInlineBytes) return GetOrInsertPadded(p, n, HashBytes(p, n), inserted);
    uint8_t padded[kInlineBytes] = {};
    std::memcpy(padded, p, n);
    return GetOrInsertPadded(padded, n, HashBytes(p, n), inserted);
  }

  uint32_t size() const { return size_; }
  const ByteBuffer& plain() const { return plain_; }
  /// Forgets every value; a table grown past its initial size is freed.
  void Clear();
  /// As NumericDictionary::ReleaseTable.
  void ReleaseTable() { std::vector<Entry>().swap(table_); }
  /// Bytes of the hash table (0 after ReleaseTable).
  size_t table_bytes() const { return table_.capacity() * sizeof(Entry); }
  /// Bytes held: the table and plain()'s buffer.
  size_t memory_bytes() const { return table_bytes() + plain_.capacity(); }

 private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  struct alignas(32) Entry {  // two to a cache line
    uint64_t offset;          // of the value's bytes in plain_
    uint32_t hash;
    uint32_t length;
    uint32_t index;
    uint32_t head1;  // the value's first kInlineBytes bytes, zero-padded: 8..11
    uint64_t head0;  // ... and 0..7
  };
  void Grow();
  /// Whether the `n` (> kInlineBytes) bytes at `a` and `b`, whose first
  /// kInlineBytes bytes are equal, are equal: up to 20 bytes by their last
  /// 8 (no call to memcmp for the short strings most columns hold).
  static bool SameTail(const uint8_t* a, const uint8_t* b, uint32_t n) {
    if (n <= kInlineBytes + 8) {
      return LoadLittleEndian<uint64_t>(a + n - 8) == LoadLittleEndian<uint64_t>(b + n - 8);
    }
    return std::memcmp(a + kInlineBytes, b + kInlineBytes, n - kInlineBytes) == 0;
  }

  bool length_prefixed_;
  std::vector<Entry> table_;
  uint64_t mask_ = 0;
  uint32_t size_ = 0;
  size_t size_limit_ = std::numeric_limits<size_t>::max();
  ByteBuffer plain_;
};

}  // namespace floe::format::parquet
