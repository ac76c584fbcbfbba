#pragma once
/// TableMetadataBuilder: produces the next table metadata from the current
/// one and a list of TableUpdates, validating each update, and keeping the
/// bookkeeping right: schema/spec/sort-order ids, last-column-id and
/// last-partition-id, last-sequence-number, v3 next-row-id, the snapshot log
/// (when main moves), the metadata log (pruned to
/// `write.metadata.previous-versions-max`), and last-updated-ms.
///
/// Typical use by a catalog commit:
///   FLOE_RETURN_IF_ERROR(CheckRequirements(requirements, current));  // kCommitConflict
///   auto builder = TableMetadataBuilder::ForUpdate(*current, current_location);
///   FLOE_RETURN_IF_ERROR(builder.ApplyAll(updates));
///   FLOE_ASSIGN_OR_RETURN(TableMetadata next, builder.Build());
/// or all at once with CommitTableChanges(). Not thread-safe; one builder
/// per commit attempt. See docs/iceberg-metadata.md.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/update/table_requirement.h"
#include "floe/iceberg/update/table_update.h"

namespace floe::iceberg {

class TableMetadataBuilder {
 public:
  struct Options {
    /// The commit time: last-updated-ms and snapshot-log entries for refs
    /// moved to snapshots not added in this change. Default: the clock.
    std::optional<int64_t> now_ms;
  };

  /// Starts a new table (the metadata of a "create"). Build() requires a
  /// current schema; it adds the unpartitioned spec and unsorted order when
  /// none were added and a random table uuid when none was assigned.
  /// kNotSupported unless 1 <= format_version <= 3.
  static Result<TableMetadataBuilder> ForNewTable(int format_version = kDefaultFormatVersion,
                                                  Options options = {});
  /// Starts a change to `base`, which was read from `base_location` (the
  /// metadata file; "" if none, then no metadata-log entry is added).
  static TableMetadataBuilder ForUpdate(const TableMetadata& base, std::string base_location,
                                        Options options = {});

  /// Applies one update. Errors: kInvalidArgument naming the update and the
  /// rule (unknown schema id, duplicate snapshot, stale sequence number,
  /// removing the current schema, ...), kNotSupported (format version > 3).
  /// `format-version` is reserved, not a property: set-properties with it
  /// upgrades the format version through upgrade-format-version (a table
  /// being created may take any supported version); a downgrade is
  /// kInvalidArgument, an unsupported version kNotSupported, and removing it
  /// kInvalidArgument. Setting Java's other reserved properties (uuid,
  /// snapshot-count, current-snapshot-id, current-schema, ...) is
  /// kInvalidArgument. After an error the builder should be discarded.
  Status Apply(const TableUpdate& update);
  Status ApplyAll(const std::vector<TableUpdate>& updates);

  /// The updates applied so far, with ids resolved (-1 replaced).
  const std::vector<TableUpdate>& changes() const { return changes_; }
  /// The metadata as changed so far (not yet validated or stamped).
  const TableMetadata& current() const { return metadata_; }
  /// Ids assigned by the last AddSchema / AddPartitionSpec / AddSortOrder.
  std::optional<int32_t> last_added_schema_id() const { return last_added_schema_id_; }
  std::optional<int32_t> last_added_spec_id() const { return last_added_spec_id_; }
  std::optional<int32_t> last_added_sort_order_id() const { return last_added_order_id_; }

  /// The next metadata. For an update with no changes, returns the base
  /// unchanged. Errors: kInvalidArgument when the result is not valid
  /// metadata (e.g. a new table without schema), with the rule broken.
  Result<TableMetadata> Build() const&;
  /// The same, taking the metadata out of the builder (no copy); only
  /// changes() may be used afterwards.
  Result<TableMetadata> Build() &&;

 private:
  TableMetadataBuilder() = default;

  Status AddSchema(const update::AddSchema& u);
  Status SetCurrentSchema(int32_t id);
  Status AddSpec(const update::AddPartitionSpec& u);
  Status SetDefaultSpec(int32_t id);
  Status AddSortOrder(const update::AddSortOrder& u);
  Status SetDefaultSortOrder(int32_t id);
  Status AddSnapshot(const update::AddSnapshot& u);
  Status SetRef(const update::SetSnapshotRef& u);
  Status RemoveSnapshots(const update::RemoveSnapshots& u);
  Status RemoveRef(const std::string& name);
  Status UpgradeFormatVersion(int version);
  /// `format-version` given as a property: reserved, never stored; it
  /// upgrades the format version (any supported version for a new table).
  Status SetFormatVersionProperty(std::string_view text);
  /// Validates and stamps `m` (the metadata as changed) for Build.
  Status Finish(TableMetadata& m) const;

  TableMetadata metadata_;
  bool is_new_ = false;
  /// The base's last-updated-ms; set for an update (ForUpdate).
  std::optional<int64_t> base_last_updated_ms_;
  std::string base_location_;
  int64_t now_ms_ = 0;
  std::vector<TableUpdate> changes_;
  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  std::set<SnapshotId> added_snapshot_ids_;
};

/// Checks `requirements` against `base` (nullptr: the table does not exist)
/// and applies `updates`: the catalog side of a commit. Errors: kCommitConflict
/// for a failed requirement; those of Apply and Build.
Result<TableMetadata> CommitTableChanges(const TableMetadata* base, std::string_view base_location,
                                         const std::vector<TableRequirement>& requirements,
                                         const std::vector<TableUpdate>& updates,
                                         TableMetadataBuilder::Options options = {});

/// A random version-4 UUID in canonical lower-case text.
std::string GenerateUuid();

/// A random positive snapshot id (the spec's recommendation: not time-based).
SnapshotId GenerateSnapshotId();

}  // namespace floe::iceberg
