#pragma once
/// Transaction: several table operations committed as ONE atomic catalog
/// commit — e.g. a schema change and an append of files written with the new
/// schema, or an append and a property holding the committed source offset.
/// Operations apply in the order they were added, each on the metadata the
/// previous ones produced; on a lost race all are re-applied to the reloaded
/// table (CommitOperations). Either every change is in the table or none.
///
///   auto txn = table.NewTransaction();
///   txn->UpdateSchema().Change([](UpdateSchema& u) { u.AddColumn("x", Type::Long()); });
///   txn->NewAppend().AppendFile(file);
///   FLOE_RETURN_IF_ERROR(txn->Commit());
///
/// Operations are owned by the transaction; commit them only through it.

#include <memory>
#include <vector>

#include "floe/iceberg/data/delete_files.h"
#include "floe/iceberg/update/fast_append.h"
#include "floe/iceberg/update/overwrite_files.h"
#include "floe/iceberg/update/replace_files.h"
#include "floe/iceberg/update/row_delta.h"
#include "floe/iceberg/update/update_operations.h"

namespace floe::iceberg {

class Transaction {
 public:
  explicit Transaction(Table* table) : table_(table) {}

  FastAppend& NewAppend();
  OverwriteFiles& NewOverwrite();
  RowDelta& NewRowDelta();
  DeleteFiles& NewDelete();
  ReplaceFiles& NewReplace();
  UpdateSchemaOperation& UpdateSchema();
  UpdatePropertiesOperation& UpdateProperties();
  /// Adds any operation.
  template <typename Op>
  Op& Add(std::unique_ptr<Op> op) {
    Op& ref = *op;
    operations_.push_back(std::move(op));
    return ref;
  }

  /// Commits every operation in one catalog commit (see CommitOperations for
  /// retries and errors). A transaction commits once.
  Status Commit();

 private:
  Table* table_;
  std::vector<std::unique_ptr<TableOperation>> operations_;
  bool committed_ = false;
};

}  // namespace floe::iceberg
