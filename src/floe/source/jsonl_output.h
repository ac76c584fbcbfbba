#pragma once
/// JsonLinesOutput: the end of `floe read`'s job (docs/read.md, "Exactly-once
/// output"). One subtask writes the readers' row chunks to a file
/// descriptor (standard output or --output FILE) as they arrive.
///
/// Exactly once, for a regular file: at each checkpoint barrier it fsyncs
/// the file and records its length (and the rows written) as its state; the
/// checkpoint becomes durable only after that. A restored job first cuts the
/// file back to the recorded length, then appends after it: the rows after
/// the last checkpoint, which the readers read again, are written once. A
/// file shorter than the recorded length (replaced, or truncated by `>`) is
/// refused (kInvalidArgument). A pipe or terminal cannot be cut back, so the
/// CLI refuses --state-dir with one.
///
/// With a limit, it writes the first `limit` rows (counted across restarts)
/// and then calls `on_limit` once (to stop the job); later rows are dropped.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "floe/engine/operator.h"
#include "floe/source/split_reader.h"

namespace floe::source {

struct JsonLinesOutputOptions {
  /// The descriptor written; not owned.
  int fd = 1;
  /// Whether fd is a regular file (cut back on restore, fsynced at checkpoints).
  bool regular_file = false;
  /// A fresh start (no restored state) cuts a regular file to 0 bytes
  /// (--output FILE) instead of appending to what it holds (stdout >> FILE).
  bool truncate_on_fresh_start = false;
  /// fsync at every checkpoint (with a state folder). Default true.
  bool sync = true;
  std::optional<int64_t> limit;
  std::function<void()> on_limit;
};

class JsonLinesOutput final : public engine::Operator<RowChunk, engine::Nothing> {
 public:
  explicit JsonLinesOutput(JsonLinesOutputOptions options);

  /// Cuts the file back to the restored length (or per
  /// truncate_on_fresh_start). Errors: kInvalidArgument (the file is shorter
  /// than the checkpoint says), kIo, kCorruption (a state that does not parse).
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Writes the chunk (kIo on a failed write).
  Status Process(RowChunk chunk, engine::Collector<engine::Nothing>& out) override;
  /// fsyncs and returns {"bytes":N,"rows":R}.
  Result<std::string> SnapshotState(engine::CheckpointId id,
                                    engine::Collector<engine::Nothing>& out) override;

  int64_t rows() const { return rows_; }

 private:
  Status WriteAll(std::string_view text);

  JsonLinesOutputOptions options_;
  int64_t bytes_ = 0;  ///< the file's length (regular files) or bytes written
  int64_t rows_ = 0;
  bool limit_reached_ = false;
};

}  // namespace floe::source
