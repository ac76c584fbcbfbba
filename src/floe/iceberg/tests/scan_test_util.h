#pragma once
// A small table builder for the scan tests: writes Parquet data and delete
// files, manifests and manifest lists directly (no catalog, no producers) and
// keeps a TableMetadata that TableScan reads. Each Commit is one snapshot
// with the next sequence number; files it adds share that sequence number.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "floe/common/arena.h"
#include "floe/format/parquet/writer.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/delete_index.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/types/row_json.h"

namespace floe::iceberg::scantest {

using types::Type;
using types::Value;
using RowValues = std::vector<Value>;

inline std::string TempRoot(const std::string& name) {
  static std::atomic<int> counter{0};
  auto dir =
      std::filesystem::temp_directory_path() /
      ("floe_scan_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/// A string value pointing at a string literal or other long-lived storage.
inline Value Str(std::string_view s) { return Value::Bytes(s); }

/// The position delete schema (file_path, pos).
inline types::Schema PositionDeleteFileSchema() {
  return types::Schema({{kDeleteFilePathFieldId, "file_path", true, Type::String(), ""},
                        {kDeletePosFieldId, "pos", true, Type::Long(), ""}});
}

class TestTable {
 public:
  TestTable(const std::string& name, types::Schema schema, PartitionSpec spec = {},
            int format_version = 2)
      : root_(TempRoot(name)) {
    metadata_.format_version = format_version;
    metadata_.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
    metadata_.location = root_;
    metadata_.last_column_id = schema.highest_field_id();
    metadata_.current_schema_id = schema.schema_id();
    metadata_.schemas.push_back(std::move(schema));
    metadata_.default_spec_id = spec.spec_id();
    metadata_.last_partition_id = std::max(kInitialLastPartitionId, spec.last_assigned_field_id());
    metadata_.partition_specs.push_back(std::move(spec));
    metadata_.sort_orders.push_back(SortOrder());
  }
  ~TestTable() { std::filesystem::remove_all(root_); }

  io::FileIO& io() { return io_; }
  TableMetadata& metadata() { return metadata_; }
  const types::Schema& schema() const { return *metadata_.CurrentSchema(); }

  /// Adds a schema and makes it current.
  void EvolveSchema(types::Schema schema) {
    metadata_.last_column_id = std::max(metadata_.last_column_id, schema.highest_field_id());
    metadata_.current_schema_id = schema.schema_id();
    metadata_.schemas.push_back(std::move(schema));
  }
  /// Adds a spec and makes it the default.
  void EvolveSpec(PartitionSpec spec) {
    metadata_.default_spec_id = spec.spec_id();
    metadata_.last_partition_id =
        std::max(metadata_.last_partition_id, spec.last_assigned_field_id());
    metadata_.partition_specs.push_back(std::move(spec));
  }

  std::string NewPath(const std::string& stem, const std::string& ext = "parquet") {
    return root_ + "/data/" + stem + "-" + std::to_string(next_file_++) + "." + ext;
  }

  /// Writes rows of `schema` as a Parquet file; returns its DataFile with metrics.
  DataFile WriteParquet(const types::Schema& schema, const std::vector<RowValues>& rows,
                        std::vector<Literal> partition, DataFileContent content,
                        const std::string& stem, format::parquet::WriterOptions options = {}) {
    std::string path = NewPath(stem);
    auto out = io_.CreateOutput(path);
    EXPECT_TRUE(out.has_value()) << path;
    auto writer = format::parquet::ParquetWriter::Open(std::move(*out), schema, options);
    EXPECT_TRUE(writer.has_value()) << (writer ? "" : writer.error().ToString());
    for (const RowValues& r : rows) {
      auto s = (*writer)->Append(types::Row(r.data(), r.size()));
      EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
    }
    auto metrics = (*writer)->Close();
    EXPECT_TRUE(metrics.has_value());
    DataFile f;
    f.content = content;
    f.file_path = path;
    f.partition = std::move(partition);
    f.record_count = metrics->record_count;
    f.file_size_in_bytes = static_cast<int64_t>(metrics->file_size_in_bytes);
    f.column_sizes = metrics->column_sizes;
    f.value_counts = metrics->value_counts;
    f.null_value_counts = metrics->null_value_counts;
    f.nan_value_counts = metrics->nan_value_counts;
    f.lower_bounds = metrics->lower_bounds;
    f.upper_bounds = metrics->upper_bounds;
    return f;
  }

  DataFile WriteData(const std::vector<RowValues>& rows, std::vector<Literal> partition = {},
                     format::parquet::WriterOptions options = {}) {
    return WriteParquet(schema(), rows, std::move(partition), DataFileContent::kData, "data",
                        options);
  }

  /// Position deletes in the order given (not sorted).
  DataFile WritePositionDeletes(const std::vector<std::pair<std::string, int64_t>>& deletes,
                                std::vector<Literal> partition = {}) {
    std::vector<RowValues> rows;
    for (const auto& [path, pos] : deletes) rows.push_back({Str(path), Value::Int64(pos)});
    return WriteParquet(PositionDeleteFileSchema(), rows, std::move(partition),
                        DataFileContent::kPositionDeletes, "pos-deletes");
  }

  /// Equality deletes keyed on `ids` (top-level fields of the current schema).
  DataFile WriteEqualityDeletes(const std::vector<int32_t>& ids, const std::vector<RowValues>& rows,
                                std::vector<Literal> partition = {}) {
    std::vector<types::NestedField> fields;
    for (int32_t id : ids) {
      for (const auto& f : schema().fields()) {
        if (f.id == id) fields.push_back(f);
      }
    }
    DataFile f = WriteParquet(types::Schema(fields), rows, std::move(partition),
                              DataFileContent::kEqualityDeletes, "eq-deletes");
    f.equality_ids = ids;
    return f;
  }

  struct Added {
    DataFile file;
    int32_t spec_id = -1;  ///< -1: the default spec
  };

  /// Commits a snapshot adding `files` and removing the live files whose
  /// paths are in `removed`. Returns the snapshot id (sequence number * 100).
  SnapshotId Commit(std::string op, std::vector<Added> files,
                    const std::set<std::string>& removed = {}, int64_t timestamp_ms = 0) {
    const int64_t seq = metadata_.last_sequence_number + 1;
    const SnapshotId id = seq * 100;
    const int fv = metadata_.format_version;
    std::vector<ManifestFile> manifests;
    const Snapshot* parent = metadata_.CurrentSnapshot();
    if (parent != nullptr) {
      auto previous = SnapshotManifests(io_, *parent, fv);
      EXPECT_TRUE(previous.has_value()) << (previous ? "" : previous.error().ToString());
      for (const ManifestFile& m : *previous) {
        if (removed.empty()) {
          manifests.push_back(m);
          continue;
        }
        auto entries = ReadManifest(io_, m, metadata_);
        EXPECT_TRUE(entries.has_value()) << (entries ? "" : entries.error().ToString());
        std::vector<ManifestEntry> rewritten;
        bool touched = false;
        for (ManifestEntry e : *entries) {
          if (e.status == ManifestEntryStatus::kDeleted) continue;
          if (removed.count(e.data_file.file_path) != 0) {
            e.status = ManifestEntryStatus::kDeleted;
            e.snapshot_id = id;
            touched = true;
          } else {
            e.status = ManifestEntryStatus::kExisting;
          }
          rewritten.push_back(std::move(e));
        }
        if (!touched) {
          manifests.push_back(m);
          continue;
        }
        manifests.push_back(WriteManifest(m.partition_spec_id, m.content, id, rewritten));
      }
    }
    std::map<std::pair<int32_t, int>, std::vector<ManifestEntry>> groups;
    for (Added& a : files) {
      int32_t spec_id = a.spec_id < 0 ? metadata_.default_spec_id : a.spec_id;
      ManifestEntry e;
      e.status = ManifestEntryStatus::kAdded;
      if (fv == 1) e.snapshot_id = id;
      e.data_file = std::move(a.file);
      int content = e.data_file.is_delete() ? 1 : 0;
      groups[{spec_id, content}].push_back(std::move(e));
    }
    std::vector<ManifestFile> added;
    for (auto& [key, entries] : groups) {
      added.push_back(WriteManifest(
          key.first, key.second ? ManifestContent::kDeletes : ManifestContent::kData, id, entries));
    }
    manifests.insert(manifests.begin(), added.begin(), added.end());
    std::string list = root_ + "/metadata/snap-" + std::to_string(id) + ".avro";
    std::optional<SnapshotId> parent_id;
    if (parent != nullptr) parent_id = parent->snapshot_id;
    auto s = WriteManifestList(io_, list, fv, id, parent_id, seq, manifests);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());

    Snapshot snap;
    snap.snapshot_id = id;
    snap.parent_snapshot_id = parent_id;
    snap.sequence_number = fv >= 2 ? seq : 0;
    snap.timestamp_ms = timestamp_ms != 0 ? timestamp_ms : 1'700'000'000'000 + seq * 1000;
    snap.manifest_list = list;
    snap.operation = std::move(op);
    snap.schema_id = metadata_.current_schema_id;
    metadata_.snapshots.push_back(snap);
    metadata_.snapshot_log.push_back(SnapshotLogEntry{snap.timestamp_ms, id});
    metadata_.current_snapshot_id = id;
    metadata_.refs[std::string(kMainBranch)] = SnapshotRef::Branch(id);
    metadata_.last_sequence_number = seq;
    metadata_.last_updated_ms = snap.timestamp_ms;
    return id;
  }

 private:
  ManifestFile WriteManifest(int32_t spec_id, ManifestContent content, SnapshotId id,
                             const std::vector<ManifestEntry>& entries) {
    std::string path = root_ + "/metadata/m-" + std::to_string(next_file_++) + ".avro";
    auto w = ManifestWriter::Open(io_, path, metadata_.format_version, schema(),
                                  *metadata_.SpecById(spec_id), content, id);
    EXPECT_TRUE(w.has_value()) << (w ? "" : w.error().ToString());
    for (const ManifestEntry& e : entries) {
      auto s = (*w)->Add(e);
      EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
    }
    auto m = (*w)->Close();
    EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().ToString());
    return *m;
  }

  std::string root_;
  io::LocalFileIO io_;
  TableMetadata metadata_;
  int next_file_ = 0;
};

/// Plans and reads a scan; every row as JSON (projected schema), in task order.
inline Result<std::vector<std::string>> ScanJson(io::FileIO& io, const TableMetadata& metadata,
                                                 TableScanOptions options,
                                                 DataReaderOptions reader_options = {}) {
  FLOE_ASSIGN_OR_RETURN(TableScan scan, TableScan::Make(io, metadata, std::move(options)));
  FLOE_ASSIGN_OR_RETURN(auto tasks, scan.PlanFiles());
  std::vector<std::string> out;
  const size_t width = scan.projected_schema().fields().size();
  Arena arena;
  std::vector<Value> values;
  for (const auto& t : tasks) {
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          DataReader::Open(io, t, scan.schema(), scan.projected_schema(),
                                           scan.bound_filter(), reader_options));
    while (true) {
      values.clear();
      FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, &values));
      if (n == 0) break;
      for (size_t r = 0; r < n; ++r) {
        std::string line;
        types::AppendRowJson(scan.projected_schema(), types::Row(values.data() + r * width, width),
                             &line);
        out.push_back(std::move(line));
      }
    }
  }
  return out;
}

}  // namespace floe::iceberg::scantest
