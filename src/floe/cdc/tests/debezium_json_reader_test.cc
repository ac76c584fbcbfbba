#include "floe/cdc/debezium_json_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "floe/cdc/debezium_json.h"
#include "floe/cdc/debezium_json_reader_internal.h"
#include "floe/cdc/tests/debezium_json_reader_test_util.h"
#include "floe/common/base64.h"
#include "floe/types/temporal.h"

// Counts heap allocations in this test binary, so a test can assert that the
// reader's steady state allocates nothing per event.
namespace {
std::atomic<int64_t> g_allocations{0};
}  // namespace

void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// GCC 12 cannot see that these pair with the operator new above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace floe::cdc {
namespace {

using test_util::Describe;
using test_util::ExpectError;
using types::SameValue;
using types::Type;
using types::TypeId;
using types::Value;
using Kind = DebeziumEvent::Kind;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> ReadLines(const std::string& name) {
  std::string text = ReadFile(std::string(FLOE_TEST_DATA_DIR) + "/debezium/" + name);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// ---------------------------------------------------------------------------
// Kinds of lines

TEST(DebeziumJsonReaderTest, TombstonesHeartbeatsTransactionsAndSchemaChanges) {
  DebeziumJsonReader reader;
  Arena arena;
  auto kind = [&](std::string_view line) {
    auto e = reader.Decode(line, nullptr, &arena);
    EXPECT_TRUE(e.has_value()) << line << ": " << e.error().ToString();
    return e ? e->kind : Kind::kRow;
  };
  EXPECT_EQ(kind("null"), Kind::kTombstone);
  EXPECT_EQ(kind("  null \r"), Kind::kTombstone);
  EXPECT_EQ(kind(R"({"schema":null,"payload":null})"), Kind::kTombstone);
  EXPECT_EQ(kind(R"({"ts_ms":1700000000000})"), Kind::kHeartbeat);
  EXPECT_EQ(kind(R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,)"
                 R"("field":"ts_ms"}],"optional":false,"name":"io.debezium.connector.common.)"
                 R"(Heartbeat"},"payload":{"ts_ms":1700000000000}})"),
            Kind::kHeartbeat);
  EXPECT_EQ(kind(R"({"status":"BEGIN","id":"571:53195832","ts_ms":1,"event_count":null,)"
                 R"("data_collections":null})"),
            Kind::kHeartbeat);
  EXPECT_EQ(kind(R"({"status":"END","id":"571:53195832","ts_ms":1,"event_count":2,)"
                 R"("data_collections":[{"data_collection":"s.a","event_count":2}]})"),
            Kind::kHeartbeat);

  // floe's own schema-change events, with and without the wrapper.
  auto def = std::make_shared<TableDefinition>();
  def->id = {"shop", "orders"};
  SourceColumn id;
  id.name = "id";
  id.type_name = "INT";
  def->columns = {id};
  def->schema = types::Schema({{1, "id", true, Type::Int(), ""}});
  def->primary_key = {"id"};
  SchemaChange sc;
  sc.kind = SchemaChangeKind::kCreateTable;
  sc.table = def->id;
  sc.table_after = def;
  sc.ddl = "CREATE TABLE orders (id INT)";
  for (bool with_schema : {true, false}) {
    DebeziumJsonWriter writer(DebeziumJsonOptions{.include_schema = with_schema});
    std::string line;
    writer.AppendSchemaChange(sc, 5, &line);
    auto e = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(e->kind, Kind::kSchemaChange);
    EXPECT_EQ(e->db, "shop");
    EXPECT_EQ(e->table, "orders");
    EXPECT_EQ(e->row_schema, nullptr);  // the schema-change value schema has no row struct
    EXPECT_EQ(e->schema_change_kind, "create_table");
    // The table it describes and its primary key (for ingest's identifier fields).
    ASSERT_EQ(e->table_keys.size(), 1u);
    EXPECT_EQ(e->table_keys[0].db, "shop");
    EXPECT_EQ(e->table_keys[0].table, "orders");
    EXPECT_EQ(e->table_keys[0].primary_key, (std::vector<std::string>{"id"}));
  }
  // Debezium's own schema-change event: a PostgreSQL-style three-part id,
  // a composite key, members in another order.
  auto pg = reader.Decode(
      R"({"source": {"db": "inventory", "table": "items"}, "ddl": "",
          "tableChanges": [{"table": {"primaryKeyColumnNames": ["region", "id"], "columns": []},
                            "type": "CREATE", "id": "\"inventory\".\"public\".\"items\""},
                           {"type": "DROP", "id": "\"inventory\".\"public\".\"old\"",
                            "table": null}]})",
      nullptr, &arena);
  ASSERT_TRUE(pg) << pg.error().ToString();
  EXPECT_EQ(pg->kind, Kind::kSchemaChange);
  ASSERT_EQ(pg->table_keys.size(), 2u);
  EXPECT_EQ(pg->table_keys[0].db, "inventory");
  EXPECT_EQ(pg->table_keys[0].table, "items");
  EXPECT_EQ(pg->table_keys[0].primary_key, (std::vector<std::string>{"region", "id"}));
  EXPECT_EQ(pg->table_keys[1].table, "old");
  EXPECT_TRUE(pg->table_keys[1].primary_key.empty());
}

TEST(DebeziumJsonReaderTest, TruncateOpAndCaptureTruncateTable) {
  DebeziumJsonReader reader;
  Arena arena;
  // Debezium's op "t" (MySQL and PostgreSQL connectors), bare and wrapped.
  for (std::string_view line :
       {std::string_view(R"({"before":null,"after":null,"source":{"connector":"mysql",)"
                         R"("db":"shop","table":"orders"},"op":"t","ts_ms":7})"),
        std::string_view(R"({"schema":null,"payload":{"op":"t","before":null,"after":null,)"
                         R"("source":{"connector":"mysql","db":"shop","table":"orders"},)"
                         R"("ts_ms":7}})")}) {
    auto e = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(e->kind, Kind::kTruncate) << line;
    EXPECT_EQ(e->db, "shop");
    EXPECT_EQ(e->table, "orders");
    EXPECT_EQ(e->ts_ms, 7);
    EXPECT_TRUE(e->before.empty());
    EXPECT_TRUE(e->after.empty());
  }
  // PostgreSQL: the schema names the namespace.
  auto pg =
      reader.Decode(R"({"op":"t","source":{"connector":"postgresql","db":null,"schema":"public",)"
                    R"("table":"items"},"ts_ms":1})",
                    nullptr, &arena);
  ASSERT_TRUE(pg) << pg.error().ToString();
  EXPECT_EQ(pg->kind, Kind::kTruncate);
  EXPECT_EQ(pg->db, "public");
  EXPECT_EQ(pg->table, "items");
  // An op "t" must say which table.
  ExpectError(reader, R"({"op":"t","source":{"db":"shop"}})", nullptr, "source.table: missing");
  ExpectError(reader, R"({"op":"t"})", nullptr, "source: missing");

  // floe capture's TRUNCATE TABLE: a schema-change event of kind
  // truncate_table; other kinds stay schema changes.
  SchemaChange sc;
  sc.kind = SchemaChangeKind::kTruncateTable;
  sc.table = {"shop", "orders"};
  sc.ddl = "TRUNCATE TABLE orders";
  for (bool with_schema : {true, false}) {
    DebeziumJsonWriter writer(DebeziumJsonOptions{.include_schema = with_schema});
    std::string line;
    writer.AppendSchemaChange(sc, 5, &line);
    auto e = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(e) << e.error().ToString();
    EXPECT_EQ(e->kind, Kind::kTruncate) << line;
    EXPECT_EQ(e->schema_change_kind, "truncate_table");
    EXPECT_EQ(e->db, "shop");
    EXPECT_EQ(e->table, "orders");
    sc.kind = SchemaChangeKind::kDropTable;
    line.clear();
    writer.AppendSchemaChange(sc, 5, &line);
    auto drop = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(drop) << drop.error().ToString();
    EXPECT_EQ(drop->kind, Kind::kSchemaChange);
    EXPECT_EQ(drop->schema_change_kind, "drop_table");
    sc.kind = SchemaChangeKind::kTruncateTable;
  }
  // A truncate_table kind without a table is no truncation.
  auto no_table = reader.Decode(
      R"({"source":{"db":"shop","table":null},"ddl":"TRUNCATE x","floe":{"kind":"truncate_table"}})",
      nullptr, &arena);
  ASSERT_TRUE(no_table) << no_table.error().ToString();
  EXPECT_EQ(no_table->kind, Kind::kSchemaChange);
  // A "floe" member that is not an object is ignored; a kind that is not a
  // string is an error.
  auto other =
      reader.Decode(R"({"ddl":"x","floe":[1,2],"source":{"db":"a","table":"b"}})", nullptr, &arena);
  ASSERT_TRUE(other) << other.error().ToString();
  EXPECT_EQ(other->kind, Kind::kSchemaChange);
  ExpectError(reader, R"({"ddl":"x","floe":{"kind":3}})", nullptr, "floe.kind: expected a string");
}

// ---------------------------------------------------------------------------
// Hand-written events in the connectors' shapes (tests/data/debezium/README.md)

TEST(DebeziumJsonReaderTest, MySqlConnectorEventsWithSchemaBlock) {
  auto lines = ReadLines("mysql_customers.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  DebeziumJsonReader reader;
  Arena arena;
  std::vector<DebeziumEvent> events;
  for (const auto& line : lines) {
    auto e = reader.Decode(line, nullptr, &arena);
    ASSERT_TRUE(e) << e.error().ToString();
    events.push_back(*e);
  }
  EXPECT_EQ(events[3].kind, Kind::kTombstone);
  const DebeziumEvent& r = events[0];
  EXPECT_EQ(r.kind, Kind::kRow);
  EXPECT_EQ(r.op, ChangeOp::kRead);
  EXPECT_EQ(r.db, "inventory");
  EXPECT_EQ(r.table, "customers");
  EXPECT_EQ(r.ts_ms, 1700000000100);
  ASSERT_NE(r.row_schema, nullptr);
  // The three events carry the same block: one schema object.
  EXPECT_EQ(events[1].row_schema.get(), r.row_schema.get());
  EXPECT_EQ(events[2].row_schema.get(), r.row_schema.get());
  EXPECT_EQ(r.row_schema->ToString(),
            types::Schema({{1, "id", true, Type::Int(), ""},
                           {2, "first_name", true, Type::String(), ""},
                           {3, "email", false, Type::String(), ""},
                           {4, "active", false, Type::Int(), ""},
                           {5, "balance", false, *Type::Decimal(10, 2), ""},
                           {6, "birth_date", false, Type::Date(), ""},
                           {7, "wake_up", false, Type::Time(), ""},
                           {8, "created", false, Type::Timestamp(), ""},
                           {9, "modified_us", false, Type::Timestamp(), ""},
                           {10, "updated", true, Type::TimestampTz(), ""},
                           {11, "status", false, Type::String(), ""},
                           {12, "tags", false, Type::String(), ""},
                           {13, "doc", false, Type::String(), ""},
                           {14, "flags", false, Type::Binary(), ""},
                           {15, "year", false, Type::Int(), ""},
                           {16, "score", false, Type::Double(), ""},
                           {17, "ratio", false, Type::Float(), ""},
                           {18, "photo", false, Type::Binary(), ""},
                           {19, "location", false, Type::Binary(), ""},
                           {20, "big_unsigned", false, *Type::Decimal(20, 0), ""}})
                .ToString());
  ASSERT_TRUE(r.before.empty());
  ASSERT_EQ(r.after.size(), 20u);
  const auto& a = r.after;
  EXPECT_EQ(a[0].i32, 1001);
  EXPECT_EQ(a[1].as_bytes(), "Sally");
  EXPECT_EQ(a[3].i32, 1);
  EXPECT_EQ(a[4].decimal, 123456);            // 1234.56
  EXPECT_EQ(a[5].i32, 7305);                  // 1990-01-01
  EXPECT_EQ(a[6].i64, 7LL * 3600 * 1000000);  // 07:00
  EXPECT_EQ(a[7].i64, 1700000000123000);      // ms -> us
  EXPECT_EQ(a[8].i64, 1700000000123456);
  EXPECT_EQ(a[9].i64, 1700000000500000);  // "2023-11-14T22:13:20.5Z"
  EXPECT_EQ(a[11].as_bytes(), "a,c");
  EXPECT_EQ(a[12].as_bytes(), "{\"k\": [1, 2]}");
  EXPECT_EQ(a[13].as_bytes(), std::string_view("\x01\x02", 2));  // Bits: big-endian now
  EXPECT_EQ(a[14].i32, 1999);
  EXPECT_EQ(a[15].f64, 0.25);
  EXPECT_EQ(a[16].f32, 1.5f);
  EXPECT_EQ(a[17].as_bytes(), std::string_view("\x00\xffPNG", 5));
  EXPECT_EQ(a[18].as_bytes().size(), 21u);  // the point's WKB
  EXPECT_EQ(a[18].as_bytes()[0], '\x01');
  EXPECT_EQ(a[19].decimal, static_cast<types::int128_t>(18446744073709551615ull));

  const DebeziumEvent& u = events[1];
  EXPECT_EQ(u.op, ChangeOp::kUpdate);
  ASSERT_EQ(u.before.size(), 20u);
  EXPECT_EQ(u.before[2].as_bytes(), "sally@example.com");
  EXPECT_EQ(u.after[2].as_bytes(), "sally.t@example.com");
  EXPECT_EQ(u.after[4].decimal, -5);
  const DebeziumEvent& d = events[2];
  EXPECT_EQ(d.op, ChangeOp::kDelete);
  EXPECT_TRUE(d.after.empty());
  EXPECT_EQ(d.before[0].i32, 1001);
}

types::Schema PostgresOrdersSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "customer", true, Type::Uuid(), ""},
                        {3, "amount", false, *Type::Decimal(12, 3), ""},
                        {4, "placed_at", false, Type::Timestamp(), ""},
                        {5, "placed_tz", false, Type::TimestampTz(), ""},
                        {6, "day", false, Type::Date(), ""},
                        {7, "note", false, Type::String(), ""},
                        {8, "extra", false, Type::String(), ""}});
}

TEST(DebeziumJsonReaderTest, PostgresConnectorBarePayloadsWithKnownSchema) {
  auto lines = ReadLines("postgres_orders_bare.jsonl");
  ASSERT_EQ(lines.size(), 5u);
  types::Schema known = PostgresOrdersSchema();
  DebeziumJsonReader reader;
  Arena arena;
  auto c = reader.Decode(lines[0], &known, &arena);
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->kind, Kind::kRow);
  EXPECT_EQ(c->op, ChangeOp::kInsert);
  EXPECT_EQ(c->db, "shop");  // source.db; source.schema only when there is no db
  EXPECT_EQ(c->table, "orders");
  EXPECT_EQ(c->row_schema, nullptr);
  ASSERT_EQ(c->after.size(), 8u);
  EXPECT_EQ(c->after[0].i64, 42);
  std::string uuid;
  ASSERT_TRUE(types::ParseUuid("6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10", &uuid));
  EXPECT_EQ(c->after[1].as_bytes(), uuid);
  EXPECT_EQ(c->after[2].decimal, 1234567);  // VariableScaleDecimal {scale 3} into decimal(12,3)
  EXPECT_EQ(c->after[3].i64, 1700000000123456);
  EXPECT_EQ(c->after[4].i64, 1700000000123456);
  EXPECT_EQ(c->after[5].i32, 19675);
  EXPECT_TRUE(c->after[6].is_null());
  EXPECT_TRUE(c->after[7].is_null());  // not in the event: null

  auto u = reader.Decode(lines[1], &known, &arena);
  ASSERT_TRUE(u) << u.error().ToString();
  EXPECT_EQ(u->op, ChangeOp::kUpdate);
  EXPECT_TRUE(u->before.empty());  // REPLICA IDENTITY DEFAULT: no before image
  EXPECT_EQ(u->after[6].as_bytes(), "rush");

  // A key-only before image: required fields may be null there.
  auto d = reader.Decode(lines[2], &known, &arena);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(d->op, ChangeOp::kDelete);
  EXPECT_EQ(d->before[0].i64, 42);
  EXPECT_TRUE(d->before[1].is_null());

  auto begin = reader.Decode(lines[3], &known, &arena);
  ASSERT_TRUE(begin);
  EXPECT_EQ(begin->kind, Kind::kHeartbeat);
  auto hb = reader.Decode(lines[4], &known, &arena);
  ASSERT_TRUE(hb);
  EXPECT_EQ(hb->kind, Kind::kHeartbeat);

  // Without a db the namespace is source.schema.
  auto no_db = reader.Decode(
      R"({"before":null,"after":{"id":1,"customer":"6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10"},)"
      R"("source":{"schema":"public","table":"orders"},"op":"c","ts_ms":1})",
      &known, &arena);
  ASSERT_TRUE(no_db) << no_db.error().ToString();
  EXPECT_EQ(no_db->db, "public");
}

TEST(DebeziumJsonReaderTest, PostgresConnectorWrappedEvent) {
  auto lines = ReadLines("postgres_orders_wrapped.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  DebeziumJsonReader reader;
  Arena arena;
  auto c = reader.Decode(lines[0], nullptr, &arena);
  ASSERT_TRUE(c) << c.error().ToString();
  ASSERT_NE(c->row_schema, nullptr);
  const auto& f = c->row_schema->fields();
  ASSERT_EQ(f.size(), 8u);
  EXPECT_EQ(f[1].type->id(), TypeId::kUuid);
  EXPECT_EQ(f[2].type->id(), TypeId::kString);  // VariableScaleDecimal: the decimal's text
  EXPECT_EQ(f[3].type->id(), TypeId::kTimestamp);
  EXPECT_EQ(f[4].type->id(), TypeId::kTimestampTz);
  EXPECT_EQ(f[5].type->id(), TypeId::kDate);
  EXPECT_EQ(c->after[2].as_bytes(), "1234.567");
  EXPECT_EQ(c->after[4].i64, 1700000000123456);
  auto hb = reader.Decode(lines[1], nullptr, &arena);
  ASSERT_TRUE(hb) << hb.error().ToString();
  EXPECT_EQ(hb->kind, Kind::kHeartbeat);
}

// ---------------------------------------------------------------------------
// Round trip with floe's own writer (floe capture's output)

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

struct MySqlTable {
  TableDefinitionPtr def;
  std::vector<Value> row;    // every column set
  std::vector<Value> nulls;  // every nullable column null
  std::vector<std::string> storage;
};

// A table with every MySQL type floe capture maps (cdc/mysql/type_mapping.h),
// with the Iceberg types of that mapping.
MySqlTable EveryMySqlType() {
  MySqlTable t;
  auto def = std::make_shared<TableDefinition>();
  def->id = {"shop", "every_type"};
  struct C {
    SourceColumn col;
    types::TypePtr type;
    Value value;
  };
  auto dec = [](int p, int s) { return *Type::Decimal(p, s); };
  t.storage.reserve(16);
  auto bytes = [&](std::string s) {
    t.storage.push_back(std::move(s));
    return Value::Bytes(t.storage.back());
  };
  int64_t day = 19675;  // 2023-11-14
  int64_t sec = day * 86400 + 13 * 3600 + 45 * 60 + 7;
  std::vector<C> cols = {
      {Col("id", "INT"), Type::Int(), Value::Int32(7)},
      {Col("ti", "TINYINT"), Type::Int(), Value::Int32(-128)},
      {Col("tu", "TINYINT", true), Type::Int(), Value::Int32(255)},
      {Col("si", "SMALLINT"), Type::Int(), Value::Int32(-32768)},
      {Col("su", "SMALLINT", true), Type::Int(), Value::Int32(65535)},
      {Col("mi", "MEDIUMINT"), Type::Int(), Value::Int32(-8388608)},
      {Col("mu", "MEDIUMINT", true), Type::Int(), Value::Int32(16777215)},
      {Col("i", "INT"), Type::Int(), Value::Int32(INT32_MIN)},
      {Col("iu", "INT", true), Type::Long(), Value::Int64(4294967295LL)},
      {Col("bi", "BIGINT"), Type::Long(), Value::Int64(INT64_MIN)},
      {Col("bu", "BIGINT", true), dec(20, 0),
       Value::Decimal(static_cast<types::int128_t>(18446744073709551615ull))},
      {Col("dc", "DECIMAL", false, 10, 2), dec(10, 2), Value::Decimal(-12345678)},
      {Col("d38", "DECIMAL", false, 38, 10), dec(38, 10),
       Value::Decimal(static_cast<types::int128_t>(99999999999999999ll) * 1000000000000000000ll +
                      999999999999999999ll)},
      {Col("dw", "DECIMAL", false, 50, 10), Type::String(),
       bytes("-1234567890123456789012345678901234567890.0123456789")},
      {Col("fl", "FLOAT"), Type::Float(), Value::Float(1.1f)},
      {Col("db", "DOUBLE"), Type::Double(), Value::Double(0.1 + 0.2)},
      {Col("b1", "BIT", false, 1), Type::Boolean(), Value::Bool(true)},
      {Col("b16", "BIT", false, 16), Type::Binary(), bytes(std::string("\x01\x80", 2))},
      {Col("yr", "YEAR"), Type::Int(), Value::Int32(2155)},
      {Col("dt", "DATE"), Type::Date(), Value::Int32(static_cast<int32_t>(day))},
      {Col("tm", "TIME", false, -1, -1, 6), Type::Long(), Value::Int64(49507000001)},
      {Col("dt0", "DATETIME"), Type::Timestamp(), Value::Int64(sec * 1000000)},
      {Col("dt3", "DATETIME", false, -1, -1, 3), Type::Timestamp(),
       Value::Int64(sec * 1000000 + 123000)},
      {Col("dt6", "DATETIME", false, -1, -1, 6), Type::Timestamp(),
       Value::Int64(sec * 1000000 + 123456)},
      {Col("ts0", "TIMESTAMP"), Type::TimestampTz(), Value::Int64(sec * 1000000)},
      {Col("ts6", "TIMESTAMP", false, -1, -1, 6), Type::TimestampTz(),
       Value::Int64(-sec * 1000000 + 654321)},
      {Col("ch", "CHAR", false, 10), Type::String(), bytes("abc")},
      {Col("vc", "VARCHAR", false, 255), Type::String(), bytes("h\xc3\xa9 \"quoted\" \\ \n tab\t")},
      {Col("tx", "TEXT"), Type::String(), bytes(std::string(3000, 'x'))},
      {Col("en", "ENUM"), Type::String(), bytes("medium")},
      {Col("st", "SET"), Type::String(), bytes("a,b")},
      {Col("js", "JSON"), Type::String(), bytes("{\"a\":[1,2,{\"b\":null}]}")},
      {Col("bn", "BINARY", false, 4), Type::Binary(), bytes(std::string("\x00\x01\xfe\xff", 4))},
      {Col("bl", "BLOB"), Type::Binary(), bytes(std::string("\x00\"\\", 3))},
      {Col("geo", "GEOMETRY"), Type::Binary(),
       bytes(std::string("\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00"
                         "\x00\x00\x40",
                         21))},
      {Col("pt", "POINT"), Type::Binary(), bytes(std::string("\x01\x02", 2))},
      {Col("uu", "UUID"), Type::String(), bytes("6f1c2a9e-2f7e-4d7b-9a55-0c9f3f2f5a10")},
      {Col("ip", "INET6"), Type::String(), bytes("::1")},
      {Col("vb", "VARBINARY", false, 16), Type::Binary(), bytes("")},
  };
  cols[1].col.enum_values = {};
  for (auto& c : cols) {
    if (c.col.type_name == "ENUM") c.col.enum_values = {"small", "medium"};
    if (c.col.type_name == "SET") c.col.enum_values = {"a", "b"};
  }
  std::vector<types::NestedField> fields;
  for (size_t i = 0; i < cols.size(); ++i) {
    bool required = i == 0;
    cols[i].col.nullable = !required;
    def->columns.push_back(cols[i].col);
    fields.push_back({static_cast<int32_t>(i + 1), cols[i].col.name, required, cols[i].type, ""});
    t.row.push_back(cols[i].value);
    t.nulls.push_back(required ? cols[i].value : Value::Null());
  }
  def->schema = types::Schema(std::move(fields), 0, {1});
  def->primary_key = {"id"};
  t.def = def;
  return t;
}

std::string Write(const MySqlTable& t, ChangeOp op, const std::vector<Value>& before,
                  const std::vector<Value>& after, bool with_schema) {
  RowChange rc;
  rc.op = op;
  rc.table = t.def;
  rc.before = before;
  rc.after = after;
  auto source = std::make_shared<ChangeSource>();
  source->position.binlog = {"binlog.000002", 4711};
  source->position.server_id = 1;
  rc.source = source;
  DebeziumJsonWriter writer(DebeziumJsonOptions{.include_schema = with_schema});
  std::string line;
  writer.AppendRowChange(rc, 1700000000999, &line);
  return line;
}

void ExpectRowsEqual(const MySqlTable& t, types::Row got, const std::vector<Value>& want,
                     const std::vector<std::string>& skip = {}) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string& name = t.def->columns[i].name;
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    EXPECT_TRUE(SameValue(got[i], want[i]))
        << "column " << name << ": got " << Describe(got[i]) << ", want " << Describe(want[i]);
  }
}

TEST(DebeziumJsonReaderTest, RoundTripsFloeWriterWithSchemaBlock) {
  MySqlTable t = EveryMySqlType();
  DebeziumJsonReader reader;
  Arena arena;
  std::string insert = Write(t, ChangeOp::kInsert, {}, t.row, true);
  auto e = reader.Decode(insert, nullptr, &arena);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->kind, Kind::kRow);
  EXPECT_EQ(e->op, ChangeOp::kInsert);
  EXPECT_EQ(e->db, "shop");
  EXPECT_EQ(e->table, "every_type");
  EXPECT_EQ(e->ts_ms, 1700000000999);
  ASSERT_NE(e->row_schema, nullptr);
  // The block's types are floe's MySQL mapping, TIME included: floe capture
  // labels it MicroDuration, which reads back as a long.
  const auto& got_fields = e->row_schema->fields();
  const auto& want_fields = t.def->schema.fields();
  ASSERT_EQ(got_fields.size(), want_fields.size());
  for (size_t i = 0; i < want_fields.size(); ++i) {
    EXPECT_EQ(got_fields[i].id, static_cast<int32_t>(i + 1));
    EXPECT_EQ(got_fields[i].name, want_fields[i].name);
    EXPECT_EQ(got_fields[i].required, want_fields[i].required) << want_fields[i].name;
    std::string want_type = want_fields[i].type->ToString();
    EXPECT_EQ(got_fields[i].type->ToString(), want_type) << want_fields[i].name;
  }
  ExpectRowsEqual(t, e->after, t.row);
  EXPECT_TRUE(e->before.empty());

  // Update (nulls -> values) and delete, same block: the same schema object.
  std::string update = Write(t, ChangeOp::kUpdate, t.nulls, t.row, true);
  auto u = reader.Decode(update, nullptr, &arena);
  ASSERT_TRUE(u) << u.error().ToString();
  EXPECT_EQ(u->row_schema.get(), e->row_schema.get());
  ExpectRowsEqual(t, u->before, t.nulls);
  ExpectRowsEqual(t, u->after, t.row);
  std::string del = Write(t, ChangeOp::kDelete, t.row, {}, true);
  auto d = reader.Decode(del, nullptr, &arena);
  ASSERT_TRUE(d) << d.error().ToString();
  EXPECT_EQ(d->op, ChangeOp::kDelete);
  ExpectRowsEqual(t, d->before, t.row);
  EXPECT_TRUE(d->after.empty());
}

TEST(DebeziumJsonReaderTest, RoundTripsFloeWriterWithoutSchemaBlock) {
  MySqlTable t = EveryMySqlType();
  DebeziumJsonReader reader;
  Arena arena;
  std::string line = Write(t, ChangeOp::kUpdate, t.nulls, t.row, false);
  // No block and no known schema: an error naming the image.
  auto no_schema = reader.Decode(line, nullptr, &arena);
  ASSERT_FALSE(no_schema);
  EXPECT_NE(no_schema.error().message().find("before: no schema block"), std::string::npos)
      << no_schema.error().message();

  auto e = reader.Decode(line, &t.def->schema, &arena);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_EQ(e->row_schema, nullptr);
  ExpectRowsEqual(t, e->before, t.nulls);
  // The documented limits of decoding without the block (docs/ingest.md):
  // millisecond timestamps read as microseconds, Bits keep Debezium's byte
  // order, decimals wider than 38 digits stay base64.
  ExpectRowsEqual(t, e->after, t.row, {"dt0", "dt3", "b16", "dw"});
  auto col = [&](std::string_view name) {
    for (size_t i = 0; i < t.def->columns.size(); ++i) {
      if (t.def->columns[i].name == name) return i;
    }
    return size_t{0};
  };
  EXPECT_EQ(e->after[col("dt3")].i64, t.row[col("dt3")].i64 / 1000);
  EXPECT_EQ(e->after[col("b16")].as_bytes(), std::string_view("\x80\x01", 2));
}
// ---------------------------------------------------------------------------
// Steady state: no heap allocation per event; the decode rate is logged.

std::string TwentyColumnEvent(int64_t id, bool with_schema) {
  std::string fields;
  std::string after;
  const char* kTypes[] = {
      R"("type":"int64")",
      R"("type":"string")",
      R"("type":"int32")",
      R"("type":"bytes","name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"12"})",
      R"("type":"int64","name":"io.debezium.time.MicroTimestamp","version":1)",
  };
  const char* kValues[] = {"{}", R"("name-{}-xxxxxxxxxxxxxxxx")", "{}", R"("AeJA")",
                           "1700000000{:06}"};
  for (int i = 0; i < 20; ++i) {
    if (i) {
      fields += ',';
      after += ',';
    }
    fields += fmt::format(R"({{{},"optional":{},"field":"col_{}"}})", kTypes[i % 5],
                          i == 0 ? "false" : "true", i);
    after += fmt::format(R"("col_{}":)", i);
    after += fmt::format(fmt::runtime(kValues[i % 5]), (id * 7 + i) % 1000000);
  }
  std::string payload = fmt::format(
      R"({{"before":null,"after":{{{}}},"source":{{"version":"2.5.0.Final","connector":"mysql",)"
      R"("name":"dbserver1","ts_ms":1700000000000,"snapshot":"false","db":"inventory",)"
      R"("sequence":null,"table":"orders","server_id":223344,"gtid":null,)"
      R"("file":"mysql-bin.000003","pos":{},"row":0,"thread":7,"query":null}},"op":"u",)"
      R"("ts_ms":1700000000100,"transaction":null}})",
      after, id);
  if (!with_schema) return payload;
  std::string value = fmt::format(R"({{"type":"struct","fields":[{}],"optional":true,)"
                                  R"("name":"dbserver1.inventory.orders.Value","field":)",
                                  fields);
  return fmt::format(
      R"({{"schema":{{"type":"struct","fields":[{0}"before"}},{0}"after"}},)"
      R"({{"type":"struct","fields":[{{"type":"string","optional":false,"field":"version"}},)"
      R"({{"type":"string","optional":false,"field":"db"}},{{"type":"string","optional":true,"field":"table"}}],)"
      R"("optional":false,"name":"io.debezium.connector.mysql.Source","field":"source"}},)"
      R"({{"type":"string","optional":false,"field":"op"}},{{"type":"int64","optional":true,"field":"ts_ms"}}],)"
      R"("optional":false,"name":"dbserver1.inventory.orders.Envelope","version":1}},"payload":{1}}})",
      value, payload);
}

TEST(DebeziumJsonReaderTest, SteadyStateAllocatesNothingAndLogsRate) {
  for (bool with_schema : {true, false}) {
    constexpr int kDistinct = 64;
    std::vector<std::string> lines;
    for (int i = 0; i < kDistinct; ++i) lines.push_back(TwentyColumnEvent(i, with_schema));
    // The wrapped events come from 16 tables in turn (more than the reader's
    // recent blocks): the block differs by the envelope's name.
    if (with_schema) {
      for (int i = 0; i < kDistinct; ++i) {
        std::string& l = lines[i];
        size_t at = l.find("dbserver1.inventory.orders.Envelope");
        ASSERT_NE(at, std::string::npos);
        l.replace(at, 35, fmt::format("dbserver1.inventory.orders{:02}.Envelope", i % 16));
      }
    }
    DebeziumJsonReader reader;
    Arena arena;
    // The known schema (for events without the block) is the block's schema,
    // as ingest would have it from its table.
    auto wrapped = reader.Decode(TwentyColumnEvent(0, true), nullptr, &arena);
    ASSERT_TRUE(wrapped) << wrapped.error().ToString();
    std::shared_ptr<const types::Schema> schema = wrapped->row_schema;
    ASSERT_NE(schema, nullptr);
    ASSERT_EQ(schema->fields().size(), 20u);
    const types::Schema* known = with_schema ? nullptr : schema.get();
    // Warm up: buffers reach their steady sizes.
    for (int i = 0; i < 2 * kDistinct; ++i) {
      auto e = reader.Decode(lines[i % kDistinct], known, &arena);
      ASSERT_TRUE(e) << e.error().ToString();
      arena.Reset();
    }
    const int kEvents = 100000;
    int64_t allocations_before = g_allocations.load();
    auto start = std::chrono::steady_clock::now();
    int64_t checksum = 0;
    for (int i = 0; i < kEvents; ++i) {
      auto e = reader.Decode(lines[i % kDistinct], known, &arena);
      if (!e) FAIL() << e.error().ToString();
      checksum += e->after[0].i64;
      if (i % 32 == 31) arena.Reset();  // within the arena's first block
    }
    auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int64_t allocations = g_allocations.load() - allocations_before;
    EXPECT_EQ(allocations, 0) << "heap allocations in " << kEvents << " decodes";
    EXPECT_GT(checksum, 0);
    std::printf(
        "[ rate     ] 20-column Debezium event %s (%zu bytes): %.0f events/s\n",
        with_schema ? "with the schema block, 16 tables in turn" : "without the schema block",
        lines[0].size(), kEvents / seconds);
  }
}

}  // namespace
}  // namespace floe::cdc
