// Fuzzes the Puffin reader and the deletion vector decoder
// (floe/iceberg/puffin/): the input is read three ways — as a whole Puffin
// file (footer, then every blob the footer lists decoded as a deletion
// vector), as a deletion-vector-v1 blob, and as the 64-bit Roaring bitmap
// inside a blob whose length, magic and CRC-32 are made valid around it (so
// that the fuzzer reaches the bitmaps past the CRC). Nothing may crash, hang
// or allocate without bound; errors are fine. Accepted vectors must answer
// Contains, and re-encode to a vector with the same answers. Seeds and crash
// regressions: tests/fuzz/puffin/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checks.h"
#include "floe/format/avro/data_file.h"
#include "floe/format/compression/compression.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/puffin/puffin_file.h"

namespace {

using floe::fuzz::Accepted;
using floe::fuzz::Check;
using floe::iceberg::DeletionVector;

void AppendU32BE(uint32_t v, std::string* out) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// A deletion-vector-v1 blob around `vector` (count, keys and bitmaps).
std::string Envelope(std::span<const uint8_t> vector) {
  std::string checked = "\xD1\xD3\x39\x64";
  checked.append(reinterpret_cast<const char*>(vector.data()), vector.size());
  std::string blob;
  AppendU32BE(static_cast<uint32_t>(checked.size()), &blob);
  blob += checked;
  AppendU32BE(floe::format::compression::Crc32(Bytes(checked)), &blob);
  return blob;
}

void Exercise(const DeletionVector& dv) {
  const int64_t probes[] = {0, 1, 2, 65535, 65536, 1 << 20, int64_t{1} << 32, INT64_MAX, -1};
  std::vector<int64_t> present;
  for (int64_t p : probes) {
    if (dv.Contains(p)) present.push_back(p);
  }
  Check(!dv.Contains(-1));
  Check(dv.cardinality() >= 0);
  // The positions found re-encode to a vector holding exactly them.
  auto again = DeletionVector::Decode(Bytes(DeletionVector::Encode(present)), "re-encoded");
  Check(again.has_value());
  Check(again->cardinality() == static_cast<int64_t>(present.size()));
  for (int64_t p : present) Check(again->Contains(p));
}

void DecodeBlob(std::span<const uint8_t> blob) {
  auto dv = DeletionVector::Decode(blob, "fuzz");
  if (Accepted(dv)) Exercise(*dv);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  DecodeBlob(input);
  DecodeBlob(Bytes(Envelope(input)));

  floe::format::avro::MemoryInputFile file("fuzz.puffin",
                                           std::string(reinterpret_cast<const char*>(data), size));
  auto footer = floe::iceberg::ReadPuffinFooter(file);
  if (!Accepted(footer)) return 0;
  for (const auto& blob : footer->blobs) {
    Check(blob.offset >= 4 && blob.length >= 0);
    Check(static_cast<uint64_t>(blob.offset + blob.length) <= size);
    auto bytes = floe::iceberg::ReadPuffinBlob(file, blob.offset, blob.length);
    Check(bytes.has_value());
    DecodeBlob(*bytes);
  }
  return 0;
}
