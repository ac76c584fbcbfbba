#pragma once
/// CommitFence: a source's say in each table commit (docs/kafka.md,
/// "Scale-out"). Several processes that split one source between them
/// (Kafka consumer-group members) commit the same tables, each its own
/// checkpoints. What a commit records as its source position then depends
/// on what the others committed before it, and a commit that would hold
/// rows another process has committed already must not land. A fence,
/// given to the committers through SinkOptions::commit_fence, decides both
/// against the metadata each commit attempt applies to.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::sink {

class CommitFence {
 public:
  virtual ~CommitFence() = default;
  /// The source position (`floe.source-position`) of the snapshot that
  /// commits checkpoint `checkpoint` to table `table_key`
  /// (TableIdentifier::ToString()), made on top of `base`, the table's
  /// metadata the attempt applies to. Called at every attempt, from the
  /// committers' threads (thread-safe). Errors: kCommitConflict refuses the
  /// commit (it is not retried: the run must drop what it has not committed
  /// and read again from what the tables hold); others fail the commit.
  virtual Result<std::string> PositionFor(std::string_view table_key,
                                          engine::CheckpointId checkpoint,
                                          const iceberg::TableMetadata& base) = 0;
};

/// The operation the committer puts first in a fenced commit: at each
/// attempt it asks the fence for the position and sets it on `producer` (the
/// commit's snapshot), before the producer builds its summary. Adds no
/// table update of its own.
class FencedPosition final : public iceberg::TableOperation {
 public:
  FencedPosition(std::shared_ptr<CommitFence> fence, std::string table_key,
                 engine::CheckpointId checkpoint)
      : fence_(std::move(fence)), table_key_(std::move(table_key)), checkpoint_(checkpoint) {}
  /// The snapshot whose summary gets the position; set before the commit.
  void set_producer(iceberg::SnapshotProducer* producer) { producer_ = producer; }
  std::string_view name() const override { return "source position fence"; }
  Result<std::vector<iceberg::TableUpdate>> Apply(const iceberg::TableMetadata& base,
                                                  iceberg::OperationContext& ctx) override;

 private:
  std::shared_ptr<CommitFence> fence_;
  std::string table_key_;
  engine::CheckpointId checkpoint_;
  iceberg::SnapshotProducer* producer_ = nullptr;
};

}  // namespace floe::sink
