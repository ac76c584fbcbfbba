// Capture against a real MariaDB (scripts/services/mariadb.sh start). Reads
// FLOE_TEST_MYSQL_HOST/PORT/USER/PASSWORD; skipped only when
// FLOE_TEST_MYSQL_PORT is unset.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "floe/cdc/mysql/capture.h"
#include "floe/cdc/mysql/information_schema.h"
#include "floe/cdc/mysql/replication.h"
#include "floe/cdc/mysql/snapshot.h"

namespace floe::cdc::mysql {
namespace {

using types::SameValue;
using types::Value;

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

class CaptureIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::getenv("FLOE_TEST_MYSQL_PORT")) GTEST_SKIP() << "FLOE_TEST_MYSQL_PORT is not set";
    options_.host = Env("FLOE_TEST_MYSQL_HOST", "127.0.0.1");
    options_.port = static_cast<uint16_t>(std::stoi(Env("FLOE_TEST_MYSQL_PORT", "3307")));
    options_.user = Env("FLOE_TEST_MYSQL_USER", "floe");
    options_.password = Env("FLOE_TEST_MYSQL_PASSWORD", "floe");
    auto c = Connection::Open(options_);
    ASSERT_TRUE(c) << c.error().ToString();
    conn_ = std::move(*c);
    ASSERT_TRUE(conn_->Execute("SET SESSION sql_mode = ''"));
    ASSERT_TRUE(conn_->Execute("SET SESSION time_zone = '+00:00'"));
    suffix_ =
        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000000);
  }

  void Exec(const std::string& sql) {
    auto st = conn_->Execute(sql);
    ASSERT_TRUE(st) << st.error().ToString();
  }

  // Captures from `start` until `want` row changes of tables matching `regex`
  // arrived (or 30 s passed).
  std::vector<ChangeBatch> CaptureUntil(const SourcePosition& start, const std::string& regex,
                                        size_t want, size_t* rows_seen) {
    CaptureOptions o;
    o.connection = options_;
    o.tables = regex;
    o.startup = StartupMode::kPosition;
    o.start_position = start.binlog;
    o.server_id = 60000 + static_cast<uint32_t>(std::rand() % 1000);
    o.heartbeat_seconds = 1;
    auto cap = MySqlCapture::Open(o);
    EXPECT_TRUE(cap) << cap.error().ToString();
    std::vector<ChangeBatch> batches;
    if (!cap) return batches;
    std::atomic<bool> stop{false};
    size_t rows = 0;
    std::thread watchdog([&] {
      for (int i = 0; i < 300 && !stop.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stop.store(true);
    });
    auto st = (*cap)->Run(
        [&](ChangeBatch& b) -> Status {
          for (const auto& e : b.events) rows += std::holds_alternative<RowChange>(e) ? 1 : 0;
          batches.push_back(std::move(b));
          b = ChangeBatch();
          if (rows >= want) stop.store(true);
          return Ok();
        },
        stop);
    stop.store(true);
    watchdog.join();
    EXPECT_TRUE(st) << st.error().ToString();
    *rows_seen = rows;
    return batches;
  }

  ConnectionOptions options_;
  std::unique_ptr<Connection> conn_;
  std::string suffix_;
};

std::string Show(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNull:
      return "null";
    case Value::Kind::kBool:
      return v.b ? "true" : "false";
    case Value::Kind::kInt32:
      return std::to_string(v.i32);
    case Value::Kind::kInt64:
      return std::to_string(v.i64);
    case Value::Kind::kFloat:
      return std::to_string(v.f32);
    case Value::Kind::kDouble:
      return std::to_string(v.f64);
    case Value::Kind::kDecimal:
      return "dec:" + std::to_string(static_cast<int64_t>(v.decimal));
    case Value::Kind::kBytes:
      return "'" + std::string(v.as_bytes()) + "'";
    default:
      return "?";
  }
}

// Every column type: the value decoded from the binlog equals the value
// selected from the table (read by the snapshot reader, which parses SELECT text).
TEST_F(CaptureIntegrationTest, EveryColumnTypeRoundTrips) {
  const std::string table = "types_" + suffix_;
  Exec("CREATE TABLE floe_test." + table + R"( (
    id INT NOT NULL PRIMARY KEY,
    ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
    mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
    b BOOL, d1 DECIMAL(10,2), d2 DECIMAL(38,10), d3 DECIMAL(65,30), d4 DECIMAL(5,0),
    f FLOAT, db DOUBLE, bt1 BIT(1), bt BIT(17), y YEAR,
    dt DATE, dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP(3) NULL, ts0 TIMESTAMP NULL,
    tm TIME, tm2 TIME(2), tm6 TIME(6),
    c CHAR(5), vc VARCHAR(50), cl CHAR(10) CHARACTER SET latin1, vl VARCHAR(20) CHARACTER SET latin1,
    v3 VARCHAR(20) CHARACTER SET utf8mb3, tx TEXT, ltx LONGTEXT, tl TINYTEXT CHARACTER SET latin1,
    bn BINARY(4), vb VARBINARY(10), bl BLOB, mbl MEDIUMBLOB,
    e ENUM('red','green','blue'), s SET('a','b','c','d'), j JSON, g GEOMETRY, pt POINT,
    u16 VARCHAR(10) CHARACTER SET utf16, big_c CHAR(255)
  ) DEFAULT CHARSET=utf8mb4)");
  auto start = CurrentPosition(*conn_);
  ASSERT_TRUE(start) << start.error().ToString();
  Exec("INSERT INTO floe_test." + table + R"( VALUES
    (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
     -9223372036854775808, 18446744073709551615, TRUE, -12345678.90, 1234567890123456789012345678.0123456789,
     -12345678901234567890123456789012345.123456789012345678901234567890, 99999,
     3.25, -1.5e300, b'1', b'10110011100011110', 2155,
     '2024-02-29', '9999-12-31 23:59:59', '1000-01-01 00:00:00.000001', '2038-01-19 03:14:07.999', '1970-01-01 00:00:01',
     '-838:59:59', '838:59:58.99', '-00:00:00.000001',
     'ab', 'héllo wörld 😀', 'été', 'ça va', 'ñandú', REPEAT('x', 300), 'long 长', 'dé',
     X'0102', X'00FF00', X'DEADBEEF', REPEAT(X'AB', 70000),
     'blue', 'a,d', '{"k": [1, 2.5, "s", null, true], "n": {"m": -3}}', ST_GeomFromText('LINESTRING(0 0, 1 1)'),
     POINT(1.5, -2.5), 'ü𝄞', REPEAT('é', 255)),
    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, FALSE, 0, 0, 0, 0, 0, 0, b'0', b'0', 0,
     '0000-00-00', '0000-00-00 00:00:00', '2000-01-01 12:00:00.5', '2000-01-01 00:00:00', NULL,
     '00:00:00', '-01:00:00.50', '100:00:00.123456', '', '', '', '', '', '', '', '',
     '', '', '', '', '', '', '[]', NULL, NULL, '', ''))");
  Exec("UPDATE floe_test." + table + " SET vc = 'changed', tm = '-12:34:56' WHERE id = 1");
  Exec("DELETE FROM floe_test." + table + " WHERE id = 3");
  size_t rows = 0;
  auto batches = CaptureUntil(*start, "floe_test\\." + table, 5, &rows);
  ASSERT_EQ(rows, 5u);

  // What SELECT gives now (rows 1 and 2), through the snapshot reader.
  auto schema = ReadTableSchema(conn_->handle(), "floe_test", table);
  ASSERT_TRUE(schema && *schema) << (schema ? "missing" : schema.error().ToString());
  auto def = MakeTableDefinition(**schema, 1);
  ASSERT_TRUE(def) << def.error().ToString();
  auto snap = Snapshot::Open(options_);
  ASSERT_TRUE(snap) << snap.error().ToString();
  std::vector<ChangeBatch> selected;
  ASSERT_TRUE((*snap)->ReadTable(**schema, *def, [&](ChangeBatch& b) -> Status {
    selected.push_back(std::move(b));
    b = ChangeBatch();
    return Ok();
  }));
  std::map<int32_t, types::Row> selected_rows;
  for (const auto& b : selected) {
    for (const auto& e : b.events) {
      const auto& rc = std::get<RowChange>(e);
      selected_rows[rc.after[0].i32] = rc.after;
    }
  }
  ASSERT_EQ(selected_rows.size(), 2u);

  // The final image of each row in the stream equals the selected row.
  std::map<int32_t, types::Row> streamed;
  std::vector<RowChange> all;
  for (const auto& b : batches) {
    for (const auto& e : b.events) {
      if (!std::holds_alternative<RowChange>(e)) continue;
      const auto& rc = std::get<RowChange>(e);
      all.push_back(rc);
      if (rc.op == ChangeOp::kDelete) {
        streamed.erase(rc.before[0].i32);
      } else {
        streamed[rc.after[0].i32] = rc.after;
      }
    }
  }
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[3].op, ChangeOp::kUpdate);
  EXPECT_EQ(all[4].op, ChangeOp::kDelete);
  ASSERT_EQ(streamed.size(), 2u);
  const auto& cols = (*def)->columns;
  for (const auto& [id, row] : selected_rows) {
    const auto& got = streamed[id];
    ASSERT_EQ(got.size(), row.size());
    for (size_t i = 0; i < row.size(); ++i) {
      EXPECT_TRUE(SameValue(got[i], row[i]))
          << "row " << id << " column " << cols[i].name << ": binlog " << Show(got[i])
          << " vs select " << Show(row[i]);
    }
  }
  // A few values checked against their meaning, not just against SELECT.
  const auto& r1 = streamed[1];
  EXPECT_TRUE(r1[10].decimal == static_cast<types::int128_t>(18446744073709551615ull));  // biu
  EXPECT_EQ(r1[26].i64, -(12LL * 3600 + 34 * 60 + 56) * 1000000);                        // tm
  EXPECT_EQ(r1[27].i64, (838LL * 3600 + 59 * 60 + 58) * 1000000 + 990000);               // tm2
  EXPECT_EQ(r1[28].i64, -1);                                                             // tm6
  EXPECT_EQ(r1[30].as_bytes(), "changed");
  EXPECT_EQ(r1[31].as_bytes(), "\xc3\xa9t\xc3\xa9");  // latin1
  EXPECT_EQ(r1[41].as_bytes(), "blue");
  EXPECT_EQ(r1[42].as_bytes(), "a,d");
  EXPECT_EQ(r1[37].as_bytes(), std::string_view("\x01\x02\x00\x00", 4));  // BINARY(4)
  // The deleted row's zero dates came through as nulls.
  EXPECT_TRUE(all[2].after[21].is_null());
  EXPECT_TRUE(all[2].after[22].is_null());
  ASSERT_TRUE((*snap)->Close());
  Exec("DROP TABLE floe_test." + table);
}

// MariaDB allows DECIMAL scales up to 38 (MySQL: 30): such columns are
// captured, from the binlog and by SELECT alike.
TEST_F(CaptureIntegrationTest, MariadbWideScaleDecimalsRoundTrip) {
  if (!conn_->is_mariadb()) GTEST_SKIP() << "MySQL allows DECIMAL scales up to 30 only";
  const std::string table = "decimals_" + suffix_;
  Exec("CREATE TABLE floe_test." + table +
       " (id INT NOT NULL PRIMARY KEY, a DECIMAL(38,32), b DECIMAL(40,35), c DECIMAL(38,38))");
  auto start = CurrentPosition(*conn_);
  ASSERT_TRUE(start) << start.error().ToString();
  Exec("INSERT INTO floe_test." + table +
       " VALUES (1, 123456.12345678901234567890123456789012, "
       "-12345.12345678901234567890123456789012345,"
       " 0.12345678901234567890123456789012345678), (2, NULL, NULL, NULL),"
       " (3, -0.00000000000000000000000000000001, 0, -0.00000000000000000000000000000000000001)");
  size_t rows = 0;
  auto batches = CaptureUntil(*start, "floe_test\\." + table, 3, &rows);
  ASSERT_EQ(rows, 3u);
  auto schema = ReadTableSchema(conn_->handle(), "floe_test", table);
  ASSERT_TRUE(schema && *schema);
  auto def = MakeTableDefinition(**schema, 1);
  ASSERT_TRUE(def) << def.error().ToString();
  EXPECT_EQ((*def)->schema.fields()[1].type->ToString(), "decimal(38, 32)");
  EXPECT_EQ((*def)->schema.fields()[2].type->ToString(), "string");
  auto snap = Snapshot::Open(options_);
  ASSERT_TRUE(snap);
  std::map<int32_t, std::vector<Value>> selected;
  Arena arena;
  ASSERT_TRUE((*snap)->ReadTable(**schema, *def, [&](ChangeBatch& b) -> Status {
    for (const auto& e : b.events) {
      const auto& rc = std::get<RowChange>(e);
      for (const auto& v : rc.after)
        selected[rc.after[0].i32].push_back(types::DeepCopy(v, &arena));
    }
    return Ok();
  }));
  ASSERT_EQ(selected.size(), 3u);
  size_t compared = 0;
  for (const auto& b : batches) {
    for (const auto& e : b.events) {
      const auto* rc = std::get_if<RowChange>(&e);
      if (rc == nullptr) continue;
      const auto& want = selected.at(rc->after[0].i32);
      ASSERT_EQ(want.size(), rc->after.size());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(SameValue(rc->after[i], want[i]))
            << "row " << rc->after[0].i32 << " column " << i << ": binlog " << Show(rc->after[i])
            << " vs select " << Show(want[i]);
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3u);
  ASSERT_TRUE((*snap)->Close());
  Exec("DROP TABLE floe_test." + table);
}

// Snapshot of a 100k-row table while another connection updates, inserts and
// deletes in multi-statement transactions; snapshot + stream, applied to an
// in-memory model, equals the final table.
TEST_F(CaptureIntegrationTest, SnapshotWithConcurrentUpdatesEqualsFinalTable) {
  const std::string table = "snap_" + suffix_;
  const std::string fq = "floe_test." + table;
  Exec("CREATE TABLE " + fq + " (id INT PRIMARY KEY, v BIGINT, s VARCHAR(40), d DECIMAL(12,3))");
  Exec(conn_->is_mariadb() ? "SET SESSION max_recursive_iterations = 200000"
                           : "SET SESSION cte_max_recursion_depth = 200000");
  Exec(
      "INSERT INTO " + fq +
      " (id, v, s, d) WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL "
      "SELECT n + 1 FROM seq WHERE n < 100000) SELECT n, n * 3, CONCAT('row-', n), n / 7 FROM seq");
  CaptureOptions o;
  o.connection = options_;
  o.tables = "floe_test\\." + table;
  o.startup = StartupMode::kInitial;
  o.snapshot_chunk_rows = 5000;
  o.server_id = 61000 + static_cast<uint32_t>(std::rand() % 1000);
  o.heartbeat_seconds = 1;
  auto cap = MySqlCapture::Open(o);
  ASSERT_TRUE(cap) << cap.error().ToString();

  // The writer's last statement always writes a row change (id 1 with s =
  // 'last'); the run stops at the transaction that carries it. (Stopping at
  // the server's position read once the writer was done raced with the
  // capture: when the last event was delivered first, no later batch came and
  // the run never stopped.) A deadline bounds the whole run.
  std::thread writer([&] {
    auto w = Connection::Open(options_);
    ASSERT_TRUE(w);
    std::mt19937 rng(42);
    for (int t = 0; t < 300; ++t) {
      ASSERT_TRUE((*w)->Execute("BEGIN"));
      for (int k = 0; k < 5; ++k) {
        int id = static_cast<int>(rng() % 120000) + 1;
        switch (rng() % 3) {
          case 0:
            ASSERT_TRUE((*w)->Execute(
                fmt::format("UPDATE {} SET v = v + 1, s = 'upd-{}' WHERE id = {}", fq, t, id)));
            break;
          case 1:
            ASSERT_TRUE((*w)->Execute(fmt::format(
                "INSERT INTO {} VALUES ({}, {}, 'ins', 1.5) ON DUPLICATE KEY UPDATE d = d + 1", fq,
                id, t)));
            break;
          default:
            ASSERT_TRUE((*w)->Execute(fmt::format("DELETE FROM {} WHERE id = {}", fq, id)));
        }
      }
      ASSERT_TRUE((*w)->Execute("COMMIT"));
    }
    ASSERT_TRUE((*w)->Execute(fmt::format(
        "INSERT INTO {} VALUES (1, 0, 'last', 0) ON DUPLICATE KEY UPDATE s = 'last'", fq)));
  });

  // The model: id -> row values (deep-copied into one arena).
  Arena model_arena;
  std::map<int32_t, std::vector<Value>> model;
  std::atomic<bool> stop{false};
  bool saw_last = false;
  bool timed_out = false;
  std::thread deadline([&] {
    for (int i = 0; i < 1200 && !stop.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!stop.load()) timed_out = true;
    stop.store(true);
  });
  auto st = (*cap)->Run(
      [&](ChangeBatch& b) -> Status {
        for (const auto& e : b.events) {
          const auto* rc = std::get_if<RowChange>(&e);
          if (!rc) continue;
          if (rc->op == ChangeOp::kDelete) {
            model.erase(rc->before[0].i32);
          } else {
            std::vector<Value> row;
            for (const auto& v : rc->after) row.push_back(types::DeepCopy(v, &model_arena));
            model[rc->after[0].i32] = std::move(row);
            if (rc->op != ChangeOp::kRead && rc->after[2].as_bytes() == "last") saw_last = true;
          }
        }
        if (saw_last && b.ends_transaction) stop.store(true);
        return Ok();
      },
      stop);
  stop.store(true);
  deadline.join();
  writer.join();
  ASSERT_TRUE(st) << st.error().ToString();
  ASSERT_FALSE(timed_out) << "the capture did not deliver the writer's last row within 120 s";
  ASSERT_TRUE(saw_last);

  // The final table, read by the snapshot reader.
  auto schema = ReadTableSchema(conn_->handle(), "floe_test", table);
  ASSERT_TRUE(schema && *schema);
  auto def = MakeTableDefinition(**schema, 1);
  ASSERT_TRUE(def);
  auto snap = Snapshot::Open(options_);
  ASSERT_TRUE(snap);
  size_t compared = 0, mismatches = 0;
  std::set<int32_t> seen;
  ASSERT_TRUE((*snap)->ReadTable(**schema, *def, [&](ChangeBatch& b) -> Status {
    for (const auto& e : b.events) {
      const auto& rc = std::get<RowChange>(e);
      int32_t id = rc.after[0].i32;
      seen.insert(id);
      auto it = model.find(id);
      if (it == model.end()) {
        ++mismatches;
        continue;
      }
      for (size_t i = 0; i < rc.after.size(); ++i) {
        if (!SameValue(rc.after[i], it->second[i])) {
          ++mismatches;
          break;
        }
      }
      ++compared;
    }
    return Ok();
  }));
  ASSERT_TRUE((*snap)->Close());
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(model.size(), seen.size());
  EXPECT_GT(compared, 90000u);
  Exec("DROP TABLE " + fq);
}

TEST_F(CaptureIntegrationTest, WrongPasswordIsOneClearMessage) {
  ConnectionOptions o = options_;
  o.password = "definitely-wrong";
  auto c = Connection::Open(o);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("access denied"), std::string::npos) << c.error().message();
  EXPECT_NE(c.error().message().find("password"), std::string::npos);
}

TEST_F(CaptureIntegrationTest, MissingPrivilegeNamesTheGrant) {
  CaptureOptions o;
  o.connection = options_;
  o.connection.user = "floe_noprivs";
  auto cap = MySqlCapture::Open(o);
  ASSERT_FALSE(cap);
  EXPECT_EQ(cap.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(cap.error().message().find("GRANT REPLICATION SLAVE"), std::string::npos)
      << cap.error().message();
}

TEST_F(CaptureIntegrationTest, StatementFormatNamesTheSetting) {
  Exec("SET GLOBAL binlog_format = 'STATEMENT'");
  CaptureOptions o;
  o.connection = options_;
  auto cap = MySqlCapture::Open(o);
  Exec("SET GLOBAL binlog_format = 'ROW'");
  ASSERT_FALSE(cap);
  EXPECT_NE(cap.error().message().find("binlog_format is STATEMENT"), std::string::npos)
      << cap.error().message();
  EXPECT_NE(cap.error().message().find("SET GLOBAL binlog_format = 'ROW'"), std::string::npos);
}

TEST_F(CaptureIntegrationTest, PurgedPositionNamesTheEarliest) {
  auto files = ListBinlogFiles(*conn_);
  ASSERT_TRUE(files && !files->empty());
  CaptureOptions o;
  o.connection = options_;
  o.startup = StartupMode::kPosition;
  o.start_position = {"mariadb-bin.000000", 4};
  auto cap = MySqlCapture::Open(o);
  ASSERT_TRUE(cap) << cap.error().ToString();
  std::atomic<bool> stop{false};
  auto st = (*cap)->Run([](ChangeBatch&) { return Ok(); }, stop);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(st.error().message().find("earliest available position is " + (*files)[0].name + ":4"),
            std::string::npos)
      << st.error().message();
}

}  // namespace
}  // namespace floe::cdc::mysql
