#include "floe/cdc/postgres/change_stream.h"

#include <algorithm>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/cdc/postgres/row_errors.h"
#include "floe/cdc/postgres/type_mapping.h"
#include "floe/cdc/postgres/wire_reader.h"

namespace floe::cdc::postgres {

SourcePosition PositionOfLsn(Lsn lsn) {
  SourcePosition p;
  p.binlog.file = std::string(kLsnPositionFile);
  p.binlog.pos = lsn.value;
  return p;
}

std::optional<Lsn> LsnOfPosition(const BinlogFilePos& position) {
  if (position.file != kLsnPositionFile) return std::nullopt;
  return Lsn{position.pos};
}

namespace {

/// The source of changes read outside a transaction (snapshot rows, what
/// the catalog tells), at `position` and now.
std::shared_ptr<ChangeSource> SourceNow(Lsn position) {
  auto source = std::make_shared<ChangeSource>();
  source->position = PositionOfLsn(position);
  source->ts_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  return source;
}

}  // namespace

void ChangeBatchAssembler::NumberUnknownColumns(const std::vector<CatalogColumn>* catalog,
                                                const Relation* before,
                                                std::vector<Column>& columns) {
  auto taken = [&columns](int attnum) {
    return std::any_of(columns.begin(), columns.end(),
                       [attnum](const Column& c) { return c.attnum == attnum; });
  };
  // 1. The relation's previous message had the column under this name.
  if (before != nullptr) {
    for (Column& col : columns) {
      if (col.attnum != 0) continue;
      for (const Column& known : before->columns) {
        if (known.name == col.name && known.attnum != 0 && !taken(known.attnum)) {
          col.attnum = known.attnum;
          col.not_null = known.not_null;
          col.key_position = known.key_position;
          break;
        }
      }
    }
  }
  // 2. pgoutput lists the columns by attribute number, and every column
  // numbered below a column of the message existed when the message was
  // written, so it is in the message. Between two numbered columns of the
  // message, the catalog columns that no column of the message names are
  // the unnumbered columns there, renamed since; when both counts are equal
  // they pair up in order. (Past the last numbered column the catalog may
  // have columns added later: left unknown.)
  if (catalog == nullptr) return;
  auto named = [&columns](const std::string& name) {
    return std::any_of(columns.begin(), columns.end(),
                       [&name](const Column& c) { return c.name == name; });
  };
  int low = 0;  // the attribute number of the last numbered column
  size_t gap_start = 0;
  for (size_t j = 0; j < columns.size(); ++j) {
    if (columns[j].attnum == 0) continue;
    const int high = columns[j].attnum;
    std::vector<int> candidates;
    for (const CatalogColumn& c : *catalog) {
      if (c.attnum > low && c.attnum < high && !named(c.name) && !taken(c.attnum)) {
        candidates.push_back(c.attnum);
      }
    }
    if (candidates.size() == j - gap_start) {
      for (size_t k = gap_start; k < j; ++k) {
        columns[k].attnum = candidates[k - gap_start];
        for (const CatalogColumn& c : *catalog) {
          if (c.attnum != columns[k].attnum) continue;
          columns[k].not_null = c.not_null;
          columns[k].key_position = c.key_position;
        }
      }
    }
    low = high;
    gap_start = j + 1;
  }
}

ChangeBatchAssembler::ChangeBatchAssembler(PgoutputVersion version, Options options)
    : version_(version),
      options_(std::move(options)),
      transactions_(version),
      domains_(options_.resolve_type) {}

void ChangeBatchAssembler::BuildDefinition(Relation& rel) {
  auto def = std::make_shared<TableDefinition>();
  def->id = {rel.schema, rel.name};
  def->version = ++definition_version_;
  std::vector<types::NestedField> fields;
  std::vector<std::pair<int, std::string>> key;
  std::vector<int32_t> identifiers;
  int32_t next_id = static_cast<int32_t>(rel.columns.size()) + 1;  // list elements after columns
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    const Column& c = rel.columns[i];
    const int32_t id = static_cast<int32_t>(i) + 1;
    SourceColumn sc;
    sc.name = c.name;
    sc.type_name = std::to_string(c.type_oid);
    sc.nullable = !c.not_null && c.key_position == 0;
    def->columns.push_back(std::move(sc));
    fields.push_back(types::NestedField{id, c.name, c.key_position > 0,
                                        IcebergTypeOf(c.type_oid, c.type_modifier, &next_id), ""});
    if (c.key_position > 0) {
      key.emplace_back(c.key_position, c.name);
      identifiers.push_back(id);
    }
  }
  std::sort(key.begin(), key.end());
  for (auto& [position, name] : key) def->primary_key.push_back(std::move(name));
  def->schema = types::Schema(std::move(fields), 0, std::move(identifiers));
  rel.definition = std::move(def);
}

Status ChangeBatchAssembler::OnRelation(const RelationMessage& m, Lsn lsn) {
  Relation rel;
  rel.schema = m.namespace_name;
  rel.name = m.name;
  rel.identity = m.replica_identity;
  std::optional<std::vector<CatalogColumn>> catalog;
  if (options_.describe) catalog = options_.describe(m.relation_id);
  bool catalog_key = false;
  for (const RelationColumn& c : m.columns) {
    Column col;
    col.name = c.name;
    std::tie(col.type_oid, col.type_modifier) = domains_.Resolve(c.type_oid, c.type_modifier);
    col.key = c.is_key();
    if (catalog) {
      for (const CatalogColumn& known : *catalog) {
        if (known.name != col.name) continue;
        col.attnum = known.attnum;
        col.not_null = known.not_null;
        col.key_position = known.key_position;
        if (known.key_position > 0) catalog_key = true;
      }
    }
    rel.columns.push_back(std::move(col));
  }
  auto known = relations_.find(m.relation_id);
  NumberUnknownColumns(catalog ? &*catalog : nullptr,
                       known != relations_.end() ? &known->second : nullptr, rel.columns);
  if (std::any_of(rel.columns.begin(), rel.columns.end(),
                  [](const Column& c) { return c.key_position > 0; })) {
    catalog_key = true;
  }
  // Without a primary key in the catalog, the replica identity's key flags
  // name the key (an index identity); REPLICA IDENTITY FULL flags every
  // column, which is no key.
  if (!catalog_key &&
      (rel.identity == ReplicaIdentity::kDefault || rel.identity == ReplicaIdentity::kIndex)) {
    int position = 0;
    for (Column& col : rel.columns) {
      if (col.key) col.key_position = ++position;
    }
  }
  if (options_.selector) rel.selected = options_.selector(rel.schema, rel.name);
  if (open_) rel.described_at = LsnOfPosition(open_->source->position.binlog).value_or(Lsn{});
  BuildDefinition(rel);
  if (rel.selected && open_) LocateNameHolders(m.relation_id, rel);
  auto it = relations_.find(m.relation_id);
  if (it != relations_.end() && rel.selected && open_) DiffRelations(it->second, rel);
  if (it != relations_.end() && it->second.selected && !rel.selected && open_) {
    const Relation& before = it->second;
    ChangesOf(TableId{before.schema, before.name})
        .emplace_back(LeavesThePipeline(before, rel, open_->source));
  }
  (void)lsn;
  relations_[m.relation_id] = std::move(rel);
  ++relations_generation_;
  return Ok();
}

void ChangeBatchAssembler::DiffRelations(const Relation& before, const Relation& after) {
  using Kind = SchemaChangeKind;
  const TableId table{after.schema, after.name};
  std::vector<SchemaChange> changes;
  auto change = [&](Kind kind) {
    SchemaChange c;
    c.kind = kind;
    c.table = table;
    c.table_after = after.definition;
    c.ddl = fmt::format("a Relation message of {}.{} that differs from the one before",
                        after.schema, after.name);
    c.database = after.schema;
    c.source = open_->source;
    return c;
  };
  if (before.schema != after.schema || before.name != after.name) {
    SchemaChange c = change(Kind::kRenameTable);
    c.old_table = {before.schema, before.name};
    c.ddl = fmt::format("ALTER TABLE {}.{} RENAME TO {} (seen in a Relation message)",
                        before.schema, before.name, after.name);
    changes.push_back(std::move(c));
    catalog_check_wanted_ = true;
  }
  // Columns are the same column when their attribute numbers are equal (a
  // rename keeps it), or by name when either number is unknown.
  auto same = [](const Column& a, const Column& b) {
    if (a.attnum != 0 && b.attnum != 0) return a.attnum == b.attnum;
    return a.name == b.name;
  };
  std::vector<bool> matched(before.columns.size(), false);
  std::vector<SchemaChange> later;
  for (size_t j = 0; j < after.columns.size(); ++j) {
    const Column& b = after.columns[j];
    size_t i = 0;
    while (i < before.columns.size() && (matched[i] || !same(before.columns[i], b))) ++i;
    if (i == before.columns.size()) {
      SchemaChange c = change(Kind::kAddColumn);
      c.column = b.name;
      c.position = static_cast<int>(j);
      later.push_back(std::move(c));
      continue;
    }
    matched[i] = true;
    const Column& a = before.columns[i];
    if (a.name != b.name) {
      SchemaChange c = change(Kind::kRenameColumn);
      c.column = b.name;
      c.old_column = a.name;
      c.position = static_cast<int>(j);
      later.push_back(std::move(c));
    }
    if (a.type_oid != b.type_oid || a.type_modifier != b.type_modifier) {
      SchemaChange c = change(Kind::kModifyColumn);
      c.column = b.name;
      c.position = static_cast<int>(j);
      later.push_back(std::move(c));
    }
  }
  for (size_t i = 0; i < before.columns.size(); ++i) {
    if (matched[i]) continue;
    SchemaChange c = change(Kind::kDropColumn);
    c.column = before.columns[i].name;
    changes.push_back(std::move(c));
  }
  for (auto& c : later) changes.push_back(std::move(c));
  if (before.definition && before.definition->primary_key != after.definition->primary_key) {
    changes.push_back(change(Kind::kPrimaryKeyChange));
  }
  if (changes.empty()) return;
  auto& target = ChangesOf(TableId{before.schema, before.name});
  for (auto& c : changes) target.emplace_back(std::move(c));
}

std::vector<ChangeEvent>& ChangeBatchAssembler::ChangesOf(const TableId& table) {
  // Before the transaction's first row of the table (so that, as a DDL of
  // MySQL is a transaction of its own, the change can wait for the rows
  // before it to be committed); in place when rows of it came already.
  const bool in_place =
      std::find_if(open_->rows.begin(), open_->rows.end(), [&](const ChangeEvent& e) {
        const auto* row = std::get_if<RowChange>(&e);
        return row != nullptr && row->table->id == table;
      }) != open_->rows.end();
  return in_place ? open_->rows : open_->front;
}

std::vector<uint32_t> ChangeBatchAssembler::SelectedRelations() const {
  std::vector<uint32_t> ids;
  for (const auto& [id, rel] : relations_) {
    if (rel.selected) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

void ChangeBatchAssembler::CatalogChanges(const CatalogReading& reading,
                                          const std::shared_ptr<const ChangeSource>& source,
                                          std::vector<ChangeEvent>& out) {
  for (uint32_t id : reading.relation_ids) {
    auto it = relations_.find(id);
    if (it == relations_.end() || !it->second.selected) continue;
    const Relation& known = it->second;
    if (reading.started_at && known.described_at > *reading.started_at) continue;
    SchemaChange c;
    c.table = {known.schema, known.name};
    c.database = known.schema;
    c.source = source;
    auto now = reading.tables.find(id);
    if (now == reading.tables.end()) {
      c.kind = SchemaChangeKind::kDropTable;
      c.ddl = fmt::format("DROP TABLE {}.{} (relation {} is gone from pg_class)", known.schema,
                          known.name, id);
      relations_.erase(it);
      ++relations_generation_;
      out.emplace_back(std::move(c));
      continue;
    }
    if (now->second == c.table) continue;
    Relation renamed = known;
    renamed.schema = now->second.db;
    renamed.name = now->second.table;
    if (options_.selector) renamed.selected = options_.selector(renamed.schema, renamed.name);
    BuildDefinition(renamed);
    if (renamed.selected) {
      c.kind = SchemaChangeKind::kRenameTable;
      c.old_table = c.table;
      c.table = now->second;
      c.table_after = renamed.definition;
      c.ddl = fmt::format("ALTER TABLE {}.{} RENAME TO {}.{} (read from pg_class: relation {})",
                          known.schema, known.name, renamed.schema, renamed.name, id);
      out.emplace_back(std::move(c));
    } else {
      out.emplace_back(LeavesThePipeline(known, renamed, source));
    }
    it->second = std::move(renamed);
    ++relations_generation_;
  }
}

SchemaChange ChangeBatchAssembler::LeavesThePipeline(
    const Relation& before, const Relation& after,
    const std::shared_ptr<const ChangeSource>& source) {
  spdlog::warn(
      "postgres: {}.{} was renamed to {}.{}, which the pipeline's tables do not select: it "
      "leaves the pipeline, handled as DROP TABLE {}.{} (schema.change.behavior: lenient keeps "
      "its sink table, evolve drops it, exception stops the run)",
      before.schema, before.name, after.schema, after.name, before.schema, before.name);
  SchemaChange c;
  c.kind = SchemaChangeKind::kDropTable;
  c.table = {before.schema, before.name};
  c.database = before.schema;
  c.source = source;
  c.ddl = fmt::format("ALTER TABLE {}.{} RENAME TO {}.{} (out of the pipeline's tables)",
                      before.schema, before.name, after.schema, after.name);
  return c;
}

void ChangeBatchAssembler::LocateNameHolders(uint32_t relation_id, const Relation& rel) {
  if (!options_.locate) return;
  std::vector<uint32_t> holders;
  for (const auto& [id, known] : relations_) {
    if (id != relation_id && known.selected && known.schema == rel.schema &&
        known.name == rel.name) {
      holders.push_back(id);
    }
  }
  if (holders.empty()) return;
  // The name is another relation's now, so what held it was renamed or
  // dropped before this point of the stream; the catalog tells which.
  std::optional<CatalogReading> reading = options_.locate(holders);
  if (!reading) return;
  CatalogChanges(*reading, open_->source, ChangesOf(TableId{rel.schema, rel.name}));
}

Status ChangeBatchAssembler::ApplyCatalog(const CatalogReading& reading, Lsn resume,
                                          const Sink& sink) {
  std::vector<ChangeEvent> changes;
  auto source = SourceNow(resume);
  CatalogChanges(reading, source, changes);
  if (changes.empty()) return Ok();
  batch_.Clear();
  batch_.events = std::move(changes);
  batch_.ends_transaction = true;
  batch_.resume = PositionOfLsn(resume);
  return sink(batch_);
}

Result<types::Row> ChangeBatchAssembler::ReadRow(const Relation& rel, const TupleData& tuple,
                                                 const TupleData* old, bool before_image, Lsn lsn) {
  FLOE_RETURN_IF_ERROR(CheckRowWidth(rel.schema, rel.name, lsn, tuple, old, rel.columns.size()));
  values_.assign(rel.columns.size(), types::Value::Null());
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    const Column& col = rel.columns[i];
    const ColumnValue* cv = &tuple.columns[i];
    if (cv->kind == ColumnValue::Kind::kUnchangedToast) {
      if (before_image) continue;  // an old row's value that only the key needs: null
      if (old && old->columns[i].kind == ColumnValue::Kind::kText) {
        cv = &old->columns[i];
      } else {
        return UnchangedToastWithoutOldRow(rel.schema, rel.name, col.name, lsn);
      }
    }
    switch (cv->kind) {
      case ColumnValue::Kind::kNull:
      case ColumnValue::Kind::kUnchangedToast:
        break;
      case ColumnValue::Kind::kText: {
        auto v = ParseTextValue(col.type_oid, col.type_modifier, cv->data, batch_.arena.get());
        if (!v) return UnreadableValue(rel.schema, rel.name, col.name, lsn, v.error());
        values_[i] = *v;
        break;
      }
      case ColumnValue::Kind::kBinary:
        return BinaryValue(rel.schema, rel.name, col.name, lsn);
    }
  }
  // The values' bytes are in the batch's arena already; the row itself goes there too.
  auto* stored = static_cast<types::Value*>(
      batch_.arena->Allocate(sizeof(types::Value) * values_.size(), alignof(types::Value)));
  std::copy(values_.begin(), values_.end(), stored);
  return types::Row(stored, values_.size());
}

void ChangeBatchAssembler::AddRow(uint32_t relation_id, const Relation& rel, ChangeOp op,
                                  types::Row before, types::Row after) {
  (void)relation_id;
  RowChange row;
  row.op = op;
  row.table = rel.definition;
  row.before = before;
  row.after = after;
  row.source = open_->source;
  open_->rows.emplace_back(std::move(row));
}

Status ChangeBatchAssembler::Handle(const PgoutputMessage& message, Lsn lsn) {
  if (const auto* m = std::get_if<RelationMessage>(&message)) {
    return OnRelation(*m, lsn);
  }
  if (const auto* m = std::get_if<InsertMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Insert", lsn));
    if (!rel->selected) return Ok();
    FLOE_ASSIGN_OR_RETURN(types::Row after, ReadRow(*rel, m->new_tuple, nullptr, false, lsn));
    AddRow(m->relation_id, *rel, ChangeOp::kInsert, {}, after);
  } else if (const auto* m = std::get_if<UpdateMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Update", lsn));
    if (!rel->selected) return Ok();
    const TupleData* old = m->old_kind == OldTupleKind::kNone ? nullptr : &m->old_tuple;
    types::Row before;
    if (old) {
      FLOE_ASSIGN_OR_RETURN(before, ReadRow(*rel, *old, nullptr, true, lsn));
    }
    const TupleData* full_old = m->old_kind == OldTupleKind::kOld ? old : nullptr;
    FLOE_ASSIGN_OR_RETURN(types::Row after, ReadRow(*rel, m->new_tuple, full_old, false, lsn));
    AddRow(m->relation_id, *rel, ChangeOp::kUpdate, before, after);
  } else if (const auto* m = std::get_if<DeleteMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Delete", lsn));
    if (!rel->selected) return Ok();
    FLOE_ASSIGN_OR_RETURN(types::Row before, ReadRow(*rel, m->old_tuple, nullptr, true, lsn));
    AddRow(m->relation_id, *rel, ChangeOp::kDelete, before, {});
  } else if (const auto* m = std::get_if<TruncateMessage>(&message)) {
    for (uint32_t id : m->relation_ids) {
      FLOE_ASSIGN_OR_RETURN(const Relation* rel, FindRelation(relations_, id, "Truncate", lsn));
      if (!rel->selected) continue;
      SchemaChange c;
      c.kind = SchemaChangeKind::kTruncateTable;
      c.table = {rel->schema, rel->name};
      c.table_after = rel->definition;
      c.ddl = fmt::format("TRUNCATE {}.{}", rel->schema, rel->name);
      c.database = rel->schema;
      c.source = open_->source;
      open_->rows.emplace_back(std::move(c));
    }
  }
  // Type, Origin and logical messages carry no row.
  return Ok();
}

ChangeBatchAssembler::Open ChangeBatchAssembler::Begin(uint32_t xid, Lsn commit_lsn,
                                                       int64_t commit_time) {
  batch_.Clear();
  Open open;
  open.xid = xid;
  auto source = std::make_shared<ChangeSource>();
  source->position = PositionOfLsn(commit_lsn);
  source->transaction_id = std::to_string(xid);
  source->ts_ms = PostgresTimeToUnixMicros(commit_time) / 1000;
  open.source = std::move(source);
  return open;
}

Status ChangeBatchAssembler::Finish(Lsn end_lsn, const Sink& sink) {
  Open open = std::move(*open_);
  open_.reset();
  if (end_lsn <= skip_through_) {  // handed on before the restart: sent again by the slot
    batch_.Clear();
    return Ok();
  }
  batch_.events.clear();
  batch_.events.reserve(open.front.size() + open.rows.size());
  for (auto& e : open.front) batch_.events.push_back(std::move(e));
  for (auto& e : open.rows) batch_.events.push_back(std::move(e));
  batch_.ends_transaction = true;
  batch_.resume = PositionOfLsn(end_lsn);
  return sink(batch_);
}

Status ChangeBatchAssembler::Feed(Lsn wal_start, std::string_view bytes, const Sink& sink) {
  FLOE_ASSIGN_OR_RETURN(const PgoutputMessage* message, transactions_.Next(wal_start, bytes));
  if (message == nullptr) return Ok();
  if (const auto* m = std::get_if<BeginMessage>(message)) {
    open_ = Begin(m->xid, m->final_lsn, m->commit_time);
    return Ok();
  }
  if (const auto* m = std::get_if<StreamCommitMessage>(message)) {
    open_ = Begin(m->xid, m->commit_lsn, m->commit_time);
    FLOE_RETURN_IF_ERROR(transactions_.CommitStream(
        m->xid, [this](const PgoutputMessage& held, Lsn lsn) { return Handle(held, lsn); }));
    return Finish(m->end_lsn, sink);
  }
  if (!open_) return OutsideTransaction(*message, wal_start);
  if (const auto* m = std::get_if<CommitMessage>(message)) return Finish(m->end_lsn, sink);
  return Handle(*message, wal_start);
}

void ChangeBatchAssembler::Restart(Lsn resume) {
  open_.reset();
  transactions_.Reset();
  batch_.Clear();
  skip_through_ = std::max(skip_through_, resume);
}

Status ChangeBatchAssembler::SnapshotRelation(const RelationMessage& m) {
  return OnRelation(m, Lsn{});
}

Status ChangeBatchAssembler::SnapshotRows(uint32_t relation_id, std::span<const TupleData> rows,
                                          Lsn consistent_point, const Sink& sink) {
  FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                        FindRelation(relations_, relation_id, "a snapshot row", consistent_point));
  batch_.Clear();
  auto source = SourceNow(consistent_point);
  source->snapshot = "true";
  for (const TupleData& tuple : rows) {
    FLOE_ASSIGN_OR_RETURN(types::Row after, ReadRow(*rel, tuple, nullptr, false, consistent_point));
    RowChange row;
    row.op = ChangeOp::kRead;
    row.table = rel->definition;
    row.after = after;
    row.source = source;
    batch_.events.emplace_back(std::move(row));
  }
  batch_.ends_transaction = false;
  return sink(batch_);
}

Status ChangeBatchAssembler::SnapshotEnd(Lsn consistent_point, const Sink& sink) {
  batch_.Clear();
  batch_.ends_transaction = true;
  batch_.resume = PositionOfLsn(consistent_point);
  return sink(batch_);
}

std::string ChangeBatchAssembler::RelationsJson() const {
  nlohmann::json list = nlohmann::json::array();
  std::vector<uint32_t> ids;
  for (const auto& [id, rel] : relations_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (uint32_t id : ids) {
    const Relation& rel = relations_.at(id);
    nlohmann::json columns = nlohmann::json::array();
    for (const Column& c : rel.columns) {
      columns.push_back({{"name", c.name},
                         {"type", c.type_oid},
                         {"typmod", c.type_modifier},
                         {"attnum", c.attnum},
                         {"key", c.key},
                         {"not_null", c.not_null},
                         {"key_position", c.key_position}});
    }
    list.push_back({{"id", id},
                    {"schema", rel.schema},
                    {"name", rel.name},
                    {"identity", std::string(1, static_cast<char>(rel.identity))},
                    {"columns", std::move(columns)}});
  }
  return list.dump();
}

Status ChangeBatchAssembler::RestoreRelations(std::string_view text) {
  nlohmann::json list = nlohmann::json::parse(text, nullptr, false);
  if (list.is_discarded() || !list.is_array()) {
    return Corruption("postgres source state: its relations are not a JSON array");
  }
  try {
    for (const auto& r : list) {
      Relation rel;
      rel.schema = r.at("schema").get<std::string>();
      rel.name = r.at("name").get<std::string>();
      std::string identity = r.at("identity").get<std::string>();
      rel.identity = static_cast<ReplicaIdentity>(identity.empty() ? 'd' : identity[0]);
      for (const auto& c : r.at("columns")) {
        Column col;
        col.name = c.at("name").get<std::string>();
        col.type_oid = c.at("type").get<uint32_t>();
        col.type_modifier = c.at("typmod").get<int32_t>();
        col.attnum = c.at("attnum").get<int>();
        col.key = c.at("key").get<bool>();
        col.not_null = c.at("not_null").get<bool>();
        col.key_position = c.at("key_position").get<int>();
        rel.columns.push_back(std::move(col));
      }
      if (options_.selector) rel.selected = options_.selector(rel.schema, rel.name);
      BuildDefinition(rel);
      relations_[r.at("id").get<uint32_t>()] = std::move(rel);
      ++relations_generation_;
    }
  } catch (const nlohmann::json::exception& e) {
    return Corruption("postgres source state: a relation cannot be read: {}", e.what());
  }
  return Ok();
}

// ---------------------------------------------------------------------------

namespace {

std::optional<std::vector<CatalogColumn>> DescribeRelation(ReplicationClient& c,
                                                           uint32_t relation_id) {
  auto rows = c.Query(fmt::format(
      "SELECT a.attname, a.attnum, a.attnotnull, "
      "coalesce((SELECT k.n FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n) "
      "WHERE k.attnum = a.attnum), 0) "
      "FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary "
      "WHERE a.attrelid = {} AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
      "ORDER BY a.attnum",
      relation_id));
  if (!rows) {
    spdlog::warn("postgres: reading the columns of relation {}: {}", relation_id,
                 rows.error().message());
    return std::nullopt;
  }
  std::vector<CatalogColumn> out;
  try {
    for (const auto& r : *rows) {
      CatalogColumn col;
      col.name = r[0].value_or("");
      col.attnum = std::stoi(r[1].value_or("0"));
      col.not_null = r[2].value_or("f") == "t";
      col.key_position = std::stoi(r[3].value_or("0"));
      out.push_back(std::move(col));
    }
  } catch (...) {
    return std::nullopt;
  }
  return out;
}

/// Where `relation_ids` are in the catalog now, and the WAL insert position
/// read after the catalog (no commit the reading shows ends past it).
Result<std::pair<CatalogReading, Lsn>> LocateRelations(ReplicationClient& c,
                                                       std::span<const uint32_t> relation_ids) {
  CatalogReading reading;
  reading.relation_ids.assign(relation_ids.begin(), relation_ids.end());
  std::string list;
  for (uint32_t id : relation_ids) list += (list.empty() ? "" : ",") + std::to_string(id);
  FLOE_ASSIGN_OR_RETURN(
      auto rows, c.Query(fmt::format("SELECT i.oid, n.nspname, c.relname, "
                                     "pg_current_wal_insert_lsn() FROM unnest('{{{}}}'::oid[]) "
                                     "AS i(oid) LEFT JOIN pg_class c ON c.oid = i.oid LEFT JOIN "
                                     "pg_namespace n ON n.oid = c.relnamespace",
                                     list)));
  Lsn after;
  for (const auto& r : rows) {
    if (r.size() < 4 || !r[0] || !r[3]) continue;
    FLOE_ASSIGN_OR_RETURN(Lsn lsn, Lsn::Parse(*r[3]));
    after = std::max(after, lsn);
    if (!r[1] || !r[2]) continue;  // gone
    reading.tables[static_cast<uint32_t>(std::stoul(*r[0]))] = TableId{*r[1], *r[2]};
  }
  return std::make_pair(std::move(reading), after);
}

/// The commit LSN of a pgoutput Begin message (tag, final LSN, ...);
/// nullopt for any other message. Read before the decoder sees it.
std::optional<Lsn> BeginCommitLsn(std::string_view message) {
  internal::WireReader reader(message);
  uint8_t tag = 0;
  uint64_t lsn = 0;
  if (!reader.U8(&tag) || tag != 'B' || !reader.U64(&lsn)) return std::nullopt;
  return Lsn{lsn};
}

Result<Lsn> WalInsertLsn(ReplicationClient& c) {
  FLOE_ASSIGN_OR_RETURN(auto rows, c.Query("SELECT pg_current_wal_insert_lsn()"));
  if (rows.size() != 1 || rows[0].size() != 1 || !rows[0][0]) {
    return IoError("pg_current_wal_insert_lsn() returned no value");
  }
  return Lsn::Parse(*rows[0][0]);
}

bool IsSlotInUse(const Error& error) {
  return error.code() == ErrorCode::kIo && error.message().find("is in use") != std::string::npos;
}

/// Prepare, waiting up to the connect timeout for a slot that a run killed a
/// moment ago still holds through its walsender (which ends when it notices
/// the closed connection).
Result<SlotInfo> PrepareWaiting(ReplicationClient& c) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(std::max(1, c.options().connect_timeout_seconds));
  Result<SlotInfo> prepared = c.Prepare();
  while (!prepared && IsSlotInUse(prepared.error()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    prepared = c.Prepare();
  }
  return prepared;
}

}  // namespace

Result<std::unique_ptr<PostgresChangeStream>> PostgresChangeStream::Open(
    ChangeStreamOptions options) {
  auto stream = std::unique_ptr<PostgresChangeStream>(new PostgresChangeStream());
  stream->options_ = std::move(options);
  const ChangeStreamOptions& o = stream->options_;
  if (!o.initial_state.empty()) {
    nlohmann::json j = nlohmann::json::parse(o.initial_state, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("version", 0) != 1 || !j.contains("lsn") ||
        !j["lsn"].is_number_unsigned()) {
      return Corruption("postgres source state: not a state of this source");
    }
    stream->resume_ = Lsn{j["lsn"].get<uint64_t>()};
    if (auto r = j.find("schemas"); r != j.end()) stream->restored_relations_ = r->dump();
  }
  const bool snapshot = o.snapshot && o.initial_state.empty();
  ReplicationClientOptions client_options = o.client;
  client_options.export_snapshot = snapshot;
  FLOE_ASSIGN_OR_RETURN(stream->client_, ReplicationClient::Connect(client_options));
  stream->client_options_ = client_options;
  stream->client_options_.export_snapshot = false;  // a reconnection streams on
  ReplicationClient& c = *stream->client_;
  FLOE_RETURN_IF_ERROR(
      c.SelectPublicationTables([&o](std::string_view schema, std::string_view table) {
        return !o.selector || o.selector(schema, table);
      }));
  FLOE_ASSIGN_OR_RETURN(SlotInfo slot, PrepareWaiting(c));
  if (snapshot && !slot.created) {
    spdlog::warn(
        "postgres: slot {} exists but the pipeline has no checkpoint: it is dropped and made "
        "again, so that the tables are read in the snapshot it exports",
        c.options().slot);
    FLOE_RETURN_IF_ERROR(c.DropSlot());
    FLOE_ASSIGN_OR_RETURN(slot, c.Prepare());
  }
  if (snapshot) {
    if (slot.snapshot.empty()) {
      return InternalError("slot {} was made without exporting its snapshot", c.options().slot);
    }
    stream->snapshot_ = slot.snapshot;
    stream->consistent_point_ = slot.confirmed_flush_lsn;
  }
  spdlog::info("postgres: slot {} {} at {}", c.options().slot, slot.created ? "created" : "found",
               slot.confirmed_flush_lsn.ToString());
  ChangeBatchAssembler::Options ao;
  ao.selector = o.selector;
  // Through the stream: a reconnection replaces the client.
  PostgresChangeStream* self = stream.get();
  ao.resolve_type = [self](uint32_t oid) { return self->client_->DomainBase(oid); };
  ao.describe = [self](uint32_t id) { return DescribeRelation(*self->client_, id); };
  ao.locate = [self](std::span<const uint32_t> ids) -> std::optional<CatalogReading> {
    auto located = LocateRelations(*self->client_, ids);
    if (!located) {
      spdlog::warn("postgres: locating relations in the catalog: {}", located.error().message());
      return std::nullopt;
    }
    return std::move(located->first);
  };
  stream->assembler_ = std::make_unique<ChangeBatchAssembler>(c.protocol_version(), std::move(ao));
  if (!stream->restored_relations_.empty()) {
    FLOE_RETURN_IF_ERROR(stream->assembler_->RestoreRelations(stream->restored_relations_));
  }
  stream->assembler_->SkipThrough(stream->resume_);
  return stream;
}

std::pair<std::string, std::shared_ptr<const std::string>> PostgresChangeStream::StateParts() {
  if (relations_text_ == nullptr ||
      relations_text_generation_ != assembler_->relations_generation()) {
    relations_text_ = std::make_shared<const std::string>(assembler_->RelationsJson());
    relations_text_generation_ = assembler_->relations_generation();
  }
  nlohmann::json j;
  j["version"] = 1;
  j["lsn"] = current_end_.value;
  j["lsn_text"] = current_end_.ToString();
  return {j.dump(), relations_text_};
}

std::string PostgresChangeStream::StateText() {
  auto [head, relations] = StateParts();
  head.pop_back();  // the closing '}'
  return head + ",\"schemas\":" + *relations + "}";
}

Status PostgresChangeStream::ReadSnapshot(const Sink& sink, const std::atomic<bool>& stop) {
  ReplicationClient& c = *client_;
  auto exec = [&c](const std::string& sql) -> Status {
    auto done = c.Query(sql);
    if (!done) return std::unexpected(std::move(done).error());
    return Ok();
  };
  spdlog::info("postgres: reading the tables in snapshot {} (consistent point {})", snapshot_,
               consistent_point_.ToString());
  FLOE_RETURN_IF_ERROR(exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
  FLOE_RETURN_IF_ERROR(exec("SET TRANSACTION SNAPSHOT " + c.QuoteLiteral(snapshot_)));
  FLOE_ASSIGN_OR_RETURN(
      auto tables,
      c.Query("SELECT c.oid, n.nspname, c.relname, c.relreplident FROM pg_publication_tables p "
              "JOIN pg_namespace n ON n.nspname = p.schemaname JOIN pg_class c ON "
              "c.relnamespace = n.oid AND c.relname = p.tablename WHERE p.pubname = " +
              c.QuoteLiteral(c.options().publication) + " ORDER BY 2, 3"));
  int64_t total = 0;
  for (const auto& t : tables) {
    if (t.size() < 4 || !t[0] || !t[1] || !t[2] || !t[3] || t[3]->empty()) continue;
    const std::string& schema = *t[1];
    const std::string& name = *t[2];
    if (options_.selector && !options_.selector(schema, name)) continue;
    const auto relation_id = static_cast<uint32_t>(std::stoul(*t[0]));
    FLOE_ASSIGN_OR_RETURN(
        auto columns,
        c.Query(fmt::format("SELECT attname, atttypid, atttypmod FROM pg_attribute WHERE attrelid "
                            "= {} AND attnum > 0 AND NOT attisdropped AND attgenerated = '' "
                            "ORDER BY attnum",
                            relation_id)));
    std::vector<std::string> names;
    names.reserve(columns.size());  // the message's views point into them
    std::vector<RelationColumn> described;
    std::string select;
    for (const auto& col : columns) {
      names.push_back(col[0].value_or(""));
      RelationColumn rc;
      rc.name = names.back();
      rc.type_oid = static_cast<uint32_t>(std::stoul(col[1].value_or("0")));
      rc.type_modifier = static_cast<int32_t>(std::stol(col[2].value_or("-1")));
      described.push_back(rc);
      select += (select.empty() ? "" : ", ") + c.QuoteIdentifier(names.back());
    }
    RelationMessage m;
    m.relation_id = relation_id;
    m.namespace_name = schema;
    m.name = name;
    m.replica_identity = static_cast<ReplicaIdentity>((*t[3])[0]);
    m.columns = described;
    FLOE_RETURN_IF_ERROR(assembler_->SnapshotRelation(m));
    if (select.empty()) continue;
    FLOE_RETURN_IF_ERROR(exec("DECLARE floe_snapshot NO SCROLL CURSOR FOR SELECT " + select +
                              " FROM " + c.QuoteIdentifier(schema) + "." +
                              c.QuoteIdentifier(name)));
    const size_t width = names.size();
    std::vector<ColumnValue> values;
    std::vector<TupleData> tuples;
    while (true) {
      if (stop.load()) {
        return Cancelled(
            "stopped during the snapshot: nothing of it was committed; the next run takes it "
            "again");
      }
      FLOE_ASSIGN_OR_RETURN(auto rows, c.Query(fmt::format("FETCH {} FROM floe_snapshot",
                                                           options_.snapshot_fetch_rows)));
      if (rows.empty()) break;
      values.assign(rows.size() * width, ColumnValue{});
      tuples.clear();
      for (size_t r = 0; r < rows.size(); ++r) {
        for (size_t j = 0; j < width && j < rows[r].size(); ++j) {
          ColumnValue& v = values[r * width + j];
          if (rows[r][j]) {
            v.kind = ColumnValue::Kind::kText;
            v.data = *rows[r][j];
          }
        }
        tuples.push_back(TupleData{std::span<const ColumnValue>(&values[r * width], width)});
      }
      FLOE_RETURN_IF_ERROR(assembler_->SnapshotRows(relation_id, tuples, consistent_point_, sink));
      total += static_cast<int64_t>(rows.size());
    }
    FLOE_RETURN_IF_ERROR(exec("CLOSE floe_snapshot"));
  }
  FLOE_RETURN_IF_ERROR(exec("COMMIT"));
  current_end_ = consistent_point_;
  FLOE_RETURN_IF_ERROR(assembler_->SnapshotEnd(consistent_point_, sink));
  resume_ = consistent_point_;
  spdlog::info("postgres: snapshot read ({} rows); streaming from {}", total,
               consistent_point_.ToString());
  return Ok();
}

void PostgresChangeStream::Committed(Lsn lsn) {
  uint64_t seen = committed_.load();
  while (lsn.value > seen && !committed_.compare_exchange_weak(seen, lsn.value)) {
  }
}

Status PostgresChangeStream::Run(const Sink& sink, const std::atomic<bool>& stop) {
  if (!snapshot_.empty()) {
    FLOE_RETURN_IF_ERROR(ReadSnapshot(sink, stop));
    snapshot_.clear();
  }
  // A lost connection (the server restarted, the walsender was ended) is
  // made again a few times, streaming on from the last transaction handed on.
  constexpr int kReconnects = 5;
  int failures = 0;
  while (true) {
    const Lsn before = resume_;
    Status streamed = Stream(sink, stop);
    if (streamed || stop.load() || streamed.error().code() != ErrorCode::kIo) return streamed;
    if (resume_ != before) failures = 0;  // it made progress since the last failure
    if (++failures > kReconnects) return streamed;
    spdlog::warn("postgres: {}; connecting again in {} s ({} of {}), to stream from {}",
                 streamed.error().message(), failures, failures, kReconnects, resume_.ToString());
    for (int i = 0; i < failures * 10 && !stop.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (stop.load()) return Ok();
    if (Status again = Reconnect(); !again) {
      if (again.error().code() != ErrorCode::kIo) return again;
      spdlog::warn("postgres: connecting again failed: {}", again.error().message());
    }
  }
}

Status PostgresChangeStream::Reconnect() {
  client_.reset();
  FLOE_ASSIGN_OR_RETURN(client_, ReplicationClient::Connect(client_options_));
  if (auto prepared = PrepareWaiting(*client_); !prepared) {
    return std::unexpected(std::move(prepared).error());
  }
  assembler_->Restart(resume_);
  return Ok();
}

Status PostgresChangeStream::Stream(const Sink& sink, const std::atomic<bool>& stop) {
  if (client_ == nullptr) return IoError("not connected to the server");
  ReplicationClient& c = *client_;
  if (resume_.valid()) {
    spdlog::info("postgres: streaming slot {} from {} (transactions up to it are passed over)",
                 c.options().slot, resume_.ToString());
  }
  FLOE_RETURN_IF_ERROR(c.StartStreaming(resume_));
  using Clock = std::chrono::steady_clock;
  auto last_change = Clock::now();
  auto on_commit = [&](ChangeBatch& batch) -> Status {
    current_end_ = *LsnOfPosition(batch.resume.binlog);
    FLOE_RETURN_IF_ERROR(sink(batch));
    resume_ = current_end_;
    return Ok();
  };
  Status result = Ok();
  while (!stop.load()) {
    // Only what the caller says is committed is confirmed.
    if (Lsn committed{committed_.load()}; committed > c.flushed()) {
      c.set_flushed(committed);
      if (result = c.SendStatus(); !result) break;
    }
    auto frame = c.Next(std::chrono::milliseconds(200));
    if (!frame) {
      result = std::unexpected(std::move(frame).error());
      break;
    }
    if (!*frame) {
      // Idle: with everything handed on committed and no transaction open,
      // the WAL the server has sent holds nothing more for us.
      if (Clock::now() - last_change >= options_.heartbeat_interval && !assembler_->busy() &&
          Lsn{committed_.load()} >= resume_ && c.server_wal_end() > c.flushed()) {
        c.set_flushed(c.server_wal_end());
        if (result = c.SendStatus(); !result) break;
        last_change = Clock::now();
      }
      if (result = CheckCatalog(c, on_commit, std::nullopt); !result) break;
      continue;
    }
    last_change = Clock::now();
    if (std::optional<Lsn> commit = BeginCommitLsn((*frame)->data)) {
      if (result = CheckCatalog(c, on_commit, commit); !result) break;
    }
    if (result = assembler_->Feed((*frame)->wal_start, (*frame)->data, on_commit); !result) break;
    if (assembler_->TakeCatalogCheckWanted()) next_catalog_check_ = Clock::time_point{};
  }
  return c.SendFinalStatus(std::move(result));
}

Status PostgresChangeStream::CheckCatalog(ReplicationClient& c, const Sink& sink,
                                          std::optional<Lsn> next_commit) {
  const bool at_begin = next_commit.has_value();
  // While idle a held streamed transaction waits for its end; at a Begin the
  // ones held commit after it (a DROP or RENAME waits for the transactions
  // that wrote the table).
  if (!at_begin && assembler_->busy()) return Ok();
  const auto now = std::chrono::steady_clock::now();
  if (pending_catalog_) {
    PendingCatalog& p = *pending_catalog_;
    // Until every transaction committing before the reading's end is handed
    // on, one from before a rename or drop may still come.
    const bool reached = at_begin ? *next_commit >= p.after : c.server_wal_end() >= p.after;
    if (!reached) {
      if (at_begin || now - p.asked < std::chrono::seconds(1)) return Ok();
      p.asked = now;
      return c.SendStatus(/*reply_requested=*/true);
    }
    CatalogReading reading = std::move(p.reading);
    reading.started_at = p.before;
    pending_catalog_.reset();
    return assembler_->ApplyCatalog(reading, resume_, sink);
  }
  if (now < next_catalog_check_) return Ok();
  next_catalog_check_ = now + options_.heartbeat_interval;
  const std::vector<uint32_t> ids = assembler_->SelectedRelations();
  if (ids.empty()) return Ok();
  auto located = [&]() -> Result<PendingCatalog> {
    FLOE_ASSIGN_OR_RETURN(Lsn before, WalInsertLsn(c));
    FLOE_ASSIGN_OR_RETURN(auto reading, LocateRelations(c, ids));
    return PendingCatalog{std::move(reading.first), before, reading.second, now};
  }();
  if (!located) {
    spdlog::warn("postgres: comparing the tables with the catalog: {}", located.error().message());
    return Ok();
  }
  pending_catalog_ = std::move(*located);
  return at_begin ? Ok() : c.SendStatus(/*reply_requested=*/true);
}

}  // namespace floe::cdc::postgres
