#pragma once
/// S3's XML documents: the error document, InitiateMultipartUploadResult,
/// ListBucketResult (ListObjectsV2) and the CompleteMultipartUpload request.
/// Parsed with the minimal reader of xml.h; bad bytes are kCorruption.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::io::s3 {

/// `<Error><Code>NoSuchKey</Code><Message>...</Message>...</Error>`.
struct S3ErrorDocument {
  std::string code;      ///< "NoSuchKey", "SignatureDoesNotMatch", "SlowDown", ...
  std::string message;   ///< The server's sentence.
  std::string region;    ///< <Region>: the bucket's region (AuthorizationHeaderMalformed).
  std::string endpoint;  ///< <Endpoint>: where to go instead (PermanentRedirect).
};

/// The error document in `body`, or nullopt when `body` is not one (empty, not
/// XML, or another root element).
std::optional<S3ErrorDocument> ParseErrorDocument(std::string_view body);

/// The UploadId of an InitiateMultipartUploadResult. kCorruption if missing.
Result<std::string> ParseInitiateMultipartUpload(std::string_view body);

struct ListedObject {
  std::string key;
  uint64_t size = 0;
  std::string etag;
};

/// One page of ListObjectsV2.
struct ListPage {
  std::vector<ListedObject> objects;         ///< <Contents>, in key order.
  std::vector<std::string> common_prefixes;  ///< <CommonPrefixes><Prefix>, with the delimiter.
  bool truncated = false;                    ///< <IsTruncated>true: more pages follow.
  std::string next_continuation_token;       ///< Pass to the next call when truncated.
};

/// Parses a ListBucketResult. kCorruption for a bad size, a truncated page
/// without a continuation token, or another root element.
Result<ListPage> ParseListObjectsV2(std::string_view body);

/// The body of CompleteMultipartUpload for parts 1..N with these ETags.
std::string CompleteMultipartUploadBody(const std::vector<std::string>& etags);

/// The ETag S3 gives an object assembled from parts with these ETags (each the
/// hex MD5 of its part, quoted or not): hex MD5 of the parts' binary MD5s,
/// "-", the part count, in quotes. Empty if an ETag is not 32 hex digits
/// (then it cannot be predicted: e.g. SSE-KMS).
std::string MultipartEtag(const std::vector<std::string>& part_etags);

}  // namespace floe::io::s3
