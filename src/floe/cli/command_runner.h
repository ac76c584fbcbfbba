#pragma once
/// The one way every floe command reports its outcome (docs/errors.md,
/// "Exit codes and messages"). A command's body returns a CommandStatus; the
/// runner turns it into the exit code and, on error, the one message format:
///
///   exit 0   success, nothing on standard error from the runner
///   exit 1   failure: `error: <code>: <message>` on standard error
///   exit 2   usage error: `error: <message>` then `run with --help for usage`
///
/// A usage error is a wrong command line: an unknown command or option, a
/// missing argument, an option value that is not of its form or out of its
/// range, options that contradict each other. CLI11 finds most of them while
/// parsing (cli_app.h); a body returns UsageError(...) for the rest, before
/// it has opened or written anything. Every other error is a failure.
///
/// Messages are printed with control characters escaped and very long names
/// cut (floe/common/printable.h): a name taken from input cannot forge a line.

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "floe/common/result.h"

namespace floe::cli {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// A command's error: what went wrong, and whether the command line itself
/// was wrong (exit 2) or the command failed (exit 1).
class CommandError {
 public:
  /// A failure (exit 1). Implicit, so that FLOE_RETURN_IF_ERROR and
  /// FLOE_ASSIGN_OR_RETURN work in a body that returns CommandStatus.
  CommandError(Error error) : error_(std::move(error)) {}  // NOLINT(runtime/explicit)

  /// A usage error (exit 2).
  static CommandError Usage(Error error) {
    CommandError e(std::move(error));
    e.usage_ = true;
    return e;
  }

  const Error& error() const { return error_; }
  bool is_usage() const { return usage_; }
  int exit_code() const { return usage_ ? kExitUsage : kExitFailure; }

 private:
  Error error_;
  bool usage_ = false;
};

/// What a command's body returns.
using CommandStatus = std::expected<void, CommandError>;

/// `return UsageError(options.error());`
inline std::unexpected<CommandError> UsageError(Error error) {
  return std::unexpected(CommandError::Usage(std::move(error)));
}

/// `return UsageError("--drop-slot: the pipeline's source is not postgres");`
/// (code kInvalidArgument).
template <typename... Args>
std::unexpected<CommandError> UsageError(fmt::format_string<Args...> format, Args&&... args) {
  return UsageError(
      Error(ErrorCode::kInvalidArgument, fmt::format(format, std::forward<Args>(args)...)));
}

/// The error of `status`, if any, as a usage error.
inline CommandStatus AsUsage(Status status) {
  if (status) return {};
  return UsageError(std::move(status).error());
}

/// Prints `error: <message>` on standard error (escaped, long names cut).
void PrintError(std::string_view message);
/// PrintError(error.ToString()).
void PrintError(const Error& error);
/// Prints a usage error: `error: <message>`, then `run with --help for usage`.
void PrintUsageError(std::string_view message);

/// Flushes standard output (what the command printed so far comes first),
/// prints `error` in its format and returns its exit code.
int ReportCommandError(const CommandError& error);

/// Sets `command`'s callback: runs `body` and stores its exit code in
/// `*exit_code` (0, or ReportCommandError's). `exit_code` must outlive the
/// parse.
void SetCommandBody(CLI::App& command, int* exit_code, std::function<CommandStatus()> body);

}  // namespace floe::cli
