#pragma once
/// DeleteFileIndex: which delete files of a snapshot apply to which data file
/// (format spec, "Scan Planning"):
///
///  - a position delete file applies to a data file when the data file's
///    data sequence number is <= the delete's, both have the same partition
///    (spec id and partition values), and, if the delete names a
///    `referenced_data_file`, it is that file;
///  - an equality delete file applies to a data file when the data file's
///    data sequence number is strictly < the delete's, and either both have
///    the same partition (spec id and values) or the delete was written with
///    an unpartitioned spec (a global delete).
///
/// Partition values compare with Iceberg's equality: null equals null, floats
/// compare by their bits (so -0.0 != 0.0 and NaN equals NaN). Position delete
/// files without a referenced data file are further pruned by the lower and
/// upper bounds of their `file_path` column when the manifest has them.
///
/// A deletion vector (v3: a position delete in a Puffin file, puffin/
/// deletion_vector.h) applies to the data file named by its
/// `referenced_data_file` when the data file's data sequence number is <= the
/// vector's and both have the same partition; the data file's position delete
/// files are then ignored (the vector's writer merged them into it). At most
/// one deletion vector per data file.
///
/// Immutable after Make; ForDataFile is thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

/// Field ids of the position delete file schema (spec "Position Delete Files").
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeletePosFieldId = 2147483545;

/// A live delete file with what planning knows of it.
struct DeleteFileEntry {
  DataFile file;
  int32_t spec_id = 0;
  int64_t data_sequence_number = 0;
};

using DeleteFilePtr = std::shared_ptr<const DeleteFileEntry>;

class DeleteFileIndex {
 public:
  /// An index with no deletes.
  DeleteFileIndex() = default;

  /// Indexes `deletes` (position and equality delete files; data files are
  /// kInvalidArgument). `metadata` supplies the partition specs by id.
  /// Errors: kCorruption for a delete file whose spec id is not in the
  /// metadata or whose partition tuple does not fit its spec, a deletion
  /// vector without referenced_data_file, content_offset or
  /// content_size_in_bytes, or two deletion vectors for one data file;
  /// kInvalidArgument as above.
  static Result<DeleteFileIndex> Make(std::vector<DeleteFileEntry> deletes,
                                      const TableMetadata& metadata);

  /// The delete files that apply to `data_file`, written with spec `spec_id`
  /// at data sequence number `data_sequence_number`: its deletion vector or
  /// else its position deletes first, then equality deletes, each in
  /// ascending sequence number.
  std::vector<DeleteFilePtr> ForDataFile(const DataFile& data_file, int32_t spec_id,
                                         int64_t data_sequence_number) const;

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

 private:
  /// Delete files sorted by data sequence number.
  struct Bucket {
    std::vector<DeleteFilePtr> position;
    std::vector<DeleteFilePtr> equality;
  };
  static void Sort(Bucket& bucket);
  DeleteFilePtr DeletionVectorFor(const DataFile& data_file, int32_t spec_id,
                                  int64_t data_sequence_number) const;

  std::unordered_map<std::string, Bucket> by_partition_;                 ///< key: PartitionKey
  std::unordered_map<std::string, std::vector<DeleteFilePtr>> by_path_;  ///< referenced_data_file
  std::unordered_map<std::string, DeleteFilePtr> dv_by_path_;            ///< referenced_data_file
  std::vector<DeleteFilePtr> global_equality_;
  size_t size_ = 0;
};

/// The bytes identifying a partition (spec id and values) under Iceberg's
/// equality; equal keys exactly for equal partitions.
std::string PartitionKey(int32_t spec_id, const std::vector<Literal>& partition);

}  // namespace floe::iceberg
