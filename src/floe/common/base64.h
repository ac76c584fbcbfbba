#pragma once
/// Standard base64 (RFC 4648, with padding), used for binary values in JSON rows.

#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe {

/// Appends the base64 encoding of `bytes` to `*out`.
void Base64Encode(std::string_view bytes, std::string* out);

/// Appends the decoded bytes to `*out`. Returns kInvalidArgument for
/// characters outside the alphabet or a bad length.
Status Base64Decode(std::string_view text, std::string* out);

}  // namespace floe
