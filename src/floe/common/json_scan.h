#pragma once
/// A structural scan of JSON text, for error messages only: where the first
/// top-level value ends. The fast parsers (simdjson) report text that goes on
/// after a complete object as an object that "ended early"; this tells the
/// two apart, so the message says what is wrong and where.

#include <cstddef>
#include <optional>
#include <string_view>

namespace floe {

/// The offset just past the first top-level object or array of `text`
/// (after leading white space), counting brackets outside strings; nullopt
/// when `text` does not start with one or it is not closed. Does not check
/// that the value is valid JSON.
inline std::optional<size_t> EndOfFirstJsonValue(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || (text[i] != '{' && text[i] != '[')) return std::nullopt;
  size_t depth = 0;
  bool in_string = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::nullopt;
}

/// The offset of the first character that is not white space after the first
/// top-level object or array of `text`, or nullopt when there is none (or the
/// value is not closed).
inline std::optional<size_t> ContentAfterFirstJsonValue(std::string_view text) {
  auto end = EndOfFirstJsonValue(text);
  if (!end) return std::nullopt;
  size_t rest = text.find_first_not_of(" \t\r\n", *end);
  if (rest == std::string_view::npos) return std::nullopt;
  return rest;
}

}  // namespace floe
