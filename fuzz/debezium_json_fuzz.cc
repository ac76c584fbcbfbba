// Fuzzes the Debezium JSON reader: the input is split at newlines into up to
// 64 events, decoded in order by one reader (so the schema-block cache is
// exercised), alternately with a fixed `known` schema of every Iceberg type
// and with the row schema of the last event that had a block. Nothing may
// crash, hang or fail an assertion; errors are fine. Every accepted row must
// match its schema: one value per field, each of its type's kind, within the
// type's range, and no null in a required field of an `after` image. After
// every third accepted row event, the before images of its table are limited
// to the first field (as `floe ingest` limits them to the key), so later
// events also take the path that skips the other members.
// Every line is also decoded by a second reader with the one-pass decoder
// off: the two must agree (the same error message, or the same event and
// values), so the one-pass decoder is never more lenient than the simdjson
// decoder and never decodes a value differently.
// Seeds and crash regressions: tests/fuzz/debezium_json/.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/debezium_json_reader_internal.h"
#include "value_checks.h"

namespace {

using floe::fuzz::Accepted;
using floe::fuzz::Check;
using floe::fuzz::CheckRow;

const floe::types::Schema& KnownSchema() {
  static const floe::types::Schema* schema = [] {
    using floe::types::NestedField;
    using floe::types::Type;
    std::vector<NestedField> fields = floe::fuzz::EveryPrimitiveField();
    fields.insert(
        fields.end(),
        {
            {15, "st", false,
             Type::Struct({{16, "x", true, Type::Int(), ""}, {17, "y", false, Type::String(), ""}}),
             ""},
            {18, "l", false, Type::List(19, true, Type::Long()), ""},
            {20, "m", false, Type::Map(21, Type::String(), 22, false, Type::Double()), ""},
            {23, "im", false, Type::Map(24, Type::Int(), 25, true, Type::Date()), ""},
        });
    return new floe::types::Schema(std::move(fields), 0, {1});
  }();
  return *schema;
}

void CheckSameRow(floe::types::Row a, floe::types::Row b) {
  Check(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) Check(floe::types::SameValue(a[i], b[i]));
}

void CheckSame(const floe::Result<floe::cdc::DebeziumEvent>& a,
               const floe::Result<floe::cdc::DebeziumEvent>& b) {
  Check(a.has_value() == b.has_value());
  if (!a) {
    Check(a.error().ToString() == b.error().ToString());
    return;
  }
  Check(a->kind == b->kind && a->op == b->op && a->db == b->db && a->table == b->table &&
        a->ts_ms == b->ts_ms && a->schema_change_kind == b->schema_change_kind &&
        a->table_keys.size() == b->table_keys.size());
  Check((a->row_schema == nullptr) == (b->row_schema == nullptr));
  CheckSameRow(a->before, b->before);
  CheckSameRow(a->after, b->after);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  floe::cdc::DebeziumJsonReader reader;
  floe::Arena arena;
  floe::cdc::DebeziumJsonReader slow;  // the simdjson decoder only
  floe::cdc::dbz::ReaderTesting::UseOnePass(&slow, false);
  floe::Arena slow_arena;
  std::shared_ptr<const floe::types::Schema> last_block;
  for (int n = 0; !input.empty() && n < 64; ++n) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
    const floe::types::Schema* known =
        (n % 2 == 0 || !last_block) ? &KnownSchema() : last_block.get();
    auto event = reader.Decode(line, known, &arena);
    CheckSame(event, slow.Decode(line, known, &slow_arena));
    if (!Accepted(event)) continue;
    if (event->kind != floe::cdc::DebeziumEvent::Kind::kRow) continue;
    Check(!event->table.empty());
    const floe::types::Schema& schema = event->row_schema ? *event->row_schema : *known;
    if (event->row_schema) {
      Check(static_cast<bool>(event->row_schema->Validate()));
      last_block = event->row_schema;
    }
    if (!event->after.empty()) CheckRow(schema, event->after, /*check_required=*/true);
    if (!event->before.empty()) CheckRow(schema, event->before, /*check_required=*/false);
    if (n % 3 == 0) {
      static constexpr int kFirstField[] = {0};
      reader.LimitBeforeImage(event->db, event->table, kFirstField);
      slow.LimitBeforeImage(event->db, event->table, kFirstField);
    }
  }
  return 0;
}
