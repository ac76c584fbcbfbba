#pragma once
/// Metadata-only table operations: schema evolution (schema_update.h's
/// UpdateSchema, replayed on the then current schema at every attempt) and
/// property changes. Both commit alone or inside a Transaction.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/update/schema_update.h"
#include "floe/iceberg/update/snapshot_producer.h"

namespace floe::iceberg {

class UpdateSchemaOperation final : public TableOperation {
 public:
  explicit UpdateSchemaOperation(Table* table) : table_(table) {}

  /// Records a change, e.g. `[](UpdateSchema& u) { u.AddColumn("x", Type::Long()); }`.
  /// Changes run in order on a fresh UpdateSchema for the base of each attempt.
  UpdateSchemaOperation& Change(std::function<void(UpdateSchema&)> change);

  /// Commits alone. Errors: UpdateSchema's (kSchemaIncompatible naming the
  /// rule, kInvalidArgument for unknown columns) and the commit's.
  Status Commit();

  std::string_view name() const override { return "update-schema"; }
  Result<std::vector<TableUpdate>> Apply(const TableMetadata& base, OperationContext& ctx) override;

 private:
  Table* table_;
  std::vector<std::function<void(UpdateSchema&)>> changes_;
};

class UpdatePropertiesOperation final : public TableOperation {
 public:
  explicit UpdatePropertiesOperation(Table* table) : table_(table) {}

  UpdatePropertiesOperation& Set(std::string key, std::string value);
  UpdatePropertiesOperation& Remove(std::string key);

  Status Commit();

  std::string_view name() const override { return "update-properties"; }
  Result<std::vector<TableUpdate>> Apply(const TableMetadata& base, OperationContext& ctx) override;

 private:
  Table* table_;
  std::map<std::string, std::string> updates_;
  std::set<std::string> removals_;
};

}  // namespace floe::iceberg
