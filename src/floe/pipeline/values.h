#pragma once
/// Scalar values of a pipeline file, read the way Flink CDC reads them:
/// durations ("500ms", "10s", "1min", "2 h"; a bare number is milliseconds,
/// as Flink's TimeUtils reads it), booleans ("true"/"false", any case), and
/// integers; plus the nearest-key suggestion for typos.
/// Every parser returns kInvalidArgument with a message saying what was
/// expected; callers prefix the key and the line.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::pipeline {

/// A duration of at least 0 ms: a non-negative integer, optional blanks, and
/// a unit: ms / milli / millis / millisecond(s), s / sec / second(s),
/// m / min / minute(s), h / hour(s), d / day(s). No unit means ms.
/// Errors: no number, an unknown unit (listing the units), overflow.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

/// "500ms", "10s", "1min", "2h", "1d": the largest unit that divides evenly.
std::string FormatDuration(std::chrono::milliseconds duration);

/// A decimal integer (optional sign) in [min, max].
/// Errors: not an integer, or out of range (naming the range).
Result<int64_t> ParseInteger(std::string_view text, int64_t min, int64_t max);

/// "true" or "false", any case. Errors: anything else.
Result<bool> ParseBool(std::string_view text);

/// Edit distance: insertions, deletions, substitutions and swaps of two
/// neighbouring characters each count one. Quadratic: for key names.
size_t EditDistance(std::string_view a, std::string_view b);

/// The candidate nearest to `key` by edit distance, if it is near enough to
/// be a typo (at most 3 edits and less than half of the key's length);
/// ties go to the first candidate.
std::optional<std::string> NearestKey(std::string_view key,
                                      const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" for NearestKey, else "".
std::string DidYouMean(std::string_view key, const std::vector<std::string>& candidates);

/// "a, b, c".
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace floe::pipeline
