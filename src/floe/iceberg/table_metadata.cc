#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <set>

namespace floe::iceberg {

namespace {

// The metadata's names for one list of ids, for Validate's messages.
struct IdListNames {
  std::string_view list;     // "schemas"
  std::string_view id;       // "schema-id"
  std::string_view current;  // "current-schema-id"
  std::string_view noun;     // "schema"
};

// Each item of `items` has its own id (`id_of`), and `current` is one of them.
template <typename T, typename IdOf>
Status CheckIdList(const std::vector<T>& items, IdOf id_of, int32_t current,
                   const IdListNames& names) {
  std::set<int32_t> ids;
  for (const auto& item : items) {
    const int32_t id = std::invoke(id_of, item);
    if (!ids.insert(id).second) {
      return Corruption("{}: {} {} appears twice", names.list, names.id, id);
    }
  }
  if (!ids.contains(current)) {
    return Corruption("{}: no {} with id {}", names.current, names.noun, current);
  }
  return Ok();
}

}  // namespace

const types::Schema* TableMetadata::SchemaById(int32_t schema_id) const {
  for (const auto& s : schemas) {
    if (s.schema_id() == schema_id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::SpecById(int32_t spec_id) const {
  for (const auto& s : partition_specs) {
    if (s.spec_id() == spec_id) return &s;
  }
  return nullptr;
}

const SortOrder* TableMetadata::SortOrderById(int32_t order_id) const {
  for (const auto& s : sort_orders) {
    if (s.order_id() == order_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::SnapshotById(SnapshotId snapshot_id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == snapshot_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  if (!current_snapshot_id) return nullptr;
  return SnapshotById(*current_snapshot_id);
}

const Snapshot* TableMetadata::SnapshotForRef(std::string_view ref_name) const {
  auto it = refs.find(std::string(ref_name));
  if (it == refs.end()) return nullptr;
  return SnapshotById(it->second.snapshot_id);
}

const Snapshot* TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  const Snapshot* found = nullptr;
  for (const auto& e : snapshot_log) {
    if (e.timestamp_ms > timestamp_ms) break;
    if (const Snapshot* s = SnapshotById(e.snapshot_id)) found = s;
  }
  return found;
}

std::string TableMetadata::Property(std::string_view key, std::string_view fallback) const {
  auto it = properties.find(std::string(key));
  return it == properties.end() ? std::string(fallback) : it->second;
}

int64_t TableMetadata::PropertyAsInt(std::string_view key, int64_t fallback) const {
  auto it = properties.find(std::string(key));
  if (it == properties.end()) return fallback;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return fallback;
  return v;
}

Status TableMetadata::Validate() const {
  if (format_version < kMinFormatVersion || format_version > kMaxFormatVersion) {
    return NotSupported("format-version: {} is not supported (floe reads {} to {})", format_version,
                        kMinFormatVersion, kMaxFormatVersion);
  }
  if (format_version >= 2 && table_uuid.empty()) return Corruption("table-uuid: missing");
  FLOE_RETURN_IF_ERROR(CheckIdList(schemas, &types::Schema::schema_id, current_schema_id,
                                   {"schemas", "schema-id", "current-schema-id", "schema"}));
  FLOE_RETURN_IF_ERROR(
      CheckIdList(partition_specs, &PartitionSpec::spec_id, default_spec_id,
                  {"partition-specs", "spec-id", "default-spec-id", "partition spec"}));
  FLOE_RETURN_IF_ERROR(
      CheckIdList(sort_orders, &SortOrder::order_id, default_sort_order_id,
                  {"sort-orders", "order-id", "default-sort-order-id", "sort order"}));
  std::set<SnapshotId> snapshot_ids;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const Snapshot& s = snapshots[i];
    if (!snapshot_ids.insert(s.snapshot_id).second) {
      return Corruption("snapshots[{}].snapshot-id: {} appears twice", i, s.snapshot_id);
    }
    if (format_version >= 2 && s.sequence_number > last_sequence_number) {
      return Corruption("snapshots[{}].sequence-number: {} is greater than last-sequence-number {}",
                        i, s.sequence_number, last_sequence_number);
    }
  }
  if (current_snapshot_id && SnapshotById(*current_snapshot_id) == nullptr) {
    return Corruption("current-snapshot-id: no snapshot with id {}", *current_snapshot_id);
  }
  for (const auto& [name, ref] : refs) {
    if (SnapshotById(ref.snapshot_id) == nullptr) {
      return Corruption("refs.{}: no snapshot with id {}", name, ref.snapshot_id);
    }
  }
  auto main = refs.find(std::string(kMainBranch));
  if (main != refs.end()) {
    if (!main->second.is_branch()) return Corruption("refs.main: must be a branch");
    if (current_snapshot_id != main->second.snapshot_id) {
      return Corruption("current-snapshot-id: {} does not match refs.main snapshot {}",
                        current_snapshot_id ? *current_snapshot_id : -1, main->second.snapshot_id);
    }
  } else if (current_snapshot_id) {
    return Corruption("refs: no main branch for current-snapshot-id {}", *current_snapshot_id);
  }
  if (format_version >= 3 && !next_row_id) return Corruption("next-row-id: missing");
  return Ok();
}

}  // namespace floe::iceberg
