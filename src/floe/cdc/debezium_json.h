#pragma once
/// Change events as Debezium's MySQL connector writes them (JSON converter with
/// schemas enabled), so any Debezium consumer, and `floe ingest`, reads them.
///
/// Row change:
///   {"schema": {<Envelope struct>}, "payload": {"before": {...}|null,
///    "after": {...}|null, "source": {"version", "connector": "mysql", "name",
///    "ts_ms", "snapshot", "db", "sequence", "table", "server_id", "gtid", "file",
///    "pos", "row", "thread", "query"}, "op": "c|u|d|r", "ts_ms", "transaction"}}
/// Schema change (the schema-change topic's value):
///   {"schema": {...}, "payload": {"source": {...}, "ts_ms", "databaseName",
///    "schemaName": null, "ddl", "tableChanges": [{"type": "CREATE|ALTER|DROP",
///    "id": "\"db\".\"t\"", "table": {"defaultCharsetName", "primaryKeyColumnNames",
///    "columns": [{"name", "jdbcType", "typeName", "typeExpression", "charsetName",
///    "length", "scale", "position", "optional", "autoIncremented", "generated",
///    "comment", "hasDefaultValue", "defaultValueExpression", "enumValues"}], ...}}]}}
///
/// Value conventions (Debezium defaults: time.precision.mode=adaptive_time_microseconds,
/// decimal.handling.mode=precise, binary.handling.mode=bytes, with
/// bigint.unsigned.handling.mode=precise so no value is lost):
///   TINYINT, SMALLINT -> int16; MEDIUMINT, INT -> int32; INT UNSIGNED, BIGINT -> int64;
///   SMALLINT/MEDIUMINT UNSIGNED -> int32; BIGINT UNSIGNED and DECIMAL ->
///   org.apache.kafka.connect.data.Decimal (base64 of the big-endian two's-complement
///   unscaled value, parameters scale and connect.decimal.precision);
///   FLOAT -> float32; DOUBLE -> float64; BIT(1) -> boolean; BIT(n) ->
///   io.debezium.data.Bits (little-endian bytes); YEAR -> io.debezium.time.Year;
///   DATE -> io.debezium.time.Date (days); TIME -> io.debezium.time.MicroDuration
///   (signed microseconds: TIME is a duration of up to +-838:59:59, which
///   Debezium's MicroTime, a time of day, would misname);
///   DATETIME(0..3) -> io.debezium.time.Timestamp (ms); DATETIME(4..6) ->
///   io.debezium.time.MicroTimestamp (us); TIMESTAMP -> io.debezium.time.ZonedTimestamp
///   ("2018-06-20T13:37:03Z", UTC); CHAR/VARCHAR/TEXT -> string; ENUM ->
///   io.debezium.data.Enum; SET -> io.debezium.data.EnumSet; JSON ->
///   io.debezium.data.Json; BINARY/BLOB -> bytes (base64 in JSON); GEOMETRY ->
///   io.debezium.data.geometry.Geometry {wkb, srid}.
///
/// Not thread-safe (caches each table version's schema block).

#include <memory>
#include <string>
#include <unordered_map>

#include "floe/cdc/change.h"
#include "floe/common/json_text.h"

namespace floe::cdc {

struct DebeziumJsonOptions {
  /// The logical server name (Debezium's topic.prefix), used in schema names
  /// and `source.name`. Default "floe".
  std::string server_name = "floe";
  /// Emit the "schema" block (JSON converter schemas.enable=true). Default true.
  bool include_schema = true;
  /// `source.version`.
  std::string version = "floe-0.1.0";
};

class DebeziumJsonWriter {
 public:
  explicit DebeziumJsonWriter(DebeziumJsonOptions options = {});

  /// Appends one row change as a JSON object (no newline). `ts_ms` is the
  /// time floe processed the event (the envelope's ts_ms).
  void AppendRowChange(const RowChange& change, int64_t ts_ms, std::string* out);
  /// Appends one schema change as a JSON object (no newline).
  void AppendSchemaChange(const SchemaChange& change, int64_t ts_ms, std::string* out);

 private:
  const std::string& EnvelopeSchema(const TableDefinitionPtr& table);
  void AppendSource(const ChangeSource* source, const TableId& table, uint32_t row,
                    std::string* out);
  void AppendRow(const TableDefinition& table, types::Row row, std::string* out);

  DebeziumJsonOptions options_;
  std::unordered_map<const TableDefinition*, std::pair<TableDefinitionPtr, std::string>>
      schema_cache_;
  std::string scratch_;
};

/// JSON string literals (floe/common/json_text.h), for the writers here.
using floe::AppendJsonString;

/// The minimal big-endian two's-complement bytes of an unscaled decimal
/// (Kafka Connect's Decimal encoding).
std::string DecimalToBigEndianBytes(types::int128_t unscaled);
/// The same for a decimal given as text ("-12.345") at `scale`, any precision.
/// kInvalidArgument on text that is not a decimal.
Result<std::string> DecimalTextToBigEndianBytes(std::string_view text, int scale);

}  // namespace floe::cdc
