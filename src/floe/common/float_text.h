#pragma once
/// NaN and the infinities in JSON text. JSON numbers cannot spell them, so
/// floe's JSON rows (docs/json-rows.md), Debezium's JSON and Avro's JSON
/// encoding write them as the strings "NaN", "Infinity" and "-Infinity".
/// Header-only: the JSON readers and writers call these per value.

#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace floe {

/// If `text` (without quotes) is "NaN", "Infinity" or "-Infinity", stores
/// that value at `*out` and returns true; any other text returns false and
/// leaves `*out` unchanged. Case-sensitive, as the writers spell them.
template <typename T>
inline bool ParseNonFiniteText(std::string_view text, T* out) {
  static_assert(std::numeric_limits<T>::has_quiet_NaN);
  if (text == "NaN") {
    *out = std::numeric_limits<T>::quiet_NaN();
  } else if (text == "Infinity") {
    *out = std::numeric_limits<T>::infinity();
  } else if (text == "-Infinity") {
    *out = -std::numeric_limits<T>::infinity();
  } else {
    return false;
  }
  return true;
}

/// The JSON text of a NaN or infinite `v`, quotes included ("\"NaN\"",
/// "\"Infinity\"", "\"-Infinity\""); empty for a finite `v`. Static storage.
template <typename T>
inline std::string_view NonFiniteJson(T v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  return {};
}

/// Appends `v` as JSON: the shortest decimal text that reads back as the
/// same float or double, or NonFiniteJson(v) for a NaN or an infinity.
template <typename T>
inline void AppendJsonFloating(T v, std::string* out) {
  if (std::string_view special = NonFiniteJson(v); !special.empty()) {
    out->append(special);
  } else {
    fmt::format_to(std::back_inserter(*out), "{}", v);
  }
}

}  // namespace floe
