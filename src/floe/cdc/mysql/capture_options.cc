// Capture options (checks, --startup) and the table definitions a capture
// hands on with its changes.
#include <charconv>
#include <regex>

#include "floe/cdc/mysql/capture.h"
#include "floe/cdc/mysql/snapshot.h"
#include "floe/cdc/mysql/type_mapping.h"

namespace floe::cdc::mysql {

Result<TableDefinitionPtr> MakeTableDefinition(const TableSchema& schema, int64_t version) {
  TableSchema s = schema;
  AssignFieldIds(s);
  auto def = std::make_shared<TableDefinition>();
  def->id = {s.db, s.table};
  def->version = version;
  def->primary_key = s.primary_key;
  def->charset = s.charset;
  def->comment = s.comment;
  for (const auto& c : s.columns) {
    SourceColumn sc;
    sc.name = c.name;
    sc.type_name = std::string(MysqlTypeName(c.type));
    if (c.type == MysqlType::kBool) sc.type_name = "TINYINT";
    sc.is_unsigned = c.is_unsigned;
    if (c.type == MysqlType::kDecimal) {
      sc.length = c.precision.value_or(10);
      sc.scale = c.scale.value_or(0);
    } else if (c.length) {
      sc.length = *c.length;
    }
    sc.fsp = c.fsp;
    sc.nullable = c.nullable;
    sc.auto_increment = c.auto_increment;
    if (IsTextType(c.type) || c.type == MysqlType::kEnum || c.type == MysqlType::kSet) {
      sc.charset = std::string(s.EffectiveCharset(c));
    }
    sc.enum_values = c.enum_values;
    sc.default_value = c.default_value;
    sc.comment = c.comment;
    def->columns.push_back(std::move(sc));
  }
  FLOE_ASSIGN_OR_RETURN(def->schema, IcebergSchemaOf(s, static_cast<int32_t>(version)));
  return TableDefinitionPtr(std::move(def));
}

Status CheckCaptureOptions(const CaptureOptions& o) {
  try {
    std::regex check(o.tables, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return InvalidArgument("--tables '{}' is not a valid regular expression: {}", o.tables,
                           e.what());
  }
  if (o.snapshot_parallelism < 1 || o.snapshot_parallelism > kMaxSnapshotParallelism) {
    return InvalidArgument("--snapshot-parallelism {}: expected 1..{}", o.snapshot_parallelism,
                           kMaxSnapshotParallelism);
  }
  if (o.server_id < 1 ||
      o.server_id > kMaxServerId - static_cast<uint32_t>(o.snapshot_parallelism)) {
    return InvalidArgument(
        "--server-id {}: expected 1..{} (the snapshot's {} readers use the ids after it)",
        o.server_id, kMaxServerId - static_cast<uint32_t>(o.snapshot_parallelism),
        o.snapshot_parallelism);
  }
  if (o.snapshot_chunk_rows < 1 || o.snapshot_chunk_rows > kMaxSnapshotChunkRows) {
    return InvalidArgument("--chunk-rows {}: expected 1..{}", o.snapshot_chunk_rows,
                           kMaxSnapshotChunkRows);
  }
  if (o.heartbeat_seconds < 1 || o.heartbeat_seconds > kMaxHeartbeatSeconds) {
    return InvalidArgument("heartbeat of {} s: expected 1..{}", o.heartbeat_seconds,
                           kMaxHeartbeatSeconds);
  }
  if (o.reconnect_attempts < 0 || o.reconnect_attempts > kMaxReconnectAttempts) {
    return InvalidArgument("{} reconnect attempts: expected 0..{}", o.reconnect_attempts,
                           kMaxReconnectAttempts);
  }
  return Ok();
}

Status ParseStartup(std::string_view text, CaptureOptions* o) {
  if (text == "initial") {
    o->startup = StartupMode::kInitial;
  } else if (text == "latest") {
    o->startup = StartupMode::kLatest;
  } else if (text.starts_with("gtid:")) {
    o->startup = StartupMode::kGtid;
    FLOE_ASSIGN_OR_RETURN(o->start_gtids, GtidSet::Parse(text.substr(5)));
    if (o->start_gtids.empty()) return InvalidArgument("--startup gtid: needs a GTID set");
  } else if (text.starts_with("ts:")) {
    o->startup = StartupMode::kTimestamp;
    std::string_view t = text.substr(3);
    int64_t secs = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), secs);
    if (ec != std::errc() || p != t.data() + t.size()) {
      ColumnDef c;
      c.type = MysqlType::kDateTime;
      Arena arena;
      auto v = ParseSelectedValue(c, t.data(), t.size(), &arena);
      if (!v || v->is_null()) {
        return InvalidArgument(
            "--startup ts:{}: expected unix seconds or 'YYYY-MM-DD HH:MM:SS' (UTC)", t);
      }
      secs = v->i64 / 1000000;
    }
    o->start_unix_seconds = secs;
  } else {
    o->startup = StartupMode::kPosition;
    auto pos = BinlogFilePos::Parse(text);
    if (!pos) {
      return InvalidArgument(
          "--startup '{}': expected initial, latest, FILE:POS, gtid:SET or ts:TIME", text);
    }
    o->start_position = *pos;
  }
  return Ok();
}

}  // namespace floe::cdc::mysql
