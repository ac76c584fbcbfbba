#pragma once
/// A structural scan of JSON text, for error messages only: where the first
/// top-level value ends. The fast parsers (simdjson) report text that goes on
/// after a complete object as an object that "ended early"; this tells the
/// two apart, so the message says what is wrong and where.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

namespace floe {

/// Walks the brackets of JSON text that are outside strings, calling
/// `on_bracket(offset, depth_after)` for each; stops early when it returns
/// false. Does not check that the text is valid JSON.
template <typename OnBracket>
void ScanJsonBrackets(std::string_view text, OnBracket on_bracket) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
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
      if (!on_bracket(i, ++depth)) return;
    } else if (c == '}' || c == ']') {
      if (!on_bracket(i, --depth)) return;
    }
  }
}

/// The deepest nesting of objects and arrays in JSON text (0 for a scalar),
/// found without recursion: hostile text can be refused before a recursive
/// parser or walk overflows the stack.
inline int MaxJsonDepth(std::string_view text) {
  int deepest = 0;
  ScanJsonBrackets(text, [&](size_t, int depth) {
    deepest = std::max(deepest, depth);
    return true;
  });
  return deepest;
}

/// The offset just past the first top-level object or array of `text`
/// (after leading white space); nullopt when `text` does not start with one
/// or it is not closed. Does not check that the value is valid JSON.
inline std::optional<size_t> EndOfFirstJsonValue(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || (text[start] != '{' && text[start] != '[')) {
    return std::nullopt;
  }
  std::optional<size_t> end;
  ScanJsonBrackets(text.substr(start), [&](size_t offset, int depth) {
    if (depth > 0) return true;
    end = start + offset + 1;
    return false;
  });
  return end;
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
