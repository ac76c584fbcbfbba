#include "floe/cli/command_runner.h"

#include <cstdio>

#include <fmt/format.h>

#include "floe/common/printable.h"

namespace floe::cli {

void PrintError(std::string_view message) {
  std::string text = fmt::format("error: {}\n", PrintableMessage(message));
  std::fwrite(text.data(), 1, text.size(), stderr);
}

void PrintError(const Error& error) { PrintError(error.ToString()); }

void PrintUsageError(std::string_view message) {
  PrintError(message);
  std::fputs("run with --help for usage\n", stderr);
}

int ReportCommandError(const CommandError& error) {
  std::fflush(stdout);
  if (error.is_usage()) {
    PrintUsageError(error.error().ToString());
  } else {
    PrintError(error.error());
  }
  return error.exit_code();
}

void SetCommandBody(CLI::App& command, int* exit_code, std::function<CommandStatus()> body) {
  command.callback([exit_code, body = std::move(body)] {
    CommandStatus status = body();
    *exit_code = status ? 0 : ReportCommandError(status.error());
  });
}

}  // namespace floe::cli
