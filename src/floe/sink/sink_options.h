#pragma once
/// The options of the sink, with Iceberg's names where Iceberg has one. A job
/// option, when given, wins over the table property of the same name.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"

namespace floe::sink {

class CommitFence;

/// `write.distribution-mode`: how rows are spread over writer subtasks.
enum class DistributionMode : uint8_t {
  kNone,   ///< "none": rows stay on the source's subtask (round-robin by batch)
  kHash,   ///< "hash": by table and partition
  kRange,  ///< "range": by table and key ranges balanced from a sample
};
Result<DistributionMode> ParseDistributionMode(std::string_view text);
std::string_view DistributionModeName(DistributionMode mode);

/// Opens a catalog for one thread (catalog objects are not shared between
/// operator threads). The returned catalog owns or outlives its FileIO.
using CatalogFactory = std::function<Result<std::shared_ptr<iceberg::Catalog>>()>;

struct SinkOptions {
  /// `floe.pipeline-id` in every snapshot summary: which pipeline committed.
  std::string pipeline_id;
  /// Writer subtasks.
  int write_parallelism = 1;
  /// Committer subtasks (each table belongs to one, by table-name hash).
  int commit_parallelism = 1;
  /// Job-level `write.distribution-mode`; unset: the table property, else none.
  std::optional<DistributionMode> distribution_mode;
  /// Job-level `write.upsert.enabled`; unset: the table property, else false.
  std::optional<bool> upsert;
  /// Overwrite mode: each checkpoint replaces the partitions it writes.
  bool overwrite = false;
  /// Job-level `write.target-file-size-bytes`; unset: the table property.
  std::optional<int64_t> target_file_size_bytes;
  /// Job-level `write.parquet.compression-codec`; unset: the table property.
  std::optional<std::string> compression_codec;
  /// The memory all writer subtasks together may hold in buffered rows;
  /// beyond it the largest buffers are flushed to their files.
  int64_t memory_budget_bytes = 512LL << 20;
  /// Open data and delete files per writer subtask; beyond it the files of
  /// the other tables are completed (they stay in the checkpoint, the next
  /// rows start new files), so a checkpoint touching tens of thousands of
  /// tables never runs out of file descriptors. 0: a quarter of the
  /// process's open-file limit (RLIMIT_NOFILE) over the write parallelism.
  int max_open_files = 0;
  /// A table with nothing new gets no snapshot, except one after this many
  /// consecutive empty checkpoints, so the source position is recorded
  /// (`floe.max-continuous-empty-commits`, as Flink's sink).
  int max_continuous_empty_commits = 10;
  /// Threads that write manifests and commit tables in each committer. A
  /// table commit mostly waits for file syncs, so more threads than cores
  /// pay: a checkpoint touching thousands of tables commits them 16 at a
  /// time, and the SQL catalog makes their files durable and swaps their
  /// pointers in one group. Measured with bench/many_tables_bench.py (2,000
  /// tables changing every 2 s, 2 cores): 8 threads 844 table commits/s,
  /// 16 and 32 both 915 (bench/README.md).
  int commit_threads = 16;
  CatalogFactory catalog;
  /// When set, every table commit asks it for the snapshot's source position
  /// and may be refused by it (commit_fence.h; Kafka scale-out).
  std::shared_ptr<CommitFence> commit_fence;
};

/// Snapshot summary keys a sink commit sets (table property names are in
/// iceberg/table_properties.h).
inline constexpr std::string_view kSummaryPipelineId = "floe.pipeline-id";
inline constexpr std::string_view kSummaryCheckpointId = "floe.checkpoint-id";
inline constexpr std::string_view kSummarySourcePosition = "floe.source-position";

}  // namespace floe::sink
