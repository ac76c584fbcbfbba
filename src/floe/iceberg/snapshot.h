#pragma once
/// Snapshots, snapshot references (branches and tags) and the history logs of
/// table metadata (format spec, "Snapshots", "Snapshot References", "Table
/// Metadata Fields"). Plain value types; JSON lives in metadata_json.h.
/// See docs/iceberg-metadata.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace floe::iceberg {

/// A snapshot id (a positive long, random per the spec's recommendation).
using SnapshotId = int64_t;

/// The branch every table has; `current-snapshot-id` is its snapshot.
inline constexpr std::string_view kMainBranch = "main";

/// The snapshot summary's "operation" values.
namespace operation {
inline constexpr std::string_view kAppend = "append";
inline constexpr std::string_view kReplace = "replace";
inline constexpr std::string_view kOverwrite = "overwrite";
inline constexpr std::string_view kDelete = "delete";
}  // namespace operation

enum class SnapshotRefType { kBranch, kTag };

/// "branch" / "tag".
std::string_view SnapshotRefTypeName(SnapshotRefType type);

/// A named reference to a snapshot, with its retention policy. The optional
/// fields fall back to the table properties `history.expire.*` when absent.
struct SnapshotRef {
  SnapshotId snapshot_id = 0;
  SnapshotRefType type = SnapshotRefType::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  ///< branches only
  std::optional<int64_t> max_snapshot_age_ms;    ///< branches only
  std::optional<int64_t> max_ref_age_ms;         ///< never applies to main

  static SnapshotRef Branch(SnapshotId id) { return {id, SnapshotRefType::kBranch, {}, {}, {}}; }
  static SnapshotRef Tag(SnapshotId id) { return {id, SnapshotRefType::kTag, {}, {}, {}}; }
  bool is_branch() const { return type == SnapshotRefType::kBranch; }

  friend bool operator==(const SnapshotRef&, const SnapshotRef&) = default;
};

/// One snapshot of a table.
struct Snapshot {
  SnapshotId snapshot_id = 0;
  std::optional<SnapshotId> parent_snapshot_id;
  /// v2+: required; 0 when read from v1 metadata.
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  /// The manifest list location. Empty only for v1 snapshots that list
  /// `manifests` directly.
  std::string manifest_list;
  /// v1 only: manifest locations when there is no manifest list.
  std::vector<std::string> manifests;
  /// The summary's "operation" ("append", "replace", "overwrite", "delete");
  /// empty if the snapshot (v1) has no summary.
  std::string operation;
  /// The rest of the summary (metrics such as "added-data-files" and custom
  /// keys), without "operation".
  std::map<std::string, std::string> summary;
  std::optional<int32_t> schema_id;
  /// v3 row lineage: the first row id of the snapshot and the number of row
  /// ids it assigned.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
  /// v3: the encryption key of the manifest list's key metadata.
  std::optional<std::string> key_id;
  /// Members floe does not know, kept so that a rewrite loses nothing.
  nlohmann::json extra = nlohmann::json::object();

  /// A summary value, or nullopt.
  std::optional<std::string> SummaryValue(std::string_view key) const;

  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

/// An entry of `snapshot-log`: when the main branch moved to a snapshot.
struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  SnapshotId snapshot_id = 0;
  friend bool operator==(const SnapshotLogEntry&, const SnapshotLogEntry&) = default;
};

/// An entry of `metadata-log`: a previous metadata file and its last-updated-ms.
struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  friend bool operator==(const MetadataLogEntry&, const MetadataLogEntry&) = default;
};

}  // namespace floe::iceberg
