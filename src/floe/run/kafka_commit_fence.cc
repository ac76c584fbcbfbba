#include "floe/run/kafka_commit_fence.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/run/kafka_source.h"
#include "floe/sink/sink_options.h"

namespace floe::run {

namespace {
constexpr char kMemberSeparator = '~';
}

std::string MemberPipelineId(std::string_view group, std::string_view member) {
  return fmt::format("{}{}{}", group, kMemberSeparator, member);
}

bool IsGroupPipelineId(std::string_view pipeline_id, std::string_view group) {
  if (!pipeline_id.starts_with(group)) return false;
  return pipeline_id.size() == group.size() || pipeline_id[group.size()] == kMemberSeparator;
}

Result<std::optional<kafka::PartitionOffsets>> GroupPosition(const iceberg::TableMetadata& metadata,
                                                             std::string_view group) {
  const iceberg::Snapshot* snapshot = metadata.CurrentSnapshot();
  while (snapshot != nullptr) {
    auto pipeline = snapshot->summary.find(std::string(sink::kSummaryPipelineId));
    if (pipeline != snapshot->summary.end() && IsGroupPipelineId(pipeline->second, group)) {
      auto position = snapshot->summary.find(std::string(sink::kSummarySourcePosition));
      if (position == snapshot->summary.end()) return kafka::PartitionOffsets{};
      FLOE_ASSIGN_OR_RETURN(kafka::PartitionOffsets offsets,
                            ParseKafkaPositionText(position->second));
      return offsets;
    }
    if (!snapshot->parent_snapshot_id) break;
    snapshot = metadata.SnapshotById(*snapshot->parent_snapshot_id);
  }
  return std::nullopt;
}

Result<kafka::PartitionOffsets> FencedKafkaPosition(const kafka::PartitionOffsets& parent,
                                                    const kafka::PartitionOffsets& end,
                                                    const kafka::PartitionOffsets& first,
                                                    std::string_view table) {
  for (const auto& [tp, offset] : first) {
    auto held = parent.find(tp);
    if (held != parent.end() && held->second > offset) {
      return CommitConflict(
          "table {} already holds {} up to offset {}, beyond offset {} where this member's "
          "messages of it start: another member owned the partition and committed them first",
          table, kafka::TopicPartitionName(tp), held->second, offset);
    }
  }
  kafka::PartitionOffsets merged = parent;
  for (const auto& [tp, offset] : end) {
    auto [it, inserted] = merged.emplace(tp, offset);
    if (!inserted) it->second = std::max(it->second, offset);
  }
  return merged;
}

void KafkaCommitFence::Register(engine::CheckpointId id, kafka::PartitionOffsets end,
                                std::map<std::string, kafka::PartitionOffsets> first) {
  std::lock_guard lock(mu_);
  checkpoints_[id] = Registered{std::move(end), std::move(first)};
}

void KafkaCommitFence::ForgetThrough(engine::CheckpointId id) {
  std::lock_guard lock(mu_);
  checkpoints_.erase(checkpoints_.begin(), checkpoints_.upper_bound(id));
}

void KafkaCommitFence::Reset() {
  std::lock_guard lock(mu_);
  checkpoints_.clear();
}

Result<std::string> KafkaCommitFence::PositionFor(std::string_view table_key,
                                                  engine::CheckpointId checkpoint,
                                                  const iceberg::TableMetadata& base) {
  kafka::PartitionOffsets end;
  kafka::PartitionOffsets first;
  {
    std::lock_guard lock(mu_);
    auto it = checkpoints_.find(checkpoint);
    if (it == checkpoints_.end()) {
      return InternalError("checkpoint {} of the Kafka source was never registered", checkpoint);
    }
    end = it->second.end;
    if (auto f = it->second.first.find(std::string(table_key)); f != it->second.first.end()) {
      first = f->second;
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto parent, GroupPosition(base, group_));
  auto merged =
      FencedKafkaPosition(parent.value_or(kafka::PartitionOffsets{}), end, first, table_key);
  if (!merged) {
    conflicts_.fetch_add(1, std::memory_order_relaxed);
    return std::unexpected(std::move(merged).error());
  }
  return KafkaPositionText(*merged);
}

}  // namespace floe::run
