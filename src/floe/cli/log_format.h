#pragma once
/// Text logs of every floe command: messages carry names and values from
/// event data, so control characters in them are escaped (floe/common/
/// printable.h) and one log record is always one line.

#include <memory>
#include <string>

#include <spdlog/formatter.h>

namespace floe::cli {

/// A spdlog formatter for `pattern`, in which the flag `%E` is the message
/// with control characters escaped (use it instead of `%v`).
std::unique_ptr<spdlog::formatter> EscapedTextFormatter(const std::string& pattern);

/// spdlog's default pattern with `%E`: the format of every logger a command
/// creates unless it sets its own (main sets it as the registry's formatter).
inline constexpr const char* kDefaultLogPattern = "[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %E";

}  // namespace floe::cli
