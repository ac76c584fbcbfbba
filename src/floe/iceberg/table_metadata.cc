#include "floe/iceberg/table_metadata.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace floe::iceberg {

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
  std::set<int32_t> ids;
  for (const auto& s : schemas) {
    if (!ids.insert(s.schema_id()).second) {
      return Corruption("schemas: schema-id {} appears twice", s.schema_id());
    }
  }
  if (SchemaById(current_schema_id) == nullptr) {
    return Corruption("current-schema-id: no schema with id {}", current_schema_id);
  }
  ids.clear();
  for (const auto& s : partition_specs) {
    if (!ids.insert(s.spec_id()).second) {
      return Corruption("partition-specs: spec-id {} appears twice", s.spec_id());
    }
  }
  if (SpecById(default_spec_id) == nullptr) {
    return Corruption("default-spec-id: no partition spec with id {}", default_spec_id);
  }
  ids.clear();
  for (const auto& s : sort_orders) {
    if (!ids.insert(s.order_id()).second) {
      return Corruption("sort-orders: order-id {} appears twice", s.order_id());
    }
  }
  if (SortOrderById(default_sort_order_id) == nullptr) {
    return Corruption("default-sort-order-id: no sort order with id {}", default_sort_order_id);
  }
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
