#pragma once
/// The Parquet footer structures floe reads and writes, with the field ids of
/// apache/parquet-format's src/main/thrift/parquet.thrift, and their Thrift
/// compact-protocol serialization. The enumerations are in metadata_enums.h,
/// LogicalType in logical_type.h, the page headers in page_header.h.
///
/// Names follow the spec (snake_case fields; enum values as kPascalCase of the
/// spec's names, with the spec's numeric values). Enum values read from a file
/// are stored as read, even when floe does not know them; readers check them
/// where they matter. Optional spec fields are std::optional. Fields the spec
/// has that floe does not model (encryption, size statistics, geospatial) are
/// skipped when parsing and never written.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/bytes.h"
#include "floe/common/result.h"
#include "floe/format/parquet/logical_type.h"
#include "floe/format/parquet/metadata_enums.h"

namespace floe::format::parquet {

struct Statistics {
  std::optional<std::string> max;  ///< deprecated, signed order
  std::optional<std::string> min;  ///< deprecated, signed order
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;  ///< PLAIN bytes, no length prefix for BYTE_ARRAY
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  std::optional<int64_t> nan_count;
  bool operator==(const Statistics&) const = default;
};

struct SchemaElement {
  std::optional<Type> type;  ///< leaves only
  std::optional<int32_t> type_length;
  std::optional<FieldRepetitionType> repetition_type;  ///< all but the root
  std::string name;
  std::optional<int32_t> num_children;  ///< groups only
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;  ///< thrift field 10 "logicalType"
  bool operator==(const SchemaElement&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct SortingColumn {
  int32_t column_idx = 0;
  bool descending = false;
  bool nulls_first = false;
  bool operator==(const SortingColumn&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
  bool operator==(const PageEncodingStats&) const = default;
};

struct ColumnMetaData {
  Type type = Type::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::optional<std::vector<KeyValue>> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::optional<std::vector<PageEncodingStats>> encoding_stats;
  std::optional<int64_t> bloom_filter_offset;
  std::optional<int32_t> bloom_filter_length;
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<std::vector<SortingColumn>> sorting_columns;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  ///< depth-first, root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::optional<std::vector<KeyValue>> key_value_metadata;
  std::optional<std::string> created_by;
  std::optional<std::vector<ColumnOrder>> column_orders;  ///< one per leaf column
  bool operator==(const FileMetaData&) const = default;
};

/// Appends the compact-protocol encoding of `metadata` (the footer, without
/// the length and magic). kInvalidArgument if a value cannot be encoded (e.g.
/// a list longer than 2^31 - 1).
Status SerializeFileMetaData(const FileMetaData& metadata, ByteBuffer* out);

/// Parses a footer. kCorruption (with the byte offset) on malformed bytes or a
/// missing required field. Unknown fields are skipped.
Result<FileMetaData> ParseFileMetaData(std::span<const uint8_t> bytes);

}  // namespace floe::format::parquet
