#include "floe/cdc/debezium_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/common/base64.h"

namespace floe::cdc {
namespace {

using types::Value;

SourceColumn Col(std::string name, std::string type, bool is_unsigned = false, int64_t length = -1,
                 int scale = -1, int fsp = 0) {
  SourceColumn c;
  c.name = std::move(name);
  c.type_name = std::move(type);
  c.is_unsigned = is_unsigned;
  c.length = length;
  c.scale = scale;
  c.fsp = fsp;
  return c;
}

TEST(DebeziumDecimalTest, BigEndianTwosComplement) {
  EXPECT_EQ(DecimalToBigEndianBytes(0), std::string("\x00", 1));
  EXPECT_EQ(DecimalToBigEndianBytes(127), "\x7f");
  EXPECT_EQ(DecimalToBigEndianBytes(128), std::string("\x00\x80", 2));
  EXPECT_EQ(DecimalToBigEndianBytes(-1), "\xff");
  EXPECT_EQ(DecimalToBigEndianBytes(-129), "\xff\x7f");
  EXPECT_EQ(*DecimalTextToBigEndianBytes("-1.29", 2), "\xff\x7f");
  EXPECT_EQ(*DecimalTextToBigEndianBytes("1.28", 2), std::string("\x00\x80", 2));
  EXPECT_EQ(*DecimalTextToBigEndianBytes("0", 0), std::string("\x00", 1));
  EXPECT_FALSE(DecimalTextToBigEndianBytes("1.234", 2));
  EXPECT_FALSE(DecimalTextToBigEndianBytes("abc", 2));
}

TEST(DebeziumJsonTest, RowChangeEnvelope) {
  auto def = std::make_shared<TableDefinition>();
  def->id = {"shop", "orders"};
  def->columns = {Col("id", "INT"),
                  Col("price", "DECIMAL", false, 10, 2),
                  Col("created", "DATETIME", false, -1, -1, 0),
                  Col("updated", "TIMESTAMP", false, -1, -1, 3),
                  Col("note", "VARCHAR"),
                  Col("flags", "BIT", false, 16),
                  Col("big", "BIGINT", true)};
  def->primary_key = {"id"};
  auto source = std::make_shared<ChangeSource>();
  source->position.binlog = {"mariadb-bin.000001", 1234};
  source->position.server_id = 1;
  source->position.gtid = "0-1-7";
  source->ts_ms = 1700000000000;
  Value after[] = {Value::Int32(7),
                   Value::Decimal(-129),
                   Value::Int64(1529476623000000),
                   Value::Int64(1529501823123000),
                   Value::Bytes("h\xc3\xa9\"llo"),
                   Value::Bytes(std::string_view("\x01\x02", 2)),
                   Value::Decimal(static_cast<types::int128_t>(18446744073709551615ull))};
  RowChange rc;
  rc.op = ChangeOp::kInsert;
  rc.table = def;
  rc.after = after;
  rc.source = source;
  DebeziumJsonWriter w;
  std::string out;
  w.AppendRowChange(rc, 1700000000999, &out);
  auto j = nlohmann::json::parse(out);
  const auto& p = j["payload"];
  EXPECT_TRUE(p["before"].is_null());
  EXPECT_EQ(p["op"], "c");
  EXPECT_EQ(p["after"]["id"], 7);
  std::string dec;
  ASSERT_TRUE(Base64Decode(p["after"]["price"].get<std::string>(), &dec));
  EXPECT_EQ(dec, "\xff\x7f");
  EXPECT_EQ(p["after"]["created"], 1529476623000);  // DATETIME(0): milliseconds
  EXPECT_EQ(p["after"]["updated"], "2018-06-20T13:37:03.123Z");
  EXPECT_EQ(p["after"]["note"], "h\xc3\xa9\"llo");
  std::string bits;
  ASSERT_TRUE(Base64Decode(p["after"]["flags"].get<std::string>(), &bits));
  EXPECT_EQ(bits, std::string("\x02\x01", 2));  // little-endian in Debezium
  std::string big;
  ASSERT_TRUE(Base64Decode(p["after"]["big"].get<std::string>(), &big));
  EXPECT_EQ(big, std::string("\x00\xff\xff\xff\xff\xff\xff\xff\xff", 9));
  EXPECT_EQ(p["source"]["connector"], "mysql");
  EXPECT_EQ(p["source"]["file"], "mariadb-bin.000001");
  EXPECT_EQ(p["source"]["pos"], 1234);
  EXPECT_EQ(p["source"]["gtid"], "0-1-7");
  EXPECT_EQ(p["source"]["db"], "shop");
  EXPECT_EQ(p["source"]["table"], "orders");
  EXPECT_EQ(p["source"]["snapshot"], "false");
  EXPECT_EQ(p["ts_ms"], 1700000000999);
  // Schema block: the decimal's parameters, the zoned timestamp's name.
  const auto& fields = j["schema"]["fields"];
  ASSERT_EQ(fields.size(), 6u);
  EXPECT_EQ(fields[0]["field"], "before");
  const auto& cols = fields[1]["fields"];
  EXPECT_EQ(cols[1]["name"], "org.apache.kafka.connect.data.Decimal");
  EXPECT_EQ(cols[1]["parameters"]["scale"], "2");
  EXPECT_EQ(cols[2]["name"], "io.debezium.time.Timestamp");
  EXPECT_EQ(cols[3]["name"], "io.debezium.time.ZonedTimestamp");
  EXPECT_EQ(cols[5]["name"], "io.debezium.data.Bits");
  EXPECT_EQ(j["schema"]["name"], "floe.shop.orders.Envelope");
}

TEST(DebeziumJsonTest, DeleteAndUpdate) {
  auto def = std::make_shared<TableDefinition>();
  def->id = {"d", "t"};
  def->columns = {Col("id", "BIGINT"), Col("t", "TIME", false, -1, -1, 6)};
  Value before[] = {Value::Int64(1), Value::Int64(-(838LL * 3600 + 59 * 60 + 59) * 1000000)};
  Value after[] = {Value::Int64(1), Value::Null()};
  RowChange rc;
  rc.op = ChangeOp::kUpdate;
  rc.table = def;
  rc.before = before;
  rc.after = after;
  DebeziumJsonWriter w(DebeziumJsonOptions{.server_name = "s", .include_schema = false});
  std::string out;
  w.AppendRowChange(rc, 1, &out);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["op"], "u");
  EXPECT_EQ(j["before"]["t"], -3020399000000LL);
  EXPECT_TRUE(j["after"]["t"].is_null());
  rc.op = ChangeOp::kDelete;
  out.clear();
  w.AppendRowChange(rc, 1, &out);
  j = nlohmann::json::parse(out);
  EXPECT_EQ(j["op"], "d");
  EXPECT_TRUE(j["after"].is_null());
  EXPECT_EQ(j["before"]["id"], 1);
}

TEST(DebeziumJsonTest, SchemaChange) {
  auto def = std::make_shared<TableDefinition>();
  def->id = {"d", "t"};
  def->columns = {Col("id", "INT"), Col("e", "ENUM")};
  def->columns[0].nullable = false;
  def->columns[1].enum_values = {"a", "b"};
  def->primary_key = {"id"};
  def->charset = "utf8mb4";
  SchemaChange sc;
  sc.kind = SchemaChangeKind::kAddColumn;
  sc.table = def->id;
  sc.column = "e";
  sc.position = 1;
  sc.table_after = def;
  sc.ddl = "ALTER TABLE t ADD COLUMN e ENUM('a','b')";
  sc.database = "d";
  DebeziumJsonWriter w;
  std::string out;
  w.AppendSchemaChange(sc, 5, &out);
  auto j = nlohmann::json::parse(out);
  const auto& p = j["payload"];
  EXPECT_EQ(p["databaseName"], "d");
  EXPECT_EQ(p["ddl"], sc.ddl);
  ASSERT_EQ(p["tableChanges"].size(), 1u);
  const auto& tc = p["tableChanges"][0];
  EXPECT_EQ(tc["type"], "ALTER");
  EXPECT_EQ(tc["id"], "\"d\".\"t\"");
  EXPECT_EQ(tc["table"]["primaryKeyColumnNames"][0], "id");
  EXPECT_EQ(tc["table"]["columns"][0]["optional"], false);
  EXPECT_EQ(tc["table"]["columns"][1]["enumValues"][1], "b");
  EXPECT_EQ(tc["table"]["columns"][1]["position"], 2);
}

// The kind names are written into every schema-change event (`floe.kind`,
// docs/ingest.md) and read back by ingest: events already written keep them.
TEST(DebeziumJsonTest, SchemaChangeKindsKeepTheirWrittenNames) {
  const std::pair<SchemaChangeKind, const char*> written[] = {
      {SchemaChangeKind::kCreateTable, "create_table"},
      {SchemaChangeKind::kDropTable, "drop_table"},
      {SchemaChangeKind::kRenameTable, "rename_table"},
      {SchemaChangeKind::kTruncateTable, "truncate_table"},
      {SchemaChangeKind::kAddColumn, "add_column"},
      {SchemaChangeKind::kDropColumn, "drop_column"},
      {SchemaChangeKind::kRenameColumn, "rename_column"},
      {SchemaChangeKind::kModifyColumn, "modify_column"},
      {SchemaChangeKind::kPrimaryKeyChange, "primary_key_change"},
      {SchemaChangeKind::kAlterOther, "alter_other"},
  };
  for (const auto& [kind, name] : written) {
    SchemaChange sc;
    sc.kind = kind;
    sc.table = {"d", "t"};
    DebeziumJsonWriter w;
    std::string out;
    w.AppendSchemaChange(sc, 5, &out);
    EXPECT_EQ(nlohmann::json::parse(out)["payload"]["floe"]["kind"], name);
  }
}

TEST(ChangeOpTest, LettersReadBackAsTheirOps) {
  const std::pair<ChangeOp, std::string_view> letters[] = {{ChangeOp::kInsert, "c"},
                                                           {ChangeOp::kUpdate, "u"},
                                                           {ChangeOp::kDelete, "d"},
                                                           {ChangeOp::kRead, "r"}};
  for (const auto& [op, letter] : letters) {
    EXPECT_EQ(ChangeOpLetter(op), letter);
    EXPECT_EQ(ChangeOpOfLetter(letter), op) << letter;
  }
  for (std::string_view other : {"t", "", "cc", "C", "x"}) {
    EXPECT_EQ(ChangeOpOfLetter(other), std::nullopt) << other;
  }
}

TEST(JsonStringTest, EscapesAndReplacesInvalidUtf8) {
  std::string out;
  AppendJsonString(std::string_view("a\"\\\n\x01\xff\xc3\xa9", 8), &out);
  EXPECT_EQ(out, "\"a\\\"\\\\\\n\\u0001\xEF\xBF\xBD\xc3\xa9\"");
}

}  // namespace
}  // namespace floe::cdc
