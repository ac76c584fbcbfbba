#pragma once
/// EqualityDeleteWriter: writes equality delete files (spec "Equality Delete
/// Files"): Parquet files holding only the equality columns of deleted rows,
/// partitioned like the table's data, with `equality_ids` set on every
/// DataFile it returns. A row of a data file is deleted by such a file when
/// the file's data sequence number is greater than the row's and every
/// equality column is equal (null equals null).
///
/// Files go to `<location>/data/<partition path>/<uuid>.parquet` and roll at
/// `target_file_size_bytes`, as DataWriter's. The partition of a delete is
/// computed from the columns it stores, so every partition source column must
/// be an equality field or one of the `extra_field_ids` stored beside the key
/// (as Iceberg's Flink sink stores whole rows in changelog mode; readers
/// compare only the `equality_ids` columns). Not thread-safe.

#include <cstdint>
#include <memory>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data/data_writer.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

class EqualityDeleteWriter {
 public:
  /// A writer of deletes keyed on `equality_field_ids` (top-level primitive
  /// fields of `schema`) for partition spec `spec` under `location`.
  /// Errors: kInvalidArgument when there are no equality ids, an id is not a
  /// top-level field of `schema`, a field is not primitive (or is float or
  /// double, which the spec forbids), or a partition source column is
  /// neither an equality field nor in `extra_field_ids`; kNotSupported for
  /// unknown transforms. `extra_field_ids`: top-level columns stored with
  /// each delete (not compared), e.g. partition sources that are not keys.
  static Result<std::unique_ptr<EqualityDeleteWriter>> Make(
      io::FileIO& io, std::string location, const types::Schema& schema, PartitionSpec spec,
      std::vector<int32_t> equality_field_ids, DataWriterOptions options,
      std::vector<int32_t> extra_field_ids = {});
  ~EqualityDeleteWriter();

  /// The schema of the files: the equality (and extra) fields, in schema order.
  const types::Schema& delete_schema() const { return delete_schema_; }
  const std::vector<int32_t>& equality_field_ids() const { return equality_ids_; }

  /// Writes the key of `row`, a row of the table schema given to Make (only
  /// its equality columns are read; the others may be null), as one delete
  /// in the row's partition. Errors: kInvalidArgument when the row has the
  /// wrong width or a key value does not fit its column (nothing written),
  /// I/O errors.
  Status Delete(types::Row row);
  /// Writes a row given as the values of the delete schema's fields.
  Status DeleteKey(types::Row key);

  /// Bytes buffered in the open files' row groups; writes them out now.
  size_t buffered_bytes() const { return writer_->buffered_bytes(); }
  Status Flush() { return writer_->Flush(); }
  /// Completes the open files (Close returns them too).
  Status CloseFiles() { return writer_->CloseFiles(); }
  size_t num_open_files() const { return writer_->num_open_files(); }

  /// Closes the open files and returns every delete file written since Make.
  Result<std::vector<DataFile>> Close();
  /// Deletes every file written (after a failure).
  void Abort() { writer_->Abort(); }

  int64_t deletes_written() const { return writer_->rows_written(); }
  int32_t spec_id() const { return writer_->spec_id(); }

 private:
  EqualityDeleteWriter() = default;

  types::Schema delete_schema_;
  std::vector<int32_t> equality_ids_;
  std::vector<size_t> positions_;  // of the delete fields in a table row
  size_t table_width_ = 0;
  std::vector<types::Value> key_;
  std::unique_ptr<DataWriter> writer_;
};

}  // namespace floe::iceberg
