#include "floe/io/s3/xml.h"

#include <cstdint>

#include "floe/common/markup.h"
#include "floe/common/utf8.h"

namespace floe::io::s3 {
namespace {

/// XML's NameStartChar and NameChar, for ASCII; every byte of a multi-byte
/// UTF-8 sequence is taken as a name character.
bool IsNameStart(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':';
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Parser {
 public:
  explicit Parser(std::string_view doc) : doc_(doc) {}

  Result<XmlElement> Document() {
    FLOE_RETURN_IF_ERROR(SkipMisc());
    if (pos_ >= doc_.size() || doc_[pos_] != '<') return Fail("no root element");
    XmlElement root;
    FLOE_RETURN_IF_ERROR(Element(&root, 1));
    FLOE_RETURN_IF_ERROR(SkipMisc());
    if (pos_ != doc_.size()) return Fail("content after the root element");
    return root;
  }

 private:
  std::unexpected<Error> Fail(std::string_view what) const {
    return Corruption("malformed XML at byte {}: {}", pos_, what);
  }

  bool StartsWith(std::string_view s) const { return doc_.substr(pos_).starts_with(s); }

  // Skips "<?...?>", comments, a DOCTYPE and white space between markup.
  Status SkipMisc() {
    while (pos_ < doc_.size()) {
      if (IsSpace(doc_[pos_])) {
        ++pos_;
      } else if (StartsWith("<?")) {
        FLOE_RETURN_IF_ERROR(SkipPast("?>"));
      } else if (StartsWith("<!--")) {
        FLOE_RETURN_IF_ERROR(SkipPast("-->"));
      } else if (StartsWith("<!DOCTYPE")) {
        FLOE_RETURN_IF_ERROR(SkipPast(">"));
      } else {
        break;
      }
    }
    return Ok();
  }

  Status SkipPast(std::string_view end) {
    size_t at = doc_.find(end, pos_ + 2);
    if (at == std::string_view::npos) return Fail("unterminated markup");
    pos_ = at + end.size();
    return Ok();
  }

  Result<std::string_view> Name() {
    size_t start = pos_;
    while (pos_ < doc_.size() && IsNameChar(doc_[pos_])) ++pos_;
    if (pos_ == start) return Fail("expected a name");
    std::string_view name = doc_.substr(start, pos_ - start);
    // "prefix:local": the local name.
    size_t colon = name.rfind(':');
    std::string_view local = colon == std::string_view::npos ? name : name.substr(colon + 1);
    if (local.empty() || !IsNameStart(local.front()) || !IsNameStart(name.front())) {
      return Fail("'" + std::string(name) + "' is not an element or attribute name");
    }
    return local;
  }

  // Parses "<name attrs>...</name>" or "<name attrs/>" at pos_.
  Status Element(XmlElement* out, int depth) {
    if (depth > kMaxXmlDepth) return Fail("elements nest too deeply");
    ++pos_;  // '<'
    FLOE_ASSIGN_OR_RETURN(std::string_view name, Name());
    out->name = std::string(name);
    // Attributes: name="value" or name='value', skipped.
    while (true) {
      while (pos_ < doc_.size() && IsSpace(doc_[pos_])) ++pos_;
      if (pos_ >= doc_.size()) return Fail("unterminated start tag");
      if (doc_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (StartsWith("/>")) {
        pos_ += 2;
        return Ok();
      }
      FLOE_RETURN_IF_ERROR(Name());
      while (pos_ < doc_.size() && IsSpace(doc_[pos_])) ++pos_;
      if (pos_ >= doc_.size() || doc_[pos_] != '=') return Fail("expected '=' in an attribute");
      ++pos_;
      while (pos_ < doc_.size() && IsSpace(doc_[pos_])) ++pos_;
      if (pos_ >= doc_.size() || (doc_[pos_] != '"' && doc_[pos_] != '\'')) {
        return Fail("expected a quoted attribute value");
      }
      size_t end = doc_.find(doc_[pos_], pos_ + 1);
      if (end == std::string_view::npos) return Fail("unterminated attribute value");
      pos_ = end + 1;
    }
    // Content.
    while (true) {
      if (pos_ >= doc_.size()) return Fail("unterminated element <" + out->name + ">");
      char c = doc_[pos_];
      if (c == '&') {
        FLOE_RETURN_IF_ERROR(Reference(&out->text));
      } else if (c != '<') {
        out->text.push_back(c);
        ++pos_;
      } else if (StartsWith("</")) {
        pos_ += 2;
        FLOE_ASSIGN_OR_RETURN(std::string_view end_name, Name());
        if (end_name != out->name) return Fail("mismatched end tag");
        while (pos_ < doc_.size() && IsSpace(doc_[pos_])) ++pos_;
        if (pos_ >= doc_.size() || doc_[pos_] != '>') return Fail("unterminated end tag");
        ++pos_;
        return Ok();
      } else if (StartsWith("<![CDATA[")) {
        size_t end = doc_.find("]]>", pos_ + 9);
        if (end == std::string_view::npos) return Fail("unterminated CDATA");
        out->text.append(doc_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
      } else if (StartsWith("<!--")) {
        FLOE_RETURN_IF_ERROR(SkipPast("-->"));
      } else if (StartsWith("<?")) {
        FLOE_RETURN_IF_ERROR(SkipPast("?>"));
      } else {
        out->children.emplace_back();
        FLOE_RETURN_IF_ERROR(Element(&out->children.back(), depth + 1));
      }
    }
  }

  Status Reference(std::string* out) {
    size_t end = doc_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) return Fail("bad entity reference");
    std::string_view ref = doc_.substr(pos_ + 1, end - pos_ - 1);
    if (ref == "amp") {
      out->push_back('&');
    } else if (ref == "lt") {
      out->push_back('<');
    } else if (ref == "gt") {
      out->push_back('>');
    } else if (ref == "quot") {
      out->push_back('"');
    } else if (ref == "apos") {
      out->push_back('\'');
    } else if (ref.size() >= 2 && ref[0] == '#') {
      bool hex = ref[1] == 'x';
      std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return Fail("bad character reference");
      uint32_t cp = 0;
      for (char c : digits) {
        int d;
        if (c >= '0' && c <= '9') {
          d = c - '0';
        } else if (hex && c >= 'a' && c <= 'f') {
          d = c - 'a' + 10;
        } else if (hex && c >= 'A' && c <= 'F') {
          d = c - 'A' + 10;
        } else {
          return Fail("bad character reference");
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        if (cp > 0x10FFFF) return Fail("character reference out of range");
      }
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return Fail("invalid character reference");
      AppendUtf8(cp, out);
    } else {
      return Fail("unknown entity");
    }
    pos_ = end + 1;
    return Ok();
  }

  std::string_view doc_;
  size_t pos_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const XmlElement& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

std::string_view XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* c = Child(child_name);
  return c ? std::string_view(c->text) : std::string_view();
}

std::vector<const XmlElement*> XmlElement::Children(std::string_view child_name) const {
  std::vector<const XmlElement*> out;
  for (const XmlElement& c : children) {
    if (c.name == child_name) out.push_back(&c);
  }
  return out;
}

Result<XmlElement> ParseXml(std::string_view document) { return Parser(document).Document(); }

std::string XmlEscape(std::string_view text) { return EscapeMarkup(text, Markup::kXml); }

}  // namespace floe::io::s3
