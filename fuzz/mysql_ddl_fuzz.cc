// Fuzzes the MySQL DDL parser and schema tracker: the input is split at NUL
// bytes into statements, each parsed and applied to one tracker (so ALTERs
// find the tables earlier CREATEs made); every tracked table is then mapped
// to an Iceberg schema and round-tripped through its JSON form. Nothing may
// crash, hang or fail an assertion; errors are fine.
// Seeds and crash regressions: tests/fuzz/mysql_ddl/.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/cdc/mysql/ddl_parser.h"
#include "floe/cdc/mysql/schema_tracker.h"
#include "floe/cdc/mysql/table_schema_json.h"
#include "floe/cdc/mysql/type_mapping.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe::cdc::mysql;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  SchemaTracker tracker;
  int statements = 0;
  while (!input.empty() && statements < 64) {
    size_t nul = input.find('\0');
    std::string_view sql = input.substr(0, nul);
    input = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
    ++statements;
    auto parsed = ParseDdl(sql);
    (void)parsed;
    auto changes = tracker.Apply(sql, "db");
    if (changes) {
      for (const auto& c : *changes) (void)c.ToString();
    }
  }
  for (const TableSchema* t : tracker.Tables()) {
    auto schema = IcebergSchemaOf(*t);
    if (schema) (void)schema->Validate();
    auto back = TableSchemaFromJson(TableSchemaToJson(*t));
    if (!back || !(*back == *t)) __builtin_trap();  // the JSON form must round-trip
    (void)t->ToString();
  }
  return 0;
}
