#include "floe/cdc/mysql/type_mapping.h"

#include <gtest/gtest.h>

#include "floe/cdc/mysql/ddl_parser.h"

namespace floe::cdc::mysql {
namespace {

// The documented mapping (docs/mysql-type-mapping.md), one row per type form.
TEST(TypeMapping, Table) {
  const std::pair<const char*, const char*> cases[] = {
      {"TINYINT", "int"},
      {"TINYINT(1)", "int"},
      {"BOOL", "int"},
      {"SMALLINT UNSIGNED", "int"},
      {"MEDIUMINT UNSIGNED", "int"},
      {"INT", "int"},
      {"INT UNSIGNED", "long"},
      {"BIGINT", "long"},
      {"BIGINT UNSIGNED", "decimal(20, 0)"},
      {"DECIMAL(10,2)", "decimal(10, 2)"},
      {"DECIMAL", "decimal(10, 0)"},
      {"DECIMAL(38,10)", "decimal(38, 10)"},
      {"DECIMAL(65,30)", "string"},
      {"FLOAT", "float"},
      {"FLOAT(30)", "double"},
      {"DOUBLE", "double"},
      {"REAL", "double"},
      {"BIT", "boolean"},
      {"BIT(1)", "boolean"},
      {"BIT(8)", "binary"},
      {"YEAR", "int"},
      {"DATE", "date"},
      {"DATETIME(6)", "timestamp"},
      {"TIMESTAMP(3)", "timestamptz"},
      {"TIME(2)", "long"},
      {"CHAR(3)", "string"},
      {"VARCHAR(10)", "string"},
      {"LONGTEXT", "string"},
      {"BINARY(16)", "binary"},
      {"VARBINARY(8)", "binary"},
      {"BLOB", "binary"},
      {"ENUM('a','b')", "string"},
      {"SET('a')", "string"},
      {"JSON", "string"},
      {"GEOMETRY", "binary"},
      {"POINT", "binary"},
      {"VARCHAR(5) CHARACTER SET binary", "binary"},
  };
  for (const auto& [sql_type, iceberg] : cases) {
    auto st = ParseDdl(std::string("CREATE TABLE t (c ") + sql_type + ")");
    ASSERT_TRUE(st) << sql_type << ": " << st.error().ToString();
    auto type = IcebergTypeOf(st->definition.columns.at(0));
    ASSERT_TRUE(type) << sql_type << ": " << type.error().ToString();
    EXPECT_EQ((*type)->ToString(), iceberg) << sql_type;
  }
}

TEST(TypeMapping, SchemaHasIdsRequiredAndIdentifierFields) {
  TableSchema t;
  t.db = "app";
  t.table = "t";
  t.columns = {
      ColumnDef{.name = "id", .type = MysqlType::kBigInt, .nullable = false, .field_id = 7},
      ColumnDef{.name = "note", .type = MysqlType::kText, .comment = "free text", .field_id = 2}};
  t.primary_key = {"id"};
  t.last_field_id = 7;
  auto schema = IcebergSchemaOf(t, 3);
  ASSERT_TRUE(schema) << schema.error().ToString();
  ASSERT_EQ(schema->fields().size(), 2u);
  EXPECT_EQ(schema->fields()[0].id, 7);
  EXPECT_TRUE(schema->fields()[0].required);
  EXPECT_EQ(schema->fields()[1].id, 2);
  EXPECT_FALSE(schema->fields()[1].required);
  EXPECT_EQ(schema->fields()[1].doc, "free text");
  EXPECT_EQ(schema->identifier_field_ids(), std::vector<int32_t>{7});
  EXPECT_EQ(schema->schema_id(), 3);

  t.columns[1].field_id = 0;
  auto missing = IcebergSchemaOf(t);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("app.t.note"), std::string::npos);
}

}  // namespace
}  // namespace floe::cdc::mysql
