#include "floe/iceberg/update/transaction.h"

#include "floe/iceberg/table.h"

namespace floe::iceberg {

FastAppend& Transaction::NewAppend() { return Add(std::make_unique<FastAppend>(table_)); }
OverwriteFiles& Transaction::NewOverwrite() {
  return Add(std::make_unique<OverwriteFiles>(table_));
}
RowDelta& Transaction::NewRowDelta() { return Add(std::make_unique<RowDelta>(table_)); }
DeleteFiles& Transaction::NewDelete() { return Add(std::make_unique<DeleteFiles>(table_)); }
ReplaceFiles& Transaction::NewReplace() { return Add(std::make_unique<ReplaceFiles>(table_)); }
UpdateSchemaOperation& Transaction::UpdateSchema() {
  return Add(std::make_unique<UpdateSchemaOperation>(table_));
}
UpdatePropertiesOperation& Transaction::UpdateProperties() {
  return Add(std::make_unique<UpdatePropertiesOperation>(table_));
}

Status Transaction::Commit() {
  if (committed_)
    return InvalidArgument("transaction on table {} already committed", table_->name());
  std::vector<TableOperation*> ops;
  for (auto& op : operations_) ops.push_back(op.get());
  FLOE_RETURN_IF_ERROR(CommitOperations(*table_, ops));
  committed_ = true;
  return Ok();
}

}  // namespace floe::iceberg
