#pragma once
/// The pipeline file: what `floe run PIPELINE.yaml` mirrors, from where to
/// where and how (docs/pipeline.md is the reference for every key). The
/// shape and the key names are Flink CDC's YAML pipelines', so a Flink CDC
/// pipeline moves over by editing a few lines:
///
///   source:   {type: mysql, hostname: ..., tables: "shop.\.*", ...}
///   sink:     {type: iceberg, catalog: {...} or NAME, table.properties.*, partition.key}
///   route:    [{source-table: ..., sink-table: ..., replace-symbol: ...}]
///   pipeline: {name: ..., parallelism: ..., schema.change.behavior: ..., checkpoint.interval: ...}
///
/// This header is the typed model and the parser; the `source:` section's
/// model is in source_definition.h. Nothing here connects to a
/// server or opens a catalog; a definition is a plain value, safe to copy and
/// to read from several threads.
///
/// Secrets: a password, and any value substituted from the environment into
/// a URI (`uri: ${CATALOG_URI}`), are marked secret. `Describe()` prints them
/// as `****`, and `Redact()` removes them from any text (an error message
/// from a driver, a log line) before it is shown.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/pipeline/environment.h"
#include "floe/pipeline/partition_key.h"
#include "floe/pipeline/source_definition.h"
#include "floe/pipeline/table_selector.h"

namespace floe::pipeline {

/// The schema change event types of Flink CDC.
enum class SchemaChangeType {
  kAddColumn,        ///< "add.column"
  kAlterColumnType,  ///< "alter.column.type"
  kCreateTable,      ///< "create.table"
  kDropColumn,       ///< "drop.column"
  kDropTable,        ///< "drop.table"
  kRenameColumn,     ///< "rename.column"
  kTruncateTable,    ///< "truncate.table"
};
/// The names of the event types, in the enum's order (index = the enum's value).
const std::vector<std::string>& SchemaChangeTypeNames();
/// The name of `type` ("?" for a value outside the enum).
std::string_view SchemaChangeTypeName(SchemaChangeType type);

/// `sink:` with `type: iceberg`.
struct SinkDefinition {
  std::string type;  ///< "iceberg"
  std::string name;  ///< `name`: a display name, as in Flink CDC; may be empty
  CatalogDefinition catalog;
  /// `table.properties.<name>`: properties of the tables the sink creates.
  std::map<std::string, std::string> table_properties;
  /// `partition.key`.
  std::vector<TablePartitionKey> partition_keys;
  /// The schema changes the sink applies: `include.schema.changes` (default:
  /// all) minus `exclude.schema.changes`; the others are dropped.
  std::set<SchemaChangeType> schema_changes;
};

/// `pipeline.schema.change.behavior`, as Flink CDC defines the five.
enum class SchemaChangeBehavior { kException, kEvolve, kTryEvolve, kLenient, kIgnore };
/// The names of the behaviors, in the enum's order (index = the enum's value).
const std::vector<std::string>& SchemaChangeBehaviorNames();
/// The name of `behavior` ("?" for a value outside the enum).
std::string_view SchemaChangeBehaviorName(SchemaChangeBehavior behavior);

struct HttpAddress {
  std::string host;
  int port = 0;
  bool operator==(const HttpAddress&) const = default;
};

/// `pipeline:`.
struct PipelineSettings {
  std::string name;     ///< default: the file's name without folder and extension
  int parallelism = 1;  ///< 1..256
  SchemaChangeBehavior schema_change_behavior = SchemaChangeBehavior::kLenient;
  std::chrono::milliseconds checkpoint_interval{10000};  ///< `checkpoint.interval`, >= 1ms
  /// `state.dir`, made absolute: a relative path is taken from the folder
  /// of the pipeline file. Default: the file's path without its extension,
  /// plus ".floe-state" (`shop.yaml` -> `<folder>/shop.floe-state`).
  std::string state_dir;
  std::optional<HttpAddress> http;  ///< `http: host:port`
  std::string local_time_zone;      ///< `local-time-zone`; empty: the system's
};

struct PipelineDefinition {
  std::string file;  ///< the file name it was parsed from, for messages
  /// The absolute folder of `file`: relative paths in the file (state.dir,
  /// an inline catalog's uri and warehouse) are taken from it, as relative
  /// paths of a catalog config file are taken from that file's folder.
  std::string base_dir;
  SourceDefinition source;
  SinkDefinition sink;
  std::vector<Route> routes;
  PipelineSettings pipeline;

  /// Whether the pipeline reads `db`.`table` (source `tables` minus `tables.exclude`).
  bool MatchesSourceTable(std::string_view db, std::string_view table) const {
    return pipeline::MatchesSourceTable(source.tables(), db, table);
  }
  /// The sink table of `db`.`table`: see pipeline::RouteFor.
  Result<iceberg::TableIdentifier> RouteFor(std::string_view db, std::string_view table) const {
    return pipeline::RouteFor(routes, db, table);
  }

  /// Every key with its value after defaults, in the file's shape (YAML),
  /// secrets as `****`. Safe to print and log.
  std::string Describe() const;
  /// `text` with every secret value replaced by `****`.
  std::string Redact(std::string_view text) const;
  /// The secret values (non-empty), longest first.
  std::vector<std::string> SecretValues() const;
};

/// Parses and validates a pipeline file. `file_name` is used in messages and
/// for the defaults of `pipeline.name` and `pipeline.state.dir`; `env`
/// supplies `${VAR}`; `overrides` are `--set key=value` texts applied in
/// order after substitution and before validation (see ApplyOverride).
///
/// Errors, each naming the file, line and column (or the override), the key
/// path and what is allowed:
///  - kInvalidArgument: YAML syntax; an unset variable; an unknown key or
///    section (with the nearest known key: "did you mean ...?"); a wrong type
///    (a list where a value or mapping is needed, text where a number is
///    needed); a number out of range; a bad regex, duration, enum value or
///    table name; a missing required key; an unknown source or sink type
///    (listing the supported ones); input over kMaxDocumentBytes or nested
///    deeper than kMaxDocumentDepth.
///  - kNotSupported: a `transform:` section, and Flink CDC keys floe does not
///    implement yet (each named).
/// Never throws.
Result<PipelineDefinition> ParsePipelineDefinition(std::string_view yaml_text,
                                                   std::string_view file_name,
                                                   const Environment& env,
                                                   const std::vector<std::string>& overrides);

/// The settings of a catalog: the inline ones, or for `catalog: NAME` that
/// catalog of the config file (`catalog_config_path`, or the default places;
/// see iceberg::FindCatalogConfigFile). Errors: as
/// iceberg::FindCatalogConfigFile and iceberg::ReadCatalogConfig.
Result<iceberg::CatalogConfig> ResolveCatalog(const CatalogDefinition& catalog,
                                              const std::string& catalog_config_path);
/// ResolveCatalog of the sink's catalog.
inline Result<iceberg::CatalogConfig> ResolveSinkCatalog(const SinkDefinition& sink,
                                                         const std::string& catalog_config_path) {
  return ResolveCatalog(sink.catalog, catalog_config_path);
}

}  // namespace floe::pipeline
