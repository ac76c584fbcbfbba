#include "floe/kafka/key_partition_watch.h"

namespace floe::kafka {

namespace {

/// FNV-1a 64 over the topic, a separator byte no topic name holds, and the key.
uint64_t HashOf(std::string_view topic, std::string_view key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto add = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
  };
  add(topic);
  add(std::string_view("\0", 1));
  add(key);
  return h;
}

}  // namespace

int32_t KeyPartitionWatch::Note(std::string_view topic, std::string_view key, int32_t partition) {
  const uint64_t hash = HashOf(topic, key);
  auto it = partitions_.find(hash);
  if (it == partitions_.end()) {
    if (partitions_.size() < max_keys_) partitions_.emplace(hash, partition);
    return -1;
  }
  if (it->second == partition) return -1;
  const int32_t before = it->second;
  it->second = partition;
  if (reported_.contains(topic)) return -1;
  reported_.emplace(topic);
  return before;
}

}  // namespace floe::kafka
