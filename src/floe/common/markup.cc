#include "floe/common/markup.h"

namespace floe {

std::string EscapeMarkup(std::string_view text, Markup markup) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += markup == Markup::kXml ? "&apos;" : "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

}  // namespace floe
