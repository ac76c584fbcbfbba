// Applying position and equality deletes while scanning (DeleteFilter via
// TableScan + DataReader), with the sequence number rules of the spec.

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/iceberg/data/delete_filter.h"
#include "floe/iceberg/expression/expression_parser.h"
#include "floe/iceberg/tests/scan_test_util.h"

namespace floe::iceberg {
namespace {

using scantest::RowValues;
using scantest::Str;
using scantest::TestTable;
using types::Type;
using types::Value;

types::Schema PeopleSchema() {
  return types::Schema({{1, "id", true, Type::Long(), ""},
                        {2, "name", false, Type::String(), ""},
                        {3, "score", false, Type::Double(), ""}},
                       0);
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> Ids(const std::vector<std::string>& rows) {
  // rows are {"id":N,...}: keep the id text, sorted numerically.
  std::vector<std::pair<long, std::string>> ids;
  for (const auto& r : rows) {
    size_t a = r.find(':') + 1;
    size_t b = r.find_first_of(",}", a);
    ids.push_back({std::stol(r.substr(a, b - a)), r.substr(a, b - a)});
  }
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> out;
  for (auto& [n, s] : ids) out.push_back(s);
  return out;
}

class DeleteApplyTest : public ::testing::Test {
 protected:
  DeleteApplyTest() : t_("deletes", PeopleSchema()) {}

  void SetUp() override {
    a_ = t_.WriteData({{Value::Int64(0), Str("a"), Value::Double(1.0)},
                       {Value::Int64(1), Str("b"), Value::Double(2.0)},
                       {Value::Int64(2), Str("c"), Value::Double(3.0)},
                       {Value::Int64(3), Value::Null(), Value::Double(4.0)},
                       {Value::Int64(4), Str("d"), Value::Double(-0.0)},
                       {Value::Int64(5), Str("c"), Value::Null()}});
    s1_ = t_.Commit("append", {{a_}});
  }

  TestTable t_;
  DataFile a_;
  SnapshotId s1_ = 0;
};

TEST_F(DeleteApplyTest, PositionDeletesUnsortedAndForOtherFiles) {
  DataFile pos = t_.WritePositionDeletes(
      {{a_.file_path, 4}, {"/elsewhere/x.parquet", 0}, {a_.file_path, 1}, {a_.file_path, 4}});
  t_.Commit("delete", {{pos}});
  auto scan = TableScan::Make(t_.io(), t_.metadata(), {});
  auto tasks = scan->PlanFiles();
  ASSERT_TRUE(tasks.has_value()) << tasks.error().ToString();
  ASSERT_EQ(tasks->size(), 1u);
  ASSERT_EQ((*tasks)[0].deletes.size(), 1u);
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(Ids(*rows), (std::vector<std::string>{"0", "2", "3", "5"}));

  auto filter = DeleteFilter::Load(t_.io(), a_.file_path, (*tasks)[0].deletes, t_.schema());
  ASSERT_TRUE(filter.has_value());
  EXPECT_EQ((*filter)->position_count(), 2u);  // de-duplicated, other file ignored
}

TEST_F(DeleteApplyTest, EqualityDeletesMatchNullsAndApplyOnlyToOlderData) {
  // One row delta: a new data file B and an equality delete on name for
  // {'c', null}. B is as new as the delete, so B keeps its 'c' row.
  DataFile b = t_.WriteData({{Value::Int64(10), Str("c"), Value::Double(0.5)},
                             {Value::Int64(11), Str("e"), Value::Double(0.5)}});
  DataFile eq = t_.WriteEqualityDeletes({2}, {{Str("c")}, {Value::Null()}});
  t_.Commit("overwrite", {{b}, {eq}});
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(Ids(*rows), (std::vector<std::string>{"0", "1", "4", "10", "11"}));

  // The older snapshot still has every row.
  TableScanOptions old;
  old.snapshot_id = s1_;
  rows = scantest::ScanJson(t_.io(), t_.metadata(), old);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->size(), 6u);
}

TEST_F(DeleteApplyTest, PositionDeletesApplyToDataOfTheSameCommit) {
  DataFile b = t_.WriteData(
      {{Value::Int64(20), Str("x"), Value::Null()}, {Value::Int64(21), Str("y"), Value::Null()}});
  DataFile pos = t_.WritePositionDeletes({{b.file_path, 0}});
  t_.Commit("overwrite", {{b}, {pos}});
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(Ids(*rows), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "21"}));
}

TEST_F(DeleteApplyTest, MultiColumnEqualityDeletesAndDoubles) {
  // (name, score): ('c', 3.0) deletes id 2 only; ('c', null) deletes id 5;
  // ('d', 0.0) does not delete ('d', -0.0): Iceberg Java compares doubles
  // with Double.compare.
  DataFile eq = t_.WriteEqualityDeletes(
      {2, 3},
      {{Str("c"), Value::Double(3.0)}, {Str("c"), Value::Null()}, {Str("d"), Value::Double(0.0)}});
  t_.Commit("delete", {{eq}});
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(Ids(*rows), (std::vector<std::string>{"0", "1", "3", "4"}));
}

TEST_F(DeleteApplyTest, DeletesWithFilterAndProjectionOfOtherColumns) {
  // The projection lacks the equality column and the filter column: both
  // are still read for the deletes and the filter.
  DataFile eq = t_.WriteEqualityDeletes({2}, {{Str("b")}});
  DataFile pos = t_.WritePositionDeletes({{a_.file_path, 0}});
  t_.Commit("delete", {{eq}, {pos}});
  TableScanOptions o;
  o.filter = *ParseFilter("score < 3.5");
  o.columns = {"id"};
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), o);
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  // score < 3.5: ids 0 (pos-deleted), 1 (eq-deleted), 2, 4 (-0.0).
  EXPECT_EQ(Sorted(*rows), (std::vector<std::string>{R"({"id":2})", R"({"id":4})"}));
}

TEST_F(DeleteApplyTest, CorruptDeleteFileIsCorruptionNamingIt) {
  DataFile pos = t_.WritePositionDeletes({{a_.file_path, 1}});
  {
    // Overwrite the delete file with bytes that are not Parquet.
    auto out = t_.io().CreateOutput(pos.file_path, /*overwrite=*/true);
    ASSERT_TRUE(out.has_value());
    std::string junk(64, 'x');
    ASSERT_TRUE((*out)->Write({reinterpret_cast<const uint8_t*>(junk.data()), junk.size()}));
    ASSERT_TRUE((*out)->Close());
  }
  t_.Commit("delete", {{pos}});
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_FALSE(rows.has_value());
  EXPECT_EQ(rows.error().code(), ErrorCode::kCorruption);
  EXPECT_NE(rows.error().message().find(pos.file_path), std::string::npos)
      << rows.error().message();
}

TEST_F(DeleteApplyTest, MissingDeleteFileIsAnError) {
  DataFile pos = t_.WritePositionDeletes({{a_.file_path, 1}});
  ASSERT_TRUE(t_.io().Delete(pos.file_path));
  t_.Commit("delete", {{pos}});
  auto rows = scantest::ScanJson(t_.io(), t_.metadata(), {});
  ASSERT_FALSE(rows.has_value());
  EXPECT_EQ(rows.error().code(), ErrorCode::kNotFound);
}

TEST(EqualityKeyTest, WidensIntsAndFloatsAndCanonicalizesNaN) {
  std::string a, b;
  AppendEqualityKey(Value::Int32(7), &a);
  AppendEqualityKey(Value::Int64(7), &b);
  EXPECT_EQ(a, b);
  a.clear();
  b.clear();
  AppendEqualityKey(Value::Float(1.5f), &a);
  AppendEqualityKey(Value::Double(1.5), &b);
  EXPECT_EQ(a, b);
  a.clear();
  b.clear();
  AppendEqualityKey(Value::Double(std::numeric_limits<double>::quiet_NaN()), &a);
  AppendEqualityKey(Value::Double(-std::numeric_limits<double>::quiet_NaN()), &b);
  EXPECT_EQ(a, b);
  a.clear();
  b.clear();
  AppendEqualityKey(Value::Null(), &a);
  AppendEqualityKey(Value::Bytes(""), &b);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace floe::iceberg
