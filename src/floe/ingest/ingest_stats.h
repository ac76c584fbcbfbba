#pragma once
/// Counters of a running `floe ingest`, shared between the source subtask
/// (which updates them, once per Poll for the per-table counts) and whoever
/// shows progress (the CLI's progress line, the end summary). Counts are for
/// this run of the process; the checkpointed totals since the pipeline began
/// are in the source state (docs/ingest.md, "Positions and restarts").
/// Thread-safe.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace floe::ingest {

struct IngestStats {
  /// Non-empty lines read (every event, good or bad).
  std::atomic<int64_t> events_read{0};
  /// Rows handed to the writers (an update with a before image counts 2).
  std::atomic<int64_t> rows_emitted{0};
  /// Tombstones, heartbeats and schema-change events skipped (and
  /// truncations of tables that do not exist).
  std::atomic<int64_t> events_skipped{0};
  /// Truncations handed to the writers (op "t", capture's TRUNCATE TABLE).
  std::atomic<int64_t> truncates{0};
  /// Events skipped because their table already holds them: the lake was
  /// ahead of the restored checkpoint (IngestSourceOptions::committed_until).
  std::atomic<int64_t> already_committed{0};
  /// Bad events written to the dead-letter file (--on-error skip).
  std::atomic<int64_t> dead_letters{0};
  /// Input bytes consumed.
  std::atomic<int64_t> bytes_read{0};
  /// Tables created and schema changes committed by the source.
  std::atomic<int64_t> tables_created{0};
  std::atomic<int64_t> schema_changes{0};
  /// Commits done by the committers and the last committed checkpoint id.
  std::atomic<int64_t> commits{0};
  std::atomic<int64_t> last_committed_checkpoint{0};

  /// One commit of checkpoint `checkpoint_id` (any thread).
  void CountCommit(int64_t checkpoint_id) {
    commits.fetch_add(1);
    int64_t last = last_committed_checkpoint.load();
    while (checkpoint_id > last &&
           !last_committed_checkpoint.compare_exchange_weak(last, checkpoint_id)) {
    }
  }

  /// Adds `rows` to the count of table `table`.
  void AddTableRows(const std::string& table, int64_t rows) {
    std::lock_guard lock(mu_);
    rows_per_table_[table] += rows;
  }
  /// A copy of the rows per table.
  std::map<std::string, int64_t> RowsPerTable() const {
    std::lock_guard lock(mu_);
    return rows_per_table_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> rows_per_table_;
};

}  // namespace floe::ingest
