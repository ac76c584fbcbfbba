#pragma once
/// The logs of every floe command, set up here and nowhere else. Messages
/// carry names and values from event data, so control characters in them
/// are escaped (floe/common/printable.h) and one log record is always one
/// line; the JSON format writes each message as a JSON string.

#include <memory>
#include <string>

#include <spdlog/formatter.h>
#include <CLI/CLI.hpp>

#include "floe/common/result.h"

namespace floe::cli {

/// A spdlog formatter for `pattern`, in which the flag `%E` is the message
/// with control characters escaped (use it instead of `%v`).
std::unique_ptr<spdlog::formatter> EscapedTextFormatter(const std::string& pattern);

/// spdlog's default pattern with `%E`: the format of the default logger and
/// of every logger a command creates unless it sets its own.
inline constexpr const char* kDefaultLogPattern = "[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %E";

/// The text pattern of long-running commands (`ingest`, `run`):
/// "2024-01-01 12:00:00.000 info message".
inline constexpr const char* kCommandLogPattern = "%Y-%m-%d %H:%M:%S.%e %^%l%$ %E";

/// Makes a logger on standard error with kDefaultLogPattern the default
/// logger (RunCli calls it before parsing the command line): standard output
/// carries only what a command prints as its result.
void SetUpDefaultLogging();

struct CommandLogOptions {
  /// The logger's name, e.g. "ingest".
  std::string name;
  /// trace, debug, info, warn, error or off.
  std::string level = "info";
  /// "text" (`pattern`) or "json" (one object per line:
  /// {"time","level","thread","message"}, time in UTC).
  std::string format = "text";
  /// The text pattern (with `%E` for the message).
  std::string pattern = kCommandLogPattern;
  /// A progress line is shown on standard error (progress_line.h): each log
  /// line first erases it (it comes back within a second).
  bool under_progress_line = false;
};

/// Makes a logger on standard error with `options` the default logger,
/// replacing one of the same name made before. Errors: kInvalidArgument for
/// an unknown level or format (a usage error).
Status SetUpCommandLogging(const CommandLogOptions& options);

/// `--log-level` (trace, debug, info, warn, error, off), checked while the
/// command line is parsed.
CLI::Option* AddLogLevelOption(CLI::App& command, std::string* level);

}  // namespace floe::cli
