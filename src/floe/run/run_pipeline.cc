#include "floe/run/run_pipeline.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "floe/cdc/mysql/replication.h"
#include "floe/common/printable.h"
#include "floe/common/utf8.h"
#include "floe/engine/job.h"
#include "floe/engine/run_until_stopped.h"
#include "floe/iceberg/catalog/catalog_config.h"
#include "floe/iceberg/table_properties.h"
#include "floe/io/file_io.h"
#include "floe/run/iceberg_tables_source.h"
#include "floe/run/postgres_source.h"
#include "floe/run/status_server.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/sink_stages.h"

namespace floe::run {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kCheckpointDir = "checkpoints";

cdc::mysql::ConnectionOptions ConnectionOf(const pipeline::MySqlSourceDefinition& source) {
  cdc::mysql::ConnectionOptions c;
  c.host = source.hostname;
  c.port = static_cast<uint16_t>(source.port);
  c.user = source.username;
  c.password = source.password.value;
  c.timeout_seconds = static_cast<unsigned>(std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(source.connect_timeout).count()));
  return c;
}

/// The pipeline id in every snapshot summary: the pipeline's name.
std::string PipelineIdOf(const pipeline::PipelineDefinition& definition) {
  return "run-" + definition.pipeline.name;
}

/// Opens the sink's catalog once per call (one per operator subtask), all
/// over one FileIO: local paths locally, s3:// on S3, from the catalog's
/// settings (docs/s3.md).
sink::CatalogFactory CatalogFactoryOf(iceberg::CatalogConfig config) {
  std::shared_ptr<io::FileIO> file_io = iceberg::MakeCatalogFileIO(config);
  return [config, file_io]() { return iceberg::OpenCatalogWithFileIO(config, file_io); };
}

Status SetStartup(const pipeline::MySqlSourceDefinition& source,
                  cdc::mysql::CaptureOptions* capture) {
  using Mode = pipeline::StartupMode;
  using cdc::mysql::StartupMode;
  switch (source.startup_mode) {
    case Mode::kInitial:
      capture->startup = StartupMode::kInitial;
      return Ok();
    case Mode::kLatestOffset:
      capture->startup = StartupMode::kLatest;
      return Ok();
    case Mode::kEarliestOffset: {
      FLOE_ASSIGN_OR_RETURN(auto conn, cdc::mysql::Connection::Open(capture->connection));
      FLOE_ASSIGN_OR_RETURN(auto files, cdc::mysql::ListBinlogFiles(*conn));
      if (files.empty())
        return InvalidArgument(
            "scan.startup.mode earliest-offset: the server lists no binlog files");
      capture->startup = StartupMode::kPosition;
      capture->start_position = {files.front().name, 4};
      return Ok();
    }
    case Mode::kSpecificOffset:
      if (!source.specific_offset_gtid_set.empty()) {
        FLOE_ASSIGN_OR_RETURN(capture->start_gtids,
                              cdc::GtidSet::Parse(source.specific_offset_gtid_set));
        capture->startup = StartupMode::kGtid;
      } else {
        capture->startup = StartupMode::kPosition;
        capture->start_position = {source.specific_offset_file,
                                   source.specific_offset_pos.value_or(4)};
      }
      if (source.specific_offset_skip_events != 0 || source.specific_offset_skip_rows != 0) {
        return NotSupported("scan.startup.specific-offset.skip-events/skip-rows are not supported");
      }
      return Ok();
    case Mode::kTimestamp:
      capture->startup = StartupMode::kTimestamp;
      capture->start_unix_seconds = source.startup_timestamp_millis.value_or(0) / 1000;
      return Ok();
    case Mode::kSnapshot:  // the snapshot, then the source ends (CaptureSourceOptions)
      capture->startup = StartupMode::kInitial;
      return Ok();
  }
  return Ok();
}

void RaiseCommittedUntil(CaptureSourceOptions& source, const std::string& table,
                         const cdc::BinlogFilePos& position) {
  auto [it, fresh] = source.committed_until.emplace(table, position);
  if (!fresh && cdc::Compare(it->second, position) < 0) it->second = position;
}

/// kCorruption: sink table `table` holds checkpoint `checkpoint` of pipeline
/// `pipeline_id`, newer than `restored_id`, the newest readable checkpoint in
/// `state_dir` (0: none), for `reason`.
std::unexpected<Error> TableAheadOfState(std::string_view table, engine::CheckpointId checkpoint,
                                         std::string_view pipeline_id, std::string_view state_dir,
                                         engine::CheckpointId restored_id,
                                         std::string_view reason) {
  return Corruption(
      "table {} holds checkpoint {} of pipeline '{}', but the newest readable checkpoint in {} is "
      "{}: {}. Restore the state folder, or mirror into new tables under a new pipeline.name",
      table, checkpoint, pipeline_id, state_dir,
      restored_id == 0 ? std::string("none") : std::to_string(restored_id), reason);
}

/// With no readable checkpoint in the state folder (`*restored` empty)
/// while the tables hold commits of the pipeline (`committed_before`): the
/// lake's copy of the source state in `lake_state_dir` (LakeStateCopy), if
/// there is one, into `*restored` and saved into `store`, the state folder.
Status RestoreLakeCopy(iceberg::Catalog& catalog, const std::string& lake_state_dir,
                       bool committed_before, const std::string& state_dir,
                       engine::CheckpointStore& store,
                       std::optional<engine::CompletedCheckpoint>* restored) {
  if (restored->has_value() || !committed_before || lake_state_dir.empty()) return Ok();
  engine::CheckpointStore lake(&catalog.file_io(), lake_state_dir);
  std::string lake_warning;
  FLOE_ASSIGN_OR_RETURN(*restored, lake.LoadLatest(&lake_warning));
  if (!lake_warning.empty()) {
    spdlog::warn("run: unreadable lake state files skipped: {}", lake_warning);
  }
  if (!restored->has_value()) return Ok();
  spdlog::warn(
      "run: the state folder {} has no checkpoint; resuming from the lake's copy of checkpoint {} "
      "({})",
      state_dir, (*restored)->id, io::RedactUri(lake_state_dir));
  return store.Save(**restored);
}

/// Compares what the tables hold with the newest readable checkpoint of the
/// state folder, and returns the highest checkpoint id they hold (the job's
/// minimum id). A table that committed a later checkpoint than the one the
/// job restores (newer checkpoint files damaged or gone, an old copy of the
/// state folder) gets its changes up to its last commit's binlog position
/// skipped (CaptureSourceOptions::committed_until). With no checkpoint at
/// all while tables hold commits of this pipeline (the state folder is
/// gone), the lake's copy of the source state (LakeStateDir) is restored
/// into the state folder and the run resumes from it the same way; without
/// one the run stops: the binlog can only be read again with the schemas the
/// state held, and a new snapshot would write every row again.
Result<engine::CheckpointId> PlanResume(const pipeline::PipelineDefinition& definition,
                                        CaptureSourceOptions& source,
                                        engine::CheckpointStore& store) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, source.sink.catalog());
  FLOE_ASSIGN_OR_RETURN(auto tables, sink::ListTablesTwoLevelsDeep(*catalog));
  FLOE_ASSIGN_OR_RETURN(
      auto progress,
      sink::CommittedProgress(*catalog, source.sink.pipeline_id, tables,
                              {std::string(iceberg::table_properties::kFloeSchemaChangePosition),
                               std::string(iceberg::table_properties::kFloeRenamedFrom)}));
  source.lake_state_dir = LakeStateDir(*catalog, source.sink.pipeline_id);
  std::string warning;
  FLOE_ASSIGN_OR_RETURN(auto restored, store.LoadLatest(&warning));
  if (!warning.empty()) spdlog::warn("run: unreadable checkpoint files skipped: {}", warning);
  bool committed_before =
      std::any_of(progress.begin(), progress.end(), [](const auto& p) { return p.checkpoint > 0; });
  // The state folder is gone (or holds nothing readable) while the tables
  // hold commits: resume from the lake's copy of the source state, taken
  // when everything up to it was committed; tables ahead of it skip what
  // they hold (below).
  FLOE_RETURN_IF_ERROR(RestoreLakeCopy(*catalog, source.lake_state_dir, committed_before,
                                       definition.pipeline.state_dir, store, &restored));
  engine::CheckpointId restored_id = restored ? restored->id : 0;
  engine::CheckpointId max_id = 0;
  std::vector<std::string> ahead;
  for (const auto& p : progress) {
    max_id = std::max(max_id, p.checkpoint);
    std::string table = p.table.ToString();
    // evolve: the rows before a table's last schema change are in it (and
    // those of the name it was renamed from, before the rename).
    if (auto changed =
            p.properties.find(std::string(iceberg::table_properties::kFloeSchemaChangePosition));
        changed != p.properties.end()) {
      if (auto position = cdc::BinlogFilePos::Parse(changed->second)) {
        RaiseCommittedUntil(source, table, *position);
        if (auto from = p.properties.find(std::string(iceberg::table_properties::kFloeRenamedFrom));
            from != p.properties.end()) {
          RaiseCommittedUntil(source, from->second, *position);
        }
      }
    }
    if (p.checkpoint <= restored_id) continue;
    auto stop = [&](std::string_view reason) {
      return TableAheadOfState(table, p.checkpoint, source.sink.pipeline_id,
                               definition.pipeline.state_dir, restored_id, reason);
    };
    if (restored_id == 0) {
      return stop(
          "the state folder has no checkpoint and the lake no copy of one, so the binlog "
          "cannot be read from where the tables are, and a new snapshot would write "
          "their rows again");
    }
    if (!p.source_position) return stop("the snapshot of that commit was expired");
    std::string_view position = *p.source_position;
    auto parsed = cdc::BinlogFilePos::Parse(position.substr(0, position.find(' ')));
    if (!parsed) return stop(parsed.error().message());
    RaiseCommittedUntil(source, table, *parsed);
    ahead.push_back(fmt::format("{} (checkpoint {}, up to {})", table, p.checkpoint, position));
  }
  if (!ahead.empty()) {
    spdlog::warn(
        "run: the state folder {} is behind the lake (restoring checkpoint {}): the "
        "changes these tables already hold are skipped: {}",
        definition.pipeline.state_dir, restored_id, JoinAtMost(ahead));
  }
  return max_id;
}

}  // namespace

namespace {

/// The sink side of a pipeline file, whatever its source: where tables go,
/// how they are created, and the sink's settings.
struct SinkSide {
  sink::SinkOptions sink;
  ingest::TableResolverOptions tables;
};

Result<SinkSide> MakeSinkSide(const pipeline::PipelineDefinition& definition,
                              const std::string& catalog_config_path) {
  SinkSide side;
  FLOE_ASSIGN_OR_RETURN(iceberg::CatalogConfig catalog,
                        pipeline::ResolveSinkCatalog(definition.sink, catalog_config_path));
  sink::SinkOptions& sink = side.sink;
  sink.pipeline_id = PipelineIdOf(definition);
  sink.write_parallelism = definition.pipeline.parallelism;
  sink.commit_parallelism = 1;
  sink.catalog = CatalogFactoryOf(std::move(catalog));

  ingest::TableResolverOptions& resolver = side.tables;
  auto routes = definition.routes;
  resolver.route_function = [routes](std::string_view db, std::string_view table) {
    return pipeline::RouteFor(routes, db, table);
  };
  for (const auto& [key, value] : definition.sink.table_properties) {
    // They go into the tables' JSON metadata, which must be UTF-8.
    FLOE_RETURN_IF_ERROR(CheckUtf8(key, fmt::format("sink.table.properties.{}", key)));
    FLOE_RETURN_IF_ERROR(CheckUtf8(value, fmt::format("sink.table.properties.{}", key)));
  }
  resolver.table_properties = definition.sink.table_properties;
  for (const auto& key : definition.sink.partition_keys) {
    resolver.partition_by_table[key.table.ToString()] = key.spec_text;
  }
  return side;
}

/// Keys the file accepts whose behaviour floe run does not have yet: an
/// error, never a silent difference.
std::unexpected<Error> NotYet(std::string_view key, std::string_view what) {
  return NotSupported("{}: {} is not supported by floe run yet (docs/pipeline.md)", key, what);
}

/// Settings no source of floe run has yet.
Status CheckCommonSettings(const pipeline::PipelineDefinition& definition) {
  if (definition.sink.schema_changes.size() != 7) {
    return NotYet("sink.include/exclude.schema.changes", "filtering schema change events");
  }
  if (!definition.pipeline.local_time_zone.empty()) {
    return NotYet("pipeline.local-time-zone", "a local time zone");
  }
  return Ok();
}

/// PlanResume for a kafka source (docs/kafka.md, "Offsets belong to the
/// lake"). With no checkpoint in the state folder while tables hold commits
/// of this pipeline, the lake's copy of the source state (written once every
/// table had committed its checkpoint) is restored into the state folder;
/// without one, every partition starts by the startup mode, which must then
/// reach back far enough (earliest-offset, or group-offsets: the group's
/// offsets are committed only after the lake has everything before them).
/// Either way, a table that committed a later checkpoint than the one
/// restored gets the messages before its last commit's offsets skipped
/// (KafkaSourceOptions::committed_until). Returns the highest checkpoint id
/// the tables hold.
Result<engine::CheckpointId> PlanKafkaResume(const pipeline::PipelineDefinition& definition,
                                             KafkaSourceOptions& source,
                                             engine::CheckpointStore& store) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, source.sink.catalog());
  FLOE_ASSIGN_OR_RETURN(auto tables, sink::ListTablesTwoLevelsDeep(*catalog));
  FLOE_ASSIGN_OR_RETURN(auto progress,
                        sink::CommittedProgress(*catalog, source.sink.pipeline_id, tables, {}));
  source.lake_state_dir = LakeStateDir(*catalog, source.sink.pipeline_id);
  if (source.on_error == ingest::OnError::kSkip && source.dead_letter_dir.empty()) {
    source.dead_letter_dir = LakeDeadLetterDir(*catalog, source.sink.pipeline_id);
  }
  std::string warning;
  FLOE_ASSIGN_OR_RETURN(auto restored, store.LoadLatest(&warning));
  if (!warning.empty()) spdlog::warn("run: unreadable checkpoint files skipped: {}", warning);
  const bool committed_before =
      std::any_of(progress.begin(), progress.end(), [](const auto& p) { return p.checkpoint > 0; });
  FLOE_RETURN_IF_ERROR(RestoreLakeCopy(*catalog, source.lake_state_dir, committed_before,
                                       definition.pipeline.state_dir, store, &restored));
  const engine::CheckpointId restored_id = restored ? restored->id : 0;
  const kafka::StartupMode mode = source.consumer.startup_mode;
  engine::CheckpointId max_id = 0;
  std::vector<std::string> ahead;
  for (const auto& p : progress) {
    max_id = std::max(max_id, p.checkpoint);
    if (p.checkpoint <= restored_id) continue;
    std::string table = p.table.ToString();
    auto stop = [&](std::string_view reason) {
      return TableAheadOfState(table, p.checkpoint, source.sink.pipeline_id,
                               definition.pipeline.state_dir, restored_id, reason);
    };
    if (restored_id == 0 && mode != kafka::StartupMode::kEarliestOffset &&
        mode != kafka::StartupMode::kGroupOffsets) {
      return stop(
          "the lake holds no copy of the source state either, and with this "
          "scan.startup.mode the partitions would start after messages the tables may "
          "lack (earliest-offset or group-offsets would read them again, each table "
          "skipping what it holds)");
    }
    if (!p.source_position) return stop("the snapshot of that commit was expired");
    auto offsets = ParseKafkaPositionText(*p.source_position);
    if (!offsets) return stop(offsets.error().message());
    source.committed_until[table] = std::move(*offsets);
    ahead.push_back(
        fmt::format("{} (checkpoint {}, up to {})", table, p.checkpoint, *p.source_position));
  }
  source.started_without_state = restored_id == 0 && !ahead.empty();
  if (!ahead.empty()) {
    spdlog::warn(
        "run: the state folder {} is behind the lake (restoring {}): the messages these "
        "tables already hold are skipped: {}",
        definition.pipeline.state_dir,
        restored_id == 0 ? std::string("no checkpoint: the partitions start by scan.startup.mode")
                         : fmt::format("checkpoint {}", restored_id),
        JoinAtMost(ahead));
  }
  return max_id;
}

/// PlanResume for an iceberg source (docs/pipeline.md, "The source's
/// position in the lake"). With no checkpoint in the state folder while
/// tables hold commits of this pipeline, the lake's copy of the source state
/// (written once every table had committed its checkpoint) is restored
/// into the state folder. A sink table that committed a later checkpoint
/// than the one restored (or any, with none restored) gets the rows of its
/// source tables up to its last commit's positions skipped
/// (IcebergTablesSourceOptions::committed_until). Returns the highest
/// checkpoint id the tables hold.
Result<engine::CheckpointId> PlanIcebergResume(const pipeline::PipelineDefinition& definition,
                                               IcebergTablesSourceOptions& source,
                                               engine::CheckpointStore& store) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, source.sink.catalog());
  FLOE_ASSIGN_OR_RETURN(auto tables, sink::ListTablesTwoLevelsDeep(*catalog));
  FLOE_ASSIGN_OR_RETURN(auto progress,
                        sink::CommittedProgress(*catalog, source.sink.pipeline_id, tables, {}));
  source.lake_state_dir = LakeStateDir(*catalog, source.sink.pipeline_id);
  std::string warning;
  FLOE_ASSIGN_OR_RETURN(auto restored, store.LoadLatest(&warning));
  if (!warning.empty()) spdlog::warn("run: unreadable checkpoint files skipped: {}", warning);
  const bool committed_before =
      std::any_of(progress.begin(), progress.end(), [](const auto& p) { return p.checkpoint > 0; });
  FLOE_RETURN_IF_ERROR(RestoreLakeCopy(*catalog, source.lake_state_dir, committed_before,
                                       definition.pipeline.state_dir, store, &restored));
  const engine::CheckpointId restored_id = restored ? restored->id : 0;
  engine::CheckpointId max_id = 0;
  std::vector<std::string> ahead;
  for (const auto& p : progress) {
    max_id = std::max(max_id, p.checkpoint);
    if (p.checkpoint <= restored_id) continue;
    const std::string table = p.table.ToString();
    auto stop = [&](std::string_view reason) {
      return TableAheadOfState(table, p.checkpoint, source.sink.pipeline_id,
                               definition.pipeline.state_dir, restored_id, reason);
    };
    if (!p.source_position) return stop("the snapshot of that commit was expired");
    auto positions = ParseIcebergPositionText(*p.source_position);
    if (!positions) return stop(positions.error().message());
    // The positions of the source tables routed to this table.
    for (auto& [source_table, position] : *positions) {
      FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id,
                            iceberg::TableIdentifier::Parse(source_table));
      FLOE_ASSIGN_OR_RETURN(
          iceberg::TableIdentifier to,
          source.tables.route_function(iceberg::NamespaceToString(id.ns), id.name));
      if (to.ToString() != table) continue;
      ahead.push_back(fmt::format("{} (checkpoint {}, {} rows of {})", table, p.checkpoint,
                                  position.handed_on, source_table));
      source.committed_until[source_table] = position;
    }
  }
  if (!ahead.empty()) {
    spdlog::warn(
        "run: the state folder {} is behind the lake (restoring {}): the rows these tables "
        "already hold are skipped: {}",
        definition.pipeline.state_dir,
        restored_id == 0 ? std::string("no checkpoint: the tables are read from where they began")
                         : fmt::format("checkpoint {}", restored_id),
        JoinAtMost(ahead));
  }
  return max_id;
}

}  // namespace

/// The sink side of a database source's options (routes, shared sink tables).
Result<CaptureSourceOptions> WithSinkSide(const pipeline::PipelineDefinition& definition,
                                          const std::string& catalog_config_path,
                                          CaptureSourceOptions options);

Result<CaptureSourceOptions> MakeCaptureSourceOptions(
    const pipeline::PipelineDefinition& definition, const std::string& catalog_config_path) {
  const pipeline::MySqlSourceDefinition& source = definition.source.mysql;
  using Behavior = pipeline::SchemaChangeBehavior;
  Behavior behavior = definition.pipeline.schema_change_behavior;
  if (!source.schema_change_enabled) {
    return NotYet("source.schema-change.enabled: false", "dropping schema changes");
  }
  if (!source.server_time_zone.empty())
    return NotYet("source.server-time-zone", "a session time zone");
  if (!source.jdbc_properties.empty())
    return NotYet("source.jdbc.properties.*", "connection properties");
  FLOE_RETURN_IF_ERROR(CheckCommonSettings(definition));
  CaptureSourceOptions options;
  options.schema_change_behavior = behavior;
  if (definition.source.is_postgres()) {  // the same source over a PostgreSQL slot
    FLOE_ASSIGN_OR_RETURN(auto stream, PostgresStreamOptions(definition.source.postgres));
    options.open_stream = PostgresStreamOpener(std::move(stream));
    return WithSinkSide(definition, catalog_config_path, std::move(options));
  }
  cdc::mysql::CaptureOptions& capture = options.capture;
  capture.connection = ConnectionOf(source);
  auto tables = source.tables;
  capture.selector = [tables](std::string_view db, std::string_view table) {
    return pipeline::MatchesSourceTable(tables, db, table);
  };
  if (source.server_id) capture.server_id = source.server_id->first;
  capture.snapshot_chunk_rows = static_cast<size_t>(source.snapshot_chunk_size);
  capture.snapshot_new_tables = source.newly_added_table_enabled;
  // The server's heartbeat is also how soon the capture notices a stop while
  // the binlog is quiet: at most a second, whatever heartbeat.interval says.
  capture.heartbeat_seconds = 1;
  FLOE_RETURN_IF_ERROR(SetStartup(source, &capture));
  options.stop_after_snapshot = source.startup_mode == pipeline::StartupMode::kSnapshot;
  return WithSinkSide(definition, catalog_config_path, std::move(options));
}

Result<CaptureSourceOptions> WithSinkSide(const pipeline::PipelineDefinition& definition,
                                          const std::string& catalog_config_path,
                                          CaptureSourceOptions options) {
  FLOE_ASSIGN_OR_RETURN(SinkSide side, MakeSinkSide(definition, catalog_config_path));
  options.sink = std::move(side.sink);
  options.tables = std::move(side.tables);
  auto routes = definition.routes;
  options.owns_sink_table = [routes](std::string_view db, std::string_view table) {
    return pipeline::RouteIsOneToOne(routes, db, table);
  };
  bool any_source_column = std::any_of(routes.begin(), routes.end(), [](const pipeline::Route& r) {
    return !r.source_table_column.empty();
  });
  if (any_source_column) {
    options.source_table_column = [routes](std::string_view db, std::string_view table) {
      return pipeline::SourceTableColumnFor(routes, db, table);
    };
  }
  return options;
}

/// The settings a source that copies tables without their DDL (iceberg,
/// kafka) supports: schema.change.behavior lenient or ignore (and evolve,
/// try_evolve with `mirrors_schemas`), the settings every source takes, no
/// route.source-table-column. `with_source` ends the messages ("with a
/// kafka source").
Status CheckTableCopySource(const pipeline::PipelineDefinition& definition,
                            std::string_view with_source, bool mirrors_schemas = false) {
  using Behavior = pipeline::SchemaChangeBehavior;
  const Behavior behavior = definition.pipeline.schema_change_behavior;
  const bool mirrored =
      mirrors_schemas && (behavior == Behavior::kEvolve || behavior == Behavior::kTryEvolve);
  if (behavior != Behavior::kLenient && behavior != Behavior::kIgnore && !mirrored) {
    return NotYet(fmt::format("pipeline.schema.change.behavior: {}",
                              pipeline::SchemaChangeBehaviorName(behavior)),
                  fmt::format("{} (lenient and ignore{} are)", with_source,
                              mirrors_schemas ? ", evolve and try_evolve" : ""));
  }
  FLOE_RETURN_IF_ERROR(CheckCommonSettings(definition));
  for (const auto& route : definition.routes) {
    if (!route.source_table_column.empty()) {
      return NotYet("route.source-table-column", with_source);
    }
  }
  return Ok();
}

Result<IcebergTablesSourceOptions> MakeIcebergTablesSourceOptions(
    const pipeline::PipelineDefinition& definition, const std::string& catalog_config_path) {
  const pipeline::IcebergSourceDefinition& source = definition.source.iceberg;
  using Behavior = pipeline::SchemaChangeBehavior;
  const Behavior behavior = definition.pipeline.schema_change_behavior;
  FLOE_RETURN_IF_ERROR(
      CheckTableCopySource(definition, "with an iceberg source", /*mirrors_schemas=*/true));
  IcebergTablesSourceOptions options;
  source::PlanOptions& plan = options.plan;
  FLOE_ASSIGN_OR_RETURN(plan.strategy, source::ParseStartingStrategy(source.starting_strategy));
  plan.start_snapshot_id = source.start_snapshot_id;
  plan.start_snapshot_timestamp_ms = source.start_snapshot_timestamp;
  plan.streaming = source.streaming;
  plan.changelog = source.changelog;
  plan.skip_overwrite_snapshots = source.skip_overwrite_snapshots;
  plan.skip_delete_snapshots = source.skip_delete_snapshots;
  plan.branch = source.branch;
  plan.case_sensitive = source.case_sensitive;
  if (source.max_planning_snapshot_count) {
    plan.max_planning_snapshot_count = *source.max_planning_snapshot_count;
  }
  plan.split_overrides.target_size = source.split_size.value_or(0);
  plan.split_overrides.open_file_cost = source.split_file_open_cost.value_or(0);
  plan.split_overrides.lookback = static_cast<int>(source.split_lookback.value_or(0));
  FLOE_RETURN_IF_ERROR(source::ValidatePlanOptions(plan));
  options.monitor_interval = source.monitor_interval;
  auto tables = source.tables;
  options.selector = [tables](std::string_view ns, std::string_view table) {
    return pipeline::MatchesSourceTable(tables, ns, table);
  };
  FLOE_ASSIGN_OR_RETURN(iceberg::CatalogConfig source_catalog,
                        pipeline::ResolveCatalog(source.catalog, catalog_config_path));
  FLOE_ASSIGN_OR_RETURN(iceberg::CatalogConfig sink_catalog,
                        pipeline::ResolveSinkCatalog(definition.sink, catalog_config_path));
  options.same_catalog = source_catalog.type == sink_catalog.type &&
                         source_catalog.properties == sink_catalog.properties &&
                         source_catalog.base_dir == sink_catalog.base_dir;
  options.source_catalog = CatalogFactoryOf(std::move(source_catalog));
  FLOE_ASSIGN_OR_RETURN(SinkSide side, MakeSinkSide(definition, catalog_config_path));
  options.sink = std::move(side.sink);
  options.tables = std::move(side.tables);
  options.tables.evolve_schemas = behavior != Behavior::kIgnore;
  options.schema_change_behavior = behavior;
  auto routes = definition.routes;
  options.owns_sink_table = [routes](std::string_view ns, std::string_view table) {
    return pipeline::RouteIsOneToOne(routes, ns, table);
  };
  return options;
}

Result<KafkaSourceOptions> MakeKafkaSourceOptions(const pipeline::PipelineDefinition& definition,
                                                  const std::string& catalog_config_path) {
  const pipeline::KafkaSourceDefinition& source = definition.source.kafka;
  using Behavior = pipeline::SchemaChangeBehavior;
  const Behavior behavior = definition.pipeline.schema_change_behavior;
  FLOE_RETURN_IF_ERROR(CheckTableCopySource(definition, "with a kafka source"));
  KafkaSourceOptions options;
  std::map<std::string, std::string> keys;
  for (const auto& [key, value] : source.settings) keys[key] = value.value;
  auto consumer = kafka::ParseKafkaSourceOptions(keys);
  if (!consumer) return std::unexpected(std::move(consumer).error().WithContext("source"));
  options.consumer = std::move(*consumer);
  FLOE_ASSIGN_OR_RETURN(options.format, ingest::ParseInputFormat(source.value_format));
  FLOE_ASSIGN_OR_RETURN(options.on_error, ingest::ParseOnError(source.on_error));
  options.dead_letter_dir = source.dead_letter_path;
  FLOE_ASSIGN_OR_RETURN(SinkSide side, MakeSinkSide(definition, catalog_config_path));
  options.sink = std::move(side.sink);
  options.tables = std::move(side.tables);
  options.tables.evolve_schemas = behavior != Behavior::kIgnore;
  FLOE_RETURN_IF_ERROR(ValidateKafkaSourceOptions(options));
  return options;
}

Result<RunSummary> RunPipeline(const pipeline::PipelineDefinition& definition,
                               const RunOptions& run) {
  // The source stage, and the sink's settings; the capture's are kept for
  // its resume planning below.
  const bool iceberg_source = definition.source.is_iceberg();
  const bool kafka_source = definition.source.is_kafka();
  CaptureSourceOptions source_options;
  IcebergTablesSourceOptions iceberg_options;
  KafkaSourceOptions kafka_options;
  if (iceberg_source) {
    FLOE_ASSIGN_OR_RETURN(iceberg_options,
                          MakeIcebergTablesSourceOptions(definition, run.catalog_config_path));
  } else if (kafka_source) {
    FLOE_ASSIGN_OR_RETURN(kafka_options,
                          MakeKafkaSourceOptions(definition, run.catalog_config_path));
  } else {
    FLOE_ASSIGN_OR_RETURN(source_options,
                          MakeCaptureSourceOptions(definition, run.catalog_config_path));
  }
  const sink::SinkOptions& sink_options = iceberg_source ? iceberg_options.sink
                                          : kafka_source ? kafka_options.sink
                                                         : source_options.sink;
  source_options.stop = run.stop;
  RunMetrics own_metrics;
  RunMetrics* metrics = run.metrics != nullptr ? run.metrics : &own_metrics;
  metrics->SetPipelineName(definition.pipeline.name);
  source_options.metrics = metrics;
  iceberg_options.metrics = metrics;
  kafka_options.metrics = metrics;
  std::unique_ptr<StatusServer> status_server;  // pipeline.http: serves `metrics` during the run
  if (definition.pipeline.http) {
    FLOE_ASSIGN_OR_RETURN(status_server,
                          StatusServer::Start(definition.pipeline.http->host,
                                              definition.pipeline.http->port, metrics));
  }
  ingest::IngestStats own_stats;
  ingest::IngestStats* stats = run.stats != nullptr ? run.stats : &own_stats;
  const std::string& state_dir = definition.pipeline.state_dir;
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) return IoError("state folder {}: {}", state_dir, ec.message());

  io::LocalFileIO state_io;
  engine::CheckpointStore store(&state_io, (fs::path(state_dir) / kCheckpointDir).string());
  metrics->SetCheckpointDir((fs::path(state_dir) / kCheckpointDir).string());
  engine::JobOptions job_options;
  job_options.checkpoint_interval = definition.pipeline.checkpoint_interval;
  // No checkpoint completes during the initial snapshot (its source returns
  // at transaction boundaries only): do not abort one that waits for it.
  job_options.checkpoint_timeout = std::chrono::hours(24 * 7);
  job_options.store = &store;
  // A Kafka scale-out member restores nothing: the partitions it is given
  // start from the lake (docs/kafka.md, "Scale-out").
  std::unique_ptr<KafkaMemberSlot> member;
  if (kafka_source && kafka_options.consumer.scale_out) {
    FLOE_ASSIGN_OR_RETURN(member, JoinKafkaScaleOut(state_dir, kafka_options));
    job_options.store = nullptr;
    job_options.min_checkpoint_id = member->max_committed;
  } else if (kafka_source) {
    FLOE_ASSIGN_OR_RETURN(job_options.min_checkpoint_id,
                          PlanKafkaResume(definition, kafka_options, store));
  } else if (iceberg_source) {
    FLOE_ASSIGN_OR_RETURN(job_options.min_checkpoint_id,
                          PlanIcebergResume(definition, iceberg_options, store));
  } else {
    FLOE_ASSIGN_OR_RETURN(job_options.min_checkpoint_id,
                          PlanResume(definition, source_options, store));
  }

  // A DDL on a table while a snapshot read it makes the snapshot stale
  // (kStale, before anything of it can be committed): the job runs again
  // from its last completed checkpoint — as after a crash — and takes the
  // snapshot again. (A checkpoint can complete before the snapshot's first
  // chunk, so "no checkpoint yet" is not required.)
  constexpr int kSnapshotAttempts = 10;
  Status status = Ok();
  engine::CheckpointId last_checkpoint = 0;
  for (int attempt = 1;; ++attempt) {
    auto positions = std::make_shared<sink::CheckpointPositions>();
    engine::Job job(job_options);
    auto rows = job.AddSource<sink::RowBatch>(
        "source", 1,
        [iceberg_source, kafka_source, source_options, iceberg_options, kafka_options, positions,
         stats](int) -> std::unique_ptr<engine::SourceOperator<sink::RowBatch>> {
          if (iceberg_source) {
            return std::make_unique<IcebergTablesSource>(iceberg_options, positions, stats);
          }
          if (kafka_source) return std::make_unique<KafkaSource>(kafka_options, positions, stats);
          return std::make_unique<CaptureSource>(source_options, positions, stats);
        });
    auto on_commit = run.on_commit;
    sink::AddSinkStages(job, rows, sink_options, positions,
                        [stats, on_commit, metrics](const sink::CommitOutcome& outcome) {
                          metrics->Committed(outcome);
                          stats->CountCommit(outcome.checkpoint_id);
                          if (on_commit) on_commit(outcome);
                        });
    if (attempt == 1) {
      spdlog::info("run: pipeline '{}', state in {}, checkpoints every {} ms",
                   definition.pipeline.name, state_dir,
                   definition.pipeline.checkpoint_interval.count());
    }
    status = engine::RunUntilStopped(job, run.stop);
    last_checkpoint = job.last_completed_checkpoint();
    if (member != nullptr && !status && status.error().code() == ErrorCode::kCommitConflict &&
        (run.stop == nullptr || !run.stop->load())) {
      // Another member committed what this one had read: drop what is not
      // committed and read again from what the lake holds.
      spdlog::warn("run: {}; reading again from the lake", status.error().message());
      job_options.min_checkpoint_id = std::max(job_options.min_checkpoint_id, last_checkpoint);
      --attempt;  // not a snapshot attempt
      continue;
    }
    bool stale = !status && status.error().code() == ErrorCode::kStale;
    if (!stale || attempt >= kSnapshotAttempts || (run.stop != nullptr && run.stop->load())) break;
    spdlog::warn("run: {}; taking the snapshot again (attempt {} of {})",
                 definition.Redact(status.error().message()), attempt + 1, kSnapshotAttempts);
  }
  if (!status) metrics->SetFailed(definition.Redact(status.error().ToString()));

  RunSummary summary;
  summary.pipeline_id = sink_options.pipeline_id;
  summary.state_dir = state_dir;
  summary.changes = stats->events_read.load();
  summary.rows = stats->rows_emitted.load();
  summary.commits = stats->commits.load();
  summary.tables_created = stats->tables_created.load();
  summary.schema_changes = stats->schema_changes.load();
  summary.last_checkpoint = last_checkpoint;
  if (!status) return std::unexpected(std::move(status).error());
  return summary;
}

namespace {

/// CheckPipeline of an iceberg source: the source catalog's selected tables.
Result<std::vector<TableRoute>> CheckIcebergPipeline(const pipeline::PipelineDefinition& definition,
                                                     const std::string& catalog_config_path) {
  FLOE_ASSIGN_OR_RETURN(IcebergTablesSourceOptions options,
                        MakeIcebergTablesSourceOptions(definition, catalog_config_path));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> sink_catalog, options.sink.catalog());
  FLOE_RETURN_IF_ERROR_CTX(sink_catalog->ListNamespaces({}),
                           "listing the sink catalog's namespaces");
  auto source_catalog = options.source_catalog();
  FLOE_RETURN_IF_ERROR_CTX(source_catalog, "opening the source catalog");
  FLOE_ASSIGN_OR_RETURN(auto selected, SelectSourceTables(**source_catalog, options));
  std::vector<TableRoute> routes;
  for (const SelectedTable& t : selected) {
    FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, (*source_catalog)->LoadTable(t.source));
    const types::Schema* schema = loaded.metadata.CurrentSchema();
    const bool has_key = schema != nullptr && !schema->identifier_field_ids().empty();
    routes.push_back({t.source.ToString(), t.sink.ToString(), has_key});
  }
  return routes;
}

/// CheckPipeline of a kafka source: the consumer opens (brokers answer,
/// listed topics exist) and the sink catalog answers. Its tables are known
/// only from the events, so none is listed.
Result<std::vector<TableRoute>> CheckKafkaPipeline(const pipeline::PipelineDefinition& definition,
                                                   const std::string& catalog_config_path) {
  FLOE_ASSIGN_OR_RETURN(KafkaSourceOptions options,
                        MakeKafkaSourceOptions(definition, catalog_config_path));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.sink.catalog());
  FLOE_RETURN_IF_ERROR_CTX(catalog->ListNamespaces({}), "listing the sink catalog's namespaces");
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(options.consumer));
  consumer->Close();
  return std::vector<TableRoute>{};
}

}  // namespace

Result<std::vector<TableRoute>> CheckPipeline(const pipeline::PipelineDefinition& definition,
                                              const std::string& catalog_config_path) {
  if (definition.source.is_iceberg()) return CheckIcebergPipeline(definition, catalog_config_path);
  if (definition.source.is_kafka()) return CheckKafkaPipeline(definition, catalog_config_path);
  FLOE_ASSIGN_OR_RETURN(CaptureSourceOptions options,
                        MakeCaptureSourceOptions(definition, catalog_config_path));
  if (definition.source.is_postgres()) {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.sink.catalog());
    FLOE_RETURN_IF_ERROR_CTX(catalog->ListNamespaces({}), "listing the sink catalog's namespaces");
    return CheckPostgresSource(definition);
  }
  FLOE_ASSIGN_OR_RETURN(auto conn, cdc::mysql::Connection::Open(options.capture.connection));
  FLOE_RETURN_IF_ERROR(cdc::mysql::CheckServerForCapture(*conn));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.sink.catalog());
  FLOE_RETURN_IF_ERROR_CTX(catalog->ListNamespaces({}), "listing the sink catalog's namespaces");
  FLOE_ASSIGN_OR_RETURN(
      auto rows,
      conn->Query(
          "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE "
          "TABLE' AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', "
          "'sys') ORDER BY TABLE_SCHEMA, TABLE_NAME"));
  FLOE_ASSIGN_OR_RETURN(auto keyed_rows,
                        conn->Query("SELECT DISTINCT TABLE_SCHEMA, TABLE_NAME FROM "
                                    "information_schema.TABLE_CONSTRAINTS WHERE "
                                    "CONSTRAINT_TYPE = 'PRIMARY KEY'"));
  std::set<std::string> keyed;
  for (const auto& r : keyed_rows) {
    if (r.size() >= 2 && r[0] && r[1]) keyed.insert(*r[0] + "." + *r[1]);
  }
  std::vector<TableRoute> routes;
  for (const auto& r : rows) {
    if (r.size() < 2 || !r[0] || !r[1]) continue;
    if (!options.capture.selector(*r[0], *r[1])) continue;
    FLOE_ASSIGN_OR_RETURN(auto sink, definition.RouteFor(*r[0], *r[1]));
    std::string source = *r[0] + "." + *r[1];
    const bool has_key = keyed.contains(source);
    routes.push_back({std::move(source), sink.ToString(), has_key});
  }
  return routes;
}

}  // namespace floe::run
