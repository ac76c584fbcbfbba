#pragma once
/// Table updates: the changes a commit makes to table metadata, named and
/// shaped as the Iceberg REST catalog spec names them ("action":
/// "add-schema", ...). They are applied by TableMetadataBuilder
/// (table_metadata_builder.h), which validates each one. See
/// docs/iceberg-metadata.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

namespace update {

/// Sets the table uuid (only if it has none or the same one).
struct AssignUuid {
  std::string uuid;
};
/// Raises the format version (never lowers it).
struct UpgradeFormatVersion {
  int format_version = kDefaultFormatVersion;
};
/// Adds a schema. Its id is replaced: an identical existing schema's id, or
/// one more than the highest. `last_column_id` (deprecated in REST) raises
/// the table's last-column-id; the schema's highest field id always does.
struct AddSchema {
  types::Schema schema;
  std::optional<int32_t> last_column_id;
};
/// Sets the current schema; -1 means the schema added last in this change.
struct SetCurrentSchema {
  int32_t schema_id = -1;
};
/// Adds a partition spec (id replaced like AddSchema; an equivalent existing
/// spec is reused). With `assign_field_ids` (REST JSON without "field-id"),
/// the fields get ids after the table's last-partition-id.
struct AddPartitionSpec {
  PartitionSpec spec;
  bool assign_field_ids = false;
};
/// Sets the default spec; -1 means the spec added last.
struct SetDefaultSpec {
  int32_t spec_id = -1;
};
/// Adds a sort order (id replaced; the unsorted order is always id 0).
struct AddSortOrder {
  SortOrder sort_order;
};
/// Sets the default sort order; -1 means the order added last.
struct SetDefaultSortOrder {
  int32_t sort_order_id = -1;
};
/// Adds a snapshot (not yet referenced by any branch).
struct AddSnapshot {
  Snapshot snapshot;
};
/// Points a branch or tag at a snapshot; "main" also moves the current
/// snapshot and appends to the snapshot log.
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
};
/// Removes snapshots, the refs that point at them, their statistics and
/// their snapshot-log history.
struct RemoveSnapshots {
  std::vector<SnapshotId> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string ref_name;
};
struct SetLocation {
  std::string location;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::vector<std::string> removals;
};
/// Adds or replaces the statistics file of a snapshot.
struct SetStatistics {
  StatisticsFile statistics;
};
struct RemoveStatistics {
  SnapshotId snapshot_id = 0;
};
struct SetPartitionStatistics {
  PartitionStatisticsFile partition_statistics;
};
struct RemovePartitionStatistics {
  SnapshotId snapshot_id = 0;
};
/// Removes unused partition specs (never the default one).
struct RemovePartitionSpecs {
  std::vector<int32_t> spec_ids;
};
/// Removes unused schemas (never the current one).
struct RemoveSchemas {
  std::vector<int32_t> schema_ids;
};
struct AddEncryptionKey {
  EncryptionKey key;
};
struct RemoveEncryptionKey {
  std::string key_id;
};

}  // namespace update

using TableUpdate =
    std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                 update::SetCurrentSchema, update::AddPartitionSpec, update::SetDefaultSpec,
                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                 update::SetLocation, update::SetProperties, update::RemoveProperties,
                 update::SetStatistics, update::RemoveStatistics, update::SetPartitionStatistics,
                 update::RemovePartitionStatistics, update::RemovePartitionSpecs,
                 update::RemoveSchemas, update::AddEncryptionKey, update::RemoveEncryptionKey>;

/// The REST "action" name of an update, e.g. "add-schema".
std::string_view TableUpdateAction(const TableUpdate& update);

/// Parses a REST update object ({"action": "set-properties", "updates": {...}}).
/// Errors: kInvalidArgument naming the member; kNotSupported for an unknown action.
Result<TableUpdate> TableUpdateFromJson(const nlohmann::json& json);

/// The REST JSON of an update. `format_version` shapes embedded snapshots.
nlohmann::ordered_json TableUpdateToJson(const TableUpdate& update,
                                         int format_version = kDefaultFormatVersion);

}  // namespace floe::iceberg
