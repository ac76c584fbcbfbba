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
#include <span>
#include <vector>

#include "floe/iceberg/catalog.h"
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

  Table& table() const { return *table_; }

 private:
  friend Status CommitTransactions(Catalog& catalog, std::span<Transaction* const> transactions);

  Table* table_;
  std::vector<std::unique_ptr<TableOperation>> operations_;
  bool committed_ = false;
};

/// Commits the transactions of several tables of `catalog` (each on its own
/// table, every table loaded from `catalog`) as ONE atomic catalog commit
/// (Catalog::CommitTables): every table gets its changes or none does. The
/// loop of CommitOperations, over all the tables at once: each attempt
/// applies every transaction to its table's loaded metadata; on
/// kCommitConflict every table is reloaded and all are applied again, per
/// the `commit.retry.*` properties of the first table. A conflict after
/// which every table holds the snapshots its transaction adds is a success
/// (the commit was delivered twice); one after which only some do (a server
/// that applied the tables one by one and failed in between) is
/// kCommitStateUnknown, and so is a success after which a table lacks the
/// snapshot its transaction adds (a server that dropped a table's changes).
/// On success each Table holds its new metadata.
/// Transactions that change nothing are left out; none left: Ok. Errors:
/// kCommitConflict (retries used up, or a validation failed),
/// kCommitStateUnknown (reload every table and look for the change; files
/// are then kept), kNotSupported when the catalog cannot commit several
/// tables at once, and those of the operations. Each transaction commits
/// once.
Status CommitTransactions(Catalog& catalog, std::span<Transaction* const> transactions);

}  // namespace floe::iceberg
