// TableScan planning: snapshot selection, pruning by partition summaries,
// partition values and column metrics, removed files, and reading rows back.

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/iceberg/data/table_scan.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::RowValues;
using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

types::Schema RegionSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "region", false, Type::String(), ""},
                        {3, "amount", false, Type::Int(), ""}},
                       0);
}

PartitionSpec RegionSpec() {
  return PartitionSpec(0, {PartitionField{2, 1000, "region", Transform::Identity()}});
}

std::vector<std::string> Paths(const std::vector<FileScanTask>& tasks) {
  std::vector<std::string> out;
  for (const auto& t : tasks) out.push_back(t.data_file.file_path);
  std::sort(out.begin(), out.end());
  return out;
}

TableScanOptions Where(const char* text) {
  TableScanOptions o;
  o.filter = *ParseFilter(text);
  return o;
}

class ScanPlanTest : public ::testing::Test {
 protected:
  ScanPlanTest() : t_("plan", RegionSchema(), RegionSpec()) {}

  void SetUp() override {
    eu_ = t_.WriteData({{Value::Int64(1), Str("eu"), Value::Int32(10)},
                        {Value::Int64(2), Str("eu"), Value::Int32(20)}},
                       {Literal::String("eu")});
    s1_ = t_.Commit("append", {{eu_}});
    us_ = t_.WriteData({{Value::Int64(100), Str("us"), Value::Int32(5)},
                        {Value::Int64(150), Str("us"), Value::Null()}},
                       {Literal::String("us")});
    s2_ = t_.Commit("append", {{us_}});
  }

  TestTable t_;
  DataFile eu_, us_;
  SnapshotId s1_ = 0, s2_ = 0;
};

TEST_F(ScanPlanTest, PlansEveryLiveFileOfTheCurrentSnapshot) {
  auto scan = TableScan::Make(t_.io(), t_.metadata(), {});
  ASSERT_TRUE(scan.has_value()) << scan.error().ToString();
  EXPECT_EQ(scan->snapshot()->snapshot_id, s2_);
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value()) << tasks.error().ToString();
  EXPECT_EQ(Paths(*tasks), (std::vector<std::string>{eu_.file_path, us_.file_path}));
  for (const auto& task : *tasks) {
    EXPECT_TRUE(task.deletes.empty());
    EXPECT_EQ(task.spec_id, 0);
    EXPECT_EQ(task.data_sequence_number, task.data_file.file_path == eu_.file_path ? 1 : 2);
  }
}

TEST_F(ScanPlanTest, SelectsSnapshotsByIdTimeAndRef) {
  TableScanOptions by_id;
  by_id.snapshot_id = s1_;
  auto tasks = TableScan::Make(t_.io(), t_.metadata(), by_id)->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{eu_.file_path});

  const int64_t t1 = t_.metadata().SnapshotById(s1_)->timestamp_ms;
  TableScanOptions by_time;
  by_time.as_of_timestamp_ms = t1 + 1;  // between the two commits
  auto scan = TableScan::Make(t_.io(), t_.metadata(), by_time);
  ASSERT_TRUE(scan.has_value());
  EXPECT_EQ(scan->snapshot()->snapshot_id, s1_);
  by_time.as_of_timestamp_ms = t1 - 1;  // before the first commit
  auto none = TableScan::Make(t_.io(), t_.metadata(), by_time);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code(), ErrorCode::kNotFound);

  t_.metadata().refs["v1"] = SnapshotRef::Tag(s1_);
  TableScanOptions by_ref;
  by_ref.ref = "v1";
  scan = TableScan::Make(t_.io(), t_.metadata(), by_ref);
  ASSERT_TRUE(scan.has_value());
  EXPECT_EQ(scan->snapshot()->snapshot_id, s1_);
  by_ref.ref = "nope";
  EXPECT_EQ(TableScan::Make(t_.io(), t_.metadata(), by_ref).error().code(), ErrorCode::kNotFound);

  TableScanOptions unknown;
  unknown.snapshot_id = 42;
  EXPECT_EQ(TableScan::Make(t_.io(), t_.metadata(), unknown).error().code(), ErrorCode::kNotFound);
  TableScanOptions two;
  two.snapshot_id = s1_;
  two.ref = "main";
  EXPECT_EQ(TableScan::Make(t_.io(), t_.metadata(), two).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST_F(ScanPlanTest, PrunesByPartitionAndMetrics) {
  auto tasks = TableScan::Make(t_.io(), t_.metadata(), Where("region = 'us'"))->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{us_.file_path});

  // id bounds: eu [1, 2], us [100, 150].
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("id > 50"))->PlanFiles();
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{us_.file_path});
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("id IN (2, 3)"))->PlanFiles();
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{eu_.file_path});
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("amount IS NULL"))->PlanFiles();
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{us_.file_path});
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("id = 7 OR region = 'eu'"))->PlanFiles();
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{eu_.file_path});
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("NOT (region = 'eu')"))->PlanFiles();
  EXPECT_EQ(Paths(*tasks), std::vector<std::string>{us_.file_path});
  tasks = TableScan::Make(t_.io(), t_.metadata(), Where("id < 0"))->PlanFiles();
  EXPECT_TRUE(tasks->empty());
}

TEST_F(ScanPlanTest, ManifestSummariesPruneWholeManifests) {
  // Each commit wrote one manifest with one partition; a manifest whose
  // region summary is ["eu", "eu"] cannot hold 'us'.
  auto scan = TableScan::Make(t_.io(), t_.metadata(), Where("region = 'zz'"));
  ASSERT_TRUE(scan.has_value());
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  EXPECT_TRUE(tasks->empty());
  // The projected filter evaluates false on both manifests' summaries.
  auto manifests = SnapshotManifests(t_.io(), *scan->snapshot(), 2);
  ASSERT_TRUE(manifests.has_value());
  auto filter = ScanFilter::Make(scan->bound_filter(), scan->schema(), t_.metadata());
  ASSERT_TRUE(filter.has_value());
  for (const auto& m : *manifests) EXPECT_FALSE(filter->ManifestMayMatch(m));
}

TEST_F(ScanPlanTest, RemovedFilesAreNotPlannedButOldSnapshotsStillSeeThem) {
  DataFile eu2 =
      t_.WriteData({{Value::Int64(3), Str("eu"), Value::Int32(30)}}, {Literal::String("eu")});
  SnapshotId s3 = t_.Commit("overwrite", {{eu2}}, {eu_.file_path});
  auto tasks = TableScan::Make(t_.io(), t_.metadata(), {})->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  std::vector<std::string> want{eu2.file_path, us_.file_path};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Paths(*tasks), want);
  TableScanOptions old;
  old.snapshot_id = s2_;
  tasks = TableScan::Make(t_.io(), t_.metadata(), old)->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  EXPECT_EQ(tasks->size(), 2u);
  EXPECT_NE(s3, s2_);
}

TEST_F(ScanPlanTest, ReadsRowsWithFilterAndProjection) {
  TableScanOptions o = Where("amount >= 10 OR amount IS NULL");
  o.columns = {"amount", "id"};
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), o);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  std::sort(rows->begin(), rows->end());
  EXPECT_EQ(*rows, (std::vector<std::string>{R"({"amount":10,"id":1})", R"({"amount":20,"id":2})",
                                             R"({"amount":null,"id":150})"}));
}

TEST_F(ScanPlanTest, ManyThreadsPlanTheSameFiles) {
  for (int i = 0; i < 6; ++i) {
    DataFile f = t_.WriteData({{Value::Int64(1000 + i), Str("ap"), Value::Int32(i)}},
                              {Literal::String("ap")});
    t_.Commit("append", {{f}});
  }
  TableScanOptions one;
  one.planning_threads = 1;
  TableScanOptions many;
  many.planning_threads = 4;
  auto a = TableScan::Make(t_.io(), t_.metadata(), one)->PlanFiles();
  auto b = TableScan::Make(t_.io(), t_.metadata(), many)->PlanFiles();
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->size(), 8u);
  EXPECT_EQ(Paths(*a), Paths(*b));
}

TEST(ProjectColumnsTest, OrdersAndRejects) {
  types::Schema s = RegionSchema();
  auto p = ProjectColumns(s, {"amount", "id"}, true);
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->fields().size(), 2u);
  EXPECT_EQ(p->fields()[0].id, 3);
  EXPECT_EQ(p->fields()[1].id, 1);
  EXPECT_FALSE(ProjectColumns(s, {"nope"}, true).has_value());
  EXPECT_FALSE(ProjectColumns(s, {"id", "id"}, true).has_value());
  EXPECT_FALSE(ProjectColumns(s, {"ID"}, true).has_value());
  EXPECT_TRUE(ProjectColumns(s, {"ID"}, false).has_value());
}

TEST(TableScanEmptyTest, TableWithoutSnapshotsPlansNothing) {
  TestTable t("empty", RegionSchema());
  auto scan = TableScan::Make(t.io(), t.metadata(), {});
  ASSERT_TRUE(scan.has_value());
  EXPECT_EQ(scan->snapshot(), nullptr);
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value());
  EXPECT_TRUE(tasks->empty());
}

}  // namespace
}  // namespace floe::iceberg
