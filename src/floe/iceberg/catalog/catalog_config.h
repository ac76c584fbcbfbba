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
///     remote:
///       type: rest
///       uri: http://127.0.0.1:9181
///       warehouse: my_warehouse     # optional, passed to the server's config
///       token: ${CATALOG_TOKEN}     # optional bearer token (or credential: id:secret)
///
/// `${VAR}` in values is replaced by the environment variable VAR (an unset
/// variable is an error, so secrets never silently go missing).
///
/// Relative paths (a `warehouse` folder, the file of a `sqlite:///relative.db`
/// uri) are taken relative to the folder of the config file, never to the
/// current folder, so every command and every folder sees the same catalog;
/// table metadata always holds absolute locations. Only local paths and
/// file:// URIs are supported for warehouses (kNotSupported naming the scheme).

#include <memory>
#include <string>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::iceberg {

struct CatalogConfig {
  std::string name;
  /// "sql", "hadoop" or "rest".
  std::string type;
  Properties properties;  ///< everything under the catalog's key, expanded
  /// The folder relative paths are resolved against (the config file's);
  /// empty: the current folder.
  std::string base_dir;
};

/// The config file to use: `explicit_path` if given, else `.floe.yaml` in the
/// current folder, else `~/.floe.yaml`. kNotFound naming the places tried.
Result<std::string> FindCatalogConfigFile(const std::string& explicit_path);

/// Parses catalog `name` from YAML text; `source` names the text in
/// messages. Never throws, whatever the bytes: kInvalidArgument for text that
/// is not YAML, not a map with a `catalog:` map, or settings that are not
/// scalars; kNotFound if there is no such catalog (the message lists the
/// ones there are). `base_dir` of the result is empty.
Result<CatalogConfig> ParseCatalogConfig(std::string_view yaml, const std::string& source,
                                         const std::string& name);

/// Reads catalog `name` from a YAML file (ParseCatalogConfig); `base_dir` is
/// the file's folder. kInvalidArgument also for a folder instead of a file.
Result<CatalogConfig> ReadCatalogConfig(const std::string& path, const std::string& name);

/// Opens the catalog a config describes, resolving relative paths against
/// `config.base_dir`. A rest catalog (RestCatalog) takes `uri`, `warehouse`
/// (handed to the server as is), `token`, `credential`, `oauth2-server-uri`,
/// `scope` and `prefix`, and connects to its server here. Errors:
/// kInvalidArgument for a missing `uri` (sql, rest) or
/// `warehouse` (sql and hadoop: new tables need a place), kNotSupported for an
/// unknown type or a warehouse with a scheme other than file://. URIs in
/// messages are redacted (io::RedactUri). `file_io` must outlive the catalog.
Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogConfig& config, io::FileIO* file_io);

}  // namespace floe::iceberg
