// ChangeBatchAssembler: pgoutput messages built by hand in, change batches
// out: rows with their values and positions, schema changes from Relation
// messages that differ (added, dropped and renamed columns, told apart by
// attribute number), TOAST fill-in, truncations, transactions passed over
// after a restart, and the relation cache's state round trip.
#include "floe/cdc/postgres/change_stream.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <span>
#include <string>
#include <vector>

#include "floe/cdc/postgres/tests/pgoutput_builder.h"
#include "floe/cdc/postgres/type_mapping.h"

namespace floe::cdc::postgres {
namespace {

using test_messages::kNull;
using test_messages::kToast;
using test_messages::Msg;
constexpr int64_t kCommitTime = 757'382'400'000'000;  // 2024-01-01 00:00:00 UTC in PG micros

std::string Begin(uint64_t commit_lsn, uint32_t xid) {
  return Msg('B').U64(commit_lsn).U64(kCommitTime).U32(xid).b;
}
std::string Commit(uint64_t commit_lsn, uint64_t end) {
  return Msg('C').U8(0).U64(commit_lsn).U64(end).U64(kCommitTime).b;
}

struct Col {
  std::string name;
  uint32_t oid;
  bool key = false;
};

std::string Relation(uint32_t id, std::string_view table, const std::vector<Col>& cols,
                     char identity = 'd') {
  Msg m('R');
  m.U32(id).Str("public").Str(table).U8(identity).U16(static_cast<uint16_t>(cols.size()));
  for (const auto& c : cols) m.U8(c.key ? 1 : 0).Str(c.name).U32(c.oid).U32(-1);
  return m.b;
}

std::string Insert(uint32_t id, const std::vector<std::string>& row) {
  return Msg('I').U32(id).U8('N').Tuple(row).b;
}

class ChangeStreamTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(); }
  void Make() {
    ChangeBatchAssembler::Options o;
    o.selector = [](std::string_view schema, std::string_view table) {
      return schema == "public" && table != "skipped";
    };
    o.describe = [this](uint32_t) { return catalog; };
    o.locate = [this](std::span<const uint32_t> ids) -> std::optional<CatalogReading> {
      located.insert(located.end(), ids.begin(), ids.end());
      CatalogReading reading;
      reading.relation_ids.assign(ids.begin(), ids.end());
      for (uint32_t id : ids) {
        if (auto it = where.find(id); it != where.end()) reading.tables[id] = it->second;
      }
      return reading;
    };
    assembler = std::make_unique<ChangeBatchAssembler>(PgoutputVersion::kV2, std::move(o));
  }
  /// Keeps every batch in `batches`.
  ChangeBatchAssembler::Sink Keep() {
    return [this](ChangeBatch& batch) {
      batches.push_back(std::move(batch));
      batch = ChangeBatch();
      return Ok();
    };
  }
  Status Feed(const std::string& message) { return assembler->Feed(Lsn{0x1000}, message, Keep()); }
  void FeedAll(const std::vector<std::string>& messages) {
    for (const auto& m : messages) ASSERT_TRUE(Feed(m)) << "message " << m[0];
  }

  Status ApplyCatalog(const std::vector<uint32_t>& ids, Lsn resume) {
    CatalogReading reading;
    reading.relation_ids = ids;
    for (uint32_t id : ids) {
      if (auto it = where.find(id); it != where.end()) reading.tables[id] = it->second;
    }
    return assembler->ApplyCatalog(reading, resume, Keep());
  }

  std::optional<std::vector<CatalogColumn>> catalog;
  /// The catalog as Options::locate and ApplyCatalog see it: relation -> table.
  std::map<uint32_t, TableId> where;
  std::vector<uint32_t> located;
  std::unique_ptr<ChangeBatchAssembler> assembler;
  std::vector<ChangeBatch> batches;
};

TEST_F(ChangeStreamTest, RowsOfATransactionWithTheirValuesAndPositions) {
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"v", 2, false, 0}};
  FeedAll({Begin(0x200, 7), Relation(16384, "t", {{"id", oid::kInt8, true}, {"v", oid::kText}}),
           Insert(16384, {"1", "a"}), Msg('U').U32(16384).U8('N').Tuple({"1", "b"}).b,
           Msg('D').U32(16384).U8('K').Tuple({"1", kNull}).b, Commit(0x200, 0x228)});
  ASSERT_EQ(batches.size(), 1u);
  const ChangeBatch& b = batches[0];
  EXPECT_TRUE(b.ends_transaction);
  EXPECT_EQ(LsnOfPosition(b.resume.binlog), Lsn{0x228});
  ASSERT_EQ(b.events.size(), 3u);
  const auto& insert = std::get<RowChange>(b.events[0]);
  EXPECT_EQ(insert.op, ChangeOp::kInsert);
  EXPECT_EQ(insert.table->id, (TableId{"public", "t"}));
  EXPECT_EQ(insert.table->primary_key, std::vector<std::string>{"id"});
  EXPECT_EQ(insert.after[0].i64, 1);
  EXPECT_EQ(insert.after[1].as_bytes(), "a");
  EXPECT_EQ(LsnOfPosition(insert.source->position.binlog), Lsn{0x200});  // the commit's LSN
  EXPECT_EQ(insert.source->transaction_id, "7");
  EXPECT_EQ(insert.source->ts_ms, 1'704'067'200'000);
  const auto& update = std::get<RowChange>(b.events[1]);
  EXPECT_EQ(update.op, ChangeOp::kUpdate);
  EXPECT_TRUE(update.before.empty());
  EXPECT_EQ(update.after[1].as_bytes(), "b");
  const auto& del = std::get<RowChange>(b.events[2]);
  EXPECT_EQ(del.op, ChangeOp::kDelete);
  EXPECT_EQ(del.before[0].i64, 1);
  EXPECT_TRUE(del.before[1].is_null());
  // Only the key is required in the Iceberg schema.
  EXPECT_TRUE(insert.table->schema.fields()[0].required);
  EXPECT_FALSE(insert.table->schema.fields()[1].required);
}

TEST_F(ChangeStreamTest, ADifferentRelationBecomesSchemaChangesBeforeTheTablesRows) {
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"a", 2, false, 0}, {"b", 3, false, 0}};
  const std::vector<Col> v1 = {{"id", oid::kInt4, true}, {"a", oid::kText}, {"b", oid::kText}};
  FeedAll(
      {Begin(0x100, 1), Relation(1, "t", v1), Insert(1, {"1", "x", "y"}), Commit(0x100, 0x110)});
  // a renamed to a2 (same attnum), b dropped, c added; another table's row comes first.
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"a2", 2, false, 0}, {"c", 4, false, 0}};
  FeedAll({Begin(0x200, 2), Relation(2, "other", {{"k", oid::kInt4, true}}), Insert(2, {"5"}),
           Relation(1, "t", {{"id", oid::kInt4, true}, {"a2", oid::kText}, {"c", oid::kInt8}}),
           Insert(1, {"2", "x", "9"}), Commit(0x200, 0x210)});
  ASSERT_EQ(batches.size(), 2u);
  const auto& events = batches[1].events;
  ASSERT_EQ(events.size(), 5u);
  std::vector<std::pair<SchemaChangeKind, std::string>> changes;
  for (size_t i = 0; i < 3; ++i) {
    const auto* c = std::get_if<SchemaChange>(&events[i]);
    ASSERT_NE(c, nullptr) << "event " << i << " is not a schema change";
    EXPECT_EQ(c->table, (TableId{"public", "t"}));
    ASSERT_TRUE(c->table_after);
    EXPECT_EQ(c->table_after->columns.size(), 3u);
    changes.emplace_back(c->kind, c->column);
    if (c->kind == SchemaChangeKind::kRenameColumn) EXPECT_EQ(c->old_column, "a");
  }
  EXPECT_EQ(changes, (std::vector<std::pair<SchemaChangeKind, std::string>>{
                         {SchemaChangeKind::kDropColumn, "b"},
                         {SchemaChangeKind::kRenameColumn, "a2"},
                         {SchemaChangeKind::kAddColumn, "c"}}));
  EXPECT_EQ(std::get<RowChange>(events[3]).table->id.table, "other");
  EXPECT_EQ(std::get<RowChange>(events[4]).after[2].i64, 9);

  // Without attribute numbers, columns are matched by name: a rename is a drop and an add.
  catalog.reset();
  FeedAll({Begin(0x300, 3),
           Relation(1, "t", {{"id", oid::kInt4, true}, {"a3", oid::kText}, {"c", oid::kInt8}}),
           Insert(1, {"3", "x", "9"}), Commit(0x300, 0x310)});
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_GE(batches[2].events.size(), 2u);
  EXPECT_EQ(std::get<SchemaChange>(batches[2].events[0]).kind, SchemaChangeKind::kDropColumn);
  EXPECT_EQ(std::get<SchemaChange>(batches[2].events[1]).kind, SchemaChangeKind::kAddColumn);
}

/// The kinds and columns of the schema changes of `batch`.
std::vector<std::pair<SchemaChangeKind, std::string>> ChangesOf(const ChangeBatch& batch) {
  std::vector<std::pair<SchemaChangeKind, std::string>> out;
  for (const auto& e : batch.events) {
    if (const auto* c = std::get_if<SchemaChange>(&e)) out.emplace_back(c->kind, c->column);
  }
  return out;
}

// The stream reads the catalog when a Relation message arrives, which may be
// long after it was written: by then its columns may have other names.
TEST_F(ChangeStreamTest, AColumnRenamedAgainSinceTheMessageKeepsItsAttributeNumber) {
  using Kind = SchemaChangeKind;
  // Transaction `n` (commit 0x100 * n): a Relation message of t with the key
  // id and text columns `names`, and one row.
  auto transaction = [&](uint32_t n, const std::vector<std::string>& names) {
    std::vector<Col> cols = {{"id", oid::kInt4, true}};
    std::vector<std::string> row = {std::to_string(n)};
    for (const auto& name : names) {
      cols.push_back({name, oid::kText});
      row.push_back("x");
    }
    FeedAll({Begin(0x100 * n, n), Relation(1, "t", cols), Insert(1, row),
             Commit(0x100 * n, 0x100 * n + 0x10)});
  };
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"v", 2, false, 0}, {"n", 3, false, 0}};
  transaction(1, {"v", "n"});
  // Since: `extra` added, then v renamed to v2 and n to n1 and again to n2.
  catalog = std::vector<CatalogColumn>{
      {"id", 1, true, 1}, {"v2", 2, false, 0}, {"n2", 3, false, 0}, {"extra", 4, false, 0}};
  // The message of the add still names v (the catalog no longer does: its
  // number is the one v had) and n.
  transaction(2, {"v", "n", "extra"});
  // The message of the first rename of n: n1 is between two numbered
  // columns, where the catalog has n2, which the message does not name.
  transaction(3, {"v", "n1", "extra"});
  transaction(4, {"v2", "n2", "extra"});
  ASSERT_EQ(batches.size(), 4u);
  using Changes = std::vector<std::pair<Kind, std::string>>;
  EXPECT_EQ(ChangesOf(batches[1]), (Changes{{Kind::kAddColumn, "extra"}}));
  EXPECT_EQ(ChangesOf(batches[2]), (Changes{{Kind::kRenameColumn, "n1"}}));
  EXPECT_EQ(ChangesOf(batches[3]),
            (Changes{{Kind::kRenameColumn, "v2"}, {Kind::kRenameColumn, "n2"}}));
  // The key stays the key throughout.
  EXPECT_EQ(std::get<RowChange>(batches[3].events.back()).table->primary_key,
            std::vector<std::string>{"id"});
}

TEST_F(ChangeStreamTest, UnchangedToastComesFromTheOldRowAndTruncatesAreChanges) {
  const std::vector<Col> cols = {{"id", oid::kInt4, true}, {"body", oid::kText, true}};
  FeedAll({Begin(0x100, 1), Relation(1, "t", cols, 'f'),
           Msg('U').U32(1).U8('O').Tuple({"1", "long text"}).U8('N').Tuple({"1", kToast}).b,
           Msg('T').U32(1).U8(0).U32(1).b, Commit(0x100, 0x110)});
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].events.size(), 2u);
  const auto& update = std::get<RowChange>(batches[0].events[0]);
  EXPECT_EQ(update.after[1].as_bytes(), "long text");
  EXPECT_EQ(update.before[0].i32, 1);
  // REPLICA IDENTITY FULL flags every column: that is no key.
  EXPECT_TRUE(update.table->primary_key.empty());
  EXPECT_EQ(std::get<SchemaChange>(batches[0].events[1]).kind, SchemaChangeKind::kTruncateTable);

  // Without the old row the value is unknown: an error naming the fix.
  FeedAll({Begin(0x200, 2), Relation(1, "t", cols, 'd')});
  Status s = Feed(Msg('U').U32(1).U8('N').Tuple({"1", kToast}).b);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("REPLICA IDENTITY FULL"), std::string::npos);
}

TEST_F(ChangeStreamTest, TransactionsUpToTheRestoredPositionArePassedOver) {
  assembler->SkipThrough(Lsn{0x210});
  const std::vector<Col> cols = {{"id", oid::kInt4, true}};
  FeedAll({Begin(0x200, 1), Relation(1, "t", cols), Insert(1, {"1"}), Commit(0x200, 0x210),
           Begin(0x300, 2), Insert(1, {"2"}), Commit(0x300, 0x310)});
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(std::get<RowChange>(batches[0].events[0]).after[0].i32, 2);
  // Tables the selector leaves out give no rows, but their transactions still end batches.
  FeedAll({Begin(0x400, 3), Relation(3, "skipped", cols), Insert(3, {"1"}), Commit(0x400, 0x410)});
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_TRUE(batches[1].events.empty());
}

TEST_F(ChangeStreamTest, TheRelationCacheSurvivesARestart) {
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"a", 2, false, 0}};
  FeedAll({Begin(0x100, 1), Relation(1, "t", {{"id", oid::kInt4, true}, {"a", oid::kText}}),
           Insert(1, {"1", "x"}), Commit(0x100, 0x110)});
  std::string state = assembler->RelationsJson();
  Make();
  ASSERT_TRUE(assembler->RestoreRelations(state));
  // After the restart the server sends the relation again, now with a column more.
  catalog = std::vector<CatalogColumn>{{"id", 1, true, 1}, {"a", 2, false, 0}, {"b", 3, false, 0}};
  batches.clear();
  FeedAll({Begin(0x200, 2),
           Relation(1, "t", {{"id", oid::kInt4, true}, {"a", oid::kText}, {"b", oid::kText}}),
           Insert(1, {"2", "x", "y"}), Commit(0x200, 0x210)});
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].events.size(), 2u);
  const auto& added = std::get<SchemaChange>(batches[0].events[0]);
  EXPECT_EQ(added.kind, SchemaChangeKind::kAddColumn);
  EXPECT_EQ(added.column, "b");
  EXPECT_FALSE(assembler->RestoreRelations("{not json"));
}

/// A table change or row as "rename public.a -> public.a2 at 110", "drop
/// public.b at 110", "row public.a"; other events as "other".
std::string Describe(const ChangeEvent& event) {
  if (const auto* row = std::get_if<RowChange>(&event)) return "row " + row->table->id.ToString();
  const auto& c = std::get<SchemaChange>(event);
  const std::string at =
      " at " + fmt::format("{:x}", LsnOfPosition(c.source->position.binlog)->value);
  if (c.kind == SchemaChangeKind::kDropTable) {
    return "drop " + c.table.ToString() + (c.table_after ? " with a definition" : "") + at;
  }
  if (c.kind != SchemaChangeKind::kRenameTable) return "other";
  const bool defined = c.table_after && c.table_after->id == c.table;
  return "rename " + c.old_table.ToString() + " -> " + c.table.ToString() +
         (defined ? "" : " without its definition") + at;
}

std::vector<std::string> Described(const ChangeBatch& batch) {
  std::vector<std::string> out;
  for (const auto& e : batch.events) out.push_back(Describe(e));
  return out;
}

TEST_F(ChangeStreamTest, TablesRenamedAndDroppedInTheCatalogAreSchemaChanges) {
  const std::vector<Col> cols = {{"id", oid::kInt4, true}};
  FeedAll({Begin(0x100, 1), Relation(1, "a", cols), Insert(1, {"1"}), Relation(2, "b", cols),
           Insert(2, {"2"}), Relation(3, "skipped", cols), Insert(3, {"3"}), Commit(0x100, 0x110)});
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(assembler->SelectedRelations(), (std::vector<uint32_t>{1, 2}));

  // Nothing changed: no batch.
  where = {{1, {"public", "a"}}, {2, {"public", "b"}}};
  ASSERT_TRUE(ApplyCatalog({1, 2}, Lsn{0x110}));
  EXPECT_EQ(batches.size(), 1u);

  // a renamed to a2, b dropped: one batch ending where the stream was.
  where = {{1, {"public", "a2"}}};
  const uint64_t generation = assembler->relations_generation();
  ASSERT_TRUE(ApplyCatalog({1, 2}, Lsn{0x110}));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_TRUE(batches[1].ends_transaction);
  EXPECT_EQ(LsnOfPosition(batches[1].resume.binlog), Lsn{0x110});
  EXPECT_EQ(Described(batches[1]), (std::vector<std::string>{"rename public.a -> public.a2 at 110",
                                                             "drop public.b at 110"}));
  EXPECT_GT(assembler->relations_generation(), generation);
  EXPECT_EQ(assembler->SelectedRelations(), (std::vector<uint32_t>{1}));

  // The cache follows: rows of relation 1 are a2's, and the same reading changes nothing.
  ASSERT_TRUE(ApplyCatalog({1, 2}, Lsn{0x110}));
  EXPECT_EQ(batches.size(), 2u);
  FeedAll({Begin(0x200, 2), Insert(1, {"4"}), Commit(0x200, 0x210)});
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(Described(batches[2]), std::vector<std::string>{"row public.a2"});

  // Renamed out of the selection: it leaves the pipeline as a DROP TABLE of
  // its old name does (as MySQL's RENAME TABLE out of the selection).
  where = {{1, {"public", "skipped"}}};
  ASSERT_TRUE(ApplyCatalog({1}, Lsn{0x210}));
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(Described(batches[3]), std::vector<std::string>{"drop public.a2 at 210"});
  EXPECT_TRUE(assembler->SelectedRelations().empty());
  // Its rows are passed over from then on.
  FeedAll({Begin(0x300, 3), Insert(1, {"5"}), Commit(0x300, 0x310)});
  ASSERT_EQ(batches.size(), 5u);
  EXPECT_TRUE(batches[4].events.empty());
}

// The same told by a Relation message: the rename out of the selection is a
// drop of the old name, before the transaction's rows.
TEST_F(ChangeStreamTest, ARelationMessageRenamingOutOfTheSelectionDropsTheOldName) {
  const std::vector<Col> cols = {{"id", oid::kInt4, true}};
  FeedAll({Begin(0x100, 1), Relation(1, "a", cols), Insert(1, {"1"}), Commit(0x100, 0x110)});
  FeedAll({Begin(0x200, 2), Relation(2, "b", cols), Insert(2, {"1"}), Relation(1, "skipped", cols),
           Insert(1, {"2"}), Commit(0x200, 0x210)});
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(Described(batches[1]),
            (std::vector<std::string>{"drop public.a at 200", "row public.b"}));
  EXPECT_EQ(assembler->SelectedRelations(), std::vector<uint32_t>{2});
}

// A reading taken while the stream is busy is applied once the stream has
// passed its end; a relation whose Relation message came in a transaction
// committed after the reading began may be newer than the reading.
TEST_F(ChangeStreamTest, AReadingLeavesAloneRelationsDescribedAfterItBegan) {
  const std::vector<Col> cols = {{"id", oid::kInt4, true}};
  FeedAll({Begin(0x100, 1), Relation(1, "a", cols), Insert(1, {"1"}), Relation(2, "b", cols),
           Insert(2, {"2"}), Commit(0x100, 0x110)});
  // b renamed to b2 in a transaction committed at 0x300: its rows came with
  // a Relation message of the new name.
  FeedAll({Begin(0x300, 2), Relation(2, "b2", cols), Insert(2, {"3"}), Commit(0x300, 0x310)});
  ASSERT_EQ(batches.size(), 2u);
  // A reading begun at 0x200 still shows b (and a dropped): b is left as it
  // is, a is dropped.
  CatalogReading reading;
  reading.relation_ids = {1, 2};
  reading.tables = {{2, {"public", "b"}}};
  reading.started_at = Lsn{0x200};
  ASSERT_TRUE(assembler->ApplyCatalog(reading, Lsn{0x310}, Keep()));
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(Described(batches[2]), std::vector<std::string>{"drop public.a at 310"});
  EXPECT_EQ(assembler->SelectedRelations(), (std::vector<uint32_t>{2}));
  // Begun after it, the reading is newer than b2's message: b2 renamed to c.
  reading.relation_ids = {2};
  reading.tables = {{2, {"public", "c"}}};
  reading.started_at = Lsn{0x300};
  ASSERT_TRUE(assembler->ApplyCatalog(reading, Lsn{0x310}, Keep()));
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(Described(batches[3]), std::vector<std::string>{"rename public.b2 -> public.c at 310"});
}

TEST_F(ChangeStreamTest, ANameTakenFromAnotherRelationLocatesThatOneFirst) {
  const std::vector<Col> cols = {{"id", oid::kInt4, true}};
  FeedAll({Begin(0x100, 1), Relation(1, "a", cols), Insert(1, {"1"}), Relation(2, "b", cols),
           Insert(2, {"2"}), Commit(0x100, 0x110)});
  // DROP TABLE a; ALTER TABLE b RENAME TO a; then a row of the new a: the
  // old a goes first, at the transaction's position.
  where = {{2, {"public", "a"}}};
  FeedAll({Begin(0x200, 2), Relation(2, "a", cols), Insert(2, {"3"}), Commit(0x200, 0x210)});
  EXPECT_EQ(located, std::vector<uint32_t>{1});
  EXPECT_TRUE(assembler->TakeCatalogCheckWanted());
  EXPECT_FALSE(assembler->TakeCatalogCheckWanted());
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(Described(batches[1]),
            (std::vector<std::string>{"drop public.a at 200", "rename public.b -> public.a at 200",
                                      "row public.a"}));

  // A new relation takes a name another one holds (ALTER TABLE a RENAME TO
  // old_a; CREATE TABLE a): the holder's rename goes first.
  located.clear();
  where = {{2, {"public", "old_a"}}, {3, {"public", "a"}}};
  FeedAll({Begin(0x300, 3), Relation(3, "a", cols), Insert(3, {"4"}), Commit(0x300, 0x310)});
  EXPECT_EQ(located, std::vector<uint32_t>{2});
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(Described(batches[2]),
            (std::vector<std::string>{"rename public.a -> public.old_a at 300", "row public.a"}));
  EXPECT_EQ(std::get<RowChange>(batches[2].events[1]).after[0].i32, 4);
}

}  // namespace
}  // namespace floe::cdc::postgres
