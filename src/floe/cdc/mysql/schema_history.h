#pragma once
/// The schema history: an append-only file that records, for each binlog
/// position where a table's schema changed, the table's full schema after the
/// change. A capture restarted from an older position rebuilds the schemas
/// valid at that position (`LoadAsOf`) and decodes rows with them.
///
/// File format (docs/mysql-ddl.md): JSON Lines, one record per changed table:
///   {"pos": <SourcePosition JSON>, "db": "app", "table": "t",
///    "schema": <TableSchema JSON> | null, "ddl": "ALTER TABLE ..."}
/// `schema: null` means the table stopped existing at that position (dropped,
/// or renamed away). Records are appended in binlog order. Each `Append` call
/// writes its records and syncs before returning, so a record that was
/// acknowledged survives a crash. A torn last line (a crash mid-write) is
/// ignored when reading and cut off when the file is reopened for appending.
///
/// The file is read and appended through a FileIO (FileIO::OpenAppend), so
/// it must be on a FileIO that can append (a local path).
///
/// Not thread-safe; one writer per file.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/mysql/table_schema.h"
#include "floe/cdc/position.h"
#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::cdc::mysql {

/// One line of the history.
struct SchemaHistoryRecord {
  SourcePosition position;
  std::string db;
  std::string table;
  /// nullopt: the table does not exist after this position.
  std::optional<TableSchema> schema;
  /// The statement that caused it ("" for snapshots of schemas read from
  /// information_schema).
  std::string ddl;
};

class SchemaHistory {
 public:
  /// Opens (creating if missing) the history file at `path` of `file_io`
  /// for appending; cuts off a torn last line (and syncs the cut). `file_io`
  /// must outlive the history. Errors: kIo naming the path; kCorruption if a
  /// complete line does not parse (naming path and line number);
  /// kNotSupported if `file_io` cannot append to `path`.
  static Result<SchemaHistory> Open(io::FileIO& file_io, std::string path);

  SchemaHistory(SchemaHistory&& other) noexcept = default;
  SchemaHistory& operator=(SchemaHistory&& other) noexcept = default;
  SchemaHistory(const SchemaHistory&) = delete;
  SchemaHistory& operator=(const SchemaHistory&) = delete;
  ~SchemaHistory() = default;

  /// Appends the records (in order) and syncs. kIo on a failed write or
  /// sync; the file is then cut back to its length before the call. If even
  /// that fails, the file may end in a torn line (readers skip it, Open cuts
  /// it off) and every later Append fails until the history is reopened.
  Status Append(const std::vector<SchemaHistoryRecord>& records);

  /// Every record in the file, in order.
  Result<std::vector<SchemaHistoryRecord>> ReadAll() const;

  /// The schemas of every table that exists as of `position`: the last record
  /// per table among the records at or before `position` (by
  /// `ComparePositions`; records it cannot order against `position` are an
  /// error, kInvalidArgument). Tables whose last record is a null schema are
  /// absent.
  Result<std::vector<TableSchema>> LoadAsOf(const SourcePosition& position) const;

  const std::string& path() const { return path_; }

 private:
  SchemaHistory(io::FileIO& file_io, std::string path, std::unique_ptr<io::AppendFile> file)
      : file_io_(&file_io), path_(std::move(path)), file_(std::move(file)) {}
  io::FileIO* file_io_;
  std::string path_;
  std::unique_ptr<io::AppendFile> file_;
  /// A failed Append could not cut its torn line off.
  bool torn_ = false;
};

/// Reads the records of a history file without opening it for writing.
/// Errors as `SchemaHistory::Open`; a missing file is kNotFound.
Result<std::vector<SchemaHistoryRecord>> ReadSchemaHistory(io::FileIO& file_io,
                                                           const std::string& path);

}  // namespace floe::cdc::mysql
