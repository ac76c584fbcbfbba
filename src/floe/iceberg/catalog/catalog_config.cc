#include "floe/iceberg/catalog/catalog_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "floe/iceberg/catalog/hadoop_catalog.h"
#include "floe/iceberg/catalog/rest_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/io/s3/s3_file_io.h"

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
      return InvalidArgument(
          "setting '{}' uses ${{{}}}, but the environment variable {} is not set", key, var, var);
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
  return NotFound(
      "no catalog config: pass --catalog-config FILE or create .floe.yaml here or in "
      "your home folder (see examples/floe.yaml)");
}

Result<CatalogConfig> ParseCatalogConfig(std::string_view yaml, const std::string& source,
                                         const std::string& name) {
  // yaml-cpp reports errors by throwing: nothing it throws leaves this function.
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsMap()) {
      return InvalidArgument("{}: not a catalog config (expected a map with a 'catalog:' section)",
                             source);
    }
    const YAML::Node catalogs = root["catalog"];
    if (!catalogs || !catalogs.IsMap()) return InvalidArgument("{}: no 'catalog:' section", source);
    std::optional<YAML::Node> entry;
    std::string names;
    for (const auto& kv : catalogs) {
      if (!kv.first.IsScalar()) {
        return InvalidArgument("{}: catalog names under 'catalog:' must be plain names", source);
      }
      std::string key = kv.first.as<std::string>();
      if (key == name) entry.emplace(kv.second);
      names += (names.empty() ? "" : ", ") + key;
    }
    if (!entry) return NotFound("{}: no catalog named '{}' (it has: {})", source, name, names);
    if (!entry->IsMap()) {
      return InvalidArgument("{}: catalog '{}' must be a map of settings", source, name);
    }
    CatalogConfig config;
    config.name = name;
    for (const auto& kv : *entry) {
      if (!kv.first.IsScalar()) {
        return InvalidArgument("{}: catalog '{}' has a setting whose name is not a plain name",
                               source, name);
      }
      std::string key = kv.first.as<std::string>();
      if (!kv.second.IsScalar()) {
        return InvalidArgument("{}: catalog.{}.{} must be a value", source, name, key);
      }
      auto value = ExpandEnvironment(kv.second.as<std::string>(), key);
      if (!value) {
        return std::unexpected(
            std::move(value).error().WithContext(fmt::format("{}: catalog '{}'", source, name)));
      }
      config.properties[key] = std::move(*value);
    }
    auto type = config.properties.find("type");
    if (type == config.properties.end() || type->second.empty()) {
      // PyIceberg infers sql from a sqlite uri; do the same.
      auto uri = config.properties.find("uri");
      if (uri != config.properties.end() && uri->second.starts_with("sqlite:")) {
        config.type = "sql";
      } else {
        return InvalidArgument("{}: catalog '{}' needs a 'type' (sql, hadoop or rest)", source,
                               name);
      }
    } else {
      config.type = type->second;
    }
    return config;
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: {}", source, e.what());
  } catch (const std::exception& e) {
    return InvalidArgument("{}: not a readable catalog config: {}", source, e.what());
  }
}

Result<CatalogConfig> ReadCatalogConfig(const std::string& path, const std::string& name) {
  io::LocalFileIO io;
  auto text = io.ReadAll(path);
  if (!text) {
    return std::unexpected(std::move(text).error().WithContext("reading catalog config"));
  }
  FLOE_ASSIGN_OR_RETURN(CatalogConfig config, ParseCatalogConfig(*text, path, name));
  std::string absolute = io::AbsoluteLocalPath(path);
  config.base_dir = absolute.substr(0, std::max<size_t>(1, absolute.rfind('/')));
  return config;
}

namespace {

// The sqlite uri with a relative database path made absolute against `base_dir`.
std::string ResolveSqliteUri(const std::string& uri, const std::string& base_dir) {
  std::string_view path = uri;
  std::string prefix;
  if (path.starts_with("sqlite:///")) {
    path.remove_prefix(10);
    prefix = "sqlite:///";
  } else if (!io::UriScheme(path).empty() || path.find("://") != std::string_view::npos) {
    return uri;  // refused (or redacted) by SqlCatalog::Open
  }
  if (path.empty() || path == ":memory:" || path.starts_with("/") || path.starts_with("file:")) {
    return uri;
  }
  return prefix + io::AbsoluteLocalPath(path, base_dir);
}

// Where a sql or hadoop catalog may keep its tables: a local path, a file://
// URI or (sql only) an s3:// URI.
Status CheckWarehouse(const CatalogConfig& config, const std::string& warehouse) {
  std::string scheme = io::ResolvingFileIO::SchemeOf(warehouse);
  if (scheme.empty()) return Ok();
  if (scheme == "s3" && config.type == "sql") return Ok();
  if (scheme == "s3") {
    return NotSupported(
        "catalog '{}': warehouse '{}': a hadoop catalog cannot live on S3: it commits by "
        "creating the next version file exclusively and keeps namespaces as folders, and S3 "
        "has no folders (Iceberg's HadoopCatalog needs an atomic rename, which S3 lacks); use "
        "a sql or rest catalog for tables on S3",
        config.name, io::RedactUri(warehouse));
  }
  return NotSupported(
      "catalog '{}': warehouse '{}': scheme '{}' not supported (local paths, file:// and, for "
      "sql catalogs, s3:// URIs)",
      config.name, io::RedactUri(warehouse), scheme);
}

}  // namespace

std::unique_ptr<io::ResolvingFileIO> MakeCatalogFileIO(const CatalogConfig& config) {
  return io::s3::MakeResolvingFileIO(config.properties);
}

Result<std::shared_ptr<Catalog>> OpenCatalogWithFileIO(const CatalogConfig& config,
                                                       std::shared_ptr<io::FileIO> file_io) {
  struct Opened {
    std::shared_ptr<io::FileIO> file_io;
    std::unique_ptr<Catalog> catalog;  // destroyed before its FileIO
  };
  auto opened = std::make_shared<Opened>();
  opened->file_io = std::move(file_io);
  FLOE_ASSIGN_OR_RETURN(opened->catalog, OpenCatalog(config, opened->file_io.get()));
  return std::shared_ptr<Catalog>(opened, opened->catalog.get());
}

Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogConfig& config, io::FileIO* file_io) {
  auto get = [&](const char* key) {
    auto it = config.properties.find(key);
    return it == config.properties.end() ? std::string() : it->second;
  };
  std::string warehouse = get("warehouse");
  if (config.type == "sql" || config.type == "hadoop") {
    if (warehouse.empty()) {
      return InvalidArgument(
          "catalog '{}': a {} catalog needs a 'warehouse' (the folder new "
          "tables go to)",
          config.name, config.type);
    }
    FLOE_RETURN_IF_ERROR(CheckWarehouse(config, warehouse));
    warehouse = io::AbsoluteLocalPath(warehouse, config.base_dir);
    while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  }
  if (config.type == "sql") {
    if (get("uri").empty())
      return InvalidArgument("catalog '{}': a sql catalog needs a 'uri'", config.name);
    std::string uri = ResolveSqliteUri(get("uri"), config.base_dir);
    auto catalog = SqlCatalog::Open(config.name, uri, warehouse, file_io);
    if (!catalog) {
      return std::unexpected(
          std::move(catalog).error().WithContext(fmt::format("catalog '{}'", config.name)));
    }
    return std::unique_ptr<Catalog>(std::move(*catalog));
  }
  if (config.type == "hadoop") {
    return std::unique_ptr<Catalog>(
        std::make_unique<HadoopCatalog>(config.name, warehouse, file_io));
  }
  if (config.type == "rest") {
    RestCatalogOptions options;
    options.uri = get("uri");
    options.warehouse = warehouse;
    options.token = get("token");
    options.credential = get("credential");
    options.oauth2_server_uri = get("oauth2-server-uri");
    if (!get("scope").empty()) options.scope = get("scope");
    options.prefix = get("prefix");
    options.properties = config.properties;
    auto catalog = RestCatalog::Open(config.name, std::move(options), file_io);
    if (!catalog) return std::unexpected(std::move(catalog).error());
    // The server's config (defaults, then ours, then its overrides) configures
    // storage too, as in PyIceberg: its s3.endpoint, region, keys.
    if (auto* resolving = dynamic_cast<io::ResolvingFileIO*>(file_io)) {
      FLOE_RETURN_IF_ERROR_CTX(resolving->SetProperties((*catalog)->properties()), "catalog '{}'",
                               config.name);
    }
    return std::unique_ptr<Catalog>(std::move(*catalog));
  }
  return NotSupported("catalog '{}': type '{}' is not supported (sql, hadoop, rest)", config.name,
                      config.type);
}

}  // namespace floe::iceberg
