#include <cstdio>

#include "floe/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"floe: mirror whole databases into Apache Iceberg, exactly once", "floe"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe 0.1.0");
  int exit_code = 0;
  floe::cli::AddParquetCommands(app, &exit_code);
  floe::cli::AddAvroCommands(app, &exit_code);
  floe::cli::AddCaptureCommands(app, &exit_code);
  floe::cli::AddTableCommands(app, &exit_code);
  floe::cli::AddIngestCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; a wrong command line exits 2
    // (the usual code for usage errors) rather than CLI11's internal codes.
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return exit_code;
}
