#pragma once
/// Merging small manifests (the `commit.manifest.*` properties), so that a
/// table's manifest count — and with it commit and planning cost — stays
/// bounded as appends accumulate. See docs/iceberg-commits.md.
///
/// Manifests are grouped by partition spec and content. A group is merged
/// only once it holds `min_count_to_merge` manifests or more; it is then
/// packed, in list order (newest first), into bins of at most
/// `target_size_bytes` of manifest length, and each bin of two or more
/// manifests is rewritten as one manifest: entries added by the new snapshot
/// stay ADDED (inheriting its sequence number), entries it deleted stay
/// DELETED, entries deleted by older snapshots are dropped, and every other
/// entry becomes EXISTING with its sequence numbers written explicitly.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_properties.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

struct ManifestMergeOptions {
  /// `commit.manifest-merge.enabled`, default true.
  bool enabled = true;
  /// `commit.manifest.min-count-to-merge`, default 100.
  int64_t min_count_to_merge = table_properties::kCommitManifestMinCountToMergeDefault;
  /// `commit.manifest.target-size-bytes`, default 8 MiB.
  int64_t target_size_bytes = table_properties::kCommitManifestTargetSizeBytesDefault;

  static ManifestMergeOptions FromProperties(const TableMetadata& metadata);
};

/// Merges `manifests` (the new snapshot's list, newest first) for snapshot
/// `snapshot_id` of a table whose metadata is `base`. `new_path` names each
/// merged manifest; the paths written are appended to `*written`. Returns
/// the new list (merged manifests take the place of their bin's first).
/// Errors: reading or writing manifests.
Result<std::vector<ManifestFile>> MergeManifests(io::FileIO& io, const TableMetadata& base,
                                                 SnapshotId snapshot_id,
                                                 std::vector<ManifestFile> manifests,
                                                 const ManifestMergeOptions& options,
                                                 const std::function<std::string()>& new_path,
                                                 std::vector<std::string>* written);

/// Rewrites `entries` (read from manifests of spec `spec_id` and `content`)
/// into one manifest at `path` for snapshot `snapshot_id`, with the status
/// rules above. Used by merging and by producers that remove files.
Result<ManifestFile> WriteRewrittenManifest(io::FileIO& io, const TableMetadata& base,
                                            const std::string& path, int32_t spec_id,
                                            ManifestContent content, SnapshotId snapshot_id,
                                            const std::vector<ManifestEntry>& entries);

}  // namespace floe::iceberg
