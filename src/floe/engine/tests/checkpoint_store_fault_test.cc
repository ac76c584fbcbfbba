// CheckpointStore under a crash at every step of a Save: the FileIO fails its
// k-th change (for every k of one clean Save), the writes that were not synced
// are lost as in a power loss, and a store reopened over the same folder
// finds the last complete checkpoint, whole, never a torn one; a retried Save
// then succeeds. In the style of sink/tests/fault_injection_test.cc, on the
// fault FileIO of floe::testing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "floe/engine/checkpoint_store.h"
#include "floe/testing/fault_file_io.h"
#include "floe/testing/status_matchers.h"
#include "floe/testing/temp_dir.h"

namespace floe::engine {
namespace {

using floe::testing::FaultStep;
using floe::testing::FaultyFileIO;

constexpr int kRetain = 2;

CompletedCheckpoint Checkpoint(CheckpointId id) {
  CompletedCheckpoint c;
  c.id = id;
  c.timestamp_ms = 1700000000000 + id;
  // Large enough that a torn write cuts a state in the middle.
  c.states["source/0"] = std::string(4096, static_cast<char>('a' + id % 26));
  c.states["sink/0"] = "offset " + std::to_string(id * 100);
  return c;
}

class CheckpointStoreFaultTest : public ::testing::Test {
 protected:
  std::string dir() const { return temp_ / "checkpoints"; }

  /// A folder holding checkpoints 1..3, saved without faults.
  void Prepare() {
    std::filesystem::remove_all(dir());
    CheckpointStore store(&local_, dir(), kRetain);
    for (CheckpointId id = 1; id <= 3; ++id) FLOE_ASSERT_OK(store.Save(Checkpoint(id)));
  }

  /// What a store reopened after the crash finds: the checkpoint `expect_at_least`
  /// or a newer one, equal to what was saved under its id.
  CheckpointId ExpectWholeCheckpoint(CheckpointId expect_at_least) {
    CheckpointStore reopened(&local_, dir(), kRetain);
    std::string warning;
    auto latest = reopened.LoadLatest(&warning);
    EXPECT_TRUE(latest) << latest.error().ToString();
    if (!latest || !*latest) {
      ADD_FAILURE() << "no checkpoint after the crash";
      return 0;
    }
    const CompletedCheckpoint& found = **latest;
    EXPECT_GE(found.id, expect_at_least);
    CompletedCheckpoint saved = Checkpoint(found.id);
    EXPECT_EQ(found.timestamp_ms, saved.timestamp_ms);
    EXPECT_EQ(found.states, saved.states);
    EXPECT_EQ(warning, "") << "a torn checkpoint file is visible";
    return found.id;
  }

  /// Saves checkpoint 4 (a retry) and checks it is what a fresh store loads.
  void ExpectRetrySucceeds() {
    CheckpointStore store(&local_, dir(), kRetain);
    FLOE_ASSERT_OK(store.Save(Checkpoint(4)));
    CheckpointStore reopened(&local_, dir(), kRetain);
    FLOE_ASSERT_OK_AND_ASSIGN(auto latest, reopened.LoadLatest());
    ASSERT_TRUE(latest.has_value());
    EXPECT_EQ(latest->id, 4);
    EXPECT_EQ(latest->states, Checkpoint(4).states);
  }

  /// The number of FileIO changes of one clean Save of checkpoint 4.
  int CountSteps() {
    Prepare();
    FaultyFileIO counting;
    CheckpointStore store(&counting, dir(), kRetain);
    EXPECT_TRUE(store.Save(Checkpoint(4)));
    return counting.changes();
  }

  floe::testing::TempDir temp_{"checkpoint_store_fault"};
  io::LocalFileIO local_;
};

TEST_F(CheckpointStoreFaultTest, CleanSaveHasTheStepsOfTheRenameProtocol) {
  const int steps = CountSteps();
  // create, write, sync, close, rename, and the delete of checkpoint 2
  // (checkpoint 3 and 4 are the two retained).
  EXPECT_GE(steps, 6);
  EXPECT_EQ(ExpectWholeCheckpoint(4), 4);
}

TEST_F(CheckpointStoreFaultTest, CrashAtEveryStepRecoversTheLastCompleteCheckpoint) {
  const int steps = CountSteps();
  ASSERT_GT(steps, 0);
  int found_old = 0;
  int found_new = 0;
  for (int k = 1; k <= steps; ++k) {
    Prepare();
    FaultyFileIO faulty;
    faulty.FailNthChange(k);
    CheckpointStore store(&faulty, dir(), kRetain);
    Status saved = store.Save(Checkpoint(4));
    std::vector<std::string> log = faulty.change_log();
    SCOPED_TRACE("crash at change " + std::to_string(k) + ": " + log.back());
    ASSERT_FALSE(saved) << "the armed fault did not fire";
    EXPECT_EQ(faulty.state().fired.load(), 1);
    faulty.Restart();
    faulty.LoseUnsyncedWrites();

    CheckpointId found = ExpectWholeCheckpoint(3);
    (found == 4 ? found_new : found_old)++;
    ExpectRetrySucceeds();
  }
  // Crashes before the rename find checkpoint 3, after it checkpoint 4.
  EXPECT_GT(found_old, 0);
  EXPECT_GT(found_new, 0);
}

TEST_F(CheckpointStoreFaultTest, TornWriteNeverBecomesACheckpoint) {
  Prepare();
  FaultyFileIO faulty;
  faulty.Arm({.contains = "", .suffix = "", .step = FaultStep::kTornWrite, .nth = 1});
  CheckpointStore store(&faulty, dir(), kRetain);
  ASSERT_FALSE(store.Save(Checkpoint(4)));
  faulty.Restart();
  // No power loss: the half-written temporary stays on disk.
  EXPECT_EQ(ExpectWholeCheckpoint(3), 3);
  ExpectRetrySucceeds();
}

TEST_F(CheckpointStoreFaultTest, ASavedCheckpointSurvivesPowerLoss) {
  Prepare();
  FaultyFileIO faulty;
  CheckpointStore store(&faulty, dir(), kRetain);
  FLOE_ASSERT_OK(store.Save(Checkpoint(4)));
  faulty.LoseUnsyncedWrites();
  EXPECT_EQ(ExpectWholeCheckpoint(4), 4);
}

TEST_F(CheckpointStoreFaultTest, FailureAfterTheRenameStillRecoversTheNewCheckpoint) {
  // The rename of checkpoint 4 into place happens, then the process dies
  // before the old checkpoints are deleted: 4 is complete and is loaded.
  Prepare();
  FaultyFileIO faulty;
  faulty.Arm({.contains = "", .suffix = ".json", .step = FaultStep::kAfterRename, .nth = 1});
  CheckpointStore store(&faulty, dir(), kRetain);
  ASSERT_FALSE(store.Save(Checkpoint(4)));
  faulty.Restart();
  faulty.LoseUnsyncedWrites();
  EXPECT_EQ(ExpectWholeCheckpoint(4), 4);
  // Checkpoint 2 was not deleted yet; the next Save trims it.
  ExpectRetrySucceeds();
  auto entries = local_.List(dir());
  ASSERT_TRUE(entries);
  int checkpoints = 0;
  for (const auto& e : *entries) {
    if (e.path.ends_with(".json")) ++checkpoints;
  }
  EXPECT_EQ(checkpoints, kRetain);
}

TEST_F(CheckpointStoreFaultTest, ATornFileUnderACheckpointNameIsSkippedWithAWarning) {
  // Not something Save leaves (it renames whole files into place), but a
  // copy or a disk that lies: the newest whole checkpoint is used.
  Prepare();
  std::string torn = CheckpointStore::Serialize(Checkpoint(5));
  torn.resize(torn.size() / 2);
  FLOE_ASSERT_OK(local_.WriteAtomically(dir() + "/checkpoint-00000000000000000005.json", torn));
  CheckpointStore reopened(&local_, dir(), kRetain);
  std::string warning;
  FLOE_ASSERT_OK_AND_ASSIGN(auto latest, reopened.LoadLatest(&warning));
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->id, 3);
  EXPECT_NE(warning.find("checkpoint-00000000000000000005.json"), std::string::npos) << warning;
}

}  // namespace
}  // namespace floe::engine
