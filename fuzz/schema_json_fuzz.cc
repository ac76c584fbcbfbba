// Fuzzes the Iceberg schema JSON reader (floe/types/schema_json.h): the input
// is a schema file as `--schema` takes it. Nothing may crash, hang or overflow
// the stack, whatever the nesting; errors are fine. An accepted schema must
// nest no deeper than kMaxTypeDepth and write back (with the non-throwing
// DumpJson) to text that parses again to the same JSON. Seeds and crash
// regressions: tests/fuzz/schema_json/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/common/json_dump.h"
#include "floe/types/schema_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using floe::fuzz::Check;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto schema = floe::types::ParseSchemaText(text, "fuzz.json");
  if (!floe::fuzz::Accepted(schema)) return 0;
  Check(static_cast<bool>(floe::types::CheckTypeDepth(*schema)));
  for (const auto& field : schema->fields()) {
    Check(floe::types::TypeDepth(*field.type) <= floe::types::kMaxTypeDepth);
  }
  std::string written = floe::DumpJson(floe::types::SchemaToJson(*schema), 2);
  auto again = floe::types::ParseSchemaText(written, "written.json");
  Check(static_cast<bool>(again));
  Check(floe::DumpJson(floe::types::SchemaToJson(*again), 2) == written);
  return 0;
}
