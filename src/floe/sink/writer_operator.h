#pragma once
/// WriterOperator: a writer subtask of the sink (docs/sink-writers.md). It
/// keeps one TableWriter per table (by `TableTarget::key`), writes every
/// RowBatch it receives, and at each checkpoint barrier completes its files
/// and emits one WriteResult per table and partition spec ahead of the
/// barrier. Writers are stateless: SnapshotState returns an empty state,
/// because files not in a completed checkpoint are never committed (a
/// restart rewinds the source to that checkpoint's position).
///
/// Memory: the subtask reports its buffered bytes to a MemoryBudget shared
/// by all writer subtasks of the job after every batch. While it is over its
/// share it relieves what can be freed before the checkpoint: first the row
/// groups of its tables, largest first (pages, dictionaries and their hash
/// tables: the files stay open), then the open files of tables it has not
/// written for a while, least recently written first (their fixed buffers).
/// Key maps, pending position deletes and completed files' metadata are
/// freed only by the checkpoint; no file is completed to make up for them.
///
/// Open files: past `SinkOptions::max_open_files` open data and delete files
/// the subtask completes the files of every other table that has some (they
/// stay in the checkpoint's results; the tables' next rows start new files).
/// At the checkpoint the tables' files are completed on `commit_threads`
/// threads.
///
/// Durability: the subtask writes through an io::DeferredSyncFileIO, so the
/// files it completes are not synced one by one; SnapshotState makes all of
/// them durable together (one file system flush for thousands of small
/// files) before it emits the results that name them.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/engine/operator.h"
#include "floe/iceberg/catalog.h"
#include "floe/io/deferred_sync_file_io.h"
#include "floe/sink/memory_budget.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/table_writer.h"

namespace floe::sink {

class WriterOperator final : public engine::Operator<RowBatch, WriteResult> {
 public:
  /// `budget` is shared by all writer subtasks of the job (nullptr: one of
  /// `options.memory_budget_bytes` for this subtask alone). Files are written
  /// through `io` when given, else through the FileIO of a catalog opened
  /// with `options.catalog` in Open.
  WriterOperator(SinkOptions options, std::shared_ptr<MemoryBudget> budget,
                 std::shared_ptr<io::FileIO> io = nullptr);
  ~WriterOperator() override;

  /// Errors: those of the catalog factory; kInvalidArgument without a
  /// FileIO or catalog factory.
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Writes the batch to its table's writer (creating it, or switching it to
  /// a new target); a batch with `truncate` set first truncates the table's
  /// writer (TableWriter::Truncate), so the table's WriteResult of this
  /// checkpoint says `truncated`. Errors: those of TableWriter (naming the table).
  Status Process(RowBatch batch, engine::Collector<WriteResult>& out) override;
  /// Completes every table's files and emits their WriteResults; returns "".
  Result<std::string> SnapshotState(engine::CheckpointId id,
                                    engine::Collector<WriteResult>& out) override;
  /// Deletes the files written since the last checkpoint (never committed).
  void Close() override;

  /// Introspection for tests and progress.
  size_t num_tables() const { return tables_.size(); }
  size_t num_open_files() const;
  int64_t buffered_bytes() const { return account_ ? account_->bytes() : 0; }
  int64_t flushes() const { return flushes_; }
  int64_t file_closes() const { return file_closes_; }
  /// Times the open-file limit made the subtask complete other tables' files.
  int64_t open_file_sweeps() const { return open_file_sweeps_; }
  /// Truncate batches applied.
  int64_t truncates() const { return truncates_; }

  /// Relieving memory, a table's row group is flushed only when it holds at
  /// least this much (and at least 1/16 of the subtask's share), so that a
  /// subtask held over its share by key maps does not cut tiny row groups.
  static constexpr size_t kMinFlushBytes = 256 << 10;
  /// Relieving memory, a table's open files are completed only when the
  /// subtask has processed this many batches since the table's last one
  /// (and never for the table of the batch just written): completing a
  /// table's file that its next rows reopen frees nothing.
  static constexpr uint64_t kMinIdleBatches = 16;
  /// Times relieving memory found the pinned bytes (key maps, pending
  /// deletes, file metadata) alone above the relief target.
  int64_t pinned_over_target() const { return pinned_over_target_; }

 private:
  struct Table {
    std::unique_ptr<TableWriter> writer;
    int64_t bytes = 0;        ///< last buffered_bytes()
    size_t open_files = 0;    ///< last num_open_files()
    uint64_t last_batch = 0;  ///< batches_ when the table last had a batch
  };
  /// Brings the subtask's bytes towards its relief target (`current`: the
  /// table of the batch just written).
  Status Relieve(const Table* current);
  /// Completes the files of every table but `keep` (over the open-file limit).
  Status CloseOtherFiles(const Table* keep);
  void Account(Table& table);

  SinkOptions options_;
  std::shared_ptr<MemoryBudget> budget_;
  std::shared_ptr<io::FileIO> io_holder_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  std::unique_ptr<io::DeferredSyncFileIO> deferred_io_;  ///< wraps the FileIO (Open)
  io::FileIO* io_ = nullptr;
  int subtask_ = 0;
  std::unique_ptr<MemoryBudget::Account> account_;
  std::unordered_map<std::string, Table> tables_;
  int64_t total_bytes_ = 0;
  size_t open_files_ = 0;      ///< sum of the tables' open_files
  size_t max_open_files_ = 0;  ///< the limit in force (Open)
  int64_t open_file_sweeps_ = 0;
  int64_t flushes_ = 0;
  int64_t file_closes_ = 0;
  int64_t truncates_ = 0;
  uint64_t batches_ = 0;  ///< batches processed
  int64_t pinned_over_target_ = 0;
};

}  // namespace floe::sink
