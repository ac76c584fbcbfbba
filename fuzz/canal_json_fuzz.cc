// Fuzzes the canal-json reader: the input is split at newlines into up to 32
// messages, decoded in order by one reader (so the cached column types of
// the last `mysqlType` block are reused and replaced). Nothing may crash,
// hang or fail an assertion; errors are fine. Every accepted row event must
// match its schema: one value per column in each image it has, each value of
// its column's type and within its range; a delete has no after image, an
// insert no before image, an update both.
// Seeds and crash regressions: tests/fuzz/canal_json/.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "floe/cdc/mysql/canal_json.h"
#include "value_checks.h"

namespace {

using floe::cdc::ChangeOp;
using floe::cdc::DebeziumEvent;
using floe::fuzz::Check;
using floe::fuzz::CheckRow;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  floe::cdc::mysql::CanalJsonReader reader;
  floe::Arena arena;
  std::vector<DebeziumEvent> events;
  for (int n = 0; n < 32 && !input.empty(); ++n) {
    size_t end = input.find('\n');
    std::string_view message = input.substr(0, end);
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
    arena.Reset();
    if (!floe::fuzz::Accepted(reader.Decode(message, &arena, &events))) continue;
    for (const DebeziumEvent& e : events) {
      if (e.kind != DebeziumEvent::Kind::kRow) {
        Check(e.before.empty() && e.after.empty());
        continue;
      }
      Check(e.row_schema != nullptr);
      Check(!e.table.empty() && !e.db.empty());
      Check(e.op == ChangeOp::kDelete ? e.after.empty() : !e.after.empty());
      Check(e.op == ChangeOp::kInsert ? e.before.empty() : !e.before.empty());
      if (!e.after.empty()) CheckRow(*e.row_schema, e.after, /*check_required=*/false);
      if (!e.before.empty()) CheckRow(*e.row_schema, e.before, /*check_required=*/false);
    }
  }
  return 0;
}
