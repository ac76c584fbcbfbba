#pragma once
/// Internal to floe::cdc::postgres: a bounds-checked reader of the network
/// byte order (big-endian) fields of PostgreSQL's protocols. Every read checks
/// the bytes that remain; a failed read leaves the offset where it was.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace floe::cdc::postgres::internal {

class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }
  bool at_end() const { return offset_ == bytes_.size(); }

  bool U8(uint8_t* v) {
    if (remaining() < 1) return false;
    *v = static_cast<uint8_t>(bytes_[offset_++]);
    return true;
  }
  bool U16(uint16_t* v) { return BigEndian(v); }
  bool U32(uint32_t* v) { return BigEndian(v); }
  bool U64(uint64_t* v) { return BigEndian(v); }
  bool I32(int32_t* v) {
    uint32_t u;
    if (!U32(&u)) return false;
    *v = static_cast<int32_t>(u);
    return true;
  }
  bool I64(int64_t* v) {
    uint64_t u;
    if (!U64(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  /// `n` bytes as a view into the input.
  bool Bytes(size_t n, std::string_view* v) {
    if (remaining() < n) return false;
    *v = bytes_.substr(offset_, n);
    offset_ += n;
    return true;
  }
  /// A NUL-terminated string (the NUL is consumed, not returned).
  bool CString(std::string_view* v) {
    size_t nul = bytes_.find('\0', offset_);
    if (nul == std::string_view::npos) return false;
    *v = bytes_.substr(offset_, nul - offset_);
    offset_ = nul + 1;
    return true;
  }

 private:
  template <typename T>
  bool BigEndian(T* v) {
    if (remaining() < sizeof(T)) return false;
    T out = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      out = static_cast<T>((out << 8) | static_cast<uint8_t>(bytes_[offset_ + i]));
    }
    offset_ += sizeof(T);
    *v = out;
    return true;
  }

  std::string_view bytes_;
  size_t offset_ = 0;
};

}  // namespace floe::cdc::postgres::internal
