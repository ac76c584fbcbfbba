#pragma once
/// TableWriter: the writer of one table inside one writer subtask
/// (docs/sink-writers.md). It applies RowKinds as Iceberg's Flink sink does
/// (BaseEqualityDeltaWriter):
///
///  - append-only table (no equality fields): inserts and update-afters are
///    written; update-befores and deletes are refused;
///  - changelog (equality fields, not upsert): inserts and update-afters are
///    written and their key remembered with (data file, row position) until
///    the checkpoint; a second write of a key deletes the first by position.
///    Update-befores and deletes delete by position when the key was written
///    in this checkpoint, else write an equality delete of the key;
///  - upsert: inserts and update-afters delete the key (as a delete does)
///    then write the row; update-befores are ignored; deletes delete the key.
///
/// One open data file per partition, rolling at the target size; position
/// deletes are kept in memory and written at Complete as one sorted file per
/// partition (in a format v3 table: one deletion vector per data file, in
/// one Puffin file per partition spec); equality deletes go to one open file
/// per partition.
///
/// Call order: Make, then Write / SetTarget / Flush / CloseFiles in any
/// order, Complete at each checkpoint, Abort when the run ends without one.
/// Not thread-safe (one writer subtask's thread).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/data/equality_delete_writer.h"
#include "floe/io/file_io.h"
#include "floe/sink/record.h"
#include "floe/sink/row_key.h"
#include "floe/sink/sink_options.h"

namespace floe::sink {

/// The data writer options of a target: its table properties, overridden by
/// the job's `target_file_size_bytes` and `compression_codec`. Errors:
/// kInvalidArgument for an unknown codec or metrics mode.
Result<iceberg::DataWriterOptions> ResolveWriterOptions(const TableTarget& target,
                                                        const SinkOptions& options);

class TableWriter {
 public:
  /// A writer for `target` in writer subtask `subtask`, writing through `io`
  /// (which must outlive it). Errors (kInvalidArgument, naming the table):
  /// upsert without equality fields, upsert with overwrite, an equality
  /// field that is not a top-level primitive column, a partition source
  /// column that is not an equality field (when there are equality fields),
  /// bad write options.
  static Result<std::unique_ptr<TableWriter>> Make(io::FileIO& io, TableTargetPtr target,
                                                   const SinkOptions& options, int subtask);
  ~TableWriter();

  const TableTargetPtr& target() const { return target_; }

  /// Switches to a new target of the same table (a schema or spec change):
  /// completes the open files (they stay in this checkpoint's results) and
  /// writes the next rows with the new schema. The key map stays valid.
  /// Errors: those of Make for the new target; kNotSupported when the
  /// equality fields change while keys of this checkpoint are remembered.
  Status SetTarget(TableTargetPtr target);

  /// Applies one row change (a row of the current target's schema).
  /// Errors: kInvalidArgument naming the table for a row of the wrong width,
  /// a value that does not fit its column, or an update-before/delete on a
  /// table without equality fields; I/O errors.
  Status Write(RowKind kind, types::Row row);

  /// Bytes held in memory: buffered row groups of open data and equality
  /// delete files, an estimate of each open file's fixed buffers
  /// (kOpenFileBytesPerColumn per column) and of each file's metadata
  /// until the checkpoint, the key map and pending position deletes. Recomputed on each call (a sum
  /// over open files and columns).
  size_t buffered_bytes() const;
  /// Estimated memory an open Parquet file holds per column beside its row
  /// group (page, compression and dictionary buffers, statistics, row group
  /// metadata), measured with 20-column rows (docs/sink-writers.md).
  static constexpr size_t kOpenFileBytesPerColumn = 6 << 10;
  /// Estimated memory of a completed file's metadata (its DataFile with
  /// per-column metrics) per column, held until the checkpoint.
  static constexpr size_t kFileMetadataBytesPerColumn = 384;
  /// The part of buffered_bytes() that Flush frees: the open files' row
  /// groups (compressed pages, the pages being filled, the dictionaries and
  /// their hash tables).
  size_t flushable_bytes() const;
  /// The part of buffered_bytes() that only Complete (the checkpoint) frees:
  /// the key map, pending position deletes and the metadata of this
  /// checkpoint's files. Neither Flush nor CloseFiles lowers it.
  size_t pinned_bytes() const;
  /// Writes the buffered row groups of every open file (files stay open).
  Status Flush();
  /// Completes the open files (they stay in this checkpoint's results).
  Status CloseFiles();
  size_t num_open_files() const;

  /// The source truncated the table at this point of the stream
  /// (docs/sink-writers.md, "Truncation"): deletes every file written since
  /// the last Complete (open and completed data and equality delete files),
  /// drops the pending position deletes and forgets the keys of this
  /// checkpoint, and marks the checkpoint truncated. Rows written afterwards
  /// go to new files as usual. Never fails (a file that cannot be deleted is
  /// left as an orphan: it is never committed).
  void Truncate();
  /// Whether Truncate was called since the last Complete.
  bool truncated() const { return truncated_; }

  /// Checkpoint: completes every file, writes the position deletes, and
  /// returns one WriteResult per partition spec with files (none when
  /// nothing was written since the last Complete). After a Truncate every
  /// result says `truncated`, and there is at least one (for the current
  /// default spec, without files when nothing was written after it). Forgets the keys of this
  /// checkpoint. The returned files are the caller's: Abort no longer
  /// deletes them.
  Result<std::vector<WriteResult>> Complete();
  /// Deletes every file written since the last Complete.
  void Abort();

  /// Counters since Make.
  int64_t rows_written() const { return rows_written_total_; }
  int64_t position_deletes() const { return position_deletes_total_; }
  int64_t equality_deletes() const { return equality_deletes_total_; }

 private:
  struct FileRef {
    size_t path_index;  ///< into DataWriter paths of generation `generation`
    int32_t spec_id;
    std::string path;
    std::vector<iceberg::Literal> partition;
  };
  struct PendingDelete {
    uint32_t file;
    int64_t pos;
  };
  struct SpecFiles {
    std::vector<iceberg::DataFile> data_files;
    std::vector<iceberg::DataFile> delete_files;
    std::vector<std::string> referenced;
    int64_t rows_written = 0;
    int64_t rows_deleted = 0;
  };

  TableWriter(io::FileIO& io, const SinkOptions& options, int subtask);
  Status Configure(TableTargetPtr target);
  Status EnsureWriters();
  Status CloseGeneration();
  Status WriteData(types::Row row, bool keyed);
  /// Deletes the row of key_: by position when written in this checkpoint
  /// (the key leaves the map), else by an equality delete.
  Status DeleteKey(types::Row row);
  Status WriteEqualityDelete(types::Row row);
  /// An upsert's insert or update-after of key_: writes the row and deletes
  /// the key's earlier row, with one key map probe.
  Status Upsert(types::Row row);
  /// Writes pending_deletes_ as position delete files (Complete); in a v3
  /// table as deletion vectors (WriteDeletionVectors).
  Status WritePendingDeletes();
  /// One deletion vector per data file with deletes, one Puffin file per
  /// partition spec. The vectors name only this checkpoint's data files, so
  /// none has an earlier vector to merge.
  Status WriteDeletionVectors();
  void RegisterFiles();
  SpecFiles& ForSpec(int32_t spec_id);

  io::FileIO& io_;
  const SinkOptions& options_;
  int subtask_;
  TableTargetPtr target_;
  iceberg::DataWriterOptions writer_options_;
  bool keyed_ = false;
  bool upsert_ = false;
  KeyEncoder encoder_;
  size_t width_ = 0;
  size_t key_width_ = 0;

  std::unique_ptr<iceberg::DataWriter> data_;
  std::unique_ptr<iceberg::EqualityDeleteWriter> equality_;
  size_t generation_base_ = 0;  ///< files_ index of data_'s first file

  std::vector<FileRef> files_;  ///< data files of this checkpoint
  KeyMap keys_;
  std::string key_;  ///< the key of the row being written, and its hash
  uint64_t hash_ = 0;
  std::vector<PendingDelete> pending_deletes_;
  std::vector<std::pair<int32_t, SpecFiles>> completed_;  ///< by spec, this checkpoint
  bool truncated_ = false;                                ///< Truncate since the last Complete
  int64_t rows_written_total_ = 0;
  int64_t position_deletes_total_ = 0;
  int64_t equality_deletes_total_ = 0;
};

}  // namespace floe::sink
