// floe::testing::FaultyFileIO, the fault FileIO the durability tests rely on:
// it counts changes, fails the k-th, stays dead until restarted, and a power
// loss drops exactly what was not synced.
#include "floe/testing/fault_file_io.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "floe/testing/status_matchers.h"
#include "floe/testing/temp_dir.h"

namespace floe::io {
namespace {

using floe::testing::FaultStep;
using floe::testing::FaultyFileIO;

class FaultyFileIOTest : public ::testing::Test {
 protected:
  std::string Contents(const std::string& path) {
    auto all = local_.ReadAll(path);
    return all ? *all : std::string("<missing>");
  }

  floe::testing::TempDir dir_{"faulty_file_io"};
  LocalFileIO local_;
  FaultyFileIO io_;
};

TEST_F(FaultyFileIOTest, CountsEveryChangeAndNoRead) {
  FLOE_ASSERT_OK(io_.WriteAtomically(dir_ / "a", "x"));  // create, write, sync, close, rename
  EXPECT_EQ(io_.changes(), 5);
  FLOE_ASSERT_OK(io_.ReadAll(dir_ / "a"));
  FLOE_ASSERT_OK(io_.Exists(dir_ / "a"));
  FLOE_ASSERT_OK(io_.List(dir_.str()));
  EXPECT_EQ(io_.changes(), 5);
  FLOE_ASSERT_OK_AND_ASSIGN(auto log, io_.OpenAppend(dir_ / "log"));
  FLOE_ASSERT_OK(log->Append(std::string_view("1\n")));
  FLOE_ASSERT_OK(log->Truncate(0));
  FLOE_ASSERT_OK(log->Sync());
  FLOE_ASSERT_OK(io_.Delete(dir_ / "a"));
  EXPECT_EQ(io_.changes(), 10);
  EXPECT_EQ(io_.change_log().size(), 10u);
}

TEST_F(FaultyFileIOTest, TheKthChangeFailsAndTheProcessStaysDeadUntilRestarted) {
  io_.FailNthChange(2);
  FLOE_ASSERT_OK_AND_ASSIGN(auto file, io_.CreateOutput(dir_ / "f"));
  Status write = file->Write(std::string_view("data"));
  ASSERT_FALSE(write);
  EXPECT_NE(write.error().message().find("injected"), std::string::npos);
  EXPECT_EQ(io_.state().fired.load(), 1);
  EXPECT_FALSE(io_.Exists(dir_ / "f"));  // reads fail too: the process is dead
  EXPECT_FALSE(file->Close());
  io_.Restart();
  FLOE_ASSERT_OK_AND_ASSIGN(bool exists, io_.Exists(dir_ / "f"));
  EXPECT_TRUE(exists);
  EXPECT_EQ(Contents(dir_ / "f"), "");  // the failed write wrote nothing
}

TEST_F(FaultyFileIOTest, PowerLossDropsWhatWasNotSynced) {
  // An output file synced in part; one never synced.
  FLOE_ASSERT_OK_AND_ASSIGN(auto half, io_.CreateOutput(dir_ / "half"));
  FLOE_ASSERT_OK(half->Write(std::string_view("kept")));
  FLOE_ASSERT_OK(half->Sync());
  FLOE_ASSERT_OK(half->Write(std::string_view("lost")));
  FLOE_ASSERT_OK(half->Close());
  FLOE_ASSERT_OK_AND_ASSIGN(auto never, io_.CreateOutput(dir_ / "never"));
  FLOE_ASSERT_OK(never->Write(std::string_view("lost")));
  FLOE_ASSERT_OK(never->Close());
  // An append file: synced, then appended to and cut without a sync.
  FLOE_ASSERT_OK_AND_ASSIGN(auto log, io_.OpenAppend(dir_ / "log"));
  FLOE_ASSERT_OK(log->Append(std::string_view("one\n")));
  FLOE_ASSERT_OK(log->Sync());
  FLOE_ASSERT_OK(log->Truncate(0));
  FLOE_ASSERT_OK(log->Append(std::string_view("two\n")));

  EXPECT_EQ(io_.LoseUnsyncedWrites(), 3);
  EXPECT_EQ(Contents(dir_ / "half"), "kept");
  EXPECT_EQ(Contents(dir_ / "never"), "<missing>");
  EXPECT_EQ(Contents(dir_ / "log"), "one\n");
}

TEST_F(FaultyFileIOTest, ATornWriteLeavesHalfOfItsBytes) {
  FLOE_ASSERT_OK_AND_ASSIGN(auto log, io_.OpenAppend(dir_ / "log"));
  io_.Arm({.contains = "", .suffix = "log", .step = FaultStep::kTornWrite, .nth = 1});
  ASSERT_FALSE(log->Append(std::string_view("12345678")));
  io_.Restart();
  EXPECT_EQ(Contents(dir_ / "log"), "1234");
}

TEST_F(FaultyFileIOTest, RulesMatchPathsAndCountFromWhenArmed) {
  FLOE_ASSERT_OK(io_.WriteAtomically(dir_ / "a.json", "1"));
  io_.Arm({.contains = "", .suffix = ".json", .step = FaultStep::kAfterRename, .nth = 2});
  FLOE_ASSERT_OK(io_.WriteAtomically(dir_ / "b.json", "2"));
  FLOE_ASSERT_OK(io_.WriteAtomically(dir_ / "c.txt", "3"));  // does not match
  ASSERT_FALSE(io_.WriteAtomically(dir_ / "d.json", "4"));
  io_.Restart();
  EXPECT_EQ(Contents(dir_ / "d.json"), "4");  // renamed, then the crash
}

}  // namespace
}  // namespace floe::io
