#pragma once
/// `s3://bucket/key` locations (also `s3a://` and `s3n://`, Hadoop's names
/// for the same thing, which Iceberg tables written by Spark carry).

#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe::io::s3 {

struct S3Location {
  std::string scheme;  ///< "s3", "s3a" or "s3n", lower-case, as given.
  std::string bucket;
  std::string key;  ///< Everything after "bucket/", unchanged; may be empty.

  /// "scheme://bucket/key".
  std::string ToString() const;
};

/// Parses `uri`. kInvalidArgument (naming the URI) for another scheme, an
/// empty bucket, or a bucket name with characters S3 never allows (S3's rule:
/// 3 to 63 of a-z 0-9 . -; upper case and '_' are accepted too, as old
/// buckets and other servers have them). The key is kept byte for byte: no
/// "." or "//" normalization, no percent-decoding.
Result<S3Location> ParseS3Uri(std::string_view uri);

/// Whether `uri` has one of the schemes above (case-insensitive).
bool IsS3Uri(std::string_view uri);

}  // namespace floe::io::s3
