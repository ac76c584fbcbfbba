// RowBatcher: rows copied into per-(table, writer) batches, routing by
// distribution mode (key hash, partition hash, key ranges rebalanced only at
// checkpoints, round-robin for append-only tables), order across a schema
// change, and refusal of null keys in deletes and upserts.

#include "floe/sink/router.h"

#include <map>
#include <set>

#include "floe/sink/tests/writer_test_util.h"

namespace floe::sink::testing {
namespace {

class RouterTest : public ::testing::Test {
 protected:
  Status Add(RowBatcher& b, const TableTargetPtr& t, RowKind kind, const Person& p) {
    auto v = p.values();
    return b.Add(t, kind, types::Row(v.data(), v.size()), out_);
  }
  /// Route of every row id seen in the collected batches.
  std::map<int64_t, std::set<uint32_t>> RoutesById() {
    std::map<int64_t, std::set<uint32_t>> out;
    for (const auto& batch : out_.records) {
      for (const auto& row : batch.rows) out[row[0].i64].insert(batch.route);
    }
    return out;
  }

  CollectingCollector<RowBatch> out_;
};

TEST_F(RouterTest, CopiesRowsIntoBatchesAndEmitsFullOnes) {
  TestTable table("router_copy", PeopleSchema());
  auto target = MakeTarget(table, "copy", {}, false);
  SinkOptions options;
  RowBatcher batcher(options, 4);
  for (int i = 0; i < 10; ++i) {
    std::string name = "name-" + std::to_string(i);  // freed after Add
    std::vector<Value> v = {Value::Int64(i), Value::Bytes("eu"), Value::Bytes(name),
                            Value::Int32(i)};
    FLOE_ASSERT_OK(batcher.Add(target, RowKind::kInsert, types::Row(v.data(), v.size()), out_));
    name.assign(name.size(), '#');
  }
  ASSERT_EQ(out_.records.size(), 2u);  // two full batches of 4
  FLOE_ASSERT_OK(batcher.Flush(out_));
  ASSERT_EQ(out_.records.size(), 3u);
  EXPECT_EQ(out_.records[2].size(), 2u);
  int i = 0;
  for (const auto& batch : out_.records) {
    EXPECT_EQ(batch.target, target);
    for (size_t r = 0; r < batch.size(); ++r, ++i) {
      EXPECT_EQ(batch.rows[r][0].i64, i);
      EXPECT_EQ(batch.rows[r][2].as_bytes(), "name-" + std::to_string(i));
      EXPECT_EQ(batch.kinds[r], RowKind::kInsert);
    }
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));  // nothing pending: nothing emitted
  EXPECT_EQ(out_.records.size(), 3u);
}

TEST_F(RouterTest, KeyedTablesRouteByKeyAndAppendOnlyRoundRobinPerBatch) {
  TestTable table("router_keyed", PeopleSchema());
  auto keyed = MakeTarget(table, "keyed", {1}, true);
  auto append = MakeTarget(table, "append", {}, false);
  SinkOptions options;
  options.write_parallelism = 4;
  RowBatcher batcher(options, 8);
  for (int round = 0; round < 3; ++round) {
    for (int id = 0; id < 200; ++id) {
      FLOE_ASSERT_OK(Add(batcher, keyed, RowKind::kInsert, Person{id, "eu", "x", round}));
    }
    FLOE_ASSERT_OK(batcher.Flush(out_));
    batcher.CheckpointBoundary();
  }
  auto routes = RoutesById();
  std::set<uint32_t> used;
  for (const auto& [id, r] : routes) {
    EXPECT_EQ(r.size(), 1u) << "key " << id << " reached several writers";
    used.insert(*r.begin());
  }
  EXPECT_EQ(used.size(), 4u);
  for (const auto& b : out_.records) EXPECT_EQ(RouteOf(b, 4), b.route);

  out_.records.clear();
  for (int i = 0; i < 32; ++i) {
    FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{i, "eu", "x", i}));
  }
  ASSERT_EQ(out_.records.size(), 4u);
  std::set<uint32_t> append_routes;
  for (const auto& b : out_.records) append_routes.insert(b.route);
  EXPECT_EQ(append_routes.size(), 4u);  // consecutive batches go to different writers
}

/// A batch of inserts that owns its values, as a source that parses rows
/// straight into a batch makes it.
RowBatch OwnedBatch(const TableTargetPtr& target, int first, int n) {
  RowBatch batch;
  batch.target = target;
  for (int i = first; i < first + n; ++i) {
    auto* v = batch.arena->AllocateArray<Value>(4);
    new (&v[0]) Value(Value::Int64(i));
    new (&v[1]) Value(Value::Bytes(batch.arena->Copy("eu")));
    new (&v[2]) Value(Value::Bytes(batch.arena->Copy("owned")));
    new (&v[3]) Value(Value::Int32(i));
    batch.rows.emplace_back(v, 4);
    batch.kinds.push_back(RowKind::kInsert);
  }
  return batch;
}

TEST_F(RouterTest, OwnedBatchesGoAsTheyAreAfterThePendingRows) {
  TestTable table("router_owned", PeopleSchema());
  auto append = MakeTarget(table, "owned", {}, false);
  SinkOptions options;
  options.write_parallelism = 2;
  RowBatcher batcher(options, 8);
  FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{0, "eu", "x", 0}));
  FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{1, "eu", "x", 1}));
  RowBatch owned = OwnedBatch(append, 2, 5);
  const Value* first_value = owned.rows[0].data();
  FLOE_ASSERT_OK(batcher.AddBatch(std::move(owned), out_));
  FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{7, "eu", "x", 7}));
  FLOE_ASSERT_OK(batcher.Flush(out_));
  // The two pending rows, the batch itself (its values not copied), the row after.
  ASSERT_EQ(out_.records.size(), 3u);
  EXPECT_EQ(out_.records[0].size(), 2u);
  EXPECT_EQ(out_.records[1].size(), 5u);
  EXPECT_EQ(out_.records[1].rows[0].data(), first_value);
  EXPECT_EQ(out_.records[2].size(), 1u);
  EXPECT_NE(out_.records[0].route, out_.records[1].route);  // round-robin per batch
  int64_t id = 0;
  for (const auto& b : out_.records) {
    for (const auto& row : b.rows) EXPECT_EQ(row[0].i64, id++);
  }
  EXPECT_EQ(id, 8);
}

TEST_F(RouterTest, OwnedBatchesOfKeyedTablesAreRoutedRowByRow) {
  TestTable table("router_owned_keyed", PeopleSchema());
  auto keyed = MakeTarget(table, "owned_keyed", {1}, true);
  SinkOptions options;
  options.write_parallelism = 4;
  RowBatcher batcher(options, 64);
  FLOE_ASSERT_OK(batcher.AddBatch(OwnedBatch(keyed, 0, 40), out_));
  FLOE_ASSERT_OK(batcher.Flush(out_));
  auto routes = RoutesById();
  ASSERT_EQ(routes.size(), 40u);
  std::set<uint32_t> used;
  for (const auto& [id, r] : routes) used.insert(*r.begin());
  EXPECT_GT(used.size(), 1u);  // spread by key, not sent as one batch
}

TEST_F(RouterTest, HashModeRoutesByPartition) {
  auto spec = iceberg::ParsePartitionSpecText("region", PeopleSchema());
  ASSERT_TRUE(spec);
  TestTable table("router_hash", PeopleSchema(), *spec);
  table.metadata().properties["write.distribution-mode"] = "hash";
  auto append = MakeTarget(table, "hash", {}, false);
  SinkOptions options;
  options.write_parallelism = 3;
  RowBatcher batcher(options, 16);
  std::string regions[6] = {"a", "b", "c", "d", "e", "f"};
  for (int i = 0; i < 600; ++i) {
    FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{i, regions[i % 6], "x", i}));
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));
  std::map<std::string, std::set<uint32_t>> by_region;
  for (const auto& b : out_.records) {
    for (const auto& row : b.rows) by_region[std::string(row[1].as_bytes())].insert(b.route);
  }
  ASSERT_EQ(by_region.size(), 6u);
  for (const auto& [region, routes] : by_region) EXPECT_EQ(routes.size(), 1u) << region;
  // The job option wins over the table property.
  options.distribution_mode = DistributionMode::kNone;
  RowBatcher none(options, 16);
  out_.records.clear();
  for (int i = 0; i < 96; ++i) {
    FLOE_ASSERT_OK(Add(none, append, RowKind::kInsert, Person{i, "a", "x", i}));
  }
  std::set<uint32_t> routes;
  for (const auto& b : out_.records) routes.insert(b.route);
  EXPECT_EQ(routes.size(), 3u);
}

TEST_F(RouterTest, RangeModeBalancesKeyRangesAndChangesThemOnlyAtCheckpoints) {
  TestTable table("router_range", PeopleSchema());
  auto keyed = MakeTarget(table, "range", {1}, false);
  SinkOptions options;
  options.write_parallelism = 4;
  options.distribution_mode = DistributionMode::kRange;
  RowBatcher batcher(options, 64);
  // Checkpoint 1: no ranges yet (key hash); keys 0..3999 sampled.
  for (int id = 0; id < 4000; ++id) {
    FLOE_ASSERT_OK(Add(batcher, keyed, RowKind::kInsert, Person{id, "eu", "x", 0}));
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));
  auto before = RoutesById();
  batcher.CheckpointBoundary();
  out_.records.clear();
  // Checkpoint 2: ranges from the sample; every key keeps one route, and the
  // routes grow with the key.
  for (int round = 0; round < 2; ++round) {
    for (int id = 0; id < 4000; ++id) {
      FLOE_ASSERT_OK(Add(batcher, keyed, RowKind::kUpdateAfter, Person{id, "eu", "y", round}));
    }
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));
  auto after = RoutesById();
  std::map<uint32_t, int> counts;
  uint32_t last = 0;
  for (const auto& [id, r] : after) {
    ASSERT_EQ(r.size(), 1u) << id;
    uint32_t route = *r.begin();
    EXPECT_GE(route, last) << "ranges must be ordered; key " << id;
    last = route;
    counts[route]++;
  }
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [route, n] : counts) {
    EXPECT_GT(n, 700) << "route " << route;  // 1000 each when balanced
    EXPECT_LT(n, 1300) << "route " << route;
  }
  // Before the first boundary keys were hashed, so they were not ordered.
  bool ordered = true;
  uint32_t prev = 0;
  for (const auto& [id, r] : before) {
    ordered = ordered && *r.begin() >= prev;
    prev = *r.begin();
  }
  EXPECT_FALSE(ordered);
}

TEST_F(RouterTest, AppendOnlyRangeUsesTheSortOrderColumn) {
  TestTable table("router_range_append", PeopleSchema());
  iceberg::SortOrder order(1, {iceberg::SortField{iceberg::Transform::Identity(), 4}});
  table.metadata().sort_orders.push_back(order);
  table.metadata().default_sort_order_id = 1;
  auto append = MakeTarget(table, "range_append", {}, false);
  SinkOptions options;
  options.write_parallelism = 2;
  options.distribution_mode = DistributionMode::kRange;
  RowBatcher batcher(options, 32);
  for (int i = 0; i < 1000; ++i) {
    FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{i, "eu", "x", 1000 - i}));
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));
  batcher.CheckpointBoundary();
  out_.records.clear();
  for (int i = 0; i < 1000; ++i) {
    FLOE_ASSERT_OK(Add(batcher, append, RowKind::kInsert, Person{i, "eu", "x", 1000 - i}));
  }
  FLOE_ASSERT_OK(batcher.Flush(out_));
  // n (column 4) decides: high n (low id) to writer 1, low n to writer 0.
  int low_to_0 = 0, high_to_1 = 0;
  for (const auto& b : out_.records) {
    for (const auto& row : b.rows) {
      if (row[3].i32 < 400 && b.route == 0) ++low_to_0;
      if (row[3].i32 > 600 && b.route == 1) ++high_to_1;
    }
  }
  EXPECT_EQ(low_to_0, 399);
  EXPECT_EQ(high_to_1, 400);
}

TEST_F(RouterTest, NewTargetEmitsPendingRowsFirstAndNullKeysAreRefused) {
  TestTable table("router_target", PeopleSchema());
  auto v1 = MakeTarget(table, "t", {1}, false);
  auto v2 = MakeTarget(table, "t", {1}, false);
  SinkOptions options;
  RowBatcher batcher(options, 100);
  FLOE_ASSERT_OK(Add(batcher, v1, RowKind::kInsert, Person{1, "eu", "x", 1}));
  FLOE_ASSERT_OK(Add(batcher, v1, RowKind::kInsert, Person{2, "eu", "x", 1}));
  EXPECT_TRUE(out_.records.empty());
  FLOE_ASSERT_OK(Add(batcher, v2, RowKind::kInsert, Person{3, "eu", "x", 1}));
  ASSERT_EQ(out_.records.size(), 1u);
  EXPECT_EQ(out_.records[0].target, v1);
  EXPECT_EQ(out_.records[0].size(), 2u);
  FLOE_ASSERT_OK(batcher.Flush(out_));
  ASSERT_EQ(out_.records.size(), 2u);
  EXPECT_EQ(out_.records[1].target, v2);

  std::vector<Value> null_key = {Value::Null(), Value::Bytes("eu"), Value::Null(), Value::Null()};
  auto s = batcher.Add(v2, RowKind::kDelete, types::Row(null_key.data(), null_key.size()), out_);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.error().ToString().find("'id'"), std::string::npos) << s.error().ToString();
  // An insert into a changelog (not upsert) table may carry a null key.
  FLOE_ASSERT_OK(
      batcher.Add(v2, RowKind::kInsert, types::Row(null_key.data(), null_key.size()), out_));
  auto upsert = MakeTarget(table, "u", {1}, true);
  EXPECT_FALSE(
      batcher.Add(upsert, RowKind::kInsert, types::Row(null_key.data(), null_key.size()), out_));
  auto append = MakeTarget(table, "a", {}, false);
  EXPECT_FALSE(Add(batcher, append, RowKind::kDelete, Person{1, "eu", "x", 1}));
}

TEST_F(RouterTest, TruncateSendsPendingRowsThenATruncateToEveryWriter) {
  TestTable table("router_truncate", PeopleSchema());
  auto keyed = MakeTarget(table, "keyed", {1}, false);
  auto other = MakeTarget(table, "other", {1}, false);
  SinkOptions options;
  options.write_parallelism = 3;
  RowBatcher batcher(options, 100);
  for (int i = 0; i < 20; ++i)
    FLOE_ASSERT_OK(Add(batcher, keyed, RowKind::kInsert, {i, "eu", "x", i}));
  FLOE_ASSERT_OK(Add(batcher, other, RowKind::kInsert, {1, "eu", "o", 1}));
  ASSERT_TRUE(out_.records.empty());
  FLOE_ASSERT_OK(batcher.Truncate(keyed, out_));
  // The table's pending rows first (all 20), then one empty truncate batch per
  // writer subtask; the other table's rows stay pending.
  size_t rows = 0, i = 0;
  for (; i < out_.records.size() && !out_.records[i].truncate; ++i) {
    EXPECT_EQ(out_.records[i].target, keyed);
    rows += out_.records[i].size();
  }
  EXPECT_EQ(rows, 20u);
  std::set<uint32_t> routes;
  for (; i < out_.records.size(); ++i) {
    EXPECT_TRUE(out_.records[i].truncate);
    EXPECT_EQ(out_.records[i].target, keyed);
    EXPECT_EQ(out_.records[i].size(), 0u);
    routes.insert(out_.records[i].route);
  }
  EXPECT_EQ(routes, (std::set<uint32_t>{0, 1, 2}));
  // Rows after the truncation are batched as usual, without the flag.
  size_t before = out_.records.size();
  FLOE_ASSERT_OK(Add(batcher, keyed, RowKind::kInsert, {5, "eu", "y", 5}));
  FLOE_ASSERT_OK(batcher.Flush(out_));
  ASSERT_EQ(out_.records.size(), before + 2);  // keyed's row and other's row
  for (size_t k = before; k < out_.records.size(); ++k) EXPECT_FALSE(out_.records[k].truncate);
}

}  // namespace
}  // namespace floe::sink::testing
