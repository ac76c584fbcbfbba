// The exactly-once output: fsync and length at each checkpoint, the file cut
// back to the checkpointed length on restore, a shorter file refused, the
// limit counted across restarts, a pipe refused on restore.

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "floe/iceberg/tests/scan_test_util.h"
#include "floe/source/jsonl_output.h"

namespace floe::source {
namespace {

class NullCollector final : public engine::Collector<engine::Nothing> {
 public:
  Status Emit(engine::Nothing) override { return Ok(); }
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RowChunk Chunk(std::string text, int64_t rows) { return RowChunk{std::move(text), rows}; }

TEST(JsonLinesOutput, CutBackToTheCheckpointOnRestore) {
  const std::string dir = iceberg::scantest::TempRoot("jsonl_output");
  const std::string path = dir + "/out.jsonl";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  NullCollector none;
  JsonLinesOutputOptions o;
  o.fd = fd;
  o.regular_file = true;
  o.truncate_on_fresh_start = true;

  std::string state;
  {
    JsonLinesOutput out(o);
    ASSERT_TRUE(out.Open({}, {}).has_value());
    ASSERT_TRUE(out.Process(Chunk("{\"a\":1}\n{\"a\":2}\n", 2), none).has_value());
    auto s = out.SnapshotState(1, none);
    ASSERT_TRUE(s.has_value());
    state = *s;
    EXPECT_EQ(state, R"({"bytes":16,"rows":2})");
    // Written after the checkpoint, then the process dies.
    ASSERT_TRUE(out.Process(Chunk("{\"a\":3}\n", 1), none).has_value());
  }
  EXPECT_EQ(ReadAll(path), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
  {
    engine::RestoredState restored;
    restored.own = state;
    restored.checkpoint_id = 1;
    JsonLinesOutput out(o);
    ASSERT_TRUE(out.Open({}, restored).has_value());
    EXPECT_EQ(ReadAll(path), "{\"a\":1}\n{\"a\":2}\n");
    ASSERT_TRUE(out.Process(Chunk("{\"a\":3}\n", 1), none).has_value());
    EXPECT_EQ(out.rows(), 3);
  }
  EXPECT_EQ(ReadAll(path), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");

  // A file shorter than the checkpoint says is not the file this read wrote.
  ASSERT_EQ(::ftruncate(fd, 4), 0);
  {
    engine::RestoredState restored;
    restored.own = state;
    JsonLinesOutput out(o);
    auto opened = out.Open({}, restored);
    ASSERT_FALSE(opened.has_value());
    EXPECT_EQ(opened.error().code(), ErrorCode::kInvalidArgument);
  }
  // A pipe cannot be cut back.
  {
    JsonLinesOutputOptions pipe = o;
    pipe.regular_file = false;
    engine::RestoredState restored;
    restored.own = state;
    JsonLinesOutput out(pipe);
    EXPECT_FALSE(out.Open({}, restored).has_value());
  }
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(JsonLinesOutput, LimitCountsAcrossRestarts) {
  const std::string dir = iceberg::scantest::TempRoot("jsonl_output_limit");
  const std::string path = dir + "/out.jsonl";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  NullCollector none;
  int stops = 0;
  JsonLinesOutputOptions o;
  o.fd = fd;
  o.regular_file = true;
  o.truncate_on_fresh_start = true;
  o.limit = 3;
  o.on_limit = [&stops] { ++stops; };
  JsonLinesOutput out(o);
  ASSERT_TRUE(out.Open({}, {}).has_value());
  ASSERT_TRUE(out.Process(Chunk("1\n2\n", 2), none).has_value());
  EXPECT_EQ(stops, 0);
  ASSERT_TRUE(out.Process(Chunk("3\n4\n", 2), none).has_value());
  ASSERT_TRUE(out.Process(Chunk("5\n", 1), none).has_value());
  EXPECT_EQ(stops, 1);
  EXPECT_EQ(ReadAll(path), "1\n2\n3\n");
  auto state = out.SnapshotState(1, none);
  ASSERT_TRUE(state.has_value());
  engine::RestoredState restored;
  restored.own = *state;
  JsonLinesOutput again(o);
  ASSERT_TRUE(again.Open({}, restored).has_value());
  EXPECT_EQ(stops, 2);  // already at the limit: stops at once
  ::close(fd);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace floe::source
