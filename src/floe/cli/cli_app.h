#pragma once
/// The floe command line as one function, so that `main` and the CLI's own
/// tests run exactly the same thing: every command family added to one CLI11
/// app, the command line parsed, the chosen command run, its outcome reported
/// (command_runner.h) and the exit code returned.

#include <memory>

#include <CLI/CLI.hpp>

namespace floe::cli {

/// The app with every command family added (commands.h). The callbacks store
/// the exit code of the command that runs in `*exit_code`, which must outlive
/// the app.
std::unique_ptr<CLI::App> BuildApp(int* exit_code);

/// Parses `argv`, runs the command and returns the process exit code: 0,
/// kExitFailure, or kExitUsage for a wrong command line. `--help` and
/// `--version` print to standard output and return 0. Sets up the logging
/// every command shares (log_format.h) first.
int RunCli(int argc, const char* const* argv);

}  // namespace floe::cli
