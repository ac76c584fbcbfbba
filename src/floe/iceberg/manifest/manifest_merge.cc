#include "floe/iceberg/manifest/manifest_merge.h"

#include <map>
#include <utility>

#include "floe/common/ascii.h"

namespace floe::iceberg {

ManifestMergeOptions ManifestMergeOptions::FromProperties(const TableMetadata& m) {
  ManifestMergeOptions o;
  o.enabled =
      !EqualsIgnoreAsciiCase(m.Property(table_properties::kCommitManifestMergeEnabled), "false");
  o.min_count_to_merge = std::max<int64_t>(
      2, m.PropertyAsInt(table_properties::kCommitManifestMinCountToMerge, o.min_count_to_merge));
  o.target_size_bytes = std::max<int64_t>(
      1, m.PropertyAsInt(table_properties::kCommitManifestTargetSizeBytes, o.target_size_bytes));
  return o;
}

Result<ManifestFile> WriteRewrittenManifest(io::FileIO& io, const TableMetadata& base,
                                            const std::string& path, int32_t spec_id,
                                            ManifestContent content, SnapshotId snapshot_id,
                                            const std::vector<ManifestEntry>& entries) {
  const types::Schema* schema = base.CurrentSchema();
  const PartitionSpec* spec = base.SpecById(spec_id);
  if (schema == nullptr || spec == nullptr) {
    return InvalidArgument("rewriting manifest {}: the table lacks partition spec {}", path,
                           spec_id);
  }
  FLOE_ASSIGN_OR_RETURN(auto writer, ManifestWriter::Open(io, path, base.format_version, *schema,
                                                          *spec, content, snapshot_id));
  for (const ManifestEntry& in : entries) {
    ManifestEntry e = in;
    const bool ours = e.snapshot_id == snapshot_id;
    if (e.status == ManifestEntryStatus::kDeleted) {
      if (!ours) continue;  // deleted by an older snapshot: forgotten
    } else if (e.status == ManifestEntryStatus::kAdded && ours) {
      // Added by the new snapshot: its sequence numbers are inherited.
      if (e.sequence_number == kUnassignedSequenceNumber) e.sequence_number.reset();
      if (e.file_sequence_number == kUnassignedSequenceNumber) e.file_sequence_number.reset();
    } else {
      e.status = ManifestEntryStatus::kExisting;
    }
    FLOE_RETURN_IF_ERROR_CTX(writer->Add(e), "rewriting manifest {}", path);
  }
  return writer->Close();
}

Result<std::vector<ManifestFile>> MergeManifests(io::FileIO& io, const TableMetadata& base,
                                                 SnapshotId snapshot_id,
                                                 std::vector<ManifestFile> manifests,
                                                 const ManifestMergeOptions& options,
                                                 const std::function<std::string()>& new_path,
                                                 std::vector<std::string>* written) {
  if (!options.enabled) return manifests;
  using Key = std::pair<int32_t, int32_t>;  // spec id, content
  std::vector<Key> order;
  std::map<Key, std::vector<ManifestFile>> groups;
  for (auto& m : manifests) {
    Key key{m.partition_spec_id, static_cast<int32_t>(m.content)};
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.push_back(std::move(m));
  }
  std::vector<ManifestFile> out;
  for (const Key& key : order) {
    auto& group = groups[key];
    if (static_cast<int64_t>(group.size()) < options.min_count_to_merge) {
      for (auto& m : group) out.push_back(std::move(m));
      continue;
    }
    // Pack consecutive manifests into bins of at most the target size.
    std::vector<std::vector<ManifestFile*>> bins;
    int64_t bin_size = 0;
    for (auto& m : group) {
      if (bins.empty() ||
          (bin_size + m.manifest_length > options.target_size_bytes && !bins.back().empty())) {
        bins.emplace_back();
        bin_size = 0;
      }
      bins.back().push_back(&m);
      bin_size += m.manifest_length;
    }
    for (auto& bin : bins) {
      if (bin.size() == 1) {
        out.push_back(std::move(*bin.front()));
        continue;
      }
      std::vector<ManifestEntry> entries;
      for (const ManifestFile* m : bin) {
        FLOE_ASSIGN_OR_RETURN(auto part, ReadManifest(io, *m, base));
        for (auto& e : part) entries.push_back(std::move(e));
      }
      std::string path = new_path();
      written->push_back(path);
      FLOE_ASSIGN_OR_RETURN(
          ManifestFile merged,
          WriteRewrittenManifest(io, base, path, key.first,
                                 static_cast<ManifestContent>(key.second), snapshot_id, entries));
      out.push_back(std::move(merged));
    }
  }
  return out;
}

}  // namespace floe::iceberg
