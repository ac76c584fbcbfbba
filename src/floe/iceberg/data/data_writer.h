#pragma once
/// DataWriter: writes rows of a table's schema into Parquet data files,
/// partitioned by its partition spec, at
/// `<location>/data/<partition path>/<uuid>.parquet`, rolling to a new file
/// once one reaches `write.target-file-size-bytes`. Returns the DataFiles
/// (partition tuple, record count, size and the column metrics of the
/// Parquet writer) for a producer to commit. Also writes position delete
/// files. Not thread-safe.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/writer.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/table_properties.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct DataWriterOptions {
  /// `write.target-file-size-bytes`, default 512 MiB.
  int64_t target_file_size_bytes = table_properties::kWriteTargetFileSizeBytesDefault;
  /// The Parquet settings (`write.parquet.*`, `write.metadata.metrics.default`).
  format::parquet::WriterOptions parquet;

  /// The options a table's properties ask for. Errors: kInvalidArgument for
  /// an unknown codec or metrics mode.
  static Result<DataWriterOptions> FromProperties(const TableMetadata& metadata);
};

class DataWriter {
 public:
  /// A writer for the current schema and default spec of `metadata`.
  static Result<std::unique_ptr<DataWriter>> Make(io::FileIO& io, const TableMetadata& metadata,
                                                  DataWriterOptions options);
  /// A writer for any schema and spec (the spec must fit the schema) under
  /// `location`. Errors: kInvalidArgument, kNotSupported (unknown transforms).
  static Result<std::unique_ptr<DataWriter>> Make(io::FileIO& io, std::string location,
                                                  types::Schema schema, PartitionSpec spec,
                                                  DataWriterOptions options);
  ~DataWriter();

  /// Writes one row (values of the schema's top-level fields). Errors:
  /// kInvalidArgument if the row does not fit the schema (nothing written),
  /// I/O errors.
  Status Write(types::Row row);

  /// Where a written row went: the file (`file_path(file_index)`) and the
  /// row's 0-based position in it.
  struct RowLocation {
    size_t file_index = 0;
    int64_t pos = 0;
  };
  /// Write, also telling where the row went (`*location` is set only on success).
  Status Write(types::Row row, RowLocation* location);
  /// The files created since Make, in creation order (indexes stay valid
  /// until Abort), and each file's partition tuple.
  size_t num_files() const { return paths_.size(); }
  const std::string& file_path(size_t file_index) const { return paths_[file_index]; }
  const std::vector<Literal>& file_partition(size_t file_index) const {
    return partitions_[file_index];
  }

  /// Bytes buffered in the row groups of the open files (see
  /// ParquetWriter::buffered_bytes); one sum over open files and columns.
  size_t buffered_bytes() const;
  /// Writes the buffered row groups of every open file (they stay open).
  Status Flush();
  /// Completes every open file (Close returns them with the others); the
  /// next row of a partition starts a new file.
  Status CloseFiles();
  /// Open files now.
  size_t num_open_files() const;

  /// Closes every open file and returns all files written since Make.
  Result<std::vector<DataFile>> Close();
  /// Deletes every file written (after a failure).
  void Abort();

  int32_t spec_id() const { return spec_.spec_id(); }
  int64_t rows_written() const { return rows_; }

 private:
  struct OpenFile;
  DataWriter(io::FileIO& io, std::string location, types::Schema schema, PartitionSpec spec,
             DataWriterOptions options, PartitionTransformer transformer,
             types::TypePtr partition_type);
  Status Roll(OpenFile& file);

  io::FileIO& io_;
  std::string location_;
  types::Schema schema_;
  PartitionSpec spec_;
  DataWriterOptions options_;
  PartitionTransformer transformer_;
  types::TypePtr partition_type_;
  std::vector<types::Value> partition_values_;
  std::string key_;
  std::unordered_map<std::string, std::unique_ptr<OpenFile>> open_;
  std::vector<DataFile> done_;
  std::vector<std::string> paths_;
  std::vector<std::vector<Literal>> partitions_;  // per paths_ entry
  int64_t rows_ = 0;
};

/// The schema of position delete files (spec "Position Delete Files").
const types::Schema& PositionDeleteSchema();

/// One deleted row: a data file and a 0-based row position in it.
struct PositionDelete {
  std::string file_path;
  int64_t pos = 0;
};

/// Writes `deletes` (sorted here by path, then position) as one position
/// delete file for the partition `partition` of spec `spec_id`, under
/// `<location>/data/<partition path>/`. `referenced_data_file` is set when
/// every delete names the same data file. Errors: kInvalidArgument (unknown
/// spec, empty deletes), I/O.
Result<DataFile> WritePositionDeletes(io::FileIO& io, const TableMetadata& metadata,
                                      int32_t spec_id, const std::vector<Literal>& partition,
                                      std::vector<PositionDelete> deletes,
                                      const DataWriterOptions& options);

/// One deleted row named by a file ordinal: `file` indexes the file paths
/// given with it.
struct PositionDeleteRef {
  uint32_t file = 0;
  int64_t pos = 0;
};

/// The same file as above for deletes that name their data file by ordinal
/// into `file_paths` (which may hold files no delete names), in any order.
/// The spec's order (path, then position) is reached without comparing a
/// path per delete: the distinct files are ranked by path once, then the
/// deletes are sorted as integers. Errors: kInvalidArgument (unknown spec,
/// empty deletes, an ordinal outside `file_paths`, a negative position), I/O.
Result<DataFile> WritePositionDeletes(io::FileIO& io, const TableMetadata& metadata,
                                      int32_t spec_id, const std::vector<Literal>& partition,
                                      std::span<const std::string_view> file_paths,
                                      std::vector<PositionDeleteRef> deletes,
                                      const DataWriterOptions& options);

}  // namespace floe::iceberg
