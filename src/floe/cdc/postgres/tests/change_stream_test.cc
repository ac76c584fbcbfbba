// ChangeBatchAssembler: pgoutput messages built by hand in, change batches
// out: rows with their values and positions, schema changes from Relation
// messages that differ (added, dropped and renamed columns, told apart by
// attribute number), TOAST fill-in, truncations, transactions passed over
// after a restart, and the relation cache's state round trip.
#include "floe/cdc/postgres/change_stream.h"

#include <gtest/gtest.h>

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
    assembler = std::make_unique<ChangeBatchAssembler>(PgoutputVersion::kV2, std::move(o));
  }
  Status Feed(const std::string& message) {
    return assembler->Feed(Lsn{0x1000}, message, [this](ChangeBatch& batch) {
      batches.push_back(std::move(batch));
      batch = ChangeBatch();
      return Ok();
    });
  }
  void FeedAll(const std::vector<std::string>& messages) {
    for (const auto& m : messages) ASSERT_TRUE(Feed(m)) << "message " << m[0];
  }

  std::optional<std::vector<CatalogColumn>> catalog;
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

}  // namespace
}  // namespace floe::cdc::postgres
