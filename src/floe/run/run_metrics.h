#pragma once
/// RunMetrics: what a running `floe run` reports about itself — per sink
/// table and for the whole pipeline — for the progress line, the Prometheus
/// `/metrics` page, `/status` and the HTML page of the status server
/// (status_server.h; every metric is described in docs/pipeline.md,
/// "Watching a pipeline").
///
/// Who updates what:
/// - the capture source counts the changes it hands on per sink table and
///   op on its own thread, without a lock, and publishes them once per Poll
///   (PublishHandedOn); at each checkpoint it closes the checkpoint's tally
///   (CheckpointTaken);
/// - the check-commit callback reports each commit (Committed): the
///   checkpoint's tally of that table becomes committed rows, and the commit
///   time of its newest change gives the table's freshness;
/// - the source, told by the job that a checkpoint completed, reports it
///   (CheckpointCompleted);
/// - anyone may record an error (RecordError) or the run's end (SetFailed).
///
/// Counts are for this process (a restart begins again at zero). Memory is
/// bounded: tallies of at most kKeptCheckpoints checkpoints are kept (older
/// ones are merged into the next), and one entry per sink table.
///
/// Thread-safety: every method may be called from any thread; one mutex,
/// taken once per Poll, per checkpoint and per commit — never per row.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "floe/cdc/change.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/sink/record.h"

namespace floe::run {

/// Changes of one sink table, by op, and the source commit time of the
/// newest of them (0: none).
struct TableTally {
  int64_t inserts = 0;
  int64_t updates = 0;
  int64_t deletes = 0;
  int64_t reads = 0;  ///< rows of the initial snapshot
  int64_t max_ts_ms = 0;

  /// Counts one change of `op` committed at `ts_ms` in the source.
  void Count(cdc::ChangeOp op, int64_t ts_ms) {
    switch (op) {
      case cdc::ChangeOp::kInsert:
        ++inserts;
        break;
      case cdc::ChangeOp::kUpdate:
        ++updates;
        break;
      case cdc::ChangeOp::kDelete:
        ++deletes;
        break;
      case cdc::ChangeOp::kRead:
        ++reads;
        break;
    }
    if (ts_ms > max_ts_ms) max_ts_ms = ts_ms;
  }
  void Add(const TableTally& other);
  int64_t total() const { return inserts + updates + deletes + reads; }
  bool empty() const { return total() == 0 && max_ts_ms == 0; }
};

/// Sink table ("ns.table") -> its tally.
using TableTallies = std::map<std::string, TableTally>;

/// One sink table as the pages show it.
struct TableMetrics {
  /// Changes handed on to the writers (this process).
  TableTally handed_on;
  /// Changes in commits of this process (handed on by this process).
  TableTally committed;
  int64_t commits = 0;
  int64_t added_files = 0;
  int64_t last_snapshot_id = -1;  ///< -1: no commit yet
  engine::CheckpointId last_checkpoint = 0;
  double last_commit_seconds = -1;  ///< checkpoint taken -> committed; -1: unknown
  int64_t last_commit_unix_ms = 0;  ///< wall time of the last commit; 0: none
  /// Source commit time of the newest change committed to the table; 0: none yet.
  int64_t newest_committed_ts_ms = 0;
};

/// A PostgreSQL source's replication slot as last read (SlotMonitor,
/// cdc/postgres/slot_monitor.h, at most every few seconds).
struct SlotWalMetrics {
  std::string slot;
  int64_t retained_bytes = 0;      ///< pg_current_wal_lsn() − restart_lsn
  int64_t unconfirmed_bytes = 0;   ///< pg_current_wal_lsn() − confirmed_flush_lsn
  uint64_t confirmed_lsn = 0;      ///< confirmed_flush_lsn as an integer
  std::string confirmed_lsn_text;  ///< the same as the server writes it ("0/16B3748")
  int64_t read_unix_ms = 0;        ///< when it was read
};

/// A consistent copy of everything, for rendering.
struct MetricsSnapshot {
  std::string pipeline;     ///< pipeline.name
  int64_t now_unix_ms = 0;  ///< when the copy was taken
  int64_t started_unix_ms = 0;
  bool snapshot_running = false;
  bool failed = false;            ///< the run stopped with an error (`last_error`)
  std::string position;           ///< binlog position after the last transaction handed on
  int64_t changes = 0;            ///< changes handed on (rows and schema changes)
  int64_t last_change_ts_ms = 0;  ///< source commit time of the last change handed on
  int64_t checkpoints_completed = 0;
  engine::CheckpointId last_checkpoint = 0;
  double last_checkpoint_seconds = -1;  ///< taken at the source -> completed; -1: none
  int64_t last_checkpoint_bytes = -1;   ///< size of its file in the state folder; -1: unknown
  int64_t commits = 0;
  int64_t resident_bytes = -1;       ///< VmRSS; -1: unknown
  int64_t peak_resident_bytes = -1;  ///< VmHWM; -1: unknown
  std::string last_error;
  int64_t last_error_unix_ms = 0;
  std::optional<SlotWalMetrics> slot_wal;  ///< a PostgreSQL source's slot; none before a reading
  std::map<std::string, TableMetrics> tables;
};

class RunMetrics {
 public:
  static constexpr size_t kKeptCheckpoints = 64;

  RunMetrics();

  void SetPipelineName(std::string name);
  void SetSnapshotRunning(bool running);
  bool snapshot_running() const;
  /// The binlog position after the last transaction handed on ("" before any).
  std::string position() const;
  /// Sink tables seen so far.
  size_t table_count() const;

  /// Source: the changes handed on since the last call (`tallies` per sink
  /// table, `changes` of every kind), the position after them and the
  /// source commit time of the last of them (0: unknown, then unchanged).
  /// They also join the open checkpoint's tally.
  void PublishHandedOn(const TableTallies& tallies, int64_t changes, std::string position,
                       int64_t last_change_ts_ms);
  /// Source, at SnapshotState(id): the open tally becomes checkpoint `id`'s.
  void CheckpointTaken(engine::CheckpointId id);
  /// Check-commit callback: a successful commit of `outcome.table`. The
  /// tallies of that table in checkpoints up to `outcome.checkpoint_id` are
  /// counted as committed. A failed outcome is recorded as the last error.
  void Committed(const sink::CommitOutcome& outcome);
  /// Where the checkpoint files are (for their size); unset: size unknown.
  void SetCheckpointDir(std::string dir);
  /// Checkpoint `id` completed (an id not above the last one is ignored).
  /// Its file's size is taken from the checkpoint folder.
  void CheckpointCompleted(engine::CheckpointId id);
  /// Keeps `message` as the last error (shown by /status and the page).
  void RecordError(std::string message);
  /// The run ended with `message` (it is also the last error).
  void SetFailed(std::string message);
  /// A new reading of the PostgreSQL source's slot (read_unix_ms set here).
  void SetSlotWal(SlotWalMetrics slot_wal);

  MetricsSnapshot Read() const;

 private:
  using Clock = std::chrono::steady_clock;
  TableMetrics& TableLocked(const std::string& table);

  mutable std::mutex mu_;
  MetricsSnapshot s_;
  TableTallies open_;  ///< handed on since the last CheckpointTaken
  std::map<engine::CheckpointId, TableTallies> pending_;  ///< taken, not yet committed
  std::map<engine::CheckpointId, Clock::time_point> taken_at_;
  std::string checkpoint_dir_;
};

/// The Prometheus text exposition format (version 0.0.4) of `m`: HELP and
/// TYPE lines, `floe_` names, `_total` counters, seconds and bytes.
std::string RenderPrometheus(const MetricsSnapshot& m);

/// `/status`: the same numbers as JSON (docs/pipeline.md).
std::string RenderStatusJson(const MetricsSnapshot& m);

/// `/`: a self-contained HTML page (no external assets) that reloads itself
/// every `refresh_seconds`.
std::string RenderStatusHtml(const MetricsSnapshot& m, int refresh_seconds = 3);

/// The size of the newest regular file in `dir` (-1 if none or unreadable).
int64_t NewestFileBytes(const std::string& dir);

/// "12 ms", "3.4 s", "2 min 5 s", "3 h 2 min", "4 d 3 h" (negative: "-").
std::string HumanSeconds(double seconds);

}  // namespace floe::run
