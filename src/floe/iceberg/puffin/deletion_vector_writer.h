#pragma once
/// Writing deletion vectors, the form position deletes take in format v3
/// tables (docs/v3.md): one Puffin file holding a `deletion-vector-v1` blob
/// per data file (deletion_vector.h has the blob layout), and one delete file
/// per blob for the manifests.
///
/// A delete file returned here has content position deletes, format
/// `puffin`, the Puffin file's path and size, `referenced_data_file`,
/// `content_offset` and `content_size_in_bytes` locating its blob, the
/// data file's partition tuple and `record_count` = the vector's cardinality.
/// Each blob carries the properties `referenced-data-file` and `cardinality`,
/// snapshot id and sequence number -1 and the `_pos` field id, as the Puffin
/// spec asks; the footer is uncompressed with `created-by`.
///
/// The spec allows one deletion vector per data file in a snapshot: a writer
/// that deletes rows of a data file that already has one merges it in
/// (`DeletionVector::AppendPositions`) and removes the old one in the same
/// commit. Stateless and thread-safe.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// The deleted rows of one data file.
struct DeletionVectorToWrite {
  std::string data_file;           ///< its path, as the table's manifests name it
  std::vector<Literal> partition;  ///< its partition tuple
  std::vector<int64_t> positions;  ///< any order, duplicates allowed; each in [0, 2^63)
};

/// Writes `vectors` as one Puffin file at `path` (synced and closed) and
/// returns their delete files, in order. Errors: kInvalidArgument (no
/// vectors, a vector without positions, a negative position, a data file
/// named twice), those of the FileIO (the file is then deleted).
Result<std::vector<DataFile>> WriteDeletionVectors(io::FileIO& io, const std::string& path,
                                                   std::span<const DeletionVectorToWrite> vectors);

/// A new Puffin file path for deletion vectors of the table at
/// `table_location`: `<location>/data/<uuid>-deletes.puffin`.
std::string NewDeletionVectorPath(std::string_view table_location);

}  // namespace floe::iceberg
