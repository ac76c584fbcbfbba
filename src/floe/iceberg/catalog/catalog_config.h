#pragma once
/// Catalog settings in the shape of PyIceberg's `.pyiceberg.yaml`, so one file
/// serves floe and the readers:
///
///   catalog:
///     default:
///       type: sql
///       uri: sqlite:///warehouse/catalog.db
///       warehouse: file:///abs/path/warehouse
///     lake:
///       type: hadoop
///       warehouse: /abs/path/lake
///
/// `${VAR}` in values is replaced by the environment variable VAR (an unset
/// variable is an error, so secrets never silently go missing).

#include <memory>
#include <string>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::iceberg {

struct CatalogConfig {
  std::string name;
  /// "sql" or "hadoop".
  std::string type;
  Properties properties;  ///< everything under the catalog's key, expanded
};

/// The config file to use: `explicit_path` if given, else `.floe.yaml` in the
/// current folder, else `~/.floe.yaml`. kNotFound naming the places tried.
Result<std::string> FindCatalogConfigFile(const std::string& explicit_path);

/// Reads catalog `name` from a YAML file. kNotFound if the file has no such
/// catalog (the message lists the ones it has); kInvalidArgument for YAML or
/// settings that do not make sense.
Result<CatalogConfig> ReadCatalogConfig(const std::string& path, const std::string& name);

/// Opens the catalog a config describes. `file_io` must outlive it.
Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogConfig& config, io::FileIO* file_io);

}  // namespace floe::iceberg
