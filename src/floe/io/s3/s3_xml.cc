#include "floe/io/s3/s3_xml.h"

#include <charconv>

#include "floe/io/s3/sigv4.h"
#include "floe/io/s3/xml.h"

namespace floe::io::s3 {

std::optional<S3ErrorDocument> ParseErrorDocument(std::string_view body) {
  auto root = ParseXml(body);
  if (!root || root->name != "Error") return std::nullopt;
  S3ErrorDocument out;
  out.code = std::string(root->ChildText("Code"));
  out.message = std::string(root->ChildText("Message"));
  out.region = std::string(root->ChildText("Region"));
  out.endpoint = std::string(root->ChildText("Endpoint"));
  return out;
}

Result<std::string> ParseInitiateMultipartUpload(std::string_view body) {
  FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "InitiateMultipartUploadResult") {
    return Corruption("expected InitiateMultipartUploadResult, got <{}>", root.name);
  }
  std::string_view id = root.ChildText("UploadId");
  if (id.empty()) return Corruption("InitiateMultipartUploadResult without an UploadId");
  return std::string(id);
}

Result<ListPage> ParseListObjectsV2(std::string_view body) {
  FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Corruption("expected ListBucketResult, got <{}>", root.name);
  }
  ListPage page;
  for (const XmlElement* c : root.Children("Contents")) {
    ListedObject o;
    o.key = std::string(c->ChildText("Key"));
    std::string_view size = c->ChildText("Size");
    auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), o.size);
    if (ec != std::errc() || end != size.data() + size.size()) {
      return Corruption("ListBucketResult: bad <Size> '{}' of key '{}'", size.substr(0, 40),
                        o.key.substr(0, 200));
    }
    o.etag = std::string(c->ChildText("ETag"));
    page.objects.push_back(std::move(o));
  }
  for (const XmlElement* p : root.Children("CommonPrefixes")) {
    page.common_prefixes.emplace_back(p->ChildText("Prefix"));
  }
  std::string_view truncated = root.ChildText("IsTruncated");
  page.truncated = truncated == "true";
  page.next_continuation_token = std::string(root.ChildText("NextContinuationToken"));
  if (page.truncated && page.next_continuation_token.empty()) {
    return Corruption("ListBucketResult is truncated but has no NextContinuationToken");
  }
  return page;
}

std::string CompleteMultipartUploadBody(const std::vector<std::string>& etags) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
           XmlEscape(etags[i]) + "</ETag></Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

std::string MultipartEtag(const std::vector<std::string>& part_etags) {
  std::string md5s;
  for (std::string_view e : part_etags) {
    if (e.size() >= 2 && e.front() == '"' && e.back() == '"') e = e.substr(1, e.size() - 2);
    if (e.size() != 32) return {};
    for (size_t i = 0; i < 32; i += 2) {
      unsigned v = 0;
      auto [end, ec] = std::from_chars(e.data() + i, e.data() + i + 2, v, 16);
      if (ec != std::errc() || end != e.data() + i + 2) return {};
      md5s.push_back(static_cast<char>(v));
    }
  }
  return "\"" + Md5Hex({reinterpret_cast<const uint8_t*>(md5s.data()), md5s.size()}) + "-" +
         std::to_string(part_etags.size()) + "\"";
}

}  // namespace floe::io::s3
