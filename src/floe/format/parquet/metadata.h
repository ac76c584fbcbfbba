#pragma once
/// The Parquet footer and page-header structures floe reads and writes, with
/// the field ids of apache/parquet-format's src/main/thrift/parquet.thrift,
/// and their Thrift compact-protocol serialization.
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

namespace floe::format::parquet {

/// Physical types.
enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

/// Legacy logical annotations (superseded by LogicalType, still written for
/// compatibility).
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  ///< deprecated Hadoop-framed LZ4
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

/// The TimeUnit union; the value is the union member's field id.
enum class TimeUnit : int32_t {
  kMillis = 1,
  kMicros = 2,
  kNanos = 3,
};

/// The LogicalType union. `kind` is the union member's field id in the spec;
/// members floe does not model (VARIANT, GEOMETRY, ...) keep their field id.
struct LogicalType {
  enum class Kind : int16_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  ///< the spec's NullType: always null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
  };
  Kind kind = Kind::kString;
  // DECIMAL
  int32_t scale = 0;
  int32_t precision = 0;
  // TIME, TIMESTAMP
  bool is_adjusted_to_utc = false;
  TimeUnit unit = TimeUnit::kMicros;
  // INTEGER
  int8_t bit_width = 0;
  bool is_signed = true;

  static LogicalType String() { return {Kind::kString}; }
  static LogicalType Map() { return {Kind::kMap}; }
  static LogicalType List() { return {Kind::kList}; }
  static LogicalType Date() { return {Kind::kDate}; }
  static LogicalType Uuid() { return {Kind::kUuid}; }
  static LogicalType Decimal(int32_t precision, int32_t scale) {
    LogicalType t{Kind::kDecimal};
    t.precision = precision;
    t.scale = scale;
    return t;
  }
  static LogicalType Time(bool utc, TimeUnit unit) {
    LogicalType t{Kind::kTime};
    t.is_adjusted_to_utc = utc;
    t.unit = unit;
    return t;
  }
  static LogicalType Timestamp(bool utc, TimeUnit unit) {
    LogicalType t{Kind::kTimestamp};
    t.is_adjusted_to_utc = utc;
    t.unit = unit;
    return t;
  }
  static LogicalType Integer(int8_t bit_width, bool is_signed) {
    LogicalType t{Kind::kInteger};
    t.bit_width = bit_width;
    t.is_signed = is_signed;
    return t;
  }
  bool operator==(const LogicalType&) const = default;
};

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

/// The ColumnOrder union; the value is the union member's field id.
enum class ColumnOrder : int32_t {
  kTypeDefinedOrder = 1,
  kIeee754TotalOrder = 2,
  kInt96TimestampOrder = 3,
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

/// Appends the compact-protocol encoding of `metadata` (the footer, without
/// the length and magic). kInvalidArgument if a value cannot be encoded (e.g.
/// a list longer than 2^31 - 1).
Status SerializeFileMetaData(const FileMetaData& metadata, ByteBuffer* out);

/// Parses a footer. kCorruption (with the byte offset) on malformed bytes or a
/// missing required field. Unknown fields are skipped.
Result<FileMetaData> ParseFileMetaData(std::span<const uint8_t> bytes);

/// Appends the compact-protocol encoding of a page header.
void SerializePageHeader(const PageHeader& header, ByteBuffer* out);

/// Parses a page header at the start of `bytes`; `*consumed` receives its
/// length. kCorruption on malformed or truncated bytes.
Result<PageHeader> ParsePageHeader(std::span<const uint8_t> bytes, size_t* consumed);

/// Spec names for printing: "INT32", "RLE_DICTIONARY", "ZSTD", "DATA_PAGE_V2",
/// "OPTIONAL", "UTF8"; unknown values print as "UNKNOWN(<n>)".
std::string TypeName(Type type);
std::string ConvertedTypeName(ConvertedType type);
std::string RepetitionName(FieldRepetitionType repetition);
std::string EncodingName(Encoding encoding);
std::string CodecName(CompressionCodec codec);
std::string PageTypeName(PageType type);
/// "STRING", "DECIMAL(9,2)", "TIMESTAMP(MICROS,true)", "INTEGER(16,false)".
std::string LogicalTypeToString(const LogicalType& type);

}  // namespace floe::format::parquet
