// The steps of the pgoutput decoder alone: each message type's fields read
// from hand-built bytes (after the tag), without the decoder's stream state.
#include "floe/cdc/postgres/pgoutput_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/cdc/postgres/tests/pgoutput_builder.h"

namespace floe::cdc::postgres::internal {
namespace {

using test_messages::kNull;
using test_messages::kToast;
using test_messages::Msg;

// The bytes of `m` after its tag byte.
std::string Body(const Msg& m) { return m.b.substr(1); }

template <typename T>
void ExpectCorruption(const Result<T>& r, std::string_view what) {
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ErrorCode::kCorruption) << r.error().ToString();
  EXPECT_NE(r.error().message().find(what), std::string::npos) << r.error().ToString();
}

TEST(PgoutputReaderTest, CommitAndStreamCommitShareTheirFields) {
  const std::string commit = Body(Msg('C').U8(0).U64(100).U64(200).U64(12345));
  MessageReader a(commit, "Commit");
  auto c = ReadCommit(a);
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->commit_lsn.value, 100u);
  EXPECT_EQ(c->end_lsn.value, 200u);
  EXPECT_EQ(c->commit_time, 12345);

  const std::string stream_commit = Body(Msg('c').U32(7).U8(0).U64(100).U64(200).U64(12345));
  MessageReader b(stream_commit, "Stream Commit");
  auto s = ReadStreamCommit(b);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->xid, 7u);
  EXPECT_EQ(s->commit_lsn.value, 100u);
  EXPECT_EQ(s->end_lsn.value, 200u);
  EXPECT_EQ(s->commit_time, 12345);

  // Cut short in the end LSN: the offset counts the tag byte.
  const std::string short_commit = Body(Msg('C').U8(0).U64(100).U32(1));
  MessageReader c2(short_commit, "Commit");
  ExpectCorruption(ReadCommit(c2),
                   "pgoutput Commit message: cut short in its end LSN (at byte 10 of 14)");
}

TEST(PgoutputReaderTest, UpdateReadsKeyTupleThenNewTuple) {
  const std::string bytes =
      Body(Msg('U').U32(16384).U8('K').Tuple({"1", kNull}).U8('N').Tuple({"1", kToast, "x"}));
  std::vector<ColumnValue> old_columns, new_columns;
  MessageReader in(bytes, "Update");
  auto m = ReadUpdate(in, 42, &old_columns, &new_columns);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->xid, 42u);
  EXPECT_EQ(m->relation_id, 16384u);
  EXPECT_EQ(m->old_kind, OldTupleKind::kKey);
  ASSERT_EQ(m->old_tuple.columns.size(), 2u);
  EXPECT_EQ(m->old_tuple.columns[0].data, "1");
  EXPECT_EQ(m->old_tuple.columns[1].kind, ColumnValue::Kind::kNull);
  ASSERT_EQ(m->new_tuple.columns.size(), 3u);
  EXPECT_EQ(m->new_tuple.columns[1].kind, ColumnValue::Kind::kUnchangedToast);
  EXPECT_EQ(m->new_tuple.columns[2].kind, ColumnValue::Kind::kText);
  EXPECT_EQ(m->new_tuple.columns[2].data, "x");
  // The columns live in the buffers passed in.
  EXPECT_EQ(m->old_tuple.columns.data(), old_columns.data());
  EXPECT_EQ(m->new_tuple.columns.data(), new_columns.data());
}

TEST(PgoutputReaderTest, DeleteNamesTheOldTupleInErrors) {
  std::vector<ColumnValue> columns;
  // An old row ('O') whose second column has an unknown kind byte.
  const std::string bytes = Body(Msg('D').U32(1).U8('O').U16(2).U8('n').U8('z'));
  MessageReader in(bytes, "Delete");
  ExpectCorruption(ReadDelete(in, 0, &columns),
                   "its old tuple's column 2 has the unknown kind byte 0x7a");
}

TEST(PgoutputReaderTest, TupleValueBeyondTheMessage) {
  // A text column claiming 9 bytes with 3 left.
  const std::string bytes = Body(Msg('I').U32(1).U8('N').U16(1).U8('t').U32(9)) + "abc";
  std::vector<ColumnValue> columns;
  MessageReader in(bytes, "Insert");
  ExpectCorruption(ReadInsert(in, 0, &columns),
                   "its new tuple's column 1 value of 9 bytes goes beyond the 3 bytes left");
}

TEST(PgoutputReaderTest, RelationAndTypeReadTheirQualifiedNames) {
  const std::string relation =
      Body(Msg('R').U32(16384).Str("public").Str("t").U8('f').U16(1).U8(1).Str("id").U32(23).U32(
          0xFFFFFFFF));
  std::vector<RelationColumn> columns;
  MessageReader r(relation, "Relation");
  auto m = ReadRelation(r, 5, &columns);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->xid, 5u);
  EXPECT_EQ(m->relation_id, 16384u);
  EXPECT_EQ(m->namespace_name, "public");
  EXPECT_EQ(m->name, "t");
  EXPECT_EQ(m->replica_identity, ReplicaIdentity::kFull);
  ASSERT_EQ(m->columns.size(), 1u);
  EXPECT_TRUE(m->columns[0].is_key());
  EXPECT_EQ(m->columns[0].name, "id");
  EXPECT_EQ(m->columns[0].type_oid, 23u);
  EXPECT_EQ(m->columns[0].type_modifier, -1);

  const std::string type = Body(Msg('Y').U32(90000).Str("public").Str("mood"));
  MessageReader y(type, "Type");
  auto t = ReadType(y, 0);
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->type_oid, 90000u);
  EXPECT_EQ(t->namespace_name, "public");
  EXPECT_EQ(t->name, "mood");

  const std::string unterminated = Body(Msg('Y').U32(90000).Str("public")) + "mo";
  MessageReader u(unterminated, "Type");
  ExpectCorruption(ReadType(u, 0), "its type name has no terminating NUL");
}

TEST(PgoutputReaderTest, StreamStartAndTruncate) {
  const std::string start = Body(Msg('S').U32(9).U8(1));
  MessageReader s(start, "Stream Start");
  auto m = ReadStreamStart(s);
  ASSERT_TRUE(m) << m.error().ToString();
  EXPECT_EQ(m->xid, 9u);
  EXPECT_TRUE(m->first_segment);

  const std::string truncate = Body(Msg('T').U32(2).U8(3).U32(10).U32(11));
  std::vector<uint32_t> ids;
  MessageReader t(truncate, "Truncate");
  auto tr = ReadTruncate(t, 9, &ids);
  ASSERT_TRUE(tr) << tr.error().ToString();
  EXPECT_EQ(tr->xid, 9u);
  EXPECT_TRUE(tr->cascade());
  EXPECT_TRUE(tr->restart_identity());
  ASSERT_EQ(tr->relation_ids.size(), 2u);
  EXPECT_EQ(tr->relation_ids[1], 11u);

  // Bytes after the last field.
  const std::string extra = Body(Msg('A').U32(1).U32(2).U8(0));
  MessageReader a(extra, "Stream Abort");
  ExpectCorruption(ReadStreamAbort(a), "1 bytes after its last field");
}

}  // namespace
}  // namespace floe::cdc::postgres::internal
