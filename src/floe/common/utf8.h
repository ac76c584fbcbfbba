#pragma once
/// UTF-8 encoding and validation, shared by every text writer in floe.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe {

/// Appends code point `cp` as UTF-8; surrogates and values past U+10FFFF
/// become U+FFFD.
void AppendUtf8(uint32_t cp, std::string* out);

/// The length (2 to 4) of the well-formed UTF-8 sequence starting at `p[0]`
/// (a byte >= 0x80) within `remaining` bytes, or 0 when it is not one
/// (overlong forms, surrogates, past U+10FFFF, truncated). Sets `*cp` to the
/// code point when it is one and `cp` is not null.
size_t Utf8SequenceLength(const uint8_t* p, size_t remaining, uint32_t* cp = nullptr);

/// The byte offset of the first byte of `s` that does not start a well-formed
/// UTF-8 sequence, or std::string_view::npos when all of `s` is valid UTF-8.
size_t FindInvalidUtf8(std::string_view s);

/// Ok when `s` is valid UTF-8; otherwise kInvalidArgument "<what> is not valid
/// UTF-8 (byte 0xE9 at offset 3)". For names that go into Iceberg metadata
/// and other JSON that floe reads back strictly.
Status CheckUtf8(std::string_view s, std::string_view what);

/// The code point of the complete sequence `s` (1 to 4 bytes, well formed).
uint32_t DecodeUtf8(std::string_view s);

}  // namespace floe
