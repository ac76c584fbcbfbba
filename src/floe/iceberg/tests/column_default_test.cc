// v3 column defaults: `initial-default` and `write-default` kept through the
// schema JSON, and a column added with an initial-default reading as that
// value in data files written before it (spec "Default values").

#include <gtest/gtest.h>

#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/types/schema_json.h"

namespace floe::iceberg {
namespace {

using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

constexpr const char* kEvolvedSchema = R"json({"type": "struct", "schema-id": 1, "fields": [
  {"id": 1, "name": "id", "required": true, "type": "long"},
  {"id": 2, "name": "n", "required": false, "type": "long", "initial-default": 7,
   "write-default": 8},
  {"id": 3, "name": "s", "required": false, "type": "string", "initial-default": "dflt"},
  {"id": 4, "name": "d", "required": false, "type": "date", "initial-default": "2024-02-29"},
  {"id": 5, "name": "m", "required": false, "type": "decimal(9, 2)", "initial-default": "-1.50"},
  {"id": 6, "name": "b", "required": false, "type": "binary", "initial-default": "0aFF"},
  {"id": 7, "name": "t", "required": false, "type": "timestamptz",
   "initial-default": "2024-01-02T03:04:05.000006+00:00"},
  {"id": 8, "name": "plain", "required": false, "type": "int"}]})json";

types::Schema Evolved() {
  auto schema = types::SchemaFromJson(nlohmann::json::parse(kEvolvedSchema));
  EXPECT_TRUE(schema.has_value()) << (schema ? "" : schema.error().ToString());
  return *schema;
}

TEST(ColumnDefaultTest, DefaultsSurviveTheSchemaJson) {
  const types::Schema schema = Evolved();
  ASSERT_EQ(schema.fields()[1].initial_default, "7");
  EXPECT_EQ(schema.fields()[1].write_default, "8");
  EXPECT_EQ(schema.fields()[2].initial_default, "\"dflt\"");
  EXPECT_FALSE(schema.fields()[7].initial_default.has_value());
  const nlohmann::json written = types::SchemaToJson(schema);
  EXPECT_EQ(written["fields"][1]["initial-default"], 7);
  EXPECT_EQ(written["fields"][1]["write-default"], 8);
  EXPECT_EQ(written["fields"][5]["initial-default"], "0aFF");
  EXPECT_FALSE(written["fields"][7].contains("initial-default"));
  auto again = types::SchemaFromJson(written);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(types::SchemaToJson(*again), written);
}

TEST(ColumnDefaultTest, OldFilesReadTheInitialDefault) {
  TestTable t("defaults", types::Schema({{1, "id", true, Type::Long(), ""}}, 0), {}, 3);
  DataFile old_file = t.WriteData({{Value::Int64(1)}, {Value::Int64(2)}});
  t.Commit("append", {{old_file}});
  t.EvolveSchema(Evolved());
  // A new file with every column (n null in one row: a written null stays null).
  DataFile new_file =
      t.WriteData({{Value::Int64(3), Value::Null(), Str("x"), Value::Int32(0), Value::Decimal(100),
                    Str("\x01"), Value::Int64(0), Value::Int32(9)}});
  t.Commit("append", {{new_file}});
  auto rows = scantest::ScanJson(t.io(), t.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  std::sort(rows->begin(), rows->end());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0], R"({"id":1,"n":7,"s":"dflt","d":"2024-02-29","m":"-1.50","b":"Cv8=",)"
                        R"("t":"2024-01-02T03:04:05.000006+00:00","plain":null})");
  EXPECT_EQ((*rows)[2], R"({"id":3,"n":null,"s":"x","d":"1970-01-01","m":"1.00","b":"AQ==",)"
                        R"("t":"1970-01-01T00:00:00.000000+00:00","plain":9})");
  // Filters see the default.
  TableScanOptions where;
  where.filter = *ParseFilter("n = 7 and s = 'dflt'");
  auto filtered = scantest::ScanJson(t.io(), t.metadata(), where);
  ASSERT_TRUE(filtered.has_value()) << filtered.error().ToString();
  EXPECT_EQ(filtered->size(), 2u);
}

TEST(ColumnDefaultTest, DefaultsThatDoNotFitTheirTypeAreCorruption) {
  Arena arena;
  types::NestedField field{2, "n", false, Type::Long(), ""};
  field.initial_default = "\"seven\"";
  auto v = InitialDefaultValue(field, &arena);
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(v.error().ToString().find("'n'"), std::string::npos) << v.error().ToString();
  field.type = Type::Binary();
  field.initial_default = "\"0g\"";
  EXPECT_FALSE(InitialDefaultValue(field, &arena).has_value());
  field.initial_default = "null";
  auto null_default = InitialDefaultValue(field, &arena);
  ASSERT_TRUE(null_default.has_value());
  EXPECT_TRUE(null_default->is_null());
}

}  // namespace
}  // namespace floe::iceberg
