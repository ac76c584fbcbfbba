#pragma once
/// The settings of a Kafka source, by the key names of Flink's Kafka SQL
/// connector (docs/kafka.md), so a Flink CDC user's options carry over:
///
///   properties.bootstrap.servers  host:port[,host:port...]   (required)
///   topic                         a topic, or several separated by ';'
///   topic-pattern                 a regular expression over topic names
///                                 (exactly one of topic / topic-pattern)
///   properties.group.id           the consumer group (required)
///   scan.startup.mode             earliest-offset | latest-offset |
///                                 group-offsets (default) | timestamp |
///                                 specific-offsets
///   scan.startup.timestamp-millis with `timestamp`: the first message at or
///                                 after this time, per partition
///   scan.startup.specific-offsets with `specific-offsets`:
///                                 "partition:0,offset:42;partition:1,offset:300"
///                                 (partitions not listed start at their
///                                 earliest offset)
///   scale-out.enabled             true: any number of floe run processes
///                                 with this pipeline split the partitions
///                                 (docs/kafka.md, "Scale-out"); default false
///   properties.*                  handed to librdkafka as is (SASL, TLS,
///                                 timeouts, ...), except the settings the
///                                 source owns (below), which are refused
///
/// The source owns: `enable.auto.commit` (false: offsets are the lake's,
/// committed to the group only for monitoring), `enable.auto.offset.store`,
/// `auto.offset.reset` (error: an offset that is no longer in the log is an
/// error, never a silent jump) — except with `group-offsets`, where
/// `properties.auto.offset.reset` (earliest | latest | none, default none)
/// says where a partition without a committed offset starts, as in Flink.
/// `isolation.level` defaults to read_committed.
///
/// A restored checkpoint's offsets always win over the startup mode.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"

namespace floe::kafka {

enum class StartupMode : uint8_t {
  kEarliestOffset,
  kLatestOffset,
  kGroupOffsets,
  kTimestamp,
  kSpecificOffsets,
};
Result<StartupMode> ParseStartupMode(std::string_view text);
std::string_view StartupModeName(StartupMode mode);

/// Where a partition without a committed group offset starts (group-offsets).
enum class OffsetReset : uint8_t { kNone, kEarliest, kLatest };

struct KafkaSourceOptions {
  std::string bootstrap_servers;
  /// Exactly one of `topics` and `topic_pattern` is set.
  std::vector<std::string> topics;
  std::string topic_pattern;
  std::string group_id;
  StartupMode startup_mode = StartupMode::kGroupOffsets;
  int64_t startup_timestamp_ms = -1;
  /// scan.startup.specific-offsets: partition -> offset, for every topic.
  std::map<int32_t, int64_t> specific_offsets;
  OffsetReset group_offset_reset = OffsetReset::kNone;
  /// The `properties.*` settings other than the ones above, without the
  /// prefix, handed to librdkafka.
  std::map<std::string, std::string> client_properties;
  /// How long opening waits for the cluster to answer (metadata) before it
  /// fails naming the bootstrap servers.
  std::chrono::milliseconds open_timeout{15000};
  /// `scale-out.enabled`: the process is one member of a group that commits
  /// the same tables (docs/kafka.md, "Scale-out").
  bool scale_out = false;
};

/// Builds the options from connector keys (the pipeline's `source:` section,
/// keys as above). Errors (kInvalidArgument) name the key: a missing required
/// key, both or neither of topic / topic-pattern, an unknown startup mode, a
/// malformed timestamp or specific-offsets value, a setting the source owns,
/// an unknown key outside `properties.*`. The keys `type` and `value.*` (the
/// message format) belong to the caller and are passed over.
Result<KafkaSourceOptions> ParseKafkaSourceOptions(const std::map<std::string, std::string>& keys);

/// True for librdkafka settings whose values are secrets (passwords, keys,
/// tokens): never printed or logged.
bool IsSecretProperty(std::string_view name);

}  // namespace floe::kafka
