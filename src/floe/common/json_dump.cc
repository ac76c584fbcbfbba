#include "floe/common/json_dump.h"

#include <cstdint>

#include "floe/common/json_text.h"

namespace floe {
namespace {

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
  AppendJsonString(s, out, InvalidUtf8::kEscape);
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
