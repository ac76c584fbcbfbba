#include "floe/iceberg/puffin/deletion_vector.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <cctype>

#include "floe/format/compression/compression.h"
#include "floe/iceberg/puffin/puffin_file.h"

namespace floe::iceberg {

namespace {

constexpr uint8_t kMagic[4] = {0xD1, 0xD3, 0x39, 0x64};
constexpr size_t kLengthSize = 4;
constexpr size_t kMagicSize = 4;
constexpr size_t kCrcSize = 4;
constexpr size_t kCountSize = 8;
constexpr size_t kKeySize = 4;
/// The smallest 32-bit portable bitmap: a cookie and a container count.
constexpr size_t kMinBitmapSize = 8;
constexpr uint32_t kMaxKey = 0x7FFFFFFF;  ///< positions are positive 64-bit numbers

uint32_t ReadU32BE(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

uint32_t ReadU32LE(const uint8_t* p) {
  return (uint32_t{p[3]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | uint32_t{p[0]};
}

uint64_t ReadU64LE(const uint8_t* p) { return (uint64_t{ReadU32LE(p + 4)} << 32) | ReadU32LE(p); }

void AppendU32BE(uint32_t v, std::string* out) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void AppendLE(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

void DeletionVector::BitmapDeleter::operator()(roaring_bitmap_s* bitmap) const {
  roaring_bitmap_free(bitmap);
}

DeletionVector::DeletionVector() = default;
DeletionVector::DeletionVector(DeletionVector&&) noexcept = default;
DeletionVector& DeletionVector::operator=(DeletionVector&&) noexcept = default;
DeletionVector::~DeletionVector() = default;

bool IsDeletionVector(const DataFile& file) {
  if (file.content != DataFileContent::kPositionDeletes) return false;
  return std::equal(
      file.file_format.begin(), file.file_format.end(), kFormatPuffin.begin(), kFormatPuffin.end(),
      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

Result<DeletionVector> DeletionVector::Decode(std::span<const uint8_t> blob,
                                              const std::string& source) {
  if (blob.size() < kLengthSize + kMagicSize + kCountSize + kCrcSize) {
    return Corruption("deletion vector {}: {} bytes is too short", source, blob.size());
  }
  const uint32_t length = ReadU32BE(blob.data());
  if (length != blob.size() - kLengthSize - kCrcSize) {
    return Corruption("deletion vector {}: length {} does not match the blob's {} bytes", source,
                      length, blob.size());
  }
  const std::span<const uint8_t> checked = blob.subspan(kLengthSize, length);
  if (!std::equal(checked.begin(), checked.begin() + kMagicSize, kMagic)) {
    return Corruption("deletion vector {}: bad magic", source);
  }
  const uint32_t expected_crc = ReadU32BE(blob.data() + kLengthSize + length);
  const uint32_t crc = format::compression::Crc32(checked);
  if (crc != expected_crc) {
    return Corruption("deletion vector {}: CRC-32 {:08x} does not match the stored {:08x}", source,
                      crc, expected_crc);
  }
  std::span<const uint8_t> vector = checked.subspan(kMagicSize);
  const uint64_t count = ReadU64LE(vector.data());
  vector = vector.subspan(kCountSize);
  if (count > vector.size() / (kKeySize + kMinBitmapSize)) {
    return Corruption("deletion vector {}: {} bitmaps cannot fit in {} bytes", source, count,
                      vector.size());
  }
  DeletionVector dv;
  dv.parts_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (vector.size() < kKeySize) {
      return Corruption("deletion vector {}: truncated at bitmap {}", source, i);
    }
    const uint32_t key = ReadU32LE(vector.data());
    vector = vector.subspan(kKeySize);
    if (key > kMaxKey) {
      return Corruption("deletion vector {}: key {} sets the sign bit of positions", source, key);
    }
    if (!dv.parts_.empty() && key <= dv.parts_.back().key) {
      return Corruption("deletion vector {}: bitmap keys are not ascending ({} after {})", source,
                        key, dv.parts_.back().key);
    }
    const char* bytes = reinterpret_cast<const char*>(vector.data());
    // The extent first (it reads nothing beyond `vector`), then the bitmap
    // itself, bounded by that extent.
    const size_t size = roaring_bitmap_portable_deserialize_size(bytes, vector.size());
    if (size == 0 || size > vector.size()) {
      return Corruption("deletion vector {}: bitmap {} (key {}) is not a valid Roaring bitmap",
                        source, i, key);
    }
    std::unique_ptr<roaring_bitmap_s, BitmapDeleter> bitmap(
        roaring_bitmap_portable_deserialize_safe(bytes, size));
    if (bitmap == nullptr) {
      return Corruption("deletion vector {}: bitmap {} (key {}) is not a valid Roaring bitmap",
                        source, i, key);
    }
    dv.cardinality_ += static_cast<int64_t>(roaring_bitmap_get_cardinality(bitmap.get()));
    dv.parts_.push_back(Part{key, std::move(bitmap)});
    vector = vector.subspan(size);
  }
  if (!vector.empty()) {
    return Corruption("deletion vector {}: {} bytes after the last bitmap", source, vector.size());
  }
  return dv;
}

Result<DeletionVector> DeletionVector::Read(io::FileIO& io, const DataFile& dv) {
  const std::string& path = dv.file_path;
  if (!IsDeletionVector(dv)) {
    return InvalidArgument("delete file {} is not a deletion vector", path);
  }
  if (!dv.referenced_data_file || !dv.content_offset || !dv.content_size_in_bytes) {
    return Corruption(
        "deletion vector in {} lacks referenced_data_file, content_offset or "
        "content_size_in_bytes",
        path);
  }
  FLOE_ASSIGN_OR_RETURN(auto input, io.OpenInput(path));
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> blob,
                        ReadPuffinBlob(*input, *dv.content_offset, *dv.content_size_in_bytes));
  const std::string source = fmt::format("{} at offset {}", path, *dv.content_offset);
  FLOE_ASSIGN_OR_RETURN(DeletionVector vector, Decode(blob, source));
  if (vector.cardinality() != dv.record_count) {
    return Corruption("deletion vector {}: {} positions but the manifest says {}", source,
                      vector.cardinality(), dv.record_count);
  }
  return vector;
}

std::string DeletionVector::Encode(std::span<const int64_t> positions, int64_t* cardinality) {
  std::vector<int64_t> sorted(positions.begin(), positions.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (cardinality != nullptr) *cardinality = static_cast<int64_t>(sorted.size());
  std::string vector(reinterpret_cast<const char*>(kMagic), kMagicSize);
  std::string bitmaps;
  uint64_t count = 0;
  std::vector<uint32_t> low;
  for (size_t i = 0; i < sorted.size();) {
    const auto key = static_cast<uint32_t>(static_cast<uint64_t>(sorted[i]) >> 32);
    low.clear();
    for (; i < sorted.size() && static_cast<uint64_t>(sorted[i]) >> 32 == key; ++i) {
      low.push_back(static_cast<uint32_t>(sorted[i]));
    }
    roaring_bitmap_t* bitmap = roaring_bitmap_of_ptr(low.size(), low.data());
    roaring_bitmap_run_optimize(bitmap);
    std::string bytes(roaring_bitmap_portable_size_in_bytes(bitmap), '\0');
    roaring_bitmap_portable_serialize(bitmap, bytes.data());
    roaring_bitmap_free(bitmap);
    AppendLE(key, 4, &bitmaps);
    bitmaps += bytes;
    ++count;
  }
  AppendLE(count, 8, &vector);
  vector += bitmaps;
  std::string blob;
  AppendU32BE(static_cast<uint32_t>(vector.size()), &blob);
  blob += vector;
  AppendU32BE(format::compression::Crc32(std::span<const uint8_t>(
                  reinterpret_cast<const uint8_t*>(vector.data()), vector.size())),
              &blob);
  return blob;
}

void DeletionVector::AppendPositions(std::vector<int64_t>* out) const {
  out->reserve(out->size() + static_cast<size_t>(cardinality_));
  std::vector<uint32_t> low;
  for (const Part& part : parts_) {
    low.resize(roaring_bitmap_get_cardinality(part.bitmap.get()));
    roaring_bitmap_to_uint32_array(part.bitmap.get(), low.data());
    const int64_t high = static_cast<int64_t>(uint64_t{part.key} << 32);
    for (uint32_t l : low) out->push_back(high | static_cast<int64_t>(l));
  }
}

bool DeletionVector::Contains(int64_t position) const {
  if (position < 0) return false;
  const auto key = static_cast<uint32_t>(static_cast<uint64_t>(position) >> 32);
  auto it = std::lower_bound(parts_.begin(), parts_.end(), key,
                             [](const Part& p, uint32_t k) { return p.key < k; });
  if (it == parts_.end() || it->key != key) return false;
  return roaring_bitmap_contains(it->bitmap.get(), static_cast<uint32_t>(position));
}

}  // namespace floe::iceberg
