#pragma once
/// Little-endian loads and stores, a growable byte buffer that keeps its
/// capacity across `Clear()` so hot paths reuse memory instead of allocating,
/// and the varint and zigzag encodings the file formats share.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace floe {

/// Reads a little-endian T from `p` (unaligned).
template <typename T>
inline T LoadLittleEndian(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;  // x86-64 and aarch64 Linux are little-endian.
}

/// Writes `value` little-endian at `p` (unaligned).
template <typename T>
inline void StoreLittleEndian(void* p, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &value, sizeof(T));
}

/// A contiguous, growable byte buffer. Not thread-safe.
class ByteBuffer {
 public:
  ByteBuffer() = default;

  const uint8_t* data() const { return data_.data(); }
  uint8_t* data() { return data_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return data_.size(); }
  std::span<const uint8_t> span() const { return {data_.data(), size_}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_.data()), size_}; }

  /// Forgets the contents, keeps the memory.
  void Clear() { size_ = 0; }
  /// Releases the memory too.
  void Release() {
    data_.clear();
    data_.shrink_to_fit();
    size_ = 0;
  }
  void Reserve(size_t n) {
    if (n > data_.size()) Grow(n);
  }
  /// Makes room for `n` more bytes and returns where they go; call `Advance(k)` after
  /// writing k <= n of them.
  uint8_t* Ensure(size_t n) {
    if (size_ + n > data_.size()) Grow(size_ + n);
    return data_.data() + size_;
  }
  void Advance(size_t n) { size_ += n; }
  void Resize(size_t n) {
    Reserve(n);
    size_ = n;
  }

  void Append(const void* p, size_t n) {
    if (n == 0) return;
    std::memcpy(Ensure(n), p, n);
    size_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Append(std::span<const uint8_t> s) { Append(s.data(), s.size()); }
  void PushByte(uint8_t b) {
    *Ensure(1) = b;
    size_ += 1;
  }
  template <typename T>
  void AppendLittleEndian(T value) {
    StoreLittleEndian(Ensure(sizeof(T)), value);
    size_ += sizeof(T);
  }

 private:
  void Grow(size_t min_size) {
    size_t n = data_.size() < 64 ? 64 : data_.size();
    while (n < min_size) n *= 2;
    data_.resize(n);
  }

  std::vector<uint8_t> data_;
  size_t size_ = 0;
};

/// Maps a signed integer to an unsigned one whose varint is short for small
/// magnitudes (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...): Avro's longs, Thrift
/// compact integers and Parquet's delta encodings use it.
inline uint64_t ZigZagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

/// The inverse of ZigZagEncode.
inline int64_t ZigZagDecode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

/// Appends `value` as an unsigned LEB128 varint: 7 bits a byte, low bits
/// first, the high bit set on every byte but the last; 1 to 10 bytes.
inline void AppendVarint(ByteBuffer* out, uint64_t value) {
  uint8_t* p = out->Ensure(10);
  size_t n = 0;
  while (value >= 0x80) {
    p[n++] = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  p[n++] = static_cast<uint8_t>(value);
  out->Advance(n);
}

}  // namespace floe
