#pragma once
/// DeleteFilter: the deletes of one data file, loaded from its position and
/// equality delete files (format spec, "Position Delete Files", "Equality
/// Delete Files"), and the test of a row against them.
///
///  - Position deletes: the rows of the delete files whose `file_path` is the
///    data file's path; `pos` is the 0-based row position in the data file.
///    Delete files need not be sorted (the positions are sorted here).
///  - Deletion vectors (v3, puffin/deletion_vector.h): the positions set in
///    the data file's vector, tested in the bitmap itself. At most one per
///    data file; it is the same thing as position deletes in another form.
///  - Equality deletes: a row is deleted when, for some delete file, its
///    values of the file's `equality_ids` columns equal a row of the file.
///    Equality is Iceberg's for deletes: null equals null; int and long
///    compare as numbers (a column promoted from int), float as double;
///    -0.0 and 0.0 differ and NaN equals NaN, as Iceberg Java compares.
///    Files with the same equality ids share one hash set.
///
/// Which delete files apply to a data file is the DeleteFileIndex's choice
/// (delete_index.h); this class trusts its list. Memory: one int64 per
/// deleted position of a position delete file, a deletion vector's compressed
/// bitmap, and one key per equality delete row. Not thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data/delete_index.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::iceberg {

class DeletionVector;

class DeleteFilter {
 public:
  /// Reads the delete files (Parquet, or Puffin deletion vectors) of
  /// `data_file_path`. `table_schema` gives the types of equality columns; a
  /// column since dropped from the table takes its type from the delete file.
  /// Errors: kNotSupported for a delete file format other than Parquet or
  /// Puffin or a nested equality column, kCorruption naming the delete file
  /// (missing columns, null positions, bad bytes, a bad deletion vector, two
  /// deletion vectors), kInvalidArgument for a deletion vector of another
  /// data file, kNotFound, kIo.
  static Result<std::unique_ptr<DeleteFilter>> Load(io::FileIO& io,
                                                    const std::string& data_file_path,
                                                    std::span<const DeleteFilePtr> deletes,
                                                    const types::Schema& table_schema);

  /// True when no delete applies (no positions and no equality keys).
  bool empty() const {
    return positions_.empty() && groups_.empty() && deletion_vector_ == nullptr;
  }

  ~DeleteFilter();

  /// The top-level fields the rows must carry for the equality deletes
  /// (id, name and type; the type of the table schema when the column is in it).
  const std::vector<types::NestedField>& equality_fields() const { return equality_fields_; }

  /// Says where the equality columns are in the rows given to IsDeleted:
  /// the top-level field of `row_schema` with the same id. Call once before
  /// IsDeleted. Errors: kInvalidArgument when a column is missing.
  Status Bind(const types::Schema& row_schema);

  /// Whether the row at `position` (0-based in the data file) is deleted.
  /// Positions must be given in increasing order across calls (rows may be
  /// skipped). Allocates nothing once warm.
  bool IsDeleted(int64_t position, types::Row row);

  /// Deleted positions loaded for this data file (after de-duplication),
  /// from position delete files and the deletion vector.
  size_t position_count() const;
  /// Distinct equality keys loaded, over all groups.
  size_t equality_key_count() const;

 private:
  struct Group {
    std::vector<int32_t> field_ids;  ///< sorted
    std::vector<int> row_positions;  ///< per field id, after Bind
    std::unordered_set<std::string> keys;
  };
  DeleteFilter() = default;
  Status LoadPositions(io::FileIO& io, const DeleteFileEntry& file, const std::string& path);
  Status LoadDeletionVector(io::FileIO& io, const DataFile& dv, const std::string& path);
  Status LoadEquality(io::FileIO& io, const DeleteFileEntry& file,
                      const types::Schema& table_schema);

  std::vector<int64_t> positions_;                   ///< sorted, unique
  std::unique_ptr<DeletionVector> deletion_vector_;  ///< null when none or empty
  size_t cursor_ = 0;
  std::vector<Group> groups_;
  std::vector<types::NestedField> equality_fields_;
  std::string scratch_;
};

/// Appends the equality-delete key of `value` to `*out` (see DeleteFilter:
/// ints widened to 8 bytes, floats to double, NaNs canonical; byte strings
/// length-prefixed; nested values recursively).
void AppendEqualityKey(const types::Value& value, std::string* out);

}  // namespace floe::iceberg
