#pragma once
/// The DDL parser's class, shared by its source files: ddl_parser.cc (token
/// helpers, dispatch, DROP / RENAME / TRUNCATE / CREATE INDEX and the
/// statements it only recognizes), ddl_parser_create_table.cc (CREATE TABLE,
/// its keys and table options), ddl_parser_column.cc (column definitions and
/// data types) and ddl_parser_alter.cc (ALTER TABLE). Not a public API: use
/// ParseDdl (ddl_parser.h).

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/cdc/mysql/ddl_ast.h"
#include "floe/cdc/mysql/ddl_lexer.h"
#include "floe/cdc/mysql/ddl_parser.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql::ddl_internal {

/// The statement for an error message, cut to 300 bytes.
std::string ShortStatement(std::string_view sql);

/// A recursive-descent parser over the tokens of one statement.
class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens) : sql_(sql), tokens_(std::move(tokens)) {}

  /// Parses the whole statement.
  Result<DdlStatement> Parse() {
    DdlStatement st;
    auto status = ParseStatement(st);
    if (!status) return std::unexpected(std::move(status).error());
    return st;
  }

  // The steps below are public so that each can be tested on its own.

  // ---- token helpers (ddl_parser.cc) -----------------------------------------
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
  Result<std::string> ParseName();
  Result<TableRef> ParseTableRef();
  // Source text from token `first` to the token before pos_.
  std::string TextFrom(size_t first) const;
  // At '(': skips to after the matching ')'.
  Status SkipBalanced();
  // Skips one token, or (at '(') one parenthesized group; at a ')' that closes
  // nothing: kInvalidArgument (syntax error), nothing skipped.
  Status SkipOne();
  // Skips to the next ',' or ')' at this level (not consuming it) or the end.
  Status SkipItem();
  // Skips everything to the end of the statement.
  Status SkipRest();
  Status ExpectEnd();

  // ---- statements other than CREATE TABLE and ALTER TABLE (ddl_parser.cc) ----
  Status ParseStatement(DdlStatement& st);
  Status NotTableDdl(DdlStatement& st, std::string prefix);
  void SkipWait();
  Status ParseCreate(DdlStatement& st);
  Status ParseDrop(DdlStatement& st);
  Status ParseRename(DdlStatement& st);

  // ---- CREATE TABLE (ddl_parser_create_table.cc) -----------------------------
  Status ParseCreateTable(DdlStatement& st);
  Status ParseTableOptions(DdlStatement& st);
  // Index / constraint definitions inside CREATE TABLE (...) or ALTER ADD.
  // Returns true if the item at pos_ is one (and consumes it), setting
  // `*primary_key` for a PRIMARY KEY.
  Result<bool> MaybeIndexDefinition(std::optional<std::vector<std::string>>* primary_key);
  // (a, b(10), c DESC, (expr)) -> names of the plain columns.
  Result<std::vector<std::string>> ParseKeyParts();

  // ---- column definitions and data types (ddl_parser_column.cc) -----------
  Result<ColumnDef> ParseColumnDefinition(bool* inline_pk, std::string_view table_charset);
  // The type after a column name; `col.type` and its length, precision,
  // charset words. One step per type family, each returning false when the
  // word `w` is not one of its types (`w` may be replaced by the word after
  // NATIONAL).
  Status ParseDataType(ColumnDef& col);
  Result<bool> ParseNumericType(std::string& w, ColumnDef& col);
  Result<bool> ParseTemporalType(std::string& w, ColumnDef& col);
  Result<bool> ParseCharacterType(std::string& w, ColumnDef& col);
  Result<bool> ParseTextOrBlobType(std::string& w, ColumnDef& col);
  Result<bool> ParseOtherType(std::string& w, ColumnDef& col);
  // Optional (n) or (p, s) after a type name.
  Status ParseTypeArgs(std::optional<int64_t>* first, std::optional<int64_t>* second);
  Status ParseEnumValues(ColumnDef& col);
  Result<int> Fsp();
  // Charset-ish words after a character type: BINARY, ASCII, UNICODE, BYTE.
  void CharTypeFlags(ColumnDef& col);
  // Attributes after the type, up to ',' ')' FIRST AFTER or the end.
  Status ParseColumnAttributes(ColumnDef& col, bool* inline_pk);
  // CURRENT_TIMESTAMP, NOW(), LOCALTIME(3), ... -> "CURRENT_TIMESTAMP[(n)]".
  Result<std::optional<std::string>> MaybeCurrentTimestamp();
  // DEFAULT <literal | (expr) | function(...)>
  Status ParseDefault(ColumnDef& col);
  // REFERENCES t (cols) [MATCH x] [ON DELETE|UPDATE action]...
  Status SkipReferences();
  // Resolves the flags the type parser saw (BINARY -> _bin, CHARACTER SET
  // binary -> binary types, TEXT(M) -> smallest fitting type).
  void FinishColumn(ColumnDef& col, std::string_view table_charset);
  Result<ColumnPosition> ParsePosition();

  // ---- ALTER TABLE (ddl_parser_alter.cc) ------------------------------------
  Status ParseAlter(DdlStatement& st);
  // One clause of ALTER TABLE, by kind; each step below is one kind.
  Status ParseAlterSpec(DdlStatement& st);
  Status ParseAlterAdd(DdlStatement& st);
  Status ParseAlterDrop(DdlStatement& st);
  // MODIFY [COLUMN] def, CHANGE [COLUMN] old def.
  Status ParseAlterModify(DdlStatement& st, bool change);
  // RENAME COLUMN a TO b, RENAME INDEX/KEY ..., RENAME [TO|AS] table.
  Status ParseAlterRename(DdlStatement& st);
  // ALTER [COLUMN] c SET/DROP DEFAULT, SET [IN]VISIBLE; ALTER INDEX/CHECK (ignored).
  Status ParseAlterColumn(DdlStatement& st);
  // CONVERT TO CHARACTER SET cs [COLLATE c].
  Status ParseAlterConvert(DdlStatement& st);
  // ORDER BY a, b (ignored).
  Status ParseAlterOrderBy(DdlStatement& st);
  // Clauses floe records as ignored (FORCE, partition operations, ALGORITHM,
  // LOCK, ...): true if the clause at pos_ was one.
  Result<bool> MaybeIgnoredAlterClause(DdlStatement& st);
  // [DEFAULT] CHARACTER SET, COLLATE, ENGINE, COMMENT and the other table options.
  Status ParseAlterTableOption(DdlStatement& st);
  void Ignored(DdlStatement& st, std::string what);
  static bool IsAlterKeyword(const Token& t);
  bool IsTableOptionName(const Token& t) const;

 private:
  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  bool binary_collation_ = false;
};

}  // namespace floe::cdc::mysql::ddl_internal
