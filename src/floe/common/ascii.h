#pragma once
/// ASCII case and white-space helpers for text the formats and protocols define as ASCII
/// (codec names, units, URI schemes, HTTP header names, positions' keywords,
/// pipeline file values).
/// Bytes outside A-Z are kept as they are, whatever the process's locale.

#include <string>
#include <string_view>

namespace floe {

/// `s` with A-Z turned into a-z.
std::string AsciiLower(std::string_view s);

/// `s` without the ASCII white space (space, \t, \n, \v, \f, \r) at its ends.
std::string_view TrimAsciiSpace(std::string_view s);

/// Whether `a` and `b` are equal when A-Z and a-z are taken as the same.
bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b);

}  // namespace floe
