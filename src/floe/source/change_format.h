#pragma once
/// How `floe read` prints rows and changes (docs/read.md, "Output formats"):
///  - json: the row (docs/json-rows.md); with --changelog
///    {"op":"insert|delete|update_before|update_after","snapshot_id":N,"row":{...}};
///  - debezium-json: a Debezium change event without the schema block
///    (`schemas.enable=false`, the bare payload `floe ingest` reads with the
///    destination table's schema): {"before","after","op","source","ts_ms"},
///    op "r" for the rows of a whole-table scan, "c" for inserted rows, "u"
///    for an update pair (before and after in one event), "d" for a delete;
///    `source` names the table (db = its namespace), the snapshot id and
///    sequence number, and ts_ms is the snapshot's commit time.

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe::source {

enum class OutputFormat : uint8_t { kJson, kDebeziumJson };
/// "json" or "debezium-json"; kInvalidArgument otherwise.
Result<OutputFormat> ParseOutputFormat(std::string_view text);

/// Where a change comes from (the event's `source`).
struct ChangeOrigin {
  std::string db;     ///< the table's namespace, "a.b"
  std::string table;  ///< the table's name
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
};

/// Appends one Debezium event (no newline). `op` is 'r', 'c', 'u' or 'd';
/// `before` / `after` are row JSON objects, empty for null.
void AppendDebeziumEvent(char op, std::string_view before, std::string_view after,
                         const ChangeOrigin& origin, std::string* out);

}  // namespace floe::source
