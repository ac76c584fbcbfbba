#include "floe/cdc/mysql/ddl_lexer.h"

#include <algorithm>

#include "floe/cdc/mysql/table_schema.h"

namespace floe::cdc::mysql {
namespace {

constexpr size_t kMaxInput = 16u << 20;

bool IsIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c >= 0x80;
}
bool IsIdentChar(unsigned char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(unsigned char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : s_(sql) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < s_.size(); ++i) {
      if (s_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      FLOE_RETURN_IF_ERROR(SkipSpaceAndComments());
      if (pos_ >= s_.size()) break;
      FLOE_ASSIGN_OR_RETURN(Token token, Next());
      out.push_back(std::move(token));
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.begin = end.end = static_cast<uint32_t>(s_.size());
    LineColumnOf(s_, s_.size(), &end.line, &end.column);
    out.push_back(std::move(end));
    return out;
  }

 private:
  std::unexpected<Error> ErrorAt(size_t offset, std::string_view what) {
    uint32_t line = 0, column = 0;
    LineColumnOf(s_, offset, &line, &column);
    return InvalidArgument("{} at line {}:{}", what, line, column);
  }

  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  Status SkipSpaceAndComments() {
    while (pos_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (IsSpace(c)) {
        ++pos_;
      } else if (c == '#' ||
                 (c == '-' && At(pos_ + 1) == '-' &&
                  (pos_ + 2 >= s_.size() || IsSpace(static_cast<unsigned char>(At(pos_ + 2)))))) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else if (c == '/' && At(pos_ + 1) == '*') {
        size_t start = pos_;
        // Version comment: /*!NNNNN code */ or MariaDB's /*M!NNNNNN code */.
        size_t p = pos_ + 2;
        if (At(p) == 'M' && At(p + 1) == '!') ++p;
        if (At(p) == '!') {
          ++p;
          while (p < s_.size() && IsDigit(static_cast<unsigned char>(s_[p]))) ++p;
          ++version_comment_depth_;
          pos_ = p;
          continue;
        }
        size_t close = s_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return ErrorAt(start, "unterminated comment");
        pos_ = close + 2;
      } else if (c == '*' && At(pos_ + 1) == '/' && version_comment_depth_ > 0) {
        --version_comment_depth_;
        pos_ += 2;
      } else {
        break;
      }
    }
    return Ok();
  }

  Token Make(TokenKind kind, size_t begin, std::string text) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(pos_);
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), begin);
    size_t line_index = static_cast<size_t>(it - line_starts_.begin()) - 1;
    t.line = static_cast<uint32_t>(line_index + 1);
    t.column = static_cast<uint32_t>(begin - line_starts_[line_index] + 1);
    return t;
  }

  // Reads a quoted string starting at pos_ (the quote). Backslash escapes
  // follow the server's table (NO_BACKSLASH_ESCAPES is not assumed).
  Result<std::string> ReadQuoted(char quote, bool backslash) {
    size_t start = pos_;
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) {
        return ErrorAt(
            start, quote == '`' ? "unterminated quoted identifier" : "unterminated string literal");
      }
      char c = s_[pos_];
      if (c == quote) {
        if (At(pos_ + 1) == quote) {
          out += quote;
          pos_ += 2;
          continue;
        }
        ++pos_;
        return out;
      }
      if (backslash && c == '\\' && pos_ + 1 < s_.size()) {
        char e = s_[pos_ + 1];
        switch (e) {
          case '0':
            out += '\0';
            break;
          case 'b':
            out += '\b';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'Z':
            out += '\x1a';
            break;
          case '%':
            out += "\\%";
            break;  // kept for LIKE patterns, as the server does
          case '_':
            out += "\\_";
            break;
          default:
            out += e;
            break;
        }
        pos_ += 2;
        continue;
      }
      out += c;
      ++pos_;
    }
  }

  Result<Token> Next() {
    size_t begin = pos_;
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c == '`') {
      FLOE_ASSIGN_OR_RETURN(std::string text, ReadQuoted('`', false));
      return Make(TokenKind::kQuotedIdentifier, begin, std::move(text));
    }
    if (c == '\'' || c == '"') {
      FLOE_ASSIGN_OR_RETURN(std::string text, ReadQuoted(static_cast<char>(c), true));
      return Make(TokenKind::kString, begin, std::move(text));
    }
    // X'..', B'..', N'..' and 0x.., 0b..
    if ((c == 'x' || c == 'X' || c == 'b' || c == 'B') && At(pos_ + 1) == '\'') {
      size_t close = s_.find('\'', pos_ + 2);
      if (close == std::string_view::npos) return ErrorAt(begin, "unterminated literal");
      pos_ = close + 1;
      return Make((c == 'x' || c == 'X') ? TokenKind::kHexNumber : TokenKind::kBitNumber, begin,
                  std::string(s_.substr(begin, pos_ - begin)));
    }
    if ((c == 'n' || c == 'N') && At(pos_ + 1) == '\'') {
      ++pos_;
      FLOE_ASSIGN_OR_RETURN(std::string text, ReadQuoted('\'', true));
      Token t = Make(TokenKind::kString, begin, std::move(text));
      t.introducer = "N";
      return t;
    }
    if (c == '0' && (At(pos_ + 1) == 'x' || At(pos_ + 1) == 'b')) {
      bool hex = At(pos_ + 1) == 'x';
      size_t p = pos_ + 2;
      while (p < s_.size() && (hex ? IsHexDigit(static_cast<unsigned char>(s_[p]))
                                   : (s_[p] == '0' || s_[p] == '1'))) {
        ++p;
      }
      if (p > pos_ + 2 && !IsIdentChar(static_cast<unsigned char>(At(p)))) {
        pos_ = p;
        return Make(hex ? TokenKind::kHexNumber : TokenKind::kBitNumber, begin,
                    std::string(s_.substr(begin, pos_ - begin)));
      }
    }
    if (IsDigit(c) || (c == '.' && IsDigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      size_t p = pos_;
      while (p < s_.size() && IsDigit(static_cast<unsigned char>(s_[p]))) ++p;
      // Digits followed by letters: an identifier such as 1abc (MySQL allows it).
      bool ident =
          p < s_.size() && IsIdentChar(static_cast<unsigned char>(s_[p])) &&
          !((s_[p] == 'e' || s_[p] == 'E') && (IsDigit(static_cast<unsigned char>(At(p + 1))) ||
                                               ((At(p + 1) == '-' || At(p + 1) == '+') &&
                                                IsDigit(static_cast<unsigned char>(At(p + 2))))));
      if (ident && c != '.') {
        while (p < s_.size() && IsIdentChar(static_cast<unsigned char>(s_[p]))) ++p;
        pos_ = p;
        return Make(TokenKind::kIdentifier, begin, std::string(s_.substr(begin, p - begin)));
      }
      if (At(p) == '.') {
        ++p;
        while (p < s_.size() && IsDigit(static_cast<unsigned char>(s_[p]))) ++p;
      }
      if (At(p) == 'e' || At(p) == 'E') {
        size_t q = p + 1;
        if (At(q) == '-' || At(q) == '+') ++q;
        if (IsDigit(static_cast<unsigned char>(At(q)))) {
          p = q;
          while (p < s_.size() && IsDigit(static_cast<unsigned char>(s_[p]))) ++p;
        }
      }
      pos_ = p;
      return Make(TokenKind::kNumber, begin, std::string(s_.substr(begin, p - begin)));
    }
    if (IsIdentStart(c)) {
      size_t p = pos_;
      while (p < s_.size() && IsIdentChar(static_cast<unsigned char>(s_[p]))) ++p;
      std::string word(s_.substr(pos_, p - pos_));
      pos_ = p;
      // Charset introducer: _utf8mb4'text' (optionally with spaces between).
      if (word.size() > 1 && word[0] == '_') {
        size_t q = pos_;
        while (q < s_.size() && IsSpace(static_cast<unsigned char>(s_[q]))) ++q;
        if (At(q) == '\'' || At(q) == '"') {
          pos_ = q;
          FLOE_ASSIGN_OR_RETURN(std::string text, ReadQuoted(s_[q], true));
          Token t = Make(TokenKind::kString, begin, std::move(text));
          t.introducer = std::move(word);
          return t;
        }
        // `_binary X'..'` / `_binary 0x..`: the introducer is its own token;
        // the parser skips it before a literal.
      }
      return Make(TokenKind::kIdentifier, begin, std::move(word));
    }
    // Punctuation and operators: longest match first.
    static constexpr std::string_view kOps[] = {"<=>", "<<", ">>", "<=", ">=",  "<>",
                                                "!=",  ":=", "&&", "||", "->>", "->"};
    for (std::string_view op : kOps) {
      if (s_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return Make(TokenKind::kPunct, begin, std::string(op));
      }
    }
    ++pos_;
    return Make(TokenKind::kPunct, begin, std::string(1, static_cast<char>(c)));
  }

  std::string_view s_;
  size_t pos_ = 0;
  int version_comment_depth_ = 0;
  std::vector<size_t> line_starts_;
};

}  // namespace

bool Token::Is(std::string_view keyword) const {
  return kind == TokenKind::kIdentifier && NamesEqual(text, keyword);
}

void LineColumnOf(std::string_view text, size_t offset, uint32_t* line, uint32_t* column) {
  uint32_t l = 1, c = 1;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++l;
      c = 1;
    } else {
      ++c;
    }
  }
  *line = l;
  *column = c;
}

Result<std::vector<Token>> Tokenize(std::string_view sql) {
  if (sql.size() > kMaxInput) {
    return InvalidArgument("statement of {} bytes is larger than the 16 MiB limit", sql.size());
  }
  return Lexer(sql).Run();
}

}  // namespace floe::cdc::mysql
