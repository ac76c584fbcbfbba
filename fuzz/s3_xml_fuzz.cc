// Fuzzes the XML reader of S3 responses (floe/io/s3/xml.h) and the S3
// document parsers on it (floe/io/s3/s3_xml.h): the input is a response
// body. Nothing may crash, hang or overflow the stack; errors are fine. An
// accepted document must nest no deeper than kMaxXmlDepth and, written back
// (names, escaped text, children), parse again to the same tree. Seeds and
// crash regressions: tests/fuzz/s3_xml/.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/io/s3/s3_xml.h"
#include "floe/io/s3/xml.h"

namespace {

using floe::fuzz::Check;
using floe::io::s3::XmlElement;

int Depth(const XmlElement& e) {
  int deepest = 0;
  for (const XmlElement& c : e.children) deepest = std::max(deepest, Depth(c));
  return deepest + 1;
}

void Write(const XmlElement& e, std::string* out) {
  *out += "<" + e.name + ">" + floe::io::s3::XmlEscape(e.text);
  for (const XmlElement& c : e.children) Write(c, out);
  *out += "</" + e.name + ">";
}

bool Same(const XmlElement& a, const XmlElement& b) {
  if (a.name != b.name || a.text != b.text || a.children.size() != b.children.size()) return false;
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!Same(a.children[i], b.children[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)floe::io::s3::ParseErrorDocument(text);
  (void)floe::io::s3::ParseInitiateMultipartUpload(text);
  if (auto page = floe::io::s3::ParseListObjectsV2(text)) {
    Check(!page->truncated || !page->next_continuation_token.empty());
  }
  auto root = floe::io::s3::ParseXml(text);
  if (!floe::fuzz::Accepted(root)) return 0;
  Check(Depth(*root) <= floe::io::s3::kMaxXmlDepth);
  std::string written;
  Write(*root, &written);
  auto again = floe::io::s3::ParseXml(written);
  Check(static_cast<bool>(again));
  Check(Same(*root, *again));
  return 0;
}
