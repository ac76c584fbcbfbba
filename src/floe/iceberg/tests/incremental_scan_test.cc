// IncrementalAppendScan: files appended in (from, to], refusing or skipping
// overwrites and deletes.

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/iceberg/data/incremental_scan.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

types::Schema Schema() {
  return types::Schema({{1, "id", true, Type::Long(), ""}, {2, "s", false, Type::String(), ""}}, 0);
}

std::vector<std::string> Paths(const std::vector<FileScanTask>& tasks) {
  std::vector<std::string> out;
  for (const auto& t : tasks) out.push_back(t.data_file.file_path);
  return out;
}

class IncrementalScanTest : public ::testing::Test {
 protected:
  IncrementalScanTest() : t_("incremental", Schema()) {}

  void SetUp() override {
    f1_ = t_.WriteData({{Value::Int64(1), Str("a")}});
    s1_ = t_.Commit("append", {{f1_}});
    f2_ = t_.WriteData({{Value::Int64(2), Str("b")}});
    s2_ = t_.Commit("append", {{f2_}});
    f3_ = t_.WriteData({{Value::Int64(30), Str("c")}});
    s3_ = t_.Commit("append", {{f3_}});
  }

  Result<std::vector<FileScanTask>> Plan(IncrementalScanOptions o) {
    FLOE_ASSIGN_OR_RETURN(auto scan, IncrementalAppendScan::Make(t_.io(), t_.metadata(), o));
    return scan.PlanFiles();
  }

  TestTable t_;
  DataFile f1_, f2_, f3_;
  SnapshotId s1_ = 0, s2_ = 0, s3_ = 0;
};

TEST_F(IncrementalScanTest, ExclusiveStartInclusiveEnd) {
  IncrementalScanOptions o;
  o.from_snapshot_id = s1_;
  o.to_snapshot_id = s3_;
  auto tasks = Plan(o);
  ASSERT_TRUE(tasks.has_value()) << tasks.error().ToString();
  EXPECT_EQ(Paths(*tasks), (std::vector<std::string>{f2_.file_path, f3_.file_path}));

  o.to_snapshot_id = s2_;
  EXPECT_EQ(Paths(*Plan(o)), std::vector<std::string>{f2_.file_path});
  o.from_snapshot_id = s2_;
  EXPECT_TRUE(Plan(o)->empty());

  IncrementalScanOptions all;  // from the start to the current snapshot
  EXPECT_EQ(Paths(*Plan(all)),
            (std::vector<std::string>{f1_.file_path, f2_.file_path, f3_.file_path}));

  IncrementalScanOptions filtered;
  filtered.filter = *ParseFilter("id > 10");
  EXPECT_EQ(Paths(*Plan(filtered)), std::vector<std::string>{f3_.file_path});
}

TEST_F(IncrementalScanTest, StartMustBeAnAncestor) {
  IncrementalScanOptions o;
  o.from_snapshot_id = s3_;
  o.to_snapshot_id = s1_;
  auto r = Plan(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  o.from_snapshot_id = 12345;
  r = Plan(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
}

TEST_F(IncrementalScanTest, OverwritesAndDeletesAreRefusedOrSkipped) {
  DataFile f4 = t_.WriteData({{Value::Int64(4), Str("d")}});
  SnapshotId s4 = t_.Commit("overwrite", {{f4}}, {f1_.file_path});
  DataFile pos = t_.WritePositionDeletes({{f2_.file_path, 0}});
  SnapshotId s5 = t_.Commit("delete", {{pos}});
  DataFile f6 = t_.WriteData({{Value::Int64(6), Str("f")}});
  SnapshotId s6 = t_.Commit("append", {{f6}});
  DataFile f7 = t_.WriteData({{Value::Int64(7), Str("g")}});
  t_.Commit("replace", {{f7}}, {f6.file_path});

  IncrementalScanOptions o;
  o.from_snapshot_id = s3_;
  auto r = Plan(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotSupported);
  EXPECT_NE(r.error().message().find(std::to_string(s4)), std::string::npos) << r.error().message();

  o.skip_overwrite_snapshots = true;
  r = Plan(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(std::to_string(s5)), std::string::npos);

  o.skip_delete_snapshots = true;
  r = Plan(o);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  // The append s6 only; the replace s7 adds no new rows.
  EXPECT_EQ(Paths(*r), std::vector<std::string>{f6.file_path});
  auto scan = IncrementalAppendScan::Make(t_.io(), t_.metadata(), o);
  EXPECT_EQ(scan->append_snapshots(), std::vector<SnapshotId>{s6});
}

}  // namespace
}  // namespace floe::iceberg
