// ReplicationClient against a real PostgreSQL (scripts/services/postgres.sh
// start). Reads FLOE_TEST_POSTGRES_HOST, _PORT, _USER, _PASSWORD and
// _DATABASE; skipped when FLOE_TEST_POSTGRES_PORT is unset or nothing answers.
//
// The publication made in filtered mode and the slot made once; the stream
// read with a timeout; the slot's confirmed_flush_lsn left where it was by
// status updates until the caller sets a flushed LSN, then moved exactly
// there; a slot in use refused; the slot dropped.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/replication_client.h"

namespace floe::cdc::postgres {
namespace {

using Clock = std::chrono::steady_clock;

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

class ReplicationClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("FLOE_TEST_POSTGRES_PORT")) {
      GTEST_SKIP() << "FLOE_TEST_POSTGRES_PORT is not set (scripts/services/postgres.sh start "
                      "runs a server; scripts/test.sh sets it)";
    }
    options_.host = Env("FLOE_TEST_POSTGRES_HOST", "127.0.0.1");
    options_.port = static_cast<uint16_t>(std::stoi(Env("FLOE_TEST_POSTGRES_PORT", "5433")));
    options_.user = Env("FLOE_TEST_POSTGRES_USER", "floe");
    options_.password = Env("FLOE_TEST_POSTGRES_PASSWORD", "floe");
    options_.database = Env("FLOE_TEST_POSTGRES_DATABASE", "floe");
    const std::string conninfo = "host=" + options_.host +
                                 " port=" + std::to_string(options_.port) +
                                 " user=" + options_.user + " password=" + options_.password +
                                 " dbname=" + options_.database + " connect_timeout=5";
    if (PQping(conninfo.c_str()) == PQPING_NO_RESPONSE) {
      GTEST_SKIP() << "no PostgreSQL answers on " << options_.host << ":" << options_.port;
    }
    sql_ = PQconnectdb(conninfo.c_str());
    ASSERT_EQ(PQstatus(sql_), CONNECTION_OK) << PQerrorMessage(sql_);
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string suffix = std::to_string(
        std::chrono::duration_cast<std::chrono::microseconds>(now).count() % 1000000000000LL);
    table_ = "rc_items_" + suffix;
    options_.slot = "rc_slot_" + suffix;
    options_.publication = "rc_pub_" + suffix;
    options_.autocreate = PublicationAutocreate::kFiltered;
    options_.tables = {"public." + table_};
    Exec("CREATE TABLE " + table_ + " (id int PRIMARY KEY, v text)");
  }

  void TearDown() override {
    if (!sql_) return;
    Exec(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '" +
        options_.slot + "' AND active_pid IS NULL");
    Exec("DROP PUBLICATION IF EXISTS " + options_.publication);
    Exec("DROP TABLE IF EXISTS " + table_);
    PQfinish(sql_);
  }

  void Exec(const std::string& sql) {
    PGresult* r = PQexec(sql_, sql.c_str());
    auto s = PQresultStatus(r);
    EXPECT_TRUE(s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        << sql << ": " << PQresultErrorMessage(r);
    PQclear(r);
  }

  std::string Query(const std::string& sql) {
    PGresult* r = PQexec(sql_, sql.c_str());
    std::string out =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)
            ? PQgetvalue(r, 0, 0)
            : "";
    PQclear(r);
    return out;
  }

  std::string ConfirmedFlush() {
    return Query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" +
                 options_.slot + "'");
  }

  ReplicationClientOptions options_;
  PGconn* sql_ = nullptr;
  std::string table_;
};

TEST_F(ReplicationClientIntegrationTest, StreamsAndConfirmsOnlyWhatTheCallerFlushed) {
  auto client = ReplicationClient::Connect(options_);
  ASSERT_TRUE(client) << client.error().ToString();
  EXPECT_GE((*client)->server_version(), 100000);
  auto slot = (*client)->Prepare();
  ASSERT_TRUE(slot) << slot.error().ToString();
  EXPECT_TRUE(slot->created);
  EXPECT_TRUE(slot->confirmed_flush_lsn.valid());
  EXPECT_EQ(Query("SELECT count(*) FROM pg_publication_tables WHERE pubname = '" +
                  options_.publication + "' AND tablename = '" + table_ + "'"),
            "1");
  const std::string start = ConfirmedFlush();
  EXPECT_EQ(start, slot->confirmed_flush_lsn.ToString());

  Exec("INSERT INTO " + table_ + " VALUES (1, 'a'), (2, 'b')");
  ASSERT_TRUE((*client)->StartStreaming(Lsn{}));

  PgoutputDecoder decoder((*client)->protocol_version());
  Lsn commit_end;
  int inserts = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!commit_end.valid() && Clock::now() < deadline) {
    auto frame = (*client)->Next(std::chrono::milliseconds(200));
    ASSERT_TRUE(frame) << frame.error().ToString();
    if (!*frame) continue;
    auto message = decoder.Decode((*frame)->data);
    ASSERT_TRUE(message) << message.error().ToString();
    if (std::holds_alternative<InsertMessage>(*message)) ++inserts;
    if (const auto* c = std::get_if<CommitMessage>(&*message)) commit_end = c->end_lsn;
  }
  ASSERT_TRUE(commit_end.valid()) << "no Commit within 30 s";
  EXPECT_EQ(inserts, 2);

  // Status updates without a flushed LSN leave the slot where it was.
  ASSERT_TRUE((*client)->SendStatus(/*reply_requested=*/true));
  auto idle = (*client)->Next(std::chrono::milliseconds(500));
  ASSERT_TRUE(idle) << idle.error().ToString();
  EXPECT_FALSE(idle->has_value());
  EXPECT_EQ(ConfirmedFlush(), start);

  // Once the caller says it holds the transaction, the slot confirms exactly that.
  (*client)->set_flushed(commit_end);
  (*client)->set_flushed(Lsn{1});  // never backwards
  EXPECT_EQ((*client)->flushed(), commit_end);
  ASSERT_TRUE((*client)->SendStatus(true));
  std::string confirmed;
  for (int i = 0; i < 100 && confirmed != commit_end.ToString(); ++i) {
    auto f = (*client)->Next(std::chrono::milliseconds(50));
    ASSERT_TRUE(f) << f.error().ToString();
    confirmed = ConfirmedFlush();
  }
  EXPECT_EQ(confirmed, commit_end.ToString());

  // A second client finds the slot and is refused while it streams.
  auto other = ReplicationClient::Connect(options_);
  ASSERT_TRUE(other) << other.error().ToString();
  auto in_use = (*other)->Prepare();
  ASSERT_FALSE(in_use);
  EXPECT_EQ(in_use.error().code(), ErrorCode::kIo);
  EXPECT_NE(in_use.error().message().find("is in use by the server process with pid"),
            std::string::npos)
      << in_use.error().message();
  auto busy = (*other)->DropSlot(std::chrono::milliseconds(200));
  ASSERT_FALSE(busy);

  // Hung up, the slot can be found again (not created) and dropped.
  client->reset();
  ReplicationClientOptions disabled = options_;
  disabled.autocreate = PublicationAutocreate::kDisabled;
  std::unique_ptr<ReplicationClient> third;
  for (int i = 0; i < 50; ++i) {
    auto c = ReplicationClient::Connect(disabled);
    ASSERT_TRUE(c) << c.error().ToString();
    auto again = (*c)->Prepare();
    if (again) {
      EXPECT_FALSE(again->created);
      EXPECT_EQ(again->confirmed_flush_lsn, commit_end);
      third = std::move(*c);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(third) << "the slot stayed active after its client hung up";
  ASSERT_TRUE(third->DropSlot());
  auto gone = third->DropSlot();
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::kNotFound);
}

TEST_F(ReplicationClientIntegrationTest, RefusesWhatTheServerCannotDo) {
  ReplicationClientOptions norepl = options_;
  norepl.user = "floe_norepl";
  auto c = ReplicationClient::Connect(norepl);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(c.error().message().find("REPLICATION"), std::string::npos);

  ReplicationClientOptions missing = options_;
  missing.autocreate = PublicationAutocreate::kDisabled;
  auto client = ReplicationClient::Connect(missing);
  ASSERT_TRUE(client) << client.error().ToString();
  auto p = (*client)->Prepare();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code(), ErrorCode::kNotFound);

  ReplicationClientOptions all = options_;
  all.autocreate = PublicationAutocreate::kAllTables;
  auto c2 = ReplicationClient::Connect(all);
  ASSERT_TRUE(c2) << c2.error().ToString();
  auto p2 = (*c2)->Prepare();
  ASSERT_FALSE(p2);
  EXPECT_NE(p2.error().message().find("needs a superuser"), std::string::npos);

  ReplicationClientOptions wrong = options_;
  wrong.password = "not-the-password";
  auto c3 = ReplicationClient::Connect(wrong);
  ASSERT_FALSE(c3);
  EXPECT_EQ(c3.error().code(), ErrorCode::kIo);

  EXPECT_FALSE(ParsePublicationAutocreate("sometimes"));
  EXPECT_EQ(*ParsePublicationAutocreate("filtered"), PublicationAutocreate::kFiltered);
}

}  // namespace
}  // namespace floe::cdc::postgres
