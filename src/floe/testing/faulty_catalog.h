#pragma once
/// FaultyCatalog: a Catalog that answers chosen commits with a plain failure,
/// a crash after applying, or kCommitStateUnknown with or without applying
/// the change; it shares a FaultState with a FaultyFileIO, so a crash of
/// either is a crash of both (docs/testing.md, "Fault tests").
///
/// Header only, so that floe::testing does not depend on floe::iceberg: a
/// test that includes it links floe::iceberg itself (its module does).

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/testing/fault_file_io.h"

namespace floe::testing {

/// How FaultyCatalog answers an armed commit.
enum class CommitFault {
  kFailBefore,         ///< kIo, nothing applied (a plain failed commit)
  kCrashAfter,         ///< applied, then the process dies
  kUnknownApplied,     ///< applied, answered kCommitStateUnknown
  kUnknownNotApplied,  ///< not applied, answered kCommitStateUnknown
  /// A multi-table commit (CommitTables) of which only the first table was
  /// applied, answered kCommitStateUnknown: a server that commits a
  /// transaction's tables one by one and failed in between. For a single
  /// table, as kUnknownApplied.
  kUnknownPartlyApplied,
};

class FaultyCatalog final : public iceberg::Catalog {
 public:
  /// Wraps `base`; once `state` is crashed (by this catalog or by the
  /// FaultyFileIO sharing it), every call fails.
  FaultyCatalog(std::shared_ptr<iceberg::Catalog> base, std::shared_ptr<FaultState> state)
      : base_(std::move(base)), state_(std::move(state)) {}

  /// The nth commit from now (and the `times - 1` after it) gets `fault`.
  void ArmCommit(CommitFault fault, int nth = 1, int times = 1) {
    std::lock_guard lock(mu_);
    fault_ = fault;
    nth_ = nth;
    times_ = times;
    seen_ = 0;
  }
  void Disarm() {
    std::lock_guard lock(mu_);
    fault_.reset();
  }
  int commits() const { return commits_.load(); }
  /// Multi-table commits applied, wholly or in part (each counts as one
  /// commit for ArmCommit).
  int transactions() const { return transactions_.load(); }
  /// CommitTables commits several tables (SupportsMultiTableCommit): every
  /// table must still be at its base (else kCommitConflict, nothing
  /// applied), then each is committed in turn, with the faults above.
  void EnableMultiTableCommit() { multi_table_ = true; }

  const std::string& name() const override { return base_->name(); }
  io::FileIO& file_io() override { return base_->file_io(); }
  Result<std::vector<iceberg::Namespace>> ListNamespaces(
      const iceberg::Namespace& parent = {}) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("list namespaces"));
    return base_->ListNamespaces(parent);
  }
  Status CreateNamespace(const iceberg::Namespace& ns,
                         const iceberg::Properties& properties = {}) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("create namespace"));
    return base_->CreateNamespace(ns, properties);
  }
  Result<iceberg::Properties> LoadNamespaceProperties(const iceberg::Namespace& ns) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("namespace properties"));
    return base_->LoadNamespaceProperties(ns);
  }
  Status UpdateNamespaceProperties(const iceberg::Namespace& ns,
                                   const std::vector<std::string>& removals,
                                   const iceberg::Properties& updates) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("namespace properties"));
    return base_->UpdateNamespaceProperties(ns, removals, updates);
  }
  Status DropNamespace(const iceberg::Namespace& ns) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("drop namespace"));
    return base_->DropNamespace(ns);
  }
  Result<std::vector<iceberg::TableIdentifier>> ListTables(const iceberg::Namespace& ns) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("list tables"));
    return base_->ListTables(ns);
  }
  Result<bool> TableExists(const iceberg::TableIdentifier& id) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(id.ToString()));
    return base_->TableExists(id);
  }
  Result<iceberg::LoadedTable> CreateTable(const iceberg::TableIdentifier& id,
                                           iceberg::TableMetadata metadata) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(id.ToString()));
    return base_->CreateTable(id, std::move(metadata));
  }
  Result<iceberg::LoadedTable> LoadTable(const iceberg::TableIdentifier& id) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(id.ToString()));
    return base_->LoadTable(id);
  }
  Result<iceberg::LoadedTable> CommitTable(const iceberg::LoadedTable& base,
                                           iceberg::TableMetadata updated) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(base.id.ToString()));
    return CommitWithFault(base, std::move(updated), NextFault());
  }
  bool SupportsMultiTableCommit() const override { return multi_table_; }
  Result<std::vector<iceberg::LoadedTable>> CommitTables(
      std::vector<iceberg::TableCommit> commits) override {
    if (!multi_table_) return iceberg::Catalog::CommitTables(std::move(commits));
    FLOE_RETURN_IF_ERROR(state_->CheckAlive("multi-table commit"));
    std::lock_guard transaction_lock(transaction_mu_);
    for (const auto& commit : commits) {
      FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable current, base_->LoadTable(commit.base->id));
      if (current.metadata_location != commit.base->metadata_location) {
        return CommitConflict("table {} was changed concurrently", commit.base->id.ToString());
      }
    }
    const std::optional<CommitFault> fault = NextFault();
    if (fault == CommitFault::kFailBefore || fault == CommitFault::kUnknownNotApplied) {
      auto failed = CommitWithFault(*commits.front().base, {}, fault);
      return std::unexpected(std::move(failed).error());
    }
    std::vector<iceberg::LoadedTable> out;
    for (size_t i = 0; i < commits.size(); ++i) {
      if (i > 0 && fault == CommitFault::kUnknownPartlyApplied) {
        ++state_->fired;
        return CommitStateUnknown("injected: multi-table commit timed out (applied to {} only)",
                                  commits.front().base->id.ToString());
      }
      // The last table carries the fault of the whole commit.
      const bool last = i + 1 == commits.size();
      if (i == 0) ++transactions_;
      FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable committed,
                            CommitWithFault(*commits[i].base, std::move(commits[i].updated),
                                            last ? fault : std::nullopt));
      out.push_back(std::move(committed));
    }
    return out;
  }
  Status RenameTable(const iceberg::TableIdentifier& from,
                     const iceberg::TableIdentifier& to) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(from.ToString()));
    return base_->RenameTable(from, to);
  }
  Status DropTable(const iceberg::TableIdentifier& id, bool purge) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(id.ToString()));
    return base_->DropTable(id, purge);
  }
  std::string DefaultTableLocation(const iceberg::TableIdentifier& id) override {
    return base_->DefaultTableLocation(id);
  }

 private:
  /// The fault armed for the next commit, if its turn has come.
  std::optional<CommitFault> NextFault() {
    std::lock_guard lock(mu_);
    if (!fault_ || ++seen_ < nth_) return std::nullopt;
    std::optional<CommitFault> fault = fault_;
    if (--times_ <= 0) fault_.reset();
    return fault;
  }

  Result<iceberg::LoadedTable> CommitWithFault(const iceberg::LoadedTable& base,
                                               iceberg::TableMetadata updated,
                                               std::optional<CommitFault> fault) {
    if (fault == CommitFault::kFailBefore) {
      ++state_->fired;
      return IoError("injected: commit of {} failed", base.id.ToString());
    }
    if (fault == CommitFault::kUnknownNotApplied) {
      ++state_->fired;
      return CommitStateUnknown("injected: commit of {} timed out (not applied)",
                                base.id.ToString());
    }
    auto committed = base_->CommitTable(base, std::move(updated));
    if (committed) ++commits_;
    if (committed && fault == CommitFault::kCrashAfter) {
      state_->crashed = true;
      ++state_->fired;
      return IoError("injected crash after committing {}", base.id.ToString());
    }
    if (committed &&
        (fault == CommitFault::kUnknownApplied || fault == CommitFault::kUnknownPartlyApplied)) {
      ++state_->fired;
      return CommitStateUnknown("injected: commit of {} timed out (applied)", base.id.ToString());
    }
    return committed;
  }

  std::shared_ptr<iceberg::Catalog> base_;
  std::shared_ptr<FaultState> state_;
  std::mutex mu_;
  std::optional<CommitFault> fault_;
  int nth_ = 1;
  int times_ = 1;
  int seen_ = 0;
  std::atomic<int> commits_{0};
  std::atomic<int> transactions_{0};
  std::atomic<bool> multi_table_{false};
  std::mutex transaction_mu_;
};

}  // namespace floe::testing
