#include "floe/cli/catalog_options.h"

#include <mutex>

#include "floe/iceberg/catalog/catalog_config.h"

namespace floe::cli {

void AddCatalogOptions(CLI::App& command, CatalogOptions* options) {
  command.add_option("--catalog-config", options->config_file,
                     "catalog settings file (default: .floe.yaml here, then ~/.floe.yaml)");
  command.add_option("--catalog", options->catalog_name, "catalog name in that file")
      ->capture_default_str();
}

void AddSharedCatalogOptions(CLI::App& command) {
  CatalogOptions defaults;
  command.add_option("--catalog-config")
      ->description("catalog settings file (default: .floe.yaml here, then ~/.floe.yaml)")
      ->type_name("TEXT");
  command.add_option("--catalog")
      ->description("catalog name in that file")
      ->type_name("TEXT")
      ->default_str(defaults.catalog_name);
}

CatalogOptions CatalogOptionsFrom(const CLI::App& command) {
  CatalogOptions options;
  bool have_config = false, have_name = false;
  for (const CLI::App* app = &command; app != nullptr; app = app->get_parent()) {
    if (!have_config) {
      if (auto* opt = app->get_option_no_throw("--catalog-config"); opt && opt->count() > 0) {
        options.config_file = opt->as<std::string>();
        have_config = true;
      }
    }
    if (!have_name) {
      if (auto* opt = app->get_option_no_throw("--catalog"); opt && opt->count() > 0) {
        options.catalog_name = opt->as<std::string>();
        have_name = true;
      }
    }
  }
  return options;
}

Result<OpenedCatalog> OpenCatalogFromOptions(const CatalogOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::string path, iceberg::FindCatalogConfigFile(options.config_file));
  FLOE_ASSIGN_OR_RETURN(iceberg::CatalogConfig config,
                        iceberg::ReadCatalogConfig(path, options.catalog_name));
  OpenedCatalog opened;
  opened.file_io = iceberg::MakeCatalogFileIO(config);
  FLOE_ASSIGN_OR_RETURN(opened.catalog, iceberg::OpenCatalog(config, opened.file_io.get()));
  return opened;
}

std::function<Result<std::shared_ptr<iceberg::Catalog>>()> CatalogFactory(CatalogOptions options) {
  // One FileIO for every catalog the factory opens (made with the first).
  struct Shared {
    std::mutex mu;
    std::shared_ptr<io::FileIO> file_io;
  };
  auto shared = std::make_shared<Shared>();
  return [options = std::move(options), shared]() -> Result<std::shared_ptr<iceberg::Catalog>> {
    FLOE_ASSIGN_OR_RETURN(std::string path, iceberg::FindCatalogConfigFile(options.config_file));
    FLOE_ASSIGN_OR_RETURN(iceberg::CatalogConfig config,
                          iceberg::ReadCatalogConfig(path, options.catalog_name));
    std::shared_ptr<io::FileIO> file_io;
    {
      std::lock_guard lock(shared->mu);
      if (!shared->file_io) shared->file_io = iceberg::MakeCatalogFileIO(config);
      file_io = shared->file_io;
    }
    return iceberg::OpenCatalogWithFileIO(config, std::move(file_io));
  };
}

}  // namespace floe::cli
