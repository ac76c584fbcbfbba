#pragma once
/// IcebergSplitReader: one subtask of the Iceberg source's reader stage
/// (docs/read.md). It asks the shared SplitEnumerator for a split, reads its
/// files one after the other (deletes applied, the filter and the
/// projection of the split's snapshot schema), and emits the rows as JSON
/// Lines (docs/json-rows.md) in chunks of at most one Parquet batch, then
/// asks for the next split.
///
/// Its checkpoint state is the split it is reading and the number of rows
/// of it emitted so far (the enumerator adds the monitor's state, see
/// split_enumerator.h); a restored split is read from its start and its
/// first `position` rows are skipped. Reading a split is deterministic (the
/// same files, deletes and filter give the same rows in the same order), so
/// the skipped rows are the ones emitted before.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/engine/operator.h"
#include "floe/io/file_io.h"
#include "floe/source/change_format.h"
#include "floe/source/split_enumerator.h"

namespace floe::source {

/// Rows of one split as JSON Lines: `rows` lines, each ending in '\n'.
struct RowChunk {
  std::string text;
  int64_t rows = 0;
};

/// What the readers of one job read, shared by them (`floe read --stats`):
/// opens of data files (a file read in parts counts once per part, a file
/// read on both sides of a changelog twice) and loads of delete files (once
/// per data file they apply to); changelog splits among the splits.
struct ReadCounters {
  std::atomic<int64_t> splits{0};
  std::atomic<int64_t> changelog_splits{0};
  std::atomic<int64_t> data_files{0};
  std::atomic<int64_t> delete_files{0};
};

struct SplitReaderOptions {
  /// Columns to return (empty: every column of each snapshot's schema).
  std::vector<std::string> columns;
  /// Row filter, unbound (bound to each snapshot's schema); nullptr: none.
  iceberg::ExprPtr filter;
  bool case_sensitive = true;
  /// `--changelog`: every row is printed as a change (changelog.h,
  /// AppendChangeJson); the rows of appended files as inserts.
  bool changelog = false;
  /// The line format (change_format.h). Default json.
  OutputFormat format = OutputFormat::kJson;
  /// The table's namespace and name, for Debezium's `source`.
  std::string db;
  std::string table;
  /// Rows per chunk at most (one Parquet batch). Default 1024.
  size_t batch_rows = 1024;
  /// Longest wait in Poll for a split when there is none.
  std::chrono::milliseconds idle_wait{100};
  /// The checkpoint the enumerator was restored from (0: none); Open fails
  /// with kInternal if the job restores another one.
  engine::CheckpointId restored_checkpoint = 0;
  /// Added to as splits are read; may be null.
  std::shared_ptr<ReadCounters> counters;
};

class IcebergSplitReader final : public engine::SourceOperator<RowChunk> {
 public:
  /// `enumerator` is shared by every reader of the stage and started
  /// (SplitEnumerator::Start) before the job runs; `io` outlives the reader.
  IcebergSplitReader(std::shared_ptr<SplitEnumerator> enumerator, io::FileIO* io,
                     SplitReaderOptions options);
  ~IcebergSplitReader() override;

  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Emits the next chunk of the current split, or takes a split, or waits
  /// up to idle_wait. Returns false once the enumerator says the read is
  /// finished. Errors: reading a file (kCorruption, kNotFound, kIo naming it),
  /// a column or filter that does not bind to a snapshot's schema
  /// (kInvalidArgument), the enumerator's errors.
  Result<bool> Poll(engine::Collector<RowChunk>& out) override;
  Result<std::string> SnapshotState(engine::CheckpointId id) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::source
