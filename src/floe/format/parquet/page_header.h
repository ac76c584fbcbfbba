#pragma once
/// Parquet page headers (apache/parquet-format's src/main/thrift/parquet.thrift):
/// the header before each data and dictionary page of a column chunk, and its
/// Thrift compact-protocol serialization. Optional spec fields are
/// std::optional; fields floe does not model are skipped when parsing and
/// never written.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/parquet/metadata.h"

namespace floe::format::parquet {

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  std::optional<bool> is_compressed;  ///< absent means true
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

/// Appends the compact-protocol encoding of a page header.
void SerializePageHeader(const PageHeader& header, ByteBuffer* out);

/// Parses a page header at the start of `bytes`; `*consumed` receives its
/// length. kCorruption on malformed or truncated bytes.
Result<PageHeader> ParsePageHeader(std::span<const uint8_t> bytes, size_t* consumed);

}  // namespace floe::format::parquet
