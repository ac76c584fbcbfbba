#include "floe/io/s3/s3_uri.h"

#include "floe/io/file_io.h"

namespace floe::io::s3 {

std::string S3Location::ToString() const { return scheme + "://" + bucket + "/" + key; }

bool IsS3Uri(std::string_view uri) {
  std::string scheme = UriScheme(uri);
  return scheme == "s3" || scheme == "s3a" || scheme == "s3n";
}

Result<S3Location> ParseS3Uri(std::string_view uri) {
  if (!IsS3Uri(uri)) {
    return InvalidArgument("'{}' is not an S3 location (expected s3://bucket/key)", RedactUri(uri));
  }
  S3Location out;
  out.scheme = UriScheme(uri);
  std::string_view rest = uri.substr(uri.find("://") + 3);
  size_t slash = rest.find('/');
  std::string_view bucket = rest.substr(0, slash);
  if (bucket.empty()) return InvalidArgument("'{}' names no bucket", RedactUri(uri));
  if (bucket.size() > 255)
    return InvalidArgument("'{}': the bucket name is too long", RedactUri(uri));
  for (char c : bucket) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    if (!ok) {
      return InvalidArgument("'{}': a bucket name holds only letters, digits, '.', '-' and '_'",
                             RedactUri(uri));
    }
  }
  out.bucket = std::string(bucket);
  if (slash != std::string_view::npos) out.key = std::string(rest.substr(slash + 1));
  return out;
}

}  // namespace floe::io::s3
