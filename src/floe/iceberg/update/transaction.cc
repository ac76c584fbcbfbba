#include "floe/iceberg/update/transaction.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "floe/iceberg/table.h"

namespace floe::iceberg {

namespace {

std::vector<TableOperation*> OperationsOf(const std::vector<std::unique_ptr<TableOperation>>& all) {
  std::vector<TableOperation*> ops;
  ops.reserve(all.size());
  for (const auto& op : all) ops.push_back(op.get());
  return ops;
}

}  // namespace

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
  FLOE_RETURN_IF_ERROR(CommitOperations(*table_, OperationsOf(operations_)));
  committed_ = true;
  return Ok();
}

Status CommitTransactions(Catalog& catalog, std::span<Transaction* const> transactions) {
  if (transactions.empty()) return Ok();
  std::vector<std::vector<TableOperation*>> ops;
  std::string names;
  for (Transaction* txn : transactions) {
    if (txn->committed_) {
      return InvalidArgument("transaction on table {} already committed", txn->table_->name());
    }
    if (&txn->table_->catalog() != &catalog) {
      return InvalidArgument("table {} is not a table of catalog '{}'", txn->table_->name(),
                             catalog.name());
    }
    ops.push_back(OperationsOf(txn->operations_));
    names += names.empty() ? "" : ", ";
    names += txn->table_->name();
  }
  auto cleanup = [&](bool committed) {
    for (size_t i = 0; i < transactions.size(); ++i) {
      CleanupOperations(transactions[i]->table_->io(), ops[i], committed);
    }
  };
  auto done = [&] {
    cleanup(true);
    for (Transaction* txn : transactions) txn->committed_ = true;
    return Ok();
  };
  const std::string what = fmt::format("committing tables {} in one transaction", names);
  const CommitRetryOptions retry =
      CommitRetryOptions::FromProperties(transactions.front()->table_->metadata());
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    std::vector<TableCommit> commits;
    std::vector<size_t> changed;  ///< the index of each commit's transaction
    for (size_t i = 0; i < transactions.size(); ++i) {
      Table& table = *transactions[i]->table_;
      auto next = ApplyOperations(table, ops[i], attempt);
      if (!next) {
        cleanup(false);  // the other transactions' files too
        return std::unexpected(std::move(next).error().WithContext(what));
      }
      if (!*next) continue;
      commits.push_back(TableCommit{&table.loaded(), std::move(**next)});
      changed.push_back(i);
    }
    if (commits.empty()) return done();
    auto committed = catalog.CommitTables(std::move(commits));
    if (committed) {
      // A server may answer success for tables it did not change (Iceberg's
      // test server drops a table's changes when another writer commits to
      // it while it applies the transaction): each table must hold the
      // snapshots its transaction adds.
      std::string lacking;
      for (size_t k = 0; k < changed.size(); ++k) {
        const std::span<TableOperation* const> table_ops = ops[changed[k]];
        const bool adds = std::any_of(
            table_ops.begin(), table_ops.end(),
            [](const TableOperation* op) { return op->added_snapshot_id().has_value(); });
        if (adds && !HoldsAddedSnapshots((*committed)[k].metadata, table_ops)) {
          lacking += lacking.empty() ? "" : ", ";
          lacking += transactions[changed[k]]->table_->name();
        }
      }
      if (!lacking.empty()) {
        return CommitStateUnknown(
            "{}: the catalog answered that the transaction was committed, but table(s) {} do "
            "not hold its snapshot: it was applied in part",
            what, lacking);
      }
      for (size_t k = 0; k < changed.size(); ++k) {
        transactions[changed[k]]->table_->SetLoaded(std::move((*committed)[k]));
      }
      return done();
    }
    Error error = std::move(committed).error();
    if (error.code() == ErrorCode::kCommitConflict && WaitBeforeRetry(retry, attempt, start)) {
      spdlog::info("{}: retrying after a conflict ({})", what, error.message());
      size_t holding = 0;
      for (size_t i = 0; i < transactions.size(); ++i) {
        Table& table = *transactions[i]->table_;
        if (auto s = table.Refresh(); !s) {
          cleanup(false);
          return std::unexpected(std::move(s).error().WithContext(
              fmt::format("{}: reloading table {} after a conflict", what, table.name())));
        }
        if (HoldsAddedSnapshots(table.metadata(), ops[i])) ++holding;
      }
      if (holding == transactions.size()) {
        spdlog::info(
            "{}: the conflict was with this commit itself, delivered twice; it is in "
            "the tables",
            what);
        return done();
      }
      if (holding > 0) {
        return CommitStateUnknown(
            "{}: after a conflict {} of the {} tables hold this commit's snapshots: the server "
            "applied part of the transaction ({})",
            what, holding, transactions.size(), error.message());
      }
      continue;
    }
    if (error.code() != ErrorCode::kCommitStateUnknown) cleanup(false);
    if (error.code() == ErrorCode::kCommitConflict) {
      error.AddContext(fmt::format("gave up after {} attempts", attempt + 1));
    }
    return std::unexpected(std::move(error).WithContext(what));
  }
}

}  // namespace floe::iceberg
