// The `catalog` key of a pipeline file's sink (and of an iceberg source):
// a catalog name, an inline mapping, or Flink CDC's catalog.properties.* keys.

#include <algorithm>

#include "floe/pipeline/block_reader.h"
#include "floe/pipeline/section_parsers.h"
#include "floe/pipeline/values.h"

namespace floe::pipeline {
namespace {

const std::vector<std::string> kCatalogTypes = {"sql", "hadoop", "rest"};
/// The catalog keys floe reads; other keys are passed through to the catalog.
const std::vector<std::string> kCatalogKeys = {"name", "type", "uri", "warehouse"};

Status CheckCatalogConfig(const iceberg::CatalogConfig& config, const Origin& origin,
                          std::string_view section) {
  auto has = [&](const char* key) {
    auto it = config.properties.find(key);
    return it != config.properties.end() && !it->second.empty();
  };
  if (std::find(kCatalogTypes.begin(), kCatalogTypes.end(), config.type) == kCatalogTypes.end()) {
    return InvalidArgument(
        "{}: {}.catalog.type: catalog type '{}' is not supported (supported: "
        "{}){}",
        origin.ToString(), section, config.type, JoinNames(kCatalogTypes),
        DidYouMean(config.type, kCatalogTypes));
  }
  if (config.type == "sql" && (!has("uri") || !has("warehouse"))) {
    return InvalidArgument(
        "{}: {}.catalog: a sql catalog needs 'uri' (e.g. "
        "sqlite:///lake/catalog.db) and 'warehouse' (e.g. file:///lake/warehouse)",
        origin.ToString(), section);
  }
  if (config.type == "rest" && !has("uri")) {
    return InvalidArgument(
        "{}: {}.catalog: a rest catalog needs 'uri' (the REST server, e.g. "
        "https://catalog.example.com/api/catalog)",
        origin.ToString(), section);
  }
  if (config.type == "hadoop" && !has("warehouse")) {
    return InvalidArgument("{}: {}.catalog: a hadoop catalog needs 'warehouse' (a folder)",
                           origin.ToString(), section);
  }
  return Ok();
}

/// Adds one inline catalog property. `key_path` is for messages.
Status AddCatalogProperty(CatalogDefinition& catalog, const std::string& name,
                          const DocumentValue& value, const std::string& key_path) {
  if (!value.is_scalar() && !value.is_null()) {
    return InvalidArgument("{}: {}: expected a single value, found {}", value.origin.ToString(),
                           key_path, KindName(value.kind));
  }
  if (std::find(kCatalogKeys.begin(), kCatalogKeys.end(), name) == kCatalogKeys.end()) {
    // Open-ended (PyIceberg passes properties through), but a near miss of a
    // key floe reads is a typo.
    std::optional<std::string> nearest = NearestKey(name, kCatalogKeys);
    if (nearest && name.size() > 2) {
      return InvalidArgument("{}: {}: unknown catalog key (did you mean '{}'?)",
                             value.origin.ToString(), key_path, *nearest);
    }
  }
  if (name == "name") {
    catalog.config->name = value.scalar;
    return Ok();
  }
  catalog.config->properties[name] = value.scalar;
  if (IsSecretSetting(name, value.from_environment)) catalog.secret_properties.insert(name);
  return Ok();
}

Status FinishInlineCatalog(CatalogDefinition& catalog, const Origin& origin,
                           const std::string& base_dir, std::string_view section) {
  iceberg::CatalogConfig& config = *catalog.config;
  config.base_dir = base_dir;
  if (config.name.empty()) config.name = "default";
  auto type = config.properties.find("type");
  if (type != config.properties.end()) {
    config.type = type->second;
  } else {
    auto uri = config.properties.find("uri");
    // As PyIceberg and ReadCatalogConfig: a sqlite uri means a sql catalog.
    if (uri == config.properties.end() || !uri->second.starts_with("sqlite:")) {
      return InvalidArgument("{}: {}.catalog: needs 'type' (supported: {})", origin.ToString(),
                             section, JoinNames(kCatalogTypes));
    }
    config.type = "sql";
  }
  return CheckCatalogConfig(config, origin, section);
}

}  // namespace

Result<CatalogDefinition> ParseCatalogKey(BlockReader& r, const std::string& base_dir) {
  CatalogDefinition catalog;
  const DocumentEntry* entry = r.Get("catalog");
  std::vector<const DocumentEntry*> flat = r.GetPrefixed("catalog.properties.");
  if (entry != nullptr && !flat.empty()) {
    return r.Fail(*flat.front(),
                  "give the catalog either as 'catalog:' or as catalog.properties.* "
                  "keys, not both");
  }
  if (entry == nullptr && flat.empty()) {
    return r.FailBlock(
        "needs 'catalog': a mapping such as {type: sql, uri: ..., warehouse: ...}, "
        "or the name of a catalog of the catalog config file");
  }
  if (entry != nullptr && entry->value.is_scalar()) {
    if (entry->value.scalar.empty()) return r.Fail(*entry, "the catalog name is empty");
    catalog.name = entry->value.scalar;
    return catalog;
  }
  catalog.config.emplace();
  if (entry != nullptr) {
    if (!entry->value.is_map()) {
      return r.Fail(*entry, "expected a catalog name or a mapping of catalog settings, found {}",
                    KindName(entry->value.kind));
    }
    for (const auto& property : entry->value.entries) {
      FLOE_RETURN_IF_ERROR(AddCatalogProperty(catalog, property.key, property.value,
                                              r.KeyPath("catalog." + property.key)));
    }
    FLOE_RETURN_IF_ERROR(FinishInlineCatalog(catalog, entry->value.origin, base_dir, r.path()));
    return catalog;
  }
  for (const DocumentEntry* property : flat) {
    std::string name = property->key.substr(std::string_view("catalog.properties.").size());
    FLOE_RETURN_IF_ERROR(
        AddCatalogProperty(catalog, name, property->value, r.KeyPath(property->key)));
  }
  FLOE_RETURN_IF_ERROR(
      FinishInlineCatalog(catalog, flat.front()->value.origin, base_dir, r.path()));
  return catalog;
}

}  // namespace floe::pipeline
