#pragma once
/// TableResolver: where the events of `floe ingest` go (docs/ingest.md,
/// "Tables and routing" and "Schema evolution").
///
///   - Destination: one fixed table (`--table NS.T`) or a route template
///     ("{db}.{table}", "lake.{db}_{table}": the last dot separates the
///     namespace from the table name) applied to the event's source db and
///     table.
///   - First sight: the table is loaded, or created with its namespace when
///     missing — schema from `--schema` if given, else from the event's
///     Debezium row schema; identifier fields from `--primary-key` (made
///     required); partition spec from `--partition-by`.
///   - Schema changes: a row schema with new fields adds optional columns; a
///     wider type (int→long, float→double, decimal precision up) updates the
///     column; a column that became optional (or is missing from the event)
///     is made optional unless it is an identifier field; any other change is
///     refused with kSchemaIncompatible naming the table, column, old and new
///     type. Evolutions are committed through the catalog at once (before any
///     row with the new schema is emitted) and are idempotent: replaying the
///     same events after a restart finds the table already evolved.
///   - Rows of an event schema are mapped by field name into the table's
///     column order through a RowMapping made once per (event schema, table
///     version): mapping a row allocates nothing.
///
/// Errors are returned with `*event_error` telling whether the event is to
/// blame (a bad-input error, which `--on-error skip` may dead-letter) or the
/// job (catalog I/O, commit failures, configuration: the job fails).
///
/// Not thread-safe: used by the source subtask's thread only.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/schema_mirror.h"
#include "floe/sink/record.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::ingest {

struct TableResolverOptions {
  /// `--table`: every event goes to this table. Exclusive with `route`.
  std::optional<iceberg::TableIdentifier> table;
  /// `--route`: a template with "{db}" and "{table}" (e.g. "{db}.{table}").
  std::string route;
  /// Instead of `table` and `route`: the destination of each source table
  /// (`floe run`'s route blocks). Its errors are the event's.
  std::function<Result<iceberg::TableIdentifier>(std::string_view db, std::string_view table)>
      route_function;
  /// `--schema`: the schema of tables created by ingest (wins over the event
  /// schema), and of events without a schema block.
  std::shared_ptr<const types::Schema> schema;
  /// `--primary-key`: the identifier fields of created tables, and of
  /// existing tables that have none (a table's own identifier fields win).
  std::vector<std::string> primary_key;
  /// `--partition-by`: the partition spec of created tables, as
  /// ParsePartitionSpecText reads it ("bucket(16,id),day(ts)").
  std::string partition_by;
  /// Partition specs of created tables by destination ("ns.table"), in the
  /// same text form; wins over `partition_by` (`floe run`'s partition.key).
  std::map<std::string, std::string> partition_by_table;
  /// Properties of created tables.
  std::map<std::string, std::string> table_properties;
  /// Job-level upsert (SinkOptions::upsert); unset: the table property
  /// `write.upsert.enabled`.
  std::optional<bool> upsert;
  /// Overwrite mode (refused together with upsert).
  bool overwrite = false;
  /// Whether a row schema evolves its table (add, widen, make optional).
  /// False (`schema.change.behavior: ignore`): tables keep their schema;
  /// columns they lack are left out of the rows, and a column whose type no
  /// longer fits is kSchemaIncompatible.
  bool evolve_schemas = true;
};

/// Checks the options on their own (before any event): exactly one of
/// table, route and route_function, a valid template, upsert not with
/// overwrite.
Status ValidateTableResolverOptions(const TableResolverOptions& options);

/// The longest namespace level or table name a route may give, in bytes: the
/// catalogs make folders of them (a file system allows 255 bytes per name,
/// and the SQL catalog adds ".db" to a namespace).
inline constexpr size_t kMaxRoutedNameBytes = 240;

/// Renders a route template for (db, table). kInvalidArgument for a result
/// that is not "namespace.table" with valid names, or with a part longer than
/// kMaxRoutedNameBytes (an event error: --on-error skip can skip it).
Result<iceberg::TableIdentifier> RenderRoute(std::string_view route, std::string_view db,
                                             std::string_view table);

/// A source table's primary key, as a schema-change event announced it.
struct NotedPrimaryKey {
  std::string db;
  std::string table;
  std::vector<std::string> columns;
};

/// How rows of one event schema become rows of one table version.
class RowMapping {
 public:
  enum class Conversion : uint8_t { kNone, kIntToLong, kFloatToDouble };
  struct Column {
    int source = -1;  ///< index in the event row, -1: null
    Conversion conversion = Conversion::kNone;
  };

  /// The table version the rows are for.
  const sink::TableTargetPtr& target() const { return target_; }
  const types::Schema& table_schema() const { return *table_schema_; }
  /// The event row schema mapped from (null: rows already in table order).
  const std::shared_ptr<const types::Schema>& row_schema() const { return row_schema_; }

  /// Writes the table row for `in` into `out` (table_schema().fields().size()
  /// values). Values are copied as views (no allocation). Returns the name of
  /// a required column that is null, or "" when every required column has a
  /// value; `equality_only` checks only the equality fields (deletes).
  std::string_view Map(types::Row in, std::span<types::Value> out, bool equality_only) const;
  /// The table row for `in`: `in` itself when the event row already is one
  /// (the table's columns in the table's order, none converted), else Map's
  /// copy in `out`. `*missing` is what Map returns.
  types::Row View(types::Row in, std::span<types::Value> out, bool equality_only,
                  std::string_view* missing) const {
    if (direct_ && in.size() == columns_.size()) {
      *missing = Missing(in, equality_only);
      return in;
    }
    *missing = Map(in, out, equality_only);
    return out;
  }

  size_t width() const { return columns_.size(); }
  /// Rows decoded with the table's own schema (no row schema): Map only
  /// copies them, so a row can be used as it is after Missing.
  bool identity() const { return row_schema_ == nullptr; }
  /// For a row already in table order: Map's check without the copy.
  std::string_view Missing(types::Row row, bool equality_only) const;
  /// Table positions of the equality fields.
  const std::vector<int>& equality_positions() const { return equality_; }
  /// The index in the event row of the table column at `position` (less
  /// than width()), or -1 when the event row has no such column.
  int source_of(size_t position) const { return columns_[position].source; }

 private:
  friend class TableResolver;
  sink::TableTargetPtr target_;
  const types::Schema* table_schema_ = nullptr;
  std::shared_ptr<const types::Schema> row_schema_;
  std::vector<Column> columns_;
  std::vector<int> required_;  ///< table positions of required columns
  std::vector<int> equality_;  ///< table positions of equality fields
  size_t row_width_ = 0;       ///< values expected in an event row
  /// Event rows are table rows: column i from value i, none converted.
  bool direct_ = false;
};

class TableResolver {
 public:
  /// `catalog` must outlive the resolver; `stats` may be null.
  TableResolver(TableResolverOptions options, std::shared_ptr<iceberg::Catalog> catalog,
                IngestStats* stats = nullptr);
  ~TableResolver();

  /// The table an event of (db, table) goes to, loaded or created on first
  /// sight (`row_schema`: the event's row schema, null without a schema block).
  /// Errors: an event error (kNotFound) when the table is missing and cannot
  /// be created (no --schema and no row schema), an invalid routed name, or an
  /// incompatible --primary-key; job errors from the catalog.
  struct TableState;
  Result<TableState*> Resolve(std::string_view db, std::string_view table,
                              const std::shared_ptr<const types::Schema>& row_schema,
                              bool* event_error);

  /// The mapping of `row_schema` (null: rows decoded with `SchemaOf(state)`)
  /// into `state`'s table, evolving the table first when the row schema
  /// needs it. Errors: kSchemaIncompatible (event error) for a change that is
  /// not allowed; job errors from the catalog commit.
  Result<const RowMapping*> MappingFor(TableState* state,
                                       const std::shared_ptr<const types::Schema>& row_schema,
                                       bool* event_error);

  /// `schema.change.behavior: evolve`: makes the table's schema equal
  /// `row_schema` (PlanSchemaMirror, with the columns the statement renamed)
  /// in one schema commit, before any row of the new schema. Returns
  /// the plan applied (empty when the table already matched — a replayed
  /// statement). Errors: kSchemaIncompatible (event error) for a change
  /// Iceberg cannot express; job errors from the catalog.
  struct MirrorOutcome {
    std::string applied;             ///< SchemaMirrorPlan::Describe(), "" if nothing
    std::vector<std::string> notes;  ///< what stays different from the source
  };
  /// `properties` are set in the same commit (and are committed alone when
  /// the schema already matches but they differ).
  Result<MirrorOutcome> MirrorSchema(TableState* state,
                                     const std::shared_ptr<const types::Schema>& row_schema,
                                     const std::vector<ColumnRename>& renames, bool* event_error,
                                     const std::map<std::string, std::string>& properties = {});
  Result<MirrorOutcome> MirrorSchema(TableState* state,
                                     const std::shared_ptr<const types::Schema>& row_schema,
                                     std::string_view renamed_from, std::string_view renamed_to,
                                     bool* event_error) {
    std::vector<ColumnRename> renames;
    if (!renamed_from.empty())
      renames.push_back({std::string(renamed_from), std::string(renamed_to)});
    return MirrorSchema(state, row_schema, renames, event_error);
  }
  /// The current metadata of a resolved table.
  static const iceberg::TableMetadata& MetadataOf(const TableState* state);

  /// The sink table of source table (db, table) by the routes, without
  /// loading or creating it.
  Result<iceberg::TableIdentifier> RouteOf(std::string_view db, std::string_view table) const;
  /// Forgets what was resolved for source table (db, table) and its sink
  /// table (after the sink table was renamed or dropped): the next event of
  /// it resolves it again.
  void Forget(std::string_view db, std::string_view table);

  /// Creates namespace `ns` (and its parents) when missing.
  Status EnsureNamespace(const iceberg::Namespace& ns);

  /// The current target and schema of a resolved table.
  static const sink::TableTargetPtr& TargetOf(const TableState* state);
  static const types::Schema& SchemaOf(const TableState* state);

  /// Every table resolved so far, by "ns.table".
  std::vector<std::string> TableNames() const;

  /// Remembers the primary key of source table (db, table), as a
  /// schema-change event announced it (Debezium's tableChanges
  /// primaryKeyColumnNames, which `floe capture` writes for every table it
  /// snapshots and every DDL). Used, when --primary-key is not given, as the
  /// identifier fields of the table when ingest creates it (or when it has
  /// none yet). Tables already resolved are not changed.
  void NotePrimaryKey(std::string_view db, std::string_view table,
                      std::vector<std::string> columns);
  /// Every noted primary key (for the source's checkpoint state).
  std::vector<NotedPrimaryKey> NotedPrimaryKeys() const;

 private:
  Result<sink::TableTargetPtr> MakeTarget(const iceberg::LoadedTable& loaded) const;
  Result<iceberg::LoadedTable> LoadOrCreate(const iceberg::TableIdentifier& id,
                                            const std::shared_ptr<const types::Schema>& row_schema,
                                            bool* event_error);
  Status EnsurePrimaryKey(iceberg::LoadedTable* loaded, bool* event_error);
  Result<std::shared_ptr<RowMapping>> BuildMapping(
      TableState* state, const std::shared_ptr<const types::Schema>& row_schema);
  Status Evolve(TableState* state, const types::Schema& row_schema, bool* event_error);
  /// evolve_schemas false: every row column the table has fits it.
  Status CheckFits(TableState* state, const types::Schema& row_schema, bool* event_error);

  TableResolverOptions options_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  IngestStats* stats_;
  /// By "ns.table".
  std::unordered_map<std::string, std::unique_ptr<TableState>> tables_;
  /// By "db\0table" (the source table), pointing into tables_.
  std::unordered_map<std::string, TableState*> by_source_;
  /// Primary keys from schema-change events, by "db\0table".
  std::map<std::string, NotedPrimaryKey> noted_keys_;
  /// The primary key of the table being loaded or created: --primary-key,
  /// else the noted one.
  std::vector<std::string> primary_key_;
  std::string key_buffer_;
};

}  // namespace floe::ingest
