// Fuzzes the filter parser of `--where` (floe/iceberg/expression/expression_parser.h):
// the input is the filter text. Nothing may crash, hang or overflow the
// stack, however deep the parentheses or NOTs; errors are fine. An accepted
// filter is printed and bound against a small schema (binding may fail on
// unknown columns or wrong literal types, never crash). Seeds and crash
// regressions: tests/fuzz/where_expression/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checks.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/types/schema.h"

namespace {

const floe::types::Schema& TestSchema() {
  using floe::types::NestedField;
  using floe::types::Type;
  static const floe::types::Schema* schema = [] {
    auto prim = [](const char* name) { return *Type::ParsePrimitive(name); };
    std::vector<NestedField> inner = {{10, "x", false, prim("int"), ""}};
    std::vector<NestedField> fields = {
        {1, "id", true, prim("long"), ""},
        {2, "name", false, prim("string"), ""},
        {3, "ts", false, prim("timestamp"), ""},
        {4, "amount", false, prim("decimal(10, 2)"), ""},
        {5, "score", false, prim("double"), ""},
        {6, "flag", false, prim("boolean"), ""},
        {7, "day", false, prim("date"), ""},
        {8, "nested", false, Type::Struct(std::move(inner)), ""},
    };
    return new floe::types::Schema(std::move(fields));
  }();
  return *schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto expr = floe::iceberg::ParseFilter(text);
  if (!floe::fuzz::Accepted(expr)) return 0;
  (void)(*expr)->ToString();
  for (bool case_sensitive : {true, false}) {
    auto bound = floe::iceberg::Bind(*expr, TestSchema(), case_sensitive);
    if (floe::fuzz::Accepted(bound)) (void)(*bound)->ToString();
  }
  return 0;
}
