#pragma once
/// The table metadata model (format spec, "Table Metadata"): everything a
/// `vN.metadata.json` file holds, for format versions 1, 2 and 3. A plain
/// value: copy it, compare it, change it only through TableMetadataBuilder
/// (table_metadata_builder.h) so that ids, logs and sequence numbers stay
/// consistent. JSON is in metadata_json.h. See docs/iceberg-metadata.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/snapshot.h"
#include "floe/iceberg/sort_order.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// Format versions floe reads; it writes kDefaultFormatVersion for new tables.
inline constexpr int kMinFormatVersion = 1;
inline constexpr int kMaxFormatVersion = 3;
inline constexpr int kDefaultFormatVersion = 2;

/// `last-partition-id` of a table that never had a partition field.
inline constexpr int32_t kInitialLastPartitionId = kFirstPartitionFieldId - 1;

/// A table statistics (Puffin) file. Read and written whole; floe keeps it so
/// that a rewrite loses nothing, and drops it with its snapshot.
struct StatisticsFile {
  SnapshotId snapshot_id = 0;
  std::string statistics_path;
  /// The whole JSON object ("file-size-in-bytes", "blob-metadata", ...).
  nlohmann::json json = nlohmann::json::object();
  friend bool operator==(const StatisticsFile&, const StatisticsFile&) = default;
};

/// A partition statistics file: snapshot id, path, size.
struct PartitionStatisticsFile {
  SnapshotId snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  friend bool operator==(const PartitionStatisticsFile&, const PartitionStatisticsFile&) = default;
};

/// A v3 table encryption key, kept as its JSON object ("key-id",
/// "encrypted-key-metadata", "encrypted-by-id", "properties").
struct EncryptionKey {
  std::string key_id;
  nlohmann::json json = nlohmann::json::object();
  friend bool operator==(const EncryptionKey&, const EncryptionKey&) = default;
};

/// The table metadata. Field names follow the spec's JSON names.
struct TableMetadata {
  int format_version = kDefaultFormatVersion;
  /// Empty only for v1 tables written without one.
  std::string table_uuid;
  std::string location;
  /// 0 for v1.
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<types::Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kInitialLastPartitionId;
  std::map<std::string, std::string> properties;
  /// The main branch's snapshot; nullopt for an empty table (-1 in old files).
  std::optional<SnapshotId> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  /// Branches and tags by name. Always holds "main" when there is a current
  /// snapshot (added on read for v1/v2 files without refs).
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  /// v3: the next row id to assign (row lineage). nullopt before v3.
  std::optional<int64_t> next_row_id;
  /// v3: encryption keys, preserved.
  std::vector<EncryptionKey> encryption_keys;
  /// Top-level members floe does not know, written back unchanged.
  nlohmann::json extra = nlohmann::json::object();

  // Lookups. Pointers stay valid while this TableMetadata is not modified.

  /// The schema with `schema_id`, or nullptr.
  const types::Schema* SchemaById(int32_t schema_id) const;
  /// The current schema, or nullptr if current_schema_id names none.
  const types::Schema* CurrentSchema() const { return SchemaById(current_schema_id); }
  const PartitionSpec* SpecById(int32_t spec_id) const;
  const PartitionSpec* DefaultSpec() const { return SpecById(default_spec_id); }
  const SortOrder* SortOrderById(int32_t order_id) const;
  const Snapshot* SnapshotById(SnapshotId snapshot_id) const;
  /// The current snapshot, or nullptr for an empty table.
  const Snapshot* CurrentSnapshot() const;
  /// The snapshot a branch or tag points at, or nullptr.
  const Snapshot* SnapshotForRef(std::string_view ref_name) const;
  /// The snapshot that was current at `timestamp_ms` per the snapshot log
  /// (the last entry at or before it), or nullptr.
  const Snapshot* SnapshotAsOf(int64_t timestamp_ms) const;
  /// A property, or `fallback`.
  std::string Property(std::string_view key, std::string_view fallback = "") const;
  /// An integer property, or `fallback` if absent or not an integer.
  int64_t PropertyAsInt(std::string_view key, int64_t fallback) const;

  /// Checks the cross-field rules: the current schema, default spec and
  /// default sort order exist; ids are unique; the current snapshot and every
  /// ref name existing snapshots; main matches current-snapshot-id; v2+ has a
  /// table uuid and snapshot sequence numbers <= last-sequence-number; v3 has
  /// next-row-id. Errors: kCorruption (the message names the field).
  Status Validate() const;
};

}  // namespace floe::iceberg
