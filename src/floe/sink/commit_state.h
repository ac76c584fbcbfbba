#pragma once
/// The committer's checkpointed state (docs/sink-commit.md): for every
/// checkpoint taken but not yet committed everywhere, the manifests written
/// for each table, the source position, and the tables the committer knows
/// (to count their empty checkpoints). Serialized as JSON into the durable
/// checkpoint; small (manifest paths and counts, never file lists).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/manifest/manifest.h"

namespace floe::sink {

/// One manifest the committer wrote for a table at a checkpoint (the fields
/// of its manifest-list entry that reading it back needs).
struct StagedManifest {
  std::string path;
  int64_t length = 0;
  int32_t spec_id = 0;
  iceberg::ManifestContent content = iceberg::ManifestContent::kData;
  int32_t files = 0;
  int64_t records = 0;
  friend bool operator==(const StagedManifest&, const StagedManifest&) = default;
};

/// What one checkpoint commits to one table. No manifests: an empty commit
/// that only records the checkpoint id and source position.
struct StagedTable {
  iceberg::TableIdentifier id;
  std::vector<StagedManifest> manifests;
  /// Data files that this checkpoint's position deletes point at; they must
  /// still be live when the commit happens.
  std::vector<std::string> referenced_data_files;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t records = 0;
  int64_t deleted_records = 0;
  /// Written in overwrite mode: replaces the partitions it writes.
  bool overwrite = false;
  /// The table was truncated in this checkpoint: the commit removes every
  /// live data and delete file of the table and adds `manifests`' files, in
  /// one snapshot (docs/sink-commit.md, "Truncation"). JSON "truncated"
  /// (absent: false, as in states written before truncation existed).
  bool truncated = false;
  friend bool operator==(const StagedTable&, const StagedTable&) = default;
};

/// A checkpoint whose commits are not all done.
struct PendingCheckpoint {
  engine::CheckpointId id = 0;
  /// The source position of the checkpoint (CheckpointPositions::Get).
  std::string source_position;
  /// By table key (TableIdentifier::ToString()).
  std::map<std::string, StagedTable> tables;
  friend bool operator==(const PendingCheckpoint&, const PendingCheckpoint&) = default;
};

/// A table the committer has written to, with the number of checkpoints in a
/// row that brought it nothing.
struct KnownTable {
  iceberg::TableIdentifier id;
  int empty_checkpoints = 0;
  friend bool operator==(const KnownTable&, const KnownTable&) = default;
};

struct CommitState {
  std::map<engine::CheckpointId, PendingCheckpoint> pending;
  /// By table key.
  std::map<std::string, KnownTable> known_tables;
  friend bool operator==(const CommitState&, const CommitState&) = default;
};

/// JSON: {"format": 1, "pending": [...], "known-tables": [...]}.
std::string SerializeCommitState(const CommitState& state);

/// Parses SerializeCommitState's output. An empty text is an empty state.
/// Errors: kCorruption naming `what` and the member that is wrong.
Result<CommitState> ParseCommitState(std::string_view text, std::string_view what);

/// Merges the states of every committer subtask (possibly from another
/// parallelism), keeping only the tables for which `keep(table_key)` is true.
/// A table staged twice for one checkpoint (impossible unless two subtasks
/// owned it) keeps the first. Errors: those of ParseCommitState.
Result<CommitState> MergeCommitStates(const std::vector<std::string>& states,
                                      const std::function<bool(const std::string&)>& keep);

}  // namespace floe::sink
