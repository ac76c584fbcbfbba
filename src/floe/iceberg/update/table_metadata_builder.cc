#include "floe/iceberg/update/table_metadata_builder.h"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "floe/common/random.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/update/overloaded.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {

using internal::Overloaded;

namespace {
// Iceberg Java's other reserved table properties: derived from the metadata,
// never stored (TableProperties.RESERVED_PROPERTIES).
constexpr std::string_view kDerivedProperties[] = {"uuid",
                                                   "snapshot-count",
                                                   "current-snapshot-summary",
                                                   "current-snapshot-id",
                                                   "current-snapshot-timestamp-ms",
                                                   "current-schema",
                                                   "default-partition-spec",
                                                   "default-sort-order"};

// The id a set-current/default update names: `id`, or for -1 the one added
// last in this change. kInvalidArgument when -1 but no `what` was added.
Result<int32_t> ResolveLastAdded(int32_t id, std::optional<int32_t> last_added,
                                 std::string_view change, std::string_view what) {
  if (id != -1) return id;
  if (!last_added) {
    return InvalidArgument("{}: -1 (last added) but no {} was added", change, what);
  }
  return *last_added;
}

}  // namespace

namespace up = update;

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Schemas compare equal when their JSON (without the id) is the same, which
/// covers field ids, names, types, requiredness, docs and identifier fields.
bool SameSchema(const types::Schema& a, const types::Schema& b) {
  nlohmann::json ja = types::SchemaToJson(a);
  nlohmann::json jb = types::SchemaToJson(b);
  ja.erase("schema-id");
  jb.erase("schema-id");
  return ja == jb;
}

}  // namespace

std::string GenerateUuid() { return RandomUuid(); }

SnapshotId GenerateSnapshotId() {
  SnapshotId id = 0;
  while (id == 0) id = static_cast<SnapshotId>(RandomU64() & 0x7FFFFFFFFFFFFFFFull);
  return id;
}

Result<TableMetadataBuilder> TableMetadataBuilder::ForNewTable(int format_version,
                                                               Options options) {
  if (format_version < kMinFormatVersion || format_version > kMaxFormatVersion) {
    return NotSupported("format-version {} is not supported (floe writes {} to {})", format_version,
                        kMinFormatVersion, kMaxFormatVersion);
  }
  TableMetadataBuilder b;
  b.is_new_ = true;
  b.now_ms_ = options.now_ms.value_or(NowMs());
  b.metadata_ = TableMetadata{};
  b.metadata_.format_version = format_version;
  b.metadata_.sort_orders.clear();
  if (format_version >= 3) b.metadata_.next_row_id = 0;
  return b;
}

TableMetadataBuilder TableMetadataBuilder::ForUpdate(const TableMetadata& base,
                                                     std::string base_location, Options options) {
  TableMetadataBuilder b;
  b.metadata_ = base;
  b.base_last_updated_ms_ = base.last_updated_ms;
  b.base_location_ = std::move(base_location);
  b.now_ms_ = options.now_ms.value_or(NowMs());
  return b;
}

Status TableMetadataBuilder::ApplyAll(const std::vector<TableUpdate>& updates) {
  for (const auto& u : updates) FLOE_RETURN_IF_ERROR(Apply(u));
  return Ok();
}

Status TableMetadataBuilder::Apply(const TableUpdate& u) {
  TableMetadata& m = metadata_;
  Status status = std::visit(
      Overloaded{
          [&](const up::AssignUuid& a) -> Status {
            if (a.uuid.empty()) return InvalidArgument("assign-uuid: empty uuid");
            if (!m.table_uuid.empty() && m.table_uuid != a.uuid) {
              return InvalidArgument("assign-uuid: cannot replace table uuid {} with {}",
                                     m.table_uuid, a.uuid);
            }
            m.table_uuid = a.uuid;
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::UpgradeFormatVersion& a) { return UpgradeFormatVersion(a.format_version); },
          [&](const up::AddSchema& a) { return AddSchema(a); },
          [&](const up::SetCurrentSchema& a) { return SetCurrentSchema(a.schema_id); },
          [&](const up::AddPartitionSpec& a) { return AddSpec(a); },
          [&](const up::SetDefaultSpec& a) { return SetDefaultSpec(a.spec_id); },
          [&](const up::AddSortOrder& a) { return AddSortOrder(a); },
          [&](const up::SetDefaultSortOrder& a) { return SetDefaultSortOrder(a.sort_order_id); },
          [&](const up::AddSnapshot& a) { return AddSnapshot(a); },
          [&](const up::SetSnapshotRef& a) { return SetRef(a); },
          [&](const up::RemoveSnapshots& a) { return RemoveSnapshots(a); },
          [&](const up::RemoveSnapshotRef& a) { return RemoveRef(a.ref_name); },
          [&](const up::SetLocation& a) -> Status {
            if (a.location.empty()) return InvalidArgument("set-location: empty location");
            m.location = a.location;
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::SetProperties& a) -> Status {
            up::SetProperties stored;
            for (const auto& [k, v] : a.updates) {
              if (k == table_properties::kFormatVersion) {
                FLOE_RETURN_IF_ERROR(SetFormatVersionProperty(v));
                continue;
              }
              for (std::string_view reserved : kDerivedProperties) {
                if (k == reserved) {
                  return InvalidArgument(
                      "set-properties: '{}' is reserved: it is derived from the table metadata", k);
                }
              }
              stored.updates[k] = v;
            }
            if (stored.updates.empty()) return Ok();
            for (const auto& [k, v] : stored.updates) m.properties[k] = v;
            changes_.push_back(std::move(stored));
            return Ok();
          },
          [&](const up::RemoveProperties& a) -> Status {
            for (const auto& k : a.removals) {
              if (k == table_properties::kFormatVersion) {
                return InvalidArgument(
                    "remove-properties: '{}' is reserved: it is the table's format version, "
                    "not a property",
                    k);
              }
            }
            for (const auto& k : a.removals) m.properties.erase(k);
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::SetStatistics& a) -> Status {
            std::erase_if(m.statistics, [&](const StatisticsFile& f) {
              return f.snapshot_id == a.statistics.snapshot_id;
            });
            m.statistics.push_back(a.statistics);
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::RemoveStatistics& a) -> Status {
            std::erase_if(m.statistics,
                          [&](const StatisticsFile& f) { return f.snapshot_id == a.snapshot_id; });
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::SetPartitionStatistics& a) -> Status {
            std::erase_if(m.partition_statistics, [&](const PartitionStatisticsFile& f) {
              return f.snapshot_id == a.partition_statistics.snapshot_id;
            });
            m.partition_statistics.push_back(a.partition_statistics);
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::RemovePartitionStatistics& a) -> Status {
            std::erase_if(m.partition_statistics, [&](const PartitionStatisticsFile& f) {
              return f.snapshot_id == a.snapshot_id;
            });
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::RemovePartitionSpecs& a) -> Status {
            for (int32_t id : a.spec_ids) {
              if (id == m.default_spec_id) {
                return InvalidArgument("remove-partition-specs: cannot remove the default spec {}",
                                       id);
              }
            }
            std::erase_if(m.partition_specs, [&](const PartitionSpec& s) {
              return std::find(a.spec_ids.begin(), a.spec_ids.end(), s.spec_id()) !=
                     a.spec_ids.end();
            });
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::RemoveSchemas& a) -> Status {
            for (int32_t id : a.schema_ids) {
              if (id == m.current_schema_id) {
                return InvalidArgument("remove-schemas: cannot remove the current schema {}", id);
              }
            }
            std::erase_if(m.schemas, [&](const types::Schema& s) {
              return std::find(a.schema_ids.begin(), a.schema_ids.end(), s.schema_id()) !=
                     a.schema_ids.end();
            });
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::AddEncryptionKey& a) -> Status {
            std::erase_if(m.encryption_keys,
                          [&](const EncryptionKey& k) { return k.key_id == a.key.key_id; });
            m.encryption_keys.push_back(a.key);
            changes_.push_back(a);
            return Ok();
          },
          [&](const up::RemoveEncryptionKey& a) -> Status {
            std::erase_if(m.encryption_keys,
                          [&](const EncryptionKey& k) { return k.key_id == a.key_id; });
            changes_.push_back(a);
            return Ok();
          },
      },
      u);
  return status;
}

Status TableMetadataBuilder::SetFormatVersionProperty(std::string_view text) {
  TableMetadata& m = metadata_;
  int version = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return InvalidArgument("set-properties: format-version '{}' is not a number", text);
  }
  if (version < kMinFormatVersion || version > kMaxFormatVersion) {
    return NotSupported("set-properties: format-version {} is not supported (floe writes {} to {})",
                        version, kMinFormatVersion, kMaxFormatVersion);
  }
  if (is_new_ && m.snapshots.empty()) {
    // A table being created takes any supported version (as Java reads the
    // property when it creates a table).
    if (version == m.format_version) return Ok();
    if (version < m.format_version) {
      m.format_version = version;
      if (version < 3) m.next_row_id.reset();
      changes_.push_back(update::UpgradeFormatVersion{version});
      return Ok();
    }
  } else if (version < m.format_version) {
    return InvalidArgument("set-properties: cannot downgrade format-version from {} to {}",
                           m.format_version, version);
  }
  return UpgradeFormatVersion(version);
}

Status TableMetadataBuilder::UpgradeFormatVersion(int version) {
  TableMetadata& m = metadata_;
  if (version > kMaxFormatVersion) {
    return NotSupported("upgrade-format-version: format version {} is not supported", version);
  }
  if (version < m.format_version) {
    return InvalidArgument("upgrade-format-version: cannot downgrade from v{} to v{}",
                           m.format_version, version);
  }
  if (version == m.format_version) return Ok();
  if (m.format_version == 1 && m.table_uuid.empty()) m.table_uuid = GenerateUuid();
  if (version >= 3 && !m.next_row_id) m.next_row_id = 0;
  m.format_version = version;
  changes_.push_back(update::UpgradeFormatVersion{version});
  return Ok();
}

Status TableMetadataBuilder::AddSchema(const update::AddSchema& u) {
  TableMetadata& m = metadata_;
  FLOE_RETURN_IF_ERROR_CTX(u.schema.Validate(), "add-schema");
  int32_t new_last =
      std::max({m.last_column_id, u.schema.highest_field_id(), u.last_column_id.value_or(0)});
  for (const auto& s : m.schemas) {
    if (SameSchema(s, u.schema)) {
      last_added_schema_id_ = s.schema_id();
      m.last_column_id = new_last;
      return Ok();
    }
  }
  int32_t id = 0;
  for (const auto& s : m.schemas) id = std::max(id, s.schema_id() + 1);
  types::Schema schema(u.schema.fields(), id, u.schema.identifier_field_ids());
  m.schemas.push_back(schema);
  m.last_column_id = new_last;
  last_added_schema_id_ = id;
  changes_.push_back(update::AddSchema{std::move(schema), new_last});
  return Ok();
}

Status TableMetadataBuilder::SetCurrentSchema(int32_t id) {
  TableMetadata& m = metadata_;
  FLOE_ASSIGN_OR_RETURN(
      id, ResolveLastAdded(id, last_added_schema_id_, "set-current-schema", "schema"));
  if (m.SchemaById(id) == nullptr) {
    return InvalidArgument("set-current-schema: no schema with id {}", id);
  }
  if (m.current_schema_id == id && !is_new_) return Ok();
  m.current_schema_id = id;
  changes_.push_back(update::SetCurrentSchema{id});
  return Ok();
}

Status TableMetadataBuilder::AddSpec(const update::AddPartitionSpec& u) {
  TableMetadata& m = metadata_;
  std::vector<PartitionField> fields = u.spec.fields();
  if (u.assign_field_ids) {
    int32_t next_field_id = m.last_partition_id + 1;
    for (auto& f : fields) f.field_id = next_field_id++;
  }
  const types::Schema* schema = m.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("add-spec: the table has no current schema");
  PartitionSpec candidate(u.spec.spec_id(), fields);
  FLOE_RETURN_IF_ERROR_CTX(candidate.Validate(*schema), "add-spec");
  for (const auto& s : m.partition_specs) {
    if (s.EquivalentTo(candidate)) {
      last_added_spec_id_ = s.spec_id();
      return Ok();
    }
  }
  int32_t id = 0;
  for (const auto& s : m.partition_specs) id = std::max(id, s.spec_id() + 1);
  PartitionSpec spec(id, std::move(fields));
  m.partition_specs.push_back(spec);
  m.last_partition_id = std::max(m.last_partition_id, spec.last_assigned_field_id());
  last_added_spec_id_ = id;
  changes_.push_back(update::AddPartitionSpec{std::move(spec), false});
  return Ok();
}

Status TableMetadataBuilder::SetDefaultSpec(int32_t id) {
  TableMetadata& m = metadata_;
  FLOE_ASSIGN_OR_RETURN(id, ResolveLastAdded(id, last_added_spec_id_, "set-default-spec", "spec"));
  if (m.SpecById(id) == nullptr) return InvalidArgument("set-default-spec: no spec with id {}", id);
  if (m.default_spec_id == id && !is_new_) return Ok();
  m.default_spec_id = id;
  changes_.push_back(update::SetDefaultSpec{id});
  return Ok();
}

Status TableMetadataBuilder::AddSortOrder(const update::AddSortOrder& u) {
  TableMetadata& m = metadata_;
  for (const auto& o : m.sort_orders) {
    if (o.SameFieldsAs(u.sort_order)) {
      last_added_order_id_ = o.order_id();
      return Ok();
    }
  }
  int32_t id = 0;
  if (!u.sort_order.is_unsorted()) {
    id = 1;
    for (const auto& o : m.sort_orders) id = std::max(id, o.order_id() + 1);
  }
  SortOrder order(id, u.sort_order.fields());
  const types::Schema* schema = m.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("add-sort-order: the table has no current schema");
  FLOE_RETURN_IF_ERROR_CTX(order.Validate(*schema), "add-sort-order");
  m.sort_orders.push_back(order);
  last_added_order_id_ = id;
  changes_.push_back(update::AddSortOrder{std::move(order)});
  return Ok();
}

Status TableMetadataBuilder::SetDefaultSortOrder(int32_t id) {
  TableMetadata& m = metadata_;
  FLOE_ASSIGN_OR_RETURN(
      id, ResolveLastAdded(id, last_added_order_id_, "set-default-sort-order", "order"));
  if (m.SortOrderById(id) == nullptr) {
    return InvalidArgument("set-default-sort-order: no sort order with id {}", id);
  }
  if (m.default_sort_order_id == id && !is_new_) return Ok();
  m.default_sort_order_id = id;
  changes_.push_back(update::SetDefaultSortOrder{id});
  return Ok();
}

Status TableMetadataBuilder::AddSnapshot(const update::AddSnapshot& u) {
  TableMetadata& m = metadata_;
  const Snapshot& s = u.snapshot;
  if (m.SnapshotById(s.snapshot_id) != nullptr) {
    return InvalidArgument("add-snapshot: snapshot {} already exists", s.snapshot_id);
  }
  if (m.format_version >= 2) {
    if (s.manifest_list.empty()) {
      return InvalidArgument("add-snapshot: snapshot {} has no manifest-list", s.snapshot_id);
    }
    if (s.sequence_number <= m.last_sequence_number && s.parent_snapshot_id) {
      return InvalidArgument(
          "add-snapshot: sequence number {} of snapshot {} is not greater than the table's "
          "last-sequence-number {}",
          s.sequence_number, s.snapshot_id, m.last_sequence_number);
    }
  }
  if (s.parent_snapshot_id && m.SnapshotById(*s.parent_snapshot_id) == nullptr) {
    return InvalidArgument("add-snapshot: parent snapshot {} of snapshot {} does not exist",
                           *s.parent_snapshot_id, s.snapshot_id);
  }
  if (m.format_version >= 3) {
    if (!s.first_row_id || !s.added_rows) {
      return InvalidArgument("add-snapshot: v3 snapshot {} needs first-row-id and added-rows",
                             s.snapshot_id);
    }
    if (*s.first_row_id < m.next_row_id.value_or(0)) {
      return InvalidArgument(
          "add-snapshot: first-row-id {} of snapshot {} is below the table's next-row-id {}",
          *s.first_row_id, s.snapshot_id, m.next_row_id.value_or(0));
    }
    if (*s.added_rows < 0) {
      return InvalidArgument("add-snapshot: added-rows {} is negative", *s.added_rows);
    }
    m.next_row_id = *s.first_row_id + *s.added_rows;
  }
  m.snapshots.push_back(s);
  m.last_sequence_number = std::max(m.last_sequence_number, s.sequence_number);
  added_snapshot_ids_.insert(s.snapshot_id);
  changes_.push_back(u);
  return Ok();
}

Status TableMetadataBuilder::SetRef(const update::SetSnapshotRef& u) {
  TableMetadata& m = metadata_;
  if (u.ref_name.empty()) return InvalidArgument("set-snapshot-ref: empty ref name");
  const Snapshot* s = m.SnapshotById(u.ref.snapshot_id);
  if (s == nullptr) {
    return InvalidArgument("set-snapshot-ref: ref {} names unknown snapshot {}", u.ref_name,
                           u.ref.snapshot_id);
  }
  if (u.ref_name == kMainBranch && !u.ref.is_branch()) {
    return InvalidArgument("set-snapshot-ref: main must be a branch");
  }
  auto it = m.refs.find(u.ref_name);
  if (it != m.refs.end() && it->second == u.ref) return Ok();
  m.refs[u.ref_name] = u.ref;
  if (u.ref_name == kMainBranch) {
    m.current_snapshot_id = u.ref.snapshot_id;
    int64_t ts = added_snapshot_ids_.contains(s->snapshot_id) ? s->timestamp_ms : now_ms_;
    m.snapshot_log.push_back({ts, u.ref.snapshot_id});
  }
  changes_.push_back(u);
  return Ok();
}

Status TableMetadataBuilder::RemoveSnapshots(const update::RemoveSnapshots& u) {
  TableMetadata& m = metadata_;
  std::set<SnapshotId> removed;
  for (SnapshotId id : u.snapshot_ids) {
    if (m.SnapshotById(id) != nullptr) removed.insert(id);
  }
  if (removed.empty()) return Ok();
  std::erase_if(m.snapshots, [&](const Snapshot& s) { return removed.contains(s.snapshot_id); });
  for (auto it = m.refs.begin(); it != m.refs.end();) {
    if (removed.contains(it->second.snapshot_id)) {
      if (it->first == kMainBranch) m.current_snapshot_id.reset();
      it = m.refs.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(m.statistics,
                [&](const StatisticsFile& f) { return removed.contains(f.snapshot_id); });
  std::erase_if(m.partition_statistics,
                [&](const PartitionStatisticsFile& f) { return removed.contains(f.snapshot_id); });
  // The snapshot log keeps only the history after the last removed snapshot,
  // so that it never has gaps.
  std::vector<SnapshotLogEntry> log;
  for (const auto& e : m.snapshot_log) {
    if (m.SnapshotById(e.snapshot_id) == nullptr) {
      log.clear();
    } else {
      log.push_back(e);
    }
  }
  m.snapshot_log = std::move(log);
  changes_.push_back(update::RemoveSnapshots{{removed.begin(), removed.end()}});
  return Ok();
}

Status TableMetadataBuilder::RemoveRef(const std::string& name) {
  TableMetadata& m = metadata_;
  if (m.refs.erase(name) == 0) return Ok();
  if (name == kMainBranch) m.current_snapshot_id.reset();
  changes_.push_back(update::RemoveSnapshotRef{name});
  return Ok();
}

Result<TableMetadata> TableMetadataBuilder::Build() const& {
  TableMetadata m = metadata_;
  FLOE_RETURN_IF_ERROR(Finish(m));
  return m;
}

Result<TableMetadata> TableMetadataBuilder::Build() && {
  TableMetadata m = std::move(metadata_);
  FLOE_RETURN_IF_ERROR(Finish(m));
  return m;
}

Status TableMetadataBuilder::Finish(TableMetadata& m) const {
  // An update with no changes is the base as it was.
  if (!is_new_ && changes_.empty() && base_last_updated_ms_) return Ok();
  if (is_new_) {
    if (m.schemas.empty()) return InvalidArgument("new table: no schema was added");
    if (m.partition_specs.empty()) m.partition_specs.push_back(PartitionSpec());
    if (m.sort_orders.empty()) m.sort_orders.push_back(SortOrder());
    if (m.table_uuid.empty()) m.table_uuid = GenerateUuid();
    if (m.location.empty()) return InvalidArgument("new table: no location was set");
  }
  int64_t updated = now_ms_;
  for (const auto& s : m.snapshots) {
    if (added_snapshot_ids_.contains(s.snapshot_id)) updated = std::max(updated, s.timestamp_ms);
  }
  if (base_last_updated_ms_) updated = std::max(updated, *base_last_updated_ms_);
  m.last_updated_ms = updated;
  if (base_last_updated_ms_ && !base_location_.empty()) {
    m.metadata_log.push_back({*base_last_updated_ms_, base_location_});
    int64_t keep = std::max<int64_t>(
        1, m.PropertyAsInt(table_properties::kWriteMetadataPreviousVersionsMax,
                           table_properties::kWriteMetadataPreviousVersionsMaxDefault));
    if (static_cast<int64_t>(m.metadata_log.size()) > keep) {
      m.metadata_log.erase(m.metadata_log.begin(),
                           m.metadata_log.end() - static_cast<std::ptrdiff_t>(keep));
    }
  }
  if (auto s = m.Validate(); !s) {
    return InvalidArgument("the updated metadata is not valid: {}", s.error().message());
  }
  return Ok();
}

Result<TableMetadata> CommitTableChanges(const TableMetadata* base, std::string_view base_location,
                                         const std::vector<TableRequirement>& requirements,
                                         const std::vector<TableUpdate>& updates,
                                         TableMetadataBuilder::Options options) {
  FLOE_RETURN_IF_ERROR(CheckRequirements(requirements, base));
  if (base == nullptr) {
    int version = kDefaultFormatVersion;
    for (const auto& u : updates) {
      if (auto* v = std::get_if<update::UpgradeFormatVersion>(&u)) version = v->format_version;
    }
    FLOE_ASSIGN_OR_RETURN(auto builder, TableMetadataBuilder::ForNewTable(version, options));
    FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
    return std::move(builder).Build();
  }
  auto builder = TableMetadataBuilder::ForUpdate(*base, std::string(base_location), options);
  FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
  return std::move(builder).Build();
}

}  // namespace floe::iceberg
