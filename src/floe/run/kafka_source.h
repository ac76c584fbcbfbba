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
/// Message keys are not read: the value holds the whole event.
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
/// A message that cannot be handled (not JSON, a value of the wrong type, an
/// incompatible schema change, a table that cannot be created, a null key)
/// fails Poll with "TOPIC[PARTITION] offset N: reason"; its offset is not
/// passed, so the job stops before the checkpoint that would contain it.
/// Errors that are not the message's (catalog I/O, the consumer's: brokers
/// gone, an offset no longer in the log) fail the job too.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/ingest/change_event_handler.h"
#include "floe/ingest/ingest_stats.h"
#include "floe/ingest/table_resolver.h"
#include "floe/kafka/kafka_consumer.h"
#include "floe/kafka/kafka_options.h"
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
};

/// Checks the options on their own (before a job is built): a format other
/// than debezium-json or canal-json, no catalog, the resolver's options.
Status ValidateKafkaSourceOptions(const KafkaSourceOptions& options);

/// "topic[partition]:offset,…" in topic-partition order: the position text
/// of a checkpoint (the snapshot summaries' `floe.source-position`).
std::string KafkaPositionText(const kafka::PartitionOffsets& offsets);

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
