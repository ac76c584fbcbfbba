// ALTER TABLE: one step per kind of clause.
#include "floe/cdc/mysql/ddl_parser_internal.h"

namespace floe::cdc::mysql::ddl_internal {

Status Parser::ParseAlter(DdlStatement& st) {
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

void Parser::Ignored(DdlStatement& st, std::string what) {
  AlterAction a;
  a.kind = AlterAction::Kind::kIgnored;
  a.ignored_what = std::move(what);
  st.actions.push_back(std::move(a));
}

Status Parser::ParseAlterSpec(DdlStatement& st) {
  const Token& t = Peek();
  if (Accept("ADD")) return ParseAlterAdd(st);
  if (Accept("DROP")) return ParseAlterDrop(st);
  if (Accept("MODIFY") || Accept("CHANGE")) return ParseAlterModify(st, t.Is("CHANGE"));
  if (Accept("RENAME")) return ParseAlterRename(st);
  if (Accept("ALTER")) return ParseAlterColumn(st);
  if (Accept("CONVERT")) return ParseAlterConvert(st);
  if (Accept("ORDER")) return ParseAlterOrderBy(st);
  FLOE_ASSIGN_OR_RETURN(bool ignored, MaybeIgnoredAlterClause(st));
  if (ignored) return Ok();
  return ParseAlterTableOption(st);
}

Status Parser::ParseAlterModify(DdlStatement& st, bool change) {
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

Status Parser::ParseAlterRename(DdlStatement& st) {
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

Status Parser::ParseAlterColumn(DdlStatement& st) {
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

Status Parser::ParseAlterConvert(DdlStatement& st) {
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

Status Parser::ParseAlterOrderBy(DdlStatement& st) {
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

Result<bool> Parser::MaybeIgnoredAlterClause(DdlStatement& st) {
  const Token& t = Peek();
  if (Accept("FORCE") || AcceptSeq({"DISABLE", "KEYS"}) || AcceptSeq({"ENABLE", "KEYS"}) ||
      AcceptSeq({"DISCARD", "TABLESPACE"}) || AcceptSeq({"IMPORT", "TABLESPACE"}) ||
      AcceptSeq({"WITH", "VALIDATION"}) || AcceptSeq({"WITHOUT", "VALIDATION"}) ||
      AcceptSeq({"UPGRADE", "PARTITIONING"}) || AcceptSeq({"REMOVE", "PARTITIONING"})) {
    Ignored(st, t.text);
    return true;
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
    return true;
  }
  if (Accept("ALGORITHM") || Accept("LOCK")) {
    AcceptPunct("=");
    Advance();
    Ignored(st, t.text);
    return true;
  }
  return false;
}

Status Parser::ParseAlterTableOption(DdlStatement& st) {
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

bool Parser::IsAlterKeyword(const Token& t) {
  for (auto k : {"ADD", "DROP", "MODIFY", "CHANGE", "RENAME", "ALTER", "ALGORITHM", "LOCK",
                 "ENGINE", "CONVERT", "FORCE"}) {
    if (t.Is(k)) return true;
  }
  return false;
}

bool Parser::IsTableOptionName(const Token& t) const {
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

Status Parser::ParseAlterAdd(DdlStatement& st) {
  std::optional<std::vector<std::string>> pk;
  auto add_primary_key = [&st](std::vector<std::string> columns) {
    AlterAction a;
    a.kind = AlterAction::Kind::kAddPrimaryKey;
    a.key_columns = std::move(columns);
    st.actions.push_back(std::move(a));
  };
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
        add_primary_key(std::move(*pk));
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
          add_primary_key(std::move(*pk));
          pk.reset();
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

Status Parser::ParseAlterDrop(DdlStatement& st) {
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

}  // namespace floe::cdc::mysql::ddl_internal
