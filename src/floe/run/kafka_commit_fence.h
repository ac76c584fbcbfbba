#pragma once
/// KafkaCommitFence: how the members of a Kafka scale-out group commit the
/// same tables without losing or repeating a message (docs/kafka.md,
/// "Scale-out").
///
/// Each table's snapshots record, in `floe.source-position`, the position
/// of EVERY partition the group has committed into it: per partition, the
/// offset below which the table holds each of its messages, and none at or
/// above. A member's commit of checkpoint C writes the parent snapshot's
/// positions, raised to the member's own positions at C (the partitions it
/// reads, and those it read before a rebalance took them), and is refused
/// with kCommitConflict when, for a partition of which C holds messages of
/// the table, the parent already holds a position beyond the first of them:
/// another owner of that partition committed those messages first. The
/// member then drops everything it has not committed and reads again from
/// what the tables hold.
///
/// The parent is the newest snapshot of the table, walking back from the
/// current one, committed by the group (`floe.pipeline-id` the group's id or
/// a member's, MemberPipelineId); snapshots of other writers (compaction)
/// are passed over. A table without one holds nothing of any partition.

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/kafka/kafka_consumer.h"
#include "floe/sink/commit_fence.h"

namespace floe::run {

/// The pipeline id member `member` of group `group` commits under:
/// "<group>~<member>".
std::string MemberPipelineId(std::string_view group, std::string_view member);
/// Whether `pipeline_id` is `group`'s or one of its members'.
bool IsGroupPipelineId(std::string_view pipeline_id, std::string_view group);

/// The group's position in a table: the `floe.source-position` of the
/// newest snapshot the group committed (see above); nullopt when there is
/// none. Errors: kCorruption for a position that does not parse.
Result<std::optional<kafka::PartitionOffsets>> GroupPosition(const iceberg::TableMetadata& metadata,
                                                             std::string_view group);

/// The position of a fenced commit of `table`: `parent` with every offset of
/// `end` that is higher. Errors: kCommitConflict naming the table and the
/// partition when `parent` holds, for a partition of `first` (the first
/// offset of the commit's messages per partition), an offset beyond it.
Result<kafka::PartitionOffsets> FencedKafkaPosition(const kafka::PartitionOffsets& parent,
                                                    const kafka::PartitionOffsets& end,
                                                    const kafka::PartitionOffsets& first,
                                                    std::string_view table);

class KafkaCommitFence final : public sink::CommitFence {
 public:
  explicit KafkaCommitFence(std::string group) : group_(std::move(group)) {}

  /// What checkpoint `id` holds: every partition read up to `end`, and per
  /// table key, per partition, the offset of the first message it hands on
  /// for that table. Called by the source before the checkpoint's barrier.
  void Register(engine::CheckpointId id, kafka::PartitionOffsets end,
                std::map<std::string, kafka::PartitionOffsets> first);
  /// Forgets the checkpoints up to `id` (all committed).
  void ForgetThrough(engine::CheckpointId id);
  /// Forgets everything (the job starts again).
  void Reset();

  /// FencedKafkaPosition against the table's group position. Errors:
  /// kCommitConflict (counted), kInternal for a checkpoint never
  /// registered, GroupPosition's.
  Result<std::string> PositionFor(std::string_view table_key, engine::CheckpointId checkpoint,
                                  const iceberg::TableMetadata& base) override;

  /// Commits refused since the fence was made.
  int64_t conflicts() const { return conflicts_.load(std::memory_order_relaxed); }
  const std::string& group() const { return group_; }

 private:
  struct Registered {
    kafka::PartitionOffsets end;
    std::map<std::string, kafka::PartitionOffsets> first;
  };
  const std::string group_;
  std::mutex mu_;
  std::map<engine::CheckpointId, Registered> checkpoints_;
  std::atomic<int64_t> conflicts_{0};
};

}  // namespace floe::run
