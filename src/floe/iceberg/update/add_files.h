#pragma once
/// Adding existing Parquet files to a table without rewriting them, after
/// Iceberg's `add_files` procedure (Spark's `system.add_files`, PyIceberg's
/// `Table.add_files`): each file's footer is read, its schema checked against
/// the table's, and a data file entry built from its metrics; all the files
/// are committed in one append snapshot. The table then refers to each file
/// where it lies, under the path given: the file must stay there, and a later
/// expire or purge of the table may delete it. docs/iceberg-commits.md,
/// "Adding existing files".
///
///   FLOE_ASSIGN_OR_RETURN(Table table, Table::Load(catalog, id));
///   FLOE_ASSIGN_OR_RETURN(AddFilesResult added, AddFiles(table, {"/data/a.parquet"}));

#include <cstdint>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/data_file.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

class DataWriter;

/// Whether the file at `path` is at least 8 bytes long and starts with
/// Parquet's magic "PAR1" (false also when it cannot be opened).
bool LooksLikeParquet(io::FileIO& io, const std::string& path);

/// Where each top-level field of `table_schema` is in rows of a Parquet
/// file with `file_schema` (its position there, or -1 when the file lacks
/// it), matched by field id. Errors (kSchemaIncompatible, naming `path` and
/// the column): a file column whose id is not in the table, whose type
/// differs from the table's, or that is optional where the table's is
/// required; a required table column the file lacks.
Result<std::vector<int>> MapParquetColumns(const types::Schema& table_schema,
                                           const types::Schema& file_schema,
                                           const std::string& path);

/// The data file entry of the Parquet file at `path` in a table of `schema`
/// partitioned by `spec`: file_path `path`, record count and size, value and
/// null counts per leaf column, lower and upper bounds of the top-level
/// primitive columns (none of a column when a row group has values but no
/// statistics), and the partition values, each the transform of its source
/// column's bounds. Errors: those of opening and reading the footer
/// (kNotFound, kIo, kCorruption, kNotSupported), MapParquetColumns', and
/// kInvalidArgument when a partitioned file's rows span more than one
/// partition (the bounds of a source column transform to different values,
/// hold nulls and values, or are missing).
Result<DataFile> ParquetDataFile(io::FileIO& io, const std::string& path,
                                 const types::Schema& schema, const PartitionSpec& spec);

/// Writes the rows of the Parquet file at `path` through `writer` (whose
/// table has `schema`), adding them to `*rows`: the way to add a file whose
/// rows span partitions. Errors: those of reading the file,
/// MapParquetColumns', and the writer's, with the file and row named.
Status CopyParquetRows(io::FileIO& io, const std::string& path, const types::Schema& schema,
                       DataWriter& writer, int64_t* rows);

struct AddFilesOptions {
  /// Refuse files the table's current snapshot already has (Iceberg's
  /// `check_duplicate_files`, default true): adding one again would count
  /// its rows twice.
  bool check_duplicate_files = true;
};

struct AddFilesResult {
  SnapshotId snapshot_id = 0;  ///< the append snapshot
  int64_t added_files = 0;
  int64_t added_records = 0;
};

/// Adds the Parquet files at `paths` (read through the table's FileIO, and
/// recorded under these paths) to `table`'s default partition spec in one
/// append snapshot. Nothing is committed unless every file is accepted.
/// Errors: kInvalidArgument (no paths, a path given twice, a table without a
/// current schema, a file whose rows span partitions), kAlreadyExists (with
/// check_duplicate_files, a file the table already has), those of
/// ParquetDataFile, and those of FastAppend::Commit.
Result<AddFilesResult> AddFiles(Table& table, const std::vector<std::string>& paths,
                                const AddFilesOptions& options = {});

}  // namespace floe::iceberg
