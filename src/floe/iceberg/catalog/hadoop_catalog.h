#pragma once
/// The Hadoop (file-system) catalog: a warehouse folder where namespaces are
/// folders and a table is `<warehouse>/<ns...>/<table>/metadata/vN.metadata.json`
/// plus `version-hint.text` naming N — the layout of Iceberg's HadoopCatalog,
/// which PyIceberg's StaticTable and Iceberg Java read.
///
/// Commits: the new metadata is written to a temporary file and renamed to
/// v(N+1).metadata.json without replacing (an atomic create-if-absent on a
/// local or POSIX file system), so of two racing writers exactly one wins; the
/// loser gets kCommitConflict. `version-hint.text` is then replaced
/// atomically; a reader that finds it lagging probes forward. A hint that is
/// not a number falls back to the newest version file; one that names a
/// missing version is kCorruption naming the hint; without any version file
/// there is no table, whatever the hint says. Dropping removes the hint
/// first, then the version files oldest first. An empty version file (a
/// leftover of a writer that wrote in place and was interrupted) is ignored
/// and removed by the next create or commit. Namespace
/// properties are not stored (as in Iceberg's HadoopCatalog); renaming a
/// table is not supported (its files hold absolute paths).

#include "floe/iceberg/catalog.h"

namespace floe::iceberg {

class HadoopCatalog final : public Catalog {
 public:
  /// `warehouse` is a folder path or file:// URI (a relative path is taken
  /// from the current folder and stored absolute, so table metadata holds
  /// absolute locations); `file_io` must outlive this.
  HadoopCatalog(std::string name, std::string warehouse, io::FileIO* file_io);

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
  /// kNotSupported, as Iceberg's HadoopCatalog: a table here is its folder's
  /// version files, and another table's metadata names its own location
  /// (its manifests and data hold absolute paths there), so it cannot
  /// become a version of a folder of this warehouse without rewriting it.
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location,
                                    bool overwrite = false) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Status DropTable(const TableIdentifier& id, bool purge) override;
  std::string DefaultTableLocation(const TableIdentifier& id) override;

  /// `<table>/metadata/v<version>.metadata.json`.
  static std::string VersionLocation(const std::string& table_location, int64_t version);

 private:
  Result<std::string> NamespacePath(const Namespace& ns);
  /// NamespacePath, kNotFound when its folder does not exist.
  Result<std::string> ExistingNamespacePath(const Namespace& ns);
  Result<std::string> TablePath(const TableIdentifier& id);
  /// The current version of the table at `table_path` (0 if none).
  Result<int64_t> CurrentVersion(const std::string& table_path);
  Result<bool> IsTable(const std::string& path);
  /// Whether v<version>.metadata.json exists and is not empty.
  Result<bool> VersionIsComplete(const std::string& table_path, int64_t version);
  /// Deletes empty v<N>.metadata.json files (left by interrupted writes of
  /// older writers that wrote in place).
  Status RemoveIncompleteVersions(const std::string& table_path);

  std::string name_;
  std::string warehouse_;
  io::FileIO* io_;
};

}  // namespace floe::iceberg
