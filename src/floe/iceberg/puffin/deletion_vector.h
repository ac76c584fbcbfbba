#pragma once
/// Deletion vectors (format spec "Deletion Vectors"; Puffin blob type
/// `deletion-vector-v1`): the deleted row positions of one data file as a
/// bitmap, in v3 tables the form position deletes take.
///
/// The blob, located by the delete file's `content_offset` and
/// `content_size_in_bytes` in the Puffin file at its `file_path`:
///
///   length   4 bytes big-endian: the bytes of magic + vector
///   magic    D1 D3 39 64
///   vector   64-bit Roaring bitmap, portable format: a count of 32-bit
///            bitmaps (8 bytes little-endian), then for each, ascending by
///            key, its key (the high 32 bits of the positions, 4 bytes LE)
///            and a 32-bit Roaring bitmap in the portable format
///   CRC-32   of magic + vector, 4 bytes big-endian
///
/// The 32-bit bitmaps are decoded by CRoaring (Debian's libroaring), after
/// their extent is checked against the blob. Positions are tested in place
/// (no per-position memory). Errors name the Puffin file: kCorruption for a
/// bad length, magic, CRC, bitmap, key order (keys must ascend and leave the
/// sign bit clear), trailing bytes, or a cardinality other than the delete
/// file's record_count. Immutable after decoding; Contains is thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/io/file_io.h"

struct roaring_bitmap_s;

namespace floe::iceberg {

/// The Puffin blob type of deletion vectors.
inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";
/// Blob properties a deletion vector carries.
inline constexpr std::string_view kDeletionVectorReferencedDataFile = "referenced-data-file";
inline constexpr std::string_view kDeletionVectorCardinality = "cardinality";

/// Whether `file` is a deletion vector (a position delete file in Puffin
/// format; the format name in any case).
bool IsDeletionVector(const DataFile& file);

class DeletionVector {
 public:
  DeletionVector();
  DeletionVector(DeletionVector&&) noexcept;
  DeletionVector& operator=(DeletionVector&&) noexcept;
  ~DeletionVector();

  /// Decodes a `deletion-vector-v1` blob (all of its bytes). `source` names
  /// the blob in errors (file path and offset). Errors: kCorruption.
  static Result<DeletionVector> Decode(std::span<const uint8_t> blob, const std::string& source);

  /// Reads the deletion vector `dv` (a delete file of content position
  /// deletes in Puffin format, with referenced_data_file, content_offset and
  /// content_size_in_bytes) and checks that it holds `dv.record_count`
  /// positions. Errors: kCorruption (missing fields, bad blob, count
  /// mismatch), kNotFound, kIo.
  static Result<DeletionVector> Read(io::FileIO& io, const DataFile& dv);

  /// The blob bytes of a deletion vector of `positions` (any order,
  /// duplicates allowed; each in [0, 2^63)); sets `*cardinality` (if given)
  /// to the number of distinct positions.
  static std::string Encode(std::span<const int64_t> positions, int64_t* cardinality = nullptr);

  /// Appends the deleted positions, ascending, to `*out` (to merge a data
  /// file's earlier vector into a new one).
  void AppendPositions(std::vector<int64_t>* out) const;

  /// Whether row `position` is deleted.
  bool Contains(int64_t position) const;
  /// Number of deleted positions.
  int64_t cardinality() const { return cardinality_; }
  bool empty() const { return cardinality_ == 0; }

 private:
  struct BitmapDeleter {
    void operator()(roaring_bitmap_s* bitmap) const;
  };
  struct Part {
    uint32_t key;  ///< high 32 bits of the positions
    std::unique_ptr<roaring_bitmap_s, BitmapDeleter> bitmap;
  };
  std::vector<Part> parts_;  ///< ascending by key
  int64_t cardinality_ = 0;
};

}  // namespace floe::iceberg
