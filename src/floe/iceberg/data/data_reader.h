#pragma once
/// DataReader: reads the rows of one FileScanTask (table_scan.h) as rows of
/// a requested (projected) table schema.
///
/// Columns are matched by field id, never by name or position (spec "Schema
/// Evolution", "Column Projection"):
///  - a top-level column the file does not have (added after it was written)
///    reads as its v3 `initial-default`, or null when it has none;
///  - a renamed or reordered column is found by its id;
///  - promoted types read up-cast: int -> long, float -> double, decimal(P,S)
///    -> decimal(P',S), date -> timestamp (v3), also inside structs, lists
///    and maps; struct fields added later read as null there too.
/// Rows deleted by the task's delete files (delete_filter.h) are dropped;
/// positions are counted from 0 at the start of the file, across row groups
/// (including row groups skipped by the filter). Rows that do not match the
/// scan's bound filter (RowEvaluator) are dropped too; row groups whose
/// statistics prove that no row matches are not read.
///
/// Not thread-safe: one reader per thread. Only Parquet data files.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "floe/common/arena.h"
#include "floe/common/result.h"
#include "floe/format/parquet/reader.h"
#include "floe/iceberg/data/delete_filter.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/expression/evaluator.h"
#include "floe/iceberg/expression/expression.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct DataReaderOptions {
  /// Rows decoded per Parquet batch. Default 1024.
  size_t batch_rows = 1024;
  /// Skip row groups whose statistics exclude the filter. Default true.
  bool row_group_filter = true;
  /// Read only the row groups that start (their first column chunk's first
  /// page) in [split_start, split_end): a part of the file, as Iceberg's
  /// split planning cuts files at their split offsets. Positions still count
  /// from the start of the file. Default: the whole file.
  int64_t split_start = 0;
  std::optional<int64_t> split_end;
  format::parquet::ReaderOptions parquet;
};

/// How a value of the file's type becomes a value of the read type (a
/// tree mirroring the read type). Built once per file.
struct ValueAdapter {
  enum class Kind : uint8_t {
    kCopy,
    kNull,
    kIntToLong,
    kFloatToDouble,
    kDateToTimestamp,
    kStruct,
    kList,
    kMap
  };
  Kind kind = Kind::kCopy;
  /// For a struct's children: the index of the source field in the file's
  /// struct; -1 with kNull.
  int source = -1;
  /// kStruct: one per read field; kList: the element; kMap: key, value.
  std::vector<ValueAdapter> children;
};

/// Builds the adapter from `file_type` to `read_type` (`column` names the
/// column for errors). Errors: kSchemaIncompatible (or kInvalidArgument)
/// when the file's type cannot be read as the read type (not a permitted
/// promotion, decimal scale or fixed length differ, kinds differ).
Result<ValueAdapter> MakeValueAdapter(const types::Type& file_type, const types::Type& read_type,
                                      std::string_view column);
/// Applies an adapter; new struct/list/map children are allocated in `arena`.
/// kCopy returns `value` itself (no allocation).
types::Value AdaptValue(const ValueAdapter& adapter, const types::Value& value, Arena* arena);

/// The value of `field`'s `initial-default` (spec Appendix D's JSON form;
/// binary and fixed as hexadecimal), with its bytes in `arena`; null when it
/// has none. Errors: kNotSupported for a nested column's (non-null) default,
/// kCorruption (naming the column) for a default that does not fit its type.
Result<types::Value> InitialDefaultValue(const types::NestedField& field, Arena* arena);

class DataReader {
 public:
  /// Opens the task's data file and loads its deletes. `table_schema` is the
  /// scan's schema (the filter is bound to it), `projected` the columns to
  /// return (fields of table_schema, by id). `bound_filter` may be nullptr.
  /// Errors: kNotSupported (a data file format other than Parquet), type
  /// errors of MakeValueAdapter naming the column and file, and the reading
  /// errors of the Parquet reader and DeleteFilter (kCorruption naming the
  /// file, kNotFound, kIo).
  static Result<std::unique_ptr<DataReader>> Open(io::FileIO& io, const FileScanTask& task,
                                                  const types::Schema& table_schema,
                                                  const types::Schema& projected,
                                                  const ExprPtr& bound_filter,
                                                  DataReaderOptions options = {});

  /// The schema of the rows returned.
  const types::Schema& schema() const { return projected_; }

  /// Appends the next surviving rows (schema().fields().size() values each)
  /// to `*out`; their strings and children live in `arena` (and the file
  /// reader's buffers) until the arena is reset. Returns the number of rows
  /// appended; 0 only at the end of the file.
  Result<size_t> ReadBatch(Arena* arena, std::vector<types::Value>* out);

  /// Counters so far.
  int64_t rows_read() const { return rows_read_; }
  int64_t rows_deleted() const { return rows_deleted_; }
  int64_t rows_filtered() const { return rows_filtered_; }

 private:
  DataReader() = default;

  struct Column {
    int source = -1;  ///< index in the file reader's rows; -1: `missing`
    ValueAdapter adapter;
    types::Value missing;  ///< a column the file lacks: its initial-default or null
  };
  struct Group {
    int64_t start = 0;
    int64_t rows = 0;
  };
  int64_t NextPosition();
  /// Open's steps, in order. MatchColumns projects the file reader onto the
  /// read fields present in the file and builds each column's adapter.
  Status MatchColumns(const std::vector<types::NestedField>& read_fields);
  /// Whether the projected file rows are the rows returned, column by column.
  bool ReadsFileColumnsAsTheyAre() const;
  /// Binds the row filter to the read schema; returns the row group filter
  /// when options_.row_group_filter asks for one.
  Result<std::optional<InclusiveMetricsEvaluator>> BindFilter(const ExprPtr& bound_filter,
                                                              const types::Schema& table_schema);
  /// Reads only the row groups in the split range that `metrics` (if any)
  /// cannot rule out, and records where each accepted group starts.
  void FilterRowGroups(std::optional<InclusiveMetricsEvaluator> metrics);

  std::string path_;
  std::unique_ptr<format::parquet::ParquetReader> reader_;
  types::Schema projected_;
  types::Schema read_schema_;    ///< projected fields, then filter and equality columns
  std::vector<Column> columns_;  ///< per read_schema_ field
  Arena defaults_arena_;         ///< the bytes of Column::missing values
  std::optional<RowEvaluator> filter_;
  std::unique_ptr<DeleteFilter> deletes_;
  size_t width_ = 0;  ///< values per file row
  /// The file's rows are the rows returned (no filter, no deletes, every
  /// column read as it is, in order): batches are passed on as decoded.
  bool pass_through_ = false;
  DataReaderOptions options_;
  std::vector<types::Value> file_values_;
  std::vector<types::Value> row_;
  std::vector<int64_t> group_starts_;
  std::shared_ptr<std::deque<Group>> groups_;  ///< row groups accepted, in order
  int64_t next_position_ = 0;                  ///< when every row group is read
  int64_t rows_read_ = 0, rows_deleted_ = 0, rows_filtered_ = 0;
};

/// Where a row group starts in its file: its first column chunk's first page
/// (the dictionary page if there is one), as Iceberg's readers place row
/// groups in split ranges.
int64_t RowGroupOffset(const format::parquet::RowGroup& row_group);

/// Rebinds a filter bound to `from` so that its positions index rows of `to`
/// (same field ids; top-level fields may be reordered or missing). Predicates
/// on fields missing from `to` are errors (kInvalidArgument).
Result<ExprPtr> RebindToSchema(const ExprPtr& bound, const types::Schema& from,
                               const types::Schema& to);

}  // namespace floe::iceberg
