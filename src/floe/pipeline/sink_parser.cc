// sink: (type iceberg) of a pipeline file.

#include <algorithm>
#include <cctype>

#include "floe/pipeline/block_reader.h"
#include "floe/pipeline/section_parsers.h"
#include "floe/pipeline/values.h"

namespace floe::pipeline {
namespace {

const std::vector<std::string> kSinkTypes = {"iceberg"};
const std::vector<std::string> kSinkKeys = {
    "type",
    "name",
    "catalog",
    "table.properties",
    "partition.key",
    "include.schema.changes",
    "exclude.schema.changes",
};
constexpr SchemaChangeType kAllSchemaChanges[] = {
    SchemaChangeType::kAddColumn,     SchemaChangeType::kAlterColumnType,
    SchemaChangeType::kCreateTable,   SchemaChangeType::kDropColumn,
    SchemaChangeType::kDropTable,     SchemaChangeType::kRenameColumn,
    SchemaChangeType::kTruncateTable,
};

/// The event types a name in include/exclude.schema.changes stands for: an
/// event type, or a family (its first word, "column", "table", "all").
std::vector<SchemaChangeType> SchemaChangeFamily(std::string_view name) {
  std::vector<SchemaChangeType> out;
  for (SchemaChangeType type : kAllSchemaChanges) {
    std::string_view full = SchemaChangeTypeName(type);
    std::string_view verb = full.substr(0, full.find('.'));
    bool is_column = full.find(".column") != std::string_view::npos;
    if (name == full || name == verb || name == "all" || (name == "column" && is_column) ||
        (name == "table" && !is_column)) {
      out.push_back(type);
    }
  }
  return out;
}

Result<std::set<SchemaChangeType>> ParseSchemaChanges(BlockReader& r, std::string_view key) {
  std::set<SchemaChangeType> out;
  FLOE_ASSIGN_OR_RETURN(auto text, r.StringOrList(key));
  if (!text) return out;
  const std::vector<std::string>& names = SchemaChangeTypeNames();
  std::string_view rest = *text;
  while (true) {
    size_t comma = rest.find(',');
    std::string name(rest.substr(0, comma));
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty()) {
      std::vector<SchemaChangeType> types = SchemaChangeFamily(name);
      if (types.empty()) {
        return r.Fail(*r.Get(key),
                      "'{}' is not a schema change event type (expected: {}; or a family: add, "
                      "alter, create, drop, rename, truncate, column, table, all){}",
                      name, JoinNames(names), DidYouMean(name, names));
      }
      out.insert(types.begin(), types.end());
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

Status AddTableProperty(BlockReader& r, SinkDefinition& sink, const std::string& name,
                        const DocumentEntry& entry) {
  if (!entry.value.is_scalar()) {
    return r.Fail(entry, "expected a single value, found {}", KindName(entry.value.kind));
  }
  sink.table_properties[name] = entry.value.scalar;
  return Ok();
}

}  // namespace

Result<SinkDefinition> ParseSinkSection(const DocumentEntry& section, const std::string& base_dir) {
  FLOE_ASSIGN_OR_RETURN(
      BlockReader r,
      BlockReader::OfMapping(section.value, "sink",
                             "a mapping of settings (type: iceberg, catalog: ..., ...)"));
  FLOE_RETURN_IF_ERROR(r.Refuse({"job.id.prefix"}, {"sink.compaction.", "sink.maintenance."},
                                "floe does not compact or maintain tables while it writes"));
  FLOE_RETURN_IF_ERROR(r.Refuse({}, {"hadoop.conf."}, "floe has no Hadoop configuration"));
  r.Declare(kSinkKeys, {"catalog.properties.", "table.properties."});
  FLOE_RETURN_IF_ERROR(r.Finish());

  SinkDefinition sink;
  FLOE_ASSIGN_OR_RETURN(auto type, r.String("type"));
  if (!type) return r.FailBlock("needs 'type' (supported: " + JoinNames(kSinkTypes) + ")");
  if (*type != "iceberg") {
    return r.Fail(*r.Get("type"), "sink type '{}' is not supported (supported: {}){}", *type,
                  JoinNames(kSinkTypes), DidYouMean(*type, kSinkTypes));
  }
  sink.type = *type;
  FLOE_ASSIGN_OR_RETURN(auto name, r.String("name"));
  if (name) sink.name = *name;
  FLOE_ASSIGN_OR_RETURN(sink.catalog, ParseCatalogKey(r, base_dir));

  if (const DocumentEntry* block = r.Get("table.properties")) {
    if (!block->value.is_map()) {
      return r.Fail(*block, "expected a mapping of table properties, found {}",
                    KindName(block->value.kind));
    }
    for (const auto& property : block->value.entries) {
      FLOE_RETURN_IF_ERROR(AddTableProperty(r, sink, property.key, property));
    }
  }
  for (const DocumentEntry* entry : r.GetPrefixed("table.properties.")) {
    std::string name = entry->key.substr(std::string_view("table.properties.").size());
    FLOE_RETURN_IF_ERROR(AddTableProperty(r, sink, name, *entry));
  }

  FLOE_ASSIGN_OR_RETURN(auto partition_keys, r.Parsed("partition.key", ParsePartitionKeys));
  if (partition_keys) sink.partition_keys = std::move(*partition_keys);

  FLOE_ASSIGN_OR_RETURN(std::set<SchemaChangeType> include,
                        ParseSchemaChanges(r, "include.schema.changes"));
  FLOE_ASSIGN_OR_RETURN(std::set<SchemaChangeType> exclude,
                        ParseSchemaChanges(r, "exclude.schema.changes"));
  if (r.Get("include.schema.changes") == nullptr) {
    include.insert(std::begin(kAllSchemaChanges), std::end(kAllSchemaChanges));
  }
  for (SchemaChangeType type : include) {
    if (!exclude.contains(type)) sink.schema_changes.insert(type);
  }
  return sink;
}

}  // namespace floe::pipeline
