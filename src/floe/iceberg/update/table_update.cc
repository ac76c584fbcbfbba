#include "floe/iceberg/update/table_update.h"

#include "floe/iceberg/json/metadata_json.h"
#include "floe/iceberg/json/metadata_json_util.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/iceberg/update/overloaded.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {

using internal::JsonObjectReader;
using internal::Overloaded;
using nlohmann::json;
using nlohmann::ordered_json;
namespace up = update;

namespace {

constexpr ErrorCode kCode = ErrorCode::kInvalidArgument;

}  // namespace

std::string_view TableUpdateAction(const TableUpdate& u) {
  using sv = std::string_view;
  return std::visit(
      Overloaded{
          [](const up::AssignUuid&) { return sv("assign-uuid"); },
          [](const up::UpgradeFormatVersion&) { return sv("upgrade-format-version"); },
          [](const up::AddSchema&) { return sv("add-schema"); },
          [](const up::SetCurrentSchema&) { return sv("set-current-schema"); },
          [](const up::AddPartitionSpec&) { return sv("add-spec"); },
          [](const up::SetDefaultSpec&) { return sv("set-default-spec"); },
          [](const up::AddSortOrder&) { return sv("add-sort-order"); },
          [](const up::SetDefaultSortOrder&) { return sv("set-default-sort-order"); },
          [](const up::AddSnapshot&) { return sv("add-snapshot"); },
          [](const up::SetSnapshotRef&) { return sv("set-snapshot-ref"); },
          [](const up::RemoveSnapshots&) { return sv("remove-snapshots"); },
          [](const up::RemoveSnapshotRef&) { return sv("remove-snapshot-ref"); },
          [](const up::SetLocation&) { return sv("set-location"); },
          [](const up::SetProperties&) { return sv("set-properties"); },
          [](const up::RemoveProperties&) { return sv("remove-properties"); },
          [](const up::SetStatistics&) { return sv("set-statistics"); },
          [](const up::RemoveStatistics&) { return sv("remove-statistics"); },
          [](const up::SetPartitionStatistics&) { return sv("set-partition-statistics"); },
          [](const up::RemovePartitionStatistics&) { return sv("remove-partition-statistics"); },
          [](const up::RemovePartitionSpecs&) { return sv("remove-partition-specs"); },
          [](const up::RemoveSchemas&) { return sv("remove-schemas"); },
          [](const up::AddEncryptionKey&) { return sv("add-encryption-key"); },
          [](const up::RemoveEncryptionKey&) { return sv("remove-encryption-key"); },
      },
      u);
}

Result<TableUpdate> TableUpdateFromJson(const json& j) {
  JsonObjectReader r(j, "update", kCode);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  FLOE_ASSIGN_OR_RETURN(std::string action, r.String("action"));
  if (action == "assign-uuid") {
    FLOE_ASSIGN_OR_RETURN(std::string uuid, r.String("uuid"));
    return up::AssignUuid{std::move(uuid)};
  }
  if (action == "upgrade-format-version") {
    FLOE_ASSIGN_OR_RETURN(int32_t v, r.Int("format-version"));
    return up::UpgradeFormatVersion{v};
  }
  if (action == "add-schema") {
    FLOE_ASSIGN_OR_RETURN(const json* schema, r.Object("schema"));
    auto s = types::SchemaFromJson(*schema);
    if (!s) return std::unexpected(std::move(s).error().WithContext("update.schema"));
    FLOE_ASSIGN_OR_RETURN(auto last, r.OptInt("last-column-id"));
    return up::AddSchema{std::move(*s), last};
  }
  if (action == "set-current-schema") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("schema-id"));
    return up::SetCurrentSchema{id};
  }
  if (action == "add-spec") {
    FLOE_ASSIGN_OR_RETURN(const json* spec, r.Object("spec"));
    json copy = *spec;
    if (!copy.contains("spec-id")) copy["spec-id"] = 0;  // replaced when added
    FLOE_ASSIGN_OR_RETURN(auto s, SpecFromMetadataJson(copy, "update.spec", kCode, false));
    bool assign = false;
    if (auto f = spec->find("fields"); f != spec->end() && f->is_array()) {
      for (const auto& field : *f) assign = assign || !field.contains("field-id");
    }
    return up::AddPartitionSpec{std::move(s), assign};
  }
  if (action == "set-default-spec") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("spec-id"));
    return up::SetDefaultSpec{id};
  }
  if (action == "add-sort-order") {
    FLOE_ASSIGN_OR_RETURN(const json* order, r.Object("sort-order"));
    FLOE_ASSIGN_OR_RETURN(auto o, SortOrderFromMetadataJson(*order, "update.sort-order", kCode));
    return up::AddSortOrder{std::move(o)};
  }
  if (action == "set-default-sort-order") {
    FLOE_ASSIGN_OR_RETURN(int32_t id, r.Int("sort-order-id"));
    return up::SetDefaultSortOrder{id};
  }
  if (action == "add-snapshot") {
    FLOE_ASSIGN_OR_RETURN(const json* snapshot, r.Object("snapshot"));
    FLOE_ASSIGN_OR_RETURN(auto s, SnapshotFromJson(*snapshot, "update.snapshot", kCode));
    return up::AddSnapshot{std::move(s)};
  }
  if (action == "set-snapshot-ref") {
    up::SetSnapshotRef u;
    FLOE_ASSIGN_OR_RETURN(u.ref_name, r.String("ref-name"));
    FLOE_ASSIGN_OR_RETURN(u.ref, SnapshotRefFromJson(j, "update", kCode));
    return u;
  }
  if (action == "remove-snapshots") {
    FLOE_RETURN_IF_ERROR(r.Array("snapshot-ids"));
    FLOE_ASSIGN_OR_RETURN(auto ids, r.LongList("snapshot-ids"));
    return up::RemoveSnapshots{std::move(ids)};
  }
  if (action == "remove-snapshot-ref") {
    FLOE_ASSIGN_OR_RETURN(std::string name, r.String("ref-name"));
    return up::RemoveSnapshotRef{std::move(name)};
  }
  if (action == "set-location") {
    FLOE_ASSIGN_OR_RETURN(std::string location, r.String("location"));
    return up::SetLocation{std::move(location)};
  }
  if (action == "set-properties") {
    FLOE_RETURN_IF_ERROR(r.Object("updates"));
    FLOE_ASSIGN_OR_RETURN(auto updates, r.StringMap("updates"));
    return up::SetProperties{std::move(updates)};
  }
  if (action == "remove-properties") {
    FLOE_RETURN_IF_ERROR(r.Array("removals"));
    FLOE_ASSIGN_OR_RETURN(auto removals, r.StringList("removals"));
    return up::RemoveProperties{std::move(removals)};
  }
  if (action == "set-statistics") {
    FLOE_ASSIGN_OR_RETURN(const json* stats, r.Object("statistics"));
    FLOE_ASSIGN_OR_RETURN(auto f, StatisticsFileFromJson(*stats, "update.statistics", kCode));
    return up::SetStatistics{std::move(f)};
  }
  if (action == "remove-statistics") {
    FLOE_ASSIGN_OR_RETURN(int64_t id, r.Long("snapshot-id"));
    return up::RemoveStatistics{id};
  }
  if (action == "set-partition-statistics") {
    FLOE_ASSIGN_OR_RETURN(const json* stats, r.Object("partition-statistics"));
    FLOE_ASSIGN_OR_RETURN(
        auto f, PartitionStatisticsFileFromJson(*stats, "update.partition-statistics", kCode));
    return up::SetPartitionStatistics{std::move(f)};
  }
  if (action == "remove-partition-statistics") {
    FLOE_ASSIGN_OR_RETURN(int64_t id, r.Long("snapshot-id"));
    return up::RemovePartitionStatistics{id};
  }
  if (action == "remove-partition-specs") {
    FLOE_RETURN_IF_ERROR(r.Array("spec-ids"));
    FLOE_ASSIGN_OR_RETURN(auto ids, r.LongList("spec-ids"));
    return up::RemovePartitionSpecs{std::vector<int32_t>(ids.begin(), ids.end())};
  }
  if (action == "remove-schemas") {
    FLOE_RETURN_IF_ERROR(r.Array("schema-ids"));
    FLOE_ASSIGN_OR_RETURN(auto ids, r.LongList("schema-ids"));
    return up::RemoveSchemas{std::vector<int32_t>(ids.begin(), ids.end())};
  }
  if (action == "add-encryption-key") {
    FLOE_ASSIGN_OR_RETURN(const json* key, r.Object("encryption-key"));
    FLOE_ASSIGN_OR_RETURN(auto k, EncryptionKeyFromJson(*key, "update.encryption-key", kCode));
    return up::AddEncryptionKey{std::move(k)};
  }
  if (action == "remove-encryption-key") {
    FLOE_ASSIGN_OR_RETURN(std::string id, r.String("key-id"));
    return up::RemoveEncryptionKey{std::move(id)};
  }
  return NotSupported("update.action: unknown update '{}'", action);
}

ordered_json TableUpdateToJson(const TableUpdate& u, int format_version) {
  ordered_json j;
  j["action"] = TableUpdateAction(u);
  std::visit(
      Overloaded{
          [&](const up::AssignUuid& a) { j["uuid"] = a.uuid; },
          [&](const up::UpgradeFormatVersion& a) { j["format-version"] = a.format_version; },
          [&](const up::AddSchema& a) {
            j["schema"] = ordered_json(types::SchemaToJson(a.schema));
            if (a.last_column_id) j["last-column-id"] = *a.last_column_id;
          },
          [&](const up::SetCurrentSchema& a) { j["schema-id"] = a.schema_id; },
          [&](const up::AddPartitionSpec& a) { j["spec"] = PartitionSpecToJsonValue(a.spec); },
          [&](const up::SetDefaultSpec& a) { j["spec-id"] = a.spec_id; },
          [&](const up::AddSortOrder& a) { j["sort-order"] = SortOrderToJsonValue(a.sort_order); },
          [&](const up::SetDefaultSortOrder& a) { j["sort-order-id"] = a.sort_order_id; },
          [&](const up::AddSnapshot& a) {
            j["snapshot"] = SnapshotToJson(a.snapshot, format_version);
          },
          [&](const up::SetSnapshotRef& a) {
            j["ref-name"] = a.ref_name;
            ordered_json ref = SnapshotRefToJson(a.ref);
            for (auto it = ref.begin(); it != ref.end(); ++it) j[it.key()] = it.value();
          },
          [&](const up::RemoveSnapshots& a) { j["snapshot-ids"] = a.snapshot_ids; },
          [&](const up::RemoveSnapshotRef& a) { j["ref-name"] = a.ref_name; },
          [&](const up::SetLocation& a) { j["location"] = a.location; },
          [&](const up::SetProperties& a) {
            ordered_json updates = ordered_json::object();
            for (const auto& [k, v] : a.updates) updates[k] = v;
            j["updates"] = std::move(updates);
          },
          [&](const up::RemoveProperties& a) { j["removals"] = a.removals; },
          [&](const up::SetStatistics& a) {
            j["snapshot-id"] = a.statistics.snapshot_id;
            j["statistics"] = StatisticsFileToJson(a.statistics);
          },
          [&](const up::RemoveStatistics& a) { j["snapshot-id"] = a.snapshot_id; },
          [&](const up::SetPartitionStatistics& a) {
            j["partition-statistics"] = PartitionStatisticsFileToJson(a.partition_statistics);
          },
          [&](const up::RemovePartitionStatistics& a) { j["snapshot-id"] = a.snapshot_id; },
          [&](const up::RemovePartitionSpecs& a) { j["spec-ids"] = a.spec_ids; },
          [&](const up::RemoveSchemas& a) { j["schema-ids"] = a.schema_ids; },
          [&](const up::AddEncryptionKey& a) { j["encryption-key"] = ordered_json(a.key.json); },
          [&](const up::RemoveEncryptionKey& a) { j["key-id"] = a.key_id; },
      },
      u);
  return j;
}

}  // namespace floe::iceberg
