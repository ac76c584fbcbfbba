#pragma once
/// The SQL catalog on SQLite: the tables of Iceberg's JDBC catalog and
/// PyIceberg's SqlCatalog, so one catalog file is shared with them:
///
///   iceberg_tables(catalog_name, table_namespace, table_name,
///                  metadata_location, previous_metadata_location, iceberg_type)
///   iceberg_namespace_properties(catalog_name, namespace, property_key,
///                                property_value)
///
/// A commit writes the new metadata file, then swaps the pointer with
/// `UPDATE ... SET metadata_location = new WHERE metadata_location = base`:
/// exactly one of two racing writers changes a row; the other gets
/// kCommitConflict. Commits of several tables made at the same time from
/// threads sharing one SqlCatalog are grouped: the first waiting commit swaps
/// every pointer queued behind it in one SQLite transaction (one journal
/// sync instead of one per table), each swap still checked on its own. Namespaces are dotted
/// strings ("a.b"); a namespace exists while it has a property row (PyIceberg writes "exists" =
/// "true") or a table. New tables go to `<warehouse>/<ns>.db/<table>` (PyIceberg's layout), or
/// `<namespace location>/<table>` when the namespace has a location; with neither, creating a table
/// is kInvalidArgument. Locations are stored as absolute paths. A table row without
/// metadata_location is kCorruption.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "floe/iceberg/catalog.h"
#include "floe/io/deferred_sync_file_io.h"

struct sqlite3;
struct sqlite3_stmt;

namespace floe::iceberg {

class SqlCatalog final : public Catalog {
 public:
  /// Opens (creating if needed) the SQLite database at `uri`
  /// ("sqlite:///relative/path.db", "sqlite:////absolute/path.db", or a path;
  /// a relative path is taken from the current folder — OpenCatalog resolves
  /// it against the config file's folder first). `warehouse` may be empty
  /// (then tables need a location); a relative one is made absolute. Errors
  /// print the uri with its credentials redacted. `file_io` must outlive the
  /// catalog.
  static Result<std::unique_ptr<SqlCatalog>> Open(std::string name, std::string_view uri,
                                                  std::string warehouse, io::FileIO* file_io);
  ~SqlCatalog() override;

  const std::string& name() const override { return name_; }
  io::FileIO& file_io() override { return *io_; }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent = {}) override;
  Status CreateNamespace(const Namespace& ns, const Properties& properties = {}) override;
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const std::vector<std::string>& removals,
                                   const Properties& updates) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<bool> TableExists(const TableIdentifier& id) override;
  Result<LoadedTable> CreateTable(const TableIdentifier& id, TableMetadata metadata) override;
  Result<LoadedTable> LoadTable(const TableIdentifier& id) override;
  Result<LoadedTable> CommitTable(const LoadedTable& base, TableMetadata updated) override;
  /// Inserts the table's row with `metadata_location` (a plain path made
  /// absolute, a URI as given) after reading the file, as Iceberg's JDBC
  /// catalog and PyIceberg's SqlCatalog do. kAlreadyExists too when a row of
  /// this catalog already points into the metadata's location (two tables
  /// would share files). With `overwrite`, an existing row of `id` is
  /// updated instead (its former location becomes
  /// `previous_metadata_location`); its own row does not count as sharing.
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location,
                                    bool overwrite = false) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Status DropTable(const TableIdentifier& id, bool purge) override;
  std::string DefaultTableLocation(const TableIdentifier& id) override;

 private:
  SqlCatalog(std::string name, std::string warehouse, io::FileIO* io, sqlite3* db);
  Result<bool> NamespaceExists(const std::string& ns);
  Result<std::string> MetadataLocationOf(const TableIdentifier& id);
  /// The metadata location of a row of this catalog under
  /// `<location>/metadata/` other than `except` (when not empty), or nullopt
  /// (called with mu_ held).
  Result<std::optional<std::string>> RowWithin(const std::string& location,
                                               const std::string& except = {});
  /// Points table `id`'s row at `metadata_location`, `previous` (NULL when
  /// empty) as its previous one (called with mu_ held).
  Status PointTableRow(const std::string& ns_key, const TableIdentifier& id,
                       const std::string& metadata_location, const std::string& previous);
  /// Inserts table `id`'s row; kAlreadyExists if it has one (called with mu_ held).
  Status InsertTableRow(const std::string& ns_key, const TableIdentifier& id,
                        const std::string& metadata_location);

  /// One table's pointer swap, queued for the next group transaction.
  struct PointerSwap {
    std::string_view ns_key, name, base_location, new_location;
    std::string_view temporary;  ///< the new metadata file, written but not yet named
    bool changed = false;        ///< the row pointed at base_location and was swapped
    bool done = false;
    Status own_status = Ok();  ///< naming this one's metadata file failed
    Status status = Ok();      ///< the outcome (failed: nothing swapped)
  };
  /// Queues `swap` and returns when a group transaction holding it ended.
  Status SwapPointer(PointerSwap& swap);
  /// The group commit's leader: makes every deferred file durable (one
  /// flush), names the metadata files and makes the names durable (one
  /// more), then swaps the pointers in one transaction (holds mu_ for it).
  Status SwapBatch(const std::vector<PointerSwap*>& batch);

  std::string name_;
  std::string warehouse_;
  /// Wraps the FileIO given to Open: files synced through the catalog's
  /// FileIO (manifest lists, manifests, metadata) are made durable together
  /// by the commit that needs them (file_io() hands out this wrapper).
  std::unique_ptr<io::DeferredSyncFileIO> deferred_;
  io::FileIO* io_;
  sqlite3* db_;
  bool has_iceberg_type_ = false;
  std::mutex mu_;                      // one connection, used by one thread at a time
  sqlite3_stmt* swap_stmt_ = nullptr;  // the pointer swap, prepared once (under mu_)
  std::mutex queue_mu_;                // guards queue_ and swapping_
  std::condition_variable queue_cv_;
  std::vector<PointerSwap*> queue_;
  bool swapping_ = false;  // a caller is running a group transaction
};

}  // namespace floe::iceberg
