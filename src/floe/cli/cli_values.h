#pragma once
/// Parsing the value forms that several floe commands accept.

#include <cstdint>
#include <optional>
#include <string_view>

namespace floe::cli {

/// "7d", "12h", "30m", "45s", "500ms", "1w" -> milliseconds; nullopt when not one.
std::optional<int64_t> ParseDuration(std::string_view text);

/// "512MiB", "64MB", "1GiB", "4096", "100KiB" -> bytes (KB/MB/GB are powers of
/// 1000, KiB/MiB/GiB of 1024); nullopt when not one.
std::optional<int64_t> ParseByteSize(std::string_view text);

}  // namespace floe::cli
