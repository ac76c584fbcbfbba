#pragma once
/// Manifests and manifest lists: the Avro files that track a snapshot's data
/// and delete files (format spec, "Manifests" and "Manifest Lists"). Written
/// with exactly the spec's v2 field names, field ids and file metadata so that
/// PyIceberg and Iceberg Java read them; v1 and v2 (and v3 fields) are read.
/// The model of one file is in data_file.h. See docs/iceberg-manifests.md.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// A sequence number not known until the commit that writes the manifest list
/// (the list writer replaces it with the snapshot's sequence number).
inline constexpr int64_t kUnassignedSequenceNumber = -1;

/// A file or row count of a manifest-list entry that the file left null
/// (allowed in v1 lists; the spec says to assume it is not zero).
inline constexpr int32_t kUnknownCount = -1;

/// manifest_file.content (517).
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };

/// manifest_file.partitions (507): a summary of one partition field over the
/// manifest's entries. Bounds are single-value serialized (Appendix D).
struct PartitionFieldSummary {
  bool contains_null = false;              ///< 509
  std::optional<bool> contains_nan;        ///< 518
  std::optional<std::string> lower_bound;  ///< 510
  std::optional<std::string> upper_bound;  ///< 511

  bool operator==(const PartitionFieldSummary&) const = default;
};

/// One entry of a manifest list (the manifest_file struct). Counts are
/// kUnknownCount when a v1 list left them null.
struct ManifestFile {
  std::string manifest_path;                                ///< 500
  int64_t manifest_length = 0;                              ///< 501
  int32_t partition_spec_id = 0;                            ///< 502
  ManifestContent content = ManifestContent::kData;         ///< 517
  int64_t sequence_number = kUnassignedSequenceNumber;      ///< 515
  int64_t min_sequence_number = kUnassignedSequenceNumber;  ///< 516
  /// 503; 0 (not yet known) is written as the list's snapshot id.
  SnapshotId added_snapshot_id = 0;
  int32_t added_files_count = 0;                  ///< 504
  int32_t existing_files_count = 0;               ///< 505
  int32_t deleted_files_count = 0;                ///< 506
  int64_t added_rows_count = 0;                   ///< 512
  int64_t existing_rows_count = 0;                ///< 513
  int64_t deleted_rows_count = 0;                 ///< 514
  std::vector<PartitionFieldSummary> partitions;  ///< 507
  std::optional<std::string> key_metadata;        ///< 519
  std::optional<int64_t> first_row_id;            ///< 520 (v3)

  /// True unless the count is known to be zero.
  bool has_added_files() const { return added_files_count != 0; }
  bool has_existing_files() const { return existing_files_count != 0; }
  bool has_deleted_files() const { return deleted_files_count != 0; }

  bool operator==(const ManifestFile&) const = default;
};

/// Writes one manifest. Not thread-safe; one writer per file.
class ManifestWriter {
 public:
  virtual ~ManifestWriter() = default;

  /// Creates `path` (exclusive). `snapshot_id` is the id written into ADDED
  /// and DELETED entries that have none (v2 may also leave it null to
  /// inherit; v1 entries must then carry their own). The file's key-value
  /// metadata holds `schema`, `schema-id`, `partition-spec`,
  /// `partition-spec-id`, `format-version` and (v2+) `content`; blocks are
  /// deflate-compressed. Errors: kInvalidArgument (format version, a v1
  /// delete manifest, spec not valid for schema), kAlreadyExists, I/O.
  static Result<std::unique_ptr<ManifestWriter>> Open(
      io::FileIO& io, std::string path, int format_version, const types::Schema& schema,
      const PartitionSpec& spec, ManifestContent content, std::optional<SnapshotId> snapshot_id);

  /// Appends an entry. Its data file's partition tuple must match the spec
  /// (one literal per field, of the field's result type or convertible to it
  /// without loss). Errors (nothing is written, the writer stays usable):
  /// kInvalidArgument for a partition mismatch, a data file in a delete
  /// manifest or the reverse, a v1 entry without snapshot id, a v2+ EXISTING
  /// or DELETED entry without data sequence number; I/O.
  virtual Status Add(const ManifestEntry& entry) = 0;
  /// Entries added so far.
  virtual int64_t entry_count() const = 0;
  /// Bytes written so far (for rolling manifests at a target size).
  virtual int64_t bytes_written() const = 0;
  /// Finishes and syncs the file; returns its manifest-list entry (counts,
  /// partition summaries over all entries, length; `sequence_number`
  /// kUnassignedSequenceNumber; `min_sequence_number` the least explicit data
  /// sequence number of the live entries, else kUnassignedSequenceNumber;
  /// `added_snapshot_id` the writer's snapshot id or 0). Call once.
  virtual Result<ManifestFile> Close() = 0;
};

/// Reads the entries of `manifest`, with the spec's inheritance of snapshot
/// id and sequence numbers from the manifest-list entry already applied.
/// `metadata` supplies the schema and the partition spec by id (falling back
/// to the spec and schema stored in the file). Fields are found by field id,
/// so v1, v2 and v3 manifests and any field order read alike; the manifest's
/// own `format-version` decides the inheritance rules (v1: sequence numbers 0).
/// Errors: kCorruption naming the file (bad Avro, not a manifest, a value of
/// the wrong type, an EXISTING/DELETED v2 entry without sequence number),
/// kNotFound, kIo.
Result<std::vector<ManifestEntry>> ReadManifest(io::FileIO& io, const ManifestFile& manifest,
                                                const TableMetadata& metadata);

/// Writes a manifest list for snapshot `snapshot_id`. Entries whose sequence
/// numbers are kUnassignedSequenceNumber get `sequence_number` (v2+), entries
/// with added_snapshot_id 0 get `snapshot_id`. v3: data manifests without a
/// first_row_id get consecutive ones from `first_row_id` (each advances it by
/// its added and existing rows); the file metadata then holds `first-row-id`.
/// Metadata: `snapshot-id`, `parent-snapshot-id` ("null" if none),
/// `sequence-number` (v2+), `format-version`.
/// Exclusive create; synced before return. Errors: kInvalidArgument, kAlreadyExists, I/O.
/// `as_read` (v2+ lists; left empty for v1): the entries exactly as
/// ReadManifestList will return them, so that a commit can carry them over
/// without reading the list back.
Status WriteManifestList(io::FileIO& io, const std::string& path, int format_version,
                         SnapshotId snapshot_id, std::optional<SnapshotId> parent_snapshot_id,
                         int64_t sequence_number, const std::vector<ManifestFile>& manifests,
                         std::optional<int64_t> first_row_id = std::nullopt,
                         std::vector<ManifestFile>* as_read = nullptr);

/// Reads a manifest list by field id (v1 lists: content data and sequence
/// numbers 0; null counts kUnknownCount). Errors: kCorruption naming the
/// file, kNotFound, kIo.
Result<std::vector<ManifestFile>> ReadManifestList(io::FileIO& io, const std::string& path,
                                                   int format_version);

/// The manifests of a snapshot: its manifest list, or for v1 snapshots that
/// list manifests inline (`manifests`), those (spec id from each file's
/// header, sequence numbers 0, added_snapshot_id the snapshot's, counts
/// kUnknownCount).
Result<std::vector<ManifestFile>> SnapshotManifests(io::FileIO& io, const Snapshot& snapshot,
                                                    int format_version);

}  // namespace floe::iceberg
