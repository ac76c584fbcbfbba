#pragma once
/// One leaf column of a row group being written: buffers definition and
/// repetition levels and values for the current page, encodes and compresses
/// full pages into the column chunk, and keeps the chunk's dictionary and
/// statistics. The ParquetWriter feeds it shredded values and asks it to cut
/// pages at row boundaries. Buffers are reused across pages and row groups, so
/// steady state allocates nothing per value. A page is assembled and
/// compressed in scratch buffers of the calling thread, shared by every
/// column writer on it (a page's bytes are copied out before FlushPage
/// returns): a column holds its buffered page, never a second and third copy
/// of it. Not thread-safe.
///
/// Encodings (what pyarrow writes for data page v1): values go through a
/// dictionary (RLE_DICTIONARY data pages, one PLAIN dictionary page first in
/// the chunk) until the dictionary's PLAIN size passes the limit; then the page
/// is cut and the rest of the chunk is PLAIN. A chunk also turns PLAIN after
/// its first page if that page's indices plus the dictionary are no smaller
/// than its values PLAIN (parquet-mr's test) and the page's repeated values
/// predict more distinct values than the limit holds: a column of mostly
/// distinct values (keys, timestamps, e-mail addresses) then never fills a
/// dictionary whose every probe misses cache, while one of 100,000 codes keeps
/// it. After a later page, a dictionary grown past a page
/// (`page_size_bytes`) that has not paid for itself over the chunk so far
/// (indices plus dictionary no smaller than the values PLAIN) gives up too.
/// BOOLEAN is always PLAIN. Levels are RLE/bit-packed hybrid
/// (length-prefixed in v1 pages).

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/parquet/encoder.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/rle_encoder.h"
#include "floe/format/parquet/schema_mapping.h"
#include "floe/format/parquet/statistics.h"

namespace floe::format::parquet {

struct ColumnWriterOptions {
  CompressionCodec codec = CompressionCodec::kZstd;
  int compression_level = 0;         ///< 0: the codec's default (compression.h)
  size_t page_size_bytes = 1 << 20;  ///< cut a page past this many encoded bytes
  size_t page_row_limit = 20000;     ///< ... or this many rows
  size_t dict_size_bytes = 2 << 20;  ///< fall back to PLAIN past this dictionary size
  bool dictionary_enabled = true;
  int data_page_version = 1;  ///< 1 or 2
};

/// One data page as buffered: header and body, in a block of exactly its
/// size (a chunk buffer grown by doubling held up to twice its bytes).
struct PageBytes {
  std::unique_ptr<uint8_t[]> data;
  size_t size = 0;
  std::span<const uint8_t> span() const { return {data.get(), size}; }
};

/// A column chunk ready to be written: dictionary page (may be empty) then data pages.
struct ColumnChunkBytes {
  std::span<const uint8_t> dictionary_page;  ///< header + body, or empty
  std::span<const PageBytes> data_pages;     ///< in order, each header + body
};

class ColumnWriter {
 public:
  ColumnWriter(const LeafColumn& leaf, const ColumnWriterOptions& options);

  const LeafColumn& leaf() const { return leaf_; }

  // One value (or null) per call, with its levels. The caller guarantees the
  // value fits the column type.
  void AppendNull(int16_t def, int16_t rep) {
    PutLevels(def, rep);
    ++page_nulls_;
  }
  void AppendBool(bool v, int16_t def, int16_t rep);
  void AppendInt32(int32_t v, int16_t def, int16_t rep);
  void AppendInt64(int64_t v, int16_t def, int16_t rep);
  void AppendFloat(float v, int16_t def, int16_t rep);
  void AppendDouble(double v, int16_t def, int16_t rep);
  /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (length already checked).
  void AppendBytes(std::string_view v, int16_t def, int16_t rep);
  /// A decimal stored as FIXED_LEN_BYTE_ARRAY.
  void AppendDecimal(types::int128_t v, int16_t def, int16_t rep);

  /// Called at a row boundary: cuts a page if the current one is full.
  Status EndRow() {
    ++page_rows_;
    if (page_rows_ >= options_.page_row_limit || BufferedPageBytes() >= options_.page_size_bytes ||
        DictionaryFull()) {
      return FlushPage();
    }
    return Ok();
  }

  /// Encodes and compresses the buffered page into the chunk (no-op if empty).
  Status FlushPage();

  /// Bytes the chunk would take if closed now (compressed pages plus the
  /// buffered page and dictionary uncompressed): for row-group sizing.
  size_t EstimatedChunkBytes() const {
    return chunk_size_ + BufferedPageBytes() + DictionaryBytes();
  }
  /// Bytes of the dictionary's hash table: memory beside the chunk that
  /// EstimatedChunkBytes does not count (it is not written), freed when the
  /// chunk falls back to PLAIN and, past its initial size, by Reset.
  size_t DictionaryTableBytes() const;

  /// Flushes the last page and builds the dictionary page. After this,
  /// `chunk_bytes()` and `FillMetaData()` describe the chunk until `Reset()`.
  Status FinishChunk();
  ColumnChunkBytes chunk_bytes() const;
  /// Fills `meta` for a chunk whose first byte is at file offset `offset`.
  void FillMetaData(int64_t offset, ColumnMetaData* meta) const;
  /// The chunk's statistics (valid after FinishChunk until Reset).
  const ColumnStatistics& statistics() const { return stats_; }
  int64_t chunk_num_values() const { return chunk_values_; }
  int64_t chunk_compressed_size() const {
    return static_cast<int64_t>(dict_page_.size() + chunk_size_);
  }

  /// Starts the next row group's chunk, keeping memory.
  void Reset();

 private:
  void PutLevels(int16_t def, int16_t rep) {
    if (leaf_.max_definition_level > 0) def_encoder_.Put(static_cast<uint16_t>(def));
    if (leaf_.max_repetition_level > 0) {
      rep_encoder_.Put(static_cast<uint16_t>(rep));
      if (rep == 0) ++page_row_starts_;
    }
    ++page_values_;
  }
  bool dictionary_active() const { return use_dictionary_ && !fallback_; }
  size_t BufferedPageBytes() const {
    return def_levels_.size() + rep_levels_.size() + (indices_.size() + pending_) * 4 +
           plain_.size();
  }
  size_t DictionaryBytes() const;
  /// After a dictionary page (`index_bytes` its encoded indices): false if
  /// the rest of the chunk should be PLAIN. After the first page, the page
  /// decides (parquet-mr's test, and the repeats' prediction); after later
  /// ones, a dictionary larger than a page must have paid for itself over
  /// the chunk.
  bool DictionaryWorthKeeping(size_t index_bytes) const;
  bool DictionaryFull() const {
    return dictionary_active() && DictionaryBytes() > options_.dict_size_bytes;
  }
  void AppendIndex(uint32_t index) { indices_.push_back(index); }
  // Dictionary mode: resolves the pending value, then makes this one pending
  // (`plain_size`: its PLAIN size).
  void PutNumeric(uint64_t bits, size_t plain_size);
  void PutBytes(const uint8_t* p, uint32_t n, size_t plain_size);
  void ResolvePending();
  Status WritePage(std::span<const uint8_t> levels_rep, std::span<const uint8_t> levels_def,
                   Encoding encoding);
  void AddEncoding(Encoding e);

  const LeafColumn& leaf_;
  ColumnWriterOptions options_;

  // The page being filled.
  ByteBuffer def_levels_, rep_levels_;
  RleBitPackedEncoder def_encoder_, rep_encoder_;
  std::vector<uint32_t> indices_;  // dictionary mode
  ByteBuffer plain_;               // PLAIN mode (booleans: bit-packed)
  int bool_bits_ = 0;              // booleans buffered in the last byte of plain_
  size_t page_values_ = 0;
  size_t page_nulls_ = 0;
  size_t page_rows_ = 0;
  size_t page_row_starts_ = 0;   // rows whose first entry is in this page (rep == 0)
  size_t page_plain_bytes_ = 0;  // PLAIN size of the page's dictionary-encoded values
  // In dictionary mode a value is looked up when the column's next value
  // comes (or the page is cut): its slot is prefetched on arrival, and the rest
  // of the row gives the load time to finish, so probes of a large dictionary
  // do not stall on cache misses.
  bool pending_ = false;
  bool pending_is_decimal_ = false;
  uint64_t pending_bits_ = 0;  // the numeric value's bits, or the bytes' hash
  ByteBuffer pending_bytes_;   // a copy: the caller's bytes may not outlive the call
  types::int128_t pending_decimal_ = 0;

  // The chunk.
  std::unique_ptr<NumericDictionary> numeric_dict_;
  std::unique_ptr<BytesDictionary> bytes_dict_;
  bool use_dictionary_ = false;  // enabled, and not BOOLEAN
  bool fallback_ = false;
  int dictionary_pages_ = 0;      // data pages written with RLE_DICTIONARY
  size_t chunk_index_bytes_ = 0;  // their encoded indices
  size_t chunk_plain_bytes_ = 0;  // ... and the PLAIN size of their values
  std::vector<PageBytes> pages_;  // the chunk's data pages
  size_t chunk_size_ = 0;         // their bytes
  ByteBuffer dict_page_;          // dictionary page header and body
  int64_t chunk_values_ = 0;
  int64_t chunk_uncompressed_ = 0;
  std::vector<Encoding> encodings_;
  ColumnStatistics stats_;
  uint8_t decimal_scratch_[16] = {};
};

}  // namespace floe::format::parquet
