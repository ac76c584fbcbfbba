#include "floe/sink/committer_operator.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "floe/common/random.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/transaction.h"
#include "floe/sink/commit_fence.h"
#include "floe/sink/commit_state.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/parallel_for.h"

namespace floe::sink {

size_t CommitterSubtaskOf(std::string_view table_key, size_t num_subtasks) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
  for (unsigned char c : table_key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return num_subtasks == 0 ? 0 : static_cast<size_t>(h % num_subtasks);
}

size_t CommitterRoute(const WriteResult& result, size_t num_subtasks) {
  return result.target ? CommitterSubtaskOf(result.target->key, num_subtasks) : 0;
}

namespace {

using engine::CheckpointId;

struct SpecFiles {
  std::vector<iceberg::DataFile> data;
  std::vector<iceberg::DataFile> deletes;
};

/// The results of one table in the current checkpoint.
struct TableBuffer {
  iceberg::TableIdentifier id;
  std::shared_ptr<const iceberg::TableMetadata> metadata;  ///< of the newest result
  std::map<int32_t, SpecFiles> specs;
  std::vector<std::string> referenced;
  /// A writer truncated the table in this checkpoint.
  bool truncated = false;
};

/// The snapshot of a checkpoint in which the source truncated the table: it
/// removes every live data and delete file (as a delete with an always-true
/// filter would, but delete files too) and adds the files written after the
/// truncation, so readers see the truncation and the new rows at once. The
/// removals are chosen again on every attempt, against the then current
/// snapshot.
class TruncateAndAdd final : public iceberg::SnapshotProducer {
 public:
  explicit TruncateAndAdd(iceberg::Table* table) : SnapshotProducer(table) {}
  void AddData(iceberg::DataFile file, int32_t spec_id) { AddDataFile(std::move(file), spec_id); }
  void AddDeletes(iceberg::DataFile file, int32_t spec_id) {
    AddDeleteFile(std::move(file), spec_id);
  }
  void AddManifest(iceberg::ManifestFile manifest, std::vector<iceberg::DataFile> files) {
    AddWrittenManifest(std::move(manifest), std::move(files));
  }
  std::string_view name() const override { return "truncate"; }

 protected:
  std::string_view operation() const override {
    return adds_data_files() || adds_delete_files() ? iceberg::operation::kOverwrite
                                                    : iceberg::operation::kDelete;
  }
  bool removes_data_files() const override { return true; }
  bool removes_delete_files() const override { return true; }
  Result<bool> Removes(const iceberg::ManifestEntry&, int32_t,
                       const iceberg::TableMetadata&) override {
    return true;
  }
};

/// The manifests this run staged for one table at one checkpoint, with their
/// files: committed as they are (SnapshotProducer::AddWrittenManifest) when
/// the table's format version is still the one they were written in.
struct LiveStaged {
  int format_version = 2;
  std::vector<std::pair<iceberg::ManifestFile, std::vector<iceberg::DataFile>>> manifests;
};

/// The files of a staged table, read back from its manifests.
struct StagedFiles {
  std::vector<std::pair<iceberg::DataFile, int32_t>> data;
  std::vector<std::pair<iceberg::DataFile, int32_t>> deletes;
};

/// One table's handle; used by one thread at a time.
struct TableHandle {
  std::optional<iceberg::Table> table;
  /// Checkpoints of this run whose commit was attempted (and may have landed).
  std::set<CheckpointId> attempted;
};

struct TableCommits {
  std::vector<CommitOutcome> outcomes;
  std::vector<CheckpointId> done;  ///< committed or already in the table
  /// The table is gone (renamed or dropped by the pipeline's own schema
  /// changes) and only had empty commits to take: forget it.
  bool vanished = false;
};

uint64_t RandomTag() { return RandomU64(); }

Status WriteOneManifest(io::FileIO& io, const iceberg::TableMetadata& metadata, CheckpointId id,
                        int32_t spec_id, iceberg::ManifestContent content,
                        const std::vector<iceberg::DataFile>& files, StagedTable* staged,
                        LiveStaged* live) {
  const iceberg::PartitionSpec* spec = metadata.SpecById(spec_id);
  const types::Schema* schema = metadata.CurrentSchema();
  if (spec == nullptr || schema == nullptr) {
    return InvalidArgument(
        "table {}: write results name partition spec {}, which its metadata "
        "lacks",
        metadata.location, spec_id);
  }
  const bool data = content == iceberg::ManifestContent::kData;
  std::string path =
      fmt::format("{}/metadata/floe-commit-{}-{:016x}-s{}-{}.avro", metadata.location, id,
                  RandomTag(), spec_id, data ? "data" : "deletes");
  // Staging manifests are read back only by floe: v2 (or the table's newer
  // version) even for v1 tables, so that delete manifests can be written.
  const int format_version = std::max(2, metadata.format_version);
  FLOE_ASSIGN_OR_RETURN(
      auto writer, iceberg::ManifestWriter::Open(io, path, format_version, *schema, *spec, content,
                                                 std::nullopt));
  for (const auto& file : files) {
    iceberg::ManifestEntry entry;
    entry.status = iceberg::ManifestEntryStatus::kAdded;
    entry.data_file = file;
    FLOE_RETURN_IF_ERROR_CTX(writer->Add(entry), "writing manifest {}", path);
  }
  FLOE_ASSIGN_OR_RETURN(iceberg::ManifestFile written, writer->Close());
  staged->manifests.push_back(StagedManifest{path, written.manifest_length, spec_id, content,
                                             written.added_files_count, written.added_rows_count});
  live->format_version = format_version;
  live->manifests.emplace_back(std::move(written), files);
  return Ok();
}

}  // namespace

struct CommitterOperator::Impl {
  SinkOptions options;
  std::shared_ptr<CheckpointPositions> positions;
  std::shared_ptr<iceberg::Catalog> catalog;
  int subtask = 0;
  int parallelism = 1;
  /// Every table of a checkpoint in one catalog transaction (the catalog
  /// supports it and this is the only committer subtask).
  bool one_transaction = false;

  std::map<std::string, TableBuffer> buffers;
  CommitState state;
  std::map<std::string, TableHandle> handles;
  /// What this run staged, by checkpoint and table key (a restored
  /// checkpoint has none: its manifests are read back).
  std::map<CheckpointId, std::map<std::string, LiveStaged>> live_staged;
  /// Checkpoints snapshotted by this run (not restored).
  std::set<CheckpointId> live;
  /// Outcomes of commits made in Open, emitted at the first chance.
  std::vector<CommitOutcome> deferred;

  Status EmitDeferred(engine::Collector<CommitOutcome>& out) {
    for (auto& o : deferred) FLOE_RETURN_IF_ERROR(out.Emit(std::move(o)));
    deferred.clear();
    return Ok();
  }

  Result<StagedTable> Stage(CheckpointId id, const TableBuffer& buffer, LiveStaged* live) {
    StagedTable staged;
    staged.id = buffer.id;
    staged.overwrite = options.overwrite;
    staged.truncated = buffer.truncated;
    staged.referenced_data_files = buffer.referenced;
    io::FileIO& io = catalog->file_io();
    Status s = Ok();
    for (const auto& [spec_id, files] : buffer.specs) {
      for (const auto& f : files.data) staged.records += f.record_count;
      for (const auto& f : files.deletes) staged.deleted_records += f.record_count;
      staged.data_files += static_cast<int64_t>(files.data.size());
      staged.delete_files += static_cast<int64_t>(files.deletes.size());
      if (s && !files.data.empty()) {
        s = WriteOneManifest(io, *buffer.metadata, id, spec_id, iceberg::ManifestContent::kData,
                             files.data, &staged, live);
      }
      if (s && !files.deletes.empty()) {
        s = WriteOneManifest(io, *buffer.metadata, id, spec_id, iceberg::ManifestContent::kDeletes,
                             files.deletes, &staged, live);
      }
    }
    if (!s) {
      for (const auto& m : staged.manifests) (void)io.Delete(m.path);
      return std::unexpected(std::move(s).error().WithContext(
          fmt::format("staging checkpoint {} of table {}", id, buffer.id.ToString())));
    }
    return staged;
  }

  Result<StagedFiles> ReadStaged(const iceberg::Table& table, const StagedTable& staged) {
    StagedFiles files;
    for (const StagedManifest& m : staged.manifests) {
      iceberg::ManifestFile manifest;
      manifest.manifest_path = m.path;
      manifest.manifest_length = m.length;
      manifest.partition_spec_id = m.spec_id;
      manifest.content = m.content;
      FLOE_ASSIGN_OR_RETURN(auto entries,
                            iceberg::ReadManifest(table.io(), manifest, table.metadata()));
      auto& into = m.content == iceberg::ManifestContent::kData ? files.data : files.deletes;
      for (auto& e : entries) into.emplace_back(std::move(e.data_file), m.spec_id);
    }
    return files;
  }

  /// The transaction that commits `staged` to `table` as `checkpoint`: the
  /// staged manifests themselves when `live` (not overwrite), else `files`
  /// read back from them; sets `*snapshot_id`.
  std::unique_ptr<iceberg::Transaction> BuildTransaction(
      iceberg::Table& table, const PendingCheckpoint& checkpoint, const StagedTable& staged,
      const StagedFiles& files, const LiveStaged* live, iceberg::SnapshotId* snapshot_id) {
    using Content = iceberg::ManifestContent;
    bool adds_deletes = !files.deletes.empty();
    if (live) {
      for (const auto& [manifest, _] : live->manifests)
        adds_deletes |= manifest.content == Content::kDeletes;
    }
    auto txn = table.NewTransaction();
    // First in the commit: sets the position against each attempt's base.
    FencedPosition* fence = nullptr;
    if (options.commit_fence) {
      fence = &txn->Add(std::make_unique<FencedPosition>(options.commit_fence, staged.id.ToString(),
                                                         checkpoint.id));
    }
    iceberg::SnapshotProducer* producer = nullptr;
    if (staged.truncated) {
      // Position deletes of this checkpoint point only at its own files
      // (everything before the truncation was discarded by the writers).
      auto& truncate = txn->Add(std::make_unique<TruncateAndAdd>(&table));
      for (const auto& [file, spec] : files.data) truncate.AddData(file, spec);
      for (const auto& [file, spec] : files.deletes) truncate.AddDeletes(file, spec);
      if (live) {
        for (const auto& [manifest, added] : live->manifests) truncate.AddManifest(manifest, added);
      }
      producer = &truncate;
    } else if (staged.manifests.empty()) {
      producer = &txn->NewAppend();  // an empty commit: records the position
    } else if (staged.overwrite) {
      auto& overwrite = txn->NewOverwrite();
      overwrite.OverwritePartitions();
      for (const auto& [file, spec] : files.data) overwrite.AddFile(file, spec);
      producer = &overwrite;
    } else if (adds_deletes) {
      auto& delta = txn->NewRowDelta();
      for (const auto& [file, spec] : files.data) delta.AddRows(file, spec);
      for (const auto& [file, spec] : files.deletes) delta.AddDeletes(file, spec);
      if (live) {
        for (const auto& [manifest, added] : live->manifests) delta.AddManifest(manifest, added);
      }
      if (!staged.referenced_data_files.empty()) {
        delta.ValidateDataFilesExist(staged.referenced_data_files);
      }
      producer = &delta;
    } else {
      auto& append = txn->NewAppend();
      for (const auto& [file, spec] : files.data) append.AppendFile(file, spec);
      if (live) {
        for (const auto& [manifest, added] : live->manifests)
          append.AppendManifest(manifest, added);
      }
      producer = &append;
    }
    producer->SetSummaryProperty(std::string(kSummaryPipelineId), options.pipeline_id);
    producer->SetSummaryProperty(std::string(kSummaryCheckpointId), std::to_string(checkpoint.id));
    producer->SetSummaryProperty(std::string(kSummarySourcePosition), checkpoint.source_position);
    if (fence) fence->set_producer(producer);
    txn->UpdateProperties().Set(CommittedCheckpointProperty(options.pipeline_id),
                                std::to_string(checkpoint.id));
    *snapshot_id = producer->snapshot_id();
    return txn;
  }

  /// One catalog commit of `staged` as checkpoint `id` (BuildTransaction).
  Status CommitFiles(iceberg::Table& table, const PendingCheckpoint& checkpoint,
                     const StagedTable& staged, const StagedFiles& files, const LiveStaged* live,
                     iceberg::SnapshotId* snapshot_id) {
    return BuildTransaction(table, checkpoint, staged, files, live, snapshot_id)->Commit();
  }

  /// The manifests this run staged for `key` at `checkpoint` if the commit
  /// can take them as they are, else nullptr.
  const LiveStaged* Adoptable(const std::string& key, const PendingCheckpoint& checkpoint,
                              const iceberg::TableMetadata& metadata) const {
    if (options.overwrite) return nullptr;
    auto by_checkpoint = live_staged.find(checkpoint.id);
    if (by_checkpoint == live_staged.end()) return nullptr;
    auto found = by_checkpoint->second.find(key);
    if (found == by_checkpoint->second.end() || found->second.manifests.empty()) return nullptr;
    if (found->second.format_version != metadata.format_version) return nullptr;
    return &found->second;
  }

  /// What committing a checkpoint to a table needs, or that the table has
  /// it already.
  struct Prepared {
    bool skipped = false;              ///< the table has the checkpoint
    const LiveStaged* live = nullptr;  ///< the staged manifests, taken as they are
    StagedFiles files;                 ///< else their files, read back
  };

  /// Loads table `key` if its handle has none, and prepares the commit of
  /// `checkpoint` to it unless the table has it. Errors: loading, reading
  /// the staged manifests back, and checkpoint ids reused (kInvalidArgument).
  Result<Prepared> Prepare(const std::string& key, const PendingCheckpoint& checkpoint) {
    const StagedTable& staged = checkpoint.tables.at(key);
    TableHandle& handle = handles.at(key);
    if (!handle.table) {
      FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(*catalog, staged.id));
      handle.table.emplace(std::move(table));
    }
    iceberg::Table& table = *handle.table;
    Prepared prepared;
    FLOE_ASSIGN_OR_RETURN(CheckpointId max_committed,
                          MaxCommittedCheckpoint(table.metadata(), options.pipeline_id));
    if (max_committed >= checkpoint.id) {
      if (live.contains(checkpoint.id) && !handle.attempted.contains(checkpoint.id)) {
        return InvalidArgument(
            "checkpoint {} was taken by this run, but the table already has checkpoint {} of "
            "pipeline '{}': checkpoint ids were reused (a restore from an older checkpoint must "
            "start the job with JobOptions::min_checkpoint_id = MaxCommittedCheckpoint(...)); "
            "nothing was committed",
            checkpoint.id, max_committed, options.pipeline_id);
      }
      prepared.skipped = true;
      return prepared;
    }
    handle.attempted.insert(checkpoint.id);
    prepared.live = Adoptable(key, checkpoint, table.metadata());
    if (!prepared.live) {
      FLOE_ASSIGN_OR_RETURN(prepared.files, ReadStaged(table, staged));
    }
    return prepared;
  }

  /// After a commit of `checkpoint` to `table` answered kCommitStateUnknown
  /// (`error`): reloads the table and returns the id of the snapshot that
  /// has the checkpoint (-1 when expired), or nullopt when the table lacks it.
  Result<std::optional<iceberg::SnapshotId>> ResolveUnknown(iceberg::Table& table,
                                                            const PendingCheckpoint& checkpoint,
                                                            const Error& error) {
    FLOE_RETURN_IF_ERROR_CTX(table.Refresh(), "reloading after a commit of unknown outcome ({})",
                             error.message());
    FLOE_ASSIGN_OR_RETURN(CheckpointId now_committed,
                          MaxCommittedCheckpoint(table.metadata(), options.pipeline_id));
    if (now_committed < checkpoint.id) return std::nullopt;
    const iceberg::Snapshot* snap =
        FindCheckpointSnapshot(table.metadata(), options.pipeline_id, checkpoint.id);
    return snap != nullptr ? snap->snapshot_id : -1;
  }

  /// Commits checkpoint `id` to table `key` unless the table has it.
  /// `*skipped` tells that it was there already; `*adopted` that the staged
  /// manifests became the table's (they must not be deleted).
  Result<CommitOutcome> CommitOne(const std::string& key, const PendingCheckpoint& checkpoint,
                                  bool* skipped, bool* adopted, bool replaced = false) {
    const StagedTable& staged = checkpoint.tables.at(key);
    *skipped = false;
    *adopted = false;
    FLOE_ASSIGN_OR_RETURN(Prepared prepared, Prepare(key, checkpoint));
    *skipped = prepared.skipped;
    if (prepared.skipped) return CommitOutcome{key, checkpoint.id, Ok()};
    // From here on the staged manifests may be in the table.
    *adopted = prepared.live != nullptr;
    iceberg::Table& table = *handles.at(key).table;

    CommitOutcome outcome{key, checkpoint.id, Ok()};
    outcome.added_files = staged.data_files + staged.delete_files;
    outcome.added_records = staged.records;
    const std::string uuid = table.metadata().table_uuid;
    for (int attempt = 0; attempt < 2; ++attempt) {
      iceberg::SnapshotId snapshot_id = -1;
      Status s =
          CommitFiles(table, checkpoint, staged, prepared.files, prepared.live, &snapshot_id);
      if (s) {
        outcome.snapshot_id = snapshot_id;
        return outcome;
      }
      const ErrorCode code = s.error().code();
      if ((code == ErrorCode::kCommitConflict || code == ErrorCode::kNotFound) && !replaced &&
          table.Refresh() && table.metadata().table_uuid != uuid) {
        // The name now holds another table: floe run renamed or dropped the
        // one this handle knew (its rows were committed first) and created a
        // new one, whose rows these are. Commit there, validated against its
        // own history (the old one's files may be gone with it).
        spdlog::info(
            "committer: table {} was replaced by a new table of the same name; "
            "committing checkpoint {} to the new one",
            key, checkpoint.id);
        return CommitOne(key, checkpoint, skipped, adopted, /*replaced=*/true);
      }
      if (s.error().code() != ErrorCode::kCommitStateUnknown) return std::unexpected(s.error());
      // The commit may or may not have happened: the table tells.
      spdlog::warn("committer: table {} checkpoint {}: commit outcome unknown ({}); reloading", key,
                   checkpoint.id, s.error().message());
      FLOE_ASSIGN_OR_RETURN(std::optional<iceberg::SnapshotId> found,
                            ResolveUnknown(table, checkpoint, s.error()));
      if (found) {
        outcome.snapshot_id = *found;
        return outcome;
      }
    }
    return CommitStateUnknown(
        "the commit was answered 'state unknown' twice and the checkpoint is not in the table");
  }

  /// Records into `result` the outcome of committing `checkpoint` to table
  /// `key` (`skipped`: the table had it; `adopted`: the staged manifests
  /// became the table's). Returns false when the commit failed: later
  /// checkpoints of the table wait behind this one. `recovering`: the
  /// commits of a restored checkpoint (Open).
  bool Record(const std::string& key, const PendingCheckpoint& checkpoint,
              Result<CommitOutcome> outcome, bool skipped, bool adopted, bool recovering,
              TableCommits& result) {
    const CheckpointId id = checkpoint.id;
    if (outcome) outcome->committed_at = std::chrono::steady_clock::now();
    const StagedTable& staged = checkpoint.tables.at(key);
    if (!outcome && outcome.error().code() == ErrorCode::kNotFound &&
        (recovering || (staged.manifests.empty() && !staged.truncated))) {
      // An empty commit (it only records progress) to a table that no
      // longer exists has nothing to record. In recovery, a table is gone
      // only after it took this checkpoint: floe run renames or drops a
      // table once every checkpoint before the change is committed (and,
      // after a restart, once this recovery is done); or the table was
      // dropped from the lake.
      if (recovering && !staged.manifests.empty()) {
        spdlog::warn(
            "committer: table {} no longer exists; checkpoint {} is not committed to it "
            "again (it was renamed or dropped after taking it, or dropped from the lake)",
            key, id);
      }
      result.done.push_back(id);
      result.vanished = true;
      handles.at(key).table.reset();
      return true;
    }
    if (!outcome) {
      Error error = std::move(outcome).error();
      error.AddContext(fmt::format("committing checkpoint {} to table {}", id, key));
      result.outcomes.push_back(CommitOutcome{key, id, std::unexpected(std::move(error))});
      handles.at(key).table.reset();  // reload before the next attempt
      return false;
    }
    result.done.push_back(id);
    if (skipped) {
      spdlog::info("committer: table {} already has checkpoint {} of pipeline '{}'", key, id,
                   options.pipeline_id);
      return true;
    }
    // The table has the files now; staging manifests it did not take as
    // they are are not needed.
    if (!adopted) {
      for (const auto& m : staged.manifests) (void)catalog->file_io().Delete(m.path);
    }
    result.outcomes.push_back(std::move(*outcome));
    return true;
  }

  /// Commits the checkpoints `ids` to table `key`, one catalog commit each.
  TableCommits CommitTable(const std::string& key, const std::vector<CheckpointId>& ids,
                           bool recovering) {
    TableCommits result;
    for (CheckpointId id : ids) {
      const PendingCheckpoint& checkpoint = state.pending.at(id);
      bool skipped = false, adopted = false;
      auto outcome = CommitOne(key, checkpoint, &skipped, &adopted);
      if (!Record(key, checkpoint, std::move(outcome), skipped, adopted, recovering, result)) {
        break;  // later checkpoints of this table wait behind this one
      }
    }
    return result;
  }

  /// One table's part of a checkpoint committed in one transaction.
  struct TransactionPart {
    std::string key;
    Prepared prepared;
    std::string uuid;  ///< of the table the commit was prepared for
    std::unique_ptr<iceberg::Transaction> txn;
    iceberg::SnapshotId snapshot_id = -1;
    std::optional<Result<CommitOutcome>> outcome;  ///< set once known
  };

  /// The successful outcome of `part` at `checkpoint`, with `snapshot_id`.
  static CommitOutcome Committed(const TransactionPart& part, const PendingCheckpoint& checkpoint,
                                 iceberg::SnapshotId snapshot_id) {
    const StagedTable& staged = checkpoint.tables.at(part.key);
    CommitOutcome outcome{part.key, checkpoint.id, Ok()};
    outcome.snapshot_id = snapshot_id;
    outcome.added_files = staged.data_files + staged.delete_files;
    outcome.added_records = staged.records;
    return outcome;
  }

  /// Commits `parts` (prepared for `checkpoint`) in one catalog transaction
  /// (iceberg::CommitTransactions) and sets each part's outcome. A table
  /// replaced by another of the same name (as CommitOne) is prepared again
  /// once; an unknown outcome is resolved by reloading every table of the
  /// transaction: those that have the checkpoint are done, the others are
  /// committed again in one transaction, once.
  void CommitParts(const PendingCheckpoint& checkpoint, std::vector<TransactionPart>& parts) {
    bool replaced = false;
    int unknown = 0;
    while (true) {
      std::vector<TransactionPart*> open;
      std::vector<iceberg::Transaction*> txns;
      for (TransactionPart& part : parts) {
        if (part.outcome) continue;
        iceberg::Table& table = *handles.at(part.key).table;
        part.txn = BuildTransaction(table, checkpoint, checkpoint.tables.at(part.key),
                                    part.prepared.files, part.prepared.live, &part.snapshot_id);
        open.push_back(&part);
        txns.push_back(part.txn.get());
      }
      if (open.empty()) return;
      Status s = iceberg::CommitTransactions(*catalog, txns);
      if (s) {
        for (TransactionPart* part : open) {
          part->outcome = Committed(*part, checkpoint, part->snapshot_id);
        }
        return;
      }
      const Error error = std::move(s).error();
      const ErrorCode code = error.code();
      auto fail_open = [&](const Error& why) {
        for (TransactionPart* part : open) part->outcome = std::unexpected(why);
      };
      if ((code == ErrorCode::kCommitConflict || code == ErrorCode::kNotFound) && !replaced) {
        replaced = true;
        bool again = false;
        for (TransactionPart* part : open) {
          iceberg::Table& table = *handles.at(part->key).table;
          if (!table.Refresh() || table.metadata().table_uuid == part->uuid) continue;
          spdlog::info(
              "committer: table {} was replaced by a new table of the same name; "
              "committing checkpoint {} to the new one",
              part->key, checkpoint.id);
          again = true;
          auto prepared = Prepare(part->key, checkpoint);
          if (!prepared) {
            part->outcome = std::unexpected(prepared.error());
          } else if (prepared->skipped) {
            part->outcome = CommitOutcome{part->key, checkpoint.id, Ok()};
          } else {
            part->prepared = std::move(*prepared);
            part->uuid = table.metadata().table_uuid;
          }
        }
        if (again) continue;
      }
      if (code != ErrorCode::kCommitStateUnknown) return fail_open(error);
      // The transaction may or may not have happened (or, on a server that
      // applies its tables one by one, happened in part): the tables tell.
      spdlog::warn(
          "committer: checkpoint {}: commit outcome unknown for the transaction over {} tables "
          "({}); reloading them",
          checkpoint.id, open.size(), error.message());
      std::vector<std::optional<iceberg::SnapshotId>> found(open.size());
      for (size_t i = 0; i < open.size(); ++i) {
        auto resolved = ResolveUnknown(*handles.at(open[i]->key).table, checkpoint, error);
        if (!resolved) return fail_open(resolved.error());
        found[i] = *resolved;
      }
      for (size_t i = 0; i < open.size(); ++i) {
        if (found[i]) open[i]->outcome = Committed(*open[i], checkpoint, *found[i]);
      }
      if (++unknown >= 2) {
        for (TransactionPart* part : open) {
          if (!part->outcome) {
            part->outcome = CommitStateUnknown(
                "the transaction was answered 'state unknown' twice and the checkpoint is not "
                "in the table");
          }
        }
        return;
      }
    }
  }

  /// Commits `checkpoint` to every table of it that lacks it, in ONE catalog
  /// transaction, recording each table's outcome in `results` as CommitTable
  /// does (docs/sink-commit.md, "One transaction per checkpoint"). Returns
  /// whether every table has it now; otherwise later checkpoints wait.
  bool CommitCheckpointInOneTransaction(const PendingCheckpoint& checkpoint, bool recovering,
                                        std::map<std::string, TableCommits>& results) {
    std::vector<TransactionPart> parts;
    bool all_done = true;
    for (const auto& [key, staged] : checkpoint.tables) {
      handles.try_emplace(key);
      auto prepared = Prepare(key, checkpoint);
      if (prepared && !prepared->skipped) {
        TransactionPart& part = parts.emplace_back();
        part.key = key;
        part.uuid = handles.at(key).table->metadata().table_uuid;
        part.prepared = std::move(*prepared);
        continue;
      }
      Result<CommitOutcome> outcome = CommitOutcome{key, checkpoint.id, Ok()};
      if (!prepared) outcome = std::unexpected(prepared.error());
      all_done &= Record(key, checkpoint, std::move(outcome), prepared.has_value(),
                         /*adopted=*/false, recovering, results[key]);
    }
    // Nothing is committed while a table of the checkpoint cannot be: the
    // job stops, and a restart commits the whole checkpoint.
    if (!all_done || parts.empty()) return all_done;
    CommitParts(checkpoint, parts);
    for (TransactionPart& part : parts) {
      const bool adopted = part.prepared.live != nullptr;
      all_done &= Record(part.key, checkpoint, std::move(*part.outcome), /*skipped=*/false, adopted,
                         recovering, results[part.key]);
    }
    return all_done;
  }

  /// Commits every pending checkpoint <= `up_to`: in one transaction per
  /// checkpoint (`one_transaction`), else tables in parallel.
  std::vector<CommitOutcome> CommitPending(CheckpointId up_to, bool recovering = false) {
    std::map<std::string, TableCommits> results;
    if (one_transaction) {
      for (const auto& [id, checkpoint] : state.pending) {
        if (id > up_to) break;
        if (!CommitCheckpointInOneTransaction(checkpoint, recovering, results)) break;
      }
    } else {
      std::map<std::string, std::vector<CheckpointId>> work;
      for (const auto& [id, checkpoint] : state.pending) {
        if (id > up_to) break;
        for (const auto& [key, staged] : checkpoint.tables) work[key].push_back(id);
      }
      std::vector<const std::string*> keys;
      for (const auto& [key, ids] : work) {
        handles.try_emplace(key);  // before the threads start: the maps are not changed by them
        results.try_emplace(key);
        keys.push_back(&key);
      }
      ParallelFor(keys.size(), options.commit_threads, [&](size_t i) {
        results.at(*keys[i]) = CommitTable(*keys[i], work.at(*keys[i]), recovering);
      });
    }
    std::vector<CommitOutcome> outcomes;
    for (auto& [key, result] : results) {
      for (CheckpointId id : result.done) {
        if (auto live_it = live_staged.find(id); live_it != live_staged.end()) {
          live_it->second.erase(key);
          if (live_it->second.empty()) live_staged.erase(live_it);
        }
        auto it = state.pending.find(id);
        it->second.tables.erase(key);
        if (it->second.tables.empty()) state.pending.erase(it);
      }
      for (auto& o : result.outcomes) outcomes.push_back(std::move(o));
      if (result.vanished) {
        spdlog::info("committer: table {} no longer exists; it gets no more empty commits", key);
        state.known_tables.erase(key);
      }
    }
    return outcomes;
  }
};

CommitterOperator::CommitterOperator(SinkOptions options,
                                     std::shared_ptr<CheckpointPositions> positions)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->positions = std::move(positions);
}

CommitterOperator::~CommitterOperator() = default;

Status CommitterOperator::Open(const engine::OperatorContext& context,
                               const engine::RestoredState& restored) {
  Impl& m = *impl_;
  if (m.options.pipeline_id.empty()) return InvalidArgument("committer: the pipeline id is empty");
  if (!m.options.catalog) return InvalidArgument("committer: no catalog factory");
  FLOE_ASSIGN_OR_RETURN(m.catalog, m.options.catalog());
  if (m.catalog == nullptr)
    return InvalidArgument("committer: the catalog factory gave no catalog");
  m.subtask = context.subtask;
  m.parallelism = std::max(1, context.parallelism);
  const std::string& catalog_name = m.catalog->name();
  if (!m.catalog->SupportsMultiTableCommit()) {
    spdlog::info(
        "committer: per-table commits: catalog '{}' cannot commit several tables in one "
        "transaction",
        catalog_name);
  } else if (m.parallelism > 1) {
    spdlog::info(
        "committer: per-table commits: catalog '{}' can commit several tables in one "
        "transaction, but {} committer subtasks share the tables (one transaction per "
        "checkpoint needs a commit parallelism of 1)",
        catalog_name, m.parallelism);
  } else {
    m.one_transaction = true;
    spdlog::info(
        "committer: multi-table commits: every checkpoint's tables are committed in one "
        "transaction of catalog '{}' (its setting multi-table-commit: false turns this off)",
        catalog_name);
  }

  std::vector<std::string> states = restored.all;
  if (states.empty() && restored.own) states.push_back(*restored.own);
  const size_t n = static_cast<size_t>(m.parallelism);
  const size_t me = static_cast<size_t>(m.subtask);
  FLOE_ASSIGN_OR_RETURN(m.state, MergeCommitStates(states, [&](const std::string& key) {
                          return CommitterSubtaskOf(key, n) == me;
                        }));
  if (!m.state.pending.empty()) {
    // Recovery: the restored checkpoint is complete, so everything it holds
    // is committed now, before new data (tables that have it skip it).
    std::vector<CommitOutcome> outcomes =
        m.CommitPending(m.state.pending.rbegin()->first, /*recovering=*/true);
    for (auto& o : outcomes) {
      if (!o.status) {
        spdlog::error("committer: recovering table {} checkpoint {} failed: {}", o.table,
                      o.checkpoint_id, o.status.error().message());
        return std::unexpected(o.status.error());
      }
      m.deferred.push_back(std::move(o));
    }
  }
  // Everything up to the restored checkpoint is in the tables now (a source
  // that waits for committed rows waits for this too).
  if (m.positions) m.positions->MarkCommitted(m.subtask, m.parallelism, restored.checkpoint_id);
  return Ok();
}

Status CommitterOperator::Process(WriteResult result, engine::Collector<CommitOutcome>& out) {
  Impl& m = *impl_;
  FLOE_RETURN_IF_ERROR(m.EmitDeferred(out));
  if (!result.target || !result.target->metadata) {
    return InvalidArgument("committer: a write result without a target table");
  }
  const TableTarget& target = *result.target;
  if (m.options.overwrite && target.upsert) {
    return InvalidArgument("table {}: upsert together with overwrite mode is refused", target.key);
  }
  if (m.options.overwrite && !result.delete_files.empty()) {
    return InvalidArgument("table {}: overwrite mode cannot commit delete files ({} received)",
                           target.key, result.delete_files.size());
  }
  TableBuffer& buffer = m.buffers[target.key];
  buffer.id = target.id;
  buffer.metadata = target.metadata;
  if (result.truncated) buffer.truncated = true;
  SpecFiles& files = buffer.specs[result.spec_id];
  for (auto& f : result.data_files) files.data.push_back(std::move(f));
  for (auto& f : result.delete_files) files.deletes.push_back(std::move(f));
  for (auto& r : result.referenced_data_files) buffer.referenced.push_back(std::move(r));
  return Ok();
}

Result<std::string> CommitterOperator::SnapshotState(engine::CheckpointId id,
                                                     engine::Collector<CommitOutcome>& out) {
  Impl& m = *impl_;
  FLOE_RETURN_IF_ERROR(m.EmitDeferred(out));
  PendingCheckpoint checkpoint;
  checkpoint.id = id;
  if (m.positions) checkpoint.source_position = m.positions->Get(id);

  std::vector<const std::pair<const std::string, TableBuffer>*> work;
  for (const auto& entry : m.buffers) work.push_back(&entry);
  std::vector<std::optional<Result<StagedTable>>> staged(work.size());
  std::vector<LiveStaged> live(work.size());
  ParallelFor(work.size(), m.options.commit_threads,
              [&](size_t i) { staged[i] = m.Stage(id, work[i]->second, &live[i]); });
  for (size_t i = 0; i < work.size(); ++i) {
    if (!*staged[i]) {
      for (auto& other : staged) {  // the checkpoint fails: its manifests are orphans
        if (*other) {
          for (const auto& man : (*other)->manifests) (void)m.catalog->file_io().Delete(man.path);
        }
      }
      return std::unexpected(staged[i]->error());
    }
  }
  for (size_t i = 0; i < work.size(); ++i) {
    const std::string& key = work[i]->first;
    checkpoint.tables.emplace(key, std::move(**staged[i]));
    if (!live[i].manifests.empty()) m.live_staged[id].emplace(key, std::move(live[i]));
    KnownTable& known = m.state.known_tables[key];
    known.id = work[i]->second.id;
    known.empty_checkpoints = 0;
  }
  for (auto& [key, known] : m.state.known_tables) {
    if (m.buffers.contains(key)) continue;
    ++known.empty_checkpoints;
    if (m.options.max_continuous_empty_commits > 0 &&
        known.empty_checkpoints >= m.options.max_continuous_empty_commits) {
      StagedTable empty;
      empty.id = known.id;
      empty.overwrite = m.options.overwrite;
      checkpoint.tables.emplace(key, std::move(empty));
      known.empty_checkpoints = 0;
    }
  }
  m.buffers.clear();
  if (!checkpoint.tables.empty()) m.state.pending[id] = std::move(checkpoint);
  m.live.insert(id);
  return SerializeCommitState(m.state);
}

Status CommitterOperator::NotifyCheckpointComplete(engine::CheckpointId id,
                                                   engine::Collector<CommitOutcome>& out) {
  Impl& m = *impl_;
  FLOE_RETURN_IF_ERROR(m.EmitDeferred(out));
  for (auto& outcome : m.CommitPending(id)) {
    if (!outcome.status) {
      spdlog::error("committer: table {} checkpoint {}: {}", outcome.table, outcome.checkpoint_id,
                    outcome.status.error().message());
    }
    FLOE_RETURN_IF_ERROR(out.Emit(std::move(outcome)));
  }
  // Everything up to `id` is in the tables when nothing at or below it is
  // still pending (a failed commit stays pending, and the job stops).
  if (m.positions && (m.state.pending.empty() || m.state.pending.begin()->first > id)) {
    m.positions->MarkCommitted(m.subtask, m.parallelism, id);
  }
  return Ok();
}

Status CommitterOperator::Finish(engine::Collector<CommitOutcome>& out) {
  return impl_->EmitDeferred(out);
}

}  // namespace floe::sink
