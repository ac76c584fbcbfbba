#pragma once
/// Reads Canal's flat JSON messages ("canal-json", what Canal writes to Kafka
/// with `canal.mq.flatMessage = true`, and what TiCDC and many DTS services
/// write under that name) into the change events `floe ingest` and the Kafka
/// source handle (cdc::DebeziumEvent). See docs/kafka.md, "canal-json".
///
///   {"data":[{"id":"1","name":"a"}], "old":[{"name":"b"}],
///    "database":"shop", "table":"users", "pkNames":["id"],
///    "isDdl":false, "type":"UPDATE", "es":1589373560000, "ts":...,
///    "mysqlType":{"id":"int(11)","name":"varchar(255)"}, "sqlType":{...}, "sql":""}
///
/// One message carries one or more rows of one table: each element of
/// `data` becomes one event, in order.
///   INSERT  -> kRow, op kInsert, after = data[i]
///   UPDATE  -> kRow, op kUpdate, after = data[i], before = data[i] with the
///              columns of old[i] replaced by their old values (Canal's `old`
///              holds only the changed columns)
///   DELETE  -> kRow, op kDelete, before = data[i]
///   TRUNCATE (isDdl) -> kTruncate of database.table
///   other DDL (isDdl: CREATE, ALTER, ERASE, RENAME, QUERY, CINDEX, DINDEX)
///           -> one kSchemaChange event (skipped by ingest: the columns of the
///              next row event's `mysqlType` carry the table's new shape)
///
/// Types come from `mysqlType` (the MySQL column type as declared, e.g.
/// "decimal(10,2)", "bigint(20) unsigned", "datetime(3)",
/// "enum('a','b')"), mapped to Iceberg types as for the MySQL source
/// (docs/mysql-type-mapping.md); the events' `row_schema` has one optional
/// field per column, in the order of `mysqlType`, ids 1..n, and messages with
/// the same columns share one schema object. Values are Canal's text (JSON
/// strings; JSON numbers and booleans, as some writers produce, are read by
/// their text) parsed as the MySQL source parses a SELECT's text, except:
/// binary columns hold one character per byte (ISO-8859-1, as Canal writes
/// them), BIT(n) the number in decimal, and TIMESTAMP columns are taken as
/// UTC (Canal formats them in its own time zone: run Canal in UTC). Each
/// event's `table_keys` holds database.table with `pkNames`.
///
/// Errors (kInvalidArgument, naming the member, e.g. "data[0].price: ..."):
/// text that is not a JSON object, a missing or unknown `type`, a missing
/// `table` or `database` on a row event, `data` absent or not an array of
/// objects on a row event, `old` not matching `data`, no `mysqlType` for a
/// column of `data`, a type the MySQL mapping does not know, a value that
/// does not parse as its column's type.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/common/arena.h"
#include "floe/common/result.h"

namespace floe::cdc::mysql {

class CanalJsonReader {
 public:
  CanalJsonReader();
  ~CanalJsonReader();

  /// Decodes one message, appending its events to `out` (cleared first);
  /// values are allocated in `arena`. Not thread-safe: one reader per thread.
  Status Decode(std::string_view message, Arena* arena, std::vector<DebeziumEvent>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::cdc::mysql
