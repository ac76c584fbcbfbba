// Parses arbitrary bytes as a Parquet footer (FileMetaData) and as a page
// header; both must fail cleanly or succeed, and what parses must serialize
// and parse back to the same structure.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/page_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  auto metadata = floe::format::parquet::ParseFileMetaData(bytes);
  if (metadata) {
    floe::ByteBuffer out;
    if (floe::format::parquet::SerializeFileMetaData(*metadata, &out)) {
      auto again = floe::format::parquet::ParseFileMetaData(out.span());
      if (!again || !(*again == *metadata)) std::abort();
    }
  }
  size_t consumed = 0;
  auto header = floe::format::parquet::ParsePageHeader(bytes, &consumed);
  if (header) {
    if (consumed > size) std::abort();
    floe::ByteBuffer out;
    floe::format::parquet::SerializePageHeader(*header, &out);
    size_t consumed2 = 0;
    auto again = floe::format::parquet::ParsePageHeader(out.span(), &consumed2);
    if (!again || !(*again == *header) || consumed2 != out.size()) std::abort();
  }
  return 0;
}
