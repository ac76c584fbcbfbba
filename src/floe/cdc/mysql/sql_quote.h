#pragma once
/// Quoting names and values into the SQL floe sends to MySQL/MariaDB.

#include <string>
#include <string_view>

namespace floe::cdc::mysql {

/// `name` as a quoted identifier: backticks, inner backticks doubled.
std::string QuoteId(std::string_view name);
/// `s` as a string literal: single quotes, with ', \ and NUL escaped (safe
/// whether or not NO_BACKSLASH_ESCAPES is set).
std::string QuoteLiteral(std::string_view s);

}  // namespace floe::cdc::mysql
