#pragma once
/// Serializing nlohmann JSON values that may hold text from outside floe
/// (file names, table and column names read from files, event data).
///
/// nlohmann's `dump()` throws on a string that is not valid UTF-8, and the
/// exception ends the process. DumpJson never throws: it writes exactly what
/// `dump(indent)` writes for valid text, and escapes each byte that is not
/// part of a well-formed UTF-8 sequence as a lone low surrogate `\udcXX`
/// (XX the byte), the convention of Python's "surrogateescape" (PEP 383).
/// That is lossless and unambiguous (valid UTF-8 never holds a surrogate):
/// Python reads the bytes back with
/// `json.loads(text)[...].encode("utf-8", "surrogateescape")`. Strict readers
/// (nlohmann's parser among them) refuse such a string instead of guessing,
/// so names that floe itself reads back must be checked up front
/// (CheckUtf8 in floe/common/utf8.h). See docs/json-rows.md.

#include <string>

#include <nlohmann/json.hpp>

namespace floe {

/// `json.dump(indent)` (compact for -1), never throwing; see above. Recurses
/// once per nesting level of `json`.
std::string DumpJson(const nlohmann::json& json, int indent = -1);
std::string DumpJson(const nlohmann::ordered_json& json, int indent = -1);

/// Appends `s` as a JSON string literal with the escapes above.
void AppendJsonStringLossless(std::string_view s, std::string* out);

}  // namespace floe
