#pragma once
/// Escaping text for XML and HTML documents.

#include <string>
#include <string_view>

namespace floe {

/// The markup language text is escaped for; they differ in the apostrophe.
enum class Markup {
  kXml,   ///< `'` as `&apos;`
  kHtml,  ///< `'` as `&#39;` (HTML 4 has no `&apos;`)
};

/// `text` with `& < > " '` replaced by character references, fit for an
/// element's text or a quoted attribute value in `markup`. Other bytes
/// (UTF-8 included) are copied as they are.
std::string EscapeMarkup(std::string_view text, Markup markup);

}  // namespace floe
