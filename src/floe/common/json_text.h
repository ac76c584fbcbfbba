#pragma once
/// Writing JSON text: the one string escaper every JSON writer in floe uses.

#include <cstddef>
#include <string>
#include <string_view>

namespace floe {

/// What becomes of a byte that is not part of well-formed UTF-8.
enum class InvalidUtf8 {
  kReplace,  ///< U+FFFD, one per byte (readable, lossy)
  kEscape,   ///< `\udcXX`, XX the byte (lossless: Python's surrogateescape; json_dump.h)
};

/// Appends `s` as a JSON string literal: quotes, `\" \\ \n \r \t \b \f`, other
/// control characters as `\u00XX`; bytes that are not well-formed UTF-8 as
/// `invalid` says.
void AppendJsonString(std::string_view s, std::string* out,
                      InvalidUtf8 invalid = InvalidUtf8::kReplace);

/// The most bytes WriteJsonString writes for a string of `size` bytes.
constexpr size_t JsonStringBound(size_t size) { return 6 * size + 2; }

/// Writes what AppendJsonString appends to `out`, which has room for
/// JsonStringBound(s.size()) bytes; returns the end of what it wrote.
char* WriteJsonString(std::string_view s, char* out, InvalidUtf8 invalid = InvalidUtf8::kReplace);

}  // namespace floe
