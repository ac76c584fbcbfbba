#pragma once
/// KafkaSource: the source operator of `floe run` for `source: type: kafka`
/// (docs/pipeline.md, "source: (type kafka)"; docs/kafka.md): the change
/// events of Kafka topics — Debezium JSON or canal-json message values —
/// mirrored into Iceberg tables exactly as `floe ingest --format
/// debezium-json|canal-json` mirrors them from a file. Each message value
/// goes through an ingest::ChangeEventHandler: tables are created on first
/// sight (their primary key from the event's key fields, a schema-change
/// event or canal's pkNames) and their schemas evolved, row changes become
/// inserts, updates and deletes by key, truncations truncate, heartbeats and
/// schema-change events are passed over. Tombstones (null values, which
/// Debezium writes after a delete for log compaction) are passed over.
/// A Debezium message key names the table's primary key; otherwise the value
/// holds the whole event. A key read from two partitions of one topic is
/// warned about once per topic (kafka::KeyPartitionWatch).
///
/// Exactly once: the checkpoint state is, per topic-partition, the offset of
/// the next message to read (kafka::KafkaConsumer::positions(), and the
/// positions partitions had when a rebalance took them away). Every Poll
/// hands its rows on and flushes before it returns, so a checkpoint covers
/// exactly the messages before it. Open restores the offsets into the
/// consumer, which starts every partition it is assigned there (the startup
/// mode is for partitions the checkpoint does not know). The same offsets go
/// into the shared sink::CheckpointPositions, from which the committers copy
/// them into each snapshot summary (`floe.source-position`:
/// "topic[partition]:offset,…"). Once a checkpoint's Iceberg commits are all
/// done (CheckpointPositions::CommittedThrough), its offsets of the
/// partitions this member owns are committed to the consumer group, for lag
/// monitoring only (never read back while a checkpoint exists).
///
/// Offsets belong to the lake (docs/kafka.md): once every committer has
/// committed a checkpoint, the source copies its state of that checkpoint to
/// `lake_state_dir` (at most every `lake_state_interval`), so a run whose
/// state folder is lost resumes from the lake's copy. Tables that committed
/// more than the checkpoint a run restores (`committed_until`) skip the
/// messages their commits already hold.
///
/// A message that cannot be handled (not JSON, a value of the wrong type, an
/// incompatible schema change, a table that cannot be created, a null key)
/// is bad input. With OnError::kFail it fails Poll with "TOPIC[PARTITION]
/// offset N: reason"; its offset is not passed, so the job stops before the
/// checkpoint that would contain it. With OnError::kSkip it becomes a dead
/// letter — {"topic","partition","offset","key","value","error"}, one JSON
/// line — and the source reads on. The letters of a checkpoint are written
/// by SnapshotState, as one file `dead_letter_dir/NNNNNNNNNNNNNNNNNNNN.jsonl`
/// named by the checkpoint id and synced, so they are durable before the
/// checkpoint that passes their messages completes; Open deletes the files of
/// checkpoints after the restored one (their messages are read again), so
/// every bad message up to the restored checkpoint is in exactly one file.
/// Errors that are not the message's (catalog I/O, the consumer's: brokers
/// gone, an offset no longer in the log) fail the job whatever `on_error`.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/iceberg/catalog.h"
#include "floe/ingest/change_event_handler.h"
#include "floe/ingest/ingest_source.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/table_resolver.h"
#include "floe/kafka/kafka_consumer.h"
#include "floe/kafka/kafka_options.h"
#include "floe/run/kafka_commit_fence.h"
#include "floe/sink/record.h"
#include "floe/sink/sink_options.h"

namespace floe::run {

class RunMetrics;

struct KafkaSourceOptions {
  /// The consumer: brokers, topics, group, startup mode, client properties.
  kafka::KafkaSourceOptions consumer;
  /// `value.format`: kDebeziumJson (default) or kCanalJson.
  ingest::InputFormat format = ingest::InputFormat::kDebeziumJson;
  /// Destinations (route_function), creation and evolution of sink tables.
  ingest::TableResolverOptions tables;
  /// Write parallelism and distribution (RowBatcher); `catalog` opens the sink's.
  sink::SinkOptions sink;
  /// Poll returns after about this long, or after this many messages.
  std::chrono::milliseconds max_poll_time{200};
  size_t max_messages_per_poll = 8192;
  /// Rows per RowBatch.
  size_t batch_rows = 1024;
  /// For /metrics (may be null; outlives the source).
  RunMetrics* metrics = nullptr;
  /// Tables that hold more than the restored checkpoint (the state folder
  /// was lost, or is older than the lake), by sink table ("ns.table"): the
  /// offsets of their last commit's `floe.source-position`. A message of
  /// such a table before its partition's offset there is already in the
  /// table and is skipped (a partition not listed: nothing of it is).
  std::map<std::string, kafka::PartitionOffsets> committed_until;
  /// The state folder was lost and the lake holds no copy of the source
  /// state: the partitions start by the startup mode while tables hold
  /// commits. The dead-letter files are then kept (letters of messages read
  /// again may appear twice) instead of deleted as after a fresh start.
  bool started_without_state = false;
  /// Where the source copies its state once a checkpoint is committed
  /// everywhere (LakeStateDir; a folder of the sink's warehouse, read
  /// through the catalog's FileIO), at most every `lake_state_interval`.
  /// Empty: no copy.
  std::string lake_state_dir;
  std::chrono::milliseconds lake_state_interval{10'000};
  /// `on-error`: kFail (default) stops at a message that cannot be handled;
  /// kSkip writes it to `dead_letter_dir` and reads on.
  ingest::OnError on_error = ingest::OnError::kFail;
  /// The folder of the dead-letter files (a path of the catalog's FileIO:
  /// local or s3://); required with kSkip (Open refuses its absence; floe
  /// run defaults it to LakeDeadLetterDir).
  std::string dead_letter_dir;
  /// Scale-out (docs/kafka.md, "Scale-out"; set by JoinKafkaScaleOut): the
  /// fence this member's commits go through (also `sink.commit_fence`). A
  /// partition the group assigns starts from the lake: the highest offset
  /// of it in the members' lake copies (`members_lake_dir`), each table
  /// skipping what its group position holds. Null: a process alone.
  std::shared_ptr<KafkaCommitFence> fence;
  std::string members_lake_dir;
};

/// A scale-out member's slot in the state folder, held while it lives.
struct KafkaMemberSlot {
  std::string member_id;
  std::string dir;
  /// The highest checkpoint id this member committed to any table: its
  /// next run's ids are above it.
  engine::CheckpointId max_committed = 0;
  int lock_fd = -1;
  ~KafkaMemberSlot();
};

/// Makes this process a member of the scale-out group of `options` (the
/// group is `options.sink.pipeline_id`): takes the first slot
/// `<state_dir>/member-<k>` no other process holds (a lock file), with its
/// member id (made once, kept in the slot), commits under
/// MemberPipelineId(group, member id), through a KafkaCommitFence, keeps its
/// lake copy under the group's `members` folder of the lake, and asks the
/// group for the cooperative-sticky assignor unless another is set. Errors:
/// the state folder's (I/O), the catalog's.
Result<std::unique_ptr<KafkaMemberSlot>> JoinKafkaScaleOut(const std::string& state_dir,
                                                           KafkaSourceOptions& options);

/// Checks the options on their own (before a job is built): a format other
/// than debezium-json or canal-json, no catalog, the resolver's options.
Status ValidateKafkaSourceOptions(const KafkaSourceOptions& options);

/// "topic[partition]:offset,…" in topic-partition order: the position text
/// of a checkpoint (the snapshot summaries' `floe.source-position`).
std::string KafkaPositionText(const kafka::PartitionOffsets& offsets);
/// Reads KafkaPositionText's text back ("" is no partition). Errors:
/// kCorruption naming the part that is not "topic[partition]:offset".
Result<kafka::PartitionOffsets> ParseKafkaPositionText(std::string_view text);

/// The default folder of a pipeline's dead letters: beside its lake copy of
/// the source state (LakeStateDir), `<warehouse>/_floe.db/<pipeline-id>/dead-letters`,
/// so that they outlive a lost state folder as the offsets do. Empty when
/// the catalog has no warehouse.
std::string LakeDeadLetterDir(iceberg::Catalog& catalog, const std::string& pipeline_id);

class KafkaSource final : public engine::SourceOperator<sink::RowBatch> {
 public:
  /// `positions` is shared with the committers; `stats` (may be null) must
  /// outlive the source.
  KafkaSource(KafkaSourceOptions options, std::shared_ptr<sink::CheckpointPositions> positions,
              ingest::IngestStats* stats);
  ~KafkaSource() override;

  /// Opens the catalog and the consumer (restored offsets first). Errors: a
  /// corrupt state (kCorruption), the catalog's, the consumer's (no broker
  /// answers, a topic that does not exist, refused credentials).
  Status Open(const engine::OperatorContext& context, const engine::RestoredState& state) override;
  /// Handles the messages that arrive within max_poll_time, then flushes.
  /// Never ends on its own (returns true).
  Result<bool> Poll(engine::Collector<sink::RowBatch>& out) override;
  Result<std::string> SnapshotState(engine::CheckpointId id) override;
  /// Commits to the group the offsets of the newest checkpoint whose Iceberg
  /// commits are done (also checked after each Poll; a failure is logged).
  Status NotifyCheckpointComplete(engine::CheckpointId id) override;
  void Close() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::run
