#pragma once
/// A cursor over one line of JSON text and the scanning steps of floe's
/// one-pass JSON parsers: white space, literals, strings (copied only when
/// they hold an escape), numbers (converted as they are scanned) and values
/// skipped without recursion. Shared by the JSON row parser (row_json.h,
/// row_json_parse.cc) and the Debezium JSON reader's one-pass decoder
/// (cdc/debezium_json_reader_onepass.cc), which add the walk along their
/// schema plans. Not thread-safe; one cursor per parser.
///
/// The steps return false on an error and keep it in `error_` (a Result per
/// value would cost more than scanning a number). Strings are checked to be
/// UTF-8 without raw control characters, numbers to follow RFC 8259. The
/// steps are inline (json_cursor_internal.h holds their bodies).

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe::types {

class JsonCursor {
 public:
  /// Values skipped by SkipValue may nest this deep (unless a parser sets a
  /// lower `max_skip_depth_`; a schema bounds the depth of the values it reads).
  static constexpr int kMaxSkipDepth = 1024;

  static bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

 protected:
  /// Starts on `json` (the text must outlive the scan).
  void Start(std::string_view json) {
    begin_ = json.data();
    p_ = begin_;
    end_ = begin_ + json.size();
  }

  size_t Offset() const { return static_cast<size_t>(p_ - begin_); }
  size_t Left() const { return static_cast<size_t>(end_ - p_); }

  /// Keeps `e` as the error; returns false.
  bool Failed(std::unexpected<Error> e) {
    error_ = std::move(e).error();
    return false;
  }

  /// Fails with "invalid JSON: <what> at offset N" (or "the line ends early").
  bool Syntax(std::string_view what) {
    if (p_ >= end_) return Failed(InvalidArgument("invalid JSON: {}: the line ends early", what));
    return Failed(InvalidArgument("invalid JSON: {} at offset {}", what, Offset()));
  }

  /// Steps over JSON white space.
  void SkipSpace();
  /// Expects `c` (after white space) and steps over it; `what` words the error.
  bool Expect(char c, std::string_view what);
  /// Steps over `word` (true, false, null) at p_.
  bool Literal(std::string_view word);

  /// Reads the string whose opening quote is at p_. The result points into
  /// the line when the string holds no escape, else into `unescaped_` (valid
  /// until the next string is read).
  bool ReadString(std::string_view* out);
  /// The rest of a string from p_ that holds escapes or non-ASCII bytes.
  bool ReadStringSlowly(const char* start, std::string_view* out);
  /// Reads the four hex digits of a \u escape at p_.
  bool ReadHex4(uint32_t* out);
  bool SkipString() {
    std::string_view s;
    return ReadString(&s);
  }

  struct Number {
    std::string_view text;
    bool integer = false;  // no fraction or exponent, and fits int64
    int64_t value = 0;
  };

  /// Reads a JSON number at p_ (RFC 8259 grammar).
  bool ReadNumber(Number* out);
  bool SkipNumber() {
    Number n;
    return ReadNumber(&n);
  }

  /// Checks and steps over one value of any kind (an unknown member's),
  /// without recursion: `open_` holds the brackets it is inside.
  bool SkipValue();

  const char* begin_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::string unescaped_;                  // a string with escapes, unescaped
  std::string open_;                       // SkipValue's open brackets
  size_t max_skip_depth_ = kMaxSkipDepth;  // SkipValue refuses deeper values
  Error error_{ErrorCode::kInternal, ""};  // the last failure's
};

}  // namespace floe::types

#include "floe/types/json_cursor_internal.h"  // IWYU pragma: export
