#include "floe/run/iceberg_tables_source.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/common/arena.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/ingest/row_change_writer.h"
#include "floe/ingest/schema_mirror.h"
#include "floe/run/lake_state_copy.h"
#include "floe/run/run_metrics.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/router.h"
#include "floe/source/changelog.h"
#include "floe/source/split_enumerator.h"
#include "floe/types/row_json.h"

namespace floe::run {

namespace {

/// 2: a table's state is {"read": the monitor's, "done": rows of its read
/// splits}; 1: the monitor's state alone (read, with no position).
constexpr int kStateVersion = 2;

/// `result`, its error prefixed with the source table.
template <typename T>
Result<T> ForTable(Result<T> result, std::string_view table) {
  if (!result) {
    return std::unexpected(
        std::move(result).error().WithContext(fmt::format("source table {}", table)));
  }
  return result;
}

/// One followed source table: its monitor and the split being read.
struct Followed {
  iceberg::TableIdentifier id;
  std::string name;  ///< "ns.table"
  std::string ns;    ///< the namespace as text: the "db" of routes and selectors
  std::shared_ptr<source::SplitEnumerator> enumerator;
  bool finished = false;  ///< the plan has an end and every split of it is read

  std::optional<source::SplitAssignment> current;  ///< position: rows (changes) handed on
  int64_t to_skip = 0;                             ///< handed on before a restore
  /// What the read began with (nullopt: a state of floe 1's format): with
  /// `done`, the table's position in the lake.
  std::optional<source::PlanOrigin> origin;
  int64_t done = 0;  ///< rows (changes) of the splits read since the origin
  /// Rows (changes) since the origin that its sink table holds: skipped.
  int64_t committed_until = 0;
  /// evolve: the source schema its sink table was last made equal to.
  std::optional<int32_t> mirrored_schema_id;
  bool dirty = false;                    ///< rows handed on since the last SnapshotState
  engine::CheckpointId uncommitted = 0;  ///< the last SnapshotState that covered its rows
  size_t task_index = 0;
  std::unique_ptr<iceberg::DataReader> reader;
  std::shared_ptr<const types::Schema> schema;  ///< of the current split's snapshot
  std::vector<source::RowChangeLine> changes;   ///< a changelog split's, once computed
  size_t next_change = 0;
  bool changes_computed = false;
  int64_t snapshot_ts_ms = 0;  ///< commit time of the current split's snapshot
  /// Parsers of changelog rows, by schema id.
  std::map<int32_t, std::unique_ptr<types::JsonRowParser>> parsers;
};

/// The table's position: rows (changes) handed on since its origin.
int64_t HandedOn(const Followed& t) {
  return t.done + (t.current ? t.current->position + t.to_skip : 0);
}

}  // namespace

std::string IcebergPositionText(const std::map<std::string, SourceTablePosition>& positions) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [table, p] : positions) {
    const nlohmann::json snapshot =
        p.origin.snapshot ? nlohmann::json(*p.origin.snapshot) : nlohmann::json(nullptr);
    j[table] = {{p.origin.whole ? "whole" : "after", snapshot}, {"rows", p.handed_on}};
  }
  return j.dump();
}

Result<std::map<std::string, SourceTablePosition>> ParseIcebergPositionText(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Corruption("source position '{}' is not a JSON object", text);
  std::map<std::string, SourceTablePosition> positions;
  for (const auto& [table, p] : j.items()) {
    SourceTablePosition& position = positions[table];
    position.origin.whole = p.is_object() && p.contains("whole");
    const char* key = position.origin.whole ? "whole" : "after";
    if (!p.is_object() || !p.contains(key) || !p.contains("rows") ||
        !p["rows"].is_number_integer() || !(p[key].is_null() || p[key].is_number_integer())) {
      return Corruption("source position of {}: not {{\"whole\"|\"after\": snapshot, \"rows\": N}}",
                        table);
    }
    if (!p[key].is_null()) position.origin.snapshot = p[key].get<int64_t>();
    position.handed_on = p["rows"].get<int64_t>();
  }
  return positions;
}

Result<std::vector<SelectedTable>> SelectSourceTables(iceberg::Catalog& catalog,
                                                      const IcebergTablesSourceOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto all, sink::ListTablesTwoLevelsDeep(catalog));
  std::vector<SelectedTable> selected;
  for (const auto& id : all) {
    const std::string ns = iceberg::NamespaceToString(id.ns);
    if (!options.selector(ns, id.name)) continue;
    FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier to, options.tables.route_function(ns, id.name));
    selected.push_back({id, std::move(to)});
  }
  if (!options.same_catalog) return selected;
  // Tables that other selected tables are copied into: the pipeline's own
  // destinations, never its source.
  std::set<std::string> destinations;
  for (const SelectedTable& t : selected) {
    if (t.sink.ToString() != t.source.ToString()) destinations.insert(t.sink.ToString());
  }
  std::erase_if(selected,
                [&](const SelectedTable& t) { return destinations.contains(t.source.ToString()); });
  for (const SelectedTable& t : selected) {
    if (t.sink.ToString() == t.source.ToString()) {
      return InvalidArgument(
          "table {} would be read and written by the pipeline (the source and the sink are one "
          "catalog, and its route leads onto itself): route it to another table",
          t.source.ToString());
    }
  }
  return selected;
}

struct IcebergTablesSource::Impl {
  IcebergTablesSourceOptions options;
  std::shared_ptr<sink::CheckpointPositions> positions;
  ingest::IngestStats* stats = nullptr;
  ingest::IngestStats own_stats;
  std::unique_ptr<LakeStateCopy> lake_copy;

  std::shared_ptr<iceberg::Catalog> source_catalog;
  std::shared_ptr<iceberg::Catalog> sink_catalog;
  std::unique_ptr<ingest::TableResolver> resolver;
  std::unique_ptr<sink::RowBatcher> batcher;
  std::unique_ptr<ingest::RowChangeWriter> writer;

  std::map<std::string, Followed> tables;  ///< by "ns.table"
  std::string next_table;                  ///< where the next Poll starts its turn
  int context_subtask = 0;
  bool first_start = true;  ///< no checkpoint restored
  std::chrono::steady_clock::time_point next_listing;

  // evolve: a sink table's schema changes only once every row handed on
  // before it is committed (CaptureSource does the same).
  std::function<void()> request_checkpoint;
  engine::CheckpointId restored_id = 0;
  bool commit_requested = false;
  bool waiting = false;  ///< a schema change waits for a commit: hand on nothing

  Arena arena;
  std::vector<types::Value> values;
  TableTallies tallies;
  int64_t handed_on = 0;
  int64_t last_ts_ms = 0;

  std::shared_ptr<source::SplitEnumerator> MakeEnumerator(const iceberg::TableIdentifier& id,
                                                          const source::PlanOptions& plan) {
    source::EnumeratorOptions eo;
    eo.table_name = id.ToString();
    std::shared_ptr<iceberg::Catalog> catalog = source_catalog;
    eo.load = [catalog, id]() -> Result<iceberg::TableMetadata> {
      FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, catalog->LoadTable(id));
      return std::move(loaded.metadata);
    };
    eo.io = &source_catalog->file_io();
    eo.plan = plan;
    eo.monitor_interval = options.monitor_interval;
    eo.readers = 1;
    return std::make_shared<source::SplitEnumerator>(eo);
  }

  /// Starts following `id` (restored from `state`, the monitor's state,
  /// when given, with `done` rows of its read splits).
  Status Follow(const iceberg::TableIdentifier& id, const std::string* state, int64_t done = 0) {
    Followed t;
    t.id = id;
    t.name = id.ToString();
    t.ns = iceberg::NamespaceToString(id.ns);
    t.done = done;
    source::PlanOptions plan = options.plan;
    auto committed = options.committed_until.find(t.name);
    if (state == nullptr && committed != options.committed_until.end()) {
      // Its sink table holds rows of it: plan them again as they were planned.
      plan.replay_origin = committed->second.origin;
    } else if (state == nullptr && !first_start) {
      // Found after the pipeline's first start: everything in it is new.
      plan.strategy = source::StartingStrategy::kTableScanThenIncremental;
      plan.start_snapshot_id.reset();
      plan.start_snapshot_timestamp_ms.reset();
    }
    t.enumerator = MakeEnumerator(id, plan);
    std::vector<std::string> restored;
    if (state != nullptr) restored.push_back(*state);
    FLOE_RETURN_IF_ERROR_CTX(t.enumerator->Start(restored), "source table {}", t.name);
    t.origin = t.enumerator->position().origin;
    if (committed != options.committed_until.end()) {
      if (t.origin != committed->second.origin) {
        return Corruption(
            "source table {}: its sink table's last commit read it from {}, the checkpoint "
            "restored from {}: they are not one read of it (was the table dropped and created "
            "again?)",
            t.name, IcebergPositionText({{"", committed->second}}),
            t.origin ? IcebergPositionText({{"", {*t.origin, 0}}}) : std::string("unknown"));
      }
      t.committed_until = committed->second.handed_on;
      spdlog::warn(
          "run: source table {}: its sink table holds {} rows (changes) of it since where it was "
          "read from; those after the checkpoint's {} are read again and skipped",
          t.name, t.committed_until, t.done);
    }
    // The sink table gets the source table's key as its identifier fields.
    if (std::shared_ptr<const iceberg::TableMetadata> metadata = t.enumerator->Metadata()) {
      if (const types::Schema* schema = metadata->CurrentSchema()) {
        std::vector<std::string> key;
        for (int32_t field : schema->identifier_field_ids()) {
          key.push_back(schema->FindColumnName(field));
        }
        if (!key.empty()) resolver->NotePrimaryKey(t.ns, id.name, std::move(key));
      }
    }
    spdlog::info("run: following source table {}{}", t.name,
                 state != nullptr ? " from the checkpoint" : "");
    tables.emplace(t.name, std::move(t));
    return Ok();
  }

  /// Lists the catalog again: follows new tables, drops the ones gone.
  Status Relist() {
    FLOE_ASSIGN_OR_RETURN(auto selected, SelectSourceTables(*source_catalog, options));
    std::set<std::string> listed;
    for (const auto& t : selected) {
      listed.insert(t.source.ToString());
      if (!tables.contains(t.source.ToString())) FLOE_RETURN_IF_ERROR(Follow(t.source, nullptr));
    }
    for (auto it = tables.begin(); it != tables.end();) {
      if (!listed.contains(it->first) && !it->second.current) {
        spdlog::warn(
            "run: source table {} is gone from the catalog; it is no longer read (its "
            "sink table stays)",
            it->first);
        it = tables.erase(it);
      } else {
        ++it;
      }
    }
    next_listing = std::chrono::steady_clock::now() + options.monitor_interval;
    return Ok();
  }

  /// `e` with the source table and snapshot of `t` as context.
  static std::unexpected<Error> At(const Followed& t, Error e) {
    return std::unexpected(std::move(e).WithContext(fmt::format(
        "source table {} snapshot {}", t.name, t.current ? t.current->split.snapshot_id : 0)));
  }

  /// How the rows of `t`'s current split map into its sink table (the table
  /// resolved, created or evolved first). Asked once per batch: a batch's
  /// rows share the split's schema, and no other table's rows come between.
  Result<const ingest::RowMapping*> MappingOf(Followed& t) {
    bool event_error = false;
    auto resolved = resolver->Resolve(t.ns, t.id.name, t.schema, &event_error);
    if (!resolved) return At(t, std::move(resolved).error());
    auto mapping = resolver->MappingFor(*resolved, t.schema, &event_error);
    if (!mapping) return At(t, std::move(mapping).error());
    return *mapping;
  }

  bool Mirrors() const {
    return options.schema_change_behavior == pipeline::SchemaChangeBehavior::kEvolve ||
           options.schema_change_behavior == pipeline::SchemaChangeBehavior::kTryEvolve;
  }

  /// evolve: before the rows of `t`'s split, its sink table's schema is
  /// made equal to the split's (MirrorSchema; a column renamed in the
  /// source keeps its Iceberg field id). Not while `t` skips rows its sink
  /// table holds (the sink table has the later schema already), nor for a
  /// sink table shared with other source tables (lenient). Returns false
  /// (and sets `waiting`) while rows handed on before the change are not
  /// committed yet: a restart never maps a row of the old schema onto the
  /// new one.
  Result<bool> MirrorBeforeRows(Followed& t) {
    const int32_t schema_id = t.current->split.schema_id;
    if (!Mirrors() || t.mirrored_schema_id == schema_id || HandedOn(t) < t.committed_until) {
      return true;
    }
    if (options.owns_sink_table && !options.owns_sink_table(t.ns, t.id.name)) {
      t.mirrored_schema_id = schema_id;
      return true;
    }
    bool event_error = false;
    auto resolved = resolver->Resolve(t.ns, t.id.name, t.schema, &event_error);
    if (!resolved) return At(t, std::move(resolved).error());
    const types::Schema& sink_schema =
        *ingest::TableResolver::MetadataOf(*resolved).CurrentSchema();
    const std::vector<ingest::ColumnRename> renames = RenamesOf(t, *t.schema, sink_schema);
    auto plan = ingest::PlanSchemaMirror(t.name, sink_schema, *t.schema, renames);
    if (plan && plan->empty()) {  // the sink table has this schema already
      t.mirrored_schema_id = schema_id;
      return true;
    }
    const engine::CheckpointId uncommitted = std::max(t.uncommitted, restored_id);
    if (t.dirty || (positions && positions->CommittedThrough() < uncommitted)) {
      if (!commit_requested && request_checkpoint) request_checkpoint();
      commit_requested = true;
      waiting = true;
      return false;
    }
    commit_requested = false;
    auto mirrored = resolver->MirrorSchema(*resolved, t.schema, renames, &event_error);
    if (!mirrored && options.schema_change_behavior == pipeline::SchemaChangeBehavior::kTryEvolve &&
        mirrored.error().code() == ErrorCode::kSchemaIncompatible) {
      spdlog::warn(
          "run: source table {} schema {}: {}; handled as lenient "
          "(schema.change.behavior try_evolve)",
          t.name, schema_id, mirrored.error().message());
    } else if (!mirrored) {
      return At(t, std::move(mirrored).error());
    } else {
      const std::string& sink_name = ingest::TableResolver::TargetOf(*resolved)->key;
      if (!mirrored->applied.empty()) {
        spdlog::info("run: table {}: {} (source table {} schema {})", sink_name, mirrored->applied,
                     t.name, schema_id);
      }
      for (const auto& note : mirrored->notes) spdlog::warn("run: table {}: {}", sink_name, note);
    }
    t.mirrored_schema_id = schema_id;
    return true;
  }

  /// The columns of `sink` that `source` (a schema of `t`) has under another
  /// name: those whose name some schema of the source table gave the same
  /// field id, and that `source` no longer has.
  std::vector<ingest::ColumnRename> RenamesOf(const Followed& t, const types::Schema& source,
                                              const types::Schema& sink) const {
    std::vector<ingest::ColumnRename> renames;
    std::shared_ptr<const iceberg::TableMetadata> metadata = t.enumerator->Metadata();
    if (metadata == nullptr) return renames;
    for (const types::NestedField& field : source.fields()) {
      if (sink.FindFieldByName(field.name) != nullptr) continue;
      for (auto it = metadata->schemas.rbegin(); it != metadata->schemas.rend(); ++it) {
        const types::NestedField* before = it->FindField(field.id);
        if (before != nullptr && before->name != field.name &&
            sink.FindFieldByName(before->name) != nullptr &&
            source.FindFieldByName(before->name) == nullptr) {
          renames.push_back({before->name, field.name});
          break;
        }
      }
    }
    return renames;
  }

  /// Adds one change of `t` to the batcher (values in the split's schema).
  Status Write(Followed& t, const ingest::RowMapping& mapping, cdc::ChangeOp op, types::Row before,
               types::Row after, engine::Collector<sink::RowBatch>& out) {
    bool event_error = false;
    auto rows = writer->Write(mapping, op, before, after, out, &event_error);
    if (!rows) return At(t, std::move(rows).error());
    stats->rows_emitted.fetch_add(*rows, std::memory_order_relaxed);
    stats->events_read.fetch_add(1, std::memory_order_relaxed);
    ++handed_on;
    t.dirty = true;
    if (options.metrics != nullptr) {
      tallies[mapping.target()->key].Count(op, t.snapshot_ts_ms);
      last_ts_ms = std::max(last_ts_ms, t.snapshot_ts_ms);
    }
    return Ok();
  }

  /// Takes the next split of `t` if it has none. Returns whether it has one.
  Result<bool> TakeSplit(Followed& t) {
    if (t.current) return true;
    if (t.finished) return false;
    bool finished = false;
    FLOE_ASSIGN_OR_RETURN(auto next, ForTable(t.enumerator->Next(0, &finished), t.name));
    if (!next) {
      if (finished) {
        // The rows before a refused snapshot are handed on; now the refusal.
        if (auto refused = t.enumerator->stopped_by()) {
          return std::unexpected(
              std::move(*refused).WithContext(fmt::format("source table {}", t.name)));
        }
        t.finished = true;
      }
      return false;
    }
    t.schema = t.enumerator->Schema(next->split.schema_id);
    if (t.schema == nullptr) {
      return Corruption("source table {}: schema {} of snapshot {} is not in the table", t.name,
                        next->split.schema_id, next->split.snapshot_id);
    }
    t.to_skip = next->position;
    next->position = 0;
    t.current = std::move(next);
    t.task_index = 0;
    t.reader.reset();
    t.changes.clear();
    t.next_change = 0;
    t.changes_computed = false;
    t.snapshot_ts_ms = 0;
    std::shared_ptr<const iceberg::TableMetadata> metadata = t.enumerator->Metadata();
    if (const iceberg::Snapshot* s =
            metadata ? metadata->SnapshotById(t.current->split.snapshot_id) : nullptr) {
      t.snapshot_ts_ms = s->timestamp_ms;
    }
    return true;
  }

  void EndSplit(Followed& t) {
    t.done += t.current->position + t.to_skip;
    t.to_skip = 0;
    t.current.reset();
    t.reader.reset();
    t.changes.clear();
    t.enumerator->Done(0);
  }

  /// Hands on up to one batch of rows of `t`'s split (none while `waiting`).
  Status ReadSome(Followed& t, engine::Collector<sink::RowBatch>& out) {
    FLOE_ASSIGN_OR_RETURN(bool go_on, MirrorBeforeRows(t));
    if (!go_on) return Ok();
    if (t.current->split.changelog) return WriteChanges(t, out);
    const source::IcebergSplit& split = t.current->split;
    while (true) {
      if (t.reader == nullptr) {
        if (t.task_index >= split.tasks.size()) {
          EndSplit(t);
          return Ok();
        }
        const iceberg::FileScanTask& task = split.tasks[t.task_index];
        iceberg::DataReaderOptions ro;
        ro.batch_rows = options.batch_rows;
        const source::FileRange range = split.RangeOf(t.task_index);
        ro.split_start = range.start;
        ro.split_end = range.end;
        FLOE_ASSIGN_OR_RETURN(t.reader, ForTable(iceberg::DataReader::Open(
                                                     source_catalog->file_io(), task, *t.schema,
                                                     *t.schema, iceberg::Expression::True(), ro),
                                                 t.name));
      }
      arena.Reset();
      values.clear();
      FLOE_ASSIGN_OR_RETURN(size_t n, ForTable(t.reader->ReadBatch(&arena, &values), t.name));
      if (n == 0) {
        t.reader.reset();
        ++t.task_index;
        continue;
      }
      const size_t width = t.schema->fields().size();
      const cdc::ChangeOp op = split.whole_table ? cdc::ChangeOp::kRead : cdc::ChangeOp::kInsert;
      // Resolved at the first row handed on: rows the sink holds never map.
      const ingest::RowMapping* mapping = nullptr;
      size_t written = 0;
      for (size_t r = 0; r < n; ++r) {
        if (t.to_skip > 0) {  // handed on before the restore
          --t.to_skip;
          ++t.current->position;
          continue;
        }
        if (t.done + t.current->position < t.committed_until) {  // in the sink table already
          ++t.current->position;
          continue;
        }
        if (mapping == nullptr) {
          FLOE_ASSIGN_OR_RETURN(mapping, MappingOf(t));
        }
        FLOE_RETURN_IF_ERROR(
            Write(t, *mapping, op, {}, types::Row(values.data() + r * width, width), out));
        ++t.current->position;
        ++written;
      }
      if (written > 0) return Ok();
    }
  }

  /// The row of a change line, parsed back in the split's schema.
  Result<types::Row> ParseRow(Followed& t, std::string_view json) {
    std::unique_ptr<types::JsonRowParser>& parser = t.parsers[t.current->split.schema_id];
    if (parser == nullptr) parser = std::make_unique<types::JsonRowParser>(*t.schema);
    return parser->Parse(json, &arena);
  }

  /// Hands on up to one batch of a changelog split's changes.
  Status WriteChanges(Followed& t, engine::Collector<sink::RowBatch>& out) {
    if (!t.changes_computed) {
      std::shared_ptr<const iceberg::TableMetadata> metadata = t.enumerator->Metadata();
      FLOE_ASSIGN_OR_RETURN(
          t.changes,
          ForTable(source::ComputeChangelog(source_catalog->file_io(), *metadata,
                                            t.current->split.parent, t.current->split.snapshot_id,
                                            nullptr, options.plan.case_sensitive),
                   t.name));
      t.changes_computed = true;
      // Handed on before the restore, or in the sink table already.
      const int64_t handed = std::max(t.to_skip, t.committed_until - t.done);
      const size_t skip =
          std::min(t.changes.size(), static_cast<size_t>(std::max<int64_t>(0, handed)));
      t.next_change = skip;
      t.current->position = static_cast<int64_t>(skip);
      t.to_skip = 0;
    }
    using source::ChangeKind;
    if (t.next_change >= t.changes.size()) {
      EndSplit(t);
      return Ok();
    }
    FLOE_ASSIGN_OR_RETURN(const ingest::RowMapping* mapping, MappingOf(t));
    size_t written = 0;
    while (t.next_change < t.changes.size() && written < options.batch_rows) {
      arena.Reset();
      const source::RowChangeLine& c = t.changes[t.next_change];
      FLOE_ASSIGN_OR_RETURN(types::Row row, ParseRow(t, c.row));
      size_t taken = 1;
      switch (c.kind) {
        case ChangeKind::kInsert:
          FLOE_RETURN_IF_ERROR(Write(t, *mapping, cdc::ChangeOp::kInsert, {}, row, out));
          break;
        case ChangeKind::kDelete:
          FLOE_RETURN_IF_ERROR(Write(t, *mapping, cdc::ChangeOp::kDelete, row, {}, out));
          break;
        case ChangeKind::kUpdateBefore: {
          const bool pair = t.next_change + 1 < t.changes.size() &&
                            t.changes[t.next_change + 1].kind == ChangeKind::kUpdateAfter;
          if (!pair) {
            FLOE_RETURN_IF_ERROR(Write(t, *mapping, cdc::ChangeOp::kDelete, row, {}, out));
            break;
          }
          FLOE_ASSIGN_OR_RETURN(types::Row after, ParseRow(t, t.changes[t.next_change + 1].row));
          FLOE_RETURN_IF_ERROR(Write(t, *mapping, cdc::ChangeOp::kUpdate, row, after, out));
          taken = 2;  // the position counts changes: a pair is never cut in two
          break;
        }
        case ChangeKind::kUpdateAfter:
          FLOE_RETURN_IF_ERROR(Write(t, *mapping, cdc::ChangeOp::kInsert, {}, row, out));
          break;
      }
      t.next_change += taken;
      t.current->position += static_cast<int64_t>(taken);
      written += taken;
    }
    if (t.next_change >= t.changes.size()) EndSplit(t);
    return Ok();
  }

  void Publish() {
    if (options.metrics == nullptr || (handed_on == 0 && tallies.empty())) return;
    options.metrics->PublishHandedOn(tallies, handed_on, std::string(), last_ts_ms);
    tallies.clear();
    handed_on = 0;
  }

  Status ParseAndRestore(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("tables") || !j["tables"].is_object()) {
      return Corruption("the iceberg source's checkpoint state is not an object with 'tables'");
    }
    const int version = j.value("version", 0);
    if (version != kStateVersion && version != 1) {
      return Corruption(
          "the iceberg source's checkpoint state has version {}, this floe reads 1 and {}", version,
          kStateVersion);
    }
    for (const auto& [name, state] : j["tables"].items()) {
      const bool v2 = state.is_object() && state.contains("read") && state["read"].is_string() &&
                      state.contains("done") && state["done"].is_number_integer();
      if (version == 1 ? !state.is_string() : !v2) {
        return Corruption("iceberg source state of {} is not {}", name,
                          version == 1 ? "text" : "{\"read\": text, \"done\": N}");
      }
      FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id, iceberg::TableIdentifier::Parse(name));
      const std::string s = v2 ? state["read"].get<std::string>() : state.get<std::string>();
      const int64_t done = v2 ? state["done"].get<int64_t>() : 0;
      // A table dropped from the catalog since: not followed any more.
      if (!source_catalog->TableExists(id).value_or(true)) {
        spdlog::warn("run: source table {} of the checkpoint is gone from the catalog", name);
        continue;
      }
      FLOE_RETURN_IF_ERROR(Follow(id, &s, done));
    }
    return Ok();
  }

  /// Copies the newest state committed everywhere to the lake, when due.
  Status CopyStateToLake(bool force = false) {
    if (!lake_copy || !positions) return Ok();
    return lake_copy->MaybeWrite(positions->CommittedThrough(), force);
  }
};

IcebergTablesSource::IcebergTablesSource(IcebergTablesSourceOptions options,
                                         std::shared_ptr<sink::CheckpointPositions> positions,
                                         ingest::IngestStats* stats)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->positions = std::move(positions);
  impl_->stats = stats != nullptr ? stats : &impl_->own_stats;
}

IcebergTablesSource::~IcebergTablesSource() = default;

Status IcebergTablesSource::Open(const engine::OperatorContext& context,
                                 const engine::RestoredState& state) {
  Impl& m = *impl_;
  FLOE_RETURN_IF_ERROR(ingest::ValidateTableResolverOptions(m.options.tables));
  auto source_catalog = m.options.source_catalog();
  FLOE_RETURN_IF_ERROR_CTX(source_catalog, "opening the source catalog");
  m.source_catalog = std::move(*source_catalog);
  FLOE_ASSIGN_OR_RETURN(m.sink_catalog, m.options.sink.catalog());
  m.resolver = std::make_unique<ingest::TableResolver>(m.options.tables, m.sink_catalog, m.stats);
  m.batcher = std::make_unique<sink::RowBatcher>(m.options.sink, m.options.batch_rows);
  m.writer = std::make_unique<ingest::RowChangeWriter>(m.batcher.get());
  m.context_subtask = context.subtask;
  m.request_checkpoint = context.request_checkpoint;
  // A schema change waits for the committers to recover the restored checkpoint too.
  m.restored_id = state.checkpoint_id;
  if (!m.options.lake_state_dir.empty()) {
    m.lake_copy = std::make_unique<LakeStateCopy>(
        &m.sink_catalog->file_io(), m.options.lake_state_dir, m.options.lake_state_interval,
        fmt::format("{}/{}", context.name, context.subtask));
  }
  m.first_start = state.checkpoint_id == 0;
  if (state.own && !state.own->empty()) FLOE_RETURN_IF_ERROR(m.ParseAndRestore(*state.own));
  if (m.options.plan.strategy == source::StartingStrategy::kIncrementalFromSnapshotId &&
      m.first_start) {
    FLOE_ASSIGN_OR_RETURN(auto selected, SelectSourceTables(*m.source_catalog, m.options));
    if (selected.size() != 1) {
      return InvalidArgument(
          "starting-strategy incremental-from-snapshot-id names a snapshot of one table, but the "
          "source's tables select {} tables",
          selected.size());
    }
  }
  FLOE_RETURN_IF_ERROR(m.Relist());
  if (m.tables.empty()) {
    spdlog::warn(
        "run: the source catalog has no table the pipeline reads yet; checking again "
        "every {} ms",
        m.options.monitor_interval.count());
  }
  return Ok();
}

Result<bool> IcebergTablesSource::Poll(engine::Collector<sink::RowBatch>& out) {
  Impl& m = *impl_;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + m.options.max_poll_time;
  if (m.options.plan.streaming && start >= m.next_listing) FLOE_RETURN_IF_ERROR(m.Relist());
  bool any = false;
  bool all_finished = true;
  m.waiting = false;
  // The tables take turns, from where the last Poll stopped.
  std::vector<Followed*> order;
  for (auto it = m.tables.lower_bound(m.next_table); it != m.tables.end(); ++it) {
    order.push_back(&it->second);
  }
  for (auto it = m.tables.begin(); it != m.tables.lower_bound(m.next_table); ++it) {
    order.push_back(&it->second);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    Followed& t = *order[i];
    FLOE_ASSIGN_OR_RETURN(bool has, m.TakeSplit(t));
    if (!t.finished) all_finished = false;
    if (!has) continue;
    any = true;
    while (t.current && !m.waiting && std::chrono::steady_clock::now() < deadline) {
      FLOE_RETURN_IF_ERROR(m.ReadSome(t, out));
    }
    if (m.waiting || std::chrono::steady_clock::now() >= deadline) {
      // The next Poll goes on with the table after this one (or this one,
      // when its split is not done).
      m.next_table = t.current || i + 1 >= order.size() ? t.name : order[i + 1]->name;
      all_finished = false;
      break;
    }
  }
  FLOE_RETURN_IF_ERROR(m.batcher->Flush(out));
  m.Publish();
  FLOE_RETURN_IF_ERROR(m.CopyStateToLake());
  if (!m.options.plan.streaming && all_finished) return false;
  if (m.waiting) {
    // A schema change waits for a commit: return so the checkpoint can pass.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } else if (!any) {
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(100),
                                                                    m.options.max_poll_time));
  }
  return true;
}

Result<std::string> IcebergTablesSource::SnapshotState(engine::CheckpointId id) {
  Impl& m = *impl_;
  m.batcher->CheckpointBoundary();
  nlohmann::json tables = nlohmann::json::object();
  std::map<std::string, SourceTablePosition> read_to;
  for (auto& [name, t] : m.tables) {
    std::optional<source::SplitAssignment> current = t.current;
    if (current) current->position += t.to_skip;  // not yet skipped again: still handed on
    if (t.dirty) {
      t.uncommitted = id;
      t.dirty = false;
    }
    tables[name] = {{"read", t.enumerator->SnapshotState(0, id, current)}, {"done", t.done}};
    if (t.origin) read_to[name] = {*t.origin, HandedOn(t)};
  }
  if (m.positions) m.positions->Put(id, m.context_subtask, IcebergPositionText(read_to));
  if (m.options.metrics != nullptr) {
    m.Publish();
    m.options.metrics->CheckpointTaken(id);
  }
  nlohmann::json j;
  j["version"] = kStateVersion;
  j["tables"] = std::move(tables);
  std::string state = j.dump();
  if (m.lake_copy) m.lake_copy->Taken(id, state);
  return state;
}

Status IcebergTablesSource::NotifyCheckpointComplete(engine::CheckpointId id) {
  if (impl_->options.metrics != nullptr) impl_->options.metrics->CheckpointCompleted(id);
  return impl_->CopyStateToLake();
}

void IcebergTablesSource::Close() {
  // After a clean stop the lake's copy is the final checkpoint's.
  if (Status copied = impl_->CopyStateToLake(/*force=*/true); !copied) {
    spdlog::warn("run: {}", copied.error().ToString());
  }
}

}  // namespace floe::run
