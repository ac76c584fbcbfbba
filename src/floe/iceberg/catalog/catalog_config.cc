#include "floe/iceberg/catalog/catalog_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"

namespace floe::iceberg {
namespace {

Result<std::string> ExpandEnvironment(const std::string& value, const std::string& key) {
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    size_t start = value.find("${", i);
    if (start == std::string::npos) {
      out.append(value, i);
      break;
    }
    size_t end = value.find('}', start);
    if (end == std::string::npos) {
      return InvalidArgument("setting '{}': unclosed ${{ in '{}'", key, value);
    }
    out.append(value, i, start - i);
    std::string var = value.substr(start + 2, end - start - 2);
    const char* env = std::getenv(var.c_str());
    if (env == nullptr) {
      return InvalidArgument("setting '{}' uses ${{{}}}, but the environment variable {} is not set",
                             key, var, var);
    }
    out += env;
    i = end + 1;
  }
  return out;
}

}  // namespace

Result<std::string> FindCatalogConfigFile(const std::string& explicit_path) {
  io::LocalFileIO io;
  if (!explicit_path.empty()) {
    FLOE_ASSIGN_OR_RETURN(bool exists, io.Exists(explicit_path));
    if (!exists) return NotFound("catalog config {} does not exist", explicit_path);
    return explicit_path;
  }
  std::vector<std::string> tried = {".floe.yaml"};
  if (const char* home = std::getenv("HOME")) tried.push_back(std::string(home) + "/.floe.yaml");
  for (const auto& path : tried) {
    FLOE_ASSIGN_OR_RETURN(bool exists, io.Exists(path));
    if (exists) return path;
  }
  return NotFound("no catalog config: pass --catalog-config FILE or create .floe.yaml here or in "
                  "your home folder (see examples/floe.yaml)");
}

Result<CatalogConfig> ReadCatalogConfig(const std::string& path, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: {}", path, e.what());
  }
  YAML::Node catalogs = root["catalog"];
  if (!catalogs || !catalogs.IsMap()) return InvalidArgument("{}: no 'catalog:' section", path);
  YAML::Node entry = catalogs[name];
  if (!entry) {
    std::string names;
    for (const auto& kv : catalogs) names += (names.empty() ? "" : ", ") + kv.first.as<std::string>();
    return NotFound("{}: no catalog named '{}' (it has: {})", path, name, names);
  }
  if (!entry.IsMap()) return InvalidArgument("{}: catalog '{}' must be a map of settings", path, name);
  CatalogConfig config;
  config.name = name;
  for (const auto& kv : entry) {
    std::string key = kv.first.as<std::string>();
    if (!kv.second.IsScalar()) return InvalidArgument("{}: catalog.{}.{} must be a value", path, name, key);
    FLOE_ASSIGN_OR_RETURN(config.properties[key], ExpandEnvironment(kv.second.as<std::string>(), key));
  }
  auto type = config.properties.find("type");
  if (type == config.properties.end()) {
    // PyIceberg infers sql from a sqlite uri; do the same.
    auto uri = config.properties.find("uri");
    if (uri != config.properties.end() && uri->second.starts_with("sqlite:")) config.type = "sql";
    else return InvalidArgument("{}: catalog '{}' needs a 'type' (sql or hadoop)", path, name);
  } else {
    config.type = type->second;
  }
  return config;
}

Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogConfig& config, io::FileIO* file_io) {
  auto get = [&](const char* key) {
    auto it = config.properties.find(key);
    return it == config.properties.end() ? std::string() : it->second;
  };
  if (config.type == "sql") {
    if (get("uri").empty()) return InvalidArgument("catalog '{}': a sql catalog needs a 'uri'", config.name);
    FLOE_ASSIGN_OR_RETURN(auto catalog, SqlCatalog::Open(config.name, get("uri"), get("warehouse"), file_io));
    return std::unique_ptr<Catalog>(std::move(catalog));
  }
  if (config.type == "hadoop") {
    if (get("warehouse").empty()) {
      return InvalidArgument("catalog '{}': a hadoop catalog needs a 'warehouse'", config.name);
    }
    return std::unique_ptr<Catalog>(std::make_unique<HadoopCatalog>(config.name, get("warehouse"), file_io));
  }
  return NotSupported("catalog '{}': type '{}' is not supported (sql, hadoop)", config.name, config.type);
}

}  // namespace floe::iceberg
