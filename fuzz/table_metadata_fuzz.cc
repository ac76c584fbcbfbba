// Fuzzes the Iceberg table metadata reader (floe/iceberg/json/metadata_json.h): the
// input is a vN.metadata.json file (or gzip of one). Nothing may crash, hang
// or fail an assertion; errors are fine. Accepted metadata must pass
// Validate, answer its lookups, and write back: the written text must parse
// again, and write identically (compact and indented). Seeds and crash
// regressions: tests/fuzz/table_metadata/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "checks.h"
#include "floe/iceberg/json/metadata_json.h"

namespace {

using floe::fuzz::Check;

void Exercise(const floe::iceberg::TableMetadata& m) {
  Check(static_cast<bool>(m.Validate()));
  Check(m.CurrentSchema() != nullptr);
  Check(m.DefaultSpec() != nullptr);
  Check(m.SortOrderById(m.default_sort_order_id) != nullptr);
  if (m.current_snapshot_id) Check(m.CurrentSnapshot() != nullptr);
  for (const auto& [name, ref] : m.refs) Check(m.SnapshotForRef(name) != nullptr);
  for (const auto& s : m.snapshots) {
    Check(m.SnapshotById(s.snapshot_id) == &s);
    if (s.parent_snapshot_id) (void)m.SnapshotById(*s.parent_snapshot_id);
  }
  for (const auto& e : m.snapshot_log) (void)m.SnapshotAsOf(e.timestamp_ms);
  (void)m.SnapshotAsOf(INT64_MIN);
  (void)m.SnapshotAsOf(INT64_MAX);
  for (const auto& [key, value] : m.properties) (void)m.PropertyAsInt(key, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto metadata = floe::iceberg::ParseTableMetadata(text, "fuzz.metadata.json");
  if (!floe::fuzz::Accepted(metadata)) return 0;
  Exercise(*metadata);
  for (int indent : {-1, 2}) {
    std::string written = floe::iceberg::SerializeTableMetadata(*metadata, indent);
    auto again = floe::iceberg::ParseTableMetadata(written, "written.metadata.json");
    Check(static_cast<bool>(again));
    Exercise(*again);
    Check(floe::iceberg::SerializeTableMetadata(*again, indent) == written);
  }
  return 0;
}
