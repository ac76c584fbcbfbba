// ParseDdl and the parser's token helpers; DROP, RENAME, TRUNCATE, CREATE
// INDEX, and the statements recognized as not changing a table. CREATE TABLE,
// column definitions and ALTER TABLE have their own files; one column
// definition alone (ParseColumnDefinition).
#include <cctype>

#include "floe/cdc/mysql/ddl_parser_internal.h"
#include "floe/common/quote.h"

namespace floe::cdc::mysql::ddl_internal {
namespace {

constexpr size_t kMaxStatementInMessage = 300;

}  // namespace

std::string ShortStatement(std::string_view sql) {
  if (sql.size() <= kMaxStatementInMessage) return std::string(sql);
  return std::string(sql.substr(0, kMaxStatementInMessage)) + "...";
}

Result<std::string> Parser::ParseName() {
  const Token& t = Peek();
  if (!t.IsName()) return Syntax("expected a name");
  Advance();
  return t.text;
}

Result<TableRef> Parser::ParseTableRef() {
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
std::string Parser::TextFrom(size_t first) const {
  if (first >= pos_) return "";
  uint32_t b = tokens_[first].begin;
  uint32_t e = tokens_[pos_ - 1].end;
  if (e < b) return "";
  return std::string(sql_.substr(b, e - b));
}

// At '(': skips to after the matching ')'.
Status Parser::SkipBalanced() {
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

// Skips one token, or one parenthesized group; a ')' that closes nothing is an error.
Status Parser::SkipOne() {
  if (Peek().IsPunct("(")) return SkipBalanced();
  if (Peek().IsPunct(")")) return Syntax("unbalanced parentheses");
  Advance();
  return Ok();
}

// Skips to the next ',' or ')' at this level (not consuming it) or the end.
Status Parser::SkipItem() {
  while (!AtEnd() && !Peek().IsPunct(",") && !Peek().IsPunct(")")) {
    FLOE_RETURN_IF_ERROR(SkipOne());
  }
  return Ok();
}

// Skips everything to the end of the statement.
Status Parser::SkipRest() {
  while (!AtEnd()) FLOE_RETURN_IF_ERROR(SkipOne());
  return Ok();
}

Status Parser::ExpectEnd() {
  AcceptPunct(";");
  if (Peek().kind != TokenKind::kEnd) return Syntax("unexpected text after the statement");
  return Ok();
}

Status Parser::ParseStatement(DdlStatement& st) {
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

Status Parser::NotTableDdl(DdlStatement& st, std::string prefix) {
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

void Parser::SkipWait() {
  if (Accept("WAIT")) {
    if (Peek().kind == TokenKind::kNumber) Advance();
  } else {
    Accept("NOWAIT");
  }
}

Status Parser::ParseCreate(DdlStatement& st) {
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

Status Parser::ParseDrop(DdlStatement& st) {
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

Status Parser::ParseRename(DdlStatement& st) {
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

}  // namespace floe::cdc::mysql::ddl_internal

namespace floe::cdc::mysql {

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
        Error(tokens.error().code(), fmt::format("{} in statement: {}", tokens.error().message(),
                                                 ddl_internal::ShortStatement(sql))));
  }
  return ddl_internal::Parser(sql, std::move(*tokens)).Parse();
}

Result<ColumnDef> ParseColumnDefinition(std::string_view name, std::string_view type) {
  std::string sql = "CREATE TABLE t (";
  AppendSqlQuoted(name, '`', &sql);
  sql += ' ';
  sql += type;
  sql += ')';
  FLOE_ASSIGN_OR_RETURN(DdlStatement parsed, ParseDdl(sql));
  if (parsed.kind != DdlKind::kCreateTable || parsed.definition.columns.size() != 1) {
    return InvalidArgument("'{}' is not one column type", type);
  }
  ColumnDef column = std::move(parsed.definition.columns[0]);
  column.name = std::string(name);
  return column;
}

}  // namespace floe::cdc::mysql
