#pragma once
/// ParquetReader: reads a Parquet file as rows of `types::Value`s under the
/// file's Iceberg schema (schema_reader.h explains the mapping and the
/// field-id fallback).
///
/// Reads every encoding of parquet-format except the deprecated
/// BIT_PACKED for values; data pages v1 and v2; codecs UNCOMPRESSED, SNAPPY,
/// GZIP, ZSTD, LZ4_RAW and the deprecated Hadoop-framed LZ4; nested structs,
/// lists (3-level and the legacy 2-level forms) and maps; INT96 timestamps.
///
/// Every offset, length and count read from the file is checked before use.
/// A corrupt, truncated or hostile file gives kCorruption whose message names
/// the file path and the offset; never a crash, a hang or an allocation above
/// the limits in ReaderOptions.
///
/// Usage:
///   FLOE_ASSIGN_OR_RETURN(auto reader, ParquetReader::Open(std::move(file), {}));
///   Arena arena;
///   std::vector<types::Value> values;
///   while (true) {
///     arena.Reset(); values.clear();
///     FLOE_ASSIGN_OR_RETURN(size_t rows, reader->ReadBatch(&arena, 1024, &values));
///     if (rows == 0) break;
///     // row i is values[i * width .. (i + 1) * width), width = schema().fields().size()
///   }
///
/// Not thread-safe; one reader per thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/format/parquet/column_reader.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/schema_reader.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::format::parquet {

struct ReaderOptions {
  /// Footers larger than this are kCorruption. Default 64 MiB.
  uint64_t max_footer_size = 64u << 20;
  /// Pages whose uncompressed size is larger are kCorruption. Default 512 MiB.
  uint64_t max_page_size = 512u << 20;
  /// Pages with more values (levels) are kCorruption. Default 4 Mi; the page
  /// buffers hold about 36 bytes per value.
  uint64_t max_page_values = 1u << 22;
  /// Strings and bytes of rows without lists or structs point into the
  /// reader's page buffers instead of being copied into the arena: they are
  /// then valid until the next ReadBatch (or the arena's reset, whichever
  /// comes first). For callers that are done with a batch before they ask for
  /// the next. Default false: valid until the arena is reset.
  bool borrow_bytes = false;
};

/// Statistics of one leaf column in one row group, decoded to floe values.
struct ColumnStats {
  int leaf = 0;                     ///< index into parquet_schema().leaves
  int32_t field_id = 0;             ///< the Iceberg field id of the leaf
  std::optional<types::Value> min;  ///< lower bound (bytes point into metadata())
  std::optional<types::Value> max;  ///< upper bound
  std::optional<int64_t> null_count;
  int64_t num_values = 0;  ///< values including nulls (and list repetitions)
};

/// The statistics of a row group, one entry per leaf column of the file.
struct RowGroupStats {
  int row_group = 0;
  int64_t num_rows = 0;
  std::vector<ColumnStats> columns;
  /// The stats of the leaf with this field id; nullptr if there is none.
  const ColumnStats* Find(int32_t field_id) const;
};

class ParquetReader {
 public:
  /// Reads and checks the footer and builds the schema. Errors: kCorruption
  /// (bad magic, footer length out of range, malformed metadata),
  /// kNotSupported (encrypted footers, types floe cannot represent), kIo.
  static Result<std::unique_ptr<ParquetReader>> Open(std::unique_ptr<io::InputFile> file,
                                                     ReaderOptions options = {});
  ~ParquetReader();

  const std::string& path() const { return file_->path(); }
  const FileMetaData& metadata() const { return metadata_; }
  /// The file's full schema, as floe maps it.
  const FileSchema& parquet_schema() const { return file_schema_; }
  /// The schema of the rows returned: the projection (default: everything).
  const types::Schema& schema() const { return projected_.schema; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }

  /// Selects the fields to read by id, at any depth (see ProjectSchema).
  /// Call before the first read. kInvalidArgument for unknown ids.
  Status Project(std::vector<int32_t> field_ids);

  /// Row groups for which `filter` returns false are skipped. Statistics
  /// that cannot be decoded are left empty rather than failing the read.
  void SetRowGroupFilter(std::function<bool(const RowGroupStats&)> filter) {
    filter_ = std::move(filter);
  }

  /// Decodes the statistics of row group `index`. kInvalidArgument if out of range.
  Result<RowGroupStats> ReadRowGroupStats(int index) const;

  /// Reads up to `max_rows` rows and appends their top-level values
  /// (schema().fields().size() per row) to `*values`. Strings, bytes and
  /// nested children are allocated in `arena` and stay valid until it is
  /// reset (see ReaderOptions::borrow_bytes). Returns the number of rows
  /// read, 0 at the end of the file; fewer than `max_rows` also at the end of
  /// a row group when no projected field is a struct, list or map (those rows
  /// are decoded column by column, a batch within one row group).
  /// After an error the reader is spent: later calls fail with kInvalidArgument.
  Result<size_t> ReadBatch(Arena* arena, size_t max_rows, std::vector<types::Value>* values);

  /// Reads one row into `*row` (replacing its contents); false at the end.
  Result<bool> Next(Arena* arena, std::vector<types::Value>* row);

 private:
  ParquetReader(std::unique_ptr<io::InputFile> file, ReaderOptions options);
  Status ReadFooter();
  Status StartRowGroup(int index);
  Result<bool> EnsureRowGroup();
  Result<size_t> ReadRows(Arena* arena, size_t max_rows, std::vector<types::Value>* values);
  Result<size_t> ReadFlatRows(Arena* arena, size_t max_rows, std::vector<types::Value>* values);
  Status BuildValue(const SchemaNode& node, Arena* arena, size_t depth, types::Value* out);
  Status SkipSubtree(const SchemaNode& node);
  Error WithPath(Error error) const;
  /// kCorruption (WithPath): `column` has no more values before the current
  /// row group's rows are all read.
  Error EndsEarly(const ColumnChunkReader& column) const;

  std::unique_ptr<io::InputFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  FileSchema file_schema_;
  ProjectedSchema projected_;
  std::function<bool(const RowGroupStats&)> filter_;
  std::vector<std::unique_ptr<ColumnChunkReader>> columns_;  ///< per projected leaf
  std::vector<std::vector<types::Value>> scratch_;           ///< list elements, per depth
  bool flat_ = false;  ///< every projected field a primitive without repetition
  int next_row_group_ = 0;
  int64_t rows_left_ = 0;  ///< in the current row group
  bool started_ = false;
  bool failed_ = false;
};

}  // namespace floe::format::parquet
