#include "floe/iceberg/update/snapshot_producer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "floe/common/random.h"
#include "floe/iceberg/manifest/manifest_merge.h"
#include "floe/iceberg/puffin/deletion_vector.h"
#include "floe/iceberg/table.h"
#include "floe/iceberg/update/table_metadata_builder.h"

namespace floe::iceberg {

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string TrimSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

/// A manifest carried from an older snapshot that holds only deleted entries
/// tracks nothing live: it is dropped (its deletes belong to that snapshot).
bool OnlyOldDeletes(const ManifestFile& m, SnapshotId snapshot_id) {
  return m.added_snapshot_id != snapshot_id && m.deleted_files_count > 0 &&
         m.added_files_count == 0 && m.existing_files_count == 0;
}

}  // namespace

CommitRetryOptions CommitRetryOptions::FromProperties(const TableMetadata& m) {
  CommitRetryOptions o;
  o.num_retries = static_cast<int>(std::max<int64_t>(
      0, m.PropertyAsInt(table_properties::kCommitRetryNumRetries, o.num_retries)));
  o.min_wait_ms =
      std::max<int64_t>(0, m.PropertyAsInt(table_properties::kCommitRetryMinWaitMs, o.min_wait_ms));
  o.max_wait_ms = std::max<int64_t>(
      o.min_wait_ms, m.PropertyAsInt(table_properties::kCommitRetryMaxWaitMs, o.max_wait_ms));
  o.total_timeout_ms = std::max<int64_t>(
      0, m.PropertyAsInt(table_properties::kCommitRetryTotalTimeoutMs, o.total_timeout_ms));
  return o;
}

Result<std::vector<LiveFile>> ReadLiveFiles(io::FileIO& io, const TableMetadata& metadata,
                                            const Snapshot* snapshot) {
  std::vector<LiveFile> out;
  if (snapshot == nullptr) return out;
  FLOE_ASSIGN_OR_RETURN(auto manifests, SnapshotManifests(io, *snapshot, metadata.format_version));
  for (const auto& m : manifests) {
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, metadata));
    for (auto& e : entries) {
      if (e.status == ManifestEntryStatus::kDeleted) continue;
      out.push_back(LiveFile{std::move(e), m.partition_spec_id});
    }
  }
  return out;
}

namespace {

/// Entries with `status` that the snapshots after `from` (up to the current
/// one) committed themselves, in manifests of `content`.
Result<std::vector<LiveFile>> EntriesCommittedSince(io::FileIO& io, const TableMetadata& metadata,
                                                    std::optional<SnapshotId> from,
                                                    ManifestContent content,
                                                    ManifestEntryStatus status) {
  std::vector<const Snapshot*> newer;
  bool found = !from.has_value();
  for (const Snapshot* s = metadata.CurrentSnapshot(); s != nullptr;) {
    if (from && s->snapshot_id == *from) {
      found = true;
      break;
    }
    newer.push_back(s);
    if (!s->parent_snapshot_id) break;
    s = metadata.SnapshotById(*s->parent_snapshot_id);
  }
  if (!found) {
    return CommitConflict(
        "cannot validate concurrent changes: snapshot {} is no longer an ancestor of the current "
        "snapshot",
        *from);
  }
  std::vector<LiveFile> out;
  for (const Snapshot* s : newer) {
    // Appends remove nothing.
    if (status == ManifestEntryStatus::kDeleted && s->operation == operation::kAppend) continue;
    FLOE_ASSIGN_OR_RETURN(auto manifests, SnapshotManifests(io, *s, metadata.format_version));
    for (const auto& m : manifests) {
      if (m.content != content || m.added_snapshot_id != s->snapshot_id) continue;
      if (status == ManifestEntryStatus::kDeleted && !m.has_deleted_files()) continue;
      if (status == ManifestEntryStatus::kAdded && !m.has_added_files()) continue;
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, metadata));
      for (auto& e : entries) {
        if (e.status == status && e.snapshot_id == s->snapshot_id) {
          out.push_back(LiveFile{std::move(e), m.partition_spec_id});
        }
      }
    }
  }
  return out;
}

}  // namespace

Result<std::set<std::string>> FilesRemovedSince(io::FileIO& io, const TableMetadata& metadata,
                                                std::optional<SnapshotId> from,
                                                ManifestContent content) {
  FLOE_ASSIGN_OR_RETURN(auto entries, EntriesCommittedSince(io, metadata, from, content,
                                                            ManifestEntryStatus::kDeleted));
  std::set<std::string> removed;
  for (const auto& f : entries) removed.insert(f.entry.data_file.file_path);
  return removed;
}

Result<std::vector<LiveFile>> FilesAddedSince(io::FileIO& io, const TableMetadata& metadata,
                                              std::optional<SnapshotId> from,
                                              ManifestContent content) {
  return EntriesCommittedSince(io, metadata, from, content, ManifestEntryStatus::kAdded);
}

bool HoldsAddedSnapshots(const TableMetadata& metadata,
                         std::span<TableOperation* const> operations) {
  bool any = false;
  for (const TableOperation* op : operations) {
    const std::optional<SnapshotId> id = op->added_snapshot_id();
    if (!id) continue;
    if (metadata.SnapshotById(*id) == nullptr) return false;
    any = true;
  }
  return any;
}

void CleanupOperations(io::FileIO& io, std::span<TableOperation* const> operations,
                       bool committed) {
  for (TableOperation* op : operations) op->Cleanup(io, committed);
}

std::string OperationsContext(std::string_view what, const Table& table,
                              std::span<TableOperation* const> operations) {
  std::string names;
  for (TableOperation* op : operations) {
    if (!names.empty()) names += " + ";
    names += op->name();
  }
  return fmt::format("{} {} on table {}", what, names, table.name());
}

Result<std::optional<TableMetadata>> ApplyOperations(Table& table,
                                                     std::span<TableOperation* const> operations,
                                                     int attempt) {
  const LoadedTable& base = table.loaded();
  TableMetadataBuilder::Options options;
  options.now_ms = std::max(NowMs(), base.metadata.last_updated_ms);
  auto builder = TableMetadataBuilder::ForUpdate(base.metadata, base.metadata_location, options);
  OperationContext ctx{&table.io(), attempt, *options.now_ms};
  auto failed = [&](Error error) {
    CleanupOperations(table.io(), operations, /*committed=*/false);
    return std::unexpected(
        std::move(error).WithContext(OperationsContext("applying", table, operations)));
  };
  for (TableOperation* op : operations) {
    auto updates = op->Apply(builder.current(), ctx);
    if (!updates) return failed(std::move(updates).error());
    if (auto s = builder.ApplyAll(*updates); !s) return failed(std::move(s).error());
  }
  const bool changed = !builder.changes().empty();
  auto next = std::move(builder).Build();
  if (!next) return failed(std::move(next).error());
  if (!changed) return std::optional<TableMetadata>();
  return std::optional<TableMetadata>(std::move(*next));
}

bool WaitBeforeRetry(const CommitRetryOptions& retry, int attempt,
                     std::chrono::steady_clock::time_point start) {
  const int64_t elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  if (attempt >= retry.num_retries || elapsed >= retry.total_timeout_ms) return false;
  int64_t wait = retry.min_wait_ms;
  for (int i = 0; i < attempt && wait < retry.max_wait_ms; ++i) wait *= 2;
  wait = std::min(wait, retry.max_wait_ms);
  // Jitter, so that racing writers do not retry in lockstep.
  if (wait > 0) wait += static_cast<int64_t>(RandomU64() % static_cast<uint64_t>(wait / 2 + 1));
  wait = std::min(wait, std::max<int64_t>(0, retry.total_timeout_ms - elapsed));
  std::this_thread::sleep_for(std::chrono::milliseconds(wait));
  return true;
}

Status CommitOperations(Table& table, std::span<TableOperation* const> operations) {
  const CommitRetryOptions retry = CommitRetryOptions::FromProperties(table.metadata());
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    // The table's loaded metadata stays as it is until the commit succeeds.
    FLOE_ASSIGN_OR_RETURN(std::optional<TableMetadata> next,
                          ApplyOperations(table, operations, attempt));
    if (!next) {
      CleanupOperations(table.io(), operations, /*committed=*/true);
      return Ok();
    }
    auto committed = table.catalog().CommitTable(table.loaded(), std::move(*next));
    if (committed) {
      table.SetLoaded(std::move(*committed));
      CleanupOperations(table.io(), operations, /*committed=*/true);
      return Ok();
    }
    Error error = std::move(committed).error();
    if (error.code() == ErrorCode::kCommitConflict && WaitBeforeRetry(retry, attempt, start)) {
      if (auto s = table.Refresh(); !s) {
        CleanupOperations(table.io(), operations, /*committed=*/false);
        return std::unexpected(std::move(s).error().WithContext(
            OperationsContext("reloading for", table, operations)));
      }
      if (HoldsAddedSnapshots(table.metadata(), operations)) {
        spdlog::info(
            "{}: the conflict was with this commit itself, delivered twice; it is in the table",
            OperationsContext("committing", table, operations));
        CleanupOperations(table.io(), operations, /*committed=*/true);
        return Ok();
      }
      continue;
    }
    if (error.code() != ErrorCode::kCommitStateUnknown) {
      CleanupOperations(table.io(), operations, /*committed=*/false);
    }
    if (error.code() == ErrorCode::kCommitConflict) {
      error.AddContext(fmt::format("gave up after {} attempts", attempt + 1));
    }
    return std::unexpected(
        std::move(error).WithContext(OperationsContext("committing", table, operations)));
  }
}

// ---------------------------------------------------------------------------- SnapshotProducer

SnapshotProducer::SnapshotProducer(Table* table)
    : table_(table),
      validate_from_(table->metadata().current_snapshot_id),
      snapshot_id_(GenerateSnapshotId()) {}

void SnapshotProducer::SetSummaryProperty(std::string key, std::string value) {
  summary_properties_[std::move(key)] = std::move(value);
}

int32_t SnapshotProducer::SpecIdOrDefault(std::optional<int32_t> spec_id) const {
  return spec_id.value_or(table_->metadata().default_spec_id);
}

void SnapshotProducer::AddDataFile(DataFile file, int32_t spec_id,
                                   std::optional<int64_t> data_sequence_number) {
  added_data_.push_back(Added{std::move(file), spec_id, data_sequence_number});
  added_written_ = false;
}

void SnapshotProducer::AddDeleteFile(DataFile file, int32_t spec_id) {
  added_deletes_.push_back(Added{std::move(file), spec_id, std::nullopt});
  added_written_ = false;
}

void SnapshotProducer::AddWrittenManifest(ManifestFile manifest, std::vector<DataFile> files) {
  // Read back before the commit (a manifest merge), its entries inherit this
  // snapshot's id like those of the manifests written here.
  manifest.added_snapshot_id = snapshot_id_;
  manifest.sequence_number = kUnassignedSequenceNumber;
  manifest.min_sequence_number = kUnassignedSequenceNumber;
  (manifest.content == ManifestContent::kData ? adopts_data_ : adopts_deletes_) = true;
  adopted_.emplace_back(std::move(manifest), std::move(files));
}

Status SnapshotProducer::CheckAllRemoved(const std::set<std::string>& wanted,
                                         const std::set<std::string>& removed_paths,
                                         std::string_view kind, std::string_view verb) {
  for (const auto& p : wanted) {
    if (!removed_paths.contains(p)) {
      return CommitConflict("{} {} to {} is no longer in the table", kind, p, verb);
    }
  }
  return Ok();
}

Status CommitOperation(Table& table, TableOperation& operation) {
  TableOperation* ops[] = {&operation};
  return CommitOperations(table, ops);
}

Status SnapshotProducer::Commit() { return CommitOperation(*table_, *this); }

Status SnapshotProducer::CheckV3DeleteFile(const DataFile& file) const {
  if (file.content != DataFileContent::kPositionDeletes || IsDeletionVector(file)) return Ok();
  return InvalidArgument(
      "table {}: position delete file {} ({}) cannot be added to a format v3 table: v3 position "
      "deletes must be deletion vectors (Puffin deletion-vector-v1 blobs)",
      table_->name(), file.file_path, file.file_format);
}

Result<std::string> SnapshotProducer::NewManifestPath(const TableMetadata& base) {
  std::string path = fmt::format("{}/metadata/{}-m{}.avro", TrimSlash(base.location),
                                 GenerateUuid(), manifest_counter_++);
  written_files_.push_back(path);
  return path;
}

Result<std::vector<ManifestFile>> SnapshotProducer::WriteAddedManifests(
    const TableMetadata& base, std::vector<Added>& files, ManifestContent content,
    std::vector<ManifestFile>* cache) {
  cache->clear();
  const types::Schema* schema = base.CurrentSchema();
  if (schema == nullptr) return InvalidArgument("table has no current schema");
  std::map<int32_t, std::vector<const Added*>> by_spec;
  for (const Added& a : files) by_spec[a.spec_id].push_back(&a);
  for (const auto& [spec_id, group] : by_spec) {
    const PartitionSpec* spec = base.SpecById(spec_id);
    if (spec == nullptr) {
      return InvalidArgument("file {} was written for partition spec {}, which the table lacks",
                             group.front()->file.file_path, spec_id);
    }
    FLOE_ASSIGN_OR_RETURN(std::string path, NewManifestPath(base));
    FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Open(table_->io(), path, base.format_version,
                                                            *schema, *spec, content, snapshot_id_));
    for (const Added* a : group) {
      ManifestEntry e;
      e.status = ManifestEntryStatus::kAdded;
      e.snapshot_id = snapshot_id_;
      e.sequence_number = a->data_sequence_number;
      e.data_file = a->file;
      FLOE_RETURN_IF_ERROR_CTX(writer->Add(e), "manifest {}", path);
    }
    FLOE_ASSIGN_OR_RETURN(ManifestFile mf, writer->Close());
    cache->push_back(std::move(mf));
  }
  return *cache;
}

Result<std::vector<ManifestFile>> SnapshotProducer::CarryOver(
    const TableMetadata& base, const std::vector<ManifestFile>& parent_manifests,
    SnapshotSummaryBuilder* summary, std::vector<std::string>* written) {
  io::FileIO& io = table_->io();
  std::vector<ManifestFile> out;
  std::set<std::string> removed_paths;
  for (const ManifestFile& m : parent_manifests) {
    bool may_remove =
        m.content == ManifestContent::kData ? removes_data_files() : removes_delete_files();
    if (may_remove) {
      FLOE_ASSIGN_OR_RETURN(may_remove, ManifestMayHoldRemovals(m, base));
    }
    if (!may_remove) {
      if (!OnlyOldDeletes(m, snapshot_id_)) out.push_back(m);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, base));
    bool any = false;
    std::vector<ManifestEntry> kept;
    kept.reserve(entries.size());
    for (auto& e : entries) {
      if (e.status == ManifestEntryStatus::kDeleted) continue;
      FLOE_ASSIGN_OR_RETURN(bool removes, Removes(e, m.partition_spec_id, base));
      if (removes) {
        any = true;
        removed_paths.insert(e.data_file.file_path);
        summary->RemovedFile(e.data_file, m.partition_spec_id);
        e.status = ManifestEntryStatus::kDeleted;
        e.snapshot_id = snapshot_id_;
      }
      kept.push_back(std::move(e));
    }
    if (!any) {
      if (!OnlyOldDeletes(m, snapshot_id_)) out.push_back(m);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(std::string path, NewManifestPath(base));
    written->push_back(path);
    FLOE_ASSIGN_OR_RETURN(
        ManifestFile rewritten,
        WriteRewrittenManifest(io, base, path, m.partition_spec_id, m.content, snapshot_id_, kept));
    out.push_back(std::move(rewritten));
  }
  FLOE_RETURN_IF_ERROR(CheckRemoved(removed_paths));
  return out;
}

Result<std::vector<TableUpdate>> SnapshotProducer::Apply(const TableMetadata& base,
                                                         OperationContext& ctx) {
  last_attempt_files_.clear();
  FLOE_RETURN_IF_ERROR(Validate(base, ctx));
  io::FileIO& io = table_->io();
  const Snapshot* parent = base.CurrentSnapshot();
  const int64_t sequence_number = base.format_version >= 2 ? base.last_sequence_number + 1 : 0;

  SnapshotSummaryBuilder summary;
  for (const auto& [k, v] : summary_properties_) summary.Set(k, v);
  for (const Added& a : added_data_) summary.AddedFile(a.file, a.spec_id);
  for (const Added& a : added_deletes_) summary.AddedFile(a.file, a.spec_id);
  if (!adopted_.empty() && base.format_version < 2) {
    return InvalidArgument(
        "manifests written beforehand cannot be added to a format v{} table "
        "(their entries inherit snapshot ids: v2 and later)",
        base.format_version);
  }
  for (const auto& [manifest, files] : adopted_) {
    for (const DataFile& f : files) summary.AddedFile(f, manifest.partition_spec_id);
  }
  if (base.format_version >= 3) {
    for (const Added& a : added_deletes_) FLOE_RETURN_IF_ERROR(CheckV3DeleteFile(a.file));
    for (const auto& [manifest, files] : adopted_) {
      for (const DataFile& f : files) FLOE_RETURN_IF_ERROR(CheckV3DeleteFile(f));
    }
  }

  std::vector<ManifestFile> manifests;
  if (!added_data_.empty() || !added_deletes_.empty()) {
    if (!added_written_) {
      FLOE_RETURN_IF_ERROR(
          WriteAddedManifests(base, added_data_, ManifestContent::kData, &added_data_manifests_));
      FLOE_RETURN_IF_ERROR(WriteAddedManifests(base, added_deletes_, ManifestContent::kDeletes,
                                               &added_delete_manifests_));
      added_written_ = true;
    }
    manifests = added_data_manifests_;
    manifests.insert(manifests.end(), added_delete_manifests_.begin(),
                     added_delete_manifests_.end());
  }
  for (const auto& adopted : adopted_) manifests.push_back(adopted.first);
  if (parent != nullptr) {
    std::vector<ManifestFile> parent_manifests;
    if (auto known = table_->KnownManifests(parent->manifest_list)) {
      parent_manifests = *known;  // this handle wrote the parent's list
    } else {
      FLOE_ASSIGN_OR_RETURN(parent_manifests, SnapshotManifests(io, *parent, base.format_version));
    }
    std::vector<std::string> written;
    FLOE_ASSIGN_OR_RETURN(auto carried, CarryOver(base, parent_manifests, &summary, &written));
    manifests.insert(manifests.end(), carried.begin(), carried.end());
  } else {
    FLOE_RETURN_IF_ERROR(CheckRemoved({}));
  }

  std::vector<std::string> merged_paths;
  FLOE_ASSIGN_OR_RETURN(manifests, MergeManifests(
                                       io, base, snapshot_id_, std::move(manifests),
                                       ManifestMergeOptions::FromProperties(base),
                                       [&] { return *NewManifestPath(base); }, &merged_paths));

  const std::string list_path =
      fmt::format("{}/metadata/snap-{}-{}-{}.avro", TrimSlash(base.location), snapshot_id_,
                  ctx.attempt + 1, GenerateUuid());
  written_files_.push_back(list_path);

  Snapshot snapshot;
  snapshot.snapshot_id = snapshot_id_;
  if (parent != nullptr) snapshot.parent_snapshot_id = parent->snapshot_id;
  snapshot.sequence_number = sequence_number;
  snapshot.timestamp_ms =
      std::max(ctx.now_ms, parent != nullptr ? parent->timestamp_ms : int64_t{0});
  snapshot.manifest_list = list_path;
  snapshot.operation = std::string(operation());
  snapshot.summary = summary.Build(parent);
  snapshot.schema_id = base.current_schema_id;
  std::optional<int64_t> first_row_id;
  if (base.format_version >= 3) {
    first_row_id = base.next_row_id.value_or(0);
    int64_t added_rows = 0;
    for (const auto& m : manifests) {
      if (m.content == ManifestContent::kData && !m.first_row_id) {
        added_rows += m.added_rows_count + m.existing_rows_count;
      }
    }
    snapshot.first_row_id = first_row_id;
    snapshot.added_rows = added_rows;
  }
  FLOE_RETURN_IF_ERROR(WriteManifestList(io, list_path, base.format_version, snapshot_id_,
                                         snapshot.parent_snapshot_id, sequence_number, manifests,
                                         first_row_id, &list_as_read_));
  list_path_ = list_path;
  last_attempt_files_.clear();
  last_attempt_files_.insert(list_path);
  for (const auto& m : manifests) last_attempt_files_.insert(m.manifest_path);

  SnapshotRef ref = SnapshotRef::Branch(snapshot_id_);
  if (auto it = base.refs.find(std::string(kMainBranch)); it != base.refs.end()) {
    ref = it->second;
    ref.snapshot_id = snapshot_id_;
  }
  std::vector<TableUpdate> updates;
  updates.push_back(update::AddSnapshot{std::move(snapshot)});
  updates.push_back(update::SetSnapshotRef{std::string(kMainBranch), ref});
  return updates;
}

void SnapshotProducer::Cleanup(io::FileIO& io, bool committed) {
  if (committed && !list_path_.empty() && !list_as_read_.empty()) {
    table_->RememberManifests(std::move(list_path_), std::move(list_as_read_));
  }
  list_path_.clear();
  list_as_read_.clear();
  for (const auto& path : written_files_) {
    if (committed && last_attempt_files_.contains(path)) continue;
    (void)io.Delete(path);
  }
  written_files_.clear();
  if (!committed) {
    added_written_ = false;
    added_data_manifests_.clear();
    added_delete_manifests_.clear();
  }
}

}  // namespace floe::iceberg
