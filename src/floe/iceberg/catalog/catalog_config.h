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
/// table metadata always holds absolute locations.
///
/// Storage (docs/s3.md): a catalog's files are read and written through one
/// io::ResolvingFileIO (MakeCatalogFileIO): local paths and file:// URIs on
/// the local disk, s3:// (s3a://, s3n://) through an S3FileIO configured by
/// the catalog's `s3.*` settings (s3.endpoint, s3.region, s3.access-key-id,
/// s3.secret-access-key, s3.session-token, s3.path-style-access), then the
/// AWS_* environment and ~/.aws profiles. A sql catalog's warehouse may be an
/// `s3://bucket/prefix` URI; a hadoop catalog's may not (it needs folders and
/// an exclusive create on a file system, docs/catalogs.md); a rest catalog's
/// tables live wherever its server puts them, and the server's config
/// (`GET /v1/config` defaults and overrides) configures the S3 client too.
///
///   catalog:
///     lake:
///       type: sql
///       uri: sqlite:///catalog.db
///       warehouse: s3://my-bucket/warehouse
///       s3.endpoint: http://127.0.0.1:9000   # S3-compatible server; omit for AWS
///       s3.path-style-access: "true"
///       s3.access-key-id: ${AWS_ACCESS_KEY_ID}
///       s3.secret-access-key: ${AWS_SECRET_ACCESS_KEY}

#include <memory>
#include <string>

#include "floe/iceberg/catalog.h"
#include "floe/io/resolving_file_io.h"

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
/// unknown type, a warehouse with a scheme other than file:// or s3://, or a
/// hadoop warehouse on s3://. When `file_io` is an io::ResolvingFileIO, a
/// rest catalog hands it the settings merged with the server's config
/// (ResolvingFileIO::SetProperties). S3 settings are checked only when the
/// first s3:// path is used (no credentials: kInvalidArgument naming the
/// path). URIs in messages are redacted (io::RedactUri). `file_io` must
/// outlive the catalog.
Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogConfig& config, io::FileIO* file_io);

/// The FileIO a catalog of this config reads and writes through: local paths
/// locally, s3:// through an S3FileIO made (on first use) from the config's
/// settings, see above.
std::unique_ptr<io::ResolvingFileIO> MakeCatalogFileIO(const CatalogConfig& config);

/// OpenCatalog over `file_io`, which the returned catalog keeps alive. Give
/// every catalog opened for one purpose (the operators of one job) the same
/// MakeCatalogFileIO: they share its S3 client, and storage settings one of
/// them learns from a REST server (a table's vended keys) serve the others,
/// which may write that table's files without loading it themselves. Errors
/// as OpenCatalog.
Result<std::shared_ptr<Catalog>> OpenCatalogWithFileIO(const CatalogConfig& config,
                                                       std::shared_ptr<io::FileIO> file_io);

}  // namespace floe::iceberg
