#pragma once
/// KafkaConsumer: the messages of a Kafka source (docs/kafka.md), on
/// librdkafka's consumer, for a source operator that keeps its own offsets.
///
/// Offsets are the lake's, not the group's: the consumer joins the group
/// `group_id` only so that the members of one pipeline split the partitions
/// (Kafka's group protocol assigns them). When a partition is assigned it
/// starts at, first match wins:
///   1. the offset restored from the checkpoint (`Open`'s `restored`, or
///      `Restore` later), else where this member stopped reading it when it
///      was last revoked from it;
///   2. the startup mode: earliest-offset / latest-offset (the partition's
///      low / high watermark now), timestamp (the first message at or after
///      it; the high watermark if none), specific-offsets (the offset given;
///      partitions not listed: the low watermark), group-offsets (the group's
///      committed offset; without one, per `group_offset_reset`: the low or
///      high watermark, or an error naming the partition for `none`).
/// Every start is resolved to a concrete offset when the partition is
/// assigned, so `positions()` can be checkpointed before a first message.
///
/// librdkafka's own `auto.offset.reset` is always `error`: an offset that is
/// no longer in the log (retention, compaction of the whole segment) fails
/// `Poll` naming the topic, partition and offset; nothing is skipped.
///
/// Errors that fail `Open` or `Poll` with a message saying what to check: no
/// broker answers within `open_timeout` (naming the bootstrap servers), a
/// listed topic that does not exist, authorization failures (topic, group,
/// cluster), all brokers down for longer than `broker_down_timeout`, fatal
/// client errors. Transient broker errors are retried by librdkafka and
/// logged. Secrets in client properties are never logged.
///
/// Not thread-safe: one thread calls every method (rebalances happen inside
/// `Poll`).

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/kafka/kafka_options.h"

namespace floe::kafka {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
};

/// "topic[partition]", for messages.
std::string TopicPartitionName(const TopicPartition& tp);

/// Per partition, the offset of the next message to read.
using PartitionOffsets = std::map<TopicPartition, int64_t>;

/// One message; its views are valid only during the `Poll` callback.
struct KafkaMessage {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string_view key;
  bool has_key = false;
  /// A null value (a tombstone) has `is_tombstone` and an empty `value`.
  std::string_view value;
  bool is_tombstone = false;
  /// The message's timestamp (create or log-append time), -1 if none.
  int64_t timestamp_ms = -1;
};

class KafkaConsumer {
 public:
  /// Creates the client, checks that the cluster answers and that listed
  /// topics exist (within `options.open_timeout`), and subscribes. No
  /// partition is assigned before the first `Poll`.
  static Result<std::unique_ptr<KafkaConsumer>> Open(const KafkaSourceOptions& options,
                                                     PartitionOffsets restored = {});
  ~KafkaConsumer();
  KafkaConsumer(const KafkaConsumer&) = delete;
  KafkaConsumer& operator=(const KafkaConsumer&) = delete;

  /// Hands the messages that arrive within `wait` (at most `max_messages`) to
  /// `handle`, in order within each partition, and returns how many. An
  /// error from `handle` stops the poll and is returned; the message it
  /// failed on is not counted in `positions()`. Rebalances happen here.
  Result<size_t> Poll(std::chrono::milliseconds wait, size_t max_messages,
                      const std::function<Status(const KafkaMessage&)>& handle);

  /// The partitions this member owns now.
  std::vector<TopicPartition> Assignment() const;

  /// For every owned partition, the offset after the last message handed on
  /// (its start offset before the first).
  const PartitionOffsets& positions() const;

  /// Partitions taken away by rebalances since the last call, with their
  /// positions then.
  PartitionOffsets TakeRevoked();

  /// Start offsets for partitions assigned from now on (merged over those
  /// given before; e.g. what the lake holds after another member committed).
  void Restore(const PartitionOffsets& offsets);

  /// Asked, when partitions are assigned, where those this member did not
  /// own just before start (an eager rebalance takes every partition away
  /// and hands most back: those go on where they were): the partitions it
  /// gives an offset for start there, before any other rule above (a
  /// scale-out member starts a partition it is given from what the lake
  /// holds; docs/kafka.md, "Scale-out"). Runs inside `Poll`; its error fails
  /// that `Poll`.
  using StartHook =
      std::function<Result<PartitionOffsets>(const std::vector<TopicPartition>& assigned)>;
  void set_start_hook(StartHook hook);

  /// Records `offsets` as the group's committed offsets (asynchronously; for
  /// monitoring tools, never read back when the lake has offsets).
  Status CommitToGroup(const PartitionOffsets& offsets);

  /// Leaves the group (its partitions are reassigned to other members). Also
  /// done by the destructor.
  void Close();

  /// How long all brokers may be down before `Poll` fails (default 60 s).
  void set_broker_down_timeout(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  explicit KafkaConsumer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::kafka
