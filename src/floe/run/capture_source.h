#pragma once
/// CaptureSource: the source operator of `floe run` for databases
/// (docs/pipeline.md). It runs a change stream — a MySqlCapture, or a
/// PostgreSQL slot's (postgres_source.h) — on a thread of its own and turns
/// its change batches — no JSON in between — into the sink's rows, through
/// the same TableResolver (tables created on first sight, schemas evolved in
/// order with the rows) and RowChangeWriter as `floe ingest`.
///
/// Exactly once: its checkpoint state is the capture's state (binlog
/// position, schemas of the selected tables, the initial snapshot's stream
/// filter) after the last transaction it handed on. Poll returns only at a
/// transaction boundary, so a checkpoint never holds half a transaction; the
/// initial snapshot has no boundary until it is whole, so no checkpoint
/// completes during it (a crash restarts the snapshot, and nothing of the
/// first attempt was committed). A restore resumes the capture exactly after
/// the checkpoint's last transaction.
///
/// Schema changes, per `schema.change.behavior` (docs/pipeline.md):
///  - lenient (Flink CDC's default): a created table appears with its primary
///    key as identifier fields; an added column or a wider type reaches the
///    Iceberg schema before the first row that has it; a dropped column stays
///    in Iceberg and is null from then on; a renamed column is a new column;
///    a truncation removes the table's rows in the same checkpoint's commit;
///    a dropped or renamed table stays in the lake.
///  - evolve: a true mirror. Each change makes the Iceberg schema equal the
///    source table's (PlanSchemaMirror: renames keep field ids, drops drop,
///    order and key follow); RENAME TABLE renames the Iceberg table and DROP
///    TABLE drops it (with its files) when the table has its sink table to
///    itself. A column change, and a rename or drop of a table, waits until
///    every row handed on before it is committed (the source asks for a
///    checkpoint at once and hands on nothing meanwhile), so a restart never
///    maps a row of the old schema onto the new one; the change records its
///    binlog position in the table (the table property
///    floe.schema-change-position, iceberg/table_properties.h), so a
///    replay of it, or of an older change, leaves the table as it is.
///  - try_evolve: as evolve, but a change Iceberg refuses is logged and
///    handled as lenient handles it.
///  - ignore: tables are created, never changed; columns they lack are left
///    out of the rows; truncations are ignored.
///  - exception: any change but a new table stops the run.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/cdc/mysql/capture.h"
#include "floe/engine/operator.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/table_resolver.h"
#include "floe/pipeline/pipeline_definition.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::run {

class RunMetrics;

/// What CaptureSource reads: the change batches of a database, each ending
/// a transaction or not, and the state to resume after each that does.
class ChangeStream {
 public:
  using Sink = std::function<Status(cdc::ChangeBatch& batch)>;
  virtual ~ChangeStream() = default;
  /// Streams until `stop` (Ok) or an error; `sink` may take the batch.
  virtual Status Run(const Sink& sink, const std::atomic<bool>& stop) = 0;
  /// Inside the sink, for a batch that ends a transaction: the state to
  /// resume exactly after it.
  virtual Result<cdc::mysql::CaptureStateText> StateParts() = 0;
  /// Every transaction up to `position` (a checkpoint's, whose Iceberg
  /// commits are all done) is in the lake. Called from the source's thread.
  virtual void Committed(const cdc::SourcePosition& position) { (void)position; }
  /// Where to report what only the stream knows (a PostgreSQL slot's WAL);
  /// called once, before Run (null: the source has no metrics).
  virtual void ReportTo(RunMetrics* metrics) { (void)metrics; }
};

struct CaptureSourceOptions {
  /// Connection, selected tables, startup mode, snapshot settings. Its
  /// `initial_state` and `boundary_batches` are set by the source.
  cdc::mysql::CaptureOptions capture;
  /// When set, the stream is opened with it (from a restored state's text,
  /// "" for none) instead of a MySqlCapture of `capture`.
  std::function<Result<std::unique_ptr<ChangeStream>>(const std::string& state)> open_stream;
  /// Destinations, creation and evolution of tables.
  ingest::TableResolverOptions tables;
  /// Write parallelism and distribution (RowBatcher); `catalog`.
  sink::SinkOptions sink;
  /// Change batches the capture thread may run ahead of the source.
  size_t queue_batches = 64;
  /// Poll returns at the first transaction boundary after this long.
  std::chrono::milliseconds max_poll_time{200};
  /// Rows per RowBatch.
  size_t batch_rows = 1024;
  /// `scan.startup.mode: snapshot`: the source ends (and the job with a final
  /// checkpoint and commit) once the initial snapshot is whole; restored from
  /// a checkpoint taken after it, it ends at once without connecting.
  bool stop_after_snapshot = false;
  /// `schema.change.behavior` (see above). Under exception a schema change
  /// of a table that exists (anything but creating a table) fails the run,
  /// naming the table, the change, the statement and its binlog position.
  pipeline::SchemaChangeBehavior schema_change_behavior = pipeline::SchemaChangeBehavior::kLenient;
  /// Whether source table (db, table) has its sink table to itself (evolve
  /// renames and drops only such sink tables). Null: every table does.
  std::function<bool(std::string_view db, std::string_view table)> owns_sink_table;
  /// The name of the column that holds each row's source table ("db.table")
  /// in its sink table, part of the key (a route's `source-table-column`);
  /// "" or null: none.
  std::function<std::string(std::string_view db, std::string_view table)> source_table_column;
  /// Tables that already hold more than the restored checkpoint (its newer
  /// checkpoint files were lost or damaged after they committed), by sink
  /// table ("ns.table"): the binlog position their last commit covers. A
  /// change of such a table before that position is already in it and is
  /// skipped.
  std::map<std::string, cdc::BinlogFilePos> committed_until;
  /// Where the source keeps a copy of its state in the lake (a folder of the
  /// sink's warehouse; LakeStateDir), so that a run whose state folder was
  /// lost resumes from the lake (docs/pipeline.md). Written for a checkpoint
  /// once every committer has committed it, at most every
  /// `lake_state_interval`. Empty: no copy.
  std::string lake_state_dir;
  std::chrono::milliseconds lake_state_interval{10'000};
  /// When it becomes true during the initial snapshot, Poll fails with
  /// kCancelled (nothing of the snapshot is committed); may be null.
  const std::atomic<bool>* stop = nullptr;
  /// Where the source reports what it hands on (run_metrics.h): counted per
  /// sink table and op without a lock, published at most every
  /// max_poll_time and at each checkpoint. May be null; outlives the source.
  RunMetrics* metrics = nullptr;
};

class CaptureSource final : public engine::SourceOperator<sink::RowBatch> {
 public:
  /// `positions` is shared with the committers (the binlog position goes
  /// into every snapshot summary); `stats` (may be null) outlives the source.
  CaptureSource(CaptureSourceOptions options, std::shared_ptr<sink::CheckpointPositions> positions,
                ingest::IngestStats* stats);
  ~CaptureSource() override;

  /// Opens the catalog and the capture (from the restored state, if any) and
  /// starts the capture thread. Errors: those of MySqlCapture::Open (server
  /// unreachable, wrong credentials, binlog settings), a corrupt state.
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Hands on the changes available, up to a transaction boundary. Errors:
  /// the capture's (it stopped), a change that cannot be written (a schema
  /// change Iceberg cannot express, a row that does not fit its table).
  Result<bool> Poll(engine::Collector<sink::RowBatch>& out) override;
  Result<std::string> SnapshotState(engine::CheckpointId id) override;
  /// Tells `options.metrics` (if any) that checkpoint `id` completed.
  Status NotifyCheckpointComplete(engine::CheckpointId id) override;
  void Close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The folder `leaf` of pipeline `pipeline_id`'s own files in the lake:
/// beside the tables, under where the catalog would put table
/// `_floe.<pipeline_id>` (nothing there is a table). Empty when the catalog
/// has no warehouse.
std::string LakePipelineDir(iceberg::Catalog& catalog, const std::string& pipeline_id,
                            std::string_view leaf);

/// The folder of the lake copy of pipeline `pipeline_id`'s source state:
/// LakePipelineDir's "source-state".
std::string LakeStateDir(iceberg::Catalog& catalog, const std::string& pipeline_id);

/// "FILE:POS" of a capture state (with " gtids SET" when it has GTIDs); for
/// a PostgreSQL LSN "lsn:N (X/Y)", N the LSN as an integer and X/Y its text
/// form: the `floe.source-position` of the commits of that checkpoint.
std::string DescribeCapturePosition(const cdc::SourcePosition& position);

}  // namespace floe::run
