#pragma once
/// Quoting text the SQL way: between two quote characters, each quote
/// character inside doubled. The rule of SQL's quoted identifiers (`name`,
/// "name") and string literals ('text'), which floe's row filters follow too.

#include <string>
#include <string_view>

namespace floe {

/// Appends `text` to `*out` between two `quote` characters, each `quote` in
/// `text` doubled: ("a`b", '`') appends "`a``b`". Other bytes are kept as
/// they are.
inline void AppendSqlQuoted(std::string_view text, char quote, std::string* out) {
  out->push_back(quote);
  for (char c : text) {
    if (c == quote) out->push_back(quote);
    out->push_back(c);
  }
  out->push_back(quote);
}

/// AppendSqlQuoted into a new string: SqlQuoted("it's", '\'') is "'it''s'".
inline std::string SqlQuoted(std::string_view text, char quote) {
  std::string out;
  out.reserve(text.size() + 2);
  AppendSqlQuoted(text, quote, &out);
  return out;
}

}  // namespace floe
