#include "floe/sink/committed_checkpoints.h"

#include <charconv>
#include <unordered_map>

#include "floe/iceberg/table_properties.h"
#include "floe/sink/sink_options.h"

namespace floe::sink {
namespace {

std::optional<int64_t> ParseId(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

/// Calls `visit(snapshot)` for the current snapshot and its ancestors, newest
/// first, until it returns true. kCorruption if the parents loop.
template <typename Visit>
Status WalkHistory(const iceberg::TableMetadata& metadata, Visit visit) {
  std::unordered_map<iceberg::SnapshotId, const iceberg::Snapshot*> by_id;
  by_id.reserve(metadata.snapshots.size());
  for (const auto& s : metadata.snapshots) by_id.emplace(s.snapshot_id, &s);
  std::optional<iceberg::SnapshotId> next = metadata.current_snapshot_id;
  size_t steps = 0;
  while (next) {
    auto it = by_id.find(*next);
    if (it == by_id.end()) break;  // expired ancestor: the history ends here
    if (++steps > by_id.size()) {
      return Corruption("table {}: the parents of snapshot {} form a loop", metadata.location,
                        *metadata.current_snapshot_id);
    }
    FLOE_ASSIGN_OR_RETURN(bool stop, visit(*it->second));
    if (stop) break;
    next = it->second->parent_snapshot_id;
  }
  return Ok();
}

}  // namespace

std::string CommittedCheckpointProperty(std::string_view pipeline_id) {
  return std::string(iceberg::table_properties::kFloeCommittedCheckpointPrefix) +
         std::string(pipeline_id);
}

Result<engine::CheckpointId> MaxCommittedCheckpoint(const iceberg::TableMetadata& metadata,
                                                    std::string_view pipeline_id) {
  engine::CheckpointId max_id = 0;
  auto prop = metadata.properties.find(CommittedCheckpointProperty(pipeline_id));
  if (prop != metadata.properties.end()) {
    auto id = ParseId(prop->second);
    if (!id) {
      return Corruption("table {}: property {} = '{}' is not a checkpoint id", metadata.location,
                        prop->first, prop->second);
    }
    max_id = *id;
  }
  FLOE_RETURN_IF_ERROR(WalkHistory(metadata, [&](const iceberg::Snapshot& s) -> Result<bool> {
    auto pipeline = s.summary.find(std::string(kSummaryPipelineId));
    if (pipeline == s.summary.end() || pipeline->second != pipeline_id) return false;
    auto checkpoint = s.summary.find(std::string(kSummaryCheckpointId));
    if (checkpoint == s.summary.end()) return false;
    auto id = ParseId(checkpoint->second);
    if (!id) {
      return Corruption("table {}: snapshot {} has {} = '{}', not a checkpoint id",
                        metadata.location, s.snapshot_id, kSummaryCheckpointId, checkpoint->second);
    }
    max_id = std::max(max_id, *id);
    return true;  // the newest commit of this pipeline has its highest id
  }));
  return max_id;
}

const iceberg::Snapshot* FindCheckpointSnapshot(const iceberg::TableMetadata& metadata,
                                                std::string_view pipeline_id,
                                                engine::CheckpointId id) {
  const iceberg::Snapshot* found = nullptr;
  std::string wanted = std::to_string(id);
  (void)WalkHistory(metadata, [&](const iceberg::Snapshot& s) -> Result<bool> {
    auto pipeline = s.summary.find(std::string(kSummaryPipelineId));
    auto checkpoint = s.summary.find(std::string(kSummaryCheckpointId));
    if (pipeline != s.summary.end() && pipeline->second == pipeline_id &&
        checkpoint != s.summary.end() && checkpoint->second == wanted) {
      found = &s;
      return true;
    }
    return false;
  });
  return found;
}

Result<std::vector<iceberg::TableIdentifier>> ListTablesTwoLevelsDeep(iceberg::Catalog& catalog) {
  std::vector<iceberg::Namespace> namespaces;
  FLOE_ASSIGN_OR_RETURN(auto top, catalog.ListNamespaces({}));
  for (const auto& ns : top) {
    namespaces.push_back(ns);
    auto children = catalog.ListNamespaces(ns);
    if (children) namespaces.insert(namespaces.end(), children->begin(), children->end());
  }
  std::vector<iceberg::TableIdentifier> tables;
  for (const auto& ns : namespaces) {
    auto listed = catalog.ListTables(ns);
    if (!listed) {
      if (listed.error().code() == ErrorCode::kNotFound) continue;
      return std::unexpected(std::move(listed).error());
    }
    tables.insert(tables.end(), listed->begin(), listed->end());
  }
  return tables;
}

Result<std::vector<TableProgress>> CommittedProgress(
    iceberg::Catalog& catalog, std::string_view pipeline_id,
    const std::vector<iceberg::TableIdentifier>& tables,
    const std::vector<std::string>& properties) {
  std::vector<TableProgress> progress;
  for (const auto& id : tables) {
    auto loaded = catalog.LoadTable(id);
    if (!loaded) {
      if (loaded.error().code() == ErrorCode::kNotFound) continue;
      return std::unexpected(std::move(loaded).error().WithContext(
          fmt::format("finding the committed checkpoint of table {}", id.ToString())));
    }
    auto table_max = MaxCommittedCheckpoint(loaded->metadata, pipeline_id);
    if (!table_max) {
      return std::unexpected(std::move(table_max).error().WithContext(id.ToString()));
    }
    std::map<std::string, std::string> values;
    for (const auto& key : properties) {
      auto it = loaded->metadata.properties.find(key);
      if (it != loaded->metadata.properties.end()) values.emplace(key, it->second);
    }
    if (*table_max == 0 && values.empty()) continue;
    TableProgress p{id, *table_max, std::nullopt, std::move(values)};
    if (const iceberg::Snapshot* s =
            FindCheckpointSnapshot(loaded->metadata, pipeline_id, p.checkpoint)) {
      auto position = s->summary.find(std::string(kSummarySourcePosition));
      if (position != s->summary.end()) p.source_position = position->second;
    }
    progress.push_back(std::move(p));
  }
  return progress;
}

Result<engine::CheckpointId> MaxCommittedCheckpoint(
    iceberg::Catalog& catalog, std::string_view pipeline_id,
    const std::vector<iceberg::TableIdentifier>& tables) {
  FLOE_ASSIGN_OR_RETURN(auto progress, CommittedProgress(catalog, pipeline_id, tables));
  engine::CheckpointId max_id = 0;
  for (const auto& p : progress) max_id = std::max(max_id, p.checkpoint);
  return max_id;
}

}  // namespace floe::sink
