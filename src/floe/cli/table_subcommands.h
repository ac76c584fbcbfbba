#pragma once
/// The parts of `floe table` (table_command.cc adds the command and its
/// read-only subcommands, table_change_command.cc those that change
/// catalogs and tables, table_scan_command.cc `scan`): helpers they share.
/// Every subcommand parses its flags, calls the library and reports through
/// the runner (command_runner.h).

#include <functional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/table.h"

namespace floe::cli {

/// Writes `text` to standard output.
void Print(const std::string& text);

/// Loads the table named "NS.TABLE". Errors: those of TableIdentifier::Parse
/// and Table::Load.
Result<iceberg::Table> LoadTable(iceberg::Catalog& catalog, const std::string& name);

/// "key=value" -> {key, value}; kInvalidArgument without a key and '='.
Result<std::pair<std::string, std::string>> SplitProperty(const std::string& kv);

/// Sets `command`'s body (SetCommandBody): opens the catalog named by the
/// catalog options of `command` or the `table` command above it
/// (CatalogOptionsFrom), then runs `body` on it.
void OnCatalog(CLI::App& command, int* exit_code, std::function<Status(iceberg::Catalog&)> body);

/// `floe table create-namespace, create, append, add-files, delete, evolve,
/// set-property, expire, drop, rename` (table_change_command.cc).
void AddTableChangeCommands(CLI::App& table, int* exit_code);

}  // namespace floe::cli
