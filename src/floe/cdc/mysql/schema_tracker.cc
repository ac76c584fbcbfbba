#include "floe/cdc/mysql/schema_tracker.h"

#include <algorithm>
#include <utility>

#include "floe/cdc/mysql/ddl_lexer.h"
#include "floe/cdc/mysql/ddl_parser.h"

namespace floe::cdc::mysql {
namespace {

void ErasePkColumn(std::vector<std::string>& pk, std::string_view name) {
  pk.erase(std::remove_if(pk.begin(), pk.end(),
                          [&](const std::string& k) { return NamesEqual(k, name); }),
           pk.end());
}

void RenamePkColumn(std::vector<std::string>& pk, std::string_view from, const std::string& to) {
  for (auto& k : pk) {
    if (NamesEqual(k, from)) k = to;
  }
}

// A change of kind `kind` to `db`.`table`, whose schema is then `after`.
SchemaChange TableChange(SchemaChangeKind kind, std::string_view db, std::string_view table,
                         TableSchema after) {
  SchemaChange c;
  c.kind = kind;
  c.db = db;
  c.table = table;
  c.after = std::move(after);
  return c;
}

// The schema of a table known only by its name (a dropped one has no columns).
TableSchema NamedTable(std::string_view db, std::string_view table) {
  TableSchema t;
  t.db = db;
  t.table = table;
  return t;
}

// Primary-key columns are NOT NULL, as the server makes them.
void KeyColumnsNotNull(TableSchema& t) {
  for (const auto& k : t.primary_key) {
    if (ColumnDef* c = t.FindColumn(k)) c->nullable = false;
  }
}

// The table a statement the parser could not read is about, when its first
// words say so: ALTER [ONLINE] [IGNORE] TABLE x, CREATE [OR REPLACE]
// [TEMPORARY] TABLE [IF NOT EXISTS] x, DROP/TRUNCATE TABLE x.
std::optional<TableRef> GuessTargetTable(std::string_view sql) {
  auto tokens = Tokenize(sql);
  if (!tokens) return std::nullopt;
  const auto& t = *tokens;
  size_t i = 0;
  auto is = [&](std::string_view w) { return i < t.size() && t[i].Is(w); };
  if (is("ALTER")) {
    ++i;
    while (is("ONLINE") || is("OFFLINE") || is("IGNORE")) ++i;
  } else if (is("CREATE")) {
    ++i;
    if (is("OR")) i += 2;
    if (is("TEMPORARY")) ++i;
  } else if (is("DROP") || is("TRUNCATE")) {
    ++i;
    if (is("TEMPORARY")) ++i;
  } else {
    return std::nullopt;
  }
  if (!is("TABLE")) return std::nullopt;
  ++i;
  if (is("IF")) {
    ++i;
    if (is("NOT")) ++i;
    if (is("EXISTS")) ++i;
  }
  if (i >= t.size() || !t[i].IsName()) return std::nullopt;
  TableRef ref;
  ref.table = t[i].text;
  if (i + 2 < t.size() && t[i + 1].IsPunct(".") && t[i + 2].IsName()) {
    ref.db = ref.table;
    ref.table = t[i + 2].text;
  }
  return ref;
}

int PositionIndex(const TableSchema& t, const ColumnPosition& p, int default_index, Status* error) {
  switch (p.kind) {
    case ColumnPosition::Kind::kLast:
      return default_index;
    case ColumnPosition::Kind::kFirst:
      return 0;
    case ColumnPosition::Kind::kAfter: {
      int i = t.FindColumnIndex(p.after);
      if (i < 0) {
        *error = NotFound("{}: AFTER column {} does not exist", t.QualifiedName(), p.after);
        return -1;
      }
      return i + 1;
    }
  }
  return default_index;
}

}  // namespace

std::string SchemaChange::ToString() const {
  std::string out = fmt::format("{} {}.{}", SchemaChangeKindName(kind), db, table);
  if (!old_table.empty()) out += fmt::format(" from {}.{}", old_db, old_table);
  if (!column.empty()) out += " " + column;
  if (!old_column.empty()) out += " from " + old_column;
  if (position >= 0) {
    out += fmt::format(" at {}", position);
    out += after_column.empty() ? " first" : " after " + after_column;
  }
  if (kind == SchemaChangeKind::kPrimaryKeyChange) {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
      return s;
    };
    out += fmt::format(" ({}) -> ({})", join(old_primary_key), join(after.primary_key));
  }
  return out;
}

SchemaTracker::SchemaTracker(SchemaTrackerOptions options) : options_(std::move(options)) {}

SchemaTracker::Key SchemaTracker::KeyOf(std::string_view db, std::string_view table) const {
  if (options_.case_insensitive_table_names) return {LowerAscii(db), LowerAscii(table)};
  return {std::string(db), std::string(table)};
}

TableRef SchemaTracker::Resolve(const TableRef& ref, std::string_view default_db) const {
  TableRef out = ref;
  if (out.db.empty()) out.db = std::string(default_db);
  return out;
}

bool SchemaTracker::IsSelected(std::string_view db, std::string_view table) const {
  return !options_.selected || options_.selected(db, table);
}

void SchemaTracker::Put(TableSchema schema) {
  AssignFieldIds(schema);
  KeyColumnsNotNull(schema);
  Key key = KeyOf(schema.db, schema.table);
  tables_[std::move(key)] = std::move(schema);
  ++generation_;
}

void SchemaTracker::Remove(std::string_view db, std::string_view table) {
  tables_.erase(KeyOf(db, table));
  ++generation_;
}

const TableSchema* SchemaTracker::Find(std::string_view db, std::string_view table) const {
  auto it = tables_.find(KeyOf(db, table));
  return it == tables_.end() ? nullptr : &it->second;
}

std::vector<const TableSchema*> SchemaTracker::Tables() const {
  std::vector<const TableSchema*> out;
  for (const auto& [key, schema] : tables_) out.push_back(&schema);
  return out;
}

Result<std::vector<SchemaChange>> SchemaTracker::Apply(std::string_view sql,
                                                       std::string_view default_db) {
  auto parsed = ParseDdl(sql);
  if (!parsed) {
    // A statement we cannot read about a table that is neither selected nor
    // tracked cannot matter to the capture.
    if (auto target = GuessTargetTable(sql)) {
      TableRef ref = Resolve(*target, default_db);
      if (!IsSelected(ref.db, ref.table) && Find(ref.db, ref.table) == nullptr) {
        return std::vector<SchemaChange>{};
      }
    }
    return std::unexpected(std::move(parsed).error());
  }
  return ApplyParsed(*parsed, default_db);
}

Result<std::vector<SchemaChange>> SchemaTracker::ApplyParsed(const DdlStatement& st,
                                                             std::string_view default_db) {
  std::vector<SchemaChange> out;
  ++generation_;
  auto saved = tables_;
  Status status = Ok();
  switch (st.kind) {
    case DdlKind::kCreateTable:
      status = ApplyCreate(st, default_db, out);
      break;
    case DdlKind::kCreateTableLike:
      status = ApplyCreateLike(st, default_db, out);
      break;
    case DdlKind::kDropTable:
      status = ApplyDrop(st, default_db, out);
      break;
    case DdlKind::kDropDatabase: {
      // Every table of the database goes, as if dropped one by one.
      DdlStatement drop;
      drop.kind = DdlKind::kDropTable;
      drop.if_exists = true;
      const std::string db = KeyOf(st.table.db, "").first;
      for (const auto& [key, schema] : tables_) {
        if (key.first == db) drop.tables.push_back({schema.db, schema.table});
      }
      status = ApplyDrop(drop, default_db, out);
      break;
    }
    case DdlKind::kRenameTable:
      if (st.temporary) break;
      for (const auto& [from, to] : st.renames) {
        status = ApplyRename(Resolve(from, default_db), Resolve(to, default_db), out);
        if (!status) break;
      }
      break;
    case DdlKind::kTruncateTable: {
      TableRef ref = Resolve(st.table, default_db);
      if (IsSelected(ref.db, ref.table)) {
        const TableSchema* t = Find(ref.db, ref.table);
        out.push_back(TableChange(SchemaChangeKind::kTruncateTable, ref.db, ref.table,
                                  t != nullptr ? *t : NamedTable(ref.db, ref.table)));
      }
      break;
    }
    case DdlKind::kAlterTable:
    case DdlKind::kDropIndex:
      status = ApplyAlter(st, default_db, out);
      break;
    case DdlKind::kCreateIndex:
    case DdlKind::kNotTableDdl:
      break;
  }
  if (!status) {
    tables_ = std::move(saved);
    return std::unexpected(std::move(status).error());
  }
  return out;
}

Status SchemaTracker::ApplyCreate(const DdlStatement& st, std::string_view default_db,
                                  std::vector<SchemaChange>& out) {
  if (st.temporary) return Ok();  // not logged as rows in ROW format; never captured
  TableRef ref = Resolve(st.table, default_db);
  bool selected = IsSelected(ref.db, ref.table);
  const TableSchema* existing = Find(ref.db, ref.table);
  if (existing != nullptr) {
    if (st.if_not_exists) return Ok();
    if (!st.or_replace && selected) {
      return AlreadyExists("CREATE TABLE {}.{}: the table already exists in the tracked schema",
                           ref.db, ref.table);
    }
    if (selected) {
      out.push_back(TableChange(SchemaChangeKind::kDropTable, ref.db, ref.table,
                                NamedTable(ref.db, ref.table)));
    }
  }
  TableSchema t = st.definition;
  t.db = ref.db;
  t.table = ref.table;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (NamesEqual(t.columns[i].name, t.columns[j].name)) {
        return InvalidArgument("CREATE TABLE {}.{}: duplicate column {}", ref.db, ref.table,
                               t.columns[i].name);
      }
    }
  }
  for (const auto& k : t.primary_key) {
    if (t.FindColumn(k) == nullptr) {
      return InvalidArgument("CREATE TABLE {}.{}: primary-key column {} is not a column", ref.db,
                             ref.table, k);
    }
  }
  KeyColumnsNotNull(t);
  return AddCreatedTable(std::move(t), selected, out);
}

Status SchemaTracker::ApplyCreateLike(const DdlStatement& st, std::string_view default_db,
                                      std::vector<SchemaChange>& out) {
  if (st.temporary) return Ok();
  TableRef ref = Resolve(st.table, default_db);
  TableRef like = Resolve(st.like, default_db);
  bool selected = IsSelected(ref.db, ref.table);
  const TableSchema* source = Find(like.db, like.table);
  if (source == nullptr) {
    if (!selected) return Ok();
    return NotFound(
        "CREATE TABLE {}.{} LIKE {}.{}: the schema of {}.{} is unknown; read {}.{} from "
        "information_schema",
        ref.db, ref.table, like.db, like.table, like.db, like.table, ref.db, ref.table);
  }
  if (Find(ref.db, ref.table) != nullptr) {
    if (st.if_not_exists) return Ok();
    if (!st.or_replace && selected) {
      return AlreadyExists("CREATE TABLE {}.{} LIKE: the table already exists", ref.db, ref.table);
    }
  }
  TableSchema t = *source;
  t.db = ref.db;
  t.table = ref.table;
  for (auto& c : t.columns) c.field_id = 0;
  t.last_field_id = 0;
  return AddCreatedTable(std::move(t), selected, out);
}

Status SchemaTracker::AddCreatedTable(TableSchema t, bool selected,
                                      std::vector<SchemaChange>& out) {
  AssignFieldIds(t);
  if (selected) out.push_back(TableChange(SchemaChangeKind::kCreateTable, t.db, t.table, t));
  Key key = KeyOf(t.db, t.table);
  tables_[std::move(key)] = std::move(t);
  return Ok();
}

Status SchemaTracker::ApplyDrop(const DdlStatement& st, std::string_view default_db,
                                std::vector<SchemaChange>& out) {
  if (st.temporary) return Ok();
  for (const auto& r : st.tables) {
    TableRef ref = Resolve(r, default_db);
    bool known = Find(ref.db, ref.table) != nullptr;
    tables_.erase(KeyOf(ref.db, ref.table));
    if (IsSelected(ref.db, ref.table) && (known || !st.if_exists)) {
      out.push_back(TableChange(SchemaChangeKind::kDropTable, ref.db, ref.table,
                                NamedTable(ref.db, ref.table)));
    }
  }
  return Ok();
}

Status SchemaTracker::ApplyRename(const TableRef& from, const TableRef& to,
                                  std::vector<SchemaChange>& out) {
  bool from_selected = IsSelected(from.db, from.table);
  bool to_selected = IsSelected(to.db, to.table);
  auto it = tables_.find(KeyOf(from.db, from.table));
  if (it == tables_.end()) {
    if (to_selected) {
      return NotFound(
          "RENAME TABLE {}.{} TO {}.{}: the schema of {}.{} is unknown; read {}.{} from "
          "information_schema",
          from.db, from.table, to.db, to.table, from.db, from.table, to.db, to.table);
    }
    if (from_selected) {
      out.push_back(TableChange(SchemaChangeKind::kDropTable, from.db, from.table,
                                NamedTable(to.db, to.table)));
    }
    return Ok();
  }
  if (KeyOf(from.db, from.table) != KeyOf(to.db, to.table) &&
      tables_.count(KeyOf(to.db, to.table)) > 0) {
    return AlreadyExists("RENAME TABLE {}.{} TO {}.{}: the target already exists", from.db,
                         from.table, to.db, to.table);
  }
  TableSchema t = std::move(it->second);
  tables_.erase(it);
  t.db = to.db;
  t.table = to.table;
  SchemaChange c;
  c.db = to.db;
  c.table = to.table;
  c.old_db = from.db;
  c.old_table = from.table;
  c.after = t;
  if (from_selected && to_selected) {
    c.kind = SchemaChangeKind::kRenameTable;
    out.push_back(std::move(c));
  } else if (to_selected) {
    c.kind = SchemaChangeKind::kCreateTable;
    out.push_back(std::move(c));
  } else if (from_selected) {
    c.kind = SchemaChangeKind::kDropTable;
    c.db = from.db;
    c.table = from.table;
    c.old_db.clear();
    c.old_table.clear();
    out.push_back(std::move(c));
  }
  tables_[KeyOf(to.db, to.table)] = std::move(t);
  return Ok();
}

namespace {

// One ALTER TABLE applied to a copy of a table's schema: the schema as the
// alterations change it and the changes they make, in order.
struct AlterState {
  TableSchema t;
  std::string name;  // db.table, for messages
  std::vector<SchemaChange> changes;

  void ColumnChange(SchemaChangeKind kind, const std::string& column,
                    const std::string& old_column) {
    SchemaChange c = TableChange(kind, t.db, t.table, t);
    c.column = column;
    c.old_column = old_column;
    if (kind != SchemaChangeKind::kDropColumn) {
      int i = t.FindColumnIndex(column);
      c.position = i;
      c.after_column = i > 0 ? t.columns[static_cast<size_t>(i - 1)].name : "";
    }
    changes.push_back(std::move(c));
  }

  void PrimaryKeyChange(std::vector<std::string> old_pk) {
    SchemaChange c = TableChange(SchemaChangeKind::kPrimaryKeyChange, t.db, t.table, t);
    c.old_primary_key = std::move(old_pk);
    changes.push_back(std::move(c));
  }

  void TableOptionsChange() {
    changes.push_back(TableChange(SchemaChangeKind::kAlterOther, t.db, t.table, t));
  }

  // A column's inline PRIMARY KEY (ADD/MODIFY/CHANGE ... PRIMARY KEY).
  Status SetInlinePrimaryKey(const std::string& column) {
    if (!t.primary_key.empty()) {
      return InvalidArgument("ALTER TABLE {}: multiple primary keys defined", name);
    }
    auto old_pk = t.primary_key;
    t.primary_key = {column};
    KeyColumnsNotNull(t);
    PrimaryKeyChange(std::move(old_pk));
    return Ok();
  }
};

// The index of column `a.name` for ALTER TABLE ... `clause` COLUMN; -1 when
// it is missing and the clause says IF EXISTS (nothing to do). Errors:
// kNotFound when it is missing otherwise.
Result<int> ColumnToAlter(const AlterAction& a, const AlterState& s, std::string_view clause) {
  int i = s.t.FindColumnIndex(a.name);
  if (i < 0 && !a.if_exists) {
    return NotFound("ALTER TABLE {} {} COLUMN {}: no such column", s.name, clause, a.name);
  }
  return i;
}

Status AlterAddColumn(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  if (t.FindColumn(a.column.name) != nullptr) {
    if (a.if_not_exists) return Ok();
    return AlreadyExists("ALTER TABLE {} ADD COLUMN {}: the column exists", s.name, a.column.name);
  }
  Status error = Ok();
  int index = PositionIndex(t, a.position, static_cast<int>(t.columns.size()), &error);
  FLOE_RETURN_IF_ERROR(error);
  ColumnDef c = a.column;
  ResolveTextLength(c, t.charset);
  c.field_id = ++t.last_field_id;
  t.columns.insert(t.columns.begin() + index, std::move(c));
  s.ColumnChange(SchemaChangeKind::kAddColumn, a.column.name, "");
  if (a.inline_primary_key) FLOE_RETURN_IF_ERROR(s.SetInlinePrimaryKey(a.column.name));
  return Ok();
}

Status AlterDropColumn(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  FLOE_ASSIGN_OR_RETURN(int i, ColumnToAlter(a, s, "DROP"));
  if (i < 0) return Ok();
  std::string dropped = t.columns[static_cast<size_t>(i)].name;
  t.columns.erase(t.columns.begin() + i);
  auto old_pk = t.primary_key;
  ErasePkColumn(t.primary_key, dropped);
  s.ColumnChange(SchemaChangeKind::kDropColumn, dropped, "");
  if (old_pk != t.primary_key) s.PrimaryKeyChange(std::move(old_pk));
  return Ok();
}

// MODIFY and CHANGE: a new definition (and name, position) for a column.
Status AlterModifyColumn(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  FLOE_ASSIGN_OR_RETURN(
      int i, ColumnToAlter(a, s, a.kind == AlterAction::Kind::kChangeColumn ? "CHANGE" : "MODIFY"));
  if (i < 0) return Ok();
  ColumnDef before = t.columns[static_cast<size_t>(i)];
  int other = t.FindColumnIndex(a.column.name);
  if (other >= 0 && other != i) {
    return AlreadyExists("ALTER TABLE {} CHANGE {} {}: column {} exists", s.name, a.name,
                         a.column.name, a.column.name);
  }
  ColumnDef c = a.column;
  ResolveTextLength(c, t.charset);
  c.field_id = before.field_id;
  if (t.IsPrimaryKeyColumn(before.name)) c.nullable = false;
  t.columns.erase(t.columns.begin() + i);
  Status error = Ok();
  int index = PositionIndex(t, a.position, i, &error);
  FLOE_RETURN_IF_ERROR(error);
  t.columns.insert(t.columns.begin() + index, c);
  RenamePkColumn(t.primary_key, before.name, c.name);
  bool renamed = before.name != c.name;
  bool redefined = !before.SameDefinition(c) || index != i;
  if (renamed && !redefined) {
    s.ColumnChange(SchemaChangeKind::kRenameColumn, c.name, before.name);
  } else if (redefined) {
    s.ColumnChange(SchemaChangeKind::kModifyColumn, c.name, renamed ? before.name : "");
  }
  if (a.inline_primary_key) FLOE_RETURN_IF_ERROR(s.SetInlinePrimaryKey(c.name));
  return Ok();
}

Status AlterRenameColumn(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  FLOE_ASSIGN_OR_RETURN(int i, ColumnToAlter(a, s, "RENAME"));
  if (i < 0) return Ok();
  int other = t.FindColumnIndex(a.new_name);
  if (other >= 0 && other != i) {
    return AlreadyExists("ALTER TABLE {} RENAME COLUMN {} TO {}: the column exists", s.name, a.name,
                         a.new_name);
  }
  ColumnDef& c = t.columns[static_cast<size_t>(i)];
  std::string old = c.name;
  c.name = a.new_name;
  RenamePkColumn(t.primary_key, old, a.new_name);
  if (old != a.new_name) s.ColumnChange(SchemaChangeKind::kRenameColumn, a.new_name, old);
  return Ok();
}

// ALTER COLUMN: SET DEFAULT, DROP DEFAULT, SET [IN]VISIBLE.
Status AlterColumnAttribute(const AlterAction& a, AlterState& s) {
  FLOE_ASSIGN_OR_RETURN(int i, ColumnToAlter(a, s, "ALTER"));
  if (i < 0) return Ok();
  ColumnDef* c = &s.t.columns[static_cast<size_t>(i)];
  ColumnDef before = *c;
  if (a.kind == AlterAction::Kind::kSetDefault) {
    c->default_value = a.column.default_value;
    c->default_is_expression = a.column.default_is_expression;
  } else if (a.kind == AlterAction::Kind::kDropDefault) {
    c->default_value.reset();
    c->default_is_expression = false;
  } else {
    c->invisible = a.column.invisible;
  }
  if (!(before == *c)) s.ColumnChange(SchemaChangeKind::kModifyColumn, c->name, "");
  return Ok();
}

Status AlterAddPrimaryKey(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  if (!t.primary_key.empty()) {
    return InvalidArgument("ALTER TABLE {} ADD PRIMARY KEY: multiple primary keys defined", s.name);
  }
  std::vector<std::string> key;
  for (const auto& k : a.key_columns) {
    const ColumnDef* c = t.FindColumn(k);
    if (c == nullptr) return NotFound("ALTER TABLE {} ADD PRIMARY KEY: no column {}", s.name, k);
    key.push_back(c->name);
  }
  auto old_pk = t.primary_key;
  t.primary_key = std::move(key);
  KeyColumnsNotNull(t);
  s.PrimaryKeyChange(std::move(old_pk));
  return Ok();
}

Status AlterDropPrimaryKey(AlterState& s) {
  if (s.t.primary_key.empty()) {
    return NotFound("ALTER TABLE {} DROP PRIMARY KEY: the table has no primary key", s.name);
  }
  auto old_pk = s.t.primary_key;
  s.t.primary_key.clear();
  s.PrimaryKeyChange(std::move(old_pk));
  return Ok();
}

// CONVERT TO CHARACTER SET: the table's and every character column's charset.
void AlterConvertCharset(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  std::string old_table_charset = t.charset;
  t.charset = a.charset;
  t.collation = a.collation;
  for (auto& c : t.columns) {
    // The server keeps the character capacity of TEXT columns: a TEXT in
    // latin1 (65,535 chars) becomes a MEDIUMTEXT in utf8mb4.
    int64_t capacity = c.type == MysqlType::kTinyText     ? 255
                       : c.type == MysqlType::kText       ? 65535
                       : c.type == MysqlType::kMediumText ? 16777215
                                                          : 0;
    if (capacity > 0) {
      std::string_view from =
          c.charset.empty() ? std::string_view(old_table_charset) : std::string_view(c.charset);
      int64_t chars = capacity / MaxBytesPerChar(from);
      ColumnDef sized = c;
      sized.type = MysqlType::kText;
      sized.length = chars;
      sized.charset = a.charset;
      ResolveTextLength(sized, a.charset);
      if (sized.type > c.type) c.type = sized.type;
    }
    if (IsTextType(c.type) || c.type == MysqlType::kEnum || c.type == MysqlType::kSet) {
      c.charset = a.charset;
      c.collation = a.collation;
    }
  }
  s.TableOptionsChange();
}

// [DEFAULT] CHARACTER SET, COLLATE, COMMENT, ENGINE.
void AlterTableOptions(const AlterAction& a, AlterState& s) {
  TableSchema& t = s.t;
  TableSchema before = t;
  if (!a.charset.empty()) {
    t.charset = a.charset;
    t.collation = a.collation;
  }
  if (!a.collation.empty()) t.collation = a.collation;
  if (a.comment) t.comment = *a.comment;
  if (!a.engine.empty()) t.engine = a.engine;
  if (!(before == t)) s.TableOptionsChange();
}

// Applies one alteration to `s`, except RENAME TO (the caller's).
Status ApplyAlterAction(const AlterAction& a, AlterState& s) {
  switch (a.kind) {
    case AlterAction::Kind::kAddColumn:
      return AlterAddColumn(a, s);
    case AlterAction::Kind::kDropColumn:
      return AlterDropColumn(a, s);
    case AlterAction::Kind::kModifyColumn:
    case AlterAction::Kind::kChangeColumn:
      return AlterModifyColumn(a, s);
    case AlterAction::Kind::kRenameColumn:
      return AlterRenameColumn(a, s);
    case AlterAction::Kind::kSetDefault:
    case AlterAction::Kind::kDropDefault:
    case AlterAction::Kind::kSetVisibility:
      return AlterColumnAttribute(a, s);
    case AlterAction::Kind::kAddPrimaryKey:
      return AlterAddPrimaryKey(a, s);
    case AlterAction::Kind::kDropPrimaryKey:
      return AlterDropPrimaryKey(s);
    case AlterAction::Kind::kConvertCharset:
      AlterConvertCharset(a, s);
      return Ok();
    case AlterAction::Kind::kTableOptions:
      AlterTableOptions(a, s);
      return Ok();
    case AlterAction::Kind::kRenameTable:
    case AlterAction::Kind::kIgnored:
      return Ok();
  }
  return Ok();
}

}  // namespace

Status SchemaTracker::ApplyAlter(const DdlStatement& st, std::string_view default_db,
                                 std::vector<SchemaChange>& out) {
  TableRef ref = Resolve(st.table, default_db);
  bool selected = IsSelected(ref.db, ref.table);
  auto it = tables_.find(KeyOf(ref.db, ref.table));
  if (it == tables_.end()) {
    if (!selected || st.if_exists) return Ok();
    bool changes_columns = false;
    for (const auto& a : st.actions) {
      if (a.kind != AlterAction::Kind::kIgnored) changes_columns = true;
    }
    if (!changes_columns) return Ok();
    return NotFound(
        "ALTER TABLE {}.{}: the table's schema is unknown; read it from "
        "information_schema",
        ref.db, ref.table);
  }
  AlterState s;
  s.t = it->second;
  s.name = s.t.QualifiedName();
  std::optional<TableRef> rename_to;
  for (const AlterAction& a : st.actions) {
    if (a.kind == AlterAction::Kind::kRenameTable) rename_to = Resolve(a.new_table, s.t.db);
    FLOE_RETURN_IF_ERROR(ApplyAlterAction(a, s));
  }
  it->second = s.t;
  if (selected) {
    for (auto& c : s.changes) out.push_back(std::move(c));
  }
  if (rename_to) {
    FLOE_RETURN_IF_ERROR(ApplyRename(ref, *rename_to, out));
  }
  return Ok();
}

}  // namespace floe::cdc::mysql
