#pragma once
/// The Avro side of manifests and manifest lists: the writer schemas with the
/// spec's field names and ids (format spec "Manifests", "Manifest Lists"), the
/// Iceberg-to-Avro type mapping of Appendix A for partition tuples, and the
/// conversion of partition values between `Literal` and `format::avro::Datum`.
/// Used by manifest.cc and manifest_list.cc; public so tests can check the
/// schemas field by field. See docs/iceberg-manifests.md.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/avro/data_file.h"
#include "floe/format/avro/datum.h"
#include "floe/format/avro/schema.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/types/type.h"

namespace floe::iceberg {

/// Field ids of manifest_entry and data_file (spec "Manifests").
namespace manifest_field {
inline constexpr int32_t kStatus = 0;
inline constexpr int32_t kSnapshotId = 1;
inline constexpr int32_t kDataFile = 2;
inline constexpr int32_t kSequenceNumber = 3;
inline constexpr int32_t kFileSequenceNumber = 4;
inline constexpr int32_t kFilePath = 100;
inline constexpr int32_t kFileFormat = 101;
inline constexpr int32_t kPartition = 102;
inline constexpr int32_t kRecordCount = 103;
inline constexpr int32_t kFileSizeInBytes = 104;
inline constexpr int32_t kBlockSizeInBytes = 105;  ///< v1 only
inline constexpr int32_t kColumnSizes = 108;
inline constexpr int32_t kValueCounts = 109;
inline constexpr int32_t kNullValueCounts = 110;
inline constexpr int32_t kLowerBounds = 125;
inline constexpr int32_t kUpperBounds = 128;
inline constexpr int32_t kKeyMetadata = 131;
inline constexpr int32_t kSplitOffsets = 132;
inline constexpr int32_t kContent = 134;
inline constexpr int32_t kEqualityIds = 135;
inline constexpr int32_t kNanValueCounts = 137;
inline constexpr int32_t kSortOrderId = 140;
inline constexpr int32_t kFirstRowId = 142;
inline constexpr int32_t kReferencedDataFile = 143;
inline constexpr int32_t kContentOffset = 144;
inline constexpr int32_t kContentSizeInBytes = 145;
}  // namespace manifest_field

/// Field ids of manifest_file and field_summary (spec "Manifest Lists").
namespace manifest_list_field {
inline constexpr int32_t kManifestPath = 500;
inline constexpr int32_t kManifestLength = 501;
inline constexpr int32_t kPartitionSpecId = 502;
inline constexpr int32_t kAddedSnapshotId = 503;
inline constexpr int32_t kAddedFilesCount = 504;
inline constexpr int32_t kExistingFilesCount = 505;
inline constexpr int32_t kDeletedFilesCount = 506;
inline constexpr int32_t kPartitions = 507;
inline constexpr int32_t kPartitionsElement = 508;
inline constexpr int32_t kContainsNull = 509;
inline constexpr int32_t kLowerBound = 510;
inline constexpr int32_t kUpperBound = 511;
inline constexpr int32_t kAddedRowsCount = 512;
inline constexpr int32_t kExistingRowsCount = 513;
inline constexpr int32_t kDeletedRowsCount = 514;
inline constexpr int32_t kSequenceNumber = 515;
inline constexpr int32_t kMinSequenceNumber = 516;
inline constexpr int32_t kContent = 517;
inline constexpr int32_t kContainsNan = 518;
inline constexpr int32_t kKeyMetadata = 519;
inline constexpr int32_t kFirstRowId = 520;
}  // namespace manifest_list_field

/// The value Iceberg Java writes for the deprecated v1 block_size_in_bytes.
inline constexpr int64_t kV1DefaultBlockSize = 64 * 1024 * 1024;

/// Bytes of the fixed that holds a decimal of `precision` digits (the fewest
/// bytes whose two's complement range holds 10^precision - 1).
int DecimalFixedSize(int precision);

/// `name` made a valid Avro name: the first character a letter or '_', the
/// rest letters, digits or '_'; any other character c becomes "_x" followed by
/// its code in upper-case hex (as Iceberg Java does, so readers that match by
/// name agree). Readers match manifests' partition fields by field id.
std::string AvroSafeName(std::string_view name);

/// The Avro JSON of a primitive Iceberg type, per the spec's Appendix A:
/// date int/date, time long/time-micros, timestamp(tz) long/timestamp-micros
/// with adjust-to-utc, uuid fixed(16)/uuid named "uuid_fixed", fixed[L]
/// "fixed_L", decimal(P,S) fixed named "decimal_P_S" of DecimalFixedSize(P)
/// bytes with logicalType decimal, binary bytes. Named types are defined
/// inline every time; a name already in `*defined` gets a suffix "_2", "_3"...
/// (PyIceberg cannot read references to named types; readers ignore the names).
/// Errors: kInvalidArgument for nested types.
Result<format::avro::Json> AvroTypeJson(const types::Type& type, std::set<std::string>* defined);

/// The manifest_entry schema of `format_version` (1, 2 or 3) whose
/// data_file.partition is record "r102" with one optional field per field of
/// `partition_type` (a struct: partition field ids and names).
Result<format::avro::Schema> ManifestEntryAvroSchema(int format_version,
                                                     const types::Type& partition_type);

/// The manifest_file schema of a manifest list of `format_version`.
Result<format::avro::Schema> ManifestListAvroSchema(int format_version);

/// Encodes one partition value of `type` (null literals give a null datum).
/// Errors: kInvalidArgument when the literal's representation does not fit the
/// type (`what` names the field in the message).
Result<format::avro::Datum> PartitionValueToDatum(const types::Type& type, const Literal& value,
                                                  std::string_view what);

/// Decodes one partition value as `type`, accepting the representations
/// writers use: int or long for integers, fixed or bytes for decimals, fixed,
/// bytes or canonical text for uuids.
/// Errors: kCorruption naming `what` for a datum that cannot be the type.
Result<Literal> PartitionValueFromDatum(const types::TypePtr& type,
                                        const format::avro::Datum& datum, std::string_view what);

/// Reading by field id, the way Iceberg resolves manifests whatever their
/// field order, names or version.
/// The record node of `node`, or of the non-null branch of a union with
/// null; nullptr if it is neither.
const format::avro::Node* UnwrapRecord(const format::avro::Node* node);
/// The index of the field of `record` whose "field-id" is `field_id`, or -1.
int FieldIndexById(const format::avro::Node& record, int32_t field_id);

/// Reading decoded manifest and manifest-list records (messages name `what`).
/// The field at `index` of `record` (an index from FieldIndexById), or
/// nullptr when the index is -1 or out of range or the value is null.
inline const format::avro::Datum* FieldOrNull(const format::avro::Datum& record, int index) {
  if (index < 0 || static_cast<size_t>(index) >= record.children().size()) return nullptr;
  const format::avro::Datum& d = record.children()[static_cast<size_t>(index)];
  return d.is_null() ? nullptr : &d;
}
/// An Avro int or long. Errors: kCorruption for any other type.
Result<int64_t> DatumInteger(const format::avro::Datum& d, std::string_view what);
/// An Avro int or long that fits an int32. Errors: kCorruption otherwise.
Result<int32_t> DatumInt32(const format::avro::Datum& d, std::string_view what);
/// The bytes of an Avro string, bytes or fixed. Errors: kCorruption otherwise.
Result<std::string> DatumText(const format::avro::Datum& d, std::string_view what);
/// Bytes, or null for nullopt (optional binary fields when writing).
format::avro::Datum OptionalBytesDatum(const std::optional<std::string>& v);

/// An error met reading the manifest or manifest list (`kind`) at `path`:
/// invalid-argument and schema errors of the Avro layer become kCorruption,
/// and "<kind> <path>" is added unless the message names the path already.
Error AsManifestFileError(Error e, std::string_view kind, const std::string& path);

/// Every record of `reader` decoded by `decode(record, &item)`, in file
/// order. Errors: reading errors as AsManifestFileError; a decoding error
/// becomes kCorruption "<kind> <path>: entry <index>: <message>".
template <typename T, typename Decode>
Result<std::vector<T>> DecodeRecords(format::avro::DataFileReader& reader, std::string_view kind,
                                     const std::string& path, Decode decode) {
  std::vector<T> out;
  format::avro::Datum record;
  for (int64_t index = 0;; ++index) {
    auto more = reader.Next(&record);
    if (!more) return std::unexpected(AsManifestFileError(std::move(more).error(), kind, path));
    if (!*more) break;
    T item;
    Status st = decode(record, &item);
    if (!st) return Corruption("{} {}: entry {}: {}", kind, path, index, st.error().message());
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace floe::iceberg
