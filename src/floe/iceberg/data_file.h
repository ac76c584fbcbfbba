#pragma once
/// Data and delete files as manifests track them (format spec, "Manifests":
/// the `data_file` struct, and the `manifest_entry` around it). Plain values;
/// the Avro encoding is in manifest.h. See docs/iceberg-metadata.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/metrics.h"
#include "floe/iceberg/expression/literal.h"
#include "floe/iceberg/snapshot.h"

namespace floe::iceberg {

/// What a file holds (data_file.content, field 134).
enum class DataFileContent : int32_t {
  kData = 0,
  kPositionDeletes = 1,
  kEqualityDeletes = 2,
};

/// "data", "position-deletes", "equality-deletes".
std::string_view DataFileContentName(DataFileContent content);

/// The file format string of data_file.file_format (field 101): "parquet",
/// "avro", "orc", "puffin". Kept as text, upper or lower case as written.
inline constexpr std::string_view kFormatParquet = "parquet";
inline constexpr std::string_view kFormatAvro = "avro";
inline constexpr std::string_view kFormatPuffin = "puffin";

/// One data or delete file. Field names and ids follow the spec's data_file
/// struct (ids in comments). The record count, file size and column metrics
/// (103, 104, 108..110, 125, 128, 132, 137) are the fields of the metrics a
/// Parquet writer reports, held as they are: a written file's metrics are
/// its DataFile's.
struct DataFile : format::parquet::DataFileMetrics {
  DataFileContent content = DataFileContent::kData;       ///< 134
  std::string file_path;                                  ///< 100
  std::string file_format = std::string(kFormatParquet);  ///< 101, lower case
  /// 102: one value per field of the partition spec the manifest was written
  /// with, in spec order (null literals for null values).
  std::vector<Literal> partition;
  std::optional<std::string> key_metadata;          ///< 131
  std::vector<int32_t> equality_ids;                ///< 135, equality deletes only
  std::optional<int32_t> sort_order_id;             ///< 140
  std::optional<int64_t> first_row_id;              ///< 142 (v3)
  std::optional<std::string> referenced_data_file;  ///< 143
  std::optional<int64_t> content_offset;            ///< 144 (v3 deletion vectors)
  std::optional<int64_t> content_size_in_bytes;     ///< 145 (v3 deletion vectors)

  bool is_delete() const { return content != DataFileContent::kData; }
};

/// manifest_entry.status (field 0).
enum class ManifestEntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

/// A manifest entry: a file with the snapshot and sequence numbers that
/// track it. In v2 manifests the three ids may be null (not yet known when
/// the manifest was written); readers fill them in by inheritance (see
/// InheritFrom), after which they are set.
struct ManifestEntry {
  ManifestEntryStatus status = ManifestEntryStatus::kAdded;  ///< 0
  std::optional<SnapshotId> snapshot_id;                     ///< 1
  /// Data sequence number (3): orders data against deletes.
  std::optional<int64_t> sequence_number;
  /// File sequence number (4): the commit that added the file.
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;  ///< 2

  /// Applies the spec's inheritance rules with the values of the manifest's
  /// manifest-list entry: a null snapshot id becomes `manifest_snapshot_id`;
  /// null sequence numbers become `manifest_sequence_number` only for ADDED
  /// entries (v1 manifests: 0 for every entry). Errors: kCorruption (naming
  /// the file) for an EXISTING or DELETED entry without a data sequence
  /// number in a v2+ manifest. (Such an entry's file sequence number may
  /// stay null: manifests from before file sequence numbers lack it.)
  Status InheritFrom(SnapshotId manifest_snapshot_id, int64_t manifest_sequence_number,
                     int format_version);
};

}  // namespace floe::iceberg
