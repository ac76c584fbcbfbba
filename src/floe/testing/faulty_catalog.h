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
    std::optional<CommitFault> fault;
    {
      std::lock_guard lock(mu_);
      if (fault_ && ++seen_ >= nth_) {
        fault = fault_;
        if (--times_ <= 0) fault_.reset();
      }
    }
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
    if (committed && fault == CommitFault::kUnknownApplied) {
      ++state_->fired;
      return CommitStateUnknown("injected: commit of {} timed out (applied)", base.id.ToString());
    }
    return committed;
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
  std::shared_ptr<iceberg::Catalog> base_;
  std::shared_ptr<FaultState> state_;
  std::mutex mu_;
  std::optional<CommitFault> fault_;
  int nth_ = 1;
  int times_ = 1;
  int seen_ = 0;
  std::atomic<int> commits_{0};
};

}  // namespace floe::testing
