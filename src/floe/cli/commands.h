#pragma once
/// The floe command line: each command family lives in its own file and adds
/// itself to the CLI11 app (cli_app.h builds the app). A command parses its
/// flags, calls the library, and reports through the one runner
/// (command_runner.h, SetCommandBody), which stores its exit code in
/// `*exit_code`: 0 success, 1 failure, 2 usage error.

#include <CLI/CLI.hpp>

namespace floe::cli {

void AddParquetCommands(CLI::App& app, int* exit_code);
/// `floe parquet write`, added under the `parquet` subcommand by AddParquetCommands.
void AddParquetWriteCommand(CLI::App& parquet, int* exit_code);
void AddAvroCommands(CLI::App& app, int* exit_code);
void AddCaptureCommands(CLI::App& app, int* exit_code);
/// `floe table ...` (table_command.cc). The `table` command carries
/// --catalog-config / --catalog (catalog_options.h) for every subcommand.
void AddTableCommands(CLI::App& app, int* exit_code);
/// `floe table scan`, added under `table` by AddTableCommands
/// (table_scan_command.cc); it reads the catalog options with
/// CatalogOptionsFrom(its own subcommand).
void AddTableScanCommand(CLI::App& table, int* exit_code);
void AddIngestCommand(CLI::App& app, int* exit_code);
/// `floe run PIPELINE.yaml` (run_command.cc).
void AddRunCommand(CLI::App& app, int* exit_code);
/// `floe read TABLE` (read_command.cc, docs/read.md).
void AddReadCommand(CLI::App& app, int* exit_code);

}  // namespace floe::cli
