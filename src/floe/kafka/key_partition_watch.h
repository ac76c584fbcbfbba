#pragma once
/// KeyPartitionWatch: notices a producer that did not partition a topic by
/// message key (docs/kafka.md, "Keys and partitions"). Kafka keeps order
/// within a partition only; Debezium and Canal key each message by the row's
/// primary key, so all changes of one row land on one partition, in order. A
/// key read from two partitions of one topic means the changes of one row
/// may be applied out of order.
///
/// The watch remembers, per topic and key (a 64-bit hash of both), the
/// partition the key was last read from, for at most `max_keys` keys (about
/// 40 bytes each; once full, new keys are not remembered, known ones are
/// still checked). It reports the first key seen on a second partition of
/// each topic, once. Two different keys with the same hash could be reported
/// as one key that moved: with 2^20 keys the chance is about 2^-25.
///
/// Not thread-safe: the source's thread calls it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace floe::kafka {

class KeyPartitionWatch {
 public:
  explicit KeyPartitionWatch(size_t max_keys = size_t{1} << 20) : max_keys_(max_keys) {}

  /// Notes that a message with `key` was read from `topic`'s `partition`.
  /// Returns the partition the key was read from before when that differs
  /// and `topic` has not been reported yet (it then is); otherwise -1.
  int32_t Note(std::string_view topic, std::string_view key, int32_t partition);

  /// How many keys are remembered.
  size_t size() const { return partitions_.size(); }

 private:
  size_t max_keys_;
  std::unordered_map<uint64_t, int32_t> partitions_;
  std::set<std::string, std::less<>> reported_;
};

}  // namespace floe::kafka
