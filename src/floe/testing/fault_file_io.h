#pragma once
/// FaultyFileIO: a LocalFileIO that fails on purpose, for the durability
/// tests of every module (docs/testing.md, "Fault tests").
///
/// A rule fails the nth matching step. Steps:
///  - kCall: any call that changes files (CreateOutput, OpenAppend, Delete,
///    Rename, DeleteDirectory, and Write, Sync, Close, Append, Truncate of
///    the files they open) fails before it does anything;
///  - kBeforeCreate: a CreateOutput fails before the file exists;
///  - kAfterClose: a file is written and closed (synced or not), then fails;
///  - kAfterRename: a rename into place happens, then fails;
///  - kTornWrite: a Write or Append writes the first half of its bytes, then
///    fails (a crash in the middle of a write whose pages reached the disk).
/// A fired rule "crashes" the process: every later call of the FileIO, of the
/// files it opened and of a FaultyCatalog sharing its FaultState fails, as if
/// the process had died at that instruction. Restart() ends the crash.
///
/// Writes that were never synced are tracked; LoseUnsyncedWrites() drops
/// them the way a power loss would: output files are cut to their last Sync
/// (never-synced ones vanish), append files go back to their contents at
/// their last Sync (or at open).
///
/// Enumerating the steps of an operation: run it once cleanly and read
/// changes(); then, for every k up to that count, arm {kCall, nth = k} on a
/// fresh copy of the starting state, run it again, Restart(), and check what
/// a reopened reader finds (see engine/tests/checkpoint_store_fault_test.cc).
///
/// Thread-safe, as LocalFileIO is.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/common/result.h"
#include "floe/io/file_io.h"

namespace floe::testing {

/// Shared by a FaultyFileIO and the FaultyCatalogs on top of it.
struct FaultState {
  std::atomic<bool> crashed{false};
  std::atomic<int> fired{0};
  /// kIo "injected crash" naming `what` once crashed; else Ok.
  Status CheckAlive(std::string_view what) const;
};

/// Where a FaultyFileIO rule fires.
enum class FaultStep {
  kCall,          ///< the nth matching call that changes files fails before it acts
  kBeforeCreate,  ///< the nth matching CreateOutput fails; nothing is written
  kAfterClose,    ///< the nth matching file is written and closed, then the crash
  kAfterRename,   ///< the nth rename whose target matches happens, then the crash
  kTornWrite,     ///< the nth matching Write or Append writes half its bytes, then the crash
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
  explicit FaultyFileIO(std::shared_ptr<FaultState> state = std::make_shared<FaultState>());

  FaultState& state() { return *state_; }
  std::shared_ptr<FaultState> shared_state() { return state_; }

  /// Arms one rule (replacing any armed one); counting starts now.
  void Arm(FaultRule rule);
  /// Arms {kCall, nth = n} for every path: the nth change from now fails.
  void FailNthChange(int n) {
    Arm(FaultRule{.contains = "", .suffix = "", .step = FaultStep::kCall, .nth = n});
  }
  void Disarm();
  /// The process "restarts": the crash is over and no rule is armed.
  void Restart();
  /// Calls that changed files (or tried to) since this FileIO was made or
  /// ResetChanges() was called, whether a rule was armed or not; the failed
  /// call of a kCall rule counts.
  int changes() const { return changes_.load(); }
  void ResetChanges() { changes_ = 0; }
  /// Descriptions of the counted calls, in order ("rename <from> -> <to>"),
  /// for messages of tests that enumerate them.
  std::vector<std::string> change_log() const;
  /// Drops every write not followed by a Sync (see above). Returns the
  /// number of files touched.
  int LoseUnsyncedWrites();

  Result<std::unique_ptr<io::InputFile>> OpenInput(std::string_view path) override;
  Result<std::unique_ptr<io::OutputFile>> CreateOutput(std::string_view path,
                                                       bool overwrite = false) override;
  Result<std::unique_ptr<io::AppendFile>> OpenAppend(std::string_view path) override;
  Status Delete(std::string_view path) override;
  Result<bool> Exists(std::string_view path) override;
  Status Rename(std::string_view from, std::string_view to, bool replace) override;
  Result<std::vector<io::FileInfo>> List(std::string_view dir) override;
  Status DeleteDirectory(std::string_view dir) override;

  // Called by the files this FileIO opened.
  /// Counts a change to `path` described by `what`; fails if the process is
  /// dead or the armed kCall rule fires.
  Status Change(std::string_view what, std::string_view path);
  void Synced(const std::string& path, int64_t length);
  void Wrote(const std::string& path, int64_t synced_length);
  void FullySynced(const std::string& path);
  bool CountClose(const std::string& path);
  bool CountTornWrite(const std::string& path);
  void AppendSynced(const std::string& path);
  std::unexpected<Error> Crash(std::string what);

 private:
  /// With mu_ held: whether this event fires the armed rule.
  bool Count(FaultStep step, std::string_view path);

  std::shared_ptr<FaultState> state_;
  io::LocalFileIO base_;
  mutable std::mutex mu_;
  std::optional<FaultRule> rule_;
  int seen_ = 0;
  std::atomic<int> changes_{0};
  std::vector<std::string> change_log_;
  /// Output files with writes not yet synced: path -> length at the last
  /// Sync (-1: never synced).
  std::map<std::string, int64_t> unsynced_;
  /// Append files opened: path -> contents at their last Sync (or at open).
  std::map<std::string, std::string> append_durable_;
};

}  // namespace floe::testing
