// The pgoutput decoder and the replication framing against a real PostgreSQL
// (scripts/services/postgres.sh start). Reads FLOE_TEST_POSTGRES_HOST, _PORT,
// _USER, _PASSWORD and _DATABASE; skipped when FLOE_TEST_POSTGRES_PORT is
// unset or nothing answers there.
//
// A table of several types and a REPLICA IDENTITY FULL table in a
// publication, a logical slot (pgoutput), a workload of inserts, updates
// (one leaving an out-of-line TOASTed text unchanged, one changing the key),
// deletes, a logical message, a truncate, and large transactions that the
// server streams (one committed, one rolled back); then START_REPLICATION
// with protocol v2 and `streaming 'on'`, every CopyData frame decoded, the
// sequence checked, and standby status updates sent and seen by the server.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_protocol.h"

namespace floe::cdc::postgres {

// gtest prints LSNs in their text form.
inline void PrintTo(const Lsn& lsn, std::ostream* out) { *out << lsn.ToString(); }

namespace {

using Clock = std::chrono::steady_clock;

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

struct PgConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using Conn = std::unique_ptr<PGconn, PgConnDeleter>;
struct PgResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, PgResultDeleter>;

// A libpq conninfo value, quoted.
std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

// One decoded message, with what the checks need copied out of the frame.
struct Column {
  ColumnValue::Kind kind;
  std::string data;
};
struct Event {
  std::string name;  // PgoutputMessageName
  uint32_t xid = 0;  // streamed xid, or Begin's / Stream Start's / Stream Commit's xid
  uint32_t relation_id = 0;
  Lsn lsn;      // Begin: final LSN; Commit, Stream Commit: commit LSN
  Lsn end_lsn;  // Commit, Stream Commit
  OldTupleKind old_kind = OldTupleKind::kNone;
  std::vector<Column> old_columns, new_columns;
  std::vector<uint32_t> relation_ids;  // Truncate
  uint8_t options = 0;                 // Truncate
  bool flag = false;                   // Stream Start: first segment; Message: transactional
  std::string text1, text2;            // Relation: name, replica identity; Message: prefix, content
  std::vector<RelationColumn> columns;  // Relation (names point into `names`)
  std::vector<std::string> names;       // Relation column names
};

std::vector<Column> Copy(const TupleData& t) {
  std::vector<Column> out;
  for (const ColumnValue& c : t.columns) out.push_back({c.kind, std::string(c.data)});
  return out;
}

Event Summarize(const PgoutputMessage& message) {
  Event e;
  e.name = PgoutputMessageName(message);
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, BeginMessage>) {
          e.xid = m.xid, e.lsn = m.final_lsn;
        } else if constexpr (std::is_same_v<T, CommitMessage>) {
          e.lsn = m.commit_lsn, e.end_lsn = m.end_lsn;
        } else if constexpr (std::is_same_v<T, RelationMessage>) {
          e.xid = m.xid, e.relation_id = m.relation_id;
          e.text1 = std::string(m.namespace_name) + "." + std::string(m.name);
          e.text2 = std::string(1, static_cast<char>(m.replica_identity));
          for (const RelationColumn& c : m.columns) {
            e.columns.push_back(c);
            e.names.emplace_back(c.name);
          }
        } else if constexpr (std::is_same_v<T, InsertMessage>) {
          e.xid = m.xid, e.relation_id = m.relation_id, e.new_columns = Copy(m.new_tuple);
        } else if constexpr (std::is_same_v<T, UpdateMessage>) {
          e.xid = m.xid, e.relation_id = m.relation_id, e.old_kind = m.old_kind;
          e.old_columns = Copy(m.old_tuple), e.new_columns = Copy(m.new_tuple);
        } else if constexpr (std::is_same_v<T, DeleteMessage>) {
          e.xid = m.xid, e.relation_id = m.relation_id, e.old_kind = m.old_kind;
          e.old_columns = Copy(m.old_tuple);
        } else if constexpr (std::is_same_v<T, TruncateMessage>) {
          e.xid = m.xid, e.options = m.options;
          e.relation_ids.assign(m.relation_ids.begin(), m.relation_ids.end());
        } else if constexpr (std::is_same_v<T, LogicalMessage>) {
          e.xid = m.xid, e.flag = m.transactional();
          e.text1 = std::string(m.prefix), e.text2 = std::string(m.content);
        } else if constexpr (std::is_same_v<T, StreamStartMessage>) {
          e.xid = m.xid, e.flag = m.first_segment;
        } else if constexpr (std::is_same_v<T, StreamCommitMessage>) {
          e.xid = m.xid, e.lsn = m.commit_lsn, e.end_lsn = m.end_lsn;
        } else if constexpr (std::is_same_v<T, StreamAbortMessage>) {
          e.xid = m.xid, e.relation_id = m.subxid;
        }
      },
      message);
  return e;
}

class PgoutputIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("FLOE_TEST_POSTGRES_PORT")) {
      GTEST_SKIP() << "FLOE_TEST_POSTGRES_PORT is not set (scripts/services/postgres.sh start "
                      "runs a server; scripts/test.sh sets it)";
    }
    host_ = Env("FLOE_TEST_POSTGRES_HOST", "127.0.0.1");
    port_ = Env("FLOE_TEST_POSTGRES_PORT", "5433");
    const std::string conninfo = "host=" + Quote(host_) + " port=" + Quote(port_) +
                                 " user=" + Quote(Env("FLOE_TEST_POSTGRES_USER", "floe")) +
                                 " password=" + Quote(Env("FLOE_TEST_POSTGRES_PASSWORD", "floe")) +
                                 " dbname=" + Quote(Env("FLOE_TEST_POSTGRES_DATABASE", "floe")) +
                                 " connect_timeout=5";
    if (PQping(conninfo.c_str()) == PQPING_NO_RESPONSE) {
      GTEST_SKIP() << "no PostgreSQL answers on " << host_ << ":" << port_
                   << " (start one with scripts/services/postgres.sh start)";
    }
    // The walsender's own settings: streaming as soon as a transaction holds
    // 64 kB (whatever the server's default), timestamps printed in UTC.
    replication_conninfo_ =
        conninfo +
        " replication=database options='-c logical_decoding_work_mem=64kB -c TimeZone=UTC'";
    sql_ = Conn(PQconnectdb(conninfo.c_str()));
    ASSERT_EQ(PQstatus(sql_.get()), CONNECTION_OK) << PQerrorMessage(sql_.get());
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    suffix_ = std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(now).count() %
                             1000000000000LL);
    table_ = "pgo_items_" + suffix_;
    full_table_ = "pgo_full_" + suffix_;
    publication_ = "pgo_pub_" + suffix_;
    slot_ = "pgo_slot_" + suffix_;
  }

  void TearDown() override {
    if (!sql_) return;
    replication_.reset();
    if (slot_created_) {
      // The walsender may still hold the slot for a moment after we hang up.
      std::string error;
      for (int i = 0; i < 100; ++i) {
        PgResult r(
            PQexec(sql_.get(), ("SELECT pg_drop_replication_slot('" + slot_ + "')").c_str()));
        if (PQresultStatus(r.get()) == PGRES_TUPLES_OK) {
          error.clear();
          break;
        }
        error = PQresultErrorMessage(r.get());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      EXPECT_EQ(error, "") << "dropping slot " << slot_;
      PgResult left(PQexec(
          sql_.get(),
          ("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot_ + "'").c_str()));
      EXPECT_EQ(std::string(PQgetvalue(left.get(), 0, 0)), "0");
    }
    Exec("DROP PUBLICATION IF EXISTS " + publication_);
    Exec("DROP TABLE IF EXISTS " + table_ + ", " + full_table_);
  }

  void Exec(const std::string& sql) {
    PgResult r(PQexec(sql_.get(), sql.c_str()));
    const auto status = PQresultStatus(r.get());
    ASSERT_TRUE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
        << sql << ": " << PQresultErrorMessage(r.get());
  }

  std::string Query(const std::string& sql) {
    PgResult r(PQexec(sql_.get(), sql.c_str()));
    EXPECT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK)
        << sql << ": " << PQresultErrorMessage(r.get());
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) < 1) return "";
    return PQgetvalue(r.get(), 0, 0);
  }

  // Sends a standby status update on the replication connection.
  void SendStatus(Lsn flushed, bool reply_requested) {
    StandbyStatusUpdate u;
    u.written = u.flushed = u.applied = flushed;
    u.client_time =
        UnixMicrosToPostgresTime(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
    u.reply_requested = reply_requested;
    auto bytes = EncodeStandbyStatusUpdate(u);
    ASSERT_EQ(PQputCopyData(replication_.get(), bytes.data(), static_cast<int>(bytes.size())), 1)
        << PQerrorMessage(replication_.get());
    ASSERT_EQ(PQflush(replication_.get()), 0) << PQerrorMessage(replication_.get());
  }

  // The next CopyData frame, or nullopt after `deadline`.
  std::optional<std::string> NextFrame(Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      char* buffer = nullptr;
      int n = PQgetCopyData(replication_.get(), &buffer, /*async=*/1);
      if (n > 0) {
        std::string frame(buffer, static_cast<size_t>(n));
        PQfreemem(buffer);
        return frame;
      }
      if (n < 0) {
        ADD_FAILURE() << "replication stream ended: " << PQerrorMessage(replication_.get());
        return std::nullopt;
      }
      pollfd p{PQsocket(replication_.get()), POLLIN, 0};
      poll(&p, 1, 100);
      if (PQconsumeInput(replication_.get()) == 0) {
        ADD_FAILURE() << "reading the replication stream: " << PQerrorMessage(replication_.get());
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // The two tables (one under REPLICA IDENTITY FULL) and their publication.
  void CreateTables() {
    ASSERT_NO_FATAL_FAILURE(Exec("SET TimeZone = 'UTC'"));
    ASSERT_NO_FATAL_FAILURE(Exec(
        "CREATE TABLE " + table_ +
        " (id int PRIMARY KEY, name text, amount numeric(12,3), flag boolean, created timestamptz,"
        " payload bytea, doc jsonb, big text)"));
    // Stored out of line, uncompressed: over 2 kB it is TOASTed for sure.
    ASSERT_NO_FATAL_FAILURE(
        Exec("ALTER TABLE " + table_ + " ALTER COLUMN big SET STORAGE EXTERNAL"));
    ASSERT_NO_FATAL_FAILURE(Exec("CREATE TABLE " + full_table_ + " (k int, v text)"));
    ASSERT_NO_FATAL_FAILURE(Exec("ALTER TABLE " + full_table_ + " REPLICA IDENTITY FULL"));
    ASSERT_NO_FATAL_FAILURE(
        Exec("CREATE PUBLICATION " + publication_ + " FOR TABLE " + table_ + ", " + full_table_));
  }

  // Connects for replication, checks IDENTIFY_SYSTEM and creates the slot.
  void CreateSlot(Lsn* consistent_point) {
    replication_ = Conn(PQconnectdb(replication_conninfo_.c_str()));
    ASSERT_EQ(PQstatus(replication_.get()), CONNECTION_OK) << PQerrorMessage(replication_.get());
    {
      PgResult r(PQexec(replication_.get(), "IDENTIFY_SYSTEM"));
      ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << PQresultErrorMessage(r.get());
      ASSERT_EQ(std::string(PQfname(r.get(), 2)), "xlogpos");
      auto xlogpos = Lsn::Parse(PQgetvalue(r.get(), 0, 2));
      ASSERT_TRUE(xlogpos) << xlogpos.error().ToString();
      EXPECT_TRUE(xlogpos->valid());
    }
    PgResult r(PQexec(
        replication_.get(),
        ("CREATE_REPLICATION_SLOT " + slot_ + " LOGICAL pgoutput (SNAPSHOT 'nothing')").c_str()));
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_TUPLES_OK) << PQresultErrorMessage(r.get());
    slot_created_ = true;
    ASSERT_EQ(std::string(PQfname(r.get(), 1)), "consistent_point");
    auto lsn = Lsn::Parse(PQgetvalue(r.get(), 0, 1));
    ASSERT_TRUE(lsn) << lsn.error().ToString();
    *consistent_point = *lsn;
    EXPECT_EQ(lsn->ToString(), PQgetvalue(r.get(), 0, 1));
  }

  // The workload, one transaction per statement unless said otherwise; `big`
  // is the TOASTed value. Returns the WAL insert position after it.
  std::string RunWorkload(const std::string& big, int streamed_rows) {
    Exec("INSERT INTO " + table_ + " VALUES (1, 'one', 12.345, true, '2024-01-02 03:04:05+00', " +
         "'\\x00ff', '{\"a\": 1}', '" + big + "'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    Exec("UPDATE " + table_ + " SET name = 'uno' WHERE id = 1");  // big: unchanged TOAST
    Exec("UPDATE " + table_ + " SET id = 3 WHERE id = 2");        // the key changes
    Exec("DELETE FROM " + table_ + " WHERE id = 3");
    Exec("INSERT INTO " + full_table_ + " VALUES (1, 'a')");
    Exec("UPDATE " + full_table_ + " SET v = 'b'");
    Exec("DELETE FROM " + full_table_);
    Exec("SELECT pg_logical_emit_message(true, 'floe', 'hello')");
    Exec("TRUNCATE " + table_ + ", " + full_table_);
    // Large enough (about 400 kB) to be streamed before it commits...
    Exec("INSERT INTO " + full_table_ + " SELECT g, repeat('z', 200) FROM generate_series(1, " +
         std::to_string(streamed_rows) + ") g");
    // ... and one that is streamed, then rolled back.
    Exec("BEGIN");
    Exec("INSERT INTO " + full_table_ + " SELECT g, repeat('y', 200) FROM generate_series(1, " +
         std::to_string(streamed_rows) + ") g");
    Exec("ROLLBACK");
    Exec("INSERT INTO " + table_ + " (id, name) VALUES (100, 'last')");
    return Query("SELECT pg_current_wal_insert_lsn()");
  }

  void StartStreaming() {
    const std::string start = "START_REPLICATION SLOT " + slot_ +
                              " LOGICAL 0/0 (proto_version '2', " + "publication_names '" +
                              publication_ + "', streaming 'on', messages 'true')";
    PgResult r(PQexec(replication_.get(), start.c_str()));
    ASSERT_EQ(PQresultStatus(r.get()), PGRES_COPY_BOTH) << PQresultErrorMessage(r.get());
  }

  // Reads until the Commit of the last insert, acknowledging each commit.
  void ReadUntilLastCommit(std::vector<Event>* events, Lsn* acknowledged, int* keepalives) {
    PgoutputDecoder decoder(PgoutputVersion::kV2);
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (true) {
      auto frame = NextFrame(deadline);
      ASSERT_TRUE(frame) << "no Commit of the last insert within 60 s; " << events->size()
                         << " messages so far";
      auto copy_data = DecodeReplicationMessage(*frame);
      ASSERT_TRUE(copy_data) << copy_data.error().ToString();
      if (auto* k = std::get_if<PrimaryKeepalive>(&*copy_data)) {
        ++*keepalives;
        EXPECT_TRUE(k->wal_end.valid());
        if (k->reply_requested) {
          ASSERT_NO_FATAL_FAILURE(SendStatus(*acknowledged, false));
        }
        continue;
      }
      const XLogData& x = std::get<XLogData>(*copy_data);
      EXPECT_LE(x.wal_start, x.wal_end);
      auto message = decoder.Decode(x.data);
      ASSERT_TRUE(message) << "at " << x.wal_start.ToString() << ": " << message.error().ToString();
      events->push_back(Summarize(*message));
      const Event& e = events->back();
      if (e.name == "Commit" || e.name == "Stream Commit") {
        *acknowledged = e.end_lsn;
        ASSERT_NO_FATAL_FAILURE(SendStatus(*acknowledged, false));
      }
      if (e.name == "Insert" && e.new_columns.size() == 8 && e.new_columns[1].data == "last") {
        // The next message is its Commit.
        auto next = NextFrame(deadline);
        ASSERT_TRUE(next);
        auto last = DecodeReplicationMessage(*next);
        ASSERT_TRUE(last && std::holds_alternative<XLogData>(*last));
        auto commit = decoder.Decode(std::get<XLogData>(*last).data);
        ASSERT_TRUE(commit) << commit.error().ToString();
        events->push_back(Summarize(*commit));
        ASSERT_EQ(events->back().name, "Commit");
        *acknowledged = events->back().end_lsn;
        return;
      }
    }
  }

  // The server confirms our flushed position: ask for a reply, wait for its
  // keepalive, then read the slot.
  void ExpectSlotConfirmed(Lsn acknowledged) {
    ASSERT_NO_FATAL_FAILURE(SendStatus(acknowledged, true));
    bool replied = false;
    const auto reply_deadline = Clock::now() + std::chrono::seconds(10);
    while (!replied) {
      auto frame = NextFrame(reply_deadline);
      ASSERT_TRUE(frame) << "no keepalive after a standby status update asking for one";
      auto copy_data = DecodeReplicationMessage(*frame);
      ASSERT_TRUE(copy_data) << copy_data.error().ToString();
      replied = std::holds_alternative<PrimaryKeepalive>(*copy_data);
    }
    std::string confirmed;
    for (int i = 0; i < 50; ++i) {
      confirmed = Query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" +
                        slot_ + "'");
      if (confirmed == acknowledged.ToString()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(confirmed, acknowledged.ToString()) << "the slot's confirmed_flush_lsn";
  }

  std::string host_, port_, replication_conninfo_, suffix_;
  std::string table_, full_table_, publication_, slot_;
  bool slot_created_ = false;
  Conn sql_, replication_;
};

// The Relation messages of the two tables: their ids (`items`, `full`) and
// the columns of the first.
void ExpectRelations(const std::vector<Event>& events, const std::string& table,
                     const std::string& full_table, uint32_t* items, uint32_t* full) {
  std::map<std::string, uint32_t> relation_ids;  // "public.<table>" -> id
  std::map<uint32_t, const Event*> relations;
  for (const Event& e : events) {
    if (e.name == "Relation") {
      relation_ids[e.text1] = e.relation_id;
      relations[e.relation_id] = &e;
    }
  }
  ASSERT_EQ(relation_ids.count("public." + table), 1u);
  ASSERT_EQ(relation_ids.count("public." + full_table), 1u);
  *items = relation_ids["public." + table];
  *full = relation_ids["public." + full_table];

  const Event& items_rel = *relations[*items];
  EXPECT_EQ(items_rel.text2, "d");
  ASSERT_EQ(items_rel.columns.size(), 8u);
  const std::vector<std::string> names = {"id",      "name",    "amount", "flag",
                                          "created", "payload", "doc",    "big"};
  const std::vector<uint32_t> oids = {23, 25, 1700, 16, 1184, 17, 3802, 25};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(items_rel.names[i], names[i]);
    EXPECT_EQ(items_rel.columns[i].type_oid, oids[i]) << names[i];
    EXPECT_EQ(items_rel.columns[i].is_key(), i == 0) << names[i];
  }
  EXPECT_EQ(items_rel.columns[2].type_modifier, ((12 << 16) | 3) + 4);  // numeric(12,3)
  EXPECT_EQ(items_rel.columns[1].type_modifier, -1);
  EXPECT_EQ(relations[*full]->text2, "f");
}

// Outside streams: Begin ... Commit pairs with matching LSNs, in commit order.
void ExpectBeginCommitPairs(const std::vector<Event>& events) {
  Lsn last_commit;
  const Event* begin = nullptr;
  for (const Event& e : events) {
    if (e.name == "Begin") {
      ASSERT_EQ(begin, nullptr) << "Begin inside a transaction";
      begin = &e;
    } else if (e.name == "Commit") {
      ASSERT_NE(begin, nullptr) << "Commit without Begin";
      EXPECT_EQ(e.lsn, begin->lsn) << "Begin's final LSN and Commit's LSN";
      EXPECT_GT(e.end_lsn, e.lsn);
      EXPECT_GT(e.lsn, last_commit);
      last_commit = e.lsn;
      begin = nullptr;
    }
  }
  EXPECT_EQ(begin, nullptr);
}

Column Text(const std::string& s) { return Column{ColumnValue::Kind::kText, s}; }

void ExpectColumns(const std::vector<Column>& got, const std::vector<Column>& want,
                   const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].kind, want[i].kind) << what << " column " << i;
    EXPECT_EQ(got[i].data, want[i].data) << what << " column " << i;
  }
}

// The row changes, in order, outside the stream blocks.
void ExpectRowChanges(const std::vector<Event>& events, uint32_t items, uint32_t full,
                      const std::string& big) {
  std::vector<const Event*> changes;
  for (const Event& e : events) {
    if ((e.name == "Insert" || e.name == "Update" || e.name == "Delete" || e.name == "Truncate" ||
         e.name == "Message") &&
        e.xid == 0) {
      changes.push_back(&e);
    }
  }
  ASSERT_EQ(changes.size(), 11u);
  const Column null{ColumnValue::Kind::kNull, ""};
  const Column unchanged{ColumnValue::Kind::kUnchangedToast, ""};

  EXPECT_EQ(changes[0]->name, "Insert");
  EXPECT_EQ(changes[0]->relation_id, items);
  ExpectColumns(changes[0]->new_columns,
                {Text("1"), Text("one"), Text("12.345"), Text("t"), Text("2024-01-02 03:04:05+00"),
                 Text("\\x00ff"), Text("{\"a\": 1}"), Text(big)},
                "first insert");
  EXPECT_EQ(changes[1]->name, "Insert");
  ExpectColumns(changes[1]->new_columns, {Text("2"), null, null, null, null, null, null, null},
                "second insert");

  // The update that left `big` alone: 'u', never a null or a value.
  EXPECT_EQ(changes[2]->name, "Update");
  EXPECT_EQ(changes[2]->old_kind, OldTupleKind::kNone);
  ExpectColumns(changes[2]->new_columns,
                {Text("1"), Text("uno"), Text("12.345"), Text("t"), Text("2024-01-02 03:04:05+00"),
                 Text("\\x00ff"), Text("{\"a\": 1}"), unchanged},
                "update of name");

  // The key changed: the old key comes first, the other old columns null.
  EXPECT_EQ(changes[3]->name, "Update");
  EXPECT_EQ(changes[3]->old_kind, OldTupleKind::kKey);
  ExpectColumns(changes[3]->old_columns, {Text("2"), null, null, null, null, null, null, null},
                "old key");
  EXPECT_EQ(changes[3]->new_columns[0].data, "3");

  EXPECT_EQ(changes[4]->name, "Delete");
  EXPECT_EQ(changes[4]->old_kind, OldTupleKind::kKey);
  ExpectColumns(changes[4]->old_columns, {Text("3"), null, null, null, null, null, null, null},
                "deleted key");

  // REPLICA IDENTITY FULL: the whole old row.
  EXPECT_EQ(changes[5]->name, "Insert");
  EXPECT_EQ(changes[5]->relation_id, full);
  EXPECT_EQ(changes[6]->name, "Update");
  EXPECT_EQ(changes[6]->old_kind, OldTupleKind::kOld);
  ExpectColumns(changes[6]->old_columns, {Text("1"), Text("a")}, "old row");
  ExpectColumns(changes[6]->new_columns, {Text("1"), Text("b")}, "new row");
  EXPECT_EQ(changes[7]->name, "Delete");
  EXPECT_EQ(changes[7]->old_kind, OldTupleKind::kOld);
  ExpectColumns(changes[7]->old_columns, {Text("1"), Text("b")}, "deleted row");

  EXPECT_EQ(changes[8]->name, "Message");
  EXPECT_TRUE(changes[8]->flag);
  EXPECT_EQ(changes[8]->text1, "floe");
  EXPECT_EQ(changes[8]->text2, "hello");

  EXPECT_EQ(changes[9]->name, "Truncate");
  EXPECT_EQ(changes[9]->options, 0);
  std::vector<uint32_t> truncated = changes[9]->relation_ids;
  std::sort(truncated.begin(), truncated.end());
  std::vector<uint32_t> both = {items, full};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(truncated, both);

  EXPECT_EQ(changes[10]->name, "Insert");
  EXPECT_EQ(changes[10]->new_columns[0].data, "100");
}

// The two large transactions came in stream blocks: every data message in a
// block carries the block's xid; one ends in Stream Commit, one in Stream Abort.
void ExpectStreamBlocks(const std::vector<Event>& events, uint32_t full, int streamed_rows) {
  std::map<uint32_t, int> streamed_inserts;
  std::map<uint32_t, int> first_segments;
  std::vector<std::string> endings;
  uint32_t open = 0;
  for (const Event& e : events) {
    if (e.name == "Stream Start") {
      ASSERT_EQ(open, 0u) << "Stream Start inside a stream block";
      open = e.xid;
      first_segments[e.xid] += e.flag ? 1 : 0;
    } else if (e.name == "Stream Stop") {
      ASSERT_NE(open, 0u);
      open = 0;
    } else if (e.name == "Stream Commit" || e.name == "Stream Abort") {
      ASSERT_EQ(open, 0u);
      ASSERT_EQ(streamed_inserts.count(e.xid), 1u) << e.name << " of a transaction never streamed";
      // A commit streams what is left; an abort drops what was not streamed yet.
      if (e.name == "Stream Commit") {
        EXPECT_EQ(streamed_inserts[e.xid], streamed_rows);
      } else {
        EXPECT_GT(streamed_inserts[e.xid], 0);
        EXPECT_LE(streamed_inserts[e.xid], streamed_rows);
      }
      EXPECT_EQ(first_segments[e.xid], 1) << e.name;
      if (e.name == "Stream Abort") {
        EXPECT_EQ(e.relation_id, e.xid) << "subxid of a top-level abort";
      } else {
        EXPECT_GT(e.end_lsn, e.lsn);
      }
      endings.push_back(e.name);
    } else if (open != 0 && (e.name == "Insert" || e.name == "Relation")) {
      EXPECT_EQ(e.xid, open);
      if (e.name == "Insert") {
        EXPECT_EQ(e.relation_id, full);
        ++streamed_inserts[e.xid];
      }
    }
  }
  EXPECT_EQ(endings, (std::vector<std::string>{"Stream Commit", "Stream Abort"}));
}

TEST_F(PgoutputIntegrationTest, DecodesAWorkloadStreamedByTheServer) {
  ASSERT_NO_FATAL_FAILURE(CreateTables());
  Lsn consistent_point;
  ASSERT_NO_FATAL_FAILURE(CreateSlot(&consistent_point));

  std::string big;
  for (int i = 0; big.size() < 3000; ++i) big += "toast-" + std::to_string(i * 7919 % 10007) + ";";
  constexpr int kStreamedRows = 2000;
  const std::string wal_after_workload = RunWorkload(big, kStreamedRows);
  ASSERT_NO_FATAL_FAILURE(StartStreaming());

  std::vector<Event> events;
  Lsn acknowledged;
  int keepalives = 0;
  ASSERT_NO_FATAL_FAILURE(ReadUntilLastCommit(&events, &acknowledged, &keepalives));
  ASSERT_NO_FATAL_FAILURE(ExpectSlotConfirmed(acknowledged));
  auto wal_after = Lsn::Parse(wal_after_workload);
  ASSERT_TRUE(wal_after);
  EXPECT_GT(acknowledged, consistent_point);
  EXPECT_LE(acknowledged, *wal_after);

  uint32_t items = 0, full = 0;
  ASSERT_NO_FATAL_FAILURE(ExpectRelations(events, table_, full_table_, &items, &full));
  ASSERT_NO_FATAL_FAILURE(ExpectBeginCommitPairs(events));
  ASSERT_NO_FATAL_FAILURE(ExpectRowChanges(events, items, full, big));
  ExpectStreamBlocks(events, full, kStreamedRows);
  RecordProperty("messages", static_cast<int>(events.size()));
  RecordProperty("keepalives", keepalives);
}

}  // namespace
}  // namespace floe::cdc::postgres
