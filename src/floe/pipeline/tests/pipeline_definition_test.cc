// The pipeline file end to end: the example of the issue that asked for it,
// every kind of error with its line, typo suggestions, ${VAR} and secrets,
// and --set overrides.

#include "floe/pipeline/pipeline_definition.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace floe::pipeline {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kExample = R"(source:
  type: mysql
  hostname: 127.0.0.1
  port: 3306
  username: floe
  password: ${MYSQL_PASSWORD}        # ${VAR} from the environment; never printed or logged
  tables: shop.\.*, crm.customers    # Flink CDC's db.table regex syntax
  tables.exclude: shop.tmp_\.*
  server-id: 5400
  scan.startup.mode: initial          # initial | latest-offset | earliest-offset | specific-offset | timestamp | snapshot
  scan.incremental.snapshot.chunk.size: 8096
  scan.newly-added-table.enabled: true
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///lake/catalog.db", warehouse: "file:///lake/warehouse"}   # the same catalog block as .floe.yaml; or `catalog: NAME` from --catalog-config
  table.properties.write.target-file-size-bytes: 134217728
  partition.key: shop.orders:day(created_at)
route:
  - source-table: shop.orders_\.*
    sink-table: ods.orders
  - source-table: crm.\.*
    sink-table: crm_mirror.<>
    replace-symbol: <>
pipeline:
  name: shop-mirror
  parallelism: 2
  schema.change.behavior: lenient     # exception | evolve | try_evolve | lenient | ignore, as Flink CDC defines them
  checkpoint.interval: 10s
  state.dir: ./shop-mirror.floe-state
  http: 127.0.0.1:9249
)";

const Environment& Env() {
  static const Environment env = Environment::FromMap(
      {{"MYSQL_PASSWORD", "hunter2-very-secret"}, {"CATALOG_URI", "sqlite:///u:pw@lake.db"}});
  return env;
}

Result<PipelineDefinition> Parse(std::string_view text, std::vector<std::string> overrides = {}) {
  return ParsePipelineDefinition(text, "shop.yaml", Env(), overrides);
}

/// The example with one line replaced (1-based) by `line`.
std::string WithLine(int number, std::string_view line) {
  std::string out;
  std::string_view rest = kExample;
  for (int i = 1; !rest.empty(); ++i) {
    size_t end = rest.find('\n');
    std::string_view current = rest.substr(0, end);
    out += i == number ? std::string(line) : std::string(current);
    out += '\n';
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return out;
}

std::string ErrorOf(const Result<PipelineDefinition>& result) {
  EXPECT_FALSE(result) << "expected an error";
  return result ? std::string() : result.error().message();
}

TEST(PipelineDefinitionTest, TheIssueExampleParsesToItsValues) {
  auto parsed = Parse(kExample);
  ASSERT_TRUE(parsed) << parsed.error().message();
  const PipelineDefinition& d = *parsed;
  const MySqlSourceDefinition& s = d.source.mysql;
  EXPECT_EQ(d.source.type, "mysql");
  EXPECT_EQ(s.hostname, "127.0.0.1");
  EXPECT_EQ(s.port, 3306);
  EXPECT_EQ(s.username, "floe");
  EXPECT_EQ(s.password, (SettingValue{"hunter2-very-secret", true}));
  EXPECT_EQ(s.tables.include.patterns.size(), 2u);
  EXPECT_EQ(s.tables.exclude.patterns.size(), 1u);
  EXPECT_EQ(s.server_id, (ServerIdRange{5400, 5400}));
  EXPECT_EQ(s.startup_mode, StartupMode::kInitial);
  EXPECT_EQ(s.snapshot_chunk_size, 8096);
  EXPECT_TRUE(s.newly_added_table_enabled);
  // Defaults of the keys the example leaves out.
  EXPECT_EQ(s.snapshot_fetch_size, 1024);
  EXPECT_EQ(s.connect_timeout, milliseconds(30000));
  EXPECT_EQ(s.heartbeat_interval, milliseconds(30000));
  EXPECT_EQ(s.connect_max_retries, 3);
  EXPECT_EQ(s.connection_pool_size, 20);
  EXPECT_TRUE(s.schema_change_enabled);

  EXPECT_EQ(d.sink.type, "iceberg");
  ASSERT_TRUE(d.sink.catalog.config.has_value());
  EXPECT_TRUE(d.sink.catalog.name.empty());
  EXPECT_EQ(d.sink.catalog.config->name, "default");
  EXPECT_EQ(d.sink.catalog.config->type, "sql");
  EXPECT_EQ(d.sink.catalog.config->properties.at("uri"), "sqlite:///lake/catalog.db");
  EXPECT_EQ(d.sink.catalog.config->properties.at("warehouse"), "file:///lake/warehouse");
  EXPECT_TRUE(d.sink.catalog.secret_properties.empty());  // written in the file, not a secret
  EXPECT_EQ(d.sink.table_properties,
            (std::map<std::string, std::string>{{"write.target-file-size-bytes", "134217728"}}));
  ASSERT_EQ(d.sink.partition_keys.size(), 1u);
  EXPECT_EQ(d.sink.partition_keys[0].table.ToString(), "shop.orders");
  EXPECT_EQ(d.sink.partition_keys[0].spec_text, "day(created_at)");
  EXPECT_EQ(d.sink.schema_changes.size(), 7u);

  ASSERT_EQ(d.routes.size(), 2u);
  EXPECT_EQ(d.routes[1].sink_table, "crm_mirror.<>");
  EXPECT_EQ(d.routes[1].replace_symbol, "<>");

  EXPECT_EQ(d.pipeline.name, "shop-mirror");
  EXPECT_EQ(d.pipeline.parallelism, 2);
  EXPECT_EQ(d.pipeline.schema_change_behavior, SchemaChangeBehavior::kLenient);
  EXPECT_EQ(d.pipeline.checkpoint_interval, milliseconds(10000));
  ASSERT_TRUE(d.base_dir.starts_with("/")) << d.base_dir;
  EXPECT_EQ(d.base_dir, std::filesystem::current_path().string());
  EXPECT_EQ(d.pipeline.state_dir, d.base_dir + "/shop-mirror.floe-state");
  EXPECT_EQ(d.sink.catalog.config->base_dir, d.base_dir);
  EXPECT_EQ(d.pipeline.http, (HttpAddress{"127.0.0.1", 9249}));

  // What the job will ask of it.
  EXPECT_TRUE(d.MatchesSourceTable("shop", "orders_2024"));
  EXPECT_TRUE(d.MatchesSourceTable("crm", "customers"));
  EXPECT_FALSE(d.MatchesSourceTable("shop", "tmp_load"));
  EXPECT_FALSE(d.MatchesSourceTable("crm", "leads"));
  EXPECT_EQ(d.RouteFor("shop", "orders_2024").value().ToString(), "ods.orders");
  EXPECT_EQ(d.RouteFor("crm", "customers").value().ToString(), "crm_mirror.customers");
  EXPECT_EQ(d.RouteFor("shop", "items").value().ToString(), "shop.items");
}

TEST(PipelineDefinitionTest, DefaultsComeFromTheFileName) {
  auto parsed = ParsePipelineDefinition(
      "source: {type: mysql, hostname: h, username: u, tables: a.b}\n"
      "sink: {type: iceberg, catalog: lake}\n",
      "conf/orders.yaml", Env(), {});
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->pipeline.name, "orders");
  EXPECT_EQ(parsed->base_dir, (std::filesystem::current_path() / "conf").string());
  EXPECT_EQ(parsed->pipeline.state_dir, parsed->base_dir + "/orders.floe-state");
  EXPECT_EQ(parsed->pipeline.parallelism, 1);
  EXPECT_EQ(parsed->pipeline.checkpoint_interval, milliseconds(10000));
  EXPECT_EQ(parsed->pipeline.schema_change_behavior, SchemaChangeBehavior::kLenient);
  EXPECT_FALSE(parsed->pipeline.http.has_value());
  EXPECT_EQ(parsed->sink.catalog.name, "lake");
  EXPECT_FALSE(parsed->sink.catalog.config.has_value());
  EXPECT_TRUE(parsed->source.mysql.password.value.empty());
  EXPECT_EQ(parsed->source.mysql.port, 3306);
}

TEST(PipelineDefinitionTest, SecretsAreNeverDescribed) {
  auto parsed = Parse(WithLine(15, "  catalog: {uri: \"${CATALOG_URI}\", warehouse: /lake}"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->sink.catalog.config->type, "sql");  // inferred from the sqlite uri
  EXPECT_EQ(parsed->sink.catalog.config->properties.at("uri"), "sqlite:///u:pw@lake.db");
  EXPECT_TRUE(parsed->sink.catalog.secret_properties.contains("uri"));
  std::string described = parsed->Describe();
  EXPECT_EQ(described.find("hunter2"), std::string::npos) << described;
  EXPECT_EQ(described.find("u:pw@lake"), std::string::npos) << described;
  EXPECT_NE(described.find("  password: \"****\"\n"), std::string::npos) << described;
  EXPECT_NE(described.find("    uri: \"****\"\n"), std::string::npos) << described;
  EXPECT_NE(described.find("  hostname: 127.0.0.1\n"), std::string::npos) << described;
  EXPECT_NE(described.find("  checkpoint.interval: 10s\n"), std::string::npos) << described;
  EXPECT_EQ(parsed->Redact("connect failed: password hunter2-very-secret rejected for "
                           "sqlite:///u:pw@lake.db"),
            "connect failed: password **** rejected for ****");
  EXPECT_EQ(parsed->SecretValues(),
            (std::vector<std::string>{"sqlite:///u:pw@lake.db", "hunter2-very-secret"}));
}

TEST(PipelineDefinitionTest, APasswordWrittenInTheFileIsStillSecret) {
  auto parsed = Parse(WithLine(6, "  password: plain-text-pw"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_TRUE(parsed->source.mysql.password.secret);
  EXPECT_EQ(parsed->Describe().find("plain-text-pw"), std::string::npos);
}

TEST(PipelineDefinitionTest, AnUnsetVariableNamesItAndItsLine) {
  auto parsed = ParsePipelineDefinition(kExample, "shop.yaml", Environment::FromMap({}), {});
  EXPECT_EQ(ErrorOf(parsed),
            "shop.yaml:6:13: the environment variable MYSQL_PASSWORD is not set (used as "
            "${MYSQL_PASSWORD})");
  EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument);
}

TEST(PipelineDefinitionTest, UnknownKeysSuggestTheNearest) {
  std::string message = ErrorOf(Parse(WithLine(3, "  hostnme: 127.0.0.1")));
  EXPECT_TRUE(
      message.starts_with("shop.yaml:3:3: source.hostnme: unknown key (did you mean "
                          "'hostname'?) (known keys: "))
      << message;
  message = ErrorOf(Parse(WithLine(10, "  scan.startup.mod: initial")));
  EXPECT_NE(message.find("shop.yaml:10:3: source.scan.startup.mod: unknown key (did you mean "
                         "'scan.startup.mode'?)"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(16, "  table.propertes.write.target-file-size-bytes: 1")));
  EXPECT_NE(message.find("shop.yaml:16:3: sink.table.propertes.write.target-file-size-bytes: "
                         "unknown key (did you mean "
                         "'table.properties.write.target-file-size-bytes'?)"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(26, "  paralelism: 2")));
  EXPECT_NE(message.find("shop.yaml:26:3: pipeline.paralelism: unknown key (did you mean "
                         "'parallelism'?)"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(20, "    sink-tabel: ods.orders")));
  EXPECT_NE(message.find("shop.yaml:20:5: route[0].sink-tabel: unknown key (did you mean "
                         "'sink-table'?)"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(24, "piplin:")));
  EXPECT_EQ(message,
            "shop.yaml:24:1: unknown section 'piplin' (did you mean 'pipeline'?) (sections: "
            "source, sink, route, transform, pipeline)");
  message = ErrorOf(Parse(WithLine(15,
                                   "  catalog: {type: sql, url: \"sqlite:///a.db\", "
                                   "warehouse: /w}")));
  EXPECT_NE(message.find("sink.catalog.url: unknown catalog key (did you mean 'uri'?)"),
            std::string::npos)
      << message;
  // A word far from every key gets no guess.
  message = ErrorOf(Parse(WithLine(12, "  completely.unrelated: 1")));
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST(PipelineDefinitionTest, WrongTypesNameLineAndWhatIsAllowed) {
  EXPECT_EQ(ErrorOf(Parse(WithLine(4, "  port: abc"))),
            "shop.yaml:4:9: source.port: 'abc' is not an integer (expected 1..65535)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(4, "  port: 70000"))),
            "shop.yaml:4:9: source.port: 70000 is out of range (expected 1..65535)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(4, "  port: [1, 2]"))),
            "shop.yaml:4:9: source.port: expected a single value, found a list");
  EXPECT_EQ(ErrorOf(Parse(WithLine(26, "  parallelism: 0"))),
            "shop.yaml:26:16: pipeline.parallelism: 0 is out of range (expected 1..256)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(26, "  parallelism: 257"))),
            "shop.yaml:26:16: pipeline.parallelism: 257 is out of range (expected 1..256)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(11, "  scan.incremental.snapshot.chunk.size: 0"))),
            "shop.yaml:11:41: source.scan.incremental.snapshot.chunk.size: 0 is out of range "
            "(expected 1..2147483647)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(12, "  scan.newly-added-table.enabled: yes please"))),
            "shop.yaml:12:35: source.scan.newly-added-table.enabled: 'yes please' is not a "
            "boolean (expected true or false)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(15, "  catalog: [sql]"))),
            "shop.yaml:15:12: sink.catalog: expected a catalog name or a mapping of catalog "
            "settings, found a list");
  // A list where a section's mapping is needed.
  EXPECT_EQ(ErrorOf(Parse("source:\n  - type: mysql\nsink: {type: iceberg, catalog: x}\n")),
            "shop.yaml:2:3: source: expected a mapping of settings (type: mysql, hostname: ..., "
            "...), found a list");
  EXPECT_EQ(ErrorOf(Parse("source: {type: mysql, hostname: h, username: u, tables: a.b}\n"
                          "sink: {type: iceberg, catalog: x}\nroute:\n  - a.b\n")),
            "shop.yaml:4:5: route[0]: expected a mapping (source-table: ..., sink-table: ...), "
            "found a value");
  EXPECT_EQ(ErrorOf(Parse("source: {type: mysql, hostname: h, username: u, tables: a.b}\n"
                          "sink: {type: iceberg, catalog: x}\nroute: {source-table: a.b}\n"))
                .substr(0, 40),
            "shop.yaml:3:8: route: expected a list of");
}

TEST(PipelineDefinitionTest, BadValuesNameLineAndWhatIsAllowed) {
  std::string message = ErrorOf(Parse(WithLine(7, "  tables: shop.orders(")));
  EXPECT_TRUE(
      message.starts_with("shop.yaml:7:11: source.tables: pattern 'shop.orders(': the "
                          "table regex 'orders(' is not valid: "))
      << message;
  message = ErrorOf(Parse(WithLine(19, "  - source-table: shop[.orders")));
  EXPECT_TRUE(message.starts_with("shop.yaml:19:19: route[0].source-table: ")) << message;
  EXPECT_EQ(ErrorOf(Parse(WithLine(28, "  checkpoint.interval: 10 parsecs"))),
            "shop.yaml:28:24: pipeline.checkpoint.interval: '10 parsecs' has an unknown unit "
            "'parsecs': expected a duration such as 500ms, 10s, 1min, 2h or 1d (units: ms, s, "
            "min, h, d)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(28, "  checkpoint.interval: 0s"))),
            "shop.yaml:28:24: pipeline.checkpoint.interval: 0s is too short (at least 1ms)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(27, "  schema.change.behavior: try-evolve"))),
            "shop.yaml:27:27: pipeline.schema.change.behavior: 'try-evolve' is not allowed "
            "(expected one of: exception, evolve, try_evolve, lenient, ignore) (did you mean "
            "'try_evolve'?)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(10, "  scan.startup.mode: newest"))),
            "shop.yaml:10:22: source.scan.startup.mode: 'newest' is not allowed (expected one "
            "of: initial, latest-offset, earliest-offset, specific-offset, timestamp, snapshot)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(9, "  server-id: 5404-5400"))),
            "shop.yaml:9:14: source.server-id: '5404-5400': the range's first id is larger than "
            "its last");
  EXPECT_EQ(ErrorOf(Parse(WithLine(30, "  http: 9249"))),
            "shop.yaml:30:9: pipeline.http: '9249' is not host:port (e.g. 127.0.0.1:9249)");
  message = ErrorOf(Parse(WithLine(20, "    sink-table: orders")));
  EXPECT_TRUE(
      message.starts_with("shop.yaml:20:17: route[0].sink-table: 'orders' is not "
                          "namespace.table"))
      << message;
  message = ErrorOf(Parse(WithLine(17, "  partition.key: shop.orders:week(created_at)")));
  EXPECT_TRUE(message.starts_with("shop.yaml:17:18: sink.partition.key: table shop.orders: "))
      << message;
  EXPECT_NE(message.find("unknown transform 'week'"), std::string::npos) << message;
}

TEST(PipelineDefinitionTest, UnsupportedTypesListWhatIsSupported) {
  auto source = Parse(WithLine(2, "  type: oracle"));
  EXPECT_EQ(ErrorOf(source),
            "shop.yaml:2:9: source.type: source type 'oracle' is not supported (supported: "
            "mysql, postgres, iceberg, kafka; MariaDB is read as mysql)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(14, "  type: paimon"))),
            "shop.yaml:14:9: sink.type: sink type 'paimon' is not supported (supported: iceberg)");
  std::string message =
      ErrorOf(Parse(WithLine(15, "  catalog: {type: hive, uri: thrift://h:9083, warehouse: /w}")));
  EXPECT_NE(message.find("sink.catalog.type: catalog type 'hive' is not supported (supported: "
                         "sql, hadoop, rest)"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(15, "  catalog: {type: sql, warehouse: /w}")));
  EXPECT_NE(message.find("a sql catalog needs 'uri'"), std::string::npos) << message;
  message = ErrorOf(Parse(WithLine(15, "  catalog: {type: hadoop}")));
  EXPECT_NE(message.find("a hadoop catalog needs 'warehouse'"), std::string::npos) << message;
  message = ErrorOf(Parse(WithLine(15, "  catalog: {type: rest, warehouse: lake}")));
  EXPECT_NE(message.find("a rest catalog needs 'uri'"), std::string::npos) << message;
  auto rest = Parse(WithLine(
      15, "  catalog: {type: rest, uri: 'http://127.0.0.1:8181', credential: 'id:secret'}"));
  ASSERT_TRUE(rest.has_value()) << rest.error().ToString();
  ASSERT_TRUE(rest->sink.catalog.config.has_value());
  EXPECT_EQ(rest->sink.catalog.config->type, "rest");
  EXPECT_EQ(rest->sink.catalog.config->properties.at("uri"), "http://127.0.0.1:8181");
  EXPECT_TRUE(rest->sink.catalog.secret_properties.contains("credential"));
}

TEST(PipelineDefinitionTest, TransformAndUnsupportedFlinkKeysAreRefusedByLine) {
  std::string text = std::string(kExample) +
                     "transform:\n  - source-table: shop.orders\n    projection: id, total\n";
  auto transform = Parse(text);
  ASSERT_FALSE(transform);
  EXPECT_EQ(transform.error().code(), ErrorCode::kNotSupported);
  EXPECT_TRUE(
      transform.error().message().starts_with("shop.yaml:31:1: transform: not supported yet"))
      << transform.error().message();

  auto debezium = Parse(WithLine(12, "  debezium.snapshot.mode: never"));
  ASSERT_FALSE(debezium);
  EXPECT_EQ(debezium.error().code(), ErrorCode::kNotSupported);
  EXPECT_TRUE(debezium.error().message().starts_with(
      "shop.yaml:12:3: source.debezium.snapshot.mode: not supported yet"));
  auto compaction = Parse(WithLine(17, "  sink.compaction.enabled: true"));
  ASSERT_FALSE(compaction);
  EXPECT_EQ(compaction.error().code(), ErrorCode::kNotSupported);
  auto batch = Parse(WithLine(25, "  execution.runtime-mode: BATCH"));
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().code(), ErrorCode::kNotSupported);
}

TEST(PipelineDefinitionTest, RequiredKeysAndSections) {
  EXPECT_EQ(ErrorOf(Parse("sink: {type: iceberg, catalog: x}\n")),
            "shop.yaml: needs a 'source:' section (type: mysql, hostname: ..., tables: ...)");
  EXPECT_EQ(ErrorOf(Parse(WithLine(7, "  server-time-zone: UTC"))).substr(0, 36),
            "shop.yaml:2:3: source: needs 'tables");
  EXPECT_NE(ErrorOf(Parse(WithLine(15, "  x.y: 1"))).find("unknown key"), std::string::npos);
}

TEST(PipelineDefinitionTest, StartupModesCheckTheirKeys) {
  auto offset = Parse(WithLine(10,
                               "  scan.startup.mode: specific-offset\n"
                               "  scan.startup.specific-offset.file: mysql-bin.000003\n"
                               "  scan.startup.specific-offset.pos: 4"));
  ASSERT_TRUE(offset) << offset.error().message();
  EXPECT_EQ(offset->source.mysql.startup_mode, StartupMode::kSpecificOffset);
  EXPECT_EQ(offset->source.mysql.specific_offset_file, "mysql-bin.000003");
  EXPECT_EQ(offset->source.mysql.specific_offset_pos, 4u);

  auto gtid = Parse(WithLine(10,
                             "  scan.startup.mode: specific-offset\n"
                             "  scan.startup.specific-offset.gtid-set: 0-1-100"));
  ASSERT_TRUE(gtid) << gtid.error().message();
  EXPECT_EQ(gtid->source.mysql.specific_offset_gtid_set, "0-1-100");

  std::string message = ErrorOf(Parse(WithLine(10, "  scan.startup.mode: specific-offset")));
  EXPECT_NE(message.find("specific-offset needs scan.startup.specific-offset.file"),
            std::string::npos)
      << message;
  message = ErrorOf(Parse(WithLine(10,
                                   "  scan.startup.mode: initial\n"
                                   "  scan.startup.specific-offset.pos: 4")));
  EXPECT_EQ(message,
            "shop.yaml:11:37: source.scan.startup.specific-offset.pos: only used with "
            "scan.startup.mode: specific-offset (the mode is initial)");

  auto timestamp = Parse(WithLine(10,
                                  "  scan.startup.mode: timestamp\n"
                                  "  scan.startup.timestamp-millis: 1700000000000"));
  ASSERT_TRUE(timestamp) << timestamp.error().message();
  EXPECT_EQ(timestamp->source.mysql.startup_timestamp_millis, 1700000000000);
  EXPECT_NE(ErrorOf(Parse(WithLine(10, "  scan.startup.mode: timestamp")))
                .find("needs scan.startup.timestamp-millis"),
            std::string::npos);
}

TEST(PipelineDefinitionTest, ServerIdRangesAndDurations) {
  auto parsed = Parse(WithLine(9,
                               "  server-id: 5400-5404\n  connect.timeout: 1min\n"
                               "  heartbeat.interval: 500ms"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->source.mysql.server_id, (ServerIdRange{5400, 5404}));
  EXPECT_EQ(parsed->source.mysql.connect_timeout, milliseconds(60000));
  EXPECT_EQ(parsed->source.mysql.heartbeat_interval, milliseconds(500));
  EXPECT_NE(parsed->Describe().find("  server-id: 5400-5404\n"), std::string::npos);
  EXPECT_FALSE(Parse(WithLine(9, "  server-id: 0")));
  EXPECT_FALSE(Parse(WithLine(9, "  server-id: 1-x")));
}

TEST(PipelineDefinitionTest, SchemaChangesIncludeMinusExclude) {
  auto parsed = Parse(WithLine(17,
                               "  include.schema.changes: [column, create.table]\n"
                               "  exclude.schema.changes: drop"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->sink.schema_changes,
            (std::set<SchemaChangeType>{
                SchemaChangeType::kAddColumn, SchemaChangeType::kAlterColumnType,
                SchemaChangeType::kCreateTable, SchemaChangeType::kRenameColumn}));
  auto excluded = Parse(WithLine(17, "  exclude.schema.changes: [drop.table, truncate.table]"));
  ASSERT_TRUE(excluded);
  EXPECT_EQ(excluded->sink.schema_changes.size(), 5u);
  EXPECT_FALSE(excluded->sink.schema_changes.contains(SchemaChangeType::kDropTable));
  std::string message = ErrorOf(Parse(WithLine(17, "  include.schema.changes: add.colum")));
  EXPECT_NE(message.find("'add.colum' is not a schema change event type"), std::string::npos);
  EXPECT_NE(message.find("(did you mean 'add.column'?)"), std::string::npos) << message;
}

TEST(PipelineDefinitionTest, FlinkCatalogPropertiesAndTablePropertiesMapping) {
  auto parsed = Parse(WithLine(15,
                               "  catalog.properties.type: hadoop\n"
                               "  catalog.properties.warehouse: /lake\n"
                               "  table.properties:\n"
                               "    format-version: 2"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->sink.catalog.config->type, "hadoop");
  EXPECT_EQ(parsed->sink.catalog.config->properties.at("warehouse"), "/lake");
  EXPECT_EQ(parsed->sink.table_properties.at("format-version"), "2");
  EXPECT_EQ(parsed->sink.table_properties.at("write.target-file-size-bytes"), "134217728");
  std::string message = ErrorOf(Parse(WithLine(16, "  catalog.properties.type: hadoop")));
  EXPECT_NE(message.find("not both"), std::string::npos) << message;
}

TEST(PipelineDefinitionTest, OverridesApplyBeforeValidation) {
  auto parsed =
      Parse(kExample, {"source.port=3307", "pipeline.parallelism=4",
                       "sink.table.properties.write.target-file-size-bytes=1048576",
                       "sink.catalog.uri=sqlite:///other.db", "route.1.sink-table=crm_copy.<>",
                       "source.scan.startup.mode=latest-offset"});
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->source.mysql.port, 3307);
  EXPECT_EQ(parsed->pipeline.parallelism, 4);
  EXPECT_EQ(parsed->sink.table_properties.at("write.target-file-size-bytes"), "1048576");
  EXPECT_EQ(parsed->sink.catalog.config->properties.at("uri"), "sqlite:///other.db");
  EXPECT_EQ(parsed->RouteFor("crm", "leads").value().ToString(), "crm_copy.leads");
  EXPECT_EQ(parsed->source.mysql.startup_mode, StartupMode::kLatestOffset);

  EXPECT_EQ(ErrorOf(Parse(kExample, {"source.port=abc"})),
            "--set source.port=abc: source.port: 'abc' is not an integer (expected 1..65535)");
  std::string message = ErrorOf(Parse(kExample, {"pipeline.paralelism=3"}));
  EXPECT_TRUE(
      message.starts_with("--set pipeline.paralelism=3: pipeline.paralelism: unknown key "
                          "(did you mean 'parallelism'?)"))
      << message;
  EXPECT_EQ(ErrorOf(Parse(kExample, {"pipeline.parallelism"})),
            "--set pipeline.parallelism: expected KEY=VALUE, e.g. source.port=3307");
}

TEST(PipelineDefinitionTest, ResolvesANamedCatalogFromTheConfigFile) {
  auto parsed = Parse(WithLine(15, "  catalog: lake"));
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->sink.catalog.name, "lake");
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("floe_pipeline_catalog_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string config = (dir / "floe.yaml").string();
  std::ofstream(config) << "catalog:\n  lake:\n    type: hadoop\n    warehouse: /tmp/lake\n";
  auto resolved = ResolveSinkCatalog(parsed->sink, config);
  ASSERT_TRUE(resolved) << resolved.error().message();
  EXPECT_EQ(resolved->name, "lake");
  EXPECT_EQ(resolved->type, "hadoop");
  parsed->sink.catalog.name = "missing";
  auto missing = ResolveSinkCatalog(parsed->sink, config);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  std::filesystem::remove_all(dir);

  auto inline_catalog = Parse(kExample);
  ASSERT_TRUE(inline_catalog);
  EXPECT_EQ(ResolveSinkCatalog(inline_catalog->sink, "/nonexistent").value().type, "sql");
}

TEST(PipelineDefinitionTest, NeverThrowsOnHostileInput) {
  for (std::string_view text :
       {std::string_view("source: {type: mysql, hostname: [[[[[[[[]]]]]]]]}"),
        std::string_view("*unknown_alias"), std::string_view("source: !!binary ~~~"),
        std::string_view("\t\t- : : :"), std::string_view("source: &a {x: *a}"),
        std::string_view("? [a, b]\n: c\n")}) {
    auto parsed = Parse(text);
    EXPECT_FALSE(parsed) << text;
  }
}

namespace floe::pipeline {
namespace {

TEST(PipelineExampleTest, TheShippedExampleParses) {
  std::ifstream in(std::string(FLOE_TEST_DATA_DIR) + "/../../examples/pipeline.yaml");
  ASSERT_TRUE(in.good());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto parsed = ParsePipelineDefinition(text, "examples/pipeline.yaml",
                                        Environment::FromMap({{"MYSQL_PASSWORD", "floe"}}), {});
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->source.mysql.port, 3307);
  EXPECT_EQ(parsed->source.mysql.server_id, (ServerIdRange{5400, 5404}));
  EXPECT_EQ(parsed->sink.catalog.config->properties.at("warehouse"), "lake/warehouse");
  EXPECT_TRUE(parsed->sink.catalog.config->base_dir.ends_with("/examples"));
  EXPECT_EQ(parsed->pipeline.state_dir, parsed->base_dir + "/lake/shop-mirror.floe-state");
  EXPECT_TRUE(parsed->sink.schema_changes.contains(SchemaChangeType::kDropTable));
  EXPECT_TRUE(parsed->MatchesSourceTable("shop", "orders"));
  EXPECT_FALSE(parsed->MatchesSourceTable("shop", "tmp_x"));
  EXPECT_EQ(parsed->RouteFor("shop", "order_items_2024").value().ToString(), "shop.order_items");
  EXPECT_EQ(parsed->RouteFor("shop", "customers").value().ToString(), "shop.customers");
}

TEST(PipelineExampleTest, AFlinkCdcPipelineNeedsNoEdits) {
  // The shape of Flink CDC's MySQL-to-Iceberg example: display names,
  // catalog.properties.*, a server-id range, several db.table patterns.
  constexpr std::string_view kFlink = R"(source:
  type: mysql
  name: Orders Source
  hostname: db.internal
  port: 3306
  username: cdc
  password: pw
  tables: sales.\.*, hr.staff_[0-9]+, [ab]pp.order_\.*
  server-id: 6000-6003
sink:
  type: iceberg
  name: Lake Sink
  catalog.properties.type: hadoop
  catalog.properties.warehouse: /data/warehouse
  partition.key: sales.orders:year(created);hr.staff_1:bucket[4](id)
pipeline:
  name: Sales to Lake
  parallelism: 4
)";
  auto parsed = ParsePipelineDefinition(kFlink, "flink.yaml", Environment::FromMap({}), {});
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->source.name, "Orders Source");
  EXPECT_EQ(parsed->sink.name, "Lake Sink");
  EXPECT_EQ(parsed->sink.catalog.config->type, "hadoop");
  EXPECT_TRUE(parsed->MatchesSourceTable("hr", "staff_12"));
  EXPECT_TRUE(parsed->MatchesSourceTable("app", "order_1"));
  EXPECT_TRUE(parsed->MatchesSourceTable("bpp", "order_1"));
  EXPECT_FALSE(parsed->MatchesSourceTable("hr", "staff_x"));
  EXPECT_EQ(parsed->sink.partition_keys.size(), 2u);
  EXPECT_EQ(parsed->pipeline.parallelism, 4);
}

}  // namespace
}  // namespace floe::pipeline

namespace floe::pipeline {
namespace {

TEST(PipelineDescribeTest, TheDescriptionIsAPipelineFileThatParsesToTheSame) {
  auto parsed = ParsePipelineDefinition(
      std::string(kExample) + "", "shop.yaml", Environment::FromMap({{"MYSQL_PASSWORD", "pw"}}),
      {"source.tables.exclude=shop.tmp_\\.*, shop.\"quoted\"", "source.server-id=1-4",
       "sink.include.schema.changes=column", "route.2.source-table=a.b", "route.2.sink-table=x.y",
       "route.2.description=a: b # c"});
  ASSERT_TRUE(parsed) << parsed.error().message();
  std::string described = parsed->Describe();
  auto again = ParsePipelineDefinition(described, "shop.yaml", Environment::FromMap({}), {});
  ASSERT_TRUE(again) << again.error().message() << "\n" << described;
  EXPECT_EQ(again->Describe(), described);
  EXPECT_EQ(again->routes.size(), 3u);
  EXPECT_EQ(again->routes[2].description, "a: b # c");
  EXPECT_EQ(again->source.mysql.tables.exclude.patterns.size(), 2u);
  EXPECT_EQ(again->source.mysql.password.value, "****");  // the secret itself is not in it
}

TEST(PipelineEnvironmentTest, TheProcessEnvironmentIsReadAtParseTime) {
  ::setenv("FLOE_PIPELINE_TEST_PW", "from-process", 1);
  auto parsed = ParsePipelineDefinition(
      "source: {type: mysql, hostname: h, username: u, password: \"${FLOE_PIPELINE_TEST_PW}\", "
      "tables: a.b, jdbc.properties.sslPassword: \"${FLOE_PIPELINE_TEST_PW}x\", "
      "jdbc.properties.useSSL: \"true\"}\n"
      "sink: {type: iceberg, catalog: lake}\n",
      "p.yaml", Environment::Process(), {"sink.catalog.uri=ignored"});
  ::unsetenv("FLOE_PIPELINE_TEST_PW");
  // `catalog: lake` is a name, not a mapping: the override cannot set a key in it.
  ASSERT_FALSE(parsed);
  EXPECT_TRUE(parsed.error().message().starts_with(
      "--set sink.catalog.uri=ignored: sink.catalog.uri: unknown key"))
      << parsed.error().message();

  ::setenv("FLOE_PIPELINE_TEST_PW", "from-process", 1);
  parsed = ParsePipelineDefinition(
      "source: {type: mysql, hostname: h, username: u, password: \"${FLOE_PIPELINE_TEST_PW}\", "
      "tables: a.b, jdbc.properties.sslPassword: \"${FLOE_PIPELINE_TEST_PW}x\", "
      "jdbc.properties.useSSL: \"true\"}\n"
      "sink: {type: iceberg, catalog: {type: hadoop, warehouse: /w}}\n",
      "p.yaml", Environment::Process(), {"sink.catalog=lake"});
  ::unsetenv("FLOE_PIPELINE_TEST_PW");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->source.mysql.password.value, "from-process");
  EXPECT_EQ(parsed->sink.catalog.name, "lake");  // the override named a catalog instead
  EXPECT_TRUE(parsed->source.mysql.jdbc_properties.at("sslPassword").secret);
  EXPECT_FALSE(parsed->source.mysql.jdbc_properties.at("useSSL").secret);
  std::string described = parsed->Describe();
  EXPECT_EQ(described.find("from-process"), std::string::npos) << described;
  EXPECT_NE(described.find("  jdbc.properties.useSSL: \"true\"\n"), std::string::npos) << described;
}

}  // namespace
}  // namespace floe::pipeline

constexpr std::string_view kIcebergSource = R"(source:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///up/catalog.db", warehouse: up/warehouse, token: "${CATALOG_URI}"}
  tables: shop.\.*
  tables.exclude: shop.tmp
  monitor-interval: 2s
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///down/catalog.db", warehouse: down/warehouse}
)";

TEST(PipelineIcebergSourceTest, ParsesWithFlinkSourceDefaults) {
  auto parsed = Parse(kIcebergSource);
  ASSERT_TRUE(parsed) << parsed.error().message();
  const SourceDefinition& source = parsed->source;
  ASSERT_TRUE(source.is_iceberg());
  EXPECT_EQ(source.iceberg.catalog.config->type, "sql");
  EXPECT_EQ(source.iceberg.catalog.config->base_dir, parsed->base_dir);
  EXPECT_TRUE(parsed->MatchesSourceTable("shop", "orders"));
  EXPECT_FALSE(parsed->MatchesSourceTable("shop", "tmp"));
  EXPECT_FALSE(parsed->MatchesSourceTable("crm", "orders"));
  EXPECT_TRUE(source.iceberg.streaming);
  EXPECT_TRUE(source.iceberg.changelog);
  EXPECT_EQ(source.iceberg.starting_strategy, "table-scan-then-incremental");
  EXPECT_EQ(source.iceberg.monitor_interval, milliseconds(2000));
  // A secret of the source catalog is never described.
  std::string described = parsed->Describe();
  EXPECT_EQ(described.find("sqlite:///u:pw@lake.db"), std::string::npos) << described;
  EXPECT_EQ(parsed->Redact("token sqlite:///u:pw@lake.db"), "token ****");
  auto again = ParsePipelineDefinition(described, "shop.yaml", Environment::FromMap({}), {});
  ASSERT_TRUE(again) << again.error().message() << "\n" << described;
  EXPECT_EQ(again->Describe(), described);
}

TEST(PipelineIcebergSourceTest, StartingStrategiesCheckTheirKeys) {
  auto with = [](std::vector<std::string> overrides) { return Parse(kIcebergSource, overrides); };
  auto upper = with({"source.starting-strategy=INCREMENTAL_FROM_LATEST_SNAPSHOT"});
  ASSERT_TRUE(upper) << upper.error().message();
  EXPECT_EQ(upper->source.iceberg.starting_strategy, "incremental-from-latest-snapshot");
  EXPECT_NE(ErrorOf(with({"source.starting-strategy=latest"})).find("is not a starting strategy"),
            std::string::npos);
  EXPECT_NE(ErrorOf(with({"source.starting-strategy=incremental-from-snapshot-id"}))
                .find("needs start-snapshot-id"),
            std::string::npos);
  EXPECT_NE(ErrorOf(with({"source.start-snapshot-id=5"})).find("only used with"),
            std::string::npos);
  auto by_time = with({"source.starting-strategy=incremental-from-snapshot-timestamp",
                       "source.start-snapshot-timestamp=1700000000000"});
  ASSERT_TRUE(by_time) << by_time.error().message();
  EXPECT_EQ(by_time->source.iceberg.start_snapshot_timestamp, 1700000000000);
  EXPECT_NE(ErrorOf(with({"source.streaming-skip-delete-snapshots=true"})).find("changelog: false"),
            std::string::npos);
  EXPECT_TRUE(with({"source.changelog=false", "source.streaming-skip-delete-snapshots=true"}));
  // The keys of the other source type are typos here.
  EXPECT_NE(ErrorOf(with({"source.hostname=db"})).find("hostname"), std::string::npos);
  EXPECT_NE(ErrorOf(with({"source.tables="})).find("tables"), std::string::npos);
}

constexpr std::string_view kKafkaSource = R"(source:
  type: kafka
  properties.bootstrap.servers: 127.0.0.1:9092
  topic: shop-changes;crm-changes
  properties.group.id: floe-shop
  scan.startup.mode: earliest-offset
  properties.sasl.password: ${MYSQL_PASSWORD}
  value.format: canal-json
sink:
  type: iceberg
  catalog: {type: sql, uri: "sqlite:///down/catalog.db", warehouse: down/warehouse}
)";

TEST(PipelineKafkaSourceTest, KeepsTheConnectorKeysAndHidesSecrets) {
  auto parsed = Parse(kKafkaSource);
  ASSERT_TRUE(parsed) << parsed.error().message();
  const SourceDefinition& source = parsed->source;
  ASSERT_TRUE(source.is_kafka());
  EXPECT_EQ(source.kafka.value_format, "canal-json");
  const auto& settings = source.kafka.settings;
  EXPECT_EQ(settings.at("properties.bootstrap.servers").value, "127.0.0.1:9092");
  EXPECT_EQ(settings.at("topic").value, "shop-changes;crm-changes");
  EXPECT_EQ(settings.at("scan.startup.mode").value, "earliest-offset");
  EXPECT_TRUE(settings.at("properties.sasl.password").secret);
  EXPECT_FALSE(settings.at("properties.group.id").secret);
  std::string described = parsed->Describe();
  EXPECT_EQ(described.find("hunter2-very-secret"), std::string::npos) << described;
  EXPECT_NE(described.find("value.format: canal-json"), std::string::npos) << described;
  auto again = ParsePipelineDefinition(described, "shop.yaml", Environment::FromMap({}), {});
  ASSERT_TRUE(again) << again.error().message() << "\n" << described;
  EXPECT_EQ(again->Describe(), described);
  auto debezium = Parse(kKafkaSource, {"source.value.format=debezium-json"});
  ASSERT_TRUE(debezium) << debezium.error().message();
  EXPECT_EQ(debezium->source.kafka.value_format, "debezium-json");
}

TEST(PipelineKafkaSourceTest, RefusesUnknownAndMissingKeys) {
  auto with = [](std::vector<std::string> overrides) { return Parse(kKafkaSource, overrides); };
  std::string typo = ErrorOf(with({"source.topics=x"}));
  EXPECT_NE(typo.find("topics"), std::string::npos) << typo;
  EXPECT_NE(typo.find("topic"), std::string::npos) << typo;
  EXPECT_NE(ErrorOf(with({"source.value.format=avro"})).find("value.format"), std::string::npos);
  EXPECT_NE(ErrorOf(with({"source.scan.startup.mode=initial"})).find("scan.startup.mode"),
            std::string::npos);
  EXPECT_NE(ErrorOf(with({"source.topic-pattern=shop-.*"})).find("exactly one of 'topic'"),
            std::string::npos);
  std::string text(kKafkaSource);
  auto without = [&](std::string_view line) {
    std::string out = text;
    out.erase(out.find(line), line.size() + 1);
    return Parse(out);
  };
  EXPECT_NE(ErrorOf(without("  properties.group.id: floe-shop")).find("properties.group.id"),
            std::string::npos);
  EXPECT_NE(ErrorOf(without("  properties.bootstrap.servers: 127.0.0.1:9092"))
                .find("properties.bootstrap.servers"),
            std::string::npos);
}

}  // namespace
}  // namespace floe::pipeline
