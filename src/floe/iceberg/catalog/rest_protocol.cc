#include "floe/iceberg/catalog/rest_protocol.h"

#include <algorithm>
#include <set>

#include "floe/common/base64.h"
#include "floe/common/printable.h"

namespace floe::iceberg::rest {
namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

template <typename T, typename Id>
std::set<int32_t> Ids(const std::vector<T>& items, Id id) {
  std::set<int32_t> out;
  for (const auto& item : items) out.insert(id(item));
  return out;
}

// The snapshot `ref` points at in `metadata`, or nullopt.
std::optional<SnapshotId> RefSnapshot(const TableMetadata& metadata, const std::string& ref) {
  auto it = metadata.refs.find(ref);
  if (it != metadata.refs.end()) return it->second.snapshot_id;
  // Metadata without refs (v1 style) still has a current snapshot for main.
  if (ref == "main" && metadata.refs.empty()) return metadata.current_snapshot_id;
  return std::nullopt;
}

int32_t SchemaIdOf(const types::Schema& s) { return s.schema_id(); }
int32_t SpecIdOf(const PartitionSpec& s) { return s.spec_id(); }

}  // namespace

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (Unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) {
      return InvalidArgument("bad percent escape at offset {} of '{}'", i, PrintableMessage(text));
    }
    int hi = HexValue(text[i + 1]), lo = HexValue(text[i + 2]);
    if (hi < 0 || lo < 0) {
      return InvalidArgument("bad percent escape at offset {} of '{}'", i, PrintableMessage(text));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string EncodeNamespace(const Namespace& ns, std::string_view encoded_separator) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += encoded_separator;
    out += PercentEncode(ns[i]);
  }
  return out;
}

namespace {

// The schemas `updated` adds and its current schema (-1 names the last one added).
void DiffSchemas(const TableMetadata& base, const TableMetadata& updated, CommitChanges& out) {
  std::set<int32_t> base_schemas = Ids(base.schemas, SchemaIdOf);
  std::optional<int32_t> last_added_schema;
  for (const auto& schema : updated.schemas) {
    if (base_schemas.contains(schema.schema_id())) continue;
    out.updates.push_back(update::AddSchema{schema, updated.last_column_id});
    last_added_schema = schema.schema_id();
  }
  if (last_added_schema) {
    out.requirements.push_back(requirement::AssertLastAssignedFieldId{base.last_column_id});
  }
  if (updated.current_schema_id != base.current_schema_id) {
    out.requirements.push_back(requirement::AssertCurrentSchemaId{base.current_schema_id});
    out.updates.push_back(update::SetCurrentSchema{
        last_added_schema == updated.current_schema_id ? -1 : updated.current_schema_id});
  }
}

// The partition specs `updated` adds and its default spec (-1 names the last one added).
void DiffPartitionSpecs(const TableMetadata& base, const TableMetadata& updated,
                        CommitChanges& out) {
  std::set<int32_t> base_specs = Ids(base.partition_specs, SpecIdOf);
  std::optional<int32_t> last_added_spec;
  for (const auto& spec : updated.partition_specs) {
    if (base_specs.contains(spec.spec_id())) continue;
    out.updates.push_back(update::AddPartitionSpec{spec, false});
    last_added_spec = spec.spec_id();
  }
  if (last_added_spec) {
    out.requirements.push_back(requirement::AssertLastAssignedPartitionId{base.last_partition_id});
  }
  if (updated.default_spec_id != base.default_spec_id) {
    out.requirements.push_back(requirement::AssertDefaultSpecId{base.default_spec_id});
    out.updates.push_back(update::SetDefaultSpec{
        last_added_spec == updated.default_spec_id ? -1 : updated.default_spec_id});
  }
}

// The sort orders `updated` adds and its default order (-1 names the last one added).
void DiffSortOrders(const TableMetadata& base, const TableMetadata& updated, CommitChanges& out) {
  auto order_id = [](const SortOrder& o) { return o.order_id(); };
  std::set<int32_t> base_orders = Ids(base.sort_orders, order_id);
  std::optional<int32_t> last_added_order;
  for (const auto& order : updated.sort_orders) {
    if (base_orders.contains(order.order_id())) continue;
    out.updates.push_back(update::AddSortOrder{order});
    last_added_order = order.order_id();
  }
  if (updated.default_sort_order_id != base.default_sort_order_id) {
    out.requirements.push_back(requirement::AssertDefaultSortOrderId{base.default_sort_order_id});
    out.updates.push_back(update::SetDefaultSortOrder{
        last_added_order == updated.default_sort_order_id ? -1 : updated.default_sort_order_id});
  }
}

// Properties set or changed, then properties removed.
void DiffProperties(const TableMetadata& base, const TableMetadata& updated, CommitChanges& out) {
  update::SetProperties set_properties;
  for (const auto& [key, value] : updated.properties) {
    auto it = base.properties.find(key);
    if (it == base.properties.end() || it->second != value) set_properties.updates[key] = value;
  }
  if (!set_properties.updates.empty()) out.updates.push_back(std::move(set_properties));
  update::RemoveProperties remove_properties;
  for (const auto& [key, value] : base.properties) {
    if (!updated.properties.contains(key)) remove_properties.removals.push_back(key);
  }
  if (!remove_properties.removals.empty()) out.updates.push_back(std::move(remove_properties));
}

// Snapshots added, oldest first (a child's parent is added before it).
void AddNewSnapshots(const TableMetadata& base, const TableMetadata& updated, CommitChanges& out) {
  std::set<SnapshotId> base_snapshots;
  for (const auto& s : base.snapshots) base_snapshots.insert(s.snapshot_id);
  std::vector<const Snapshot*> added;
  for (const auto& s : updated.snapshots) {
    if (!base_snapshots.contains(s.snapshot_id)) added.push_back(&s);
  }
  std::stable_sort(added.begin(), added.end(), [](const Snapshot* a, const Snapshot* b) {
    return a->sequence_number < b->sequence_number;
  });
  for (const Snapshot* s : added) out.updates.push_back(update::AddSnapshot{*s});
}

// Refs removed, then snapshots removed, then refs set or moved. Metadata without
// refs moves main through its current snapshot alone.
void DiffRefsAndRemovedSnapshots(const TableMetadata& base, const TableMetadata& updated,
                                 CommitChanges& out) {
  for (const auto& [name, ref] : base.refs) {
    if (updated.refs.contains(name)) continue;
    if (name != "main") {
      out.requirements.push_back(requirement::AssertRefSnapshotId{name, ref.snapshot_id});
    }
    out.updates.push_back(update::RemoveSnapshotRef{name});
  }
  std::set<SnapshotId> base_snapshots, updated_snapshots;
  for (const auto& s : base.snapshots) base_snapshots.insert(s.snapshot_id);
  for (const auto& s : updated.snapshots) updated_snapshots.insert(s.snapshot_id);
  update::RemoveSnapshots removed_snapshots;
  for (SnapshotId id : base_snapshots) {
    if (!updated_snapshots.contains(id)) removed_snapshots.snapshot_ids.push_back(id);
  }
  if (!removed_snapshots.snapshot_ids.empty()) out.updates.push_back(std::move(removed_snapshots));
  for (const auto& [name, ref] : updated.refs) {
    auto it = base.refs.find(name);
    if (it != base.refs.end() && it->second == ref) continue;
    if (name != "main") {
      out.requirements.push_back(requirement::AssertRefSnapshotId{name, RefSnapshot(base, name)});
    }
    out.updates.push_back(update::SetSnapshotRef{name, ref});
  }
  if (updated.refs.empty() && updated.current_snapshot_id &&
      updated.current_snapshot_id != base.current_snapshot_id) {
    SnapshotRef main;
    main.snapshot_id = *updated.current_snapshot_id;
    out.updates.push_back(update::SetSnapshotRef{"main", main});
  }
}

// Statistics files set (new or changed) and removed (no file left for the
// snapshot), first table statistics, then partition statistics.
template <typename SetUpdate, typename RemoveUpdate, typename Stats>
void DiffStatisticsFiles(const std::vector<Stats>& base, const std::vector<Stats>& updated,
                         CommitChanges& out) {
  for (const auto& stats : updated) {
    if (std::find(base.begin(), base.end(), stats) == base.end()) {
      out.updates.push_back(SetUpdate{stats});
    }
  }
  for (const auto& stats : base) {
    bool kept = std::any_of(updated.begin(), updated.end(),
                            [&](const auto& s) { return s.snapshot_id == stats.snapshot_id; });
    if (!kept) out.updates.push_back(RemoveUpdate{stats.snapshot_id});
  }
}

void DiffStatistics(const TableMetadata& base, const TableMetadata& updated, CommitChanges& out) {
  DiffStatisticsFiles<update::SetStatistics, update::RemoveStatistics>(base.statistics,
                                                                       updated.statistics, out);
  DiffStatisticsFiles<update::SetPartitionStatistics, update::RemovePartitionStatistics>(
      base.partition_statistics, updated.partition_statistics, out);
}

// Schemas, then partition specs, that `updated` no longer lists.
void RemoveDroppedSchemasAndSpecs(const TableMetadata& base, const TableMetadata& updated,
                                  CommitChanges& out) {
  update::RemoveSchemas removed_schemas;
  std::set<int32_t> updated_schemas = Ids(updated.schemas, SchemaIdOf);
  for (int32_t id : Ids(base.schemas, SchemaIdOf)) {
    if (!updated_schemas.contains(id)) removed_schemas.schema_ids.push_back(id);
  }
  if (!removed_schemas.schema_ids.empty()) out.updates.push_back(std::move(removed_schemas));
  update::RemovePartitionSpecs removed_specs;
  std::set<int32_t> updated_specs = Ids(updated.partition_specs, SpecIdOf);
  for (int32_t id : Ids(base.partition_specs, SpecIdOf)) {
    if (!updated_specs.contains(id)) removed_specs.spec_ids.push_back(id);
  }
  if (!removed_specs.spec_ids.empty()) out.updates.push_back(std::move(removed_specs));
}

}  // namespace

Result<CommitChanges> DiffForCommit(const TableMetadata& base, const TableMetadata& updated) {
  if (!base.table_uuid.empty() && updated.table_uuid != base.table_uuid) {
    return InvalidArgument("a commit cannot change the table uuid ({} to {})", base.table_uuid,
                           updated.table_uuid);
  }
  if (updated.encryption_keys != base.encryption_keys) {
    return NotSupported("the REST catalog client does not commit encryption key changes yet");
  }
  CommitChanges out;
  if (!base.table_uuid.empty()) {
    out.requirements.push_back(requirement::AssertTableUuid{base.table_uuid});
  }
  out.requirements.push_back(requirement::AssertRefSnapshotId{"main", RefSnapshot(base, "main")});
  if (updated.format_version > base.format_version) {
    out.updates.push_back(update::UpgradeFormatVersion{updated.format_version});
  }
  DiffSchemas(base, updated, out);
  DiffPartitionSpecs(base, updated, out);
  DiffSortOrders(base, updated, out);
  if (!updated.location.empty() && updated.location != base.location) {
    out.updates.push_back(update::SetLocation{updated.location});
  }
  DiffProperties(base, updated, out);
  AddNewSnapshots(base, updated, out);
  DiffRefsAndRemovedSnapshots(base, updated, out);
  DiffStatistics(base, updated, out);
  RemoveDroppedSchemasAndSpecs(base, updated, out);
  return out;
}

nlohmann::ordered_json CommitRequestJson(const TableIdentifier& id, const CommitChanges& changes,
                                         int format_version) {
  nlohmann::ordered_json body;
  body["identifier"] = {{"namespace", id.ns}, {"name", id.name}};
  body["requirements"] = nlohmann::ordered_json::array();
  for (const auto& r : changes.requirements) {
    body["requirements"].push_back(TableRequirementToJson(r));
  }
  body["updates"] = nlohmann::ordered_json::array();
  for (const auto& u : changes.updates)
    body["updates"].push_back(TableUpdateToJson(u, format_version));
  return body;
}

std::optional<int64_t> JwtExpiresAt(std::string_view token) {
  const size_t first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const size_t second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  // base64url without padding (RFC 7515) to standard base64.
  std::string payload(token.substr(first + 1, second - first - 1));
  for (char& c : payload) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  if (payload.size() % 4 == 1) return std::nullopt;
  while (payload.size() % 4 != 0) payload.push_back('=');
  std::string decoded;
  if (!Base64Decode(payload, &decoded)) return std::nullopt;
  auto claims = nlohmann::json::parse(decoded, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object()) return std::nullopt;
  auto exp = claims.find("exp");
  if (exp == claims.end() || !exp->is_number_integer()) return std::nullopt;
  return exp->get<int64_t>();
}

Error ErrorForAnswer(Call call, long status, std::string_view body, std::string_view what) {
  std::string message;
  std::string type;
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error") && json["error"].is_object()) {
    const auto& e = json["error"];
    if (e.contains("message") && e["message"].is_string())
      message = e["message"].get<std::string>();
    if (e.contains("type") && e["type"].is_string()) type = e["type"].get<std::string>();
  }
  if (message.empty()) {
    message = std::string(body.substr(0, 200));
    if (message.empty()) message = "no message";
  }
  message = PrintableMessage(message);
  std::string text = fmt::format("{}: {} (HTTP {}{}{})", what, message, status,
                                 type.empty() ? "" : " ", PrintableMessage(type));
  ErrorCode code = ErrorCode::kIo;
  switch (status) {
    case 400:
    case 422:
      code = ErrorCode::kInvalidArgument;
      break;
    case 401:
    case 403:
    case 419:
      code = ErrorCode::kInvalidArgument;
      text = fmt::format("{}: not authorized: {} (HTTP {})", what, message, status);
      break;
    case 404:
      code = ErrorCode::kNotFound;
      break;
    case 406:
    case 501:
      code = ErrorCode::kNotSupported;
      break;
    case 409:
      code = call == Call::kCreate          ? ErrorCode::kAlreadyExists
             : call == Call::kCommit        ? ErrorCode::kCommitConflict
             : call == Call::kDropNamespace ? ErrorCode::kInvalidArgument
                                            : ErrorCode::kAlreadyExists;
      break;
    default:
      if (status >= 500 && call == Call::kCommit) {
        code = ErrorCode::kCommitStateUnknown;
      } else if (status >= 500 || status == 429) {
        code = ErrorCode::kIo;
      } else {
        code = ErrorCode::kInvalidArgument;
      }
  }
  return Error(code, std::move(text));
}

}  // namespace floe::iceberg::rest
