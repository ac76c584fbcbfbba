#pragma once
// Test helpers for the Parquet writer: an in-memory OutputFile and small,
// independent decoders (RLE/bit-packed, PLAIN) to check what was written.

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "floe/common/bytes.h"
#include "floe/io/file_io.h"

namespace floe::format::parquet::test {

class MemoryOutputFile : public io::OutputFile {
 public:
  explicit MemoryOutputFile(std::string* sink) : sink_(sink) {}
  const std::string& path() const override { return path_; }
  Status Write(std::span<const uint8_t> bytes) override {
    sink_->append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return Ok();
  }
  uint64_t position() const override { return sink_->size(); }
  Status Sync() override { return Ok(); }
  Status Close() override { return Ok(); }

 private:
  std::string* sink_;
  std::string path_ = "memory.parquet";
};

inline uint64_t ReadVarint(const std::vector<uint8_t>& in, size_t* pos) {
  uint64_t v = 0;
  int shift = 0;
  while (true) {
    uint8_t b = in.at((*pos)++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
    shift += 7;
  }
}

/// Decodes `n` values of an RLE/bit-packed hybrid stream (written independently
/// of the encoder, straight from Encodings.md).
inline std::vector<uint32_t> DecodeRle(const std::vector<uint8_t>& in, int bit_width, size_t n) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (out.size() < n) {
    uint64_t header = ReadVarint(in, &pos);
    if (header & 1) {
      uint64_t count = (header >> 1) * 8;
      uint64_t bit = 0;
      for (uint64_t i = 0; i < count; ++i) {
        uint32_t v = 0;
        for (int b = 0; b < bit_width; ++b, ++bit) {
          if (in.at(pos + bit / 8) & (1u << (bit % 8))) v |= 1u << b;
        }
        if (out.size() < n) out.push_back(v);
      }
      pos += (header >> 1) * static_cast<uint64_t>(bit_width);
    } else {
      uint64_t count = header >> 1;
      uint32_t v = 0;
      int bytes = (bit_width + 7) / 8;
      for (int b = 0; b < bytes; ++b) v |= static_cast<uint32_t>(in.at(pos++)) << (8 * b);
      for (uint64_t i = 0; i < count && out.size() < n; ++i) out.push_back(v);
    }
  }
  return out;
}

}  // namespace floe::format::parquet::test

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/page_header.h"

namespace floe::format::parquet::test {

/// The levels of one column chunk of a v1, UNCOMPRESSED, PLAIN-only file.
struct ChunkLevels {
  std::vector<uint32_t> rep, def;
  std::vector<uint8_t> values;  ///< concatenated PLAIN value bytes of all pages
};

inline FileMetaData ReadFooter(const std::string& file) {
  uint32_t length = LoadLittleEndian<uint32_t>(file.data() + file.size() - 8);
  auto bytes = std::span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(file.data() + file.size() - 8 - length), length);
  auto footer = ParseFileMetaData(bytes);
  if (!footer) throw std::runtime_error(footer.error().ToString());
  return *footer;
}

inline ChunkLevels ReadChunkLevels(const std::string& file, const ColumnMetaData& meta,
                                   int rep_width, int def_width) {
  ChunkLevels out;
  size_t pos = static_cast<size_t>(meta.data_page_offset);
  int64_t seen = 0;
  while (seen < meta.num_values) {
    size_t consumed = 0;
    auto header =
        ParsePageHeader(std::span<const uint8_t>(
                            reinterpret_cast<const uint8_t*>(file.data() + pos), file.size() - pos),
                        &consumed);
    if (!header) throw std::runtime_error(header.error().ToString());
    pos += consumed;
    std::vector<uint8_t> body(
        file.begin() + static_cast<std::ptrdiff_t>(pos),
        file.begin() + static_cast<std::ptrdiff_t>(pos) + header->compressed_page_size);
    pos += static_cast<size_t>(header->compressed_page_size);
    size_t n = static_cast<size_t>(header->data_page_header->num_values);
    size_t at = 0;
    auto levels = [&](int width, std::vector<uint32_t>* into) {
      uint32_t len = LoadLittleEndian<uint32_t>(body.data() + at);
      std::vector<uint8_t> run(body.begin() + static_cast<std::ptrdiff_t>(at + 4),
                               body.begin() + static_cast<std::ptrdiff_t>(at + 4 + len));
      at += 4 + len;
      auto decoded = DecodeRle(run, width, n);
      into->insert(into->end(), decoded.begin(), decoded.end());
    };
    if (rep_width > 0) levels(rep_width, &out.rep);
    if (def_width > 0) levels(def_width, &out.def);
    out.values.insert(out.values.end(), body.begin() + static_cast<std::ptrdiff_t>(at), body.end());
    seen += static_cast<int64_t>(n);
  }
  return out;
}

}  // namespace floe::format::parquet::test
