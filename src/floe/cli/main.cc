#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "floe/cli/cli_values.h"
#include "floe/cli/commands.h"
#include "floe/cli/log_format.h"

namespace {

/// The command path of the deepest subcommand the parser entered ("floe table").
const CLI::App* DeepestCommand(const CLI::App& app, std::string* path) {
  const CLI::App* deepest = &app;
  *path = app.get_name();
  while (true) {
    auto chosen = deepest->get_subcommands();
    if (chosen.empty()) return deepest;
    deepest = chosen.front();
    *path += " " + deepest->get_name();
  }
}

/// The message for a wrong command line: CLI11's, except that a word where a
/// command was expected is named ("unknown command 'floe bogus'").
std::string UsageMessage(const CLI::App& app, const CLI::ParseError& e) {
  std::string path;
  const CLI::App* deepest = DeepestCommand(app, &path);
  std::vector<std::string> rest = app.remaining(/*recurse=*/true);
  auto all = [](const CLI::App*) { return true; };
  auto commands = deepest->get_subcommands(all);
  if (!rest.empty() && !commands.empty() && !rest.front().starts_with("-")) {
    std::vector<std::string> names;
    for (const CLI::App* sub : commands) names.push_back(sub->get_name());
    return fmt::format("unknown command '{} {}' (expected one of: {})", path, rest.front(),
                       fmt::join(names, ", "));
  }
  return fmt::format("{}: {}", path, e.what());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"floe: mirror whole databases into Apache Iceberg, exactly once", "floe"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe 0.1.0");
  // Every logger, the default one and those commands create, escapes control
  // characters in messages (a name from event data cannot forge a log line).
  spdlog::set_formatter(floe::cli::EscapedTextFormatter(floe::cli::kDefaultLogPattern));
  int exit_code = 0;
  floe::cli::AddParquetCommands(app, &exit_code);
  floe::cli::AddAvroCommands(app, &exit_code);
  floe::cli::AddCaptureCommands(app, &exit_code);
  floe::cli::AddTableCommands(app, &exit_code);
  floe::cli::AddIngestCommand(app, &exit_code);
  floe::cli::AddRunCommand(app, &exit_code);
  floe::cli::AddReadCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed.
    if (e.get_exit_code() == 0) return app.exit(e);
    // A wrong command line is a usage error: exit 2 (docs/errors.md).
    floe::cli::PrintError(UsageMessage(app, e));
    std::fprintf(stderr, "run with --help for usage\n");
    return floe::cli::kExitUsage;
  }
  return exit_code;
}
