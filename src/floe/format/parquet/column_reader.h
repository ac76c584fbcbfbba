#pragma once
/// Reads one column chunk: its pages (dictionary, data page v1 and v2),
/// decompressed, with their repetition/definition levels and values decoded,
/// as a cursor over (repetition level, definition level, value) triplets.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floe/common/arena.h"
#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/parquet/decoder.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/page_header.h"
#include "floe/format/parquet/schema_reader.h"
#include "floe/io/file_io.h"
#include "floe/types/value.h"

namespace floe::format::parquet {

/// Limits against hostile files (see ReaderOptions).
struct PageLimits {
  uint64_t max_page_size = 512u << 20;
  uint64_t max_page_values = 1u << 22;
};

/// Decompresses a page body; also reads the deprecated Hadoop-framed LZ4
/// (falling back to raw LZ4 blocks as other readers do).
Status DecompressPage(CompressionCodec codec, std::span<const uint8_t> in, size_t uncompressed_size,
                      uint8_t* out);

/// A cursor over the triplets of one column chunk. Reusable: Open() again
/// for the next row group keeps the buffers. Not thread-safe.
class ColumnChunkReader {
 public:
  ColumnChunkReader(const ReaderLeaf* leaf, PageLimits limits);

  /// Reads the chunk's bytes from `file` (checked against the file size) and
  /// prepares to read its pages. Errors: kCorruption naming the offset.
  Status Open(const io::InputFile& file, const ColumnChunk& chunk);

  /// Makes the next triplet current, loading pages as needed. Returns false
  /// at the end of the chunk.
  Result<bool> Peek() {
    if (level_pos_ < page_levels_) return true;
    return LoadNextPage();
  }
  int16_t def() const { return defs_[level_pos_]; }
  int16_t rep() const { return reps_.empty() ? 0 : reps_[level_pos_]; }
  /// The value of the current triplet; only when def() == max_def.
  const types::Value& value() const { return values_[value_pos_]; }
  bool has_value() const { return defs_[level_pos_] == leaf_->max_def; }
  /// Moves past the current triplet (after Peek returned true).
  void Advance() {
    if (defs_[level_pos_] == leaf_->max_def) ++value_pos_;
    ++level_pos_;
  }

  /// Whether the current page has triplets left (Peek() loads the next page).
  bool page_has_more() const { return level_pos_ < page_levels_; }

  /// Moves up to `n` triplets of the current page into out[0], out[stride],
  /// out[2 * stride], ...: the value, or null where the definition level is
  /// below the maximum. Only for leaves without repetition. Returns the number
  /// moved; 0 only when the page has none left.
  size_t TakeFlat(size_t n, types::Value* out, size_t stride) {
    const size_t k = std::min(n, page_levels_ - level_pos_);
    const types::Value* v = values_.data() + value_pos_;
    if (leaf_->max_def == 0) {
      for (size_t i = 0; i < k; ++i) out[i * stride] = v[i];
      value_pos_ += k;
    } else {
      const int16_t* d = defs_.data() + level_pos_;
      const int16_t max_def = leaf_->max_def;
      size_t taken = 0;
      for (size_t i = 0; i < k; ++i) {
        if (d[i] == max_def) {
          out[i * stride] = v[taken++];
        } else {
          out[i * stride] = types::Value();
        }
      }
      value_pos_ += taken;
    }
    level_pos_ += k;
    return k;
  }

  const ReaderLeaf& leaf() const { return *leaf_; }

 private:
  Result<bool> LoadNextPage();
  Status ReadDictionaryPage(const PageHeader& header, std::span<const uint8_t> body);
  Status ReadDataPageV1(const PageHeader& header, std::span<const uint8_t> body);
  Status ReadDataPageV2(const PageHeader& header, std::span<const uint8_t> body);
  Status DecodeLevels(Encoding encoding, int16_t max_level, std::span<const uint8_t> data, size_t n,
                      bool length_prefixed, std::vector<int16_t>* out, size_t* consumed);
  Status DecodeValues(Encoding encoding, std::span<const uint8_t> data, size_t n);
  Result<std::span<const uint8_t>> Decompress(std::span<const uint8_t> in, size_t uncompressed_size,
                                              ByteBuffer* buffer);

  const ReaderLeaf* leaf_;
  PageLimits limits_;
  ValueDecoder decoder_;
  CompressionCodec codec_ = CompressionCodec::kUncompressed;
  int64_t chunk_values_ = 0;
  int64_t values_seen_ = 0;
  uint64_t chunk_offset_ = 0;  ///< file offset of chunk_[0]
  std::vector<uint8_t> chunk_;
  size_t pos_ = 0;
  ByteBuffer dictionary_bytes_;
  Arena dictionary_arena_{4096};
  std::vector<types::Value> dictionary_;
  bool has_dictionary_ = false;
  ByteBuffer page_bytes_;
  Arena page_arena_{16 * 1024};
  std::vector<int16_t> defs_;
  std::vector<int16_t> reps_;
  std::vector<types::Value> values_;
  size_t page_levels_ = 0;
  size_t level_pos_ = 0;
  size_t value_pos_ = 0;
};

}  // namespace floe::format::parquet
