#pragma once
/// The catalog options shared by every floe command that touches tables:
///   --catalog-config FILE   the catalog settings (default: `.floe.yaml` in the
///                           current folder, then `~/.floe.yaml`)
///   --catalog NAME          the catalog in that file (default: `default`)
/// and opening the catalog they name. See docs/catalogs.md.

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/io/file_io.h"

namespace floe::cli {

struct CatalogOptions {
  /// --catalog-config; empty: the default places.
  std::string config_file;
  /// --catalog.
  std::string catalog_name = "default";
};

/// Adds --catalog-config and --catalog to `command`, storing into `*options`
/// (which must outlive the parse).
void AddCatalogOptions(CLI::App& command, CatalogOptions* options);

/// Adds --catalog-config and --catalog to `command` for its subcommands,
/// which read them with CatalogOptionsFrom (`floe table`).
void AddSharedCatalogOptions(CLI::App& command);

/// The catalog options given to `command` or to the nearest command above it
/// that has them (e.g. `floe table --catalog-config F scan ...`: the scan
/// subcommand reads the `table` command's options). Defaults when none has.
CatalogOptions CatalogOptionsFrom(const CLI::App& command);

/// An open catalog with the FileIO it reads and writes through. The catalog is
/// declared after (so destroyed before) the FileIO it uses.
struct OpenedCatalog {
  std::unique_ptr<io::FileIO> file_io;
  std::unique_ptr<iceberg::Catalog> catalog;
};

/// Finds the config file (FindCatalogConfigFile), reads the named catalog and
/// opens it over the FileIO of its settings (iceberg::MakeCatalogFileIO:
/// local paths locally, s3:// on S3; docs/s3.md). Errors: kNotFound (no config file, no
/// such catalog), kInvalidArgument (bad settings), the catalog's open errors.
Result<OpenedCatalog> OpenCatalogFromOptions(const CatalogOptions& options);

/// A factory that opens the catalog of `options` anew on each call (one per
/// operator that needs its own), as a shared catalog that keeps its FileIO.
/// The catalogs of one factory share one FileIO (iceberg::OpenCatalogWithFileIO).
std::function<Result<std::shared_ptr<iceberg::Catalog>>()> CatalogFactory(CatalogOptions options);

}  // namespace floe::cli
