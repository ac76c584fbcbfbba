#pragma once
/// The `floe read` job (docs/read.md): an engine job
///
///   split readers (IcebergSplitReader, --parallelism; a batch read uses
///   min(splits, parallelism)), sharing one SplitEnumerator (the monitor)
///     --RowChunk (JSON Lines)--> output (JsonLinesOutput, 1 subtask)
///
/// with its checkpoints in a state folder when one is given, so that a read
/// killed at any moment and started again with the same arguments goes on
/// after the last row of its last checkpoint (the output protocol is in
/// jsonl_output.h). The CLI fills ReadOptions from its flags; tests call
/// RunRead directly.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/catalog.h"
#include "floe/source/jsonl_output.h"
#include "floe/source/split_planner.h"
#include "floe/source/split_reader.h"

namespace floe::source {

struct ReadOptions {
  /// The table, "ns.table".
  std::string table;
  /// Opens the catalog (once per run).
  std::function<Result<std::shared_ptr<iceberg::Catalog>>()> catalog;
  /// Starting strategy, range, skips, filter, columns, split sizes.
  PlanOptions plan;
  /// `--monitor-interval` (default 10 s).
  std::chrono::milliseconds monitor_interval{10'000};
  /// `--max-allowed-planning-failures` (default 3; -1: never fail).
  int max_allowed_planning_failures = 3;
  /// `--parallelism`: split readers (default 1).
  int parallelism = 1;
  /// `--state-dir`: checkpoints in "<state-dir>/checkpoints"; empty: none
  /// (nothing survives the process).
  std::string state_dir;
  /// `--checkpoint-interval` (default 10 s).
  std::chrono::milliseconds checkpoint_interval{10'000};
  /// `--format`: json (default) or debezium-json (change_format.h).
  OutputFormat format = OutputFormat::kJson;
  /// Where rows go; its `on_limit` is set by RunRead.
  JsonLinesOutputOptions output;
  /// Checkpoints kept in the state folder.
  int retain_checkpoints = 3;
};

struct ReadSummary {
  int readers = 0;
  int64_t splits_planned = 0;
  /// The checkpoint restored (0: a fresh start) and the last one completed.
  engine::CheckpointId restored_checkpoint = 0;
  engine::CheckpointId last_checkpoint = 0;
  /// What this run's readers read (split_reader.h, ReadCounters; a restored
  /// split counts again).
  int64_t splits_read = 0;
  int64_t changelog_splits_read = 0;
  int64_t data_files_read = 0;
  int64_t delete_files_read = 0;
};

/// Runs a read until it ends (a batch read, or an end snapshot, after a
/// final checkpoint), the limit is reached, or `*stop` (may be null) becomes
/// true (then a final checkpoint is taken). Errors: kInvalidArgument (bad
/// options, unknown columns), kNotFound (table, snapshots), kNotSupported (an
/// overwrite or delete snapshot not skipped), reading and planning errors,
/// the output's errors.
Result<ReadSummary> RunRead(ReadOptions options, const std::atomic<bool>* stop = nullptr);

}  // namespace floe::source
