#pragma once
/// The tokenizer for MySQL/MariaDB DDL as the server writes it to the binlog.
///
/// Handles: case-insensitive keywords (returned as identifiers; the parser
/// compares them case-insensitively), backtick-quoted identifiers with doubled
/// backticks, string literals in '...' or "..." with backslash escapes and
/// doubled quotes, charset introducers (`_utf8mb4'x'`, `N'x'`), numbers, hex
/// (`X'0F'`, `0x0F`) and bit (`b'01'`, `0b01`) literals, comments (`-- `, `#`,
/// `/* */`), and version comments `/*!50100 ... */` / `/*M!100100 ... */`
/// whose content is read as code, the way the server executes it.
/// See docs/mysql-ddl.md.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::cdc::mysql {

enum class TokenKind : uint8_t {
  kIdentifier,        ///< unquoted word: keyword or name; `text` as written
  kQuotedIdentifier,  ///< `name`: `text` unquoted
  kString,            ///< 'x' or "x": `text` unescaped; `introducer` holds _charset if any
  kNumber,            ///< 12, 1.5, 1e3, .5
  kHexNumber,         ///< X'0F' or 0x0F: `text` as written
  kBitNumber,         ///< b'01' or 0b01: `text` as written
  kPunct,             ///< one of ( ) , ; . = and operators: `text` is the operator
  kEnd,               ///< end of input
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  std::string introducer;  ///< "_utf8mb4", "N" for strings with an introducer
  uint32_t begin = 0;      ///< byte offset of the token's first character
  uint32_t end = 0;        ///< byte offset past the token
  uint32_t line = 1;       ///< 1-based
  uint32_t column = 1;     ///< 1-based, in bytes

  /// An unquoted identifier equal to `keyword`, ASCII case-insensitively.
  bool Is(std::string_view keyword) const;
  /// A punctuation token equal to `p`.
  bool IsPunct(std::string_view p) const { return kind == TokenKind::kPunct && text == p; }
  /// An identifier, quoted or not.
  bool IsName() const {
    return kind == TokenKind::kIdentifier || kind == TokenKind::kQuotedIdentifier;
  }
};

/// Splits `sql` into tokens, ending with one kEnd token. Errors:
/// kInvalidArgument for an unterminated string, quoted identifier or comment,
/// naming line:column. Inputs larger than 16 MiB are rejected the same way.
Result<std::vector<Token>> Tokenize(std::string_view sql);

/// Line and column (1-based) of a byte offset in `text`.
void LineColumnOf(std::string_view text, size_t offset, uint32_t* line, uint32_t* column);

}  // namespace floe::cdc::mysql
