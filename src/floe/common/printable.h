#pragma once
/// Text from outside floe (table names, file names, event data) made safe to
/// print on a terminal or into a line-oriented log: one line stays one line,
/// and a huge name does not bury the message.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floe {

/// `s` with every control character (U+0000-U+001F, U+007F) escaped as
/// `\n`, `\r`, `\t` or `\xHH`, and every byte that is not part of well-formed
/// UTF-8 as `\xHH`. Other text, backslashes included, is unchanged.
std::string EscapeControlCharacters(std::string_view s);

/// Names (runs of bytes without spaces) longer than `max_name_bytes` in
/// `message` cut to their first bytes (on a UTF-8 boundary) followed by
/// "...[N bytes]", N the name's full length. Shorter messages are unchanged.
std::string ShortenLongNames(std::string_view message, size_t max_name_bytes = 200);

/// What the CLI prints for an error message or a log line:
/// EscapeControlCharacters(ShortenLongNames(message)).
std::string PrintableMessage(std::string_view message);

/// The first `max_items` of `items` joined with ", ", then " and N more" when
/// there are more: a list of thousands of tables stays one readable line.
std::string JoinAtMost(const std::vector<std::string>& items, size_t max_items = 20);

/// `n` in decimal with its digits grouped by three: "1,234,567", "-1,000".
std::string Thousands(int64_t n);

}  // namespace floe
