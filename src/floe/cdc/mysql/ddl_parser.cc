#include "floe/cdc/mysql/ddl_parser.h"

#include <charconv>
#include <initializer_list>
#include <utility>

#include "floe/cdc/mysql/ddl_lexer.h"

namespace floe::cdc::mysql {
namespace {

constexpr size_t kMaxStatementInMessage = 300;

std::string ShortStatement(std::string_view sql) {
  if (sql.size() <= kMaxStatementInMessage) return std::string(sql);
  return std::string(sql.substr(0, kMaxStatementInMessage)) + "...";
}

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens) : sql_(sql), tokens_(std::move(tokens)) {}

  Result<DdlStatement> Parse() {
    DdlStatement st;
    auto status = ParseStatement(st);
    if (!status) return std::unexpected(std::move(status).error());
    return st;
  }

 private:
  // ---- token helpers -------------------------------------------------------
  const Token& Peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  const Token& Advance() {
    const Token& t = Peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AtEnd() const { return Peek().kind == TokenKind::kEnd || Peek().IsPunct(";"); }
  bool Accept(std::string_view keyword) {
    if (Peek().Is(keyword)) {
      Advance();
      return true;
    }
    return false;
  }
  bool AcceptPunct(std::string_view p) {
    if (Peek().IsPunct(p)) {
      Advance();
      return true;
    }
    return false;
  }
  bool AcceptSeq(std::initializer_list<std::string_view> words) {
    size_t k = 0;
    for (auto w : words) {
      if (!Peek(k).Is(w)) return false;
      ++k;
    }
    for (size_t i = 0; i < k; ++i) Advance();
    return true;
  }

  std::unexpected<Error> Fail(ErrorCode code, const Token& at, std::string_view what) {
    std::string near = at.kind == TokenKind::kEnd ? "end of statement" : "'" + at.text + "'";
    return MakeError(code, "{} at line {}:{} near {} in statement: {}", what, at.line, at.column,
                     near, ShortStatement(sql_));
  }
  std::unexpected<Error> Syntax(std::string_view what) {
    return Fail(ErrorCode::kInvalidArgument, Peek(), what);
  }

  Status Expect(std::string_view keyword) {
    if (!Accept(keyword)) return Syntax(fmt::format("expected {}", keyword));
    return Ok();
  }
  Status ExpectPunct(std::string_view p) {
    if (!AcceptPunct(p)) return Syntax(fmt::format("expected '{}'", p));
    return Ok();
  }

  Result<std::string> ParseName() {
    const Token& t = Peek();
    if (!t.IsName()) return Syntax("expected a name");
    Advance();
    return t.text;
  }

  Result<TableRef> ParseTableRef() {
    TableRef ref;
    FLOE_ASSIGN_OR_RETURN(ref.table, ParseName());
    if (Peek().IsPunct(".")) {
      Advance();
      ref.db = std::move(ref.table);
      FLOE_ASSIGN_OR_RETURN(ref.table, ParseName());
    }
    return ref;
  }

  // Source text from token `first` to the token before pos_.
  std::string TextFrom(size_t first) const {
    if (first >= pos_) return "";
    uint32_t b = tokens_[first].begin;
    uint32_t e = tokens_[pos_ - 1].end;
    if (e < b) return "";
    return std::string(sql_.substr(b, e - b));
  }

  // At '(': skips to after the matching ')'.
  Status SkipBalanced() {
    if (!Peek().IsPunct("(")) return Syntax("expected '('");
    int depth = 0;
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kEnd) return Syntax("unbalanced parentheses");
      if (t.IsPunct("(")) {
        if (++depth > kMaxDdlNesting) return Syntax("parentheses nested too deeply");
      } else if (t.IsPunct(")")) {
        --depth;
      }
      Advance();
      if (depth == 0) return Ok();
    }
  }

  // Skips to the next ',' or ')' at this level (not consuming it) or the end.
  Status SkipItem() {
    while (!AtEnd() && !Peek().IsPunct(",") && !Peek().IsPunct(")")) {
      if (Peek().IsPunct("(")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());
      } else {
        Advance();
      }
    }
    return Ok();
  }

  // Skips everything to the end of the statement.
  Status SkipRest() {
    while (!AtEnd()) {
      if (Peek().IsPunct("(")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());
      } else if (Peek().IsPunct(")")) {
        return Syntax("unbalanced parentheses");
      } else {
        Advance();
      }
    }
    return Ok();
  }

  Status ExpectEnd() {
    AcceptPunct(";");
    if (Peek().kind != TokenKind::kEnd) return Syntax("unexpected text after the statement");
    return Ok();
  }

  // (a, b(10), c DESC, (expr)) -> names of the plain columns.
  Result<std::vector<std::string>> ParseKeyParts() {
    FLOE_RETURN_IF_ERROR(ExpectPunct("("));
    std::vector<std::string> names;
    while (true) {
      if (Peek().IsPunct("(")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());  // functional key part
      } else {
        FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
        names.push_back(std::move(name));
        if (Peek().IsPunct("(")) FLOE_RETURN_IF_ERROR(SkipBalanced());  // prefix length
      }
      if (!Accept("ASC")) Accept("DESC");
      if (AcceptPunct(",")) continue;
      FLOE_RETURN_IF_ERROR(ExpectPunct(")"));
      return names;
    }
  }

  // Optional (n) or (p, s) after a type name.
  Status ParseTypeArgs(std::optional<int64_t>* first, std::optional<int64_t>* second) {
    if (!Peek().IsPunct("(")) return Ok();
    Advance();
    if (Peek().kind != TokenKind::kNumber) return Syntax("expected a number");
    auto v = ParseInt(Advance().text);
    if (!v) return Syntax("expected an integer");
    *first = v;
    if (AcceptPunct(",")) {
      if (Peek().kind != TokenKind::kNumber) return Syntax("expected a number");
      auto w = ParseInt(Advance().text);
      if (!w) return Syntax("expected an integer");
      *second = w;
    }
    return ExpectPunct(")");
  }

  Status ParseEnumValues(ColumnDef& col) {
    FLOE_RETURN_IF_ERROR(ExpectPunct("("));
    while (true) {
      if (Peek().kind != TokenKind::kString) return Syntax("expected a quoted value");
      col.enum_values.push_back(Advance().text);
      if (AcceptPunct(",")) continue;
      return ExpectPunct(")");
    }
  }

  Result<int> Fsp() {
    std::optional<int64_t> a, b;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    if (b || (a && (*a < 0 || *a > 6))) return Syntax("fractional seconds precision must be 0..6");
    return static_cast<int>(a.value_or(0));
  }

  // Charset-ish words after a character type: BINARY, ASCII, UNICODE, BYTE.
  void CharTypeFlags(ColumnDef& col) {
    while (true) {
      if (Accept("ASCII")) {
        col.charset = "latin1";
      } else if (Accept("UNICODE")) {
        col.charset = "ucs2";
      } else if (Peek().Is("BINARY")) {
        Advance();
        binary_collation_ = true;
      } else {
        return;
      }
    }
  }

  Status ParseDataType(ColumnDef& col) {
    const Token& t = Peek();
    if (t.kind != TokenKind::kIdentifier) return Syntax("expected a column type");
    std::string w = LowerAscii(t.text);
    Advance();
    std::optional<int64_t> a, b;
    auto integer = [&](MysqlType type) -> Status {
      col.type = type;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      col.length = a;
      return Ok();
    };
    if (w == "tinyint" || w == "int1") return integer(MysqlType::kTinyInt);
    if (w == "smallint" || w == "int2") return integer(MysqlType::kSmallInt);
    if (w == "mediumint" || w == "int3" || w == "middleint") return integer(MysqlType::kMediumInt);
    if (w == "int" || w == "integer" || w == "int4") return integer(MysqlType::kInt);
    if (w == "bigint" || w == "int8") return integer(MysqlType::kBigInt);
    if (w == "bool" || w == "boolean") {
      col.type = MysqlType::kTinyInt;
      col.length = 1;
      return Ok();
    }
    if (w == "serial") {
      col.type = MysqlType::kBigInt;
      col.is_unsigned = true;
      col.nullable = false;
      col.auto_increment = true;
      return Ok();
    }
    if (w == "decimal" || w == "dec" || w == "numeric" || w == "fixed") {
      col.type = MysqlType::kDecimal;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      col.precision = static_cast<int>(a.value_or(10));
      col.scale = static_cast<int>(b.value_or(0));
      if (*col.precision < 1 || *col.precision > kMaxDecimalPrecision || *col.scale < 0 ||
          *col.scale > kMaxDecimalScale || *col.scale > *col.precision) {
        return Syntax(
            fmt::format("DECIMAL precision must be 1..{} and scale 0..{}, at most the precision",
                        kMaxDecimalPrecision, kMaxDecimalScale));
      }
      return Ok();
    }
    if (w == "float" || w == "float4") {
      col.type = MysqlType::kFloat;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      if (a && !b) {
        if (*a > 53) return Syntax("FLOAT precision must be 0..53");
        if (*a > 24) col.type = MysqlType::kDouble;
      } else if (a) {
        col.precision = static_cast<int>(*a);
        col.scale = static_cast<int>(*b);
      }
      return Ok();
    }
    if (w == "double" || w == "real" || w == "float8") {
      col.type = MysqlType::kDouble;
      if (w == "double") Accept("PRECISION");
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      if (a) {
        col.precision = static_cast<int>(*a);
        col.scale = static_cast<int>(b.value_or(0));
      }
      return Ok();
    }
    if (w == "bit") {
      col.type = MysqlType::kBit;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      col.length = a.value_or(1);
      if (*col.length < 1 || *col.length > 64) return Syntax("BIT length must be 1..64");
      return Ok();
    }
    if (w == "year") {
      col.type = MysqlType::kYear;
      return ParseTypeArgs(&a, &b);
    }
    if (w == "date") {
      col.type = MysqlType::kDate;
      return Ok();
    }
    if (w == "datetime" || w == "timestamp" || w == "time") {
      col.type = w == "datetime"    ? MysqlType::kDateTime
                 : w == "timestamp" ? MysqlType::kTimestamp
                                    : MysqlType::kTime;
      FLOE_ASSIGN_OR_RETURN(col.fsp, Fsp());
      return Ok();
    }
    bool national = false;
    if (w == "national") {
      national = true;
      if (!Peek().IsName()) return Syntax("expected CHAR or VARCHAR");
      w = LowerAscii(Advance().text);
    }
    if (w == "nchar" || w == "nvarchar") national = true;
    if (w == "char" || w == "character" || w == "nchar" || w == "varchar" || w == "varcharacter" ||
        w == "nvarchar") {
      bool varying = w == "varchar" || w == "varcharacter" || w == "nvarchar" || Accept("VARYING");
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      if (!varying && Accept("BYTE")) {
        col.type = MysqlType::kBinary;
        col.length = a.value_or(1);
        return Ok();
      }
      if (varying && !a) return Syntax("VARCHAR needs a length");
      col.type = varying ? MysqlType::kVarChar : MysqlType::kChar;
      col.length = a.value_or(1);
      if (national) col.charset = "utf8mb3";
      CharTypeFlags(col);
      return Ok();
    }
    if (w == "binary" || w == "varbinary") {
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      if (w == "varbinary" && !a) return Syntax("VARBINARY needs a length");
      col.type = w == "binary" ? MysqlType::kBinary : MysqlType::kVarBinary;
      col.length = a.value_or(1);
      return Ok();
    }
    if (w == "long") {
      if (Accept("VARBINARY")) {
        col.type = MysqlType::kMediumBlob;
        return Ok();
      }
      Accept("VARCHAR") || Accept("VARCHARACTER");
      col.type = MysqlType::kMediumText;
      CharTypeFlags(col);
      return Ok();
    }
    if (w == "tinytext" || w == "mediumtext" || w == "longtext") {
      col.type = w == "tinytext"     ? MysqlType::kTinyText
                 : w == "mediumtext" ? MysqlType::kMediumText
                                     : MysqlType::kLongText;
      CharTypeFlags(col);
      return Ok();
    }
    if (w == "text" || w == "blob") {
      col.type = w == "text" ? MysqlType::kText : MysqlType::kBlob;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      if (a) col.length = a;
      if (w == "text") CharTypeFlags(col);
      return Ok();
    }
    if (w == "tinyblob") return col.type = MysqlType::kTinyBlob, Ok();
    if (w == "mediumblob") return col.type = MysqlType::kMediumBlob, Ok();
    if (w == "longblob") return col.type = MysqlType::kLongBlob, Ok();
    if (w == "enum" || w == "set") {
      col.type = w == "enum" ? MysqlType::kEnum : MysqlType::kSet;
      FLOE_RETURN_IF_ERROR(ParseEnumValues(col));
      CharTypeFlags(col);
      return Ok();
    }
    if (w == "json") return col.type = MysqlType::kJson, Ok();
    if (w == "geomcollection") return col.type = MysqlType::kGeometryCollection, Ok();
    if (w == "uuid") return col.type = MysqlType::kUuid, Ok();
    if (w == "inet4") return col.type = MysqlType::kInet4, Ok();
    if (w == "inet6") return col.type = MysqlType::kInet6, Ok();
    if (w == "vector") {
      col.type = MysqlType::kVector;
      FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
      col.length = a;
      return Ok();
    }
    if (auto spatial = MysqlTypeFromName(w); spatial && IsSpatialType(*spatial)) {
      col.type = *spatial;
      return Ok();
    }
    return Fail(ErrorCode::kNotSupported, t, fmt::format("unknown column type {}", t.text));
  }

  // CURRENT_TIMESTAMP, NOW(), LOCALTIME(3), ... -> "CURRENT_TIMESTAMP[(n)]".
  Result<std::optional<std::string>> MaybeCurrentTimestamp() {
    const Token& t = Peek();
    if (!(t.Is("CURRENT_TIMESTAMP") || t.Is("NOW") || t.Is("LOCALTIME") ||
          t.Is("LOCALTIMESTAMP"))) {
      return std::optional<std::string>();
    }
    Advance();
    std::string out = "CURRENT_TIMESTAMP";
    if (AcceptPunct("(")) {
      if (Peek().kind == TokenKind::kNumber) {
        std::string n = Advance().text;
        if (n != "0") out += "(" + n + ")";
      }
      FLOE_RETURN_IF_ERROR(ExpectPunct(")"));
    }
    return std::optional<std::string>(out);
  }

  // DEFAULT <literal | (expr) | function(...)>
  Status ParseDefault(ColumnDef& col) {
    col.default_is_expression = false;
    FLOE_ASSIGN_OR_RETURN(auto now, MaybeCurrentTimestamp());
    if (now) {
      col.default_value = *now;
      col.default_is_expression = true;
      return Ok();
    }
    const Token& t = Peek();
    if (t.IsPunct("(")) {
      size_t first = pos_;
      FLOE_RETURN_IF_ERROR(SkipBalanced());
      col.default_value = TextFrom(first);
      col.default_is_expression = true;
      return Ok();
    }
    if (t.IsPunct("-") || t.IsPunct("+")) {
      std::string sign = t.IsPunct("-") ? "-" : "";
      Advance();
      if (Peek().kind != TokenKind::kNumber) return Syntax("expected a number");
      col.default_value = sign + Advance().text;
      return Ok();
    }
    switch (t.kind) {
      case TokenKind::kString:
      case TokenKind::kNumber:
      case TokenKind::kHexNumber:
      case TokenKind::kBitNumber:
        col.default_value = Advance().text;
        return Ok();
      default:
        break;
    }
    if (t.Is("NULL")) {
      Advance();
      col.default_value.reset();
      return Ok();
    }
    if (t.Is("TRUE") || t.Is("FALSE")) {
      col.default_value = t.Is("TRUE") ? "1" : "0";
      Advance();
      return Ok();
    }
    // Typed literals: DATE '2020-01-01', TIMESTAMP '...', _binary X'00'.
    if ((t.Is("DATE") || t.Is("TIME") || t.Is("TIMESTAMP")) && Peek(1).kind == TokenKind::kString) {
      Advance();
      col.default_value = Advance().text;
      return Ok();
    }
    if (t.kind == TokenKind::kIdentifier && t.text.size() > 1 && t.text[0] == '_' &&
        (Peek(1).kind == TokenKind::kHexNumber || Peek(1).kind == TokenKind::kBitNumber)) {
      Advance();
      col.default_value = Advance().text;
      return Ok();
    }
    // A function call (MariaDB allows DEFAULT uuid() without parentheses around it).
    if (t.kind == TokenKind::kIdentifier && Peek(1).IsPunct("(")) {
      size_t first = pos_;
      Advance();
      FLOE_RETURN_IF_ERROR(SkipBalanced());
      col.default_value = TextFrom(first);
      col.default_is_expression = true;
      return Ok();
    }
    if (t.kind == TokenKind::kIdentifier) {  // CURRENT_DATE, CURRENT_USER, ...
      col.default_value = Advance().text;
      col.default_is_expression = true;
      return Ok();
    }
    return Syntax("expected a DEFAULT value");
  }

  // REFERENCES t (cols) [MATCH x] [ON DELETE|UPDATE action]...
  Status SkipReferences() {
    FLOE_ASSIGN_OR_RETURN(TableRef ref, ParseTableRef());
    (void)ref;
    if (Peek().IsPunct("(")) FLOE_RETURN_IF_ERROR(SkipBalanced());
    while (true) {
      if (Accept("MATCH")) {
        Advance();
      } else if (Peek().Is("ON") && (Peek(1).Is("DELETE") || Peek(1).Is("UPDATE"))) {
        Advance();
        Advance();
        if (Accept("SET")) {
          Advance();  // NULL | DEFAULT
        } else if (Accept("NO")) {
          FLOE_RETURN_IF_ERROR(Expect("ACTION"));
        } else if (!Accept("RESTRICT") && !Accept("CASCADE")) {
          return Syntax("expected a referential action");
        }
      } else {
        return Ok();
      }
    }
  }

  // Attributes after the type, up to ',' ')' FIRST AFTER or the end.
  Status ParseColumnAttributes(ColumnDef& col, bool* inline_pk) {
    while (!AtEnd() && !Peek().IsPunct(",") && !Peek().IsPunct(")")) {
      const Token& t = Peek();
      if (t.Is("FIRST") || t.Is("AFTER")) return Ok();
      if (Accept("UNSIGNED")) {
        col.is_unsigned = true;
      } else if (Accept("SIGNED")) {
        col.is_unsigned = false;
      } else if (Accept("ZEROFILL")) {
        col.zerofill = true;
        col.is_unsigned = true;
      } else if (AcceptSeq({"NOT", "NULL"})) {
        col.nullable = false;
      } else if (Accept("NULL")) {
        col.nullable = true;
      } else if (Accept("DEFAULT")) {
        FLOE_RETURN_IF_ERROR(ParseDefault(col));
      } else if (Accept("AUTO_INCREMENT")) {
        col.auto_increment = true;
      } else if (Accept("UNIQUE")) {
        Accept("KEY");
      } else if (AcceptSeq({"PRIMARY", "KEY"}) || Accept("KEY")) {
        *inline_pk = true;
        col.nullable = false;
      } else if (Accept("COMMENT")) {
        if (Peek().kind != TokenKind::kString) return Syntax("expected a quoted comment");
        col.comment = Advance().text;
      } else if (AcceptSeq({"CHARACTER", "SET"}) || Accept("CHARSET") || Accept("CHAR")) {
        if (Peek().Is("SET")) Advance();  // CHAR SET x
        if (!Peek().IsName() && Peek().kind != TokenKind::kString) {
          return Syntax("expected a character set");
        }
        col.charset = LowerAscii(Advance().text);
      } else if (Accept("COLLATE")) {
        if (!Peek().IsName() && Peek().kind != TokenKind::kString) {
          return Syntax("expected a collation");
        }
        col.collation = LowerAscii(Advance().text);
      } else if (Accept("BINARY") || Accept("ASCII") || Accept("UNICODE")) {
        // As in VARCHAR(10) NOT NULL BINARY: a _bin collation of the charset.
      } else if (Peek().Is("ON") && Peek(1).Is("UPDATE")) {
        Advance();
        Advance();
        FLOE_ASSIGN_OR_RETURN(auto now, MaybeCurrentTimestamp());
        if (!now) return Syntax("expected CURRENT_TIMESTAMP");
        col.on_update = *now;
      } else if (Accept("GENERATED") || Peek().Is("AS")) {
        if (t.Is("GENERATED")) {
          FLOE_RETURN_IF_ERROR(Expect("ALWAYS"));
        }
        FLOE_RETURN_IF_ERROR(Expect("AS"));
        if (!Peek().IsPunct("(")) return Syntax("expected '(' after AS");
        size_t first = pos_ + 1;
        FLOE_RETURN_IF_ERROR(SkipBalanced());
        // The expression without its outer parentheses.
        std::string text;
        if (pos_ >= 2 && first < pos_ - 1) {
          text = std::string(
              sql_.substr(tokens_[first].begin, tokens_[pos_ - 2].end - tokens_[first].begin));
        }
        col.generated_expr = std::move(text);
        col.generated_stored = false;
      } else if (Accept("VIRTUAL")) {
        col.generated_stored = false;
      } else if (Accept("STORED") || Accept("PERSISTENT")) {
        col.generated_stored = true;
      } else if (Accept("CONSTRAINT")) {
        if (!Peek().Is("CHECK") && Peek().IsName()) Advance();
      } else if (Accept("CHECK")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());
        if (!Accept("ENFORCED")) {
          if (AcceptSeq({"NOT", "ENFORCED"})) {
          }
        }
      } else if (Accept("REFERENCES")) {
        FLOE_RETURN_IF_ERROR(SkipReferences());
      } else if (Accept("COLUMN_FORMAT") || Accept("STORAGE")) {
        Advance();
      } else if (Accept("ENGINE_ATTRIBUTE") || Accept("SECONDARY_ENGINE_ATTRIBUTE") ||
                 Accept("REF_SYSTEM_ID") || Accept("SRID")) {
        AcceptPunct("=");
        Advance();
      } else if (Accept("INVISIBLE")) {
        col.invisible = true;
      } else if (Accept("VISIBLE")) {
        col.invisible = false;
      } else if (Accept("COMPRESSED")) {
        if (AcceptPunct("=")) Advance();
      } else if (AcceptSeq({"WITH", "SYSTEM", "VERSIONING"}) ||
                 AcceptSeq({"WITHOUT", "SYSTEM", "VERSIONING"})) {
      } else {
        return Syntax("unexpected word in column definition");
      }
    }
    return Ok();
  }

  // Resolves the flags the type parser saw (BINARY -> _bin, CHARACTER SET
  // binary -> binary types, TEXT(M) -> smallest fitting type).
  void FinishColumn(ColumnDef& col, std::string_view table_charset) {
    if (binary_collation_ && IsTextType(col.type) && col.collation.empty()) {
      std::string cs = col.charset.empty() ? std::string(table_charset) : col.charset;
      if (!cs.empty()) col.collation = cs + "_bin";
    }
    binary_collation_ = false;
    if (col.charset == "binary" && (IsTextType(col.type))) {
      col.charset.clear();
      switch (col.type) {
        case MysqlType::kChar:
          col.type = MysqlType::kBinary;
          break;
        case MysqlType::kVarChar:
          col.type = MysqlType::kVarBinary;
          break;
        case MysqlType::kTinyText:
          col.type = MysqlType::kTinyBlob;
          break;
        case MysqlType::kText:
          col.type = MysqlType::kBlob;
          break;
        case MysqlType::kMediumText:
          col.type = MysqlType::kMediumBlob;
          break;
        default:
          col.type = MysqlType::kLongBlob;
          break;
      }
    }
    if (col.collation.empty() == false && col.charset.empty()) {
      // COLLATE alone implies the collation's charset: its name's prefix.
      size_t us = col.collation.find('_');
      if (us != std::string::npos) col.charset = col.collation.substr(0, us);
    }
  }

  Result<ColumnDef> ParseColumnDefinition(bool* inline_pk, std::string_view table_charset) {
    ColumnDef col;
    binary_collation_ = false;
    FLOE_ASSIGN_OR_RETURN(col.name, ParseName());
    FLOE_RETURN_IF_ERROR(ParseDataType(col));
    FLOE_RETURN_IF_ERROR(ParseColumnAttributes(col, inline_pk));
    FinishColumn(col, table_charset);
    return col;
  }

  Result<ColumnPosition> ParsePosition() {
    ColumnPosition p;
    if (Accept("FIRST")) {
      p.kind = ColumnPosition::Kind::kFirst;
    } else if (Accept("AFTER")) {
      p.kind = ColumnPosition::Kind::kAfter;
      FLOE_ASSIGN_OR_RETURN(p.after, ParseName());
    }
    return p;
  }

  // Index / constraint definitions inside CREATE TABLE (...) or ALTER ADD.
  // Returns true if the item at pos_ is one (and consumes it), setting
  // `*primary_key` for a PRIMARY KEY.
  Result<bool> MaybeIndexDefinition(std::optional<std::vector<std::string>>* primary_key) {
    const Token& t = Peek();
    bool constraint = false;
    if (t.Is("CONSTRAINT")) {
      Advance();
      constraint = true;
      if (!Peek().Is("PRIMARY") && !Peek().Is("UNIQUE") && !Peek().Is("FOREIGN") &&
          !Peek().Is("CHECK")) {
        FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
        (void)name;
      }
    }
    if (AcceptSeq({"PRIMARY", "KEY"})) {
      if (Accept("USING")) Advance();
      FLOE_ASSIGN_OR_RETURN(auto cols, ParseKeyParts());
      *primary_key = std::move(cols);
      FLOE_RETURN_IF_ERROR(SkipItem());
      return true;
    }
    bool index_like = Peek().Is("UNIQUE") || Peek().Is("INDEX") || Peek().Is("KEY") ||
                      Peek().Is("FULLTEXT") || Peek().Is("FOREIGN") || Peek().Is("CHECK") ||
                      (Peek().Is("SPATIAL") && (Peek(1).Is("INDEX") || Peek(1).Is("KEY") ||
                                                Peek(1).IsPunct("(") || Peek(2).IsPunct("("))) ||
                      (Peek().Is("PERIOD") && Peek(1).Is("FOR"));
    if (index_like) {
      FLOE_RETURN_IF_ERROR(SkipItem());
      return true;
    }
    if (constraint) return Syntax("expected PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK");
    return false;
  }

  // ---- statements ----------------------------------------------------------
  Status ParseStatement(DdlStatement& st) {
    const Token& first = Peek();
    if (first.kind == TokenKind::kEnd || first.IsPunct(";")) {
      st.kind = DdlKind::kNotTableDdl;
      return Ok();
    }
    if (Accept("CREATE")) return ParseCreate(st);
    if (Accept("ALTER")) return ParseAlter(st);
    if (Accept("DROP")) return ParseDrop(st);
    if (Accept("RENAME")) {
      if (Accept("TABLE") || Accept("TABLES")) return ParseRename(st);
      return NotTableDdl(st, "RENAME");
    }
    if (Accept("TRUNCATE")) {
      Accept("TABLE");
      st.kind = DdlKind::kTruncateTable;
      FLOE_ASSIGN_OR_RETURN(st.table, ParseTableRef());
      SkipWait();
      return ExpectEnd();
    }
    return NotTableDdl(st, "");
  }

  Status NotTableDdl(DdlStatement& st, std::string prefix) {
    st.kind = DdlKind::kNotTableDdl;
    std::string what = std::move(prefix);
    if (Peek().kind == TokenKind::kIdentifier) {
      if (!what.empty()) what += ' ';
      what += Peek().text;
    }
    for (char& c : what) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    st.what = std::move(what);
    return Ok();
  }

  void SkipWait() {
    if (Accept("WAIT")) {
      if (Peek().kind == TokenKind::kNumber) Advance();
    } else {
      Accept("NOWAIT");
    }
  }

  Status ParseCreate(DdlStatement& st) {
    if (AcceptSeq({"OR", "REPLACE"})) st.or_replace = true;
    if (Accept("TEMPORARY")) st.temporary = true;
    if (Accept("TABLE")) return ParseCreateTable(st);
    Accept("ONLINE") || Accept("OFFLINE");
    if (Peek().Is("INDEX") ||
        ((Peek().Is("UNIQUE") || Peek().Is("FULLTEXT") || Peek().Is("SPATIAL")) &&
         Peek(1).Is("INDEX"))) {
      if (!Peek().Is("INDEX")) Advance();
      Advance();
      st.kind = DdlKind::kCreateIndex;
      AcceptSeq({"IF", "NOT", "EXISTS"});
      FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
      (void)name;
      if (Accept("USING") || Accept("TYPE")) Advance();
      FLOE_RETURN_IF_ERROR(Expect("ON"));
      FLOE_ASSIGN_OR_RETURN(st.table, ParseTableRef());
      return SkipRest();
    }
    return NotTableDdl(st, "CREATE");
  }

  Status ParseTableOptions(DdlStatement& st) {
    while (!AtEnd()) {
      if (AcceptPunct(",")) continue;
      const Token& t = Peek();
      if (t.Is("SELECT") || t.Is("AS") || t.Is("IGNORE") || t.Is("REPLACE") ||
          (t.Is("WITH") && Peek(1).Is("RECURSIVE")) || t.Is("TABLE") || t.Is("VALUES") ||
          (t.IsPunct("(") && Peek(1).Is("SELECT"))) {
        return Fail(ErrorCode::kNotSupported, t,
                    "CREATE TABLE ... SELECT: the column types come from the query; read the "
                    "table from information_schema instead");
      }
      if (t.Is("PARTITION")) {
        // PARTITION BY ... [PARTITIONS n] [SUBPARTITION ...] [(definitions)]
        while (!AtEnd()) {
          if (Peek().Is("SELECT") || Peek().Is("AS")) {
            return Fail(ErrorCode::kNotSupported, Peek(),
                        "CREATE TABLE ... SELECT: read the table from information_schema "
                        "instead");
          }
          if (Peek().IsPunct("(")) {
            FLOE_RETURN_IF_ERROR(SkipBalanced());
          } else if (Peek().IsPunct(")")) {
            return Syntax("unbalanced parentheses");
          } else {
            Advance();
          }
        }
        return Ok();
      }
      Accept("DEFAULT");
      std::string* target = nullptr;
      if (AcceptSeq({"CHARACTER", "SET"}) || Accept("CHARSET") || AcceptSeq({"CHAR", "SET"})) {
        target = &st.charset;
      } else if (Accept("COLLATE")) {
        target = &st.collation;
      } else if (Accept("ENGINE") || Accept("TYPE")) {
        target = &st.engine;
      } else if (Accept("COMMENT")) {
        target = &st.comment;
      } else if (AcceptSeq({"WITH", "SYSTEM", "VERSIONING"}) ||
                 AcceptSeq({"START", "TRANSACTION"})) {
        continue;
      } else if (Peek().kind == TokenKind::kIdentifier) {
        Advance();  // DATA/INDEX DIRECTORY, ROW_FORMAT, STATS_..., ...
        if (t.Is("DATA") || t.Is("INDEX")) Accept("DIRECTORY");
      } else {
        return Syntax("unexpected text in table options");
      }
      AcceptPunct("=");
      if (AtEnd() || Peek().IsPunct(",")) return Syntax("table option without a value");
      if (Peek().IsPunct("(")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());  // UNION=(a,b)
      } else {
        const Token& v = Advance();
        if (target != nullptr) {
          *target = (target == &st.comment) ? v.text : LowerAscii(v.text);
        }
      }
    }
    return Ok();
  }

  Status ParseCreateTable(DdlStatement& st) {
    st.kind = DdlKind::kCreateTable;
    if (AcceptSeq({"IF", "NOT", "EXISTS"})) st.if_not_exists = true;
    FLOE_ASSIGN_OR_RETURN(st.table, ParseTableRef());
    if (Accept("LIKE")) {
      st.kind = DdlKind::kCreateTableLike;
      FLOE_ASSIGN_OR_RETURN(st.like, ParseTableRef());
      return ExpectEnd();
    }
    if (Peek().IsPunct("(") && Peek(1).Is("LIKE")) {
      Advance();
      Advance();
      st.kind = DdlKind::kCreateTableLike;
      FLOE_ASSIGN_OR_RETURN(st.like, ParseTableRef());
      FLOE_RETURN_IF_ERROR(ExpectPunct(")"));
      return ExpectEnd();
    }
    if (!Peek().IsPunct("(") || Peek(1).Is("SELECT") || Peek(1).IsPunct("(")) {
      // Options then SELECT, or (SELECT ...): no column list.
      FLOE_RETURN_IF_ERROR(ParseTableOptions(st));
      return Fail(ErrorCode::kNotSupported, Peek(),
                  "CREATE TABLE without column definitions: read the table from "
                  "information_schema instead");
    }
    Advance();  // (
    std::vector<std::pair<ColumnDef, bool>> defs;
    std::optional<std::vector<std::string>> pk;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool index, MaybeIndexDefinition(&pk));
      if (!index) {
        bool inline_pk = false;
        size_t before = pos_;
        FLOE_ASSIGN_OR_RETURN(ColumnDef col, ParseColumnDefinition(&inline_pk, ""));
        if (Peek().Is("FIRST") || Peek().Is("AFTER")) {
          pos_ = before;
          return Syntax("column position in CREATE TABLE");
        }
        defs.emplace_back(std::move(col), inline_pk);
      }
      if (AcceptPunct(",")) continue;
      FLOE_RETURN_IF_ERROR(ExpectPunct(")"));
      break;
    }
    FLOE_RETURN_IF_ERROR(ParseTableOptions(st));
    std::string table_charset = st.charset;
    if (table_charset.empty() && !st.collation.empty()) {
      table_charset = st.collation.substr(0, st.collation.find('_'));
    }
    for (auto& [col, inline_pk] : defs) {
      // TEXT(M) depends on the table charset, known now.
      ResolveTextLength(col, table_charset);
      if (inline_pk) {
        if (pk) return Syntax("multiple primary keys defined");
        pk = std::vector<std::string>{col.name};
      }
      st.columns.push_back(std::move(col));
    }
    if (pk) st.primary_key = std::move(*pk);
    return ExpectEnd();
  }

  Status ParseDrop(DdlStatement& st) {
    if (Accept("TEMPORARY")) st.temporary = true;
    if (Accept("TABLE") || Accept("TABLES")) {
      st.kind = DdlKind::kDropTable;
      if (AcceptSeq({"IF", "EXISTS"})) st.if_exists = true;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(TableRef ref, ParseTableRef());
        st.tables.push_back(std::move(ref));
        if (!AcceptPunct(",")) break;
      }
      SkipWait();
      Accept("RESTRICT") || Accept("CASCADE");
      return ExpectEnd();
    }
    if (st.temporary) return Syntax("expected TABLE");
    if (Accept("DATABASE") || Accept("SCHEMA")) {
      st.kind = DdlKind::kDropDatabase;
      if (AcceptSeq({"IF", "EXISTS"})) st.if_exists = true;
      FLOE_ASSIGN_OR_RETURN(st.table.db, ParseName());
      return ExpectEnd();
    }
    if (Accept("INDEX")) {
      st.kind = DdlKind::kDropIndex;
      Accept("ONLINE") || Accept("OFFLINE");
      AcceptSeq({"IF", "EXISTS"});
      FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
      FLOE_RETURN_IF_ERROR(Expect("ON"));
      FLOE_ASSIGN_OR_RETURN(st.table, ParseTableRef());
      if (NamesEqual(name, "PRIMARY")) {
        AlterAction a;
        a.kind = AlterAction::Kind::kDropPrimaryKey;
        st.actions.push_back(std::move(a));
      }
      return SkipRest();
    }
    return NotTableDdl(st, "DROP");
  }

  Status ParseRename(DdlStatement& st) {
    st.kind = DdlKind::kRenameTable;
    AcceptSeq({"IF", "EXISTS"});
    while (true) {
      FLOE_ASSIGN_OR_RETURN(TableRef from, ParseTableRef());
      SkipWait();
      FLOE_RETURN_IF_ERROR(Expect("TO"));
      FLOE_ASSIGN_OR_RETURN(TableRef to, ParseTableRef());
      st.renames.emplace_back(std::move(from), std::move(to));
      if (!AcceptPunct(",")) break;
    }
    return ExpectEnd();
  }

  Status ParseAlter(DdlStatement& st) {
    Accept("ONLINE") || Accept("OFFLINE");
    Accept("IGNORE");
    if (!Accept("TABLE")) return NotTableDdl(st, "ALTER");
    st.kind = DdlKind::kAlterTable;
    if (AcceptSeq({"IF", "EXISTS"})) st.if_exists = true;
    FLOE_ASSIGN_OR_RETURN(st.table, ParseTableRef());
    SkipWait();
    while (!AtEnd()) {
      FLOE_RETURN_IF_ERROR(ParseAlterSpec(st));
      if (AcceptPunct(",")) continue;
      if (AtEnd()) break;
      // Partition clauses follow the specs without a comma.
      if (Peek().Is("PARTITION") || Peek().Is("REMOVE")) {
        FLOE_RETURN_IF_ERROR(SkipRest());
        break;
      }
      return Syntax("expected ',' between ALTER TABLE clauses");
    }
    return ExpectEnd();
  }

  void Ignored(DdlStatement& st, std::string what) {
    AlterAction a;
    a.kind = AlterAction::Kind::kIgnored;
    a.ignored_what = std::move(what);
    st.actions.push_back(std::move(a));
  }

  Status ParseAlterSpec(DdlStatement& st) {
    const Token& t = Peek();
    if (Accept("ADD")) return ParseAlterAdd(st);
    if (Accept("DROP")) return ParseAlterDrop(st);
    if (Accept("MODIFY") || Accept("CHANGE")) {
      bool change = t.Is("CHANGE");
      Accept("COLUMN");
      AlterAction a;
      a.kind = change ? AlterAction::Kind::kChangeColumn : AlterAction::Kind::kModifyColumn;
      if (AcceptSeq({"IF", "EXISTS"})) a.if_exists = true;
      if (change) {
        FLOE_ASSIGN_OR_RETURN(a.name, ParseName());
      }
      FLOE_ASSIGN_OR_RETURN(a.column, ParseColumnDefinition(&a.inline_primary_key, ""));
      if (!change) a.name = a.column.name;
      FLOE_ASSIGN_OR_RETURN(a.position, ParsePosition());
      st.actions.push_back(std::move(a));
      return Ok();
    }
    if (Accept("RENAME")) {
      if (Accept("COLUMN")) {
        AlterAction a;
        a.kind = AlterAction::Kind::kRenameColumn;
        if (AcceptSeq({"IF", "EXISTS"})) a.if_exists = true;
        FLOE_ASSIGN_OR_RETURN(a.name, ParseName());
        FLOE_RETURN_IF_ERROR(Expect("TO"));
        FLOE_ASSIGN_OR_RETURN(a.new_name, ParseName());
        st.actions.push_back(std::move(a));
        return Ok();
      }
      if (Accept("INDEX") || Accept("KEY")) {
        FLOE_RETURN_IF_ERROR(SkipItem());
        Ignored(st, "RENAME INDEX");
        return Ok();
      }
      Accept("TO") || Accept("AS");
      AlterAction a;
      a.kind = AlterAction::Kind::kRenameTable;
      FLOE_ASSIGN_OR_RETURN(a.new_table, ParseTableRef());
      st.actions.push_back(std::move(a));
      return Ok();
    }
    if (Accept("ALTER")) {
      if (Accept("INDEX") || Accept("KEY") || Accept("CHECK") || Accept("CONSTRAINT")) {
        FLOE_RETURN_IF_ERROR(SkipItem());
        Ignored(st, "ALTER INDEX/CHECK");
        return Ok();
      }
      Accept("COLUMN");
      AlterAction a;
      if (AcceptSeq({"IF", "EXISTS"})) a.if_exists = true;
      FLOE_ASSIGN_OR_RETURN(a.name, ParseName());
      if (AcceptSeq({"SET", "DEFAULT"})) {
        a.kind = AlterAction::Kind::kSetDefault;
        FLOE_RETURN_IF_ERROR(ParseDefault(a.column));
      } else if (AcceptSeq({"DROP", "DEFAULT"})) {
        a.kind = AlterAction::Kind::kDropDefault;
      } else if (AcceptSeq({"SET", "VISIBLE"})) {
        a.kind = AlterAction::Kind::kSetVisibility;
        a.column.invisible = false;
      } else if (AcceptSeq({"SET", "INVISIBLE"})) {
        a.kind = AlterAction::Kind::kSetVisibility;
        a.column.invisible = true;
      } else {
        return Syntax("expected SET DEFAULT, DROP DEFAULT or SET [IN]VISIBLE");
      }
      st.actions.push_back(std::move(a));
      return Ok();
    }
    if (Accept("CONVERT")) {
      FLOE_RETURN_IF_ERROR(Expect("TO"));
      if (!AcceptSeq({"CHARACTER", "SET"}) && !Accept("CHARSET") && !AcceptSeq({"CHAR", "SET"})) {
        return Syntax("expected CHARACTER SET");
      }
      AlterAction a;
      a.kind = AlterAction::Kind::kConvertCharset;
      if (!Peek().IsName() && Peek().kind != TokenKind::kString) {
        return Syntax("expected a character set");
      }
      a.charset = LowerAscii(Advance().text);
      if (Accept("COLLATE")) {
        AcceptPunct("=");
        a.collation = LowerAscii(Advance().text);
      }
      st.actions.push_back(std::move(a));
      return Ok();
    }
    if (Accept("ORDER")) {
      FLOE_RETURN_IF_ERROR(Expect("BY"));
      while (true) {
        FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
        (void)name;
        Accept("ASC") || Accept("DESC");
        // A comma followed by a name not being an ALTER keyword continues the list.
        if (Peek().IsPunct(",") && Peek(1).IsName() && !IsAlterKeyword(Peek(1))) {
          Advance();
          continue;
        }
        break;
      }
      Ignored(st, "ORDER BY");
      return Ok();
    }
    if (Accept("FORCE") || AcceptSeq({"DISABLE", "KEYS"}) || AcceptSeq({"ENABLE", "KEYS"}) ||
        AcceptSeq({"DISCARD", "TABLESPACE"}) || AcceptSeq({"IMPORT", "TABLESPACE"}) ||
        AcceptSeq({"WITH", "VALIDATION"}) || AcceptSeq({"WITHOUT", "VALIDATION"}) ||
        AcceptSeq({"UPGRADE", "PARTITIONING"}) || AcceptSeq({"REMOVE", "PARTITIONING"})) {
      Ignored(st, t.text);
      return Ok();
    }
    if (t.Is("PARTITION") || t.Is("COALESCE") || t.Is("REORGANIZE") || t.Is("EXCHANGE") ||
        t.Is("ANALYZE") || t.Is("CHECK") || t.Is("OPTIMIZE") || t.Is("REBUILD") || t.Is("REPAIR") ||
        t.Is("TRUNCATE") || t.Is("DISCARD") || t.Is("IMPORT") || t.Is("CONVERT") ||
        t.Is("SECONDARY_LOAD") || t.Is("SECONDARY_UNLOAD")) {
      // Partition operations come last and take comma-separated partition
      // lists (TRUNCATE PARTITION p0, p1): skip to the end.
      std::string what = t.text;
      Advance();
      FLOE_RETURN_IF_ERROR(SkipRest());
      Ignored(st, what);
      return Ok();
    }
    if (Accept("ALGORITHM") || Accept("LOCK")) {
      AcceptPunct("=");
      Advance();
      Ignored(st, t.text);
      return Ok();
    }
    // Table options: [DEFAULT] CHARACTER SET, COLLATE, ENGINE, COMMENT, others.
    Accept("DEFAULT");
    AlterAction a;
    a.kind = AlterAction::Kind::kTableOptions;
    const Token& o = Peek();
    if (AcceptSeq({"CHARACTER", "SET"}) || Accept("CHARSET") || AcceptSeq({"CHAR", "SET"})) {
      AcceptPunct("=");
      a.charset = LowerAscii(Advance().text);
      if (Accept("COLLATE")) {
        AcceptPunct("=");
        a.collation = LowerAscii(Advance().text);
      }
    } else if (Accept("COLLATE")) {
      AcceptPunct("=");
      a.collation = LowerAscii(Advance().text);
    } else if (Accept("ENGINE") || Accept("TYPE")) {
      AcceptPunct("=");
      a.engine = LowerAscii(Advance().text);
    } else if (Accept("COMMENT")) {
      AcceptPunct("=");
      if (Peek().kind != TokenKind::kString) return Syntax("expected a quoted comment");
      a.comment = Advance().text;
    } else if (o.kind == TokenKind::kIdentifier && IsTableOptionName(o)) {
      Advance();
      if (o.Is("DATA") || o.Is("INDEX")) Accept("DIRECTORY");
      AcceptPunct("=");
      if (Peek().IsPunct("(")) {
        FLOE_RETURN_IF_ERROR(SkipBalanced());
      } else {
        Advance();
      }
      a.kind = AlterAction::Kind::kIgnored;
      a.ignored_what = o.text;
    } else {
      return Syntax("unexpected ALTER TABLE clause");
    }
    st.actions.push_back(std::move(a));
    return Ok();
  }

  static bool IsAlterKeyword(const Token& t) {
    for (auto k : {"ADD", "DROP", "MODIFY", "CHANGE", "RENAME", "ALTER", "ALGORITHM", "LOCK",
                   "ENGINE", "CONVERT", "FORCE"}) {
      if (t.Is(k)) return true;
    }
    return false;
  }

  bool IsTableOptionName(const Token& t) const {
    if (Peek(1).IsPunct("=")) return true;
    for (auto k : {"AUTO_INCREMENT",
                   "AVG_ROW_LENGTH",
                   "CHECKSUM",
                   "COMPRESSION",
                   "CONNECTION",
                   "DATA",
                   "INDEX",
                   "DELAY_KEY_WRITE",
                   "ENCRYPTION",
                   "INSERT_METHOD",
                   "KEY_BLOCK_SIZE",
                   "MAX_ROWS",
                   "MIN_ROWS",
                   "PACK_KEYS",
                   "PASSWORD",
                   "ROW_FORMAT",
                   "STATS_AUTO_RECALC",
                   "STATS_PERSISTENT",
                   "STATS_SAMPLE_PAGES",
                   "TABLESPACE",
                   "UNION",
                   "PAGE_CHECKSUM",
                   "TRANSACTIONAL",
                   "PAGE_COMPRESSED",
                   "PAGE_COMPRESSION_LEVEL",
                   "IETF_QUOTES",
                   "ENCRYPTED",
                   "ENCRYPTION_KEY_ID",
                   "SEQUENCE",
                   "ENGINE_ATTRIBUTE",
                   "SECONDARY_ENGINE",
                   "SECONDARY_ENGINE_ATTRIBUTE",
                   "AUTOEXTEND_SIZE",
                   "STORAGE"}) {
      if (t.Is(k)) return true;
    }
    return false;
  }

  Status ParseAlterAdd(DdlStatement& st) {
    std::optional<std::vector<std::string>> pk;
    bool column_keyword = Accept("COLUMN");
    bool if_not_exists = AcceptSeq({"IF", "NOT", "EXISTS"});
    if (!column_keyword) {
      if (AcceptSeq({"SYSTEM", "VERSIONING"})) {
        Ignored(st, "ADD SYSTEM VERSIONING");
        return Ok();
      }
      if (Peek().Is("PARTITION")) {
        Advance();
        FLOE_RETURN_IF_ERROR(SkipItem());
        Ignored(st, "ADD PARTITION");
        return Ok();
      }
      size_t before = pos_;
      FLOE_ASSIGN_OR_RETURN(bool index, MaybeIndexDefinition(&pk));
      if (index) {
        if (pk) {
          AlterAction a;
          a.kind = AlterAction::Kind::kAddPrimaryKey;
          a.key_columns = std::move(*pk);
          st.actions.push_back(std::move(a));
        } else {
          Ignored(st, "ADD " + tokens_[before].text);
        }
        return Ok();
      }
    }
    auto add_one = [&](bool in_list) -> Status {
      AlterAction a;
      a.kind = AlterAction::Kind::kAddColumn;
      a.if_not_exists = if_not_exists;
      FLOE_ASSIGN_OR_RETURN(a.column, ParseColumnDefinition(&a.inline_primary_key, ""));
      a.name = a.column.name;
      if (!in_list) {
        FLOE_ASSIGN_OR_RETURN(a.position, ParsePosition());
      }
      st.actions.push_back(std::move(a));
      return Ok();
    };
    if (AcceptPunct("(")) {
      while (true) {
        FLOE_ASSIGN_OR_RETURN(bool index, MaybeIndexDefinition(&pk));
        if (index) {
          if (pk) {
            AlterAction a;
            a.kind = AlterAction::Kind::kAddPrimaryKey;
            a.key_columns = std::move(*pk);
            pk.reset();
            st.actions.push_back(std::move(a));
          }
        } else {
          FLOE_RETURN_IF_ERROR(add_one(true));
        }
        if (AcceptPunct(",")) continue;
        return ExpectPunct(")");
      }
    }
    return add_one(false);
  }

  Status ParseAlterDrop(DdlStatement& st) {
    AlterAction a;
    if (AcceptSeq({"PRIMARY", "KEY"})) {
      a.kind = AlterAction::Kind::kDropPrimaryKey;
      st.actions.push_back(std::move(a));
      return Ok();
    }
    const Token& t = Peek();
    if (Accept("INDEX") || Accept("KEY")) {
      AcceptSeq({"IF", "EXISTS"});
      FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
      if (NamesEqual(name, "PRIMARY")) {
        a.kind = AlterAction::Kind::kDropPrimaryKey;
        st.actions.push_back(std::move(a));
      } else {
        Ignored(st, "DROP INDEX");
      }
      return Ok();
    }
    if (t.Is("FOREIGN") || t.Is("CHECK") || t.Is("CONSTRAINT") || t.Is("PARTITION") ||
        (t.Is("SYSTEM") && Peek(1).Is("VERSIONING")) || (t.Is("PERIOD") && Peek(1).Is("FOR"))) {
      std::string what = "DROP " + t.text;
      bool partition = t.Is("PARTITION");
      Advance();
      FLOE_RETURN_IF_ERROR(partition ? SkipRest() : SkipItem());
      Ignored(st, what);
      return Ok();
    }
    Accept("COLUMN");
    a.kind = AlterAction::Kind::kDropColumn;
    if (AcceptSeq({"IF", "EXISTS"})) a.if_exists = true;
    FLOE_ASSIGN_OR_RETURN(a.name, ParseName());
    Accept("RESTRICT") || Accept("CASCADE");
    st.actions.push_back(std::move(a));
    return Ok();
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  bool binary_collation_ = false;
};

}  // namespace

std::string_view DdlKindName(DdlKind kind) {
  switch (kind) {
    case DdlKind::kCreateTable:
      return "create_table";
    case DdlKind::kCreateTableLike:
      return "create_table_like";
    case DdlKind::kDropTable:
      return "drop_table";
    case DdlKind::kRenameTable:
      return "rename_table";
    case DdlKind::kTruncateTable:
      return "truncate_table";
    case DdlKind::kAlterTable:
      return "alter_table";
    case DdlKind::kCreateIndex:
      return "create_index";
    case DdlKind::kDropDatabase:
      return "drop_database";
    case DdlKind::kDropIndex:
      return "drop_index";
    case DdlKind::kNotTableDdl:
      return "not_table_ddl";
  }
  return "unknown";
}

Result<DdlStatement> ParseDdl(std::string_view sql) {
  auto tokens = Tokenize(sql);
  if (!tokens) {
    return std::unexpected(
        Error(tokens.error().code(),
              fmt::format("{} in statement: {}", tokens.error().message(), ShortStatement(sql))));
  }
  return Parser(sql, std::move(*tokens)).Parse();
}

}  // namespace floe::cdc::mysql
