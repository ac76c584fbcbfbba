#include "floe/source/read_job.h"

#include <algorithm>

#include "floe/engine/job.h"
#include "floe/engine/run_until_stopped.h"
#include "floe/io/file_io.h"
#include "floe/source/split_enumerator.h"

namespace floe::source {

namespace {
constexpr std::string_view kReaderStage = "read";
constexpr std::string_view kOutputStage = "output";
}  // namespace

Result<ReadSummary> RunRead(ReadOptions options, const std::atomic<bool>* stop) {
  FLOE_RETURN_IF_ERROR(ValidatePlanOptions(options.plan));
  if (options.parallelism < 1) return InvalidArgument("--parallelism must be at least 1");
  if (!options.catalog) return InvalidArgument("no catalog");
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.catalog());
  FLOE_ASSIGN_OR_RETURN(iceberg::TableIdentifier id,
                        iceberg::TableIdentifier::Parse(options.table));
  // Fails early (kNotFound) for a table that does not exist.
  FLOE_RETURN_IF_ERROR(catalog->LoadTable(id));

  io::LocalFileIO state_io;
  std::unique_ptr<engine::CheckpointStore> store;
  std::vector<std::string> restored;
  ReadSummary summary;
  if (!options.state_dir.empty()) {
    store = std::make_unique<engine::CheckpointStore>(&state_io, options.state_dir + "/checkpoints",
                                                      options.retain_checkpoints);
    FLOE_ASSIGN_OR_RETURN(auto latest, store->LoadLatest());
    if (latest) {
      summary.restored_checkpoint = latest->id;
      const std::string prefix = std::string(kReaderStage) + "/";
      for (const auto& [key, value] : latest->states) {
        if (key.starts_with(prefix)) restored.push_back(value);
      }
    }
  }

  // More readers than a snapshot has splits: the splits are made smaller,
  // so that every reader gets a part (unless the target size was given).
  options.plan.split_overrides.min_splits = options.parallelism;
  EnumeratorOptions eo;
  eo.table_name = options.table;
  eo.load = [catalog, id]() -> Result<iceberg::TableMetadata> {
    FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, catalog->LoadTable(id));
    return std::move(loaded.metadata);
  };
  eo.io = &catalog->file_io();
  eo.plan = options.plan;
  eo.monitor_interval = options.monitor_interval;
  eo.readers = options.parallelism;
  eo.max_allowed_planning_failures = options.max_allowed_planning_failures;
  auto enumerator = std::make_shared<SplitEnumerator>(eo);
  FLOE_RETURN_IF_ERROR(enumerator->Start(restored));

  // Seed 000: a batch read needs no more readers than it has splits.
  int readers = options.parallelism;
  if (!options.plan.streaming) {
    readers = static_cast<int>(std::clamp<size_t>(enumerator->pending_splits(), 1,
                                                  static_cast<size_t>(options.parallelism)));
  }
  enumerator->SetReaders(readers);
  summary.readers = readers;

  engine::JobOptions jo;
  jo.checkpoint_interval = options.checkpoint_interval;
  jo.store = store.get();
  engine::Job job(jo);
  SplitReaderOptions ro;
  ro.columns = options.plan.columns;
  ro.filter = options.plan.filter;
  ro.case_sensitive = options.plan.case_sensitive;
  ro.changelog = options.plan.changelog;
  ro.format = options.format;
  ro.db = iceberg::NamespaceToString(id.ns);
  ro.table = id.name;
  ro.restored_checkpoint = summary.restored_checkpoint;
  auto counters = std::make_shared<ReadCounters>();
  ro.counters = counters;
  io::FileIO* file_io = &catalog->file_io();
  auto rows = job.AddSource<RowChunk>(std::string(kReaderStage), readers, [=](int) {
    return std::make_unique<IcebergSplitReader>(enumerator, file_io, ro);
  });
  JsonLinesOutputOptions out = options.output;
  out.sync = store != nullptr;
  out.on_limit = [&job] { job.RequestStop(); };
  job.AddOperator<RowChunk, engine::Nothing>(
      std::string(kOutputStage), 1, rows, nullptr,
      [out](int) { return std::make_unique<JsonLinesOutput>(out); });
  FLOE_RETURN_IF_ERROR(engine::RunUntilStopped(job, stop));
  summary.splits_planned = enumerator->splits_planned();
  summary.last_checkpoint = job.last_completed_checkpoint();
  summary.splits_read = counters->splits.load();
  summary.changelog_splits_read = counters->changelog_splits.load();
  summary.data_files_read = counters->data_files.load();
  summary.delete_files_read = counters->delete_files.load();
  // The rows before a refused snapshot are out (and checkpointed); now the refusal.
  if (auto refused = enumerator->stopped_by()) return std::unexpected(std::move(*refused));
  return summary;
}

}  // namespace floe::source
