#include "floe/iceberg/update/update_operations.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

UpdateSchemaOperation& UpdateSchemaOperation::Change(std::function<void(UpdateSchema&)> change) {
  changes_.push_back(std::move(change));
  return *this;
}

Status UpdateSchemaOperation::Commit() { return CommitOperation(*table_, *this); }

Result<std::vector<TableUpdate>> UpdateSchemaOperation::Apply(const TableMetadata& base,
                                                              OperationContext& ctx) {
  if (base.CurrentSchema() == nullptr) return InvalidArgument("table has no current schema");
  UpdateSchema u = UpdateSchema::ForTable(base);
  for (const auto& change : changes_) change(u);
  FLOE_ASSIGN_OR_RETURN(UpdateSchema::Result result, u.Apply());
  if (result.schema.Equals(*base.CurrentSchema())) return std::vector<TableUpdate>{};
  std::vector<TableUpdate> updates;
  updates.push_back(update::AddSchema{std::move(result.schema), result.last_column_id});
  updates.push_back(update::SetCurrentSchema{-1});
  return updates;
}

UpdatePropertiesOperation& UpdatePropertiesOperation::Set(std::string key, std::string value) {
  removals_.erase(key);
  updates_[std::move(key)] = std::move(value);
  return *this;
}

UpdatePropertiesOperation& UpdatePropertiesOperation::Remove(std::string key) {
  updates_.erase(key);
  removals_.insert(std::move(key));
  return *this;
}

Status UpdatePropertiesOperation::Commit() { return CommitOperation(*table_, *this); }

Result<std::vector<TableUpdate>> UpdatePropertiesOperation::Apply(const TableMetadata& base,
                                                                  OperationContext& ctx) {
  std::vector<TableUpdate> updates;
  if (!updates_.empty()) updates.push_back(update::SetProperties{updates_});
  std::vector<std::string> removals;
  for (const auto& k : removals_) {
    if (base.properties.contains(k)) removals.push_back(k);
  }
  if (!removals.empty()) updates.push_back(update::RemoveProperties{std::move(removals)});
  return updates;
}

}  // namespace floe::iceberg
