// `floe table register NS.TABLE --metadata-location URI`: the catalog's
// table NS.TABLE becomes the table whose current metadata is the file at URI
// (written by PyIceberg, Iceberg Java, another catalog, or left by a drop
// without purge). Nothing is copied: the catalog points at the file. A
// relative path is taken from the current folder. `--overwrite` points an
// existing table at the file instead of refusing. Errors are reported by the
// runner (command_runner.h).

#include "floe/cli/table_register_command.h"

#include <memory>
#include <string>

#include <fmt/format.h>

#include "floe/cli/cli_values.h"
#include "floe/cli/table_subcommands.h"
#include "floe/io/file_io.h"

namespace floe::cli {

void AddTableRegisterCommand(CLI::App& table, int* exit_code) {
  auto* cmd = table.add_subcommand("register",
                                   "make a table of an existing metadata file (nothing is copied)");
  auto name = std::make_shared<std::string>();
  auto location = std::make_shared<std::string>();
  auto overwrite = std::make_shared<bool>(false);
  cmd->add_option("table", *name, "NS.TABLE")->required()->check(Utf8Text());
  cmd->add_option("--metadata-location", *location,
                  "the table's current metadata file (a path or URI, e.g. "
                  "s3://bucket/t/metadata/00003-....metadata.json)")
      ->required()
      ->check(Utf8Text());
  cmd->add_flag("--overwrite", *overwrite,
                "if the table exists, point it at this file instead of refusing (its former "
                "metadata files stay)");
  OnCatalog(*cmd, exit_code, [name, location, overwrite](iceberg::Catalog& c) -> Status {
    FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id, iceberg::TableIdentifier::Parse(*name));
    const std::string file =
        io::UriScheme(*location).empty() ? io::AbsoluteLocalPath(*location) : *location;
    FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable table, c.RegisterTable(id, file, *overwrite));
    Print(fmt::format("registered table {} at {} ({} snapshots)\n", id.ToString(),
                      io::RedactUri(table.metadata_location), table.metadata.snapshots.size()));
    return Ok();
  });
}

}  // namespace floe::cli
