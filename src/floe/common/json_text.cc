#include "floe/common/json_text.h"

#include <cstdint>

#include "floe/common/utf8.h"

namespace floe {

void AppendJsonString(std::string_view s, std::string* out, InvalidUtf8 invalid) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t run = 0;  // start of the bytes not yet copied
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t len = Utf8SequenceLength(p + i, n - i); len != 0) {
        i += len;
        continue;
      }
      out->append(s.data() + run, i - run);
      if (invalid == InvalidUtf8::kReplace) {
        out->append("\xEF\xBF\xBD");
      } else {
        out->append("\\udc");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
      }
      run = ++i;
      continue;
    }
    out->append(s.data() + run, i - run);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
    run = ++i;
  }
  out->append(s.data() + run, n - run);
  out->push_back('"');
}

}  // namespace floe
