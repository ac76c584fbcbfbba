#pragma once
/// Changelog of one snapshot (`floe read --changelog`, docs/read.md,
/// "Changelogs"): the row-level changes between a snapshot and its parent,
/// whatever its operation — appends, overwrites, deletes, and the equality
/// and position deletes of upsert commits.
///
/// How: both snapshots are planned (TableScan: every live data file with the
/// delete files that apply to it, by the spec's sequence-number rules). A
/// data file in both with the same delete files has the same rows and is not
/// read. Every other data file is read at the parent (with the parent's
/// deletes) and at the snapshot (with the snapshot's), both in the
/// snapshot's schema: rows only at the parent are deleted, rows only at the
/// snapshot are inserted (as multisets of rows, so duplicates count). Rows
/// deleted and inserted unchanged in one snapshot (a copy-on-write rewrite
/// moving them to a new file) cancel out. With identifier fields, a deleted
/// and an inserted row with the same key are an update: update_before (the
/// old row), update_after (the new one).
///
/// Cost: the files an overwrite touches are read twice, and every row of
/// them is held in memory while the snapshot's changes are computed.
///
/// Deterministic: the same snapshots give the same changes in the same
/// order (deletes, then updates, then inserts, each in file order), so a
/// restored reader can skip the ones it emitted.

#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::source {

enum class ChangeKind : uint8_t { kInsert, kDelete, kUpdateBefore, kUpdateAfter };
/// "insert", "delete", "update_before", "update_after".
std::string_view ChangeKindName(ChangeKind kind);

struct RowChangeLine {
  ChangeKind kind = ChangeKind::kInsert;
  /// The row as a JSON object (docs/json-rows.md), in the snapshot's schema
  /// (only `columns` of it, when given).
  std::string row;
};

/// What computing one snapshot's changes read (counted per open: a data
/// file read on both sides counts twice, and its delete files once per side).
struct ChangelogReads {
  int64_t data_files = 0;
  int64_t delete_files = 0;
};

/// The changes of `snapshot_id` against `parent_id` (nullopt: an empty
/// table before it). `filter` (unbound, may be null) keeps only rows that
/// match it on either side. `columns` (empty: all) are the columns printed:
/// rows are still compared whole, so a change in another column is a
/// change. Errors: kNotFound (a snapshot no longer in the table),
/// kInvalidArgument (unknown columns), planning and reading errors naming the
/// file. `reads` (may be null) is added what was read.
Result<std::vector<RowChangeLine>> ComputeChangelog(
    io::FileIO& io, const iceberg::TableMetadata& metadata,
    std::optional<iceberg::SnapshotId> parent_id, iceberg::SnapshotId snapshot_id,
    const iceberg::ExprPtr& filter, bool case_sensitive,
    const std::vector<std::string>& columns = {}, ChangelogReads* reads = nullptr);

/// One output line of a change: {"op":"insert","snapshot_id":N,"row":{...}}
/// (no newline).
void AppendChangeJson(ChangeKind kind, iceberg::SnapshotId snapshot_id, std::string_view row,
                      std::string* out);

}  // namespace floe::source
