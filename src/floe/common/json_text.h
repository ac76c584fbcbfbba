#pragma once
/// Writing JSON text: the one string escaper every JSON writer in floe uses.

#include <string>
#include <string_view>

namespace floe {

/// Appends `s` as a JSON string literal: quotes, `\" \\ \n \r \t \b \f`, other
/// control characters as `\u00XX`; bytes that are not well-formed UTF-8
/// become U+FFFD (one per byte).
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace floe
