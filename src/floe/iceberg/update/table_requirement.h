#pragma once
/// Table requirements: the conditions a commit asserts about the metadata it
/// was based on, named as the Iceberg REST catalog spec names them
/// ("type": "assert-ref-snapshot-id", ...). A catalog checks them against
/// the table's current metadata just before swapping it; one that fails
/// means another writer committed first: kCommitConflict (reload, retry).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

namespace requirement {

/// The table must not exist.
struct AssertCreate {};
struct AssertTableUuid {
  std::string uuid;
};
/// The ref must point at `snapshot_id`; with nullopt, the ref must not exist.
struct AssertRefSnapshotId {
  std::string ref;
  std::optional<SnapshotId> snapshot_id;
};
struct AssertLastAssignedFieldId {
  int32_t last_assigned_field_id = 0;
};
struct AssertCurrentSchemaId {
  int32_t current_schema_id = 0;
};
struct AssertLastAssignedPartitionId {
  int32_t last_assigned_partition_id = 0;
};
struct AssertDefaultSpecId {
  int32_t default_spec_id = 0;
};
struct AssertDefaultSortOrderId {
  int32_t default_sort_order_id = 0;
};

}  // namespace requirement

using TableRequirement =
    std::variant<requirement::AssertCreate, requirement::AssertTableUuid,
                 requirement::AssertRefSnapshotId, requirement::AssertLastAssignedFieldId,
                 requirement::AssertCurrentSchemaId, requirement::AssertLastAssignedPartitionId,
                 requirement::AssertDefaultSpecId, requirement::AssertDefaultSortOrderId>;

/// The REST "type" name, e.g. "assert-current-schema-id".
std::string_view TableRequirementType(const TableRequirement& requirement);

/// Checks a requirement against the table's current metadata (`current` is
/// nullptr when the table does not exist). Errors: kCommitConflict saying
/// what was expected and what was found.
Status CheckRequirement(const TableRequirement& requirement, const TableMetadata* current);
/// Checks all, stopping at the first that fails.
Status CheckRequirements(const std::vector<TableRequirement>& requirements,
                         const TableMetadata* current);

/// Parses a REST requirement object. Errors: kInvalidArgument naming the
/// member; kNotSupported for an unknown type.
Result<TableRequirement> TableRequirementFromJson(const nlohmann::json& json);
nlohmann::ordered_json TableRequirementToJson(const TableRequirement& requirement);

}  // namespace floe::iceberg
