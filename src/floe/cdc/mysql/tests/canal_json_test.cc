#include "floe/cdc/mysql/canal_json.h"

#include <gtest/gtest.h>

namespace floe::cdc::mysql {
namespace {

using types::Value;

class CanalJsonTest : public ::testing::Test {
 protected:
  Status Decode(std::string_view message) { return reader_.Decode(message, &arena_, &events_); }

  std::string ErrorOf(std::string_view message) {
    Status status = Decode(message);
    EXPECT_FALSE(status) << message;
    return status ? "" : status.error().message();
  }

  CanalJsonReader reader_;
  Arena arena_;
  std::vector<DebeziumEvent> events_;
};

// The UPDATE example of Canal's documentation, as Flink's canal-json docs show it.
constexpr std::string_view kUpdate = R"j({
  "data": [{"id": "111", "name": "scooter", "description": "Big 2-wheel scooter", "weight": "5.18"}],
  "database": "inventory", "es": 1589373560000, "id": 9, "isDdl": false,
  "mysqlType": {"id": "INTEGER", "name": "VARCHAR(255)", "description": "VARCHAR(512)", "weight": "FLOAT"},
  "old": [{"weight": "5.15"}], "pkNames": ["id"], "sql": "",
  "sqlType": {"id": 4, "name": 12, "description": 12, "weight": 7},
  "table": "products", "ts": 1589373560798, "type": "UPDATE"})j";

TEST_F(CanalJsonTest, UpdateKeepsUnchangedColumnsInTheBeforeImage) {
  ASSERT_TRUE(Decode(kUpdate));
  ASSERT_EQ(events_.size(), 1u);
  const DebeziumEvent& e = events_[0];
  EXPECT_EQ(e.kind, DebeziumEvent::Kind::kRow);
  EXPECT_EQ(e.op, ChangeOp::kUpdate);
  EXPECT_EQ(e.db, "inventory");
  EXPECT_EQ(e.table, "products");
  EXPECT_EQ(e.ts_ms, 1589373560000);
  ASSERT_EQ(e.table_keys.size(), 1u);
  EXPECT_EQ(e.table_keys[0].primary_key, std::vector<std::string>{"id"});
  ASSERT_NE(e.row_schema, nullptr);
  ASSERT_EQ(e.row_schema->fields().size(), 4u);
  EXPECT_EQ(e.row_schema->fields()[0].name, "id");
  EXPECT_EQ(e.row_schema->fields()[0].id, 1);
  EXPECT_EQ(e.row_schema->fields()[3].name, "weight");
  ASSERT_EQ(e.after.size(), 4u);
  ASSERT_EQ(e.before.size(), 4u);
  EXPECT_EQ(e.after[0].i32, 111);
  EXPECT_EQ(e.after[1].as_bytes(), "scooter");
  EXPECT_FLOAT_EQ(e.after[3].f32, 5.18f);
  EXPECT_EQ(e.before[0].i32, 111);
  EXPECT_EQ(e.before[2].as_bytes(), "Big 2-wheel scooter");
  EXPECT_FLOAT_EQ(e.before[3].f32, 5.15f);
}

TEST_F(CanalJsonTest, InsertOfSeveralRowsWithMysqlTypes) {
  constexpr std::string_view kInsert = R"j({"data":[
      {"id":"1","price":"12.50","at":"2020-01-02 03:04:05.678","big":"18446744073709551615",
       "flag":"1","raw":"a\u00ff\u0000","bits":"257","note":null},
      {"id":2,"price":3.5,"at":null,"big":1,"flag":false,"raw":"","bits":"0","note":"x"}],
    "database":"shop","table":"t","pkNames":["id"],"isDdl":false,"type":"INSERT","es":7,
    "mysqlType":{"id":"int(11)","price":"decimal(10,2)","at":"datetime(3)",
                 "big":"bigint(20) unsigned","flag":"tinyint(1)","raw":"varbinary(8)",
                 "bits":"bit(12)","note":"text"}})j";
  ASSERT_TRUE(Decode(kInsert)) << Decode(kInsert).error().ToString();
  ASSERT_EQ(events_.size(), 2u);
  for (const DebeziumEvent& e : events_) {
    EXPECT_EQ(e.op, ChangeOp::kInsert);
    EXPECT_TRUE(e.before.empty());
    ASSERT_EQ(e.after.size(), 8u);
  }
  const auto& a = events_[0].after;
  EXPECT_EQ(a[0].i32, 1);
  EXPECT_EQ(a[1].decimal, 1250);
  EXPECT_EQ(a[2].i64, 1577934245678000);  // 2020-01-02T03:04:05.678 in microseconds
  EXPECT_EQ(a[3].decimal, static_cast<types::int128_t>(UINT64_MAX));
  EXPECT_EQ(a[4].i32, 1);
  EXPECT_EQ(a[5].as_bytes(), std::string_view("a\xff\0", 3));
  EXPECT_EQ(a[6].as_bytes(), std::string_view("\x01\x01", 2));
  EXPECT_TRUE(a[7].is_null());
  const auto& b = events_[1].after;
  EXPECT_EQ(b[0].i32, 2);
  EXPECT_EQ(b[1].decimal, 350);
  EXPECT_TRUE(b[2].is_null());
  EXPECT_EQ(b[4].i32, 0);
  EXPECT_EQ(b[7].as_bytes(), "x");
  // Same columns, same schema object.
  EXPECT_EQ(events_[0].row_schema.get(), events_[1].row_schema.get());
}

TEST_F(CanalJsonTest, DeleteAndSchemaSharing) {
  ASSERT_TRUE(Decode(kUpdate));
  auto first = events_[0].row_schema;
  ASSERT_TRUE(Decode(R"j({"data":[{"id":"111"}],"database":"inventory","table":"products",
      "type":"DELETE","isDdl":false,
      "mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"}})j"));
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].op, ChangeOp::kDelete);
  EXPECT_TRUE(events_[0].after.empty());
  EXPECT_EQ(events_[0].before[0].i32, 111);
  EXPECT_TRUE(events_[0].before[1].is_null());
  EXPECT_EQ(events_[0].row_schema.get(), first.get());
  // A column more: another schema.
  ASSERT_TRUE(Decode(R"j({"data":[{"id":"1"}],"database":"inventory","table":"products",
      "type":"INSERT","mysqlType":{"id":"INTEGER","name":"VARCHAR(255)",
      "description":"VARCHAR(512)","weight":"FLOAT","color":"varchar(10)"}})j"));
  EXPECT_NE(events_[0].row_schema.get(), first.get());
  EXPECT_EQ(events_[0].row_schema->fields().size(), 5u);
}

TEST_F(CanalJsonTest, DdlEvents) {
  ASSERT_TRUE(Decode(R"j({"data":null,"database":"shop","es":1,"id":2,"isDdl":true,
      "mysqlType":null,"old":null,"pkNames":null,
      "sql":"create table t1(id int not null primary key)","sqlType":null,"table":"t1",
      "ts":2,"type":"CREATE"})j"));
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].kind, DebeziumEvent::Kind::kSchemaChange);
  EXPECT_EQ(events_[0].table, "t1");
  ASSERT_TRUE(Decode(R"j({"database":"shop","table":"t1","isDdl":true,"type":"TRUNCATE",
      "sql":"truncate t1"})j"));
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(events_[0].kind, DebeziumEvent::Kind::kTruncate);
  EXPECT_EQ(events_[0].db, "shop");
  ASSERT_TRUE(Decode(R"j({"database":"shop","table":"","isDdl":true,"type":"QUERY",
      "sql":"CREATE DATABASE shop"})j"));
  EXPECT_EQ(events_[0].kind, DebeziumEvent::Kind::kSchemaChange);
  EXPECT_TRUE(events_[0].table_keys.empty());
}

TEST_F(CanalJsonTest, ClearErrors) {
  constexpr std::string_view kTypes =
      R"j("mysqlType":{"id":"int(11)","v":"varchar(5)","b":"blob"})j";
  auto row = [&](std::string_view type, std::string_view rest) {
    return "{\"database\":\"d\",\"table\":\"t\",\"type\":\"" + std::string(type) + "\"," +
           std::string(kTypes) + "," + std::string(rest) + "}";
  };
  EXPECT_NE(ErrorOf("{nope").find("not JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf(R"j({"data":[]})j").find("type: missing"), std::string::npos);
  EXPECT_NE(ErrorOf(row("UPSERT", R"j("data":[])j")).find("type 'UPSERT'"), std::string::npos);
  EXPECT_NE(ErrorOf(R"j({"database":"d","table":"t","type":"INSERT","data":[{"id":"1"}]})j")
                .find("mysqlType: missing"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"j({"database":"d","type":"INSERT","data":[]})j").find("table: missing"),
            std::string::npos);
  EXPECT_NE(ErrorOf(row("INSERT", R"j("data":{"id":"1"})j")).find("data: expected an array"),
            std::string::npos);
  EXPECT_NE(ErrorOf(row("INSERT", R"j("data":[{"id":"x1"}])j")).find("data[0].id: column 'id'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(row("INSERT", R"j("data":[{"id":"1"},{"zz":"1"}])j"))
                .find("data[1].zz: the column has no type in mysqlType"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(row("INSERT", R"j("data":[{"b":"\u0100"}])j")).find("data[0].b: a binary value"),
      std::string::npos);
  EXPECT_NE(ErrorOf(row("INSERT", R"j("data":[{"v":[1]}])j")).find("data[0].v: expected a string"),
            std::string::npos);
  EXPECT_NE(ErrorOf(row("UPDATE", R"j("data":[{"id":"1"}],"old":[])j"))
                .find("old: 0 rows for 1 rows of data"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"j({"database":"d","table":"t","type":"INSERT","data":[],
                       "mysqlType":{"id":"frobnicate(3)"}})j")
                .find("mysqlType.id: 'frobnicate(3)' is not a MySQL column type"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"j({"database":"d","table":"t","type":"INSERT","data":[],
                       "mysqlType":{"id":"decimal(70,2)"}})j")
                .find("mysqlType.id"),
            std::string::npos);
}

// A value its column cannot hold is refused, never wrapped, rounded or cut:
// a decimal with more digits than DECIMAL(p,s) keeps, an integer outside its
// MySQL type's range, a TIME with more hours than MySQL's.
TEST_F(CanalJsonTest, ValuesOutsideTheirColumnAreRefused) {
  auto insert = [&](std::string_view type, std::string_view value) {
    return "{\"database\":\"d\",\"table\":\"t\",\"type\":\"INSERT\",\"mysqlType\":{\"c\":\"" +
           std::string(type) + "\"},\"data\":[{\"c\":\"" + std::string(value) + "\"}]}";
  };
  auto accepted = [&](std::string_view type, std::string_view value) -> Value {
    Status status = Decode(insert(type, value));
    EXPECT_TRUE(status) << type << " " << value << ": " << status.error().ToString();
    return status && events_.size() == 1 ? events_[0].after[0] : Value::Null();
  };
  EXPECT_EQ(accepted("decimal(5,2)", "123.45").decimal, 12345);
  EXPECT_EQ(accepted("decimal(5,2)", "-000123.4500").decimal, -12345);
  EXPECT_EQ(accepted("decimal(5,2)", "0.5").decimal, 50);
  EXPECT_EQ(accepted("tinyint(4)", "-128").i32, -128);
  EXPECT_EQ(accepted("tinyint(3) unsigned", "255").i32, 255);
  EXPECT_EQ(accepted("int(10) unsigned", "4294967295").i64, 4294967295LL);
  EXPECT_EQ(accepted("time", "-838:59:59").i64, -(838LL * 3600 + 59 * 60 + 59) * 1000000);
  for (auto [type, value] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"decimal(5,2)", "1234.5"},
           {"decimal(5,2)", "1.234"},
           {"decimal(38,0)", "1222222222222222222222222222222222222222222222222222222222222.5"},
           {"tinyint(4)", "128"},
           {"tinyint(3) unsigned", "-1"},
           {"smallint(6)", "40000"},
           {"int(11)", "2147483648"},
           {"int(10) unsigned", "4294967296"},
           {"time", "9999999999999999:00:00"},
       }) {
    EXPECT_NE(ErrorOf(insert(type, value)).find("cannot read the selected value"),
              std::string::npos)
        << type << " " << value;
  }
}

}  // namespace
}  // namespace floe::cdc::mysql
