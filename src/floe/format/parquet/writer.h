#pragma once
/// ParquetWriter: writes rows of an Iceberg schema as one Parquet file and
/// returns the file's Iceberg metrics (metrics.h).
///
/// Layout and types follow the Iceberg spec's "Parquet" section (see
/// schema_mapping.h); nested values are shredded into definition and
/// repetition levels per leaf column (the Dremel encoding). Pages and
/// encodings are described in column_writer.h. Column chunks are buffered in
/// memory until their row group is full, then written in order.
///
/// Call order: Open, any number of Append, then Close exactly once. A failed
/// Append leaves the writer unchanged (the row is checked before any of it is
/// written); a failed write to the file leaves the writer failed: every later
/// call returns the same error. Not thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/format/parquet/column_writer.h"
#include "floe/format/parquet/metadata.h"
#include "floe/format/parquet/metrics.h"
#include "floe/format/parquet/schema_mapping.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::format::parquet {

/// Writer settings; the defaults are Iceberg's table-property defaults.
struct WriterOptions {
  /// `write.parquet.compression-codec` (Iceberg default zstd).
  CompressionCodec codec = CompressionCodec::kZstd;
  /// `write.parquet.compression-level`; 0 uses the codec's default
  /// (ZSTD 1 and GZIP 6, as pyarrow; see compression.h).
  int compression_level = 0;
  /// `write.parquet.row-group-size-bytes`: a row group is closed once its
  /// buffered (mostly compressed) size reaches this. Default 128 MiB.
  size_t row_group_size_bytes = 128u << 20;
  /// `write.parquet.page-size-bytes`: a page is cut past this encoded size. Default 1 MiB.
  size_t page_size_bytes = 1u << 20;
  /// `write.parquet.page-row-limit`: ... or at this many rows. Default 20000.
  size_t page_row_limit = 20000;
  /// `write.parquet.dict-size-bytes`: a column chunk falls back from
  /// dictionary to PLAIN encoding past this dictionary size. Default 2 MiB.
  size_t dict_size_bytes = 2u << 20;
  /// Dictionary encoding on (all columns but booleans) or off (PLAIN only).
  bool dictionary_enabled = true;
  /// Data page version, 1 (default, what most readers expect) or 2.
  int data_page_version = 1;
  /// `write.metadata.metrics.default`, default truncate(16).
  MetricsConfig metrics;
  /// Footer `created_by`.
  std::string created_by = "floe version 0.1.0";
  /// Extra footer key-value metadata (after "iceberg.schema").
  std::vector<KeyValue> key_value_metadata;
  /// A file size the caller acts on (a target file size to roll at), 0 for
  /// none: estimated_size() is current after every row once the file comes
  /// near it, as near the row group's size.
  uint64_t file_size_watch = 0;
};

class ParquetWriter {
 public:
  /// Starts a file on `file` (which must be empty) for rows of `schema`.
  /// Errors: kInvalidArgument for bad options, kIo if the magic cannot be written.
  static Result<std::unique_ptr<ParquetWriter>> Open(std::unique_ptr<io::OutputFile> file,
                                                     const types::Schema& schema,
                                                     WriterOptions options = {});
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  /// Appends one row: the values of the schema's top-level fields in order.
  /// kInvalidArgument (nothing appended) if a value does not fit its field:
  /// "field 'a.b': required but null", "field 'id': expected long, got bytes",
  /// "field 'price': decimal(9, 2) value out of range". kIo if flushing a full
  /// row group fails.
  Status Append(types::Row row);

  /// The file size if it were closed now (written bytes plus buffered row
  /// group), for rolling files at a target size. Cheap enough to ask after
  /// every row: Append measures the row group after every row near the row
  /// group's size or `file_size_watch`, else at most
  /// kMaxRowsBetweenSizeChecks rows apart.
  uint64_t estimated_size() const { return position_ + buffered_estimate_; }
  /// Rows appended so far.
  int64_t num_rows() const { return num_rows_; }
  /// Memory of the row group not yet written to the file: its column chunks
  /// (compressed pages, plus the current pages and dictionaries unencoded,
  /// as measured at the end of the last row) and the dictionaries' hash
  /// tables (summed on each call). 0 when no row is buffered. All of it is
  /// what Flush frees.
  size_t buffered_bytes() const;
  /// Writes the buffered row group to the file now (no-op when it is empty),
  /// so that its memory is reused by the next one: for callers that keep
  /// many writers open under a memory budget. Errors: as Append (kIo), and
  /// kInvalidArgument after Close.
  Status Flush();

  /// Writes the last row group and the footer (with `iceberg.schema`), syncs
  /// and closes the file. Returns the file's metrics. kIo on write failure.
  Result<DataFileMetrics> Close();

 private:
  ParquetWriter(std::unique_ptr<io::OutputFile> file, const types::Schema& schema,
                WriterOptions options, ParquetSchema mapped);
  /// A top-level field of a schema whose top-level fields are all
  /// primitive (flat rows, the common case): Append checks and writes its
  /// value without walking the schema tree.
  struct FlatField {
    ColumnWriter* column = nullptr;
    const ShredNode* node = nullptr;
    types::TypeId type = types::TypeId::kLong;
    types::Value::Kind kind = types::Value::Kind::kNull;  ///< what a present value must be
    bool optional = false;
    int16_t definition_level = 0;
    types::int128_t decimal_limit = 0;  ///< decimals: 10^precision
    uint32_t length = 0;                ///< uuid and fixed: the byte count
  };
  /// Whether `value` fits `field` (else Validate says why not).
  static bool Fits(const FlatField& field, const types::Value& value);
  void AppendFlat(const FlatField& field, const types::Value& value);
  Status Validate(const ShredNode& node, const types::Value& value) const;
  void Shred(const ShredNode& node, const types::Value& value, int16_t parent_def, int16_t rep);
  void ShredNulls(const ShredNode& node, int16_t def, int16_t rep);
  Status FlushRowGroup();
  Status Write(std::span<const uint8_t> bytes);
  DataFileMetrics BuildMetrics() const;

  std::unique_ptr<io::OutputFile> file_;
  types::Schema schema_;
  WriterOptions options_;
  ParquetSchema mapped_;
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<FlatField> flat_;  ///< one per top-level field, or empty (not all primitive)
  std::vector<ColumnStatistics> file_stats_;  // per leaf, merged over row groups
  std::vector<int64_t> column_sizes_, value_counts_;
  std::vector<RowGroup> row_groups_;
  int64_t num_rows_ = 0;
  int64_t row_group_rows_ = 0;
  /// The row group's size is summed again after this many rows (Append).
  int64_t next_size_check_ = 0;
  static constexpr size_t kMaxRowsBetweenSizeChecks = 64;
  uint64_t position_ = 0;
  /// buffered_bytes() without the dictionaries' tables, as last summed: at
  /// most kMaxRowsBetweenSizeChecks rows behind.
  size_t buffered_estimate_ = 0;
  std::optional<Error> failed_;
  bool closed_ = false;
};

}  // namespace floe::format::parquet
