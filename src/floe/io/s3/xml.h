#pragma once
/// A minimal XML reader for S3's response documents (docs/s3.md, "XML").
/// Debian has libxml2 and expat, but floe links neither, and S3 answers in a
/// small, fixed subset of XML: elements, text, entity and character
/// references, an XML declaration, comments and CDATA. Attributes are skipped
/// (S3 only puts xmlns there) and namespace prefixes are dropped from names.
///
/// Any byte string is safe input: malformed documents are kCorruption (never
/// a crash), nesting is bounded by kMaxXmlDepth, and the tree holds at most
/// the input's size in text. Thread-safe (no state).

#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::io::s3 {

/// Deepest element nesting ParseXml accepts (S3's documents nest 3 levels).
inline constexpr int kMaxXmlDepth = 32;

/// One element: its local name, its text (character data directly inside it,
/// entities decoded, concatenated), and its child elements in order.
struct XmlElement {
  std::string name;
  std::string text;
  std::vector<XmlElement> children;

  /// The first child named `name`, or nullptr.
  const XmlElement* Child(std::string_view child_name) const;
  /// The text of the first child named `name`; empty when there is none.
  std::string_view ChildText(std::string_view child_name) const;
  /// Every child named `name`, in document order.
  std::vector<const XmlElement*> Children(std::string_view child_name) const;
};

/// Parses a document and returns its root element. kCorruption, naming the
/// byte offset, for anything that is not well-formed in the subset above
/// (unclosed or mismatched tags, an unknown entity, a second root, text
/// outside the root, nesting deeper than kMaxXmlDepth).
Result<XmlElement> ParseXml(std::string_view document);

/// `text` with &, <, >, " and ' replaced by their entities (EscapeMarkup for
/// XML).
std::string XmlEscape(std::string_view text);

}  // namespace floe::io::s3
