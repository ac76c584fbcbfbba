// Column definitions: data types (one step per type family), DEFAULT values
// and the other column attributes.
#include "floe/cdc/mysql/ddl_parser_internal.h"

#include <charconv>

namespace floe::cdc::mysql::ddl_internal {
namespace {

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

// Optional (n) or (p, s) after a type name.
Status Parser::ParseTypeArgs(std::optional<int64_t>* first, std::optional<int64_t>* second) {
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

Status Parser::ParseEnumValues(ColumnDef& col) {
  FLOE_RETURN_IF_ERROR(ExpectPunct("("));
  while (true) {
    if (Peek().kind != TokenKind::kString) return Syntax("expected a quoted value");
    col.enum_values.push_back(Advance().text);
    if (AcceptPunct(",")) continue;
    return ExpectPunct(")");
  }
}

Result<int> Parser::Fsp() {
  std::optional<int64_t> a, b;
  FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
  if (b || (a && (*a < 0 || *a > 6))) return Syntax("fractional seconds precision must be 0..6");
  return static_cast<int>(a.value_or(0));
}

// Charset-ish words after a character type: BINARY, ASCII, UNICODE, BYTE.
void Parser::CharTypeFlags(ColumnDef& col) {
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

Status Parser::ParseDataType(ColumnDef& col) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdentifier) return Syntax("expected a column type");
  std::string w = LowerAscii(t.text);
  Advance();
  for (auto family :
       {&Parser::ParseNumericType, &Parser::ParseTemporalType, &Parser::ParseCharacterType,
        &Parser::ParseTextOrBlobType, &Parser::ParseOtherType}) {
    FLOE_ASSIGN_OR_RETURN(bool parsed, (this->*family)(w, col));
    if (parsed) return Ok();
  }
  return Fail(ErrorCode::kNotSupported, t, fmt::format("unknown column type {}", t.text));
}

// Integers, BOOL, SERIAL, DECIMAL, FLOAT, DOUBLE, BIT.
Result<bool> Parser::ParseNumericType(std::string& w, ColumnDef& col) {
  std::optional<int64_t> a, b;
  auto integer = [&](MysqlType type) -> Result<bool> {
    col.type = type;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    col.length = a;
    return true;
  };
  if (w == "tinyint" || w == "int1") return integer(MysqlType::kTinyInt);
  if (w == "smallint" || w == "int2") return integer(MysqlType::kSmallInt);
  if (w == "mediumint" || w == "int3" || w == "middleint") return integer(MysqlType::kMediumInt);
  if (w == "int" || w == "integer" || w == "int4") return integer(MysqlType::kInt);
  if (w == "bigint" || w == "int8") return integer(MysqlType::kBigInt);
  if (w == "bool" || w == "boolean") {
    col.type = MysqlType::kTinyInt;
    col.length = 1;
    return true;
  }
  if (w == "serial") {
    col.type = MysqlType::kBigInt;
    col.is_unsigned = true;
    col.nullable = false;
    col.auto_increment = true;
    return true;
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
    return true;
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
    return true;
  }
  if (w == "double" || w == "real" || w == "float8") {
    col.type = MysqlType::kDouble;
    if (w == "double") Accept("PRECISION");
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    if (a) {
      col.precision = static_cast<int>(*a);
      col.scale = static_cast<int>(b.value_or(0));
    }
    return true;
  }
  if (w == "bit") {
    col.type = MysqlType::kBit;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    col.length = a.value_or(1);
    if (*col.length < 1 || *col.length > 64) return Syntax("BIT length must be 1..64");
    return true;
  }
  return false;
}

// YEAR, DATE, DATETIME, TIMESTAMP, TIME.
Result<bool> Parser::ParseTemporalType(std::string& w, ColumnDef& col) {
  if (w == "year") {
    col.type = MysqlType::kYear;
    std::optional<int64_t> a, b;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    return true;
  }
  if (w == "date") {
    col.type = MysqlType::kDate;
    return true;
  }
  if (w == "datetime" || w == "timestamp" || w == "time") {
    col.type = w == "datetime"    ? MysqlType::kDateTime
               : w == "timestamp" ? MysqlType::kTimestamp
                                  : MysqlType::kTime;
    FLOE_ASSIGN_OR_RETURN(col.fsp, Fsp());
    return true;
  }
  return false;
}

// [NATIONAL] CHAR / VARCHAR (and their spellings), BINARY, VARBINARY. After
// NATIONAL, `w` becomes the next word.
Result<bool> Parser::ParseCharacterType(std::string& w, ColumnDef& col) {
  std::optional<int64_t> a, b;
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
      return true;
    }
    if (varying && !a) return Syntax("VARCHAR needs a length");
    col.type = varying ? MysqlType::kVarChar : MysqlType::kChar;
    col.length = a.value_or(1);
    if (national) col.charset = "utf8mb3";
    CharTypeFlags(col);
    return true;
  }
  if (w == "binary" || w == "varbinary") {
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    if (w == "varbinary" && !a) return Syntax("VARBINARY needs a length");
    col.type = w == "binary" ? MysqlType::kBinary : MysqlType::kVarBinary;
    col.length = a.value_or(1);
    return true;
  }
  return false;
}

// LONG [VARCHAR|VARBINARY], the TEXT and BLOB types, ENUM, SET.
Result<bool> Parser::ParseTextOrBlobType(std::string& w, ColumnDef& col) {
  if (w == "long") {
    if (Accept("VARBINARY")) {
      col.type = MysqlType::kMediumBlob;
      return true;
    }
    Accept("VARCHAR") || Accept("VARCHARACTER");
    col.type = MysqlType::kMediumText;
    CharTypeFlags(col);
    return true;
  }
  if (w == "tinytext" || w == "mediumtext" || w == "longtext") {
    col.type = w == "tinytext"     ? MysqlType::kTinyText
               : w == "mediumtext" ? MysqlType::kMediumText
                                   : MysqlType::kLongText;
    CharTypeFlags(col);
    return true;
  }
  if (w == "text" || w == "blob") {
    col.type = w == "text" ? MysqlType::kText : MysqlType::kBlob;
    std::optional<int64_t> a, b;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    if (a) col.length = a;
    if (w == "text") CharTypeFlags(col);
    return true;
  }
  if (w == "tinyblob") return col.type = MysqlType::kTinyBlob, true;
  if (w == "mediumblob") return col.type = MysqlType::kMediumBlob, true;
  if (w == "longblob") return col.type = MysqlType::kLongBlob, true;
  if (w == "enum" || w == "set") {
    col.type = w == "enum" ? MysqlType::kEnum : MysqlType::kSet;
    FLOE_RETURN_IF_ERROR(ParseEnumValues(col));
    CharTypeFlags(col);
    return true;
  }
  return false;
}

// JSON, UUID, INET4/6, VECTOR(n) and the spatial types.
Result<bool> Parser::ParseOtherType(std::string& w, ColumnDef& col) {
  if (w == "json") return col.type = MysqlType::kJson, true;
  if (w == "geomcollection") return col.type = MysqlType::kGeometryCollection, true;
  if (w == "uuid") return col.type = MysqlType::kUuid, true;
  if (w == "inet4") return col.type = MysqlType::kInet4, true;
  if (w == "inet6") return col.type = MysqlType::kInet6, true;
  if (w == "vector") {
    col.type = MysqlType::kVector;
    std::optional<int64_t> a, b;
    FLOE_RETURN_IF_ERROR(ParseTypeArgs(&a, &b));
    col.length = a;
    return true;
  }
  if (auto spatial = MysqlTypeFromName(w); spatial && IsSpatialType(*spatial)) {
    col.type = *spatial;
    return true;
  }
  return false;
}

// CURRENT_TIMESTAMP, NOW(), LOCALTIME(3), ... -> "CURRENT_TIMESTAMP[(n)]".
Result<std::optional<std::string>> Parser::MaybeCurrentTimestamp() {
  const Token& t = Peek();
  if (!(t.Is("CURRENT_TIMESTAMP") || t.Is("NOW") || t.Is("LOCALTIME") || t.Is("LOCALTIMESTAMP"))) {
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
Status Parser::ParseDefault(ColumnDef& col) {
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
Status Parser::SkipReferences() {
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
Status Parser::ParseColumnAttributes(ColumnDef& col, bool* inline_pk) {
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
void Parser::FinishColumn(ColumnDef& col, std::string_view table_charset) {
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

Result<ColumnDef> Parser::ParseColumnDefinition(bool* inline_pk, std::string_view table_charset) {
  ColumnDef col;
  binary_collation_ = false;
  FLOE_ASSIGN_OR_RETURN(col.name, ParseName());
  FLOE_RETURN_IF_ERROR(ParseDataType(col));
  FLOE_RETURN_IF_ERROR(ParseColumnAttributes(col, inline_pk));
  FinishColumn(col, table_charset);
  return col;
}

Result<ColumnPosition> Parser::ParsePosition() {
  ColumnPosition p;
  if (Accept("FIRST")) {
    p.kind = ColumnPosition::Kind::kFirst;
  } else if (Accept("AFTER")) {
    p.kind = ColumnPosition::Kind::kAfter;
    FLOE_ASSIGN_OR_RETURN(p.after, ParseName());
  }
  return p;
}

}  // namespace floe::cdc::mysql::ddl_internal
