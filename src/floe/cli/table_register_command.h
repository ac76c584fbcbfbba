#pragma once
/// `floe table register NS.TABLE --metadata-location URI`
/// (table_register_command.cc): makes a catalog table of an existing
/// metadata file (Catalog::RegisterTable; docs/catalogs.md, "Registering").

#include <CLI/CLI.hpp>

namespace floe::cli {

/// Adds `register` under the `table` command.
void AddTableRegisterCommand(CLI::App& table, int* exit_code);

}  // namespace floe::cli
