#pragma once
/// The machinery every table change shares (docs/iceberg-commits.md):
///
///  - `TableOperation`: one change, expressed as TableUpdates produced for a
///    given base metadata. It can be applied again to a newer base after a
///    lost race, re-validating against what changed meanwhile.
///  - `CommitOperations()`: the optimistic commit loop. Applies operations in
///    order to the table's current metadata through one TableMetadataBuilder,
///    swaps the result in with Catalog::CommitTable, and on kCommitConflict
///    reloads, re-applies and retries per the `commit.retry.*` properties
///    (exponential backoff). Several operations make one atomic commit (a
///    Transaction).
///  - `SnapshotProducer`: the base of every operation that adds a snapshot
///    (append, overwrite, row delta, delete, replace). It writes the manifests
///    of added files once, carries the parent's manifests over (rewriting only
///    those that hold removed files), merges small manifests
///    (manifest_merge.h), writes the manifest list, and builds the summary
///    with the standard totals.
///
/// Not thread-safe: one operation, one thread.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/snapshot_summary.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_properties.h"
#include "floe/iceberg/update/table_update.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

class Table;

/// The `commit.retry.*` settings.
struct CommitRetryOptions {
  int num_retries = table_properties::kCommitRetryNumRetriesDefault;
  int64_t min_wait_ms = table_properties::kCommitRetryMinWaitMsDefault;
  int64_t max_wait_ms = table_properties::kCommitRetryMaxWaitMsDefault;
  int64_t total_timeout_ms = table_properties::kCommitRetryTotalTimeoutMsDefault;
  static CommitRetryOptions FromProperties(const TableMetadata& metadata);
};

/// A file live in a snapshot (status ADDED or EXISTING in one of its
/// manifests), with the spec id of that manifest.
struct LiveFile {
  ManifestEntry entry;
  int32_t spec_id = 0;
};

/// The live data and delete files of `snapshot` (nullptr: none). Errors:
/// those of reading manifest lists and manifests.
Result<std::vector<LiveFile>> ReadLiveFiles(io::FileIO& io, const TableMetadata& metadata,
                                            const Snapshot* snapshot);

/// The paths of files that snapshots committed after `from` (exclusive) up to
/// the current snapshot of `metadata` (inclusive) removed, with `content`
/// (data or deletes). nullopt `from`: every snapshot of the current history.
/// Errors: kCommitConflict when `from` is no longer an ancestor of the
/// current snapshot (the history between them cannot be checked).
Result<std::set<std::string>> FilesRemovedSince(io::FileIO& io, const TableMetadata& metadata,
                                                std::optional<SnapshotId> from,
                                                ManifestContent content);

/// The files (with `content`) that snapshots committed after `from` up to the
/// current snapshot added. Errors as FilesRemovedSince.
Result<std::vector<LiveFile>> FilesAddedSince(io::FileIO& io, const TableMetadata& metadata,
                                              std::optional<SnapshotId> from,
                                              ManifestContent content);

/// What one commit attempt gives an operation.
struct OperationContext {
  io::FileIO* io = nullptr;
  int attempt = 0;     ///< 0 for the first
  int64_t now_ms = 0;  ///< the attempt's clock
};

/// One change to a table that can be applied to any base metadata.
class TableOperation {
 public:
  virtual ~TableOperation() = default;
  /// "append", "set-properties", ... (for messages).
  virtual std::string_view name() const = 0;
  /// The updates that make the change on top of `base` (the table's current
  /// metadata with earlier operations of the same commit applied). May write
  /// files (manifests); called again for each attempt. Errors end the
  /// commit; kCommitConflict here means a validation failed (not retried).
  virtual Result<std::vector<TableUpdate>> Apply(const TableMetadata& base,
                                                 OperationContext& ctx) = 0;
  /// Called once the outcome is known: `committed` true deletes the files of
  /// attempts that lost; false deletes every file the operation wrote. Not
  /// called when the outcome is unknown (kCommitStateUnknown).
  virtual void Cleanup(io::FileIO& io, bool committed) {}
  /// The id of the snapshot the operation adds (the same in every attempt),
  /// if it adds one.
  virtual std::optional<SnapshotId> added_snapshot_id() const { return std::nullopt; }
};

/// Commits `operations` atomically to `table` (one catalog commit), retrying
/// lost races per `commit.retry.*`: reload, re-apply (re-validate), backoff
/// min-wait * 2^attempt capped at max-wait, until num-retries retries or
/// total-timeout are used up. On success `table` holds the new metadata.
/// A conflict after which the reloaded table holds the snapshots the
/// operations add is a success: an earlier attempt reached the server and
/// was applied, and a second delivery of it (by a transport or a proxy that
/// sends a request again) conflicted with itself. Snapshot ids are random
/// 63-bit numbers chosen here, so no other writer's snapshot has them.
/// Errors: kCommitConflict (retries exhausted, or a validation failed),
/// kCommitStateUnknown (the table may or may not have the change: reload and
/// check; files are then kept), and those of the operations.
Status CommitOperations(Table& table, std::span<TableOperation* const> operations);
/// One attempt of CommitOperations without the catalog commit (for a commit
/// of several tables, CommitTransactions): `operations` applied in order to
/// `table`'s loaded metadata; nullopt when they change nothing. Errors: the
/// operations' (whose files are then cleaned up), with context.
Result<std::optional<TableMetadata>> ApplyOperations(Table& table,
                                                     std::span<TableOperation* const> operations,
                                                     int attempt);
/// Whether `metadata` holds every snapshot `operations` add (and they add one).
bool HoldsAddedSnapshots(const TableMetadata& metadata,
                         std::span<TableOperation* const> operations);
/// TableOperation::Cleanup of each operation.
void CleanupOperations(io::FileIO& io, std::span<TableOperation* const> operations, bool committed);
/// "`what` append + set-properties on table ns.t", for messages.
std::string OperationsContext(std::string_view what, const Table& table,
                              std::span<TableOperation* const> operations);
/// After failed attempt `attempt` (0 for the first) of a commit started at
/// `start`: sleeps the backoff of `retry` and returns true, or returns false
/// when the retries or the total timeout are used up.
bool WaitBeforeRetry(const CommitRetryOptions& retry, int attempt,
                     std::chrono::steady_clock::time_point start);
/// CommitOperations for `operation` alone (the Commit() of each operation).
Status CommitOperation(Table& table, TableOperation& operation);

/// The base of operations that add a snapshot to the main branch.
class SnapshotProducer : public TableOperation {
 public:
  /// A custom summary key (e.g. a committed source offset).
  void SetSummaryProperty(std::string key, std::string value);
  /// Concurrent changes are validated against snapshots committed after
  /// `snapshot_id` (default: the table's current snapshot when the operation
  /// was made). nullopt: the whole history.
  void ValidateFromSnapshot(std::optional<SnapshotId> snapshot_id) { validate_from_ = snapshot_id; }
  /// The new snapshot's id (fixed at construction; kept across retries).
  SnapshotId snapshot_id() const { return snapshot_id_; }
  std::optional<SnapshotId> added_snapshot_id() const override { return snapshot_id_; }

  /// Commits this operation alone (CommitOperations).
  Status Commit();

  Result<std::vector<TableUpdate>> Apply(const TableMetadata& base, OperationContext& ctx) final;
  void Cleanup(io::FileIO& io, bool committed) override;

 protected:
  explicit SnapshotProducer(Table* table);

  /// The summary operation: "append", "overwrite", "delete", "replace".
  virtual std::string_view operation() const = 0;
  /// Checks concurrent changes (called per attempt, before anything else).
  virtual Status Validate(const TableMetadata& base, OperationContext& ctx) { return Ok(); }
  /// Whether this operation removes data files / delete files. When both are
  /// false the parent's manifests are carried over without being read.
  virtual bool removes_data_files() const { return false; }
  virtual bool removes_delete_files() const { return false; }
  /// Whether a manifest may hold files this operation removes (cheap checks
  /// on its spec and partition summaries). Default: yes.
  virtual Result<bool> ManifestMayHoldRemovals(const ManifestFile& manifest,
                                               const TableMetadata& base) {
    return true;
  }
  /// Whether this operation removes the live file of `entry`.
  /// kInvalidArgument refuses the operation (e.g. a filter matching only part
  /// of a file).
  virtual Result<bool> Removes(const ManifestEntry& entry, int32_t spec_id,
                               const TableMetadata& base) {
    return false;
  }
  /// Called with every removed path after the parent's manifests were
  /// filtered (e.g. to insist that files asked for by path were found).
  virtual Status CheckRemoved(const std::set<std::string>& removed_paths) { return Ok(); }
  /// For CheckRemoved: kCommitConflict "<kind> <path> to <verb> is no
  /// longer in the table" for the first of `wanted` not in `removed_paths`.
  static Status CheckAllRemoved(const std::set<std::string>& wanted,
                                const std::set<std::string>& removed_paths, std::string_view kind,
                                std::string_view verb);

  /// Adds a data file written for spec `spec_id`. A `data_sequence_number`
  /// is written explicitly (compaction keeps the replaced files' number);
  /// otherwise the file inherits the new snapshot's.
  void AddDataFile(DataFile file, int32_t spec_id,
                   std::optional<int64_t> data_sequence_number = std::nullopt);
  /// Adds a position or equality delete file written for spec `spec_id`.
  void AddDeleteFile(DataFile file, int32_t spec_id);
  /// Adds `manifest`, written beforehand, as it is (Iceberg Java's
  /// appendManifest): its entries must be ADDED with no snapshot id and no
  /// sequence numbers, so that they inherit this snapshot's (format v2+ only;
  /// Apply refuses it on a v1 table). `files` are its files, for the summary.
  /// Saves reading the files back and writing them again. The manifest is
  /// not this operation's: Cleanup never deletes it.
  void AddWrittenManifest(ManifestFile manifest, std::vector<DataFile> files);

  /// `spec_id`, or the table's default partition spec id when it is nullopt
  /// (the spec of a file added without one).
  int32_t SpecIdOrDefault(std::optional<int32_t> spec_id) const;

  bool adds_data_files() const { return !added_data_.empty() || adopts_data_; }
  bool adds_delete_files() const { return !added_deletes_.empty() || adopts_deletes_; }

  Table* table_;
  std::optional<SnapshotId> validate_from_;

 private:
  struct Added {
    DataFile file;
    int32_t spec_id = 0;
    std::optional<int64_t> data_sequence_number;
  };
  /// kInvalidArgument naming the table and file when `file`, added to a v3
  /// table, is a position delete file that is not a deletion vector (the
  /// spec allows only deletion vectors there).
  Status CheckV3DeleteFile(const DataFile& file) const;
  Result<std::string> NewManifestPath(const TableMetadata& base);
  Result<std::vector<ManifestFile>> WriteAddedManifests(const TableMetadata& base,
                                                        std::vector<Added>& files,
                                                        ManifestContent content,
                                                        std::vector<ManifestFile>* cache);
  Result<std::vector<ManifestFile>> CarryOver(const TableMetadata& base,
                                              const std::vector<ManifestFile>& parent_manifests,
                                              SnapshotSummaryBuilder* summary,
                                              std::vector<std::string>* written);

  SnapshotId snapshot_id_;
  std::vector<Added> added_data_;
  std::vector<Added> added_deletes_;
  /// Manifests written beforehand (AddWrittenManifest), with their files.
  std::vector<std::pair<ManifestFile, std::vector<DataFile>>> adopted_;
  bool adopts_data_ = false;
  bool adopts_deletes_ = false;
  std::map<std::string, std::string> summary_properties_;
  /// Manifests of the added files, written at the first attempt and reused.
  std::vector<ManifestFile> added_data_manifests_;
  std::vector<ManifestFile> added_delete_manifests_;
  bool added_written_ = false;
  /// Every file written by any attempt, and those of the last attempt.
  std::vector<std::string> written_files_;
  std::set<std::string> last_attempt_files_;
  /// The last attempt's manifest list and its entries as a reader sees
  /// them; the Table remembers them once the commit succeeded.
  std::string list_path_;
  std::vector<ManifestFile> list_as_read_;
  int manifest_counter_ = 0;
};

}  // namespace floe::iceberg
