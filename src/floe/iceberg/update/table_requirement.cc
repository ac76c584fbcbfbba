#include "floe/iceberg/update/table_requirement.h"

#include "floe/iceberg/json/metadata_json_util.h"
#include "floe/iceberg/update/overloaded.h"

namespace floe::iceberg {

using internal::JsonObjectReader;
using internal::Overloaded;
namespace req = requirement;

namespace {

std::string OptId(std::optional<SnapshotId> id) {
  return id ? std::to_string(*id) : std::string("none");
}

}  // namespace

std::string_view TableRequirementType(const TableRequirement& r) {
  return std::visit(
      Overloaded{
          [](const req::AssertCreate&) { return std::string_view("assert-create"); },
          [](const req::AssertTableUuid&) { return std::string_view("assert-table-uuid"); },
          [](const req::AssertRefSnapshotId&) {
            return std::string_view("assert-ref-snapshot-id");
          },
          [](const req::AssertLastAssignedFieldId&) {
            return std::string_view("assert-last-assigned-field-id");
          },
          [](const req::AssertCurrentSchemaId&) {
            return std::string_view("assert-current-schema-id");
          },
          [](const req::AssertLastAssignedPartitionId&) {
            return std::string_view("assert-last-assigned-partition-id");
          },
          [](const req::AssertDefaultSpecId&) {
            return std::string_view("assert-default-spec-id");
          },
          [](const req::AssertDefaultSortOrderId&) {
            return std::string_view("assert-default-sort-order-id");
          },
      },
      r);
}

namespace {

// The requirements that compare one id of the table with the expected one.
Status ExpectId(const TableRequirement& r, int64_t expected, int64_t found) {
  if (expected == found) return Ok();
  return CommitConflict("{}: expected {}, found {}", TableRequirementType(r), expected, found);
}

}  // namespace

Status CheckRequirement(const TableRequirement& r, const TableMetadata* m) {
  if (std::holds_alternative<req::AssertCreate>(r)) {
    if (m != nullptr) return CommitConflict("assert-create: the table already exists");
    return Ok();
  }
  if (m == nullptr) {
    return CommitConflict("{}: the table does not exist", TableRequirementType(r));
  }
  return std::visit(Overloaded{
                        [](const req::AssertCreate&) -> Status { return Ok(); },
                        [&](const req::AssertTableUuid& a) -> Status {
                          if (a.uuid != m->table_uuid) {
                            return CommitConflict("assert-table-uuid: expected {}, found {}",
                                                  a.uuid, m->table_uuid);
                          }
                          return Ok();
                        },
                        [&](const req::AssertRefSnapshotId& a) -> Status {
                          auto it = m->refs.find(a.ref);
                          std::optional<SnapshotId> found;
                          if (it != m->refs.end()) found = it->second.snapshot_id;
                          if (found != a.snapshot_id) {
                            if (!a.snapshot_id) {
                              return CommitConflict(
                                  "assert-ref-snapshot-id: ref {} was created concurrently", a.ref);
                            }
                            return CommitConflict(
                                "assert-ref-snapshot-id: ref {} expected at snapshot {}, found {}",
                                a.ref, OptId(a.snapshot_id), OptId(found));
                          }
                          return Ok();
                        },
                        [&](const req::AssertLastAssignedFieldId& a) -> Status {
                          return ExpectId(r, a.last_assigned_field_id, m->last_column_id);
                        },
                        [&](const req::AssertCurrentSchemaId& a) -> Status {
                          return ExpectId(r, a.current_schema_id, m->current_schema_id);
                        },
                        [&](const req::AssertLastAssignedPartitionId& a) -> Status {
                          return ExpectId(r, a.last_assigned_partition_id, m->last_partition_id);
                        },
                        [&](const req::AssertDefaultSpecId& a) -> Status {
                          return ExpectId(r, a.default_spec_id, m->default_spec_id);
                        },
                        [&](const req::AssertDefaultSortOrderId& a) -> Status {
                          return ExpectId(r, a.default_sort_order_id, m->default_sort_order_id);
                        },
                    },
                    r);
}

Status CheckRequirements(const std::vector<TableRequirement>& requirements,
                         const TableMetadata* current) {
  for (const auto& r : requirements) FLOE_RETURN_IF_ERROR(CheckRequirement(r, current));
  return Ok();
}

Result<TableRequirement> TableRequirementFromJson(const nlohmann::json& j) {
  JsonObjectReader r(j, "requirement", ErrorCode::kInvalidArgument);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  FLOE_ASSIGN_OR_RETURN(std::string type, r.String("type"));
  if (type == "assert-create") return req::AssertCreate{};
  if (type == "assert-table-uuid") {
    FLOE_ASSIGN_OR_RETURN(std::string uuid, r.String("uuid"));
    return req::AssertTableUuid{std::move(uuid)};
  }
  if (type == "assert-ref-snapshot-id") {
    req::AssertRefSnapshotId a;
    FLOE_ASSIGN_OR_RETURN(a.ref, r.String("ref"));
    FLOE_ASSIGN_OR_RETURN(a.snapshot_id, r.OptLong("snapshot-id"));
    return a;
  }
  if (type == "assert-last-assigned-field-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("last-assigned-field-id"));
    return req::AssertLastAssignedFieldId{id};
  }
  if (type == "assert-current-schema-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("current-schema-id"));
    return req::AssertCurrentSchemaId{id};
  }
  if (type == "assert-last-assigned-partition-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("last-assigned-partition-id"));
    return req::AssertLastAssignedPartitionId{id};
  }
  if (type == "assert-default-spec-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("default-spec-id"));
    return req::AssertDefaultSpecId{id};
  }
  if (type == "assert-default-sort-order-id") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("default-sort-order-id"));
    return req::AssertDefaultSortOrderId{id};
  }
  return NotSupported("requirement.type: unknown requirement '{}'", type);
}

nlohmann::ordered_json TableRequirementToJson(const TableRequirement& r) {
  nlohmann::ordered_json j;
  j["type"] = TableRequirementType(r);
  std::visit(
      Overloaded{
          [](const req::AssertCreate&) {},
          [&](const req::AssertTableUuid& a) { j["uuid"] = a.uuid; },
          [&](const req::AssertRefSnapshotId& a) {
            j["ref"] = a.ref;
            j["snapshot-id"] = a.snapshot_id ? nlohmann::ordered_json(*a.snapshot_id)
                                             : nlohmann::ordered_json(nullptr);
          },
          [&](const req::AssertLastAssignedFieldId& a) {
            j["last-assigned-field-id"] = a.last_assigned_field_id;
          },
          [&](const req::AssertCurrentSchemaId& a) {
            j["current-schema-id"] = a.current_schema_id;
          },
          [&](const req::AssertLastAssignedPartitionId& a) {
            j["last-assigned-partition-id"] = a.last_assigned_partition_id;
          },
          [&](const req::AssertDefaultSpecId& a) { j["default-spec-id"] = a.default_spec_id; },
          [&](const req::AssertDefaultSortOrderId& a) {
            j["default-sort-order-id"] = a.default_sort_order_id;
          },
      },
      r);
  return j;
}

}  // namespace floe::iceberg
