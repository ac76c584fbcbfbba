#pragma once
/// The `source:` section of a pipeline file (pipeline_definition.h) as typed
/// values: one definition per source type (mysql, postgres, iceberg, kafka),
/// with the catalog and secret settings a sink shares. docs/pipeline.md is the
/// reference for every key. Plain values, safe to copy and to read from
/// several threads.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/pipeline/table_selector.h"

namespace floe::pipeline {

/// A setting that may hold a secret.
struct SettingValue {
  std::string value;
  bool secret = false;
  bool operator==(const SettingValue&) const = default;
};

/// `scan.startup.mode`, as Flink CDC's MySQL source defines the modes.
enum class StartupMode {
  kInitial,         ///< "initial": snapshot every table, then follow the binlog (default)
  kLatestOffset,    ///< "latest-offset": no snapshot; changes from now on
  kEarliestOffset,  ///< "earliest-offset": no snapshot; from the oldest binlog kept
  kSpecificOffset,  ///< "specific-offset": from a binlog file:pos or a GTID set
  kTimestamp,       ///< "timestamp": from the first binlog event at or after a time
  kSnapshot,        ///< "snapshot": the snapshot only, then stop
};
/// The names of the modes, in the enum's order (index = the enum's value).
const std::vector<std::string>& StartupModeNames();
/// The name of `mode` ("?" for a value outside the enum).
std::string_view StartupModeName(StartupMode mode);

/// `server-id`: one id ("5400") or an inclusive range ("5400-5404").
struct ServerIdRange {
  uint32_t first = 0;
  uint32_t last = 0;
  bool operator==(const ServerIdRange&) const = default;
};

/// `source:` with `type: mysql` (MySQL and MariaDB).
struct MySqlSourceDefinition {
  std::string hostname;   ///< required
  int port = 3306;        ///< 1..65535
  std::string username;   ///< required
  SettingValue password;  ///< always secret
  SourceTables tables;    ///< `tables` (required) and `tables.exclude`
  std::optional<ServerIdRange> server_id;
  std::string server_time_zone;  ///< `server-time-zone`; empty: the server's
  StartupMode startup_mode = StartupMode::kInitial;
  /// `scan.startup.specific-offset.*`, set only with kSpecificOffset.
  std::string specific_offset_file;
  std::optional<uint64_t> specific_offset_pos;
  std::string specific_offset_gtid_set;
  int64_t specific_offset_skip_events = 0;
  int64_t specific_offset_skip_rows = 0;
  /// `scan.startup.timestamp-millis`, set only with kTimestamp.
  std::optional<int64_t> startup_timestamp_millis;
  int64_t snapshot_chunk_size = 8096;             ///< `scan.incremental.snapshot.chunk.size`, >= 1
  int64_t snapshot_fetch_size = 1024;             ///< `scan.snapshot.fetch.size`, >= 1
  bool newly_added_table_enabled = false;         ///< `scan.newly-added-table.enabled`
  bool binlog_newly_added_table_enabled = false;  ///< `scan.binlog.newly-added-table.enabled`
  bool close_idle_reader_enabled = false;         ///< `scan.incremental.close-idle-reader.enabled`
  bool schema_change_enabled = true;              ///< `schema-change.enabled`
  std::chrono::milliseconds connect_timeout{30000};     ///< `connect.timeout`
  int connect_max_retries = 3;                          ///< `connect.max-retries`, >= 0
  int connection_pool_size = 20;                        ///< `connection.pool.size`, >= 1
  std::chrono::milliseconds heartbeat_interval{30000};  ///< `heartbeat.interval`
  /// `jdbc.properties.<name>`: connection options, by name without the prefix.
  std::map<std::string, SettingValue> jdbc_properties;
};

/// A catalog of the sink (or of an iceberg source): written inline
/// (`catalog: {type: sql, ...}`, or Flink CDC's `catalog.properties.*` keys)
/// or named (`catalog: NAME`, a catalog of the `--catalog-config` file,
/// resolved by ResolveCatalog).
struct CatalogDefinition {
  /// Set for the named form.
  std::string name;
  /// Set for the inline form: name (the inline `name` key, default
  /// "default": it is the catalog name a SQL catalog stores), type ("sql",
  /// "hadoop" or "rest"), every property, and base_dir = the pipeline file's folder.
  std::optional<iceberg::CatalogConfig> config;
  /// The inline properties whose values are secrets.
  std::set<std::string> secret_properties;
};

/// `source:` with `type: iceberg`: the tables of an Iceberg catalog, read
/// as streams (docs/pipeline.md, "source: (type iceberg)"). The keys are those of
/// Iceberg's Flink source where they apply.
struct IcebergSourceDefinition {
  CatalogDefinition catalog;  ///< required
  /// `tables` (required): "namespace.table" patterns, as the mysql source's
  /// (the last unescaped `.` of a name separates its namespace), and
  /// `tables.exclude`.
  SourceTables tables;
  /// `streaming`: follow the tables (default); false: copy what they hold
  /// when the run starts, then the run ends.
  bool streaming = true;
  /// `starting-strategy`, Iceberg's names in kebab case. Default
  /// table-scan-then-incremental (every row the table holds, then its
  /// changes), as `scan.startup.mode: initial` does for a database.
  std::string starting_strategy = "table-scan-then-incremental";
  /// `start-snapshot-id` (incremental-from-snapshot-id; one table only).
  std::optional<int64_t> start_snapshot_id;
  /// `start-snapshot-timestamp` (incremental-from-snapshot-timestamp), ms.
  std::optional<int64_t> start_snapshot_timestamp;
  /// `monitor-interval`: how often each table is checked for new snapshots.
  std::chrono::milliseconds monitor_interval{10000};
  /// `changelog` (floe's key): overwrite and delete snapshots become row
  /// changes — deletes and updates reach the sink (default). false:
  /// append-only reading as Iceberg's Flink source; an overwrite or delete
  /// snapshot stops the run unless skipped by the two keys below.
  bool changelog = true;
  bool skip_overwrite_snapshots = false;               ///< `streaming-skip-overwrite-snapshots`
  bool skip_delete_snapshots = false;                  ///< `streaming-skip-delete-snapshots`
  std::optional<int64_t> max_planning_snapshot_count;  ///< `max-planning-snapshot-count`
  std::string branch;                                  ///< `branch`; empty: main
  bool case_sensitive = true;                          ///< `case-sensitive`
  std::optional<int64_t> split_size;                   ///< `split-size`, bytes
  std::optional<int64_t> split_file_open_cost;         ///< `split-file-open-cost`, bytes
  std::optional<int64_t> split_lookback;               ///< `split-lookback`
};

/// `source:` with `type: kafka`: the change events of Kafka topics
/// (docs/kafka.md, docs/pipeline.md "source: (type kafka)"). The keys are
/// those of Flink's Kafka SQL connector; they are checked here for their
/// names and the required ones, and read into the consumer's options by
/// kafka::ParseKafkaSourceOptions when the run starts.
struct KafkaSourceDefinition {
  /// Every connector key of the section (`topic`, `scan.startup.*`,
  /// `open-timeout`, `properties.*`) with its value; values of secret
  /// `properties.*` (passwords, keys, tokens) are marked secret.
  std::map<std::string, SettingValue> settings;
  /// `value.format`: debezium-json (default) or canal-json.
  std::string value_format = "debezium-json";
  /// `on-error`: fail (default: a message that cannot be read stops the
  /// run) or skip (it becomes a dead letter; docs/kafka.md, "Dead letters").
  std::string on_error = "fail";
  /// `dead-letter.path`: the folder of the dead-letter files (default:
  /// beside the lake copy of the source state, in the sink's warehouse).
  std::string dead_letter_path;
};

/// `source:` with `type: postgres`: a PostgreSQL database's logical
/// replication stream, decoded from the built-in pgoutput plugin
/// (docs/postgres.md, docs/pipeline.md "source: (type postgres)"). The key
/// names are Flink CDC's PostgreSQL connector's and Debezium's.
struct PostgresSourceDefinition {
  std::string hostname;       ///< required
  int port = 5432;            ///< 1..65535
  std::string username;       ///< required
  SettingValue password;      ///< always secret
  std::string database_name;  ///< `database-name`, required
  /// `schema-name`: a regular expression the schema of every selected table
  /// must match (whole match); empty: any schema.
  std::string schema_name;
  /// `tables` (required, "schema.table" patterns as the mysql source's
  /// "db.table") and `tables.exclude`.
  SourceTables tables;
  std::string slot_name;                             ///< `slot.name`, required
  std::string decoding_plugin_name = "pgoutput";     ///< the only one accepted
  std::string publication_name = "dbz_publication";  ///< `publication.name`
  /// `publication.autocreate.mode`: all_tables, filtered or disabled.
  std::string publication_autocreate_mode = "all_tables";
  /// `scan.startup.mode`: initial (the tables in the snapshot a new slot
  /// exports, then the changes from its consistent point) or latest-offset
  /// (the changes from the slot's position on).
  StartupMode startup_mode = StartupMode::kInitial;
  /// `heartbeat.interval`: after this long without a change, the slot is
  /// confirmed up to the server's WAL position (when nothing read is waiting
  /// for its commit), so that an idle slot does not hold WAL back.
  std::chrono::milliseconds heartbeat_interval{30000};
  std::chrono::milliseconds connect_timeout{30000};  ///< `connect.timeout`
};

struct SourceDefinition {
  std::string type;                   ///< "mysql", "postgres", "iceberg" or "kafka"
  std::string name;                   ///< `name`: a display name, as in Flink CDC; may be empty
  MySqlSourceDefinition mysql;        ///< type mysql
  IcebergSourceDefinition iceberg;    ///< type iceberg
  KafkaSourceDefinition kafka;        ///< type kafka
  PostgresSourceDefinition postgres;  ///< type postgres
  bool is_iceberg() const { return type == "iceberg"; }
  bool is_kafka() const { return type == "kafka"; }
  bool is_postgres() const { return type == "postgres"; }
  const SourceTables& tables() const {
    return is_iceberg() ? iceberg.tables : is_postgres() ? postgres.tables : mysql.tables;
  }
};

}  // namespace floe::pipeline
