#pragma once
/// IcebergTablesSource: the source operator of `floe run` for `source: type:
/// iceberg` (docs/pipeline.md, "source: (type iceberg)"): the tables of an Iceberg
/// catalog that the source's patterns select, read as streams into the
/// pipeline's sink — a mirror of a mirror, a copy into another catalog.
///
/// Per selected table it runs the Iceberg source's monitor (SplitEnumerator,
/// docs/read.md) and reads the splits it plans one after the other, the
/// tables taking turns. Rows go, as values (no JSON in between), through the
/// same TableResolver (tables created on first sight with the source
/// table's identifier fields, schemas evolved before the first row that
/// needs it) and RowChangeWriter as every other source:
///  - the rows of a whole-table scan are snapshot reads, those of an append
///    inserts;
///  - with `changelog` (the default) an overwrite or delete snapshot becomes
///    its row changes (changelog.h): deletes, updates (a key deleted and
///    inserted in one snapshot) and inserts, so upserts and deletes of the
///    source table reach the sink table. Deletes and updates need the
///    source table's identifier fields (they are the sink table's key).
/// Rows come out in the schema of the snapshot they belong to; a column the
/// source added reaches the sink before its first row, as `lenient`
/// schema-change handling does; under `evolve` the sink table's schema is
/// made equal to each new source schema (docs/pipeline.md).
///
/// Tables: listed when the source opens and again every monitor interval;
/// a table that appears later is read whole and then followed. Tables at
/// the pipeline's first start follow the configured starting strategy. A
/// table that disappears from the catalog is no longer followed (its sink
/// table stays). When the source and the sink are the same catalog, the
/// tables the pipeline writes to are never read (a route onto the table
/// itself is refused).
///
/// Exactly once: the state of a checkpoint is, per table, the monitor's
/// position (last planned snapshot, pending splits) and the split being read
/// with the number of its rows (changes) handed on; every Poll hands its
/// rows to the writers before it returns, so a checkpoint covers exactly
/// the rows before it. A restore reads the split being read again from its
/// start and skips those rows (reading a split is deterministic).
///
/// The position in the lake (docs/pipeline.md): each table's read is its
/// origin (what its first planning round began with) and the rows (changes)
/// handed on since; these positions go into every commit's snapshot summary
/// (`floe.source-position`, IcebergPositionText), and once every table has
/// committed a checkpoint, its state is copied to the lake (LakeStateCopy).
/// A run whose state folder was lost restores that copy; a sink table that
/// holds more has the rows of its source tables up to its last commit's
/// positions skipped, and a source table the restored state does not know
/// is read again from its origin, skipping the same way.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/engine/operator.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/table_resolver.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"
#include "floe/source/split_planner.h"

namespace floe::run {

class RunMetrics;

/// Where the read of one source table stands.
struct SourceTablePosition {
  /// What its first planning round began with.
  source::PlanOrigin origin;
  /// Rows (changelog changes; an update pair counts two) handed on since.
  int64_t handed_on = 0;

  friend bool operator==(const SourceTablePosition&, const SourceTablePosition&) = default;
};

struct IcebergTablesSourceOptions {
  /// Opens the source catalog (once per subtask).
  sink::CatalogFactory source_catalog;
  /// Whether table (namespace, name) is selected (tables minus tables.exclude).
  std::function<bool(std::string_view ns, std::string_view table)> selector;
  /// Planning of the tables found at the pipeline's first start (starting
  /// strategy, start snapshot, changelog, skips, branch, split sizes).
  /// Tables found later are planned from table-scan-then-incremental.
  source::PlanOptions plan;
  /// How often each table is checked for new snapshots, and the table list
  /// for new tables.
  std::chrono::milliseconds monitor_interval{10'000};
  /// The source and the sink are one catalog: the pipeline's destination
  /// tables are not read.
  bool same_catalog = false;
  /// Destinations (route_function), creation and evolution of sink tables.
  ingest::TableResolverOptions tables;
  /// Write parallelism and distribution (RowBatcher); `catalog` opens the sink's.
  sink::SinkOptions sink;
  /// Poll returns after about this long.
  std::chrono::milliseconds max_poll_time{200};
  /// Rows per RowBatch and per read batch.
  size_t batch_rows = 1024;
  /// Counts changes per sink table for /metrics (may be null; outlives the source).
  RunMetrics* metrics = nullptr;
  /// lenient (and ignore, with `tables.evolve_schemas` false), or evolve /
  /// try_evolve: a sink table's schema is made equal to the source table's
  /// before the first row of each new source schema, once the rows before
  /// are committed (a renamed column keeps its field id; drops drop; wider
  /// types widen); try_evolve handles a change Iceberg refuses as lenient.
  pipeline::SchemaChangeBehavior schema_change_behavior = pipeline::SchemaChangeBehavior::kLenient;
  /// Whether source table (ns, table) has its sink table to itself (evolve
  /// mirrors only such sink tables; a shared one is handled as lenient).
  /// Null: every table does.
  std::function<bool(std::string_view ns, std::string_view table)> owns_sink_table;
  /// Source tables ("ns.table") whose sink table holds more than the
  /// restored checkpoint (the state folder was lost, or is behind): where
  /// their read stood at the sink table's last commit. Their rows up to
  /// there are skipped; one that the restored state does not know is read
  /// again from the position's origin.
  std::map<std::string, SourceTablePosition> committed_until;
  /// Where the source keeps a copy of its state in the lake (LakeStateDir;
  /// LakeStateCopy), at most every `lake_state_interval` and at a clean
  /// stop. Empty: no copy.
  std::string lake_state_dir;
  std::chrono::milliseconds lake_state_interval{10'000};
};

/// The `floe.source-position` of the commits of a checkpoint: a JSON object
/// with a member per source table, `{"db.t":{"whole":8123,"rows":5120}}`
/// (the read began with the whole of snapshot 8123) or
/// `{"db.t":{"after":8123,"rows":12}}` (with the snapshots after 8123;
/// null: from the first).
std::string IcebergPositionText(const std::map<std::string, SourceTablePosition>& positions);
/// Errors: kCorruption (not such an object).
Result<std::map<std::string, SourceTablePosition>> ParseIcebergPositionText(std::string_view text);

/// A source table the pipeline reads, and its sink table.
struct SelectedTable {
  iceberg::TableIdentifier source;
  iceberg::TableIdentifier sink;
};

/// The tables of `catalog` the options select, each with its route: with
/// `same_catalog`, the destinations of the selected tables are not read
/// themselves, and a table whose route leads onto itself is refused
/// (kInvalidArgument). Errors also: listing the catalog, a route's.
Result<std::vector<SelectedTable>> SelectSourceTables(iceberg::Catalog& catalog,
                                                      const IcebergTablesSourceOptions& options);

class IcebergTablesSource final : public engine::SourceOperator<sink::RowBatch> {
 public:
  /// `positions` (may be null: no positions, no lake copy) is shared with
  /// the committers; `stats` (may be null) outlives the source.
  IcebergTablesSource(IcebergTablesSourceOptions options,
                      std::shared_ptr<sink::CheckpointPositions> positions,
                      ingest::IngestStats* stats);
  ~IcebergTablesSource() override;

  /// Opens both catalogs, lists the selected tables and starts their
  /// monitors from the restored state (or with a first planning round).
  /// Errors: the catalogs', a corrupt state, a route of a table onto itself,
  /// incremental-from-snapshot-id with other than one table, planning errors
  /// (a start snapshot that is not in a table).
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Hands on rows of the tables' splits for up to max_poll_time. Returns
  /// false when the plan has an end (streaming false) and every table
  /// reached it. Errors: reading and planning (naming the table and file),
  /// a row that does not fit its sink table, a delete or update of a table
  /// without identifier fields, an overwrite or delete snapshot in
  /// append-only reading that is not skipped.
  Result<bool> Poll(engine::Collector<sink::RowBatch>& out) override;
  Result<std::string> SnapshotState(engine::CheckpointId id) override;
  Status NotifyCheckpointComplete(engine::CheckpointId id) override;
  /// Writes the lake copy of the last checkpoint committed everywhere.
  void Close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::run
