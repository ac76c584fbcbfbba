#include "floe/run/capture_source.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/cdc/postgres/change_stream.h"
#include "floe/common/json_dump.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/snapshot_summary.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/update/update_operations.h"
#include "floe/ingest/row_change_writer.h"
#include "floe/run/run_metrics.h"
#include "floe/sink/router.h"

namespace floe::run {

std::string DescribeCapturePosition(const cdc::SourcePosition& position) {
  if (auto lsn = cdc::postgres::LsnOfPosition(position.binlog)) {
    return fmt::format("{} ({})", position.binlog.ToString(), lsn->ToString());
  }
  std::string text = position.binlog.ToString();
  std::string gtids = position.gtids.ToString();
  if (!gtids.empty()) text += " gtids " + gtids;
  return text;
}

std::string LakePipelineDir(iceberg::Catalog& catalog, const std::string& pipeline_id,
                            std::string_view leaf) {
  iceberg::TableIdentifier id;
  id.ns = {"_floe"};
  id.name = pipeline_id;
  std::string location = catalog.DefaultTableLocation(id);
  return location.empty() ? location : fmt::format("{}/{}", location, leaf);
}

std::string LakeStateDir(iceberg::Catalog& catalog, const std::string& pipeline_id) {
  return LakePipelineDir(catalog, pipeline_id, "source-state");
}

namespace {

std::optional<cdc::BinlogFilePos> AppliedPosition(const iceberg::TableMetadata& metadata) {
  auto it =
      metadata.properties.find(std::string(iceberg::table_properties::kFloeSchemaChangePosition));
  if (it == metadata.properties.end()) return std::nullopt;
  auto parsed = cdc::BinlogFilePos::Parse(it->second);
  if (!parsed) return std::nullopt;
  return *parsed;
}

/// -1, 0, 1: the table's applied schema change is before, at or after
/// `change` (-1 too when it records none, or the change has no position).
int CompareApplied(const iceberg::TableMetadata& metadata, const cdc::SchemaChange& change) {
  auto applied = AppliedPosition(metadata);
  if (!applied || !change.source) return -1;
  int c = cdc::Compare(*applied, change.source->position.binlog);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

/// A MySqlCapture as CaptureSource's change stream.
class MySqlChangeStream final : public ChangeStream {
 public:
  explicit MySqlChangeStream(std::unique_ptr<cdc::mysql::MySqlCapture> capture)
      : capture_(std::move(capture)) {}
  Status Run(const Sink& sink, const std::atomic<bool>& stop) override {
    return capture_->Run(sink, stop);
  }
  Result<cdc::mysql::CaptureStateText> StateParts() override { return capture_->StateParts(); }

 private:
  std::unique_ptr<cdc::mysql::MySqlCapture> capture_;
};

/// One batch of the capture, and the capture's state after it when it ends
/// a transaction.
struct Item {
  cdc::ChangeBatch batch;
  cdc::mysql::CaptureStateText state;
};

/// The checkpoint state of the source.
struct SourceState {
  /// MySqlCapture::StateParts() after the last transaction handed on (its
  /// text is made only when a checkpoint is written).
  cdc::mysql::CaptureStateText capture;
  cdc::SourcePosition position;
  int64_t changes = 0;
  int64_t rows = 0;
};

std::string SerializeState(const SourceState& s) {
  nlohmann::json j;
  j["version"] = 1;
  j["capture"] = s.capture.Text();
  j["position"] = s.position.ToJson();
  j["counts"] = {{"changes", s.changes}, {"rows", s.rows}};
  return DumpJson(j);
}

Result<SourceState> ParseState(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("version", 0) != 1 || !j.contains("capture") ||
      !j["capture"].is_string() || !j.contains("position")) {
    return Corruption("capture source state: not a floe run source state");
  }
  SourceState s;
  s.capture = cdc::mysql::CaptureStateText{j["capture"].get<std::string>(), nullptr};
  FLOE_ASSIGN_OR_RETURN(s.position, cdc::SourcePosition::FromJson(j["position"]));
  if (auto c = j.find("counts"); c != j.end() && c->is_object()) {
    auto count = [&](const char* name) {
      auto it = c->find(name);
      return it != c->end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{0};
    };
    s.changes = count("changes");
    s.rows = count("rows");
  }
  return s;
}

}  // namespace

struct CaptureSource::Impl {
  CaptureSourceOptions options;
  std::shared_ptr<sink::CheckpointPositions> positions;
  ingest::IngestStats own_stats;
  ingest::IngestStats* stats;
  int subtask = 0;
  std::string name;  ///< the operator's name (the key of its state in a checkpoint)

  std::unique_ptr<ChangeStream> capture;
  /// The position of each checkpoint taken (and of the restored one) until
  /// its commits are all done; then the stream is told (ChangeStream::Committed).
  std::map<engine::CheckpointId, cdc::SourcePosition> taken;

  void ReportCommitted() {
    if (!capture || taken.empty()) return;
    auto end = taken.upper_bound(CommittedThrough());
    if (end == taken.begin()) return;
    capture->Committed(std::prev(end)->second);
    taken.erase(taken.begin(), end);
  }
  std::unique_ptr<ingest::TableResolver> resolver;
  std::unique_ptr<sink::RowBatcher> batcher;
  std::unique_ptr<ingest::RowChangeWriter> changes;

  // The capture thread and the queue between it and Poll.
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Item> queue;
  bool capture_done = false;
  Status capture_status = Ok();
  std::atomic<bool> closing{false};

  // Poll's side.
  SourceState state;            ///< after the last transaction handed on
  bool in_transaction = false;  ///< a batch without a boundary was handed on
  bool ended = false;           ///< stop_after_snapshot: the snapshot is whole
  const cdc::TableDefinition* last_definition = nullptr;
  std::shared_ptr<const types::Schema> last_row_schema;

  // The batch being handed on, and the index of its next event: a schema
  // change that must follow committed rows (evolve) holds it there.
  std::optional<Item> current;
  size_t current_next = 0;
  std::shared_ptr<iceberg::Catalog> catalog;
  std::function<void()> request_checkpoint;
  bool dirty = false;                    ///< rows handed on since the last SnapshotState
  engine::CheckpointId uncommitted = 0;  ///< the last SnapshotState that covered rows
  engine::CheckpointId completed = 0;    ///< the last checkpoint completed
  bool commit_requested = false;         ///< a checkpoint was asked for the held change
  std::vector<ingest::ColumnRename> statement_renames;  ///< of the statement being mirrored
  /// evolve: the columns of the statement so far added with a value MySQL
  /// gave the existing rows unlogged (UnloggedDefault); refused.
  std::vector<std::string> statement_defaults;

  // The lake copy of the state (CaptureSourceOptions::lake_state_dir).
  std::unique_ptr<engine::CheckpointStore> lake_store;
  engine::CheckpointId lake_candidate = 0;  ///< the newest checkpoint taken, and its state
  std::string lake_candidate_state;
  engine::CheckpointId lake_written = 0;
  std::chrono::steady_clock::time_point next_lake_write{};

  /// Writes the newest checkpoint whose commits are all done to the lake,
  /// when it is time.
  Status MaybeCopyStateToLake() {
    if (!lake_store || lake_candidate <= lake_written || lake_candidate > CommittedThrough()) {
      return Ok();
    }
    auto now = std::chrono::steady_clock::now();
    if (now < next_lake_write) return Ok();
    engine::CompletedCheckpoint copy;
    copy.id = lake_candidate;
    copy.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    copy.states[fmt::format("{}/{}", name, subtask)] = lake_candidate_state;
    if (Status saved = lake_store->Save(copy); !saved) {
      return std::unexpected(std::move(saved).error().WithContext(
          fmt::format("copying the source state of checkpoint {} to the lake", copy.id)));
    }
    lake_written = lake_candidate;
    next_lake_write = now + options.lake_state_interval;
    return Ok();
  }

  using Behavior = pipeline::SchemaChangeBehavior;
  bool Mirrors() const {
    return options.schema_change_behavior == Behavior::kEvolve ||
           options.schema_change_behavior == Behavior::kTryEvolve;
  }

  Impl(CaptureSourceOptions o, std::shared_ptr<sink::CheckpointPositions> p, ingest::IngestStats* s)
      : options(std::move(o)), positions(std::move(p)), stats(s != nullptr ? s : &own_stats) {}

  /// The capture thread's sink: queues the batch (with the state after it
  /// when it ends a transaction), waiting while the queue is full.
  Status Enqueue(cdc::ChangeBatch& batch) {
    Item item;
    if (batch.ends_transaction) {
      FLOE_ASSIGN_OR_RETURN(item.state, capture->StateParts());
    }
    item.batch = std::move(batch);
    batch = cdc::ChangeBatch();  // the capture reuses its batch
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return closing.load() || queue.size() < options.queue_batches; });
    if (closing.load()) return Cancelled("the pipeline is stopping");
    queue.push_back(std::move(item));
    cv.notify_all();
    return Ok();
  }

  /// A source table whose route adds a column naming it: its rows' schema
  /// (the table's, then that column, in the key) and the column's value.
  struct WithSourceColumn {
    cdc::TableDefinitionPtr definition;  ///< keeps the key pointer valid
    std::shared_ptr<const types::Schema> schema;
    std::string source;  ///< "db.table", the value
  };
  std::unordered_map<const cdc::TableDefinition*, WithSourceColumn> with_source_column;
  const WithSourceColumn* last_with_source = nullptr;
  std::vector<types::Value> before_buffer, after_buffer;
  /// Tables without a primary key, told about once.
  std::set<std::string> keyless_told;

  /// The row schema of a definition, kept while consecutive rows share it.
  const std::shared_ptr<const types::Schema>& RowSchemaOf(const cdc::TableDefinitionPtr& def) {
    if (def.get() != last_definition) {
      last_definition = def.get();
      last_with_source = nullptr;
      last_row_schema = std::shared_ptr<const types::Schema>(def, &def->schema);
      std::vector<std::string> key = def->primary_key;
      std::string column =
          options.source_table_column ? options.source_table_column(def->id.db, def->id.table) : "";
      if (!column.empty()) {
        auto [it, fresh] = with_source_column.try_emplace(def.get());
        if (fresh) {
          it->second.definition = def;
          it->second.source = def->id.ToString();
          std::vector<types::NestedField> fields = def->schema.fields();
          int32_t id = def->schema.highest_field_id() + 1;
          fields.push_back(types::NestedField{id, column, true, types::Type::String(), ""});
          std::vector<int32_t> identifiers = def->schema.identifier_field_ids();
          if (!identifiers.empty()) identifiers.push_back(id);
          it->second.schema =
              std::make_shared<const types::Schema>(std::move(fields), 0, std::move(identifiers));
        }
        last_with_source = &it->second;
        last_row_schema = it->second.schema;
        if (!key.empty()) key.push_back(column);
      }
      if (!key.empty()) {
        resolver->NotePrimaryKey(def->id.db, def->id.table, key);
      } else if (keyless_told.insert(def->id.ToString()).second) {
        spdlog::warn(
            "table {} has no primary key: its inserts are mirrored, but its first UPDATE or "
            "DELETE stops the run (a row without a key cannot be found in the lake); give it a "
            "primary key, or leave it out with tables.exclude",
            def->id.ToString());
      }
    }
    return last_row_schema;
  }

  /// `row` with the source-table value appended (into `buffer`), when the
  /// last RowSchemaOf added that column; else `row`.
  types::Row WithSourceValue(types::Row row, std::vector<types::Value>& buffer) const {
    if (last_with_source == nullptr || row.empty()) return row;
    buffer.assign(row.begin(), row.end());
    buffer.push_back(types::Value::Bytes(last_with_source->source));
    return types::Row(buffer.data(), buffer.size());
  }

  static Error AtChange(Error error, const cdc::TableId& table,
                        const std::shared_ptr<const cdc::ChangeSource>& source) {
    std::string where = table.ToString();
    if (source) where += " at " + source->position.binlog.ToString();
    return std::move(error).WithContext(where);
  }

  /// Whether a change of source table (db, table) at `source` is already in
  /// its sink table (the table is ahead of the restored checkpoint, or was
  /// renamed from it after the change): then it is skipped — before the
  /// table is resolved, so that no table is made again for it.
  bool AlreadyCommitted(std::string_view db, std::string_view table,
                        const std::shared_ptr<const cdc::ChangeSource>& source) {
    if (options.committed_until.empty() || !source) return false;
    auto routed = resolver->RouteOf(db, table);
    if (!routed) return false;  // resolving it reports the error
    auto it = options.committed_until.find(routed->ToString());
    if (it == options.committed_until.end()) return false;
    if (cdc::Compare(source->position.binlog, it->second) >= 0) {
      options.committed_until.erase(it);  // past it: from here on, as usual
      return false;
    }
    stats->already_committed.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  /// Forgets the positions the stream has passed (binlog positions grow).
  void PruneCommittedUntil(const cdc::BinlogFilePos& passed) {
    for (auto it = options.committed_until.begin(); it != options.committed_until.end();) {
      it =
          cdc::Compare(it->second, passed) <= 0 ? options.committed_until.erase(it) : std::next(it);
    }
  }

  Status WriteRow(const cdc::RowChange& change, engine::Collector<sink::RowBatch>& out) {
    const auto& row_schema = RowSchemaOf(change.table);
    const cdc::TableId& id = change.table->id;
    bool event_error = false;
    if (AlreadyCommitted(id.db, id.table, change.source)) return Ok();
    auto resolved = resolver->Resolve(id.db, id.table, row_schema, &event_error);
    if (!resolved) return std::unexpected(AtChange(std::move(resolved).error(), id, change.source));
    auto mapping = resolver->MappingFor(*resolved, row_schema, &event_error);
    if (!mapping) return std::unexpected(AtChange(std::move(mapping).error(), id, change.source));
    auto rows = changes->Write(**mapping, change.op, WithSourceValue(change.before, before_buffer),
                               WithSourceValue(change.after, after_buffer), out, &event_error);
    if (!rows) return std::unexpected(AtChange(std::move(rows).error(), id, change.source));
    if (*rows > 0) dirty = true;
    state.rows += *rows;
    stats->rows_emitted.fetch_add(*rows, std::memory_order_relaxed);
    if (options.metrics != nullptr)
      CountForMetrics(ingest::TableResolver::TargetOf(*resolved), change);
    return Ok();
  }

  // What the source hands on, for RunMetrics: counted here on the source's
  // thread, published at most every max_poll_time (and at checkpoints).
  TableTallies tallies;
  sink::TableTargetPtr tally_target;  ///< the table of `*tally`
  TableTally* tally = nullptr;
  int64_t published_changes = 0;
  int64_t last_change_ts_ms = 0;
  bool snapshot_running = false;
  std::chrono::steady_clock::time_point next_publish{};

  void CountForMetrics(const sink::TableTargetPtr& target, const cdc::RowChange& change) {
    if (target != tally_target) {
      tally_target = target;
      tally = &tallies[target->key];
    }
    int64_t ts_ms = change.source ? change.source->ts_ms : 0;
    if (ts_ms == 0 && change.op == cdc::ChangeOp::kRead) {  // a snapshot row: when it was read
      ts_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    }
    tally->Count(change.op, ts_ms);
    if (ts_ms > 0) last_change_ts_ms = ts_ms;
  }

  void PublishMetrics(bool now) {
    auto time = std::chrono::steady_clock::now();
    if (options.metrics == nullptr || (!now && time < next_publish)) return;
    next_publish = time + options.max_poll_time;
    options.metrics->PublishHandedOn(
        tallies, state.changes - published_changes,
        state.position.binlog.empty() ? std::string() : DescribeCapturePosition(state.position),
        last_change_ts_ms);
    tallies.clear();
    tally_target.reset();
    published_changes = state.changes;
    if (snapshot_running && !state.capture.empty()) {  // past the snapshot's one boundary
      snapshot_running = false;
      options.metrics->SetSnapshotRunning(false);
    }
  }

  /// Whether a table may hold rows: its current snapshot's total-records
  /// (data rows, deleted ones included) is not 0.
  static bool HoldsRows(const iceberg::TableMetadata& metadata) {
    const iceberg::Snapshot* current = metadata.CurrentSnapshot();
    if (current == nullptr) return false;
    auto total = current->SummaryValue(iceberg::summary::kTotalRecords);
    return !total || *total != "0";
  }

  /// An added column whose value in the rows that existed is not NULL (a
  /// DEFAULT, or NOT NULL and the type's implicit default): MySQL fills
  /// those rows without logging them, and Iceberg v2 has no initial
  /// default, so the lake's older rows would read NULL there. Returns
  /// "column C was added with DEFAULT V" for such a change, else "".
  static std::string UnloggedDefault(const cdc::SchemaChange& change) {
    if (change.kind != cdc::SchemaChangeKind::kAddColumn || !change.table_after) return "";
    for (const cdc::SourceColumn& c : change.table_after->columns) {
      if (c.name != change.column) continue;
      const bool has_default = c.default_value && *c.default_value != "NULL";
      if (!has_default && c.nullable) return "";
      return fmt::format("column {} was added with {}", c.name,
                         has_default ? fmt::format("DEFAULT {}", *c.default_value)
                                     : std::string("NOT NULL (its type's implicit default)"));
    }
    return "";
  }

  Status ApplySchemaChange(const cdc::SchemaChange& change,
                           engine::Collector<sink::RowBatch>& out) {
    using Kind = cdc::SchemaChangeKind;
    if (std::string what = UnloggedDefault(change); !what.empty()) {
      if (options.schema_change_behavior == Behavior::kEvolve && OwnsSinkTable(change.table)) {
        statement_defaults.push_back(std::move(what));  // refused in MirrorColumns
      } else if (options.schema_change_behavior != Behavior::kIgnore) {
        spdlog::warn(
            "table {}: {}; MySQL gave the rows that existed then that value without logging "
            "them, so in the lake those rows have NULL in it (Iceberg v2 tables have no initial "
            "default); rows written after the change have the value",
            change.table.ToString(), what);
      }
    }
    switch (options.schema_change_behavior) {
      case Behavior::kException:
        if (change.kind != Kind::kCreateTable && change.kind != Kind::kAlterOther) {
          return std::unexpected(AtChange(
              Error(ErrorCode::kSchemaIncompatible,
                    fmt::format("schema.change.behavior is exception, and the source changed the "
                                "table: {} ({:.300})",
                                cdc::SchemaChangeKindName(change.kind), change.ddl)),
              change.table, change.source));
        }
        return LenientChange(change, out);
      case Behavior::kIgnore:
        if (change.kind != Kind::kCreateTable) return Ok();
        return LenientChange(change, out);
      case Behavior::kEvolve:
      case Behavior::kTryEvolve:
        return MirrorChange(change, out);
      case Behavior::kLenient:
        break;
    }
    return LenientChange(change, out);
  }

  /// Whether a change must wait until the rows handed on before it are
  /// committed (evolve): every column change (after it a row of the old
  /// schema may no longer map by name onto the table, and the position it
  /// records says the rows before it are in the table) and every rename or
  /// drop of a table.
  static bool NeedsCommittedRows(cdc::SchemaChangeKind kind) {
    using Kind = cdc::SchemaChangeKind;
    return kind == Kind::kAddColumn || kind == Kind::kDropColumn || kind == Kind::kRenameColumn ||
           kind == Kind::kModifyColumn || kind == Kind::kPrimaryKeyChange ||
           kind == Kind::kRenameTable || kind == Kind::kDropTable;
  }

  engine::CheckpointId CommittedThrough() const {
    return positions ? positions->CommittedThrough() : completed;
  }

  /// True while the batch starting with `change` must wait for the rows
  /// before it to be committed (one of its schema changes needs that: a
  /// statement may make several); asks for a checkpoint the first time.
  bool MustWait(const cdc::SchemaChange& change, const cdc::ChangeBatch& batch, size_t index) {
    if (!Mirrors()) return false;
    // Only at a transaction boundary can a checkpoint cover exactly the rows
    // before the change (a DDL is a transaction of its own).
    if (index > 0 || in_transaction) return false;
    bool needed = false;
    for (const auto& event : batch.events) {
      const auto* c = std::get_if<cdc::SchemaChange>(&event);
      if (c != nullptr && NeedsCommittedRows(c->kind)) needed = true;
    }
    if (!needed) return false;
    if (!dirty && uncommitted <= CommittedThrough()) {
      commit_requested = false;
      return false;
    }
    if (!commit_requested) {
      commit_requested = true;
      spdlog::info("run: {} of {} waits for the rows before it to be committed",
                   cdc::SchemaChangeKindName(change.kind), change.table.ToString());
      if (request_checkpoint) request_checkpoint();
    }
    return true;
  }

  /// evolve / try_evolve: the lake follows the change exactly (see the header).
  Status MirrorChange(const cdc::SchemaChange& change, engine::Collector<sink::RowBatch>& out) {
    using Kind = cdc::SchemaChangeKind;
    // A sink table shared by several source tables (sharded) cannot equal
    // each of them: it takes the union of their columns, as lenient does.
    if (change.kind != Kind::kRenameTable && change.kind != Kind::kDropTable &&
        !OwnsSinkTable(change.table)) {
      statement_renames.clear();
      return LenientChange(change, out);
    }
    switch (change.kind) {
      case Kind::kCreateTable:
        return MirrorColumns(change, out);
      case Kind::kAddColumn:
      case Kind::kDropColumn:
      case Kind::kRenameColumn:
      case Kind::kModifyColumn:
      case Kind::kPrimaryKeyChange:
        // One statement may make several changes (ALTER TABLE t DROP PRIMARY
        // KEY, ADD PRIMARY KEY (a, b)): the lake takes them at once, at the
        // last, so it never holds a state the source never had.
        if (!change.old_column.empty())
          statement_renames.push_back({change.old_column, change.column});
        if (MoreOfTheStatement(change)) return Ok();
        return MirrorColumns(change, out);
      case Kind::kRenameTable: {
        auto renamed = MirrorTableRename(change);
        if (!renamed)
          return std::unexpected(AtChange(std::move(renamed).error(), change.table, change.source));
        if (!*renamed) return LenientChange(change, out);
        return MirrorColumns(change, out);
      }
      case Kind::kDropTable: {
        auto dropped = MirrorTableDrop(change);
        if (!dropped)
          return std::unexpected(AtChange(std::move(dropped).error(), change.table, change.source));
        return Ok();
      }
      case Kind::kTruncateTable:
      case Kind::kAlterOther:
        return LenientChange(change, out);
    }
    return Ok();
  }

  /// Whether the event after the current one is another column change of
  /// the same table by the same statement.
  bool MoreOfTheStatement(const cdc::SchemaChange& change) const {
    using Kind = cdc::SchemaChangeKind;
    const auto& events = current->batch.events;
    if (current_next + 1 >= events.size()) return false;
    const auto* next = std::get_if<cdc::SchemaChange>(&events[current_next + 1]);
    if (next == nullptr || next->table != change.table || next->source != change.source)
      return false;
    return next->kind == Kind::kAddColumn || next->kind == Kind::kDropColumn ||
           next->kind == Kind::kRenameColumn || next->kind == Kind::kModifyColumn ||
           next->kind == Kind::kPrimaryKeyChange;
  }

  /// The table's Iceberg schema becomes the source's after `change` (with
  /// the columns renamed by the statement so far).
  Status MirrorColumns(const cdc::SchemaChange& change, engine::Collector<sink::RowBatch>& out) {
    std::vector<ingest::ColumnRename> renames = std::move(statement_renames);
    statement_renames.clear();
    std::vector<std::string> defaults = std::move(statement_defaults);
    statement_defaults.clear();
    if (!change.table_after) return Ok();
    bool event_error = false;
    const auto& row_schema = RowSchemaOf(change.table_after);
    if (AlreadyCommitted(change.table.db, change.table.table, change.source)) return Ok();
    auto resolved =
        resolver->Resolve(change.table.db, change.table.table, row_schema, &event_error);
    if (!resolved) {
      return std::unexpected(AtChange(std::move(resolved).error(), change.table, change.source));
    }
    // A replayed change (a restart from a checkpoint or lake copy before it)
    // that the table has, or a later one: the table stays as it is.
    if (CompareApplied(ingest::TableResolver::MetadataOf(*resolved), change) >= 0) return Ok();
    // Every row before the change is committed by now (NeedsCommittedRows):
    // a table that holds none has no row the default would be missing from.
    if (!defaults.empty() && HoldsRows(ingest::TableResolver::MetadataOf(*resolved))) {
      return std::unexpected(AtChange(
          Error(ErrorCode::kSchemaIncompatible,
                fmt::format(
                    "{}: MySQL gave the rows that existed then that value without logging them, "
                    "and an Iceberg v2 table has no initial default, so schema.change.behavior "
                    "evolve cannot mirror it (the lake's older rows would read NULL); nothing "
                    "was changed in the lake. Ways out: schema.change.behavior try_evolve (the "
                    "column is added and the older rows read NULL in it, with a warning), or "
                    "leave the table out with tables.exclude",
                    fmt::join(defaults, ", "))),
          change.table, change.source));
    }
    std::map<std::string, std::string> properties;
    if (change.source) {
      properties[std::string(iceberg::table_properties::kFloeSchemaChangePosition)] =
          change.source->position.binlog.ToString();
    }
    auto mirrored =
        resolver->MirrorSchema(*resolved, row_schema, renames, &event_error, properties);
    if (!mirrored) {
      if (options.schema_change_behavior == Behavior::kTryEvolve &&
          mirrored.error().code() == ErrorCode::kSchemaIncompatible) {
        spdlog::warn("run: {} at {}: {}; handled as lenient (schema.change.behavior try_evolve)",
                     change.table.ToString(),
                     change.source ? change.source->position.binlog.ToString() : "",
                     mirrored.error().message());
        return LenientChange(change, out);
      }
      return std::unexpected(AtChange(std::move(mirrored).error(), change.table, change.source));
    }
    const std::string sink_name = ingest::TableResolver::TargetOf(*resolved)->key;
    if (!mirrored->applied.empty()) {
      spdlog::info("run: table {}: {} ({:.200})", sink_name, mirrored->applied, change.ddl);
    }
    for (const auto& note : mirrored->notes) spdlog::warn("run: table {}: {}", sink_name, note);
    return Ok();
  }

  bool OwnsSinkTable(const cdc::TableId& table) const {
    return !options.owns_sink_table || options.owns_sink_table(table.db, table.table);
  }

  /// RENAME TABLE: the Iceberg table is renamed when both names have their
  /// sink tables to themselves and differ. False: not renamed (try_evolve,
  /// the new name exists): handle as lenient.
  Result<bool> MirrorTableRename(const cdc::SchemaChange& change) {
    FLOE_ASSIGN_OR_RETURN(auto from,
                          resolver->RouteOf(change.old_table.db, change.old_table.table));
    FLOE_ASSIGN_OR_RETURN(auto to, resolver->RouteOf(change.table.db, change.table.table));
    resolver->Forget(change.old_table.db, change.old_table.table);
    resolver->Forget(change.table.db, change.table.table);
    if (from == to || !OwnsSinkTable(change.old_table) || !OwnsSinkTable(change.table)) {
      return true;  // a shared sink table stays; the new name's rows go where its route says
    }
    auto old_table = catalog->LoadTable(from);
    auto new_table = catalog->LoadTable(to);
    if (!old_table && old_table.error().code() != ErrorCode::kNotFound) {
      return std::unexpected(old_table.error());
    }
    if (!new_table && new_table.error().code() != ErrorCode::kNotFound) {
      return std::unexpected(new_table.error());
    }
    if (new_table && CompareApplied(new_table->metadata, change) >= 0) {
      return true;  // renamed before: a replay
    }
    if (!old_table) return true;  // never created, or renamed and dropped since
    if (CompareApplied(old_table->metadata, change) > 0) {
      return true;  // a newer table of the old name (this rename happened before it)
    }
    if (new_table) {
      Error error(ErrorCode::kAlreadyExists,
                  fmt::format("cannot rename table {} to {}: the lake already has {}",
                              from.ToString(), to.ToString(), to.ToString()));
      if (options.schema_change_behavior == Behavior::kTryEvolve) {
        spdlog::warn("run: {}; handled as lenient (schema.change.behavior try_evolve)",
                     error.message());
        return false;
      }
      return std::unexpected(std::move(error));
    }
    FLOE_RETURN_IF_ERROR(resolver->EnsureNamespace(to.ns));
    if (change.source) {  // the position first: a crash before the rename repeats it
      iceberg::Table table(catalog.get(), std::move(*old_table));
      auto update = table.NewUpdateProperties();
      update->Set(std::string(iceberg::table_properties::kFloeSchemaChangePosition),
                  change.source->position.binlog.ToString());
      update->Set(std::string(iceberg::table_properties::kFloeRenamedFrom), from.ToString());
      FLOE_RETURN_IF_ERROR(update->Commit());
    }
    FLOE_RETURN_IF_ERROR(catalog->RenameTable(from, to));
    spdlog::info("run: table {} renamed to {} ({:.200})", from.ToString(), to.ToString(),
                 change.ddl);
    return true;
  }

  /// DROP TABLE: the Iceberg table is dropped with its files when the source
  /// table has it to itself. False: kept.
  Result<bool> MirrorTableDrop(const cdc::SchemaChange& change) {
    FLOE_ASSIGN_OR_RETURN(auto id, resolver->RouteOf(change.table.db, change.table.table));
    resolver->Forget(change.table.db, change.table.table);
    if (!OwnsSinkTable(change.table)) {
      spdlog::info("run: {} was dropped; its sink table {} is shared by a route and stays",
                   change.table.ToString(), id.ToString());
      return false;
    }
    auto table = catalog->LoadTable(id);
    if (!table) {
      if (table.error().code() == ErrorCode::kNotFound) return true;  // dropped before: a replay
      return std::unexpected(table.error());
    }
    if (CompareApplied(table->metadata, change) > 0) {
      return true;  // a newer table of that name (this drop happened before it was created)
    }
    Status dropped = catalog->DropTable(id, /*purge=*/true);
    if (!dropped && dropped.error().code() != ErrorCode::kNotFound) {
      return std::unexpected(dropped.error());
    }
    if (dropped) spdlog::info("run: table {} dropped ({:.200})", id.ToString(), change.ddl);
    return true;
  }

  /// lenient (and what exception, ignore and try_evolve fall back to).
  Status LenientChange(const cdc::SchemaChange& change, engine::Collector<sink::RowBatch>& out) {
    using Kind = cdc::SchemaChangeKind;
    bool event_error = false;
    switch (change.kind) {
      case Kind::kCreateTable:
      case Kind::kRenameTable:
      case Kind::kAddColumn:
      case Kind::kDropColumn:
      case Kind::kRenameColumn:
      case Kind::kModifyColumn:
      case Kind::kPrimaryKeyChange: {
        if (!change.table_after) return Ok();
        if (AlreadyCommitted(change.table.db, change.table.table, change.source)) return Ok();
        // The table and its schema change now, before any row under the new
        // definition (and even if none follows).
        const auto& row_schema = RowSchemaOf(change.table_after);
        auto resolved =
            resolver->Resolve(change.table.db, change.table.table, row_schema, &event_error);
        if (!resolved) {
          return std::unexpected(
              AtChange(std::move(resolved).error(), change.table, change.source));
        }
        auto mapping = resolver->MappingFor(*resolved, row_schema, &event_error);
        if (!mapping) {
          return std::unexpected(AtChange(std::move(mapping).error(), change.table, change.source));
        }
        return Ok();
      }
      case Kind::kTruncateTable: {
        if (AlreadyCommitted(change.table.db, change.table.table, change.source)) return Ok();
        if (!OwnsSinkTable(change.table)) {
          // Truncating the sink table would remove the other source tables'
          // rows too; removing this one's alone is not built.
          return std::unexpected(AtChange(
              Error(ErrorCode::kNotSupported,
                    "TRUNCATE TABLE of a table whose route shares its sink table with others: "
                    "truncating the sink table would remove their rows too. Route the table to "
                    "a sink table of its own (a sink-table with the replace-symbol), or "
                    "exclude it"),
              change.table, change.source));
        }
        auto resolved =
            resolver->Resolve(change.table.db, change.table.table, nullptr, &event_error);
        if (!resolved) {
          if (resolved.error().code() == ErrorCode::kNotFound) return Ok();  // nothing to truncate
          return std::unexpected(
              AtChange(std::move(resolved).error(), change.table, change.source));
        }
        FLOE_RETURN_IF_ERROR(batcher->Truncate(ingest::TableResolver::TargetOf(*resolved), out));
        dirty = true;
        stats->truncates.fetch_add(1, std::memory_order_relaxed);
        return Ok();
      }
      case Kind::kDropTable:
      case Kind::kAlterOther:
        return Ok();  // the Iceberg table stays as it is
    }
    return Ok();
  }

  /// Hands on the events of `current` from `current_next`. False: stopped
  /// before a schema change that waits for committed rows (MustWait).
  Result<bool> HandOn(engine::Collector<sink::RowBatch>& out) {
    Item& item = *current;
    for (; current_next < item.batch.events.size(); ++current_next) {
      const cdc::ChangeEvent& event = item.batch.events[current_next];
      if (const auto* row = std::get_if<cdc::RowChange>(&event)) {
        FLOE_RETURN_IF_ERROR(WriteRow(*row, out));
      } else {
        const auto& change = std::get<cdc::SchemaChange>(event);
        if (MustWait(change, item.batch, current_next)) return false;
        FLOE_RETURN_IF_ERROR(ApplySchemaChange(change, out));
      }
      ++state.changes;
      stats->events_read.fetch_add(1, std::memory_order_relaxed);
    }
    if (item.batch.ends_transaction) {
      state.capture = std::move(item.state);
      state.position = item.batch.resume;
      if (!options.committed_until.empty()) PruneCommittedUntil(state.position.binlog);
      in_transaction = false;
      // The first boundary of a fresh capture is the end of its snapshot.
      if (options.stop_after_snapshot) ended = true;
    } else {
      in_transaction = true;
    }
    current.reset();
    current_next = 0;
    return true;
  }

  /// Waits until `deadline` (or for ever inside a transaction) for a batch.
  /// nullopt: none came in time. Errors: the capture stopped.
  Result<std::optional<Item>> Next(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu);
    while (queue.empty()) {
      if (capture_done) {
        if (!capture_status) return std::unexpected(capture_status.error());
        return InternalError("the capture ended without an error before the pipeline stopped");
      }
      if (in_transaction && options.stop != nullptr && options.stop->load()) {
        return Cancelled(
            "stopped inside the initial snapshot (or a transaction): nothing of it was committed; "
            "the next run starts it again");
      }
      if (in_transaction) {
        cv.wait_for(lock, std::chrono::milliseconds(100));
      } else if (cv.wait_until(lock, deadline) == std::cv_status::timeout && queue.empty()) {
        return std::optional<Item>();
      }
    }
    Item item = std::move(queue.front());
    queue.pop_front();
    cv.notify_all();
    return std::optional<Item>(std::move(item));
  }
};

CaptureSource::CaptureSource(CaptureSourceOptions options,
                             std::shared_ptr<sink::CheckpointPositions> positions,
                             ingest::IngestStats* stats)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(positions), stats)) {}

CaptureSource::~CaptureSource() { Close(); }

Status CaptureSource::Open(const engine::OperatorContext& context,
                           const engine::RestoredState& restored) {
  Impl& s = *impl_;
  s.subtask = context.subtask;
  s.name = context.name;
  FLOE_RETURN_IF_ERROR(ingest::ValidateTableResolverOptions(s.options.tables));
  s.request_checkpoint = context.request_checkpoint;
  FLOE_ASSIGN_OR_RETURN(s.catalog, s.options.sink.catalog());
  ingest::TableResolverOptions tables = s.options.tables;
  tables.evolve_schemas = s.options.schema_change_behavior != Impl::Behavior::kIgnore;
  s.resolver = std::make_unique<ingest::TableResolver>(std::move(tables), s.catalog, s.stats);
  if (!s.options.lake_state_dir.empty()) {
    s.lake_store =
        std::make_unique<engine::CheckpointStore>(&s.catalog->file_io(), s.options.lake_state_dir);
  }
  s.batcher = std::make_unique<sink::RowBatcher>(s.options.sink, s.options.batch_rows);
  s.changes = std::make_unique<ingest::RowChangeWriter>(s.batcher.get());

  cdc::mysql::CaptureOptions capture_options = s.options.capture;
  capture_options.boundary_batches = true;
  capture_options.state_file.clear();
  // A schema change that waits for committed rows waits for the committers
  // to finish recovering the restored checkpoint too.
  s.uncommitted = restored.checkpoint_id;
  if (restored.own && !restored.own->empty()) {
    FLOE_ASSIGN_OR_RETURN(s.state, ParseState(*restored.own));
    capture_options.initial_state = s.state.capture.Text();
    if (!s.state.capture.empty()) {
      spdlog::info("run: resuming the capture at {} from checkpoint {}",
                   DescribeCapturePosition(s.state.position), restored.checkpoint_id);
    }
  }
  if (!s.state.position.binlog.empty()) s.taken[restored.checkpoint_id] = s.state.position;
  s.published_changes = s.state.changes;
  s.snapshot_running = s.options.metrics != nullptr && s.state.capture.empty() &&
                       !s.options.open_stream &&
                       capture_options.startup == cdc::mysql::StartupMode::kInitial;
  if (s.snapshot_running) s.options.metrics->SetSnapshotRunning(true);
  if (s.options.stop_after_snapshot && !s.state.capture.empty()) {
    spdlog::info("run: the snapshot was committed by checkpoint {}; nothing more to read",
                 restored.checkpoint_id);
    s.ended = true;
    return Ok();
  }
  if (s.options.open_stream) {
    FLOE_ASSIGN_OR_RETURN(s.capture, s.options.open_stream(capture_options.initial_state));
    s.capture->ReportTo(s.options.metrics);
  } else {
    FLOE_ASSIGN_OR_RETURN(auto mysql, cdc::mysql::MySqlCapture::Open(std::move(capture_options)));
    s.capture = std::make_unique<MySqlChangeStream>(std::move(mysql));
  }
  s.thread = std::thread([&s] {
    Status status =
        s.capture->Run([&s](cdc::ChangeBatch& batch) { return s.Enqueue(batch); }, s.closing);
    std::lock_guard lock(s.mu);
    s.capture_done = true;
    s.capture_status = std::move(status);
    s.cv.notify_all();
  });
  return Ok();
}

Result<bool> CaptureSource::Poll(engine::Collector<sink::RowBatch>& out) {
  Impl& s = *impl_;
  auto deadline = std::chrono::steady_clock::now() + s.options.max_poll_time;
  while (!s.ended) {
    if (!s.current) {
      FLOE_ASSIGN_OR_RETURN(s.current, s.Next(deadline));
      if (!s.current) break;
    }
    FLOE_ASSIGN_OR_RETURN(bool whole, s.HandOn(out));
    s.PublishMetrics(false);
    if (!whole) {
      // Waiting for a commit: return so the checkpoint can pass, without spinning.
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      break;
    }
    if (!s.in_transaction && std::chrono::steady_clock::now() >= deadline) break;
  }
  FLOE_RETURN_IF_ERROR(s.batcher->Flush(out));
  s.PublishMetrics(false);
  FLOE_RETURN_IF_ERROR(s.MaybeCopyStateToLake());
  s.ReportCommitted();
  return !s.ended;
}

Result<std::string> CaptureSource::SnapshotState(engine::CheckpointId id) {
  Impl& s = *impl_;
  s.batcher->CheckpointBoundary();
  if (s.dirty) {
    s.uncommitted = id;
    s.dirty = false;
  }
  if (s.positions) s.positions->Put(id, s.subtask, DescribeCapturePosition(s.state.position));
  if (!s.state.position.binlog.empty()) s.taken[id] = s.state.position;
  if (s.options.metrics != nullptr) {
    s.PublishMetrics(true);
    s.options.metrics->CheckpointTaken(id);
  }
  std::string state = SerializeState(s.state);
  if (s.lake_store && !s.state.capture.empty()) {  // not before the snapshot is whole
    s.lake_candidate = id;
    s.lake_candidate_state = state;
  }
  return state;
}

Status CaptureSource::NotifyCheckpointComplete(engine::CheckpointId id) {
  impl_->completed = std::max(impl_->completed, id);
  if (impl_->options.metrics != nullptr) impl_->options.metrics->CheckpointCompleted(id);
  impl_->ReportCommitted();
  return Ok();
}

void CaptureSource::Close() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mu);
    s.closing.store(true);
    s.cv.notify_all();
  }
  if (s.thread.joinable()) s.thread.join();
}

}  // namespace floe::run
