#include "floe/pipeline/pipeline_definition.h"

#include <algorithm>
#include <cctype>

#include "floe/pipeline/values.h"

namespace floe::pipeline {
namespace {

constexpr std::string_view kMask = "****";

/// A YAML scalar: bare when that reads back as the same string, else double-quoted.
std::string Quote(std::string_view value) {
  bool plain = !value.empty();
  for (char c : value) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                      std::string_view("_-./:+").find(c) != std::string_view::npos);
  }
  if (plain && (value == "true" || value == "false" || value == "null" || value == "~" ||
                value.front() == '-' || value.front() == ':')) {
    plain = false;
  }
  if (plain) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Shown(const SettingValue& value) {
  return value.secret ? Quote(kMask) : Quote(value.value);
}

void Line(std::string& out, int indent, std::string_view key, const std::string& value) {
  out.append(static_cast<size_t>(indent), ' ');
  out += key;
  out += ": ";
  out += value;
  out += '\n';
}

std::string Bool(bool value) { return value ? "true" : "false"; }

void DescribeCatalog(const CatalogDefinition& catalog, std::string& out) {
  if (!catalog.config) {
    Line(out, 2, "catalog", Quote(catalog.name));
    return;
  }
  const iceberg::CatalogConfig& config = *catalog.config;
  out += "  catalog:\n";
  Line(out, 4, "name", Quote(config.name));
  Line(out, 4, "type", Quote(config.type));
  for (const auto& [key, value] : config.properties) {
    if (key == "type") continue;
    Line(out, 4, key, catalog.secret_properties.contains(key) ? Quote(kMask) : Quote(value));
  }
}

void DescribeIcebergSource(const IcebergSourceDefinition& s, std::string& out) {
  DescribeCatalog(s.catalog, out);
  Line(out, 2, "tables", Quote(s.tables.include.text));
  if (!s.tables.exclude.empty()) Line(out, 2, "tables.exclude", Quote(s.tables.exclude.text));
  Line(out, 2, "streaming", Bool(s.streaming));
  Line(out, 2, "starting-strategy", Quote(s.starting_strategy));
  if (s.start_snapshot_id) Line(out, 2, "start-snapshot-id", std::to_string(*s.start_snapshot_id));
  if (s.start_snapshot_timestamp) {
    Line(out, 2, "start-snapshot-timestamp", std::to_string(*s.start_snapshot_timestamp));
  }
  Line(out, 2, "monitor-interval", FormatDuration(s.monitor_interval));
  Line(out, 2, "changelog", Bool(s.changelog));
  Line(out, 2, "streaming-skip-overwrite-snapshots", Bool(s.skip_overwrite_snapshots));
  Line(out, 2, "streaming-skip-delete-snapshots", Bool(s.skip_delete_snapshots));
  if (s.max_planning_snapshot_count) {
    Line(out, 2, "max-planning-snapshot-count", std::to_string(*s.max_planning_snapshot_count));
  }
  if (!s.branch.empty()) Line(out, 2, "branch", Quote(s.branch));
  Line(out, 2, "case-sensitive", Bool(s.case_sensitive));
  if (s.split_size) Line(out, 2, "split-size", std::to_string(*s.split_size));
  if (s.split_file_open_cost) {
    Line(out, 2, "split-file-open-cost", std::to_string(*s.split_file_open_cost));
  }
  if (s.split_lookback) Line(out, 2, "split-lookback", std::to_string(*s.split_lookback));
}

void DescribePostgresSource(const PostgresSourceDefinition& s, std::string& out) {
  Line(out, 2, "hostname", Quote(s.hostname));
  Line(out, 2, "port", std::to_string(s.port));
  Line(out, 2, "username", Quote(s.username));
  if (!s.password.value.empty()) Line(out, 2, "password", Shown(s.password));
  Line(out, 2, "database-name", Quote(s.database_name));
  if (!s.schema_name.empty()) Line(out, 2, "schema-name", Quote(s.schema_name));
  Line(out, 2, "tables", Quote(s.tables.include.text));
  if (!s.tables.exclude.empty()) Line(out, 2, "tables.exclude", Quote(s.tables.exclude.text));
  Line(out, 2, "slot.name", Quote(s.slot_name));
  Line(out, 2, "decoding.plugin.name", Quote(s.decoding_plugin_name));
  Line(out, 2, "publication.name", Quote(s.publication_name));
  Line(out, 2, "publication.autocreate.mode", Quote(s.publication_autocreate_mode));
  Line(out, 2, "scan.startup.mode", std::string(StartupModeName(s.startup_mode)));
  Line(out, 2, "heartbeat.interval", FormatDuration(s.heartbeat_interval));
  Line(out, 2, "connect.timeout", FormatDuration(s.connect_timeout));
}

void DescribeSource(const SourceDefinition& source, std::string& out) {
  const MySqlSourceDefinition& s = source.mysql;
  out += "source:\n";
  Line(out, 2, "type", Quote(source.type));
  if (!source.name.empty()) Line(out, 2, "name", Quote(source.name));
  if (source.is_iceberg()) {
    DescribeIcebergSource(source.iceberg, out);
    return;
  }
  if (source.is_kafka()) {
    for (const auto& [key, value] : source.kafka.settings) Line(out, 2, key, Shown(value));
    Line(out, 2, "value.format", Quote(source.kafka.value_format));
    Line(out, 2, "on-error", Quote(source.kafka.on_error));
    if (!source.kafka.dead_letter_path.empty()) {
      Line(out, 2, "dead-letter.path", Quote(source.kafka.dead_letter_path));
    }
    return;
  }
  if (source.is_postgres()) {
    DescribePostgresSource(source.postgres, out);
    return;
  }
  Line(out, 2, "hostname", Quote(s.hostname));
  Line(out, 2, "port", std::to_string(s.port));
  Line(out, 2, "username", Quote(s.username));
  if (!s.password.value.empty()) Line(out, 2, "password", Shown(s.password));
  Line(out, 2, "tables", Quote(s.tables.include.text));
  if (!s.tables.exclude.empty()) Line(out, 2, "tables.exclude", Quote(s.tables.exclude.text));
  if (s.server_id) {
    Line(out, 2, "server-id",
         s.server_id->first == s.server_id->last
             ? std::to_string(s.server_id->first)
             : fmt::format("{}-{}", s.server_id->first, s.server_id->last));
  }
  if (!s.server_time_zone.empty()) Line(out, 2, "server-time-zone", Quote(s.server_time_zone));
  Line(out, 2, "scan.startup.mode", std::string(StartupModeName(s.startup_mode)));
  if (!s.specific_offset_file.empty()) {
    Line(out, 2, "scan.startup.specific-offset.file", Quote(s.specific_offset_file));
  }
  if (s.specific_offset_pos) {
    Line(out, 2, "scan.startup.specific-offset.pos", std::to_string(*s.specific_offset_pos));
  }
  if (!s.specific_offset_gtid_set.empty()) {
    Line(out, 2, "scan.startup.specific-offset.gtid-set", Quote(s.specific_offset_gtid_set));
  }
  if (s.startup_mode == StartupMode::kSpecificOffset) {
    Line(out, 2, "scan.startup.specific-offset.skip-events",
         std::to_string(s.specific_offset_skip_events));
    Line(out, 2, "scan.startup.specific-offset.skip-rows",
         std::to_string(s.specific_offset_skip_rows));
  }
  if (s.startup_timestamp_millis) {
    Line(out, 2, "scan.startup.timestamp-millis", std::to_string(*s.startup_timestamp_millis));
  }
  Line(out, 2, "scan.incremental.snapshot.chunk.size", std::to_string(s.snapshot_chunk_size));
  Line(out, 2, "scan.snapshot.fetch.size", std::to_string(s.snapshot_fetch_size));
  Line(out, 2, "scan.newly-added-table.enabled", Bool(s.newly_added_table_enabled));
  Line(out, 2, "scan.binlog.newly-added-table.enabled", Bool(s.binlog_newly_added_table_enabled));
  Line(out, 2, "scan.incremental.close-idle-reader.enabled", Bool(s.close_idle_reader_enabled));
  Line(out, 2, "schema-change.enabled", Bool(s.schema_change_enabled));
  Line(out, 2, "connect.timeout", FormatDuration(s.connect_timeout));
  Line(out, 2, "connect.max-retries", std::to_string(s.connect_max_retries));
  Line(out, 2, "connection.pool.size", std::to_string(s.connection_pool_size));
  Line(out, 2, "heartbeat.interval", FormatDuration(s.heartbeat_interval));
  for (const auto& [name, value] : s.jdbc_properties) {
    Line(out, 2, "jdbc.properties." + name, Shown(value));
  }
}

void DescribeSink(const SinkDefinition& sink, std::string& out) {
  out += "sink:\n";
  Line(out, 2, "type", Quote(sink.type));
  if (!sink.name.empty()) Line(out, 2, "name", Quote(sink.name));
  DescribeCatalog(sink.catalog, out);
  for (const auto& [key, value] : sink.table_properties) {
    Line(out, 2, "table.properties." + key, Quote(value));
  }
  if (!sink.partition_keys.empty()) {
    std::string text;
    for (const auto& key : sink.partition_keys) {
      text += (text.empty() ? "" : ";") + key.table.ToString() + ":" + key.spec_text;
    }
    Line(out, 2, "partition.key", Quote(text));
  }
  std::string changes;
  for (SchemaChangeType type : sink.schema_changes) {
    changes += (changes.empty() ? "" : ", ") + std::string(SchemaChangeTypeName(type));
  }
  Line(out, 2, "include.schema.changes", "[" + changes + "]");
}

}  // namespace

namespace {

/// The entry of `names` for enum value `value`, "?" outside it.
template <typename Enum>
std::string_view NameOf(const std::vector<std::string>& names, Enum value) {
  const auto i = static_cast<size_t>(value);
  return i < names.size() ? std::string_view(names[i]) : std::string_view("?");
}

}  // namespace

const std::vector<std::string>& StartupModeNames() {
  static const std::vector<std::string> names = {
      "initial", "latest-offset", "earliest-offset", "specific-offset", "timestamp", "snapshot"};
  return names;
}

std::string_view StartupModeName(StartupMode mode) { return NameOf(StartupModeNames(), mode); }

const std::vector<std::string>& SchemaChangeTypeNames() {
  static const std::vector<std::string> names = {
      "add.column", "alter.column.type", "create.table",   "drop.column",
      "drop.table", "rename.column",     "truncate.table",
  };
  return names;
}

std::string_view SchemaChangeTypeName(SchemaChangeType type) {
  return NameOf(SchemaChangeTypeNames(), type);
}

const std::vector<std::string>& SchemaChangeBehaviorNames() {
  static const std::vector<std::string> names = {"exception", "evolve", "try_evolve", "lenient",
                                                 "ignore"};
  return names;
}

std::string_view SchemaChangeBehaviorName(SchemaChangeBehavior behavior) {
  return NameOf(SchemaChangeBehaviorNames(), behavior);
}

std::string PipelineDefinition::Describe() const {
  std::string out = "# " + file + " (relative paths are taken from " + base_dir + ")\n";
  DescribeSource(source, out);
  DescribeSink(sink, out);
  if (!routes.empty()) {
    out += "route:\n";
    for (const auto& route : routes) {
      Line(out, 2, "- source-table", Quote(route.source_table.text));
      Line(out, 4, "sink-table", Quote(route.sink_table));
      if (!route.replace_symbol.empty())
        Line(out, 4, "replace-symbol", Quote(route.replace_symbol));
      if (!route.description.empty()) Line(out, 4, "description", Quote(route.description));
      if (!route.source_table_column.empty()) {
        Line(out, 4, "source-table-column", Quote(route.source_table_column));
      }
    }
  }
  out += "pipeline:\n";
  Line(out, 2, "name", Quote(pipeline.name));
  Line(out, 2, "parallelism", std::to_string(pipeline.parallelism));
  Line(out, 2, "schema.change.behavior",
       std::string(SchemaChangeBehaviorName(pipeline.schema_change_behavior)));
  Line(out, 2, "checkpoint.interval", FormatDuration(pipeline.checkpoint_interval));
  Line(out, 2, "state.dir", Quote(pipeline.state_dir));
  if (pipeline.http) {
    Line(out, 2, "http", Quote(fmt::format("{}:{}", pipeline.http->host, pipeline.http->port)));
  }
  if (!pipeline.local_time_zone.empty()) {
    Line(out, 2, "local-time-zone", Quote(pipeline.local_time_zone));
  }
  return out;
}

std::vector<std::string> PipelineDefinition::SecretValues() const {
  std::vector<std::string> out;
  auto add = [&](const SettingValue& value) {
    if (value.secret && !value.value.empty()) out.push_back(value.value);
  };
  add(source.mysql.password);
  add(source.postgres.password);
  for (const auto& [name, value] : source.mysql.jdbc_properties) add(value);
  for (const auto& [name, value] : source.kafka.settings) add(value);
  for (const CatalogDefinition* catalog : {&sink.catalog, &source.iceberg.catalog}) {
    if (!catalog->config) continue;
    for (const auto& key : catalog->secret_properties) {
      auto it = catalog->config->properties.find(key);
      if (it != catalog->config->properties.end() && !it->second.empty()) {
        out.push_back(it->second);
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string PipelineDefinition::Redact(std::string_view text) const {
  std::string out(text);
  for (const auto& secret : SecretValues()) {
    for (size_t pos = out.find(secret); pos != std::string::npos;
         pos = out.find(secret, pos + kMask.size())) {
      out.replace(pos, secret.size(), kMask);
    }
  }
  return out;
}

Result<iceberg::CatalogConfig> ResolveCatalog(const CatalogDefinition& catalog,
                                              const std::string& catalog_config_path) {
  if (catalog.config) return *catalog.config;
  FLOE_ASSIGN_OR_RETURN(std::string path, iceberg::FindCatalogConfigFile(catalog_config_path));
  return iceberg::ReadCatalogConfig(path, catalog.name);
}

}  // namespace floe::pipeline
