#pragma once
// Fault injection for the sink's exactly-once tests (header only: every
// tests/*_test.cc becomes part of one binary).
//
//  - FaultyFileIO wraps a FileIO. A rule fails the nth matching step: before
//    a file is created, after it was written and closed (synced or not), or
//    after a rename into place. A fired rule "crashes" the process: every
//    later call of the FileIO and of the FaultyCatalog sharing its state
//    fails, as if the process had died at that instruction. Writes that were
//    never synced are tracked; LoseUnsyncedWrites() drops them the way a
//    power loss would (truncates to the last Sync, deletes never-synced files).
//  - FaultyCatalog wraps a Catalog and answers chosen commits with a plain
//    failure, a crash after applying, or kCommitStateUnknown with or without
//    applying the change.

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "floe/common/result.h"
#include "floe/iceberg/catalog.h"
#include "floe/io/file_io.h"

namespace floe::sink::testing {

/// Shared by a FaultyFileIO and the FaultyCatalogs on top of it.
struct FaultState {
  std::atomic<bool> crashed{false};
  std::atomic<int> fired{0};
  Status CheckAlive(std::string_view what) const {
    if (crashed.load()) return IoError("injected crash: the process is dead ({})", what);
    return Ok();
  }
};

/// Where a FaultyFileIO rule fires.
enum class FaultStep {
  kBeforeCreate,  ///< the nth matching CreateOutput fails; nothing is written
  kAfterClose,    ///< the nth matching file is written and closed, then the crash
  kAfterRename,   ///< the nth rename whose target matches happens, then the crash
};

struct FaultRule {
  /// A path matches when it contains `contains` and ends with `suffix`.
  std::string contains;
  std::string suffix;
  FaultStep step = FaultStep::kBeforeCreate;
  int nth = 1;
  bool Matches(std::string_view path) const {
    return path.find(contains) != std::string_view::npos && path.ends_with(suffix);
  }
};

class FaultyFileIO final : public io::FileIO {
 public:
  explicit FaultyFileIO(std::shared_ptr<FaultState> state = std::make_shared<FaultState>())
      : state_(std::move(state)) {}

  FaultState& state() { return *state_; }
  std::shared_ptr<FaultState> shared_state() { return state_; }

  /// Arms one rule (replacing any armed one); counting starts now.
  void Arm(FaultRule rule) {
    std::lock_guard lock(mu_);
    rule_ = std::move(rule);
    seen_ = 0;
  }
  void Disarm() {
    std::lock_guard lock(mu_);
    rule_.reset();
  }
  /// The process "restarts": the crash is over and no rule is armed.
  void Restart() {
    Disarm();
    state_->crashed = false;
  }
  /// Drops every write not followed by a Sync (files never synced vanish).
  /// Returns the number of files touched.
  int LoseUnsyncedWrites() {
    std::lock_guard lock(mu_);
    int touched = 0;
    for (const auto& [path, synced] : unsynced_) {
      std::error_code ec;
      if (synced < 0) {
        std::filesystem::remove(std::string(io::LocalPath(path)), ec);
      } else {
        std::filesystem::resize_file(std::string(io::LocalPath(path)),
                                     static_cast<uintmax_t>(synced), ec);
      }
      ++touched;
    }
    unsynced_.clear();
    return touched;
  }

  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view path) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
    return base_.OpenInput(path);
  }
  Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view path,
                                                       bool overwrite = false) override;
  Status Delete(std::string_view path) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
    {
      std::lock_guard lock(mu_);
      unsynced_.erase(std::string(path));
    }
    return base_.Delete(path);
  }
  Result<bool> Exists(std::string_view path) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
    return base_.Exists(path);
  }
  Status Rename(std::string_view from, std::string_view to, bool replace) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(to));
    FLOE_RETURN_IF_ERROR(base_.Rename(from, to, replace));
    bool fire = false;
    {
      std::lock_guard lock(mu_);
      auto it = unsynced_.find(std::string(from));
      if (it != unsynced_.end()) {
        unsynced_[std::string(to)] = it->second;
        unsynced_.erase(it);
      }
      fire = Count(FaultStep::kAfterRename, to);
    }
    if (fire) return Crash(fmt::format("after renaming to {}", to));
    return Ok();
  }
  Result<std::vector<io::FileInfo>> List(std::string_view dir) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(dir));
    return base_.List(dir);
  }
  Status DeleteDirectory(std::string_view dir) override {
    FLOE_RETURN_IF_ERROR(state_->CheckAlive(dir));
    return base_.DeleteDirectory(dir);
  }

  // Called by the output files.
  void Synced(const std::string& path, int64_t length) {
    std::lock_guard lock(mu_);
    auto it = unsynced_.find(path);
    if (it != unsynced_.end()) it->second = length;
  }
  void Wrote(const std::string& path, int64_t synced_length) {
    std::lock_guard lock(mu_);
    auto it = unsynced_.find(path);
    if (it == unsynced_.end()) {
      unsynced_[path] = synced_length;
    }
  }
  void FullySynced(const std::string& path) {
    std::lock_guard lock(mu_);
    unsynced_.erase(path);
  }
  bool CountClose(const std::string& path) {
    std::lock_guard lock(mu_);
    return Count(FaultStep::kAfterClose, path);
  }
  std::unexpected<Error> Crash(std::string what) {
    state_->crashed = true;
    ++state_->fired;
    return IoError("injected fault {}", what);
  }

 private:
  /// With mu_ held: whether this event fires the armed rule.
  bool Count(FaultStep step, std::string_view path) {
    if (!rule_ || rule_->step != step || !rule_->Matches(path)) return false;
    if (++seen_ != rule_->nth) return false;
    rule_.reset();
    return true;
  }

  std::shared_ptr<FaultState> state_;
  io::LocalFileIO base_;
  std::mutex mu_;
  std::optional<FaultRule> rule_;
  int seen_ = 0;
  /// Files with writes not yet synced: path -> length at the last Sync
  /// (-1: never synced).
  std::map<std::string, int64_t> unsynced_;
};

class FaultyOutputFile final : public io::OutputFile {
 public:
  FaultyOutputFile(FaultyFileIO* io, std::unique_ptr<io::OutputFile> base)
      : io_(io), base_(std::move(base)) {}
  const std::string& path() const override { return base_->path(); }
  Status Write(std::span<const uint8_t> bytes) override {
    FLOE_RETURN_IF_ERROR(io_->state().CheckAlive(path()));
    FLOE_RETURN_IF_ERROR(base_->Write(bytes));
    io_->Wrote(path(), synced_);
    return Ok();
  }
  uint64_t position() const override { return base_->position(); }
  Status Sync() override {
    FLOE_RETURN_IF_ERROR(io_->state().CheckAlive(path()));
    FLOE_RETURN_IF_ERROR(base_->Sync());
    synced_ = static_cast<int64_t>(base_->position());
    io_->Synced(path(), synced_);
    return Ok();
  }
  Status Close() override {
    if (closed_) return Ok();
    FLOE_RETURN_IF_ERROR(io_->state().CheckAlive(path()));
    closed_ = true;
    FLOE_RETURN_IF_ERROR(base_->Close());
    if (synced_ == static_cast<int64_t>(base_->position())) io_->FullySynced(path());
    if (io_->CountClose(path())) return io_->Crash(fmt::format("after writing {}", path()));
    return Ok();
  }

 private:
  FaultyFileIO* io_;
  std::unique_ptr<io::OutputFile> base_;
  int64_t synced_ = -1;
  bool closed_ = false;
};

inline Result<std::unique_ptr<io::OutputFile>> FaultyFileIO::CreateOutput(std::string_view path,
                                                                          bool overwrite) {
  FLOE_RETURN_IF_ERROR(state_->CheckAlive(path));
  {
    std::lock_guard lock(mu_);
    if (Count(FaultStep::kBeforeCreate, path)) {
      return Crash(fmt::format("before creating {}", path));
    }
  }
  FLOE_ASSIGN_OR_RETURN(auto file, base_.CreateOutput(path, overwrite));
  {
    std::lock_guard lock(mu_);
    unsynced_[std::string(path)] = -1;  // the new directory entry is not durable yet
  }
  return std::unique_ptr<io::OutputFile>(std::make_unique<FaultyOutputFile>(this, std::move(file)));
}

/// How FaultyCatalog answers an armed commit.
enum class CommitFault {
  kFailBefore,         ///< kIo, nothing applied (a plain failed commit)
  kCrashAfter,         ///< applied, then the process dies
  kUnknownApplied,     ///< applied, answered kCommitStateUnknown
  kUnknownNotApplied,  ///< not applied, answered kCommitStateUnknown
};

class FaultyCatalog final : public iceberg::Catalog {
 public:
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

}  // namespace floe::sink::testing
