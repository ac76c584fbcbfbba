#include "floe/iceberg/json/metadata_json.h"

#include <zlib.h>

#include <algorithm>
#include <set>

#include "floe/iceberg/json/metadata_json_util.h"
#include "floe/iceberg/json/partition_spec_json.h"
#include "floe/iceberg/json/sort_order_json.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {

using internal::IndexPath;
using internal::JsonObjectReader;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

/// Metadata files larger than this when inflated are refused.
constexpr size_t kMaxInflatedBytes = size_t{1} << 30;
/// Metadata JSON nested deeper than this is refused: copying, converting and
/// writing a JSON value recurse once per level (Jackson's default limit).
constexpr int kMaxJsonDepth = 1000;
// Every schema floe writes (types::kMaxTypeDepth) fits within the limit.
static_assert(3 * types::kMaxTypeDepth + 10 < kMaxJsonDepth);

std::unexpected<Error> Fail(ErrorCode code, std::string_view path, std::string_view message) {
  return std::unexpected(Error(code, fmt::format("{}: {}", path, message)));
}

Result<std::string> Gunzip(std::string_view bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return InternalError("inflateInit2 failed");
  std::string out;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= kMaxInflatedBytes) {
      inflateEnd(&zs);
      return Corruption("gzip: inflates to more than {} bytes", kMaxInflatedBytes);
    }
    size_t old = out.size();
    out.resize(old + 64 * 1024);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    zs.avail_out = 64 * 1024;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(out.size() - zs.avail_out);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Corruption("gzip: bad compressed data at input offset {}", zs.total_in);
    }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      inflateEnd(&zs);
      return Corruption("gzip: truncated at input offset {}", zs.total_in);
    }
  }
  inflateEnd(&zs);
  return out;
}

const std::set<std::string, std::less<>>& KnownTopLevel() {
  static const std::set<std::string, std::less<>> known = {"format-version",
                                                           "table-uuid",
                                                           "location",
                                                           "last-sequence-number",
                                                           "last-updated-ms",
                                                           "last-column-id",
                                                           "schema",
                                                           "schemas",
                                                           "current-schema-id",
                                                           "partition-spec",
                                                           "partition-specs",
                                                           "default-spec-id",
                                                           "last-partition-id",
                                                           "properties",
                                                           "current-snapshot-id",
                                                           "snapshots",
                                                           "snapshot-log",
                                                           "metadata-log",
                                                           "sort-orders",
                                                           "default-sort-order-id",
                                                           "refs",
                                                           "statistics",
                                                           "partition-statistics",
                                                           "next-row-id",
                                                           "encryption-keys"};
  return known;
}

const std::set<std::string, std::less<>>& KnownSnapshotMembers() {
  static const std::set<std::string, std::less<>> known = {
      "snapshot-id",   "parent-snapshot-id", "sequence-number", "timestamp-ms",
      "manifest-list", "manifests",          "summary",         "schema-id",
      "first-row-id",  "added-rows",         "key-id"};
  return known;
}

}  // namespace

Result<types::Schema> SchemaFromMetadataJson(const json& j, const std::string& path,
                                             ErrorCode code) {
  auto schema = types::SchemaFromJson(j, /*corruption=*/true);
  if (!schema) {
    std::string message = schema.error().message();
    // SchemaFromJson names members relative to the schema ("fields[2].type: ...").
    if (message.starts_with("schema: ")) message = message.substr(8);
    if (message.starts_with("fields[") || message.starts_with("identifier-field-ids")) {
      return std::unexpected(Error(code, fmt::format("{}.{}", path, message)));
    }
    return Fail(code, path, message);
  }
  return schema;
}

Result<PartitionSpec> SpecFromMetadataJson(const json& j, const std::string& path, ErrorCode code,
                                           bool require_field_ids) {
  if (require_field_ids && j.is_object()) {
    if (auto fields = j.find("fields"); fields != j.end() && fields->is_array()) {
      for (size_t i = 0; i < fields->size(); ++i) {
        const json& f = (*fields)[i];
        if (f.is_object() && !f.contains("field-id")) {
          return Fail(code, fmt::format("{}.fields[{}].field-id", path, i), "missing");
        }
      }
    }
  }
  auto spec = PartitionSpecFromJsonValue(j, 0, code);
  if (!spec) return std::unexpected(std::move(spec).error().WithContext(path));
  return spec;
}

Result<SortOrder> SortOrderFromMetadataJson(const json& j, const std::string& path,
                                            ErrorCode code) {
  auto order = SortOrderFromJsonValue(j, code);
  if (!order) return std::unexpected(std::move(order).error().WithContext(path));
  return order;
}

Result<Snapshot> SnapshotFromJson(const json& j, const std::string& path, ErrorCode code) {
  JsonObjectReader r(j, path, code);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  Snapshot s;
  FLOE_ASSIGN_OR_RETURN(s.snapshot_id, r.Long("snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(s.parent_snapshot_id, r.OptLong("parent-snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(auto seq, r.OptLong("sequence-number"));
  s.sequence_number = seq.value_or(0);
  FLOE_ASSIGN_OR_RETURN(s.timestamp_ms, r.Long("timestamp-ms"));
  if (r.Has("manifest-list")) {
    FLOE_ASSIGN_OR_RETURN(s.manifest_list, r.String("manifest-list"));
  } else if (r.Has("manifests")) {
    FLOE_ASSIGN_OR_RETURN(s.manifests, r.StringList("manifests"));
  } else {
    return r.Fail("manifest-list", "missing");
  }
  FLOE_ASSIGN_OR_RETURN(s.summary, r.StringMap("summary"));
  if (auto op = s.summary.find("operation"); op != s.summary.end()) {
    s.operation = op->second;
    s.summary.erase(op);
  } else if (r.Has("summary")) {
    return r.Fail("summary.operation", "missing");
  }
  FLOE_ASSIGN_OR_RETURN(s.schema_id, r.OptInt("schema-id"));
  FLOE_ASSIGN_OR_RETURN(s.first_row_id, r.OptLong("first-row-id"));
  FLOE_ASSIGN_OR_RETURN(s.added_rows, r.OptLong("added-rows"));
  FLOE_ASSIGN_OR_RETURN(s.key_id, r.OptString("key-id"));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!KnownSnapshotMembers().contains(it.key())) s.extra[it.key()] = it.value();
  }
  return s;
}

ordered_json SnapshotToJson(const Snapshot& s, int format_version) {
  ordered_json j;
  j["snapshot-id"] = s.snapshot_id;
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  if (format_version >= 2) j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  if (!s.operation.empty() || !s.summary.empty()) {
    ordered_json summary = ordered_json::object();
    summary["operation"] = s.operation.empty() ? std::string(operation::kAppend) : s.operation;
    for (const auto& [k, v] : s.summary) summary[k] = v;
    j["summary"] = std::move(summary);
  }
  if (!s.manifest_list.empty()) {
    j["manifest-list"] = s.manifest_list;
  } else {
    j["manifests"] = s.manifests;
  }
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  if (s.first_row_id) j["first-row-id"] = *s.first_row_id;
  if (s.added_rows) j["added-rows"] = *s.added_rows;
  if (s.key_id) j["key-id"] = *s.key_id;
  for (auto it = s.extra.begin(); it != s.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

Result<SnapshotRef> SnapshotRefFromJson(const json& j, const std::string& path, ErrorCode code) {
  JsonObjectReader r(j, path, code);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  SnapshotRef ref;
  FLOE_ASSIGN_OR_RETURN(ref.snapshot_id, r.Long("snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(std::string type, r.String("type"));
  if (type == "branch") {
    ref.type = SnapshotRefType::kBranch;
  } else if (type == "tag") {
    ref.type = SnapshotRefType::kTag;
  } else {
    return r.Fail("type", fmt::format("'{}' is not branch or tag", type));
  }
  FLOE_ASSIGN_OR_RETURN(ref.min_snapshots_to_keep, r.OptInt("min-snapshots-to-keep"));
  FLOE_ASSIGN_OR_RETURN(ref.max_snapshot_age_ms, r.OptLong("max-snapshot-age-ms"));
  FLOE_ASSIGN_OR_RETURN(ref.max_ref_age_ms, r.OptLong("max-ref-age-ms"));
  return ref;
}

ordered_json SnapshotRefToJson(const SnapshotRef& ref) {
  ordered_json j;
  j["snapshot-id"] = ref.snapshot_id;
  j["type"] = SnapshotRefTypeName(ref.type);
  if (ref.min_snapshots_to_keep) j["min-snapshots-to-keep"] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) j["max-snapshot-age-ms"] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) j["max-ref-age-ms"] = *ref.max_ref_age_ms;
  return j;
}

Result<StatisticsFile> StatisticsFileFromJson(const json& j, const std::string& path,
                                              ErrorCode code) {
  JsonObjectReader r(j, path, code);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  StatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, r.Long("snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.statistics_path, r.String("statistics-path"));
  FLOE_RETURN_IF_ERROR(r.Long("file-size-in-bytes"));
  FLOE_RETURN_IF_ERROR(r.Long("file-footer-size-in-bytes"));
  FLOE_RETURN_IF_ERROR(r.Array("blob-metadata"));
  f.json = j;
  return f;
}

ordered_json StatisticsFileToJson(const StatisticsFile& f) {
  ordered_json j;
  j["snapshot-id"] = f.snapshot_id;
  j["statistics-path"] = f.statistics_path;
  for (auto it = f.json.begin(); it != f.json.end(); ++it) {
    if (it.key() != "snapshot-id" && it.key() != "statistics-path") j[it.key()] = it.value();
  }
  return j;
}

Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(const json& j,
                                                                const std::string& path,
                                                                ErrorCode code) {
  JsonObjectReader r(j, path, code);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  PartitionStatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, r.Long("snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.statistics_path, r.String("statistics-path"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, r.Long("file-size-in-bytes"));
  return f;
}

ordered_json PartitionStatisticsFileToJson(const PartitionStatisticsFile& f) {
  ordered_json j;
  j["snapshot-id"] = f.snapshot_id;
  j["statistics-path"] = f.statistics_path;
  j["file-size-in-bytes"] = f.file_size_in_bytes;
  return j;
}

Result<EncryptionKey> EncryptionKeyFromJson(const json& j, const std::string& path,
                                            ErrorCode code) {
  JsonObjectReader r(j, path, code);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  EncryptionKey k;
  FLOE_ASSIGN_OR_RETURN(k.key_id, r.String("key-id"));
  k.json = j;
  return k;
}

namespace {

constexpr ErrorCode kMetadataCode = ErrorCode::kCorruption;

// format-version (checked against what floe reads), table-uuid, location,
// last-sequence-number, last-updated-ms and last-column-id.
Status ReadVersionAndCounters(const JsonObjectReader& r, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(m.format_version, r.Int("format-version"));
  if (m.format_version > kMaxFormatVersion) {
    return NotSupported("format-version: {} is not supported (floe reads {} to {})",
                        m.format_version, kMinFormatVersion, kMaxFormatVersion);
  }
  if (m.format_version < kMinFormatVersion) {
    return r.Fail("format-version", fmt::format("{} is not a format version", m.format_version));
  }
  const int v = m.format_version;
  if (v >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.table_uuid, r.String("table-uuid"));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto uuid, r.OptString("table-uuid"));
    m.table_uuid = uuid.value_or("");
  }
  FLOE_ASSIGN_OR_RETURN(m.location, r.String("location"));
  if (v >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.last_sequence_number, r.Long("last-sequence-number"));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto seq, r.OptLong("last-sequence-number"));
    m.last_sequence_number = seq.value_or(0);
  }
  FLOE_ASSIGN_OR_RETURN(m.last_updated_ms, r.Long("last-updated-ms"));
  FLOE_ASSIGN_OR_RETURN(m.last_column_id, r.Int("last-column-id"));
  return {};
}

// "schemas" and "current-schema-id", or v1's single "schema".
Status ReadSchemas(const JsonObjectReader& r, TableMetadata& m) {
  const int v = m.format_version;
  if (v < 2 && !r.Has("schemas")) {
    FLOE_ASSIGN_OR_RETURN(const json* schema, r.Object("schema"));
    FLOE_ASSIGN_OR_RETURN(auto s, SchemaFromMetadataJson(*schema, "schema", kMetadataCode));
    m.current_schema_id = s.schema_id();
    m.schemas.push_back(std::move(s));
    return {};
  }
  FLOE_ASSIGN_OR_RETURN(const json* schemas, r.Array("schemas"));
  for (size_t i = 0; i < schemas->size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(
        auto schema, SchemaFromMetadataJson((*schemas)[i], IndexPath("schemas", i), kMetadataCode));
    m.schemas.push_back(std::move(schema));
  }
  if (v >= 2 || r.Has("current-schema-id")) {
    FLOE_ASSIGN_OR_RETURN(m.current_schema_id, r.Int("current-schema-id"));
  } else if (!m.schemas.empty()) {
    m.current_schema_id = m.schemas.front().schema_id();
  }
  return {};
}

// "partition-specs" and "default-spec-id", or v1's single "partition-spec";
// then last-partition-id (in v1 derived from the specs when absent).
Status ReadPartitionSpecs(const JsonObjectReader& r, TableMetadata& m) {
  const int v = m.format_version;
  if (v >= 2 || r.Has("partition-specs")) {
    FLOE_ASSIGN_OR_RETURN(const json* specs, r.Array("partition-specs"));
    for (size_t i = 0; i < specs->size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(auto spec,
                            SpecFromMetadataJson((*specs)[i], IndexPath("partition-specs", i),
                                                 kMetadataCode, v >= 2));
      m.partition_specs.push_back(std::move(spec));
    }
    if (v >= 2 || r.Has("default-spec-id")) {
      FLOE_ASSIGN_OR_RETURN(m.default_spec_id, r.Int("default-spec-id"));
    } else if (!m.partition_specs.empty()) {
      m.default_spec_id = m.partition_specs.front().spec_id();
    }
  } else {
    FLOE_ASSIGN_OR_RETURN(const json* fields, r.Array("partition-spec"));
    FLOE_ASSIGN_OR_RETURN(auto s,
                          SpecFromMetadataJson(*fields, "partition-spec", kMetadataCode, false));
    m.partition_specs.push_back(std::move(s));
    m.default_spec_id = 0;
  }
  if (v >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.last_partition_id, r.Int("last-partition-id"));
  } else {
    int32_t last = kInitialLastPartitionId;
    for (const auto& s : m.partition_specs) last = std::max(last, s.last_assigned_field_id());
    FLOE_ASSIGN_OR_RETURN(auto stored, r.OptInt("last-partition-id"));
    m.last_partition_id = stored.value_or(last);
  }
  return {};
}

// "sort-orders" and "default-sort-order-id"; v1 without them: unsorted.
Status ReadSortOrders(const JsonObjectReader& r, TableMetadata& m) {
  if (m.format_version < 2 && !r.Has("sort-orders")) {
    m.sort_orders.push_back(SortOrder());
    m.default_sort_order_id = 0;
    return {};
  }
  FLOE_ASSIGN_OR_RETURN(const json* orders, r.Array("sort-orders"));
  for (size_t i = 0; i < orders->size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(auto o, SortOrderFromMetadataJson(
                                      (*orders)[i], IndexPath("sort-orders", i), kMetadataCode));
    m.sort_orders.push_back(std::move(o));
  }
  FLOE_ASSIGN_OR_RETURN(m.default_sort_order_id, r.Int("default-sort-order-id"));
  return {};
}

// "refs"; a current snapshot without a main ref gets one.
Status ReadRefs(const JsonObjectReader& r, TableMetadata& m) {
  if (r.Has("refs")) {
    FLOE_ASSIGN_OR_RETURN(const json* refs, r.Object("refs"));
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      FLOE_ASSIGN_OR_RETURN(auto ref,
                            SnapshotRefFromJson(it.value(), "refs." + it.key(), kMetadataCode));
      m.refs.emplace(it.key(), ref);
    }
  }
  if (m.current_snapshot_id && !m.refs.contains(std::string(kMainBranch))) {
    m.refs.emplace(std::string(kMainBranch), SnapshotRef::Branch(*m.current_snapshot_id));
  }
  return {};
}

Result<SnapshotLogEntry> SnapshotLogEntryFromJson(const json& j, const std::string& path,
                                                  ErrorCode code) {
  JsonObjectReader e(j, path, code);
  FLOE_RETURN_IF_ERROR(e.CheckObject());
  SnapshotLogEntry entry;
  FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, e.Long("timestamp-ms"));
  FLOE_ASSIGN_OR_RETURN(entry.snapshot_id, e.Long("snapshot-id"));
  return entry;
}

Result<MetadataLogEntry> MetadataLogEntryFromJson(const json& j, const std::string& path,
                                                  ErrorCode code) {
  JsonObjectReader e(j, path, code);
  FLOE_RETURN_IF_ERROR(e.CheckObject());
  MetadataLogEntry entry;
  FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, e.Long("timestamp-ms"));
  FLOE_ASSIGN_OR_RETURN(entry.metadata_file, e.String("metadata-file"));
  return entry;
}

// Appends each element of the optional array `member`, read by `parse`.
template <typename T, typename Parse>
Status ReadOptionalArray(const JsonObjectReader& r, std::string_view member, Parse parse,
                         std::vector<T>& out) {
  FLOE_ASSIGN_OR_RETURN(const json* items, r.OptArray(member));
  for (size_t i = 0; items != nullptr && i < items->size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(T item, parse((*items)[i], IndexPath(member, i), kMetadataCode));
    out.push_back(std::move(item));
  }
  return {};
}

}  // namespace

Result<TableMetadata> TableMetadataFromJson(const json& j) {
  JsonObjectReader r(j, "", kMetadataCode);
  FLOE_RETURN_IF_ERROR(r.CheckObject());
  TableMetadata m;
  FLOE_RETURN_IF_ERROR(ReadVersionAndCounters(r, m));
  FLOE_RETURN_IF_ERROR(ReadSchemas(r, m));
  FLOE_RETURN_IF_ERROR(ReadPartitionSpecs(r, m));
  FLOE_ASSIGN_OR_RETURN(m.properties, r.StringMap("properties"));
  FLOE_ASSIGN_OR_RETURN(auto current, r.OptLong("current-snapshot-id"));
  if (current && *current != -1) m.current_snapshot_id = *current;
  FLOE_RETURN_IF_ERROR(ReadOptionalArray(r, "snapshots", SnapshotFromJson, m.snapshots));
  FLOE_RETURN_IF_ERROR(
      ReadOptionalArray(r, "snapshot-log", SnapshotLogEntryFromJson, m.snapshot_log));
  FLOE_RETURN_IF_ERROR(
      ReadOptionalArray(r, "metadata-log", MetadataLogEntryFromJson, m.metadata_log));
  FLOE_RETURN_IF_ERROR(ReadSortOrders(r, m));
  FLOE_RETURN_IF_ERROR(ReadRefs(r, m));
  FLOE_RETURN_IF_ERROR(ReadOptionalArray(r, "statistics", StatisticsFileFromJson, m.statistics));
  FLOE_RETURN_IF_ERROR(ReadOptionalArray(r, "partition-statistics", PartitionStatisticsFileFromJson,
                                         m.partition_statistics));
  FLOE_ASSIGN_OR_RETURN(m.next_row_id, r.OptLong("next-row-id"));
  FLOE_RETURN_IF_ERROR(
      ReadOptionalArray(r, "encryption-keys", EncryptionKeyFromJson, m.encryption_keys));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!KnownTopLevel().contains(it.key())) m.extra[it.key()] = it.value();
  }
  FLOE_RETURN_IF_ERROR(m.Validate());
  return m;
}

Result<TableMetadata> ParseTableMetadata(std::string_view text, std::string_view file_name) {
  std::string context = fmt::format("metadata {}", file_name);
  std::string inflated;
  if (text.size() >= 2 && static_cast<uint8_t>(text[0]) == 0x1f &&
      static_cast<uint8_t>(text[1]) == 0x8b) {
    auto g = Gunzip(text);
    if (!g) return std::unexpected(std::move(g).error().WithContext(context));
    inflated = std::move(*g);
    text = inflated;
  }
  bool too_deep = false;
  json j = json::parse(
      text.begin(), text.end(),
      [&too_deep](int depth, json::parse_event_t, json&) {
        if (depth <= kMaxJsonDepth) return true;
        too_deep = true;
        return false;  // not kept: the document never holds the deep part
      },
      /*allow_exceptions=*/false);
  if (j.is_discarded()) return Corruption("{}: not valid JSON", context);
  if (too_deep) {
    return Corruption("{}: JSON nested deeper than {} levels", context, kMaxJsonDepth);
  }
  auto m = TableMetadataFromJson(j);
  if (!m) return std::unexpected(std::move(m).error().WithContext(context));
  return m;
}

ordered_json TableMetadataToJson(const TableMetadata& m) {
  const int v = m.format_version;
  ordered_json j;
  j["format-version"] = v;
  if (!m.table_uuid.empty()) j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  if (v >= 2) j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-column-id"] = m.last_column_id;
  if (v == 1) {
    if (const types::Schema* s = m.CurrentSchema()) {
      j["schema"] = ordered_json(types::SchemaToJson(*s));
    }
  }
  j["current-schema-id"] = m.current_schema_id;
  ordered_json schemas = ordered_json::array();
  for (const auto& s : m.schemas) schemas.push_back(ordered_json(types::SchemaToJson(s)));
  j["schemas"] = std::move(schemas);
  if (v == 1) {
    if (const PartitionSpec* s = m.DefaultSpec())
      j["partition-spec"] = PartitionFieldsToJsonValue(*s);
  }
  j["default-spec-id"] = m.default_spec_id;
  ordered_json specs = ordered_json::array();
  for (const auto& s : m.partition_specs) specs.push_back(PartitionSpecToJsonValue(s));
  j["partition-specs"] = std::move(specs);
  j["last-partition-id"] = m.last_partition_id;
  j["default-sort-order-id"] = m.default_sort_order_id;
  ordered_json orders = ordered_json::array();
  for (const auto& o : m.sort_orders) orders.push_back(SortOrderToJsonValue(o));
  j["sort-orders"] = std::move(orders);
  ordered_json props = ordered_json::object();
  for (const auto& [k, val] : m.properties) props[k] = val;
  j["properties"] = std::move(props);
  if (m.current_snapshot_id) {
    j["current-snapshot-id"] = *m.current_snapshot_id;
  } else if (v < 3) {
    j["current-snapshot-id"] = -1;
  }
  ordered_json refs = ordered_json::object();
  for (const auto& [name, ref] : m.refs) refs[name] = SnapshotRefToJson(ref);
  j["refs"] = std::move(refs);
  ordered_json snapshots = ordered_json::array();
  for (const auto& s : m.snapshots) snapshots.push_back(SnapshotToJson(s, v));
  j["snapshots"] = std::move(snapshots);
  ordered_json stats = ordered_json::array();
  for (const auto& f : m.statistics) stats.push_back(StatisticsFileToJson(f));
  j["statistics"] = std::move(stats);
  ordered_json pstats = ordered_json::array();
  for (const auto& f : m.partition_statistics) pstats.push_back(PartitionStatisticsFileToJson(f));
  j["partition-statistics"] = std::move(pstats);
  ordered_json slog = ordered_json::array();
  for (const auto& e : m.snapshot_log) {
    ordered_json entry;
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["snapshot-id"] = e.snapshot_id;
    slog.push_back(std::move(entry));
  }
  j["snapshot-log"] = std::move(slog);
  ordered_json mlog = ordered_json::array();
  for (const auto& e : m.metadata_log) {
    ordered_json entry;
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["metadata-file"] = e.metadata_file;
    mlog.push_back(std::move(entry));
  }
  j["metadata-log"] = std::move(mlog);
  if (v >= 3) j["next-row-id"] = m.next_row_id.value_or(0);
  if (!m.encryption_keys.empty()) {
    ordered_json keys = ordered_json::array();
    for (const auto& k : m.encryption_keys) keys.push_back(ordered_json(k.json));
    j["encryption-keys"] = std::move(keys);
  }
  for (auto it = m.extra.begin(); it != m.extra.end(); ++it) {
    if (!j.contains(it.key())) j[it.key()] = ordered_json(it.value());
  }
  return j;
}

std::string SerializeTableMetadata(const TableMetadata& metadata, int indent) {
  return TableMetadataToJson(metadata).dump(indent);
}

Result<TableMetadata> ReadTableMetadata(io::FileIO& io, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(std::string text, io.ReadAll(location));
  return ParseTableMetadata(text, location);
}

Status WriteTableMetadata(io::FileIO& io, std::string_view location,
                          const TableMetadata& metadata) {
  // Nothing is written that ParseTableMetadata would refuse to read back.
  for (const types::Schema& schema : metadata.schemas) {
    FLOE_RETURN_IF_ERROR_CTX(types::CheckTypeDepth(schema), "writing metadata {}", location);
  }
  std::string text = SerializeTableMetadata(metadata);
  FLOE_ASSIGN_OR_RETURN(auto out, io.CreateOutput(location, /*overwrite=*/false));
  FLOE_RETURN_IF_ERROR_CTX(out->Write(text), "writing metadata {}", location);
  FLOE_RETURN_IF_ERROR_CTX(out->Sync(), "writing metadata {}", location);
  FLOE_RETURN_IF_ERROR_CTX(out->Close(), "writing metadata {}", location);
  return Ok();
}

}  // namespace floe::iceberg
