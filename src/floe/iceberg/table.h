#pragma once
/// Table: a handle on one catalog table (its catalog and the metadata as last
/// loaded or committed), and the factory of the operations that change it:
///
///   FLOE_ASSIGN_OR_RETURN(Table table, Table::Load(catalog, id));
///   auto append = table.NewAppend();
///   append->AppendFile(file);
///   FLOE_RETURN_IF_ERROR(append->Commit());   // retried on conflicts
///
/// Operations keep a pointer to the Table: it must outlive them. A Table is
/// not thread-safe; two Tables on the same catalog table (even in two
/// processes) commit safely against each other (optimistic concurrency).

#include <memory>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

class FastAppend;
class OverwriteFiles;
class RowDelta;
class DeleteFiles;
class ReplaceFiles;
class ExpireSnapshots;
class UpdateSchemaOperation;
class UpdatePropertiesOperation;
class Transaction;
struct ManifestFile;

class Table {
 public:
  /// `catalog` must outlive the Table.
  Table(Catalog* catalog, LoadedTable loaded) : catalog_(catalog), loaded_(std::move(loaded)) {}

  /// Loads a table. Errors: those of Catalog::LoadTable.
  static Result<Table> Load(Catalog& catalog, const TableIdentifier& id);

  const TableIdentifier& id() const { return loaded_.id; }
  /// "ns.table", for messages.
  std::string name() const;
  const TableMetadata& metadata() const { return loaded_.metadata; }
  const std::string& metadata_location() const { return loaded_.metadata_location; }
  const LoadedTable& loaded() const { return loaded_; }
  Catalog& catalog() const { return *catalog_; }
  io::FileIO& io() const { return catalog_->file_io(); }

  /// Reloads the metadata from the catalog.
  Status Refresh();
  /// Replaces the metadata (after a commit).
  void SetLoaded(LoadedTable loaded) { loaded_ = std::move(loaded); }

  /// The manifests of the manifest list at `list_path` if this handle wrote
  /// that list (the last one it recorded), else nullptr: a commit after this
  /// handle's own commit carries the parent's manifests over without reading
  /// its list back. Manifest lists are never changed once written, so what
  /// is recorded stays true.
  std::shared_ptr<const std::vector<ManifestFile>> KnownManifests(
      const std::string& list_path) const;
  /// Records the manifests of the list written at `list_path`, exactly as
  /// ReadManifestList returns them.
  void RememberManifests(std::string list_path, std::vector<ManifestFile> manifests);

  std::unique_ptr<FastAppend> NewAppend();
  std::unique_ptr<OverwriteFiles> NewOverwrite();
  std::unique_ptr<RowDelta> NewRowDelta();
  std::unique_ptr<DeleteFiles> NewDelete();
  std::unique_ptr<ReplaceFiles> NewReplace();
  std::unique_ptr<ExpireSnapshots> NewExpireSnapshots();
  std::unique_ptr<UpdateSchemaOperation> NewUpdateSchema();
  std::unique_ptr<UpdatePropertiesOperation> NewUpdateProperties();
  std::unique_ptr<Transaction> NewTransaction();

 private:
  Catalog* catalog_;
  LoadedTable loaded_;
  std::string known_list_;
  std::shared_ptr<const std::vector<ManifestFile>> known_manifests_;
};

}  // namespace floe::iceberg
