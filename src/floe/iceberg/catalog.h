#pragma once
/// Catalogs: where Iceberg tables are found and where their commits are
/// decided. A commit is a compare-and-swap of the table's metadata location:
/// it succeeds only if the table still points at the metadata the change was
/// based on. See docs/catalogs.md.
///
/// Implementations: HadoopCatalog (a warehouse folder: `ns/table/metadata/
/// vN.metadata.json` + `version-hint.text`) and SqlCatalog (SQLite, the same
/// tables as Iceberg's JDBC catalog and PyIceberg's SqlCatalog). Thread-safe.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// A namespace: one or more levels, e.g. {"sales", "eu"}.
using Namespace = std::vector<std::string>;
using Properties = std::map<std::string, std::string>;

struct TableIdentifier {
  Namespace ns;
  std::string name;

  /// "ns1.ns2.table".
  std::string ToString() const;
  /// Parses "ns.table" (the last dot separates the table name). kInvalidArgument
  /// for a missing namespace or a name that fails ValidateName.
  static Result<TableIdentifier> Parse(std::string_view text);
  friend bool operator==(const TableIdentifier&, const TableIdentifier&) = default;
};

/// "a.b" for {"a", "b"}.
std::string NamespaceToString(const Namespace& ns);
Result<Namespace> ParseNamespace(std::string_view text);

/// Refuses names that could reach outside the warehouse or confuse a path:
/// empty, "." or "..", containing '/', '\', NUL or other control characters.
Status ValidateName(std::string_view name, std::string_view what);

/// A table as loaded: its current metadata and where it lives.
struct LoadedTable {
  TableIdentifier id;
  std::string metadata_location;
  TableMetadata metadata;
};

/// One table's part of a multi-table commit (Catalog::CommitTables): the
/// table as the change was based on, and its next metadata.
struct TableCommit {
  const LoadedTable* base = nullptr;
  TableMetadata updated;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  virtual const std::string& name() const = 0;
  virtual io::FileIO& file_io() = 0;

  /// Namespaces directly under `parent` (top-level ones for an empty parent).
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) = 0;
  /// kAlreadyExists if it exists.
  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties = {}) = 0;
  /// kNotFound if it does not exist.
  virtual Result<Properties> LoadNamespaceProperties(const Namespace& ns) = 0;
  virtual Status UpdateNamespaceProperties(const Namespace& ns,
                                           const std::vector<std::string>& removals,
                                           const Properties& updates) = 0;
  /// kNotFound if missing; kInvalidArgument if it still holds tables.
  virtual Status DropNamespace(const Namespace& ns) = 0;

  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  virtual Result<bool> TableExists(const TableIdentifier& id) = 0;

  /// Creates a table whose first metadata is `metadata` (its `location`, when
  /// empty, becomes DefaultTableLocation; a relative one is made absolute
  /// against the current folder). kAlreadyExists if the table exists or its
  /// location already holds another table's metadata (LocationInUse);
  /// kNotFound if the namespace does not. On failure the table does not exist
  /// and no metadata file is left behind.
  virtual Result<LoadedTable> CreateTable(const TableIdentifier& id, TableMetadata metadata) = 0;

  /// kNotFound if the table does not exist; kCorruption if its metadata is bad.
  virtual Result<LoadedTable> LoadTable(const TableIdentifier& id) = 0;

  /// Writes `updated` as the table's next metadata and swaps it in if the
  /// table still points at `base.metadata_location`. Errors:
  /// kCommitConflict — someone else committed first (nothing changed; reload,
  /// re-apply, retry); kCommitStateUnknown — the swap may or may not have
  /// happened (reload and look for the change before retrying). `updated`
  /// is taken by value: a caller done with it moves it in, and it becomes
  /// the result's metadata without a copy.
  virtual Result<LoadedTable> CommitTable(const LoadedTable& base, TableMetadata updated) = 0;

  /// Whether CommitTables commits several tables atomically. False here (a
  /// catalog commits one table at a time); the REST catalog when its server
  /// offers `POST /v1/{prefix}/transactions/commit` and the catalog's
  /// `multi-table-commit` setting is not `false` (docs/catalogs.md).
  virtual bool SupportsMultiTableCommit() const { return false; }

  /// Commits every table of `commits` in ONE atomic catalog commit: either
  /// every table gets its `updated` metadata or none does, and a reader
  /// loading the tables one after another never sees one without the others
  /// (as far as the server keeps that promise: docs/catalogs.md). The result
  /// holds the tables as committed, in the order of `commits`. Errors:
  /// kCommitConflict — a table changed since its base (nothing was
  /// committed; reload every table, re-apply, retry); kCommitStateUnknown —
  /// the commit may or may not have happened (reload every table and look
  /// for the change); kNotSupported when SupportsMultiTableCommit() is false
  /// (this default); the errors of CommitTable otherwise.
  virtual Result<std::vector<LoadedTable>> CommitTables(std::vector<TableCommit> commits) {
    return NotSupported("catalog '{}' cannot commit {} tables in one transaction", name(),
                        commits.size());
  }

  /// Registers an existing table: `id` is made to point at the metadata file
  /// `metadata_location` (written by another catalog or engine, or left by
  /// a drop without purge) as it is — nothing is copied or rewritten, and
  /// later commits continue from it. The result is the table as loaded.
  /// With `overwrite`, a table `id` that exists is made to point at the file
  /// instead (its former metadata files stay; Iceberg's
  /// `registerTable(..., overwrite)`, REST `overwrite: true`).
  /// Errors: kAlreadyExists if `id` exists (without `overwrite`); kNotFound if
  /// its namespace or the file does not; kCorruption if the file is not table
  /// metadata; kNotSupported for a catalog that cannot register tables (this
  /// default) or a server that cannot overwrite.
  virtual Result<LoadedTable> RegisterTable(const TableIdentifier& id,
                                            const std::string& metadata_location,
                                            bool overwrite = false) {
    (void)metadata_location;
    (void)overwrite;
    return NotSupported("catalog '{}' cannot register tables (registering {})", name(),
                        id.ToString());
  }

  /// kNotFound if `from` is missing, kAlreadyExists if `to` exists.
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;

  /// Removes the table from the catalog; with `purge` also deletes the files
  /// its metadata references inside its folders (PurgeTableFiles with default
  /// options; kIo listing what could not be deleted). To learn which files
  /// were skipped, use DropAndPurgeTable.
  virtual Status DropTable(const TableIdentifier& id, bool purge) = 0;

  /// Where a new table's files go when it does not say (an absolute path);
  /// empty when the catalog has no place for it.
  virtual std::string DefaultTableLocation(const TableIdentifier& id) = 0;
};

/// The name of the metadata file after `previous` (a metadata location or
/// empty for a new table), in the layout Java and PyIceberg use:
/// `<location>/metadata/<version:05d>-<uuid>.metadata.json`.
std::string NextMetadataLocation(const std::string& table_location,
                                 const std::string& previous_metadata_location);

/// Writes a metadata file that appears whole or not at all (temporary file,
/// fsync, rename without replacing): after a failure such as a full disk no
/// partial file is left under `location`. kAlreadyExists if it exists.
Status WriteNewMetadataFile(io::FileIO& io, const std::string& location,
                            const TableMetadata& metadata);

/// Whether folder `location` is in use by a table, judged from its files:
/// the first `metadata/*.metadata.json` that has snapshots or a metadata log
/// (or cannot be read), or nullopt. Empty files, hidden temporaries and a
/// first metadata file that never got a commit (what a create interrupted
/// before its catalog entry leaves behind) do not count. Catalogs refuse to
/// create a table at a location in use (kAlreadyExists) — and, by their own
/// records, at the location of one of their own tables — so that no two
/// tables share files.
Result<std::optional<std::string>> LocationInUse(io::FileIO& io, const std::string& location);

struct PurgeOptions {
  /// Also delete files the metadata names outside the table's folders
  /// (TableFolders in expire_snapshots.h). Off by default: such a name comes from hand-edited or
  /// hostile metadata, and deleting it could destroy another table's or an
  /// unrelated file (Iceberg's procedures ask for the same opt-in).
  bool delete_outside_location = false;
};

struct PurgeResult {
  int64_t deleted_files = 0;
  /// Files named by the metadata but outside the table's folders, left in place.
  std::vector<std::string> skipped_outside_location;
  /// Files or manifests that could not be read or deleted, with the reason.
  std::vector<std::string> errors;
};

/// Every file a table's metadata references, as Iceberg Java's dropTableData
/// finds them: the current and every logged metadata file, the manifest
/// lists, manifests, data and delete files of all snapshots (entries of every
/// status), and statistics and partition statistics files. Nothing else under
/// the table's location is touched: another table's files, or a stranger's,
/// stay. Data files go first and metadata files last. Best effort: a manifest
/// that cannot be read or a file that cannot be deleted is recorded in
/// `errors` and the rest continues. Folders left empty below the location
/// (and the location itself) are removed.
Result<PurgeResult> PurgeTableFiles(io::FileIO& io, const LoadedTable& table,
                                    const PurgeOptions& options = {});

/// Drops table `id` from `catalog` and then purges its files
/// (PurgeTableFiles with `options`). Errors: those of LoadTable and
/// DropTable; purge problems are in the result (the table is dropped then).
Result<PurgeResult> DropAndPurgeTable(Catalog& catalog, const TableIdentifier& id,
                                      const PurgeOptions& options = {});

}  // namespace floe::iceberg
