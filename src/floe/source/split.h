#pragma once
/// IcebergSplit: the unit of work of the Iceberg source (docs/read.md): data
/// files of one snapshot, each with the delete files that apply to it, read
/// one after the other by one split reader. Small files are packed into one
/// split as Iceberg's planner does (`read.split.target-size`,
/// `read.split.open-file-cost`); a file larger than the target size is cut
/// at its split offsets (row group starts) into parts of about the target
/// size, each read as the row groups that start in its byte range. Files
/// are packed with a look-back over the splits still open, as Iceberg's
/// bin packing does.
///
/// A split is serialized into checkpoint state with only what reading needs
/// (paths, formats, record counts, sequence numbers, equality ids), not the
/// files' metrics or partition tuples.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/common/result.h"
#include "floe/iceberg/data/table_scan.h"

namespace floe::source {

/// A part of a data file: the row groups that start in [start, end) (end
/// nullopt: to the end of the file). The default is the whole file.
struct FileRange {
  int64_t start = 0;
  std::optional<int64_t> end;
  bool whole() const { return start == 0 && !end; }
};

struct IcebergSplit {
  /// The snapshot whose rows these are: rows are read in its schema.
  iceberg::SnapshotId snapshot_id = 0;
  /// That schema's id (the snapshot's schema-id, else the schema current
  /// when it was planned).
  int32_t schema_id = 0;
  /// Files to read, in order.
  std::vector<iceberg::FileScanTask> tasks;
  /// The part of each task's file to read, one per task (empty: whole files).
  std::vector<FileRange> ranges;
  /// A changelog split (`--changelog`): the row-level changes of
  /// `snapshot_id` against `parent` (changelog.h), computed when read;
  /// `tasks` is empty.
  bool changelog = false;
  std::optional<iceberg::SnapshotId> parent;
  /// The files of a whole-table scan (table-scan-then-incremental), not of
  /// an append (Debezium op "r" rather than "c").
  bool whole_table = false;

  FileRange RangeOf(size_t task) const { return task < ranges.size() ? ranges[task] : FileRange{}; }
};

/// How files become splits. Defaults are Iceberg's table property defaults.
struct SplitOptions {
  /// read.split.target-size: 128 MiB.
  int64_t target_size = int64_t{128} << 20;
  /// read.split.open-file-cost: 4 MiB, the least weight a file has.
  int64_t open_file_cost = int64_t{4} << 20;
  /// read.split.planning-lookback (Flink's split-lookback): 10 splits are
  /// open for more files at a time; a file that fits none opens another,
  /// and past this many the fullest is closed.
  int lookback = 10;
  /// floe's own: when the files of a snapshot pack into fewer splits than
  /// this, they are packed again with a target of their total weight over
  /// this (a read with more readers than splits gives each a part). 1: off.
  int min_splits = 1;
};

/// What a read sets over the table's properties: values > 0 win.
struct SplitOverrides {
  int64_t target_size = 0;
  int64_t open_file_cost = 0;
  int lookback = 0;
  /// SplitOptions::min_splits (not a table property); applies only when
  /// the target size is not given here.
  int min_splits = 1;
};

/// SplitOptions from table properties (read.split.target-size,
/// read.split.open-file-cost, read.split.planning-lookback), with
/// `overrides` taking precedence.
SplitOptions SplitOptionsFor(const std::map<std::string, std::string>& properties,
                             const SplitOverrides& overrides = {});

/// Packs `tasks` (all of `snapshot_id`) into splits. A file larger than
/// target_size with several split offsets is first cut into parts: a new
/// part begins at the first offset at least target_size past the start of
/// the current one (the first part starts at 0, the last runs to the end,
/// so every row group is in exactly one part). Then a file or part weighs
/// max(size, open_file_cost) and goes, in order, into the first open split
/// it fits (the total within target_size), else into a new split; when more
/// than `lookback` splits are open, the fullest is closed. Splits come out
/// as they are closed, then the open ones in the order they were opened.
/// With fewer splits than `min_splits`, packed again with a smaller target
/// (see SplitOptions). Deterministic; never returns an empty split; an
/// empty input gives no split.
std::vector<IcebergSplit> PackSplits(iceberg::SnapshotId snapshot_id, int32_t schema_id,
                                     std::vector<iceberg::FileScanTask> tasks,
                                     const SplitOptions& options);

nlohmann::json SplitToJson(const IcebergSplit& split);
/// Errors: kCorruption naming the missing or mistyped member.
Result<IcebergSplit> SplitFromJson(const nlohmann::json& j);

}  // namespace floe::source
