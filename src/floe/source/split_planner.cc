#include "floe/source/split_planner.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

#include "floe/iceberg/data/incremental_scan.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/snapshot.h"

namespace floe::source {
namespace {

struct StrategyName {
  StartingStrategy strategy;
  std::string_view name;
};
constexpr std::array<StrategyName, 6> kStrategies{{
    {StartingStrategy::kTableScanThenIncremental, "table-scan-then-incremental"},
    {StartingStrategy::kIncrementalFromLatestSnapshot, "incremental-from-latest-snapshot"},
    {StartingStrategy::kIncrementalFromLatestSnapshotExclusive,
     "incremental-from-latest-snapshot-exclusive"},
    {StartingStrategy::kIncrementalFromEarliestSnapshot, "incremental-from-earliest-snapshot"},
    {StartingStrategy::kIncrementalFromSnapshotId, "incremental-from-snapshot-id"},
    {StartingStrategy::kIncrementalFromSnapshotTimestamp, "incremental-from-snapshot-timestamp"},
}};

/// The snapshots after `last` (exclusive; nullopt: from the oldest retained
/// one) up to `target` (inclusive), oldest first.
Result<std::vector<const iceberg::Snapshot*>> Range(const iceberg::TableMetadata& metadata,
                                                    const std::string& table,
                                                    std::optional<iceberg::SnapshotId> last,
                                                    const iceberg::Snapshot& target) {
  std::vector<const iceberg::Snapshot*> range;
  const iceberg::Snapshot* s = &target;
  bool reached = !last.has_value();
  while (s != nullptr) {
    if (last && s->snapshot_id == *last) {
      reached = true;
      break;
    }
    range.push_back(s);
    if (!s->parent_snapshot_id) break;
    if (last && *s->parent_snapshot_id == *last) {
      reached = true;
      break;
    }
    const iceberg::Snapshot* parent = metadata.SnapshotById(*s->parent_snapshot_id);
    if (parent == nullptr) {
      if (last) {
        return Corruption(
            "table {}: the history from snapshot {} back to the last planned snapshot {} is "
            "incomplete: parent {} of snapshot {} has expired",
            table, target.snapshot_id, *last, *s->parent_snapshot_id, s->snapshot_id);
      }
      break;
    }
    s = parent;
  }
  if (!reached) {
    return InvalidArgument(
        "table {}: the last planned snapshot {} is not an ancestor of snapshot {} (the table was "
        "rolled back or its history replaced)",
        table, *last, target.snapshot_id);
  }
  std::reverse(range.begin(), range.end());
  return range;
}

/// The splits of the data files appended by `snapshot`.
Result<std::vector<IcebergSplit>> PlanAppend(io::FileIO& io, const iceberg::TableMetadata& metadata,
                                             const PlanOptions& options,
                                             const iceberg::Snapshot& snapshot,
                                             const SplitOptions& split_options) {
  iceberg::IncrementalScanOptions scan;
  scan.from_snapshot_id = snapshot.parent_snapshot_id;
  scan.to_snapshot_id = snapshot.snapshot_id;
  scan.filter = options.filter;
  scan.case_sensitive = options.case_sensitive;
  FLOE_ASSIGN_OR_RETURN(auto planned, iceberg::IncrementalAppendScan::Make(io, metadata, scan));
  FLOE_ASSIGN_OR_RETURN(auto tasks, planned.PlanFiles());
  return PackSplits(snapshot.snapshot_id, SchemaIdOf(metadata, snapshot), std::move(tasks),
                    split_options);
}

/// The splits of the whole of `snapshot` (deletes applied by the readers).
Result<std::vector<IcebergSplit>> PlanWhole(io::FileIO& io, const iceberg::TableMetadata& metadata,
                                            const PlanOptions& options,
                                            const iceberg::Snapshot& snapshot,
                                            const SplitOptions& split_options) {
  iceberg::TableScanOptions scan;
  scan.snapshot_id = snapshot.snapshot_id;
  scan.filter = options.filter;
  scan.case_sensitive = options.case_sensitive;
  FLOE_ASSIGN_OR_RETURN(auto planned, iceberg::TableScan::Make(io, metadata, scan));
  FLOE_ASSIGN_OR_RETURN(auto tasks, planned.PlanFiles());
  std::vector<IcebergSplit> splits = PackSplits(
      snapshot.snapshot_id, SchemaIdOf(metadata, snapshot), std::move(tasks), split_options);
  for (auto& s : splits) s.whole_table = true;
  return splits;
}

/// The first snapshot of the current ancestry at or after `timestamp_ms`.
const iceberg::Snapshot* OldestAncestorAtOrAfter(const iceberg::TableMetadata& metadata,
                                                 const iceberg::Snapshot* head,
                                                 int64_t timestamp_ms) {
  const iceberg::Snapshot* found = nullptr;
  for (const iceberg::Snapshot* s = head; s != nullptr;) {
    if (s->timestamp_ms < timestamp_ms) break;
    found = s;
    s = s->parent_snapshot_id ? metadata.SnapshotById(*s->parent_snapshot_id) : nullptr;
  }
  return found;
}

/// The snapshot the read follows: the head of `options.branch` (main: the
/// current snapshot); nullptr for a branch-less table.
Result<const iceberg::Snapshot*> Head(const iceberg::TableMetadata& metadata,
                                      const std::string& table, const PlanOptions& options) {
  if (options.branch.empty() || options.branch == "main") return metadata.CurrentSnapshot();
  auto it = metadata.refs.find(options.branch);
  if (it == metadata.refs.end() || !it->second.is_branch()) {
    return NotFound("table {}: no branch '{}'", table, options.branch);
  }
  const iceberg::Snapshot* head = metadata.SnapshotById(it->second.snapshot_id);
  if (head == nullptr) {
    return Corruption("table {}: branch '{}' points at snapshot {}, which is not in the table",
                      table, options.branch, it->second.snapshot_id);
  }
  return head;
}

}  // namespace

Result<StartingStrategy> ParseStartingStrategy(std::string_view text) {
  std::string kebab;
  for (char c : text) kebab.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(c)));
  for (const auto& s : kStrategies) {
    if (s.name == kebab) return s.strategy;
  }
  std::string names;
  for (const auto& s : kStrategies) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return InvalidArgument("--starting-strategy '{}': not one of {}", text, names);
}

std::string_view StartingStrategyName(StartingStrategy strategy) {
  for (const auto& s : kStrategies) {
    if (s.strategy == strategy) return s.name;
  }
  return "?";
}

Status ValidatePlanOptions(const PlanOptions& options) {
  const bool by_id = options.strategy == StartingStrategy::kIncrementalFromSnapshotId;
  const bool by_time = options.strategy == StartingStrategy::kIncrementalFromSnapshotTimestamp;
  if (by_id && !options.start_snapshot_id) {
    return InvalidArgument(
        "--starting-strategy incremental-from-snapshot-id needs --start-snapshot-id");
  }
  if (!by_id && options.start_snapshot_id) {
    return InvalidArgument(
        "--start-snapshot-id is only for --starting-strategy incremental-from-snapshot-id");
  }
  if (by_time && !options.start_snapshot_timestamp_ms) {
    return InvalidArgument(
        "--starting-strategy incremental-from-snapshot-timestamp needs "
        "--start-snapshot-timestamp");
  }
  if (!by_time && options.start_snapshot_timestamp_ms) {
    return InvalidArgument(
        "--start-snapshot-timestamp is only for --starting-strategy "
        "incremental-from-snapshot-timestamp");
  }
  if (!options.tag.empty() &&
      (options.streaming || !options.branch.empty() || options.end_snapshot_id)) {
    return InvalidArgument(
        "--tag reads up to a tagged snapshot: it cannot be combined with --follow, --branch or "
        "--end-snapshot-id");
  }
  if (options.max_planning_snapshot_count < 1) {
    return InvalidArgument("--max-planning-snapshot-count must be at least 1");
  }
  return Ok();
}

int32_t SchemaIdOf(const iceberg::TableMetadata& metadata, const iceberg::Snapshot& snapshot) {
  return snapshot.schema_id.value_or(metadata.current_schema_id);
}

namespace {

/// The first round's start by the starting strategy: round.next.last_planned,
/// and the whole snapshot's splits under table-scan-then-incremental.
Status ResolveStrategy(io::FileIO& io, const iceberg::TableMetadata& metadata,
                       const std::string& table, const PlanOptions& options,
                       const iceberg::Snapshot* current, const SplitOptions& split_options,
                       PlanRound& round) {
  PlanPosition& next = round.next;
  switch (options.strategy) {
    case StartingStrategy::kTableScanThenIncremental: {
      const iceberg::Snapshot* whole = next.end ? metadata.SnapshotById(*next.end) : current;
      if (whole != nullptr) {
        FLOE_ASSIGN_OR_RETURN(round.splits,
                              PlanWhole(io, metadata, options, *whole, split_options));
        next.last_planned = whole->snapshot_id;
        ++round.snapshots;
      }
      break;
    }
    case StartingStrategy::kIncrementalFromLatestSnapshot:
      next.last_planned = current ? current->parent_snapshot_id : std::nullopt;
      break;
    case StartingStrategy::kIncrementalFromLatestSnapshotExclusive:
      if (current != nullptr) next.last_planned = current->snapshot_id;
      break;
    case StartingStrategy::kIncrementalFromEarliestSnapshot:
      next.last_planned.reset();
      break;
    case StartingStrategy::kIncrementalFromSnapshotId: {
      const iceberg::Snapshot* start = metadata.SnapshotById(*options.start_snapshot_id);
      if (start == nullptr) {
        return NotFound(
            "table {}: start snapshot {} is not in the table (expired or never "
            "there)",
            table, *options.start_snapshot_id);
      }
      next.last_planned = start->parent_snapshot_id;
      break;
    }
    case StartingStrategy::kIncrementalFromSnapshotTimestamp: {
      const iceberg::Snapshot* start =
          OldestAncestorAtOrAfter(metadata, current, *options.start_snapshot_timestamp_ms);
      if (start != nullptr) {
        next.last_planned = start->parent_snapshot_id;
      } else if (current != nullptr) {
        next.last_planned = current->snapshot_id;  // every later snapshot is after the time
      }
      break;
    }
  }
  return Ok();
}

/// The first round's start at PlanOptions::replay_origin.
Status ReplayOrigin(io::FileIO& io, const iceberg::TableMetadata& metadata,
                    const std::string& table, const PlanOptions& options,
                    const SplitOptions& split_options, PlanRound& round) {
  const PlanOrigin& origin = *options.replay_origin;
  if (origin.whole) {
    const iceberg::Snapshot* whole = metadata.SnapshotById(origin.snapshot.value_or(-1));
    if (whole == nullptr) {
      return NotFound(
          "table {}: snapshot {}, where the read began, is no longer in the table (expired): its "
          "rows cannot be planned again",
          table, origin.snapshot.value_or(-1));
    }
    FLOE_ASSIGN_OR_RETURN(round.splits, PlanWhole(io, metadata, options, *whole, split_options));
    round.next.last_planned = whole->snapshot_id;
    ++round.snapshots;
    return Ok();
  }
  if (!origin.snapshot) {
    // From the table's first snapshot: it must still be there.
    for (const auto& s : metadata.snapshots) {
      if (s.parent_snapshot_id && metadata.SnapshotById(*s.parent_snapshot_id) == nullptr) {
        return Corruption(
            "table {}: the read began at the table's first snapshot, but snapshot {} has expired: "
            "its rows cannot be planned again",
            table, *s.parent_snapshot_id);
      }
    }
  }
  round.next.last_planned = origin.snapshot;
  return Ok();
}

}  // namespace

Result<PlanRound> PlanNextRound(io::FileIO& io, const iceberg::TableMetadata& metadata,
                                const std::string& table, const PlanOptions& options,
                                const PlanPosition& position) {
  PlanRound round;
  round.next = position;
  if (position.finished) return round;
  const SplitOptions split_options = SplitOptionsFor(metadata.properties, options.split_overrides);
  FLOE_ASSIGN_OR_RETURN(const iceberg::Snapshot* current, Head(metadata, table, options));
  PlanPosition& next = round.next;

  if (!next.started) {
    std::optional<iceberg::SnapshotId> end_id = options.end_snapshot_id;
    if (!options.tag.empty()) {
      auto it = metadata.refs.find(options.tag);
      if (it == metadata.refs.end() || it->second.is_branch()) {
        return NotFound("table {}: no tag '{}'", table, options.tag);
      }
      end_id = it->second.snapshot_id;
    }
    if (end_id) {
      if (metadata.SnapshotById(*end_id) == nullptr) {
        return NotFound("table {}: end snapshot {} is not in the table", table, *end_id);
      }
      next.end = end_id;
    } else if (!options.streaming && current != nullptr) {
      next.end = current->snapshot_id;
    }
    if (options.replay_origin) {
      FLOE_RETURN_IF_ERROR(ReplayOrigin(io, metadata, table, options, split_options, round));
    } else {
      FLOE_RETURN_IF_ERROR(
          ResolveStrategy(io, metadata, table, options, current, split_options, round));
    }
    next.origin = PlanOrigin{round.snapshots > 0, next.last_planned};
    next.started = true;
  }

  const iceberg::Snapshot* target = current;
  if (next.end) {
    target = metadata.SnapshotById(*next.end);
    if (target == nullptr) {
      return NotFound("table {}: end snapshot {} is no longer in the table (expired)", table,
                      *next.end);
    }
  }
  if (target == nullptr) {
    next.finished = !options.streaming;
    return round;
  }
  FLOE_ASSIGN_OR_RETURN(auto range, Range(metadata, table, next.last_planned, *target));
  for (const iceberg::Snapshot* snap : range) {
    if (round.snapshots >= options.max_planning_snapshot_count) break;
    const std::string& op = snap->operation;
    if (op == iceberg::operation::kAppend) {
      FLOE_ASSIGN_OR_RETURN(auto splits, PlanAppend(io, metadata, options, *snap, split_options));
      for (auto& s : splits) round.splits.push_back(std::move(s));
    } else if (op == iceberg::operation::kReplace) {
      // A rewrite of existing rows: nothing new.
    } else if (options.changelog) {
      IcebergSplit split;
      split.snapshot_id = snap->snapshot_id;
      split.schema_id = SchemaIdOf(metadata, *snap);
      split.changelog = true;
      split.parent = snap->parent_snapshot_id;
      round.splits.push_back(std::move(split));
    } else if (op == iceberg::operation::kDelete && options.skip_delete_snapshots) {
    } else if (op != iceberg::operation::kDelete && options.skip_overwrite_snapshots) {
    } else {
      const bool is_delete = op == iceberg::operation::kDelete;
      round.stopped_by = Error(
          ErrorCode::kNotSupported,
          fmt::format(
              "table {}: snapshot {} is {} snapshot: reading appends only cannot express "
              "the rows it removes (pass {} to skip such snapshots)",
              table, snap->snapshot_id,
              is_delete ? "a delete" : (op.empty() ? std::string("an operation-less") : "an " + op),
              is_delete ? "--streaming-skip-delete-snapshots"
                        : "--streaming-skip-overwrite-snapshots"));
      return round;
    }
    next.last_planned = snap->snapshot_id;
    ++round.snapshots;
  }
  if (next.end && next.last_planned == next.end) next.finished = true;
  return round;
}

}  // namespace floe::source
