#pragma once
/// ExpireSnapshots: removes old snapshots from the table metadata and then
/// deletes the files only they reached.
///
/// Which snapshots stay (as Iceberg Java decides): every snapshot a tag
/// points at; for each branch, its head and then its ancestors while fewer
/// than `min-snapshots-to-keep` (the ref's, else RetainLast, else the
/// `history.expire.min-snapshots-to-keep` property, default 1) are kept or
/// while they are not older than the cutoff (the ref's max-snapshot-age-ms
/// relative to now, else ExpireOlderThan, else now minus
/// `history.expire.max-snapshot-age-ms`, default 5 days), stopping at the
/// first that is neither; snapshots on no branch are kept unless older than
/// the cutoff. Snapshots named by ExpireSnapshotId are removed unless a ref
/// points at them (kInvalidArgument).
///
/// Files: after the commit, manifest lists of removed snapshots, their
/// manifests no kept snapshot lists, and data and delete files that no kept
/// snapshot has live are deleted (with CleanFiles(false), none are). Only
/// files inside the table's folders (TableFolders) are deleted unless
/// DeleteOutsideLocation(true): a name outside them comes from rewritten or
/// hostile metadata and is reported in `skipped_outside_location` instead.
/// Metadata files are left to `write.metadata.previous-versions-max`.

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

struct ExpireSnapshotsResult {
  std::vector<SnapshotId> expired_snapshot_ids;
  int64_t deleted_manifest_lists = 0;
  int64_t deleted_manifests = 0;
  int64_t deleted_data_files = 0;
  int64_t deleted_delete_files = 0;
  /// Unreachable files outside the table's folders, left in place.
  std::vector<std::string> skipped_outside_location;
};

/// The folders a table's files may live in: its location and the
/// `write.data.path`, `write.metadata.path`, `write.object-storage.path` and
/// `write.folder-storage.path` properties when set.
std::vector<std::string> TableFolders(const TableMetadata& metadata);

/// Whether `path` lies inside one of TableFolders(metadata) (io::PathIsWithin:
/// lexical, ".." resolved).
bool IsInsideTable(const TableMetadata& metadata, std::string_view path);

class ExpireSnapshots final : public TableOperation {
 public:
  explicit ExpireSnapshots(Table* table) : table_(table) {}

  /// Snapshots older than this (ms since the epoch) may be removed.
  ExpireSnapshots& ExpireOlderThan(int64_t timestamp_ms);
  /// Keep at least `n` (>= 1) snapshots on each branch.
  ExpireSnapshots& RetainLast(int n);
  /// Remove this snapshot (not the head of a ref).
  ExpireSnapshots& ExpireSnapshotId(SnapshotId id);
  ExpireSnapshots& CleanFiles(bool clean);
  /// Also delete unreachable files outside the table's folders (default: no).
  ExpireSnapshots& DeleteOutsideLocation(bool allow);

  /// Commits (with retries) and deletes the unreachable files.
  Result<ExpireSnapshotsResult> Commit();

  std::string_view name() const override { return "expire-snapshots"; }
  Result<std::vector<TableUpdate>> Apply(const TableMetadata& base, OperationContext& ctx) override;

  /// The snapshots that would be removed from `base` at time `now_ms`.
  Result<std::vector<SnapshotId>> SnapshotsToExpire(const TableMetadata& base,
                                                    int64_t now_ms) const;

 private:
  Table* table_;
  std::optional<int64_t> older_than_ms_;
  std::optional<int> retain_last_;
  std::set<SnapshotId> explicit_ids_;
  bool clean_files_ = true;
  bool delete_outside_location_ = false;
  std::optional<TableMetadata> applied_base_;
  std::vector<SnapshotId> applied_ids_;
};

/// Deletes the files reachable from the snapshots of `before` that `after`
/// no longer has, and not reachable from any snapshot of `after`; files
/// outside the folders of `after` only with `delete_outside_location` (else
/// they are listed in `skipped_outside_location`). Errors: reading manifests
/// (deletion failures are ignored: best effort).
Result<ExpireSnapshotsResult> DeleteUnreachableFiles(io::FileIO& io, const TableMetadata& before,
                                                     const TableMetadata& after,
                                                     bool delete_outside_location = false);

}  // namespace floe::iceberg
