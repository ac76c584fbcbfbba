#pragma once
/// FastAppend: adds data files in a new "append" snapshot. The parent's
/// manifests are carried over unread (small manifests are merged per
/// `commit.manifest.*`, manifest_merge.h), so the cost of a commit does not
/// grow with the table's history. Appends never conflict: after a lost race
/// the same manifest is committed on top of the new current snapshot.

#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class FastAppend final : public SnapshotProducer {
 public:
  explicit FastAppend(Table* table) : SnapshotProducer(table) {}

  /// Adds a data file written for partition spec `spec_id` (default: the
  /// table's default spec).
  FastAppend& AppendFile(DataFile file, std::optional<int32_t> spec_id = std::nullopt);
  /// Adds a manifest of data files written beforehand
  /// (SnapshotProducer::AddWrittenManifest; v2+ tables).
  FastAppend& AppendManifest(ManifestFile manifest, std::vector<DataFile> files) {
    AddWrittenManifest(std::move(manifest), std::move(files));
    return *this;
  }

  std::string_view name() const override { return "append"; }

 protected:
  std::string_view operation() const override { return operation::kAppend; }
};

}  // namespace floe::iceberg
