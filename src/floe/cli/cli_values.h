#pragma once
/// Parsing and checking the value forms that several floe commands accept.
/// Option values are checked with the validators below while the command
/// line is parsed, so a bad value is a usage error (exit 2, command_runner.h)
/// before anything is opened or written.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::cli {

/// Most threads any thread-count option (--parallelism, ...) may ask for.
inline constexpr int64_t kMaxThreads = 256;

/// "7d", "12h", "30m", "45s", "500ms", "1w" -> milliseconds; nullopt when not one.
std::optional<int64_t> ParseDuration(std::string_view text);

/// "512MiB", "64MB", "1GiB", "1.5GiB", "4096", "100KiB" -> bytes (KB/MB/GB
/// are powers of 1000, KiB/MiB/GiB of 1024; a fraction is rounded down to
/// whole bytes); nullopt when not one.
std::optional<int64_t> ParseByteSize(std::string_view text);

/// "a, b,c" -> {"a", "b", "c"}: comma-separated names, blanks around them
/// dropped, empty names skipped (--columns, --primary-key).
std::vector<std::string> SplitNames(const std::string& text);

/// Milliseconds since the epoch from "2024-01-01T00:00:00[.ffffff][Z|+hh:mm]"
/// (rounded down to the millisecond), a bare date, or an integer number of
/// milliseconds. kInvalidArgument naming `option` otherwise.
Result<int64_t> ParseTimeMillis(std::string_view option, const std::string& text);

/// An integer option in [lo, hi]: "--limit: -1 is out of range (0 to 9223372036854775807)".
CLI::Validator IntegerIn(int64_t lo, int64_t hi);
/// A duration option (ParseDuration) of at least `lo_ms` and at most `hi_ms`.
CLI::Validator DurationIn(int64_t lo_ms, int64_t hi_ms);
/// A byte size option (ParseByteSize) in [lo, hi] bytes.
CLI::Validator ByteSizeIn(int64_t lo, int64_t hi);
/// One of `choices`: "--progress: 'bogus' is not one of auto, always, never".
CLI::Validator OneOf(std::initializer_list<std::string_view> choices);
/// Text that is valid UTF-8 (names that go into Iceberg metadata and state
/// files): "table: not valid UTF-8 (byte 0xFF at offset 3)".
CLI::Validator Utf8Text();
/// `key=value` with a non-empty key, valid UTF-8; `form` names the form in
/// the message ("old=new" for a rename).
CLI::Validator KeyValueText(std::string_view form = "key=value");

}  // namespace floe::cli
