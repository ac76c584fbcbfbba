// CREATE TABLE: the column list, keys and constraints, and table options.
#include "floe/cdc/mysql/ddl_parser_internal.h"

namespace floe::cdc::mysql::ddl_internal {

// (a, b(10), c DESC, (expr)) -> names of the plain columns.
Result<std::vector<std::string>> Parser::ParseKeyParts() {
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

// Index / constraint definitions inside CREATE TABLE (...) or ALTER ADD.
// Returns true if the item at pos_ is one (and consumes it), setting
// `*primary_key` for a PRIMARY KEY.
Result<bool> Parser::MaybeIndexDefinition(std::optional<std::vector<std::string>>* primary_key) {
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

Status Parser::ParseTableOptions(DdlStatement& st) {
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
        FLOE_RETURN_IF_ERROR(SkipOne());
      }
      return Ok();
    }
    Accept("DEFAULT");
    std::string* target = nullptr;
    if (AcceptSeq({"CHARACTER", "SET"}) || Accept("CHARSET") || AcceptSeq({"CHAR", "SET"})) {
      target = &st.definition.charset;
    } else if (Accept("COLLATE")) {
      target = &st.definition.collation;
    } else if (Accept("ENGINE") || Accept("TYPE")) {
      target = &st.definition.engine;
    } else if (Accept("COMMENT")) {
      target = &st.definition.comment;
    } else if (AcceptSeq({"WITH", "SYSTEM", "VERSIONING"}) || AcceptSeq({"START", "TRANSACTION"})) {
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
        *target = (target == &st.definition.comment) ? v.text : LowerAscii(v.text);
      }
    }
  }
  return Ok();
}

Status Parser::ParseCreateTable(DdlStatement& st) {
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
  // A COLLATE without a CHARACTER SET names the charset too (utf8mb4_bin: utf8mb4).
  std::string& table_charset = st.definition.charset;
  if (table_charset.empty() && !st.definition.collation.empty()) {
    table_charset = st.definition.collation.substr(0, st.definition.collation.find('_'));
  }
  for (auto& [col, inline_pk] : defs) {
    // TEXT(M) depends on the table charset, known now.
    ResolveTextLength(col, table_charset);
    if (inline_pk) {
      if (pk) return Syntax("multiple primary keys defined");
      pk = std::vector<std::string>{col.name};
    }
    st.definition.columns.push_back(std::move(col));
  }
  if (pk) st.definition.primary_key = std::move(*pk);
  return ExpectEnd();
}

}  // namespace floe::cdc::mysql::ddl_internal
