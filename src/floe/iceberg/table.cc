#include "floe/iceberg/table.h"

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/update/expire_snapshots.h"
#include "floe/iceberg/update/transaction.h"

namespace floe::iceberg {

Result<Table> Table::Load(Catalog& catalog, const TableIdentifier& id) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, catalog.LoadTable(id));
  return Table(&catalog, std::move(loaded));
}

std::string Table::name() const {
  std::string out;
  for (const auto& level : loaded_.id.ns) out += level + ".";
  return out + loaded_.id.name;
}

Status Table::Refresh() {
  FLOE_ASSIGN_OR_RETURN(loaded_, catalog_->LoadTable(loaded_.id));
  return Ok();
}

std::shared_ptr<const std::vector<ManifestFile>> Table::KnownManifests(
    const std::string& list_path) const {
  if (list_path.empty() || list_path != known_list_) return nullptr;
  return known_manifests_;
}

void Table::RememberManifests(std::string list_path, std::vector<ManifestFile> manifests) {
  known_list_ = std::move(list_path);
  known_manifests_ = std::make_shared<const std::vector<ManifestFile>>(std::move(manifests));
}

std::unique_ptr<FastAppend> Table::NewAppend() { return std::make_unique<FastAppend>(this); }
std::unique_ptr<OverwriteFiles> Table::NewOverwrite() {
  return std::make_unique<OverwriteFiles>(this);
}
std::unique_ptr<RowDelta> Table::NewRowDelta() { return std::make_unique<RowDelta>(this); }
std::unique_ptr<DeleteFiles> Table::NewDelete() { return std::make_unique<DeleteFiles>(this); }
std::unique_ptr<ReplaceFiles> Table::NewReplace() { return std::make_unique<ReplaceFiles>(this); }
std::unique_ptr<ExpireSnapshots> Table::NewExpireSnapshots() {
  return std::make_unique<ExpireSnapshots>(this);
}
std::unique_ptr<UpdateSchemaOperation> Table::NewUpdateSchema() {
  return std::make_unique<UpdateSchemaOperation>(this);
}
std::unique_ptr<UpdatePropertiesOperation> Table::NewUpdateProperties() {
  return std::make_unique<UpdatePropertiesOperation>(this);
}
std::unique_ptr<Transaction> Table::NewTransaction() { return std::make_unique<Transaction>(this); }

}  // namespace floe::iceberg
