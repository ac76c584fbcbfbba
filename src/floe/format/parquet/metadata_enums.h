#pragma once
/// The enumerations of Parquet's metadata (apache/parquet-format's
/// src/main/thrift/parquet.thrift): physical types, converted types,
/// repetition, encodings, codecs, page types and column orders, with their
/// spec names for printing.
///
/// Names follow the spec (snake_case fields; enum values as kPascalCase of the
/// spec's names, with the spec's numeric values). Enum values read from a file
/// are stored as read, even when floe does not know them; readers check them
/// where they matter.

#include <cstdint>
#include <string>

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

/// The ColumnOrder union; the value is the union member's field id.
enum class ColumnOrder : int32_t {
  kTypeDefinedOrder = 1,
  kIeee754TotalOrder = 2,
  kInt96TimestampOrder = 3,
};

/// Spec names for printing: "INT32", "RLE_DICTIONARY", "ZSTD", "DATA_PAGE_V2",
/// "OPTIONAL", "UTF8"; unknown values print as "UNKNOWN(<n>)".
std::string TypeName(Type type);
std::string ConvertedTypeName(ConvertedType type);
std::string RepetitionName(FieldRepetitionType repetition);
std::string EncodingName(Encoding encoding);
std::string CodecName(CompressionCodec codec);
std::string PageTypeName(PageType type);

}  // namespace floe::format::parquet
