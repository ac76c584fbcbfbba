#include "floe/iceberg/data/table_scan.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <set>
#include <thread>

#include "floe/iceberg/ascii_case.h"
#include "floe/iceberg/expression/evaluator.h"
#include "floe/iceberg/expression/file_filter.h"

namespace floe::iceberg {

namespace {

std::string ColumnList(const types::Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields()) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

}  // namespace

Result<const Snapshot*> SelectSnapshot(const TableMetadata& metadata,
                                       const TableScanOptions& options) {
  int selectors = options.snapshot_id.has_value() + options.as_of_timestamp_ms.has_value() +
                  options.ref.has_value();
  if (selectors > 1) {
    return InvalidArgument("choose at most one of a snapshot id, a timestamp and a ref");
  }
  if (options.snapshot_id) {
    const Snapshot* s = metadata.SnapshotById(*options.snapshot_id);
    if (s == nullptr) return NotFound("snapshot {} is not in the table", *options.snapshot_id);
    return s;
  }
  if (options.as_of_timestamp_ms) {
    const Snapshot* s = metadata.SnapshotAsOf(*options.as_of_timestamp_ms);
    if (s == nullptr) {
      return NotFound("no snapshot was current at or before {} ms", *options.as_of_timestamp_ms);
    }
    return s;
  }
  if (options.ref) {
    if (metadata.refs.find(*options.ref) == metadata.refs.end()) {
      return NotFound("no branch or tag named '{}'", *options.ref);
    }
    const Snapshot* s = metadata.SnapshotForRef(*options.ref);
    if (s == nullptr) {
      return Corruption("ref '{}' names a snapshot that is not in the table", *options.ref);
    }
    return s;
  }
  return metadata.CurrentSnapshot();
}

Result<ExprPtr> BindFilter(const ExprPtr& filter, const types::Schema& schema,
                           bool case_sensitive) {
  if (filter == nullptr) return Expression::True();
  return Bind(filter, schema, case_sensitive);
}

Result<ScanSchema> ScanSchema::Make(const types::Schema& schema,
                                    const std::vector<std::string>& columns, const ExprPtr& filter,
                                    bool case_sensitive) {
  ScanSchema read{.schema = schema};
  FLOE_ASSIGN_OR_RETURN(read.projected, ProjectColumns(schema, columns, case_sensitive));
  FLOE_ASSIGN_OR_RETURN(read.bound_filter, BindFilter(filter, schema, case_sensitive));
  return read;
}

Result<types::Schema> ProjectColumns(const types::Schema& schema,
                                     const std::vector<std::string>& columns, bool case_sensitive) {
  if (columns.empty()) return schema;
  std::vector<types::NestedField> fields;
  std::set<int32_t> seen;
  for (const std::string& name : columns) {
    const types::NestedField* found = nullptr;
    for (const auto& f : schema.fields()) {
      if (f.name == name) found = &f;
    }
    if (found == nullptr && !case_sensitive) {
      for (const auto& f : schema.fields()) {
        if (!EqualsIgnoreAsciiCase(f.name, name)) continue;
        if (found != nullptr) {
          return InvalidArgument("column '{}' is ambiguous (columns: {})", name,
                                 ColumnList(schema));
        }
        found = &f;
      }
    }
    if (found == nullptr) {
      if (name.find('.') != std::string::npos && schema.FindFieldByName(name) != nullptr) {
        return InvalidArgument("column '{}': only top-level columns can be selected", name);
      }
      return InvalidArgument("cannot find column '{}' in schema (columns: {})", name,
                             ColumnList(schema));
    }
    if (!seen.insert(found->id).second) {
      return InvalidArgument("column '{}' is selected twice", name);
    }
    fields.push_back(*found);
  }
  return types::Schema(std::move(fields), schema.schema_id());
}

// ----------------------------------------------------------------------------- ScanFilter

Result<ScanFilter> ScanFilter::Make(const ExprPtr& bound_filter, const types::Schema& schema,
                                    const TableMetadata& metadata) {
  ScanFilter f;
  if (bound_filter == nullptr || bound_filter->op() == Operation::kTrue) return f;
  f.always_true_ = false;
  FLOE_ASSIGN_OR_RETURN(InclusiveMetricsEvaluator metrics,
                        InclusiveMetricsEvaluator::Make(bound_filter));
  f.metrics_.emplace(std::move(metrics));
  for (const PartitionSpec& spec : metadata.partition_specs) {
    PerSpec per;
    per.spec_id = spec.spec_id();
    // A spec whose source columns are not in the scan's schema (dropped, or
    // added after a time-travel snapshot) cannot be projected: no pruning.
    auto manifest = ManifestEvaluator::Make(bound_filter, spec, schema);
    if (manifest) {
      auto partition = RowEvaluator::Make(manifest->partition_filter());
      if (partition) per.partition.emplace(std::move(*partition));
      per.manifest.emplace(std::move(*manifest));
    }
    f.specs_.push_back(std::move(per));
  }
  std::sort(f.specs_.begin(), f.specs_.end(),
            [](const PerSpec& a, const PerSpec& b) { return a.spec_id < b.spec_id; });
  return f;
}

const ScanFilter::PerSpec* ScanFilter::Find(int32_t spec_id) const {
  auto it = std::lower_bound(specs_.begin(), specs_.end(), spec_id,
                             [](const PerSpec& p, int32_t id) { return p.spec_id < id; });
  if (it == specs_.end() || it->spec_id != spec_id) return nullptr;
  return &*it;
}

bool ScanFilter::ManifestMayMatch(const ManifestFile& manifest) const {
  if (always_true_) return true;
  const PerSpec* per = Find(manifest.partition_spec_id);
  if (per == nullptr || !per->manifest) return true;
  // At most a few dozen partition fields: a small fixed buffer avoids allocation.
  constexpr size_t kMax = 64;
  PartitionFieldSummaryView views[kMax];
  size_t n = std::min(manifest.partitions.size(), kMax);
  for (size_t i = 0; i < n; ++i) {
    const PartitionFieldSummary& s = manifest.partitions[i];
    views[i].contains_null = s.contains_null;
    views[i].contains_nan = s.contains_nan;
    if (s.lower_bound) views[i].lower_bound = std::string_view(*s.lower_bound);
    if (s.upper_bound) views[i].upper_bound = std::string_view(*s.upper_bound);
  }
  return per->manifest->Eval(std::span<const PartitionFieldSummaryView>(views, n));
}

bool ScanFilter::FileMayMatch(const DataFile& file, int32_t spec_id, bool use_metrics) const {
  if (always_true_) return true;
  const PerSpec* per = Find(spec_id);
  if (per != nullptr && per->partition && !file.partition.empty()) {
    constexpr size_t kMax = 64;
    types::Value values[kMax];
    size_t n = std::min(file.partition.size(), kMax);
    for (size_t i = 0; i < n; ++i) values[i] = file.partition[i].value();
    if (!per->partition->Eval(types::Row(values, n))) return false;
  }
  if (use_metrics && metrics_) {
    if (!metrics_->Eval(MetricsOf(file))) return false;
  }
  return true;
}

// ----------------------------------------------------------------------------- TableScan

Result<TableScan> TableScan::Make(io::FileIO& io, const TableMetadata& metadata,
                                  TableScanOptions options) {
  TableScan scan;
  scan.io_ = &io;
  scan.metadata_ = metadata;
  scan.case_sensitive_ = options.case_sensitive;
  scan.planning_threads_ = std::max(1, options.planning_threads);
  FLOE_ASSIGN_OR_RETURN(const Snapshot* snapshot, SelectSnapshot(scan.metadata_, options));
  const types::Schema* schema = scan.metadata_.CurrentSchema();
  if (snapshot != nullptr) {
    scan.snapshot_id_ = snapshot->snapshot_id;
    bool time_travel = options.snapshot_id || options.as_of_timestamp_ms;
    if (options.ref) {
      auto ref = scan.metadata_.refs.find(*options.ref);
      time_travel = ref != scan.metadata_.refs.end() && !ref->second.is_branch();
    }
    if (time_travel && snapshot->schema_id) {
      schema = scan.metadata_.SchemaById(*snapshot->schema_id);
      if (schema == nullptr) {
        return Corruption("snapshot {} names schema {} which is not in the table metadata",
                          snapshot->snapshot_id, *snapshot->schema_id);
      }
    }
  }
  if (schema == nullptr) {
    return Corruption("current-schema-id {} names no schema", scan.metadata_.current_schema_id);
  }
  FLOE_ASSIGN_OR_RETURN(scan.read_, ScanSchema::Make(*schema, options.columns, options.filter,
                                                     options.case_sensitive));
  return scan;
}

const Snapshot* TableScan::snapshot() const {
  return snapshot_id_ ? metadata_.SnapshotById(*snapshot_id_) : nullptr;
}

namespace {

/// What one manifest contributes to a plan.
struct ManifestResult {
  std::vector<FileScanTask> data;
  std::vector<DeleteFileEntry> deletes;
};

Status ReadOneManifest(io::FileIO& io, const TableMetadata& metadata, const ManifestFile& manifest,
                       const ScanFilter& filter, ManifestResult* out) {
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(io, manifest, metadata));
  for (ManifestEntry& entry : entries) {
    if (entry.status == ManifestEntryStatus::kDeleted) continue;
    DataFile& file = entry.data_file;
    const int64_t seq = entry.sequence_number.value_or(0);
    if (!file.is_delete()) {
      if (!filter.FileMayMatch(file, manifest.partition_spec_id, true)) continue;
      FileScanTask task;
      task.data_file = std::move(file);
      task.spec_id = manifest.partition_spec_id;
      task.data_sequence_number = seq;
      out->data.push_back(std::move(task));
    } else {
      // Delete files are pruned by partition only: their column metrics
      // describe the deleted values, not the rows they delete.
      if (!filter.FileMayMatch(file, manifest.partition_spec_id, false)) continue;
      out->deletes.push_back(DeleteFileEntry{std::move(file), manifest.partition_spec_id, seq});
    }
  }
  return Ok();
}

}  // namespace

Result<std::vector<FileScanTask>> TableScan::PlanFiles() const {
  std::vector<FileScanTask> tasks;
  const Snapshot* snap = snapshot();
  if (snap == nullptr) return tasks;
  FLOE_ASSIGN_OR_RETURN(ScanFilter filter,
                        ScanFilter::Make(read_.bound_filter, read_.schema, metadata_));
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests,
                        SnapshotManifests(*io_, *snap, metadata_.format_version));
  std::vector<const ManifestFile*> selected;
  for (const ManifestFile& m : manifests) {
    if (m.content == ManifestContent::kData && !m.has_added_files() && !m.has_existing_files()) {
      continue;
    }
    if (m.content == ManifestContent::kDeletes && !m.has_added_files() && !m.has_existing_files()) {
      continue;
    }
    if (!filter.ManifestMayMatch(m)) continue;
    selected.push_back(&m);
  }

  std::vector<ManifestResult> results(selected.size());
  std::vector<Status> statuses(selected.size(), Ok());
  size_t threads = std::min<size_t>(static_cast<size_t>(planning_threads_), selected.size());
  if (threads <= 1) {
    for (size_t i = 0; i < selected.size(); ++i) {
      FLOE_RETURN_IF_ERROR(ReadOneManifest(*io_, metadata_, *selected[i], filter, &results[i]));
    }
  } else {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&]() {
      while (!failed.load(std::memory_order_relaxed)) {
        size_t i = next.fetch_add(1);
        if (i >= selected.size()) return;
        statuses[i] = ReadOneManifest(*io_, metadata_, *selected[i], filter, &results[i]);
        if (!statuses[i]) failed.store(true);
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    for (auto& s : statuses) FLOE_RETURN_IF_ERROR(s);
  }

  std::vector<DeleteFileEntry> deletes;
  for (ManifestResult& r : results) {
    for (DeleteFileEntry& d : r.deletes) deletes.push_back(std::move(d));
  }
  if (!deletes.empty() && metadata_.format_version < 2) {
    return Corruption("table at {} is format v1 but snapshot {} has delete files",
                      metadata_.location, snap->snapshot_id);
  }
  FLOE_ASSIGN_OR_RETURN(DeleteFileIndex index,
                        DeleteFileIndex::Make(std::move(deletes), metadata_));
  for (ManifestResult& r : results) {
    for (FileScanTask& t : r.data) {
      t.deletes = index.ForDataFile(t.data_file, t.spec_id, t.data_sequence_number);
      tasks.push_back(std::move(t));
    }
  }
  return tasks;
}

}  // namespace floe::iceberg
