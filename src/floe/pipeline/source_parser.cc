// source: (type mysql, postgres, iceberg or kafka) of a pipeline file.

#include <algorithm>
#include <cctype>
#include <limits>
#include <regex>

#include "floe/pipeline/block_reader.h"
#include "floe/pipeline/section_parsers.h"
#include "floe/pipeline/values.h"

namespace floe::pipeline {
namespace {

const std::vector<std::string> kSourceTypes = {"mysql", "postgres", "iceberg", "kafka"};
/// The keys of every database server source (mysql, postgres): its type and
/// name, and the login ReadServerLogin reads.
const std::vector<std::string> kServerSourceKeys = {
    "type", "name", "hostname", "port", "username", "password",
};
/// The keys of a mysql source besides kServerSourceKeys: Flink CDC's MySQL
/// connector's names.
const std::vector<std::string> kMySqlKeys = {
    "tables",
    "tables.exclude",
    "server-id",
    "server-time-zone",
    "scan.startup.mode",
    "scan.startup.specific-offset.file",
    "scan.startup.specific-offset.pos",
    "scan.startup.specific-offset.gtid-set",
    "scan.startup.specific-offset.skip-events",
    "scan.startup.specific-offset.skip-rows",
    "scan.startup.timestamp-millis",
    "scan.incremental.snapshot.chunk.size",
    "scan.snapshot.fetch.size",
    "scan.newly-added-table.enabled",
    "scan.binlog.newly-added-table.enabled",
    "scan.incremental.close-idle-reader.enabled",
    "schema-change.enabled",
    "connect.timeout",
    "connect.max-retries",
    "connection.pool.size",
    "heartbeat.interval",
};
/// The keys of a postgres source besides kServerSourceKeys: Flink CDC's
/// PostgreSQL connector's and Debezium's names.
const std::vector<std::string> kPostgresKeys = {
    "database-name",     "schema-name",          "tables",           "tables.exclude",
    "slot.name",         "decoding.plugin.name", "publication.name", "publication.autocreate.mode",
    "scan.startup.mode", "heartbeat.interval",   "connect.timeout",
};
const std::vector<std::string> kPublicationAutocreateModes = {"all_tables", "filtered", "disabled"};
const std::vector<std::string> kIcebergKeys = {
    "type",
    "name",
    "catalog",
    "tables",
    "tables.exclude",
    "streaming",
    "starting-strategy",
    "start-snapshot-id",
    "start-snapshot-timestamp",
    "monitor-interval",
    "changelog",
    "streaming-skip-overwrite-snapshots",
    "streaming-skip-delete-snapshots",
    "max-planning-snapshot-count",
    "branch",
    "case-sensitive",
    "split-size",
    "split-file-open-cost",
    "split-lookback",
};
/// The keys of a kafka source besides `properties.*` (Flink's Kafka SQL
/// connector's names; docs/kafka.md).
const std::vector<std::string> kKafkaKeys = {
    "type",
    "name",
    "topic",
    "topic-pattern",
    "scan.startup.mode",
    "scan.startup.timestamp-millis",
    "scan.startup.specific-offsets",
    "open-timeout",
    "scale-out.enabled",
    "value.format",
    "on-error",
    "dead-letter.path",
};
const std::vector<std::string> kOnErrorChoices = {"fail", "skip"};
const std::vector<std::string> kKafkaStartupModes = {
    "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"};
const std::vector<std::string> kKafkaValueFormats = {"debezium-json", "canal-json"};

/// Iceberg's StartingStrategy values, in kebab case (the upper-case forms
/// are accepted too).
const std::vector<std::string> kStartingStrategies = {
    "table-scan-then-incremental",
    "incremental-from-latest-snapshot",
    "incremental-from-latest-snapshot-exclusive",
    "incremental-from-earliest-snapshot",
    "incremental-from-snapshot-id",
    "incremental-from-snapshot-timestamp",
};

Result<ServerIdRange> ParseServerId(std::string_view text) {
  constexpr int64_t kMax = std::numeric_limits<uint32_t>::max();
  size_t dash = text.find('-');
  ServerIdRange range;
  if (dash == std::string_view::npos) {
    auto id = ParseInteger(text, 1, kMax);
    if (!id) {
      return InvalidArgument(
          "'{}' is not a server id (a number 1..{} or a range such as "
          "5400-5404)",
          text, kMax);
    }
    range.first = range.last = static_cast<uint32_t>(*id);
    return range;
  }
  auto first = ParseInteger(text.substr(0, dash), 1, kMax);
  auto last = ParseInteger(text.substr(dash + 1), 1, kMax);
  if (!first || !last) {
    return InvalidArgument("'{}' is not a server id range (two numbers 1..{} such as 5400-5404)",
                           text, kMax);
  }
  if (*first > *last) {
    return InvalidArgument("'{}': the range's first id is larger than its last", text);
  }
  range.first = static_cast<uint32_t>(*first);
  range.last = static_cast<uint32_t>(*last);
  return range;
}

/// Sets `*field` to boolean setting `key` when the block gives it.
Status SetBool(BlockReader& r, std::string_view key, bool* field) {
  FLOE_ASSIGN_OR_RETURN(auto value, r.Bool(key));
  if (value) *field = *value;
  return Ok();
}

/// Sets `*field` to duration setting `key` (at least `min`) when the block gives it.
Status SetDuration(BlockReader& r, std::string_view key, std::chrono::milliseconds min,
                   std::chrono::milliseconds* field) {
  FLOE_ASSIGN_OR_RETURN(auto value, r.Duration(key, min));
  if (value) *field = *value;
  return Ok();
}

/// Sets `*field` to integer setting `key` (within [min, max]) when the block gives it.
template <typename Integer>
Status SetInteger(BlockReader& r, std::string_view key, int64_t min, int64_t max, Integer* field) {
  FLOE_ASSIGN_OR_RETURN(auto value, r.Integer(key, min, max));
  if (value) *field = static_cast<Integer>(*value);
  return Ok();
}

/// Reads the "a,b" patterns of `key` into `selector`; false when the key is absent.
Result<bool> ReadTableSelector(BlockReader& r, std::string_view key, TableSelector* selector) {
  FLOE_ASSIGN_OR_RETURN(auto text, r.StringOrList(key));
  if (!text) return false;
  auto parsed = ParseTableSelector(*text);
  if (!parsed) return r.Fail(*r.Get(key), "{}", parsed.error().message());
  *selector = std::move(*parsed);
  return true;
}

/// Reads `tables` (required: its absence fails the block with "needs 'tables'
/// (`what`)") and `tables.exclude` into `tables`.
Status ReadSourceTables(BlockReader& r, std::string_view what, SourceTables* tables) {
  FLOE_ASSIGN_OR_RETURN(bool found, ReadTableSelector(r, "tables", &tables->include));
  if (!found) return r.FailBlock(fmt::format("needs 'tables' ({})", what));
  FLOE_ASSIGN_OR_RETURN(found, ReadTableSelector(r, "tables.exclude", &tables->exclude));
  return Ok();
}

/// Reads the server and login of a database source: `hostname` and
/// `username` (required), `port` and `password` (secret).
template <typename Definition>
Status ReadServerLogin(BlockReader& r, Definition* s) {
  FLOE_ASSIGN_OR_RETURN(auto hostname, r.String("hostname"));
  if (!hostname || hostname->empty()) return r.FailBlock("needs 'hostname' (the server to read)");
  s->hostname = *hostname;
  FLOE_RETURN_IF_ERROR(SetInteger(r, "port", 1, 65535, &s->port));
  FLOE_ASSIGN_OR_RETURN(auto username, r.String("username"));
  if (!username || username->empty()) return r.FailBlock("needs 'username'");
  s->username = *username;
  FLOE_ASSIGN_OR_RETURN(auto password, r.String("password"));
  if (password) s->password = SettingValue{*password, true};
  return Ok();
}

Result<MySqlSourceDefinition> ParseMySql(BlockReader& r) {
  MySqlSourceDefinition s;
  using std::chrono::milliseconds;

  FLOE_RETURN_IF_ERROR(ReadServerLogin(r, &s));

  FLOE_RETURN_IF_ERROR(ReadSourceTables(
      r, "the tables to mirror, e.g. \"shop.\\.*\" for every table of shop", &s.tables));

  FLOE_ASSIGN_OR_RETURN(auto server_id, r.Parsed("server-id", ParseServerId));
  if (server_id) s.server_id = *server_id;
  FLOE_ASSIGN_OR_RETURN(auto time_zone, r.String("server-time-zone"));
  if (time_zone) s.server_time_zone = *time_zone;

  FLOE_ASSIGN_OR_RETURN(auto mode, r.Choice("scan.startup.mode", StartupModeNames()));
  if (mode) s.startup_mode = static_cast<StartupMode>(*mode);
  constexpr std::string_view kOffset = "scan.startup.specific-offset.";
  FLOE_ASSIGN_OR_RETURN(auto file, r.String("scan.startup.specific-offset.file"));
  FLOE_ASSIGN_OR_RETURN(auto pos, r.Integer("scan.startup.specific-offset.pos", 0,
                                            std::numeric_limits<int64_t>::max()));
  FLOE_ASSIGN_OR_RETURN(auto gtid, r.String("scan.startup.specific-offset.gtid-set"));
  FLOE_ASSIGN_OR_RETURN(auto skip_events, r.Integer("scan.startup.specific-offset.skip-events", 0,
                                                    std::numeric_limits<int64_t>::max()));
  FLOE_ASSIGN_OR_RETURN(auto skip_rows, r.Integer("scan.startup.specific-offset.skip-rows", 0,
                                                  std::numeric_limits<int64_t>::max()));
  FLOE_ASSIGN_OR_RETURN(auto millis, r.Integer("scan.startup.timestamp-millis", 0,
                                               std::numeric_limits<int64_t>::max()));
  bool any_offset = file || pos || gtid || skip_events || skip_rows;
  if (s.startup_mode == StartupMode::kSpecificOffset) {
    if (file.has_value() != pos.has_value()) {
      return r.FailBlock(
          fmt::format("scan.startup.mode specific-offset: give both {}file and "
                      "{}pos, or {}gtid-set",
                      kOffset, kOffset, kOffset));
    }
    if (!file && !gtid) {
      return r.FailBlock(
          fmt::format("scan.startup.mode specific-offset needs {}file and {}pos, "
                      "or {}gtid-set",
                      kOffset, kOffset, kOffset));
    }
    if (file) s.specific_offset_file = *file;
    if (pos) s.specific_offset_pos = static_cast<uint64_t>(*pos);
    if (gtid) s.specific_offset_gtid_set = *gtid;
    if (skip_events) s.specific_offset_skip_events = *skip_events;
    if (skip_rows) s.specific_offset_skip_rows = *skip_rows;
  } else if (any_offset) {
    for (const char* key : {"file", "pos", "gtid-set", "skip-events", "skip-rows"}) {
      const DocumentEntry* entry = r.Get(std::string(kOffset) + key);
      if (entry != nullptr) {
        return r.Fail(*entry, "only used with scan.startup.mode: specific-offset (the mode is {})",
                      StartupModeName(s.startup_mode));
      }
    }
  }
  if (s.startup_mode == StartupMode::kTimestamp) {
    if (!millis)
      return r.FailBlock("scan.startup.mode timestamp needs scan.startup.timestamp-millis");
    s.startup_timestamp_millis = *millis;
  } else if (millis) {
    return r.Fail(*r.Get("scan.startup.timestamp-millis"),
                  "only used with scan.startup.mode: timestamp (the mode is {})",
                  StartupModeName(s.startup_mode));
  }

  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
  FLOE_RETURN_IF_ERROR(
      SetInteger(r, "scan.incremental.snapshot.chunk.size", 1, kIntMax, &s.snapshot_chunk_size));
  FLOE_RETURN_IF_ERROR(
      SetInteger(r, "scan.snapshot.fetch.size", 1, kIntMax, &s.snapshot_fetch_size));
  FLOE_RETURN_IF_ERROR(SetBool(r, "scan.newly-added-table.enabled", &s.newly_added_table_enabled));
  FLOE_RETURN_IF_ERROR(
      SetBool(r, "scan.binlog.newly-added-table.enabled", &s.binlog_newly_added_table_enabled));
  FLOE_RETURN_IF_ERROR(
      SetBool(r, "scan.incremental.close-idle-reader.enabled", &s.close_idle_reader_enabled));
  FLOE_RETURN_IF_ERROR(SetBool(r, "schema-change.enabled", &s.schema_change_enabled));
  FLOE_RETURN_IF_ERROR(SetDuration(r, "connect.timeout", milliseconds(1), &s.connect_timeout));
  FLOE_RETURN_IF_ERROR(SetInteger(r, "connect.max-retries", 0, kIntMax, &s.connect_max_retries));
  FLOE_RETURN_IF_ERROR(SetInteger(r, "connection.pool.size", 1, kIntMax, &s.connection_pool_size));
  FLOE_RETURN_IF_ERROR(
      SetDuration(r, "heartbeat.interval", milliseconds(1), &s.heartbeat_interval));
  for (const DocumentEntry* entry : r.GetPrefixed("jdbc.properties.")) {
    if (!entry->value.is_scalar()) {
      return r.Fail(*entry, "expected a single value, found {}", KindName(entry->value.kind));
    }
    std::string name = entry->key.substr(std::string_view("jdbc.properties.").size());
    s.jdbc_properties[name] =
        SettingValue{entry->value.scalar, IsSecretSetting(name, entry->value.from_environment)};
  }
  return s;
}

Result<PostgresSourceDefinition> ParsePostgres(BlockReader& r) {
  PostgresSourceDefinition s;
  using std::chrono::milliseconds;
  FLOE_RETURN_IF_ERROR(ReadServerLogin(r, &s));
  FLOE_ASSIGN_OR_RETURN(auto database, r.String("database-name"));
  if (!database || database->empty()) {
    return r.FailBlock("needs 'database-name' (the database whose changes are read)");
  }
  s.database_name = *database;
  FLOE_ASSIGN_OR_RETURN(auto schema, r.String("schema-name"));
  if (schema) {
    try {
      std::regex check(*schema);
    } catch (const std::regex_error& e) {
      return r.Fail(*r.Get("schema-name"), "'{}' is not a regular expression: {}", *schema,
                    e.what());
    }
    s.schema_name = *schema;
  }
  FLOE_RETURN_IF_ERROR(ReadSourceTables(r,
                                        "the tables to mirror, as schema.table patterns, e.g. "
                                        "\"public.\\.*\" for every table of the schema public",
                                        &s.tables));
  FLOE_ASSIGN_OR_RETURN(auto slot, r.String("slot.name"));
  if (!slot || slot->empty()) {
    return r.FailBlock(
        "needs 'slot.name' (the replication slot the pipeline reads from; it is made when "
        "missing, and no other reader may use it)");
  }
  s.slot_name = *slot;
  FLOE_ASSIGN_OR_RETURN(auto plugin, r.String("decoding.plugin.name"));
  if (plugin && *plugin != "pgoutput") {
    return r.Fail(*r.Get("decoding.plugin.name"),
                  "'{}' is not supported: floe reads the pgoutput plugin built into PostgreSQL "
                  "10 and later (no server extension needed); use pgoutput",
                  *plugin);
  }
  FLOE_ASSIGN_OR_RETURN(auto publication, r.String("publication.name"));
  if (publication) s.publication_name = *publication;
  FLOE_ASSIGN_OR_RETURN(auto autocreate,
                        r.Choice("publication.autocreate.mode", kPublicationAutocreateModes));
  if (autocreate) s.publication_autocreate_mode = kPublicationAutocreateModes[*autocreate];
  FLOE_ASSIGN_OR_RETURN(auto mode, r.Choice("scan.startup.mode", StartupModeNames()));
  StartupMode startup = mode ? static_cast<StartupMode>(*mode) : StartupMode::kInitial;
  if (startup != StartupMode::kLatestOffset && startup != StartupMode::kInitial) {
    return r.Fail(*r.Get("scan.startup.mode"),
                  "{} is not a mode of a postgres source (initial: the tables, then their "
                  "changes; latest-offset: the changes from the slot's position on)",
                  StartupModeName(startup));
  }
  s.startup_mode = startup;
  FLOE_RETURN_IF_ERROR(
      SetDuration(r, "heartbeat.interval", milliseconds(100), &s.heartbeat_interval));
  FLOE_RETURN_IF_ERROR(SetDuration(r, "connect.timeout", milliseconds(1000), &s.connect_timeout));
  return s;
}

Result<IcebergSourceDefinition> ParseIceberg(BlockReader& r, const std::string& base_dir) {
  IcebergSourceDefinition s;
  using std::chrono::milliseconds;
  constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
  FLOE_ASSIGN_OR_RETURN(s.catalog, ParseCatalogKey(r, base_dir));
  FLOE_RETURN_IF_ERROR(ReadSourceTables(
      r, "the tables to read, e.g. \"shop.\\.*\" for every table of the namespace shop",
      &s.tables));
  FLOE_RETURN_IF_ERROR(SetBool(r, "streaming", &s.streaming));
  FLOE_ASSIGN_OR_RETURN(auto strategy, r.String("starting-strategy"));
  if (strategy) {
    std::string name = *strategy;
    for (char& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
    if (std::find(kStartingStrategies.begin(), kStartingStrategies.end(), name) ==
        kStartingStrategies.end()) {
      return r.Fail(*r.Get("starting-strategy"), "'{}' is not a starting strategy (expected: {}){}",
                    *strategy, JoinNames(kStartingStrategies),
                    DidYouMean(name, kStartingStrategies));
    }
    s.starting_strategy = name;
  }
  FLOE_ASSIGN_OR_RETURN(auto id, r.Integer("start-snapshot-id", 0, kLongMax));
  FLOE_ASSIGN_OR_RETURN(auto timestamp, r.Integer("start-snapshot-timestamp", 0, kLongMax));
  const bool by_id = s.starting_strategy == "incremental-from-snapshot-id";
  const bool by_time = s.starting_strategy == "incremental-from-snapshot-timestamp";
  if (by_id != id.has_value()) {
    if (by_id)
      return r.FailBlock("starting-strategy incremental-from-snapshot-id needs start-snapshot-id");
    return r.Fail(*r.Get("start-snapshot-id"),
                  "only used with starting-strategy: incremental-from-snapshot-id (it is {})",
                  s.starting_strategy);
  }
  if (by_time != timestamp.has_value()) {
    if (by_time) {
      return r.FailBlock(
          "starting-strategy incremental-from-snapshot-timestamp needs start-snapshot-timestamp "
          "(milliseconds since 1970)");
    }
    return r.Fail(*r.Get("start-snapshot-timestamp"),
                  "only used with starting-strategy: incremental-from-snapshot-timestamp (it is "
                  "{})",
                  s.starting_strategy);
  }
  s.start_snapshot_id = id;
  s.start_snapshot_timestamp = timestamp;
  FLOE_RETURN_IF_ERROR(SetDuration(r, "monitor-interval", milliseconds(1), &s.monitor_interval));
  FLOE_RETURN_IF_ERROR(SetBool(r, "changelog", &s.changelog));
  FLOE_RETURN_IF_ERROR(
      SetBool(r, "streaming-skip-overwrite-snapshots", &s.skip_overwrite_snapshots));
  FLOE_RETURN_IF_ERROR(SetBool(r, "streaming-skip-delete-snapshots", &s.skip_delete_snapshots));
  if (s.changelog && (s.skip_overwrite_snapshots || s.skip_delete_snapshots)) {
    return r.FailBlock(
        "streaming-skip-overwrite/delete-snapshots are for append-only reading: with changelog "
        "(the default) overwrite and delete snapshots are read as row changes; set changelog: "
        "false to skip them");
  }
  FLOE_ASSIGN_OR_RETURN(s.max_planning_snapshot_count,
                        r.Integer("max-planning-snapshot-count", 1, kLongMax));
  FLOE_ASSIGN_OR_RETURN(auto branch, r.String("branch"));
  if (branch) s.branch = *branch;
  FLOE_RETURN_IF_ERROR(SetBool(r, "case-sensitive", &s.case_sensitive));
  FLOE_ASSIGN_OR_RETURN(s.split_size, r.Integer("split-size", 1, kLongMax));
  FLOE_ASSIGN_OR_RETURN(s.split_file_open_cost, r.Integer("split-file-open-cost", 0, kLongMax));
  FLOE_ASSIGN_OR_RETURN(s.split_lookback, r.Integer("split-lookback", 1, 1 << 20));
  return s;
}

/// Whether the value of librdkafka setting `name` is a secret.
bool IsSecretKafkaProperty(std::string_view name, bool from_environment) {
  return IsSecretSetting(name, from_environment) || name == "ssl.key.pem" ||
         name == "sasl.oauthbearer.config";
}

Result<KafkaSourceDefinition> ParseKafka(BlockReader& r) {
  KafkaSourceDefinition s;
  for (const std::string& key : kKafkaKeys) {
    if (key == "type" || key == "name" || key == "value.format" || key == "on-error" ||
        key == "dead-letter.path") {
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(auto value, r.String(key));
    if (value) s.settings[key] = SettingValue{*value, false};
  }
  for (const DocumentEntry* entry : r.GetPrefixed("properties.")) {
    if (!entry->value.is_scalar()) {
      return r.Fail(*entry, "expected a single value, found {}", KindName(entry->value.kind));
    }
    std::string name = entry->key.substr(std::string_view("properties.").size());
    s.settings[entry->key] = SettingValue{
        entry->value.scalar, IsSecretKafkaProperty(name, entry->value.from_environment)};
  }
  if (!s.settings.contains("properties.bootstrap.servers")) {
    return r.FailBlock(
        "needs 'properties.bootstrap.servers' (the brokers to ask first, host:port[,host:port])");
  }
  if (!s.settings.contains("properties.group.id")) {
    return r.FailBlock(
        "needs 'properties.group.id' (the consumer group the pipeline's members share)");
  }
  if (s.settings.contains("topic") == s.settings.contains("topic-pattern")) {
    return r.FailBlock(
        "needs exactly one of 'topic' (names, separated by ';') and 'topic-pattern' (a regular "
        "expression)");
  }
  FLOE_ASSIGN_OR_RETURN(auto mode, r.Choice("scan.startup.mode", kKafkaStartupModes));
  (void)mode;
  FLOE_ASSIGN_OR_RETURN(auto format, r.Choice("value.format", kKafkaValueFormats));
  if (format) s.value_format = kKafkaValueFormats[*format];
  FLOE_ASSIGN_OR_RETURN(auto on_error, r.Choice("on-error", kOnErrorChoices));
  if (on_error) s.on_error = kOnErrorChoices[*on_error];
  FLOE_ASSIGN_OR_RETURN(auto dead_letters, r.String("dead-letter.path"));
  if (dead_letters) s.dead_letter_path = *dead_letters;
  return s;
}

}  // namespace

Result<SourceDefinition> ParseSourceSection(const DocumentEntry& section,
                                            const std::string& base_dir) {
  FLOE_ASSIGN_OR_RETURN(
      BlockReader r,
      BlockReader::OfMapping(section.value, "source",
                             "a mapping of settings (type: mysql, hostname: ..., ...)"));
  SourceDefinition source;
  FLOE_ASSIGN_OR_RETURN(auto type, r.String("type"));
  if (!type) return r.FailBlock("needs 'type' (supported: " + JoinNames(kSourceTypes) + ")");
  if (*type != "mysql" && *type != "postgres" && *type != "iceberg" && *type != "kafka") {
    return r.Fail(*r.Get("type"),
                  "source type '{}' is not supported (supported: {}; MariaDB is "
                  "read as mysql){}",
                  *type, JoinNames(kSourceTypes), DidYouMean(*type, kSourceTypes));
  }
  source.type = *type;
  // Keys next, so that a typo is reported as one (not as a missing key).
  if (source.is_iceberg()) {
    r.Declare(kIcebergKeys, {"catalog.properties."});
  } else if (source.is_kafka()) {
    r.Declare(kKafkaKeys, {"properties."});
  } else if (source.is_postgres()) {
    FLOE_RETURN_IF_ERROR(r.Refuse(
        {}, {"debezium."},
        "floe reads the replication stream itself, without Debezium; see docs/pipeline.md for "
        "its settings"));
    r.Declare(kServerSourceKeys, {});
    r.Declare(kPostgresKeys, {});
  } else {
    FLOE_RETURN_IF_ERROR(r.Refuse(
        {}, {"debezium."},
        "floe reads the binlog itself, without Debezium; see docs/pipeline.md for its settings"));
    r.Declare(kServerSourceKeys, {});
    r.Declare(kMySqlKeys, {"jdbc.properties."});
  }
  FLOE_RETURN_IF_ERROR(r.Finish());
  FLOE_ASSIGN_OR_RETURN(auto name, r.String("name"));
  if (name) source.name = *name;
  if (source.is_iceberg()) {
    FLOE_ASSIGN_OR_RETURN(source.iceberg, ParseIceberg(r, base_dir));
  } else if (source.is_kafka()) {
    FLOE_ASSIGN_OR_RETURN(source.kafka, ParseKafka(r));
  } else if (source.is_postgres()) {
    FLOE_ASSIGN_OR_RETURN(source.postgres, ParsePostgres(r));
  } else {
    FLOE_ASSIGN_OR_RETURN(source.mysql, ParseMySql(r));
  }
  return source;
}

}  // namespace floe::pipeline
