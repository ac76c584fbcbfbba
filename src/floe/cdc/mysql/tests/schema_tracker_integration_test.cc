// Runs DDL on a real MariaDB/MySQL server and checks, after every statement,
// that the schema tracker's view of each touched table equals what the server
// reports in information_schema (read by ReadTableSchema).
//
// Needs the server of scripts/services/mariadb.sh (FLOE_TEST_MYSQL_HOST/PORT/
// USER/PASSWORD); skipped when FLOE_TEST_MYSQL_PORT is unset. Uses tables
// named ddlit_* in the floe_test database.

#include <gtest/gtest.h>
#include <mysql.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "floe/cdc/mysql/information_schema.h"
#include "floe/cdc/mysql/schema_tracker.h"

namespace floe::cdc::mysql {
namespace {

constexpr const char* kDb = "floe_test";

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// What both sides must agree on, as text, so a mismatch prints readably.
std::string Normalized(const TableSchema& t) {
  std::string out;
  for (const auto& c : t.columns) {
    MysqlType type = c.type;
    // MariaDB's JSON is LONGTEXT with a json_valid CHECK.
    if (type == MysqlType::kJson) type = MysqlType::kLongText;
    out += c.name + " " + std::string(MysqlTypeName(type));
    if (c.type == MysqlType::kChar || c.type == MysqlType::kVarChar ||
        c.type == MysqlType::kBinary || c.type == MysqlType::kVarBinary ||
        c.type == MysqlType::kBit) {
      out += "(" + std::to_string(c.length.value_or(-1)) + ")";
    }
    if (c.type == MysqlType::kDecimal ||
        ((c.type == MysqlType::kFloat || c.type == MysqlType::kDouble) && c.precision)) {
      out += "(" + std::to_string(c.precision.value_or(-1)) + "," +
             std::to_string(c.scale.value_or(-1)) + ")";
    }
    if (IsTemporalType(c.type)) out += "(" + std::to_string(c.fsp) + ")";
    for (const auto& v : c.enum_values) out += " '" + v + "'";
    if (c.is_unsigned) out += " unsigned";
    out += c.nullable ? " null" : " not-null";
    if (c.auto_increment) out += " auto_increment";
    if (c.default_value && !c.generated_expr) out += " has-default";
    if (c.generated_expr) out += c.generated_stored ? " stored" : " virtual";
    out += "; ";
  }
  out += "PK(";
  for (const auto& k : t.primary_key) out += k + ",";
  out += ")";
  return out;
}

class SchemaTrackerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("FLOE_TEST_MYSQL_PORT") == nullptr) {
      GTEST_SKIP() << "FLOE_TEST_MYSQL_PORT is unset (start scripts/services/mariadb.sh)";
    }
    conn_ = mysql_init(nullptr);
    ASSERT_NE(conn_, nullptr);
    std::string host = Env("FLOE_TEST_MYSQL_HOST", "127.0.0.1");
    std::string user = Env("FLOE_TEST_MYSQL_USER", "floe");
    std::string password = Env("FLOE_TEST_MYSQL_PASSWORD", "floe");
    unsigned port = static_cast<unsigned>(std::atoi(Env("FLOE_TEST_MYSQL_PORT", "3307").c_str()));
    ASSERT_NE(mysql_real_connect(conn_, host.c_str(), user.c_str(), password.c_str(), kDb, port,
                                 nullptr, 0),
              nullptr)
        << mysql_error(conn_);
    for (const char* t : kTables) Exec(std::string("DROP TABLE IF EXISTS ") + t);
  }
  void TearDown() override {
    if (conn_ != nullptr) {
      for (const char* t : kTables) Exec(std::string("DROP TABLE IF EXISTS ") + t);
      mysql_close(conn_);
    }
  }

  bool Exec(const std::string& sql) {
    if (mysql_real_query(conn_, sql.data(), static_cast<unsigned long>(sql.size())) != 0) {
      ADD_FAILURE() << "server rejected: " << sql << ": " << mysql_error(conn_);
      return false;
    }
    if (MYSQL_RES* r = mysql_store_result(conn_)) mysql_free_result(r);
    return true;
  }

  static constexpr const char* kTables[] = {"ddlit_a", "ddlit_b", "ddlit_c", "ddlit_d",
                                            "ddlit_e", "ddlit_f", "ddlit_g", "ddlit_h"};
  MYSQL* conn_ = nullptr;
};

TEST_F(SchemaTrackerIntegrationTest, TrackerMatchesInformationSchemaAfterEveryStatement) {
  const std::vector<std::string> statements = {
      "CREATE TABLE ddlit_a (id INT NOT NULL AUTO_INCREMENT, name VARCHAR(50) NOT NULL, "
      "email VARCHAR(100), created DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3), PRIMARY KEY (id)) "
      "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
      "CREATE TABLE ddlit_b (a TINYINT, b SMALLINT UNSIGNED, c MEDIUMINT ZEROFILL, d INT(11), "
      "e BIGINT UNSIGNED NOT NULL, f BOOL, g DECIMAL, h DECIMAL(65,30), i NUMERIC(9,3), "
      "j FLOAT, k FLOAT(30), l DOUBLE(16,4), m REAL, n BIT, o BIT(64), p YEAR, q DATE, "
      "r TIME(4), s TIMESTAMP(6) NULL, PRIMARY KEY (e))",
      "CREATE TABLE ddlit_c (a CHAR, b CHAR(10) CHARACTER SET latin1, c NATIONAL CHAR(5), "
      "d NVARCHAR(10), e TINYTEXT, f TEXT, g MEDIUMTEXT, h LONGTEXT, i TEXT(50), "
      "j TEXT(1000), k LONG VARCHAR, l BINARY(16), m VARBINARY(512), n BLOB(300), "
      "o CHAR(4) CHARACTER SET binary, p LONG VARBINARY, q ENUM('x','y''s','z') NOT NULL "
      "DEFAULT 'x', r SET('a','b'), s JSON, t POINT, u GEOMETRY, v MULTIPOLYGON) "
      "DEFAULT CHARSET=utf8mb4",
      "CREATE TABLE ddlit_d (a INT, b INT, s INT AS (a + b), v INT GENERATED ALWAYS AS "
      "(a * 2) VIRTUAL, p INT AS (a - b) PERSISTENT, KEY (a), CONSTRAINT chk CHECK (a <> b))",
      "CREATE TABLE ddlit_e (id BIGINT NOT NULL, seq INT NOT NULL, payload TEXT) "
      "/*!50100 PARTITION BY HASH (id) PARTITIONS 2 */",
      "ALTER TABLE ddlit_a ADD COLUMN age TINYINT UNSIGNED AFTER name, ADD phone "
      "VARCHAR(20) FIRST",
      "ALTER TABLE ddlit_a ADD (city VARCHAR(40), zip CHAR(5) NOT NULL DEFAULT '00000')",
      "ALTER TABLE ddlit_a DROP COLUMN zip, MODIFY name VARCHAR(200) NOT NULL AFTER email",
      "ALTER TABLE ddlit_a CHANGE email email_address VARCHAR(150) NOT NULL",
      "ALTER TABLE ddlit_a RENAME COLUMN city TO town",
      "ALTER TABLE ddlit_a ALTER COLUMN town SET DEFAULT 'x', ALTER phone DROP DEFAULT",
      "ALTER TABLE ddlit_a ADD COLUMN IF NOT EXISTS town INT, DROP COLUMN IF EXISTS nope",
      "ALTER TABLE ddlit_a ADD INDEX ix (town), ADD UNIQUE KEY uk (email_address), "
      "ALGORITHM=INPLACE, LOCK=NONE",
      "ALTER TABLE ddlit_a CONVERT TO CHARACTER SET latin1",
      "ALTER TABLE ddlit_a MODIFY town TEXT(100), ADD notes TEXT, ADD big MEDIUMTEXT",
      "ALTER TABLE ddlit_a CONVERT TO CHARACTER SET utf8mb4",
      "ALTER TABLE ddlit_e ADD PRIMARY KEY (id, seq)",
      "ALTER TABLE ddlit_e REMOVE PARTITIONING",
      "ALTER TABLE ddlit_e DROP PRIMARY KEY, ADD PRIMARY KEY (seq)",
      "ALTER TABLE ddlit_e CHANGE seq sequence BIGINT NOT NULL FIRST",
      "ALTER TABLE ddlit_e DROP PRIMARY KEY",
      "ALTER TABLE ddlit_e ADD COLUMN rid INT NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST",
      "CREATE INDEX ix_seq ON ddlit_e (sequence)",
      "DROP INDEX ix_seq ON ddlit_e",
      "ALTER TABLE ddlit_e MODIFY payload LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
      "ALTER TABLE ddlit_d ADD COLUMN w INT AS (a + 1) STORED AFTER a, DROP COLUMN v",
      "CREATE TABLE ddlit_f LIKE ddlit_a",
      "ALTER TABLE ddlit_f ADD COLUMN extra JSON, DROP COLUMN age",
      "RENAME TABLE ddlit_a TO ddlit_g, ddlit_f TO ddlit_a",
      "ALTER TABLE ddlit_g RENAME TO ddlit_h",
      "TRUNCATE TABLE ddlit_h",
      "ALTER TABLE ddlit_h ADD COLUMN n INT NOT NULL DEFAULT 0 AFTER id, ENGINE=InnoDB",
      "CREATE OR REPLACE TABLE ddlit_f (k VARCHAR(10) PRIMARY KEY, v BLOB)",
      "DROP TABLE ddlit_f, ddlit_h",
      "DROP TABLE IF EXISTS ddlit_f",
  };
  SchemaTracker tracker;
  int compared = 0;
  for (const auto& sql : statements) {
    SCOPED_TRACE(sql);
    ASSERT_TRUE(Exec(sql));
    auto changes = tracker.Apply(sql, kDb);
    ASSERT_TRUE(changes) << changes.error().ToString();
    // Compare every table the tracker knows (and those the server has).
    for (const char* name : kTables) {
      auto server = ReadTableSchema(conn_, kDb, name);
      ASSERT_TRUE(server) << server.error().ToString();
      const TableSchema* tracked = tracker.Find(kDb, name);
      ASSERT_EQ(server->has_value(), tracked != nullptr) << name;
      if (tracked == nullptr) continue;
      EXPECT_EQ(Normalized(**server), Normalized(*tracked)) << name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
}

TEST_F(SchemaTrackerIntegrationTest, ReadTableSchemaDetails) {
  ASSERT_TRUE(
      Exec("CREATE TABLE ddlit_a (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'key', "
           "s VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'it''s', "
           "t TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), "
           "d DECIMAL(12,4) DEFAULT 1.5, n INT DEFAULT NULL, g INT AS (id + 1) VIRTUAL, "
           "PRIMARY KEY (id)) COMMENT='tbl' DEFAULT CHARSET=utf8mb4"));
  auto schema = ReadTableSchema(conn_, kDb, "ddlit_a");
  ASSERT_TRUE(schema) << schema.error().ToString();
  ASSERT_TRUE(schema->has_value());
  const TableSchema& t = **schema;
  EXPECT_EQ(t.comment, "tbl");
  EXPECT_EQ(t.charset, "utf8mb4");
  EXPECT_EQ(t.engine, "innodb");
  ASSERT_EQ(t.columns.size(), 6u);
  EXPECT_EQ(t.columns[0].comment, "key");
  EXPECT_TRUE(t.columns[0].auto_increment);
  EXPECT_EQ(t.columns[1].charset, "latin1");
  EXPECT_EQ(t.columns[1].collation, "latin1_bin");
  EXPECT_EQ(t.columns[1].default_value, "it's");
  EXPECT_EQ(t.columns[2].default_value, "CURRENT_TIMESTAMP(3)");
  EXPECT_EQ(t.columns[2].on_update, "CURRENT_TIMESTAMP(3)");
  EXPECT_EQ(t.columns[2].fsp, 3);
  EXPECT_EQ(t.columns[3].default_value, "1.5000");
  EXPECT_FALSE(t.columns[4].default_value.has_value());
  ASSERT_TRUE(t.columns[5].generated_expr.has_value());
  EXPECT_FALSE(t.columns[5].generated_stored);
  EXPECT_EQ(t.primary_key, std::vector<std::string>{"id"});

  auto missing = ReadTableSchema(conn_, kDb, "ddlit_nope");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());
}

}  // namespace
}  // namespace floe::cdc::mysql
