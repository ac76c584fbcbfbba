#include "floe/iceberg/expression/expression_parser.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "floe/iceberg/ascii_case.h"

namespace floe::iceberg {

namespace {

enum class Tok {
  kEnd,
  kIdent,
  kQuotedIdent,
  kString,
  kNumber,
  kOp,
  kLParen,
  kRParen,
  kComma,
  kDot
};

// The token of a one-character punctuation mark: ( ) , .
std::optional<Tok> PunctuationKind(char c) {
  switch (c) {
    case '(':
      return Tok::kLParen;
    case ')':
      return Tok::kRParen;
    case ',':
      return Tok::kComma;
    case '.':
      return Tok::kDot;
    default:
      return std::nullopt;
  }
}

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  ///< identifier/string contents, number text, operator
  size_t pos = 0;    ///< 0-based offset
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<ExprPtr> Parse() {
    FLOE_RETURN_IF_ERROR(Tokenize());
    if (tokens_.size() == 1) return Error(tokens_[0], "empty filter");
    FLOE_ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
    if (Peek().kind != Tok::kEnd) return Error(Peek(), "expected AND, OR or end of filter");
    return e;
  }

 private:
  std::unexpected<floe::Error> Error(const Token& t, std::string_view what) const {
    if (t.kind == Tok::kEnd) {
      return InvalidArgument("filter: {} at position {} (end of input)", what, t.pos + 1);
    }
    return InvalidArgument("filter: {} at position {} (near '{}')", what, t.pos + 1,
                           text_.substr(t.pos, 16));
  }

  Status Tokenize() {
    size_t i = 0;
    while (true) {
      while (i < text_.size() && std::isspace(static_cast<unsigned char>(text_[i]))) ++i;
      Token t;
      t.pos = i;
      if (i >= text_.size()) {
        tokens_.push_back(t);
        return Ok();
      }
      char c = text_[i];
      if (c == '\'' || c == '"' || c == '`') {
        t.kind = c == '\'' ? Tok::kString : Tok::kQuotedIdent;
        ++i;
        while (true) {
          if (i >= text_.size()) {
            return InvalidArgument("filter: unterminated {} starting at position {}",
                                   c == '\'' ? "string" : "quoted name", t.pos + 1);
          }
          if (text_[i] == c) {
            if (i + 1 < text_.size() && text_[i + 1] == c) {
              t.text.push_back(c);
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          t.text.push_back(text_[i++]);
        }
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = Tok::kIdent;
        while (i < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) {
          t.text.push_back(text_[i++]);
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < text_.size() &&
                  std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        t.kind = Tok::kNumber;
        while (i < text_.size() &&
               (std::isdigit(static_cast<unsigned char>(text_[i])) || text_[i] == '.')) {
          t.text.push_back(text_[i++]);
        }
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          t.text.push_back(text_[i++]);
          if (i < text_.size() && (text_[i] == '+' || text_[i] == '-'))
            t.text.push_back(text_[i++]);
          while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) {
            t.text.push_back(text_[i++]);
          }
        }
        if (i < text_.size() &&
            (std::isalpha(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) {
          return InvalidArgument("filter: bad number at position {}", t.pos + 1);
        }
      } else if (std::optional<Tok> kind = PunctuationKind(c)) {
        t.kind = *kind;
        ++i;
      } else if (c == '-' || c == '+') {
        t.kind = Tok::kOp;
        t.text = c;
        ++i;
      } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        t.kind = Tok::kOp;
        t.text = c;
        ++i;
        if (i < text_.size() && (text_[i] == '=' || (c == '<' && text_[i] == '>'))) {
          t.text.push_back(text_[i++]);
        }
        if (t.text == "!")
          return InvalidArgument("filter: expected '!=' at position {}", t.pos + 1);
      } else {
        return InvalidArgument("filter: unexpected character '{}' at position {}", c, t.pos + 1);
      }
      tokens_.push_back(std::move(t));
    }
  }

  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(next_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return t;
  }
  bool IsKeyword(const Token& t, std::string_view kw) const {
    return t.kind == Tok::kIdent && EqualsIgnoreAsciiCase(t.text, kw);
  }
  bool EatKeyword(std::string_view kw) {
    if (IsKeyword(Peek(), kw)) {
      Next();
      return true;
    }
    return false;
  }

  // Enters one level of parentheses or NOT; refuses to go deeper than
  // kMaxFilterDepth, so that recursion (here and in every walk of the tree)
  // stays bounded.
  Status Enter(const Token& at) {
    if (++depth_ > kMaxFilterDepth) {
      return Error(at,
                   fmt::format("parentheses and NOT nest deeper than {} levels", kMaxFilterDepth));
    }
    return Ok();
  }

  // Counts one more term of AND/OR; a chain of terms becomes a tree as deep
  // as it is long.
  Status CountTerm(const Token& at) {
    if (++terms_ > kMaxFilterTerms) {
      return Error(at, fmt::format("more than {} terms", kMaxFilterTerms));
    }
    return Ok();
  }

  // `operand` (`keyword` `operand`)*, combined left to right by `combine`:
  // OR binds an AND chain, AND a unary term.
  Result<ExprPtr> ParseChain(std::string_view keyword, Result<ExprPtr> (Parser::*operand)(),
                             ExprPtr (*combine)(ExprPtr, ExprPtr)) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr left, (this->*operand)());
    while (EatKeyword(keyword)) {
      FLOE_ASSIGN_OR_RETURN(ExprPtr right, (this->*operand)());
      left = combine(left, right);
    }
    return left;
  }

  Result<ExprPtr> ParseOr() { return ParseChain("or", &Parser::ParseAnd, Expression::Or); }
  Result<ExprPtr> ParseAnd() { return ParseChain("and", &Parser::ParseUnary, Expression::And); }

  Result<ExprPtr> ParseUnary() {
    if (IsKeyword(Peek(), "not")) {
      FLOE_RETURN_IF_ERROR(Enter(Next()));
      FLOE_ASSIGN_OR_RETURN(ExprPtr e, ParseUnary());
      --depth_;
      return Expression::Not(e);
    }
    if (Peek().kind == Tok::kLParen) {
      FLOE_RETURN_IF_ERROR(Enter(Next()));
      FLOE_ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
      if (Peek().kind != Tok::kRParen) return Error(Peek(), "expected ')'");
      Next();
      --depth_;
      return e;
    }
    FLOE_RETURN_IF_ERROR(CountTerm(Peek()));
    if ((IsKeyword(Peek(), "true") || IsKeyword(Peek(), "false")) && IsBoundary(Peek(1))) {
      bool v = IsKeyword(Next(), "true");
      return v ? Expression::True() : Expression::False();
    }
    return ParsePredicate();
  }

  // Whether a token ends a boolean term (so TRUE/FALSE stand alone).
  static bool IsBoundary(const Token& t) {
    return t.kind == Tok::kEnd || t.kind == Tok::kRParen ||
           (t.kind == Tok::kIdent &&
            (EqualsIgnoreAsciiCase(t.text, "and") || EqualsIgnoreAsciiCase(t.text, "or")));
  }

  bool StartsLiteral(const Token& t) const {
    return t.kind == Tok::kString || t.kind == Tok::kNumber ||
           (t.kind == Tok::kOp && (t.text == "-" || t.text == "+")) || IsKeyword(t, "true") ||
           IsKeyword(t, "false") || IsKeyword(t, "null");
  }

  Result<std::string> ParseColumn() {
    std::string name;
    while (true) {
      const Token& t = Peek();
      if (t.kind != Tok::kIdent && t.kind != Tok::kQuotedIdent) {
        return Error(t, "expected a column name");
      }
      if (t.kind == Tok::kIdent && IsReserved(t.text)) {
        return Error(
            t,
            fmt::format("expected a column name, found keyword {} (quote it to use it as a name)",
                        t.text));
      }
      name += Next().text;
      if (Peek().kind != Tok::kDot) return name;
      Next();
      name.push_back('.');
    }
  }

  static bool IsReserved(std::string_view w) {
    for (std::string_view k :
         {"and", "or", "not", "in", "is", "null", "true", "false", "between", "like", "starts"}) {
      if (EqualsIgnoreAsciiCase(w, k)) return true;
    }
    return false;
  }

  Result<Literal> ParseLiteral() {
    const Token& t = Peek();
    if (t.kind == Tok::kString) return Literal::String(Next().text);
    if (IsKeyword(t, "true")) {
      Next();
      return Literal::Boolean(true);
    }
    if (IsKeyword(t, "false")) {
      Next();
      return Literal::Boolean(false);
    }
    if (IsKeyword(t, "null")) {
      return Error(t, "comparison with null is never true; use IS NULL or IS NOT NULL");
    }
    bool negative = false;
    const Token start = t;
    if (t.kind == Tok::kOp && (t.text == "-" || t.text == "+")) {
      negative = t.text == "-";
      Next();
    }
    if (Peek().kind != Tok::kNumber) return Error(start, "expected a value");
    const Token& num = Next();
    return NumberLiteral(num, negative);
  }

  Result<Literal> NumberLiteral(const Token& t, bool negative) {
    std::string_view s = t.text;
    bool exponent = s.find_first_of("eE") != std::string_view::npos;
    size_t dot = s.find('.');
    if (!exponent &&
        s.find('.', dot == std::string_view::npos ? s.size() : dot + 1) != std::string_view::npos) {
      return Error(t, "bad number");
    }
    if (!exponent) {
      std::string digits;
      int scale = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '.') {
          scale = static_cast<int>(s.size() - i - 1);
          continue;
        }
        digits.push_back(s[i]);
      }
      size_t first = digits.find_first_not_of('0');
      std::string significant = first == std::string::npos ? "0" : digits.substr(first);
      if (significant.size() <= 38 && scale <= 38) {
        types::int128_t v = 0;
        for (char c : significant) v = v * 10 + (c - '0');
        if (negative) v = -v;
        if (dot == std::string_view::npos && v >= std::numeric_limits<int64_t>::min() &&
            v <= std::numeric_limits<int64_t>::max()) {
          return Literal::Long(static_cast<int64_t>(v));
        }
        int precision = std::max<int>(static_cast<int>(significant.size()), std::max(scale, 1));
        precision = std::min(precision, 38);
        auto lit = Literal::Decimal(v, precision, scale);
        if (lit) return lit;
      }
    }
    double d = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || end != s.data() + s.size()) return Error(t, "bad number");
    return Literal::Double(negative ? -d : d);
  }

  Result<ExprPtr> ParsePredicate() {
    const Token start = Peek();
    // A literal on the left: `5 < x`.
    if (StartsLiteral(start)) {
      FLOE_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
      const Token op_tok = Peek();
      FLOE_ASSIGN_OR_RETURN(Operation op, ParseComparison());
      if (StartsLiteral(Peek())) return Error(Peek(), "a comparison needs a column on one side");
      FLOE_ASSIGN_OR_RETURN(std::string column, ParseColumn());
      (void)op_tok;
      return Expression::Predicate(FlipOperation(op), std::move(column), {std::move(lit)});
    }
    FLOE_ASSIGN_OR_RETURN(std::string column, ParseColumn());
    if (EatKeyword("is")) {
      bool negated = EatKeyword("not");
      if (EatKeyword("null")) {
        return Expression::Predicate(negated ? Operation::kNotNull : Operation::kIsNull, column);
      }
      if (EatKeyword("nan")) {
        return Expression::Predicate(negated ? Operation::kNotNan : Operation::kIsNan, column);
      }
      return Error(Peek(), "expected NULL or NAN after IS");
    }
    bool negated = false;
    if (IsKeyword(Peek(), "not")) {
      negated = true;
      Next();
    }
    if (EatKeyword("in")) {
      if (Peek().kind != Tok::kLParen) return Error(Peek(), "expected '(' after IN");
      Next();
      std::vector<Literal> values;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
        values.push_back(std::move(lit));
        if (Peek().kind == Tok::kComma) {
          Next();
          continue;
        }
        if (Peek().kind == Tok::kRParen) {
          Next();
          break;
        }
        return Error(Peek(), "expected ',' or ')' in IN list");
      }
      return Expression::Predicate(negated ? Operation::kNotIn : Operation::kIn, column,
                                   std::move(values));
    }
    if (EatKeyword("starts")) {
      if (!EatKeyword("with")) return Error(Peek(), "expected WITH after STARTS");
      FLOE_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
      return Expression::Predicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith,
                                   column, {std::move(lit)});
    }
    if (IsKeyword(Peek(), "like")) {
      const Token like = Next();
      const Token pattern_tok = Peek();
      if (pattern_tok.kind != Tok::kString)
        return Error(pattern_tok, "expected a string pattern after LIKE");
      std::string pattern = Next().text;
      if (pattern.empty() || pattern.back() != '%' ||
          pattern.substr(0, pattern.size() - 1).find_first_of("%_") != std::string::npos) {
        return Error(pattern_tok, "only LIKE 'prefix%' patterns are supported");
      }
      pattern.pop_back();
      (void)like;
      return Expression::Predicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith,
                                   column, {Literal::String(std::move(pattern))});
    }
    if (EatKeyword("between")) {
      FLOE_ASSIGN_OR_RETURN(Literal low, ParseLiteral());
      if (!EatKeyword("and")) return Error(Peek(), "expected AND in BETWEEN");
      FLOE_ASSIGN_OR_RETURN(Literal high, ParseLiteral());
      ExprPtr range = Expression::And(Expression::Predicate(Operation::kGtEq, column, {low}),
                                      Expression::Predicate(Operation::kLtEq, column, {high}));
      return negated ? Expression::Not(range) : range;
    }
    if (negated) return Error(Peek(), "expected IN, STARTS WITH, LIKE or BETWEEN after NOT");
    FLOE_ASSIGN_OR_RETURN(Operation op, ParseComparison());
    if (!StartsLiteral(Peek())) {
      if (Peek().kind == Tok::kIdent || Peek().kind == Tok::kQuotedIdent) {
        return Error(Peek(), "comparing two columns is not supported");
      }
      return Error(Peek(), "expected a value");
    }
    FLOE_ASSIGN_OR_RETURN(Literal lit, ParseLiteral());
    return Expression::Predicate(op, std::move(column), {std::move(lit)});
  }

  Result<Operation> ParseComparison() {
    const Token& t = Peek();
    if (t.kind != Tok::kOp)
      return Error(t, "expected a comparison (=, !=, <, <=, >, >=), IS, IN or STARTS WITH");
    Operation op;
    if (t.text == "=" || t.text == "==") {
      op = Operation::kEq;
    } else if (t.text == "!=" || t.text == "<>") {
      op = Operation::kNotEq;
    } else if (t.text == "<") {
      op = Operation::kLt;
    } else if (t.text == "<=") {
      op = Operation::kLtEq;
    } else if (t.text == ">") {
      op = Operation::kGt;
    } else if (t.text == ">=") {
      op = Operation::kGtEq;
    } else {
      return Error(t, "expected a comparison operator");
    }
    Next();
    return op;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
  int terms_ = 0;
};

}  // namespace

Result<ExprPtr> ParseFilter(std::string_view text) { return Parser(text).Parse(); }

}  // namespace floe::iceberg
