#pragma once
/// Text compared ignoring ASCII case: how a scan or a filter that is not
/// case sensitive matches column names, and how the expression and
/// partition-field parsers match their keywords. Bytes outside ASCII must
/// match exactly.
#include <cctype>
#include <cstddef>
#include <string_view>

namespace floe::iceberg {

/// Whether `a` and `b` are equal once ASCII letters are lowered.
inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace floe::iceberg
