#pragma once
/// Table metadata JSON (format spec, Appendix C): parsing `vN.metadata.json`
/// files of format versions 1, 2 and 3 into TableMetadata, and writing them
/// back without losing fields (unknown top-level and snapshot members are
/// kept). See docs/iceberg-metadata.md.
///
/// Reading rules:
/// - format-version > 3 is kNotSupported; anything malformed is kCorruption
///   whose message names the file and the JSON path, e.g.
///   "metadata v3.metadata.json: snapshots[2].timestamp-ms: expected integer".
/// - v1 fields are upgraded in the model: `schema` becomes `schemas` +
///   `current-schema-id`, `partition-spec` becomes spec 0 (field ids assigned
///   from 1000 when absent), `manifests` is kept on the snapshot, a missing
///   sequence number is 0, missing sort orders are the unsorted order 0.
/// - `current-snapshot-id: -1` means no current snapshot; a missing `refs`
///   gets a `main` branch for the current snapshot.
/// - Gzip-compressed files (`.gz.metadata.json`) are inflated.
///
/// Writing: the table's own format version. v1 files also carry the
/// deprecated `schema` and `partition-spec`; v1/v2 write
/// `current-snapshot-id: -1` for an empty table (as Java does), v3 omits it.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// Parses metadata JSON text (or gzip of it). `file_name` names the file in
/// errors. Errors: kCorruption (bad JSON, missing or mistyped fields, broken
/// cross-references per TableMetadata::Validate), kNotSupported (format
/// version).
Result<TableMetadata> ParseTableMetadata(std::string_view text, std::string_view file_name);

/// Parses an already-parsed JSON document. Errors as ParseTableMetadata but
/// without the file name.
Result<TableMetadata> TableMetadataFromJson(const nlohmann::json& json);

/// The metadata as JSON, in the table's format version.
nlohmann::ordered_json TableMetadataToJson(const TableMetadata& metadata);

/// TableMetadataToJson as text (indent < 0: compact).
std::string SerializeTableMetadata(const TableMetadata& metadata, int indent = 2);

/// Reads and parses a metadata file. Errors: those of FileIO (kNotFound,
/// kIo) and of ParseTableMetadata, with the location as context.
Result<TableMetadata> ReadTableMetadata(io::FileIO& io, std::string_view location);

/// Writes a metadata file at `location` with exclusive create: if a file is
/// there already, kAlreadyExists and nothing is written. The file is synced
/// before this returns.
Status WriteTableMetadata(io::FileIO& io, std::string_view location, const TableMetadata& metadata);

// Pieces, shared with table updates (REST JSON). `path` prefixes error
// messages; `code` is the error code (kCorruption for files,
// kInvalidArgument for requests).

Result<Snapshot> SnapshotFromJson(const nlohmann::json& json, const std::string& path,
                                  ErrorCode code = ErrorCode::kCorruption);
/// `format_version` 1 omits sequence-number.
nlohmann::ordered_json SnapshotToJson(const Snapshot& snapshot, int format_version);

Result<SnapshotRef> SnapshotRefFromJson(const nlohmann::json& json, const std::string& path,
                                        ErrorCode code = ErrorCode::kCorruption);
nlohmann::ordered_json SnapshotRefToJson(const SnapshotRef& ref);

/// A partition spec object ({"spec-id", "fields"}) via partition_spec_json.h,
/// errors prefixed by `path`. `require_field_ids` is set for v2+ (v1 specs
/// may omit field ids; they are then assigned from 1000 in order).
Result<PartitionSpec> SpecFromMetadataJson(const nlohmann::json& json, const std::string& path,
                                           ErrorCode code, bool require_field_ids);
/// A sort order object via sort_order_json.h, errors prefixed by `path`.
Result<SortOrder> SortOrderFromMetadataJson(const nlohmann::json& json, const std::string& path,
                                            ErrorCode code);

Result<StatisticsFile> StatisticsFileFromJson(const nlohmann::json& json, const std::string& path,
                                              ErrorCode code);
nlohmann::ordered_json StatisticsFileToJson(const StatisticsFile& file);
Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(const nlohmann::json& json,
                                                                const std::string& path,
                                                                ErrorCode code);
nlohmann::ordered_json PartitionStatisticsFileToJson(const PartitionStatisticsFile& file);
Result<EncryptionKey> EncryptionKeyFromJson(const nlohmann::json& json, const std::string& path,
                                            ErrorCode code);

/// A schema member of metadata, with errors prefixed by `path`.
Result<types::Schema> SchemaFromMetadataJson(const nlohmann::json& json, const std::string& path,
                                             ErrorCode code);

}  // namespace floe::iceberg
