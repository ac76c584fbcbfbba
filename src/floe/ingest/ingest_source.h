#pragma once
/// IngestSource: the source operator of `floe ingest` (docs/ingest.md). It
/// reads change events line by line from its inputs (files one after the
/// other, or standard input), decodes them (`debezium-json`, `canal-json` or
/// `json`), finds or creates their tables and evolves their schemas
/// (TableResolver), and hands the rows to the writers through a
/// sink::RowBatcher. Debezium and canal lines go through a
/// ChangeEventHandler (change_event_handler.h), as the Kafka source's
/// messages do.
///
/// Rows per event:
///   op c, r   -> kInsert(after)
///   op u      -> kUpdateBefore(before), then kUpdateAfter(after); without a
///                before image, a table with identifier fields (not upsert)
///                gets kUpdateBefore(after): the row with the same key. Upsert
///                tables get only kUpdateAfter (it replaces its key), plus
///                kDelete(before) when the update changed the key
///   op d      -> kDelete(before)
///   op t      -> RowBatcher::Truncate of the event's table (also a
///                `floe capture` schema-change event of kind
///                "truncate_table"); a table that does not exist and cannot
///                be created has nothing to truncate (skipped)
///   json rows -> kInsert
/// Tombstones, heartbeats and other schema-change events are skipped and
/// counted.
///
/// Positions: its checkpoint state is the input file, the byte offset after
/// the last consumed line, the line number, the dead-letter file's size and
/// the totals since the pipeline began; the position "file:offset" also goes
/// into the shared sink::CheckpointPositions, from which committers copy it
/// into each snapshot summary. Every Poll ends with RowBatcher::Flush, so a
/// checkpoint's position never covers a row still held back.
///
/// Bad input (a malformed event, a value of the wrong type, an unknown op, a
/// missing before/after image, an incompatible schema change, a change for a
/// table that does not exist and cannot be created, a null primary key) is
/// reported as "FILE:LINE (offset N): reason". `OnError::kFail` fails Poll with
/// it (the job stops before the checkpoint that would contain the event);
/// `OnError::kSkip` appends {"file","line","offset","error","event"} as one
/// line to the dead-letter file and continues. On restore the dead-letter
/// file is truncated to the size recorded in the checkpoint, so replayed bad
/// events are not written twice.
///
/// Errors that are not the event's fault (catalog I/O, commit failures,
/// cancellation) always fail the job.
///
/// Parallel decoding (decode_parallelism > 1; docs/ingest.md, "Parallel
/// decoding"): within one Poll, the lines already in the read buffer are
/// taken as one chunk (up to decode_chunk_lines), split into contiguous
/// ranges, and each range is decoded (and, for json rows, mapped into the
/// table's column order) by its own decoder on its own thread (a DecodePool
/// started once by Open). Then the source's thread handles the decoded lines
/// one after the other in input order, exactly as it handles a line decoded
/// by itself: tables are resolved, created and evolved, truncations and
/// schema-change events are applied, bad lines are reported or dead-lettered,
/// rows go to the batcher. So rows reach the writers in input order (events
/// of one key stay in order), and positions, checkpoints and dead letters are
/// those of sequential decoding: the position only moves once the whole chunk
/// was handed on, and Poll still ends with a flush. A line whose decoding
/// depended on state that the lines before it in the chunk changed (a
/// Debezium event without a schema block, decoded with the schema of
/// another table or of an older table version) is decoded again on the
/// source's thread; json rows whose table cannot be resolved make the chunk
/// go through the sequential path. A Debezium before image is limited to the
/// fields floe reads (cdc::DebeziumJsonReader::LimitBeforeImage) by each
/// decoder from the lines the source's thread handled before the chunk, so
/// in a chunk the first before images of a table may be decoded in full
/// (as after a restart). Standard input and --follow use it for what is
/// buffered; a chunk of fewer than 64 lines is decoded sequentially.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/ingest/change_event_handler.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/table_resolver.h"
#include "floe/io/file_io.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::ingest {

enum class OnError : uint8_t {
  kFail,  ///< "fail" (default): the first bad event fails the run
  kSkip,  ///< "skip": bad events go to the dead-letter file
};
Result<OnError> ParseOnError(std::string_view text);

/// A place in the inputs: the index of the input and a byte offset in it.
/// Ordered by input, then offset.
struct InputPosition {
  size_t input_index = 0;
  int64_t offset = 0;
  friend auto operator<=>(const InputPosition&, const InputPosition&) = default;
};

struct IngestSourceOptions {
  /// Input files, read one after the other; "-" is standard input.
  std::vector<std::string> inputs;
  InputFormat format = InputFormat::kDebeziumJson;
  /// Keep reading the last input as it grows (like `tail -f`).
  bool follow = false;
  OnError on_error = OnError::kFail;
  /// Where skipped bad events go (required with kSkip; when set, it is also
  /// truncated to its checkpointed size on restore).
  std::string dead_letter_path;
  /// What the dead-letter file is written through (null: a LocalFileIO).
  std::shared_ptr<io::FileIO> file_io;
  /// Destination tables, creation and evolution.
  TableResolverOptions tables;
  /// Tables that already hold more than the restored checkpoint (its state
  /// was lost or damaged after they committed; docs/ingest.md, "Positions and
  /// restarts"), by table key ("ns.table"): an event of such a table that
  /// starts before the position is already in the table and is skipped.
  std::map<std::string, InputPosition> committed_until;
  /// The sink options (write parallelism and distribution for the
  /// RowBatcher; `catalog` opens the source's own catalog).
  sink::SinkOptions sink;
  /// Limits of one Poll: lines, and time (Poll returns within about this,
  /// also with --follow and no input).
  size_t max_lines_per_poll = 16384;
  std::chrono::milliseconds max_poll_time{200};
  /// Rows per RowBatch.
  size_t batch_rows = 1024;
  /// Threads that decode lines (`--decode-parallelism`; the source's own
  /// thread is one of them). 0: `sink.write_parallelism`. 1: every line is
  /// decoded on the source's thread, one after the other. More: see
  /// "Parallel decoding" below.
  size_t decode_parallelism = 0;
  /// The most lines decoded in parallel at once (one chunk).
  size_t decode_chunk_lines = 4096;
};

/// Checks the options on their own (before a job is built).
Status ValidateIngestSourceOptions(const IngestSourceOptions& options);

class IngestSource final : public engine::SourceOperator<sink::RowBatch> {
 public:
  /// `positions` is shared with the committers; `stats` (may be null) must
  /// outlive the source.
  IngestSource(IngestSourceOptions options, std::shared_ptr<sink::CheckpointPositions> positions,
               IngestStats* stats);
  ~IngestSource() override;

  /// Opens the catalog, the input at the restored position and the
  /// dead-letter file (truncated to its restored size). Errors: a state that
  /// names an input not among `inputs`; the input's open errors.
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  Result<bool> Poll(engine::Collector<sink::RowBatch>& out) override;
  Result<std::string> SnapshotState(engine::CheckpointId id) override;
  void Close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
