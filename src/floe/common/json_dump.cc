#include "floe/common/json_dump.h"

#include <cstdint>

#include "floe/common/utf8.h"

namespace floe {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void Newline(int indent, int level, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
}

template <typename Json>
void Dump(const Json& j, int indent, int level, std::string* out) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      if (j.empty()) {
        out->append("{}");
        return;
      }
      out->push_back('{');
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out->push_back(',');
        first = false;
        if (indent >= 0) Newline(indent, level + 1, out);
        AppendJsonStringLossless(it.key(), out);
        out->append(indent >= 0 ? ": " : ":");
        Dump(it.value(), indent, level + 1, out);
      }
      if (indent >= 0) Newline(indent, level, out);
      out->push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      if (j.empty()) {
        out->append("[]");
        return;
      }
      out->push_back('[');
      bool first = true;
      for (const auto& element : j) {
        if (!first) out->push_back(',');
        first = false;
        if (indent >= 0) Newline(indent, level + 1, out);
        Dump(element, indent, level + 1, out);
      }
      if (indent >= 0) Newline(indent, level, out);
      out->push_back(']');
      return;
    }
    case nlohmann::json::value_t::string:
      AppendJsonStringLossless(j.template get_ref<const std::string&>(), out);
      return;
    default:  // numbers, booleans, null, binary: nothing that can fail
      out->append(j.dump());
      return;
  }
}

}  // namespace

void AppendJsonStringLossless(std::string_view s, std::string* out) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t run = 0;  // start of the bytes not yet copied
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t len = Utf8SequenceLength(p + i, n - i); len != 0) {
        i += len;
        continue;
      }
      out->append(s.data() + run, i - run);
      out->append("\\udc");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
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

std::string DumpJson(const nlohmann::json& json, int indent) {
  std::string out;
  Dump(json, indent, 0, &out);
  return out;
}

std::string DumpJson(const nlohmann::ordered_json& json, int indent) {
  std::string out;
  Dump(json, indent, 0, &out);
  return out;
}

}  // namespace floe
