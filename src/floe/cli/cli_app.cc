#include "floe/cli/cli_app.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "floe/cli/command_runner.h"
#include "floe/cli/commands.h"
#include "floe/cli/log_format.h"

namespace floe::cli {
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

std::unique_ptr<CLI::App> BuildApp(int* exit_code) {
  auto app = std::make_unique<CLI::App>(
      "floe: mirror whole databases into Apache Iceberg, exactly once", "floe");
  app->require_subcommand(1);
  app->set_version_flag("--version", "floe 0.1.0");
  AddParquetCommands(*app, exit_code);
  AddAvroCommands(*app, exit_code);
  AddCaptureCommands(*app, exit_code);
  AddTableCommands(*app, exit_code);
  AddIngestCommand(*app, exit_code);
  AddRunCommand(*app, exit_code);
  AddReadCommand(*app, exit_code);
  return app;
}

int RunCli(int argc, const char* const* argv) {
  SetUpDefaultLogging();
  int exit_code = 0;
  std::unique_ptr<CLI::App> app = BuildApp(&exit_code);
  try {
    app->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed.
    if (e.get_exit_code() == 0) return app->exit(e);
    // A wrong command line is a usage error: exit 2.
    PrintUsageError(UsageMessage(*app, e));
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace floe::cli
