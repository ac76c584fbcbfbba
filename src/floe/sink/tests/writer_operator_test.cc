// WriterOperator: batches from a RowBatcher driven through Process and
// SnapshotState with a collecting Collector; the results committed per
// checkpoint read back as the expected table; files of an unfinished
// checkpoint deleted on Close; and 2,000 tables writing at once under a
// shared memory budget.

#include "floe/sink/writer_operator.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "floe/sink/router.h"
#include "floe/sink/tests/writer_test_util.h"

namespace floe::sink::testing {
namespace {

size_t ParquetFilesUnder(const std::string& dir) {
  size_t n = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    n += e.is_regular_file() && e.path().extension() == ".parquet" ? 1 : 0;
  }
  return n;
}

/// Two writer subtasks fed by one RowBatcher.
class Pipeline {
 public:
  Pipeline(SinkOptions options, std::shared_ptr<io::FileIO> io, size_t batch_rows = 64)
      : options_(options), batcher_(options, batch_rows) {
    budget_ = std::make_shared<MemoryBudget>(options.memory_budget_bytes);
    for (int i = 0; i < options.write_parallelism; ++i) {
      writers_.push_back(std::make_unique<WriterOperator>(options, budget_, io));
      engine::OperatorContext ctx{"writer", i, options.write_parallelism};
      auto s = writers_.back()->Open(ctx, engine::RestoredState{});
      EXPECT_TRUE(s) << s.error().ToString();
    }
  }

  Status Add(const TableTargetPtr& target, RowKind kind, std::vector<Value> values) {
    return batcher_.Add(target, kind, types::Row(values.data(), values.size()), batches_);
  }
  /// Delivers the batches emitted so far (the source's Flush at end of Poll).
  Status Deliver() {
    FLOE_RETURN_IF_ERROR(batcher_.Flush(batches_));
    for (auto& b : batches_.records) {
      size_t to = RouteOf(b, writers_.size());
      FLOE_RETURN_IF_ERROR(writers_[to]->Process(std::move(b), results_));
    }
    batches_.records.clear();
    return Ok();
  }
  /// A checkpoint: every writer's results, in emission order.
  Result<std::vector<WriteResult>> Checkpoint(engine::CheckpointId id) {
    FLOE_RETURN_IF_ERROR(Deliver());
    batcher_.CheckpointBoundary();
    results_.records.clear();
    for (auto& w : writers_) {
      FLOE_ASSIGN_OR_RETURN(std::string state, w->SnapshotState(id, results_));
      if (!state.empty()) return InvalidArgument("writer state is not empty");
    }
    return std::move(results_.records);
  }

  std::vector<std::unique_ptr<WriterOperator>>& writers() { return writers_; }
  MemoryBudget& budget() { return *budget_; }

 private:
  SinkOptions options_;
  RowBatcher batcher_;
  std::shared_ptr<MemoryBudget> budget_;
  std::vector<std::unique_ptr<WriterOperator>> writers_;
  CollectingCollector<RowBatch> batches_;
  CollectingCollector<WriteResult> results_;
};

std::vector<Value> P(int64_t id, std::string_view region, std::string_view name, int32_t n) {
  return {Value::Int64(id), Value::Bytes(region), Value::Bytes(name), Value::Int32(n)};
}

TEST(WriterOperatorTest, CheckpointsEmitResultsThatCommitToTheExpectedTables) {
  TestTable upsert_table("wo_upsert", PeopleSchema());
  TestTable append_table("wo_append", PeopleSchema());
  auto upsert = MakeTarget(upsert_table, "upsert", {1}, true);
  auto append = MakeTarget(append_table, "append", {}, false);
  SinkOptions options;
  options.write_parallelism = 2;
  Pipeline p(options, std::make_shared<io::LocalFileIO>(), 8);

  // Checkpoint 1: 100 keys, each updated once in the same checkpoint.
  for (int id = 0; id < 100; ++id)
    FLOE_ASSERT_OK(p.Add(upsert, RowKind::kInsert, P(id, "eu", "a", 1)));
  FLOE_ASSERT_OK(p.Deliver());
  for (int id = 0; id < 100; ++id) {
    FLOE_ASSERT_OK(p.Add(upsert, RowKind::kUpdateAfter, P(id, "eu", "b", 2)));
    FLOE_ASSERT_OK(p.Add(append, RowKind::kInsert, P(id, "us", "c", 3)));
  }
  auto first = p.Checkpoint(1);
  ASSERT_TRUE(first) << first.error().ToString();
  std::vector<WriteResult> to_upsert, to_append;
  std::set<int> subtasks;
  for (auto& r : *first) {
    subtasks.insert(r.writer_subtask);
    (r.target == upsert ? to_upsert : to_append).push_back(r);
  }
  EXPECT_EQ(subtasks.size(), 2u);
  int64_t written = 0, deleted = 0;
  for (const auto& r : to_upsert) {
    written += r.rows_written;
    deleted += r.rows_deleted;
  }
  EXPECT_EQ(written, 200);
  EXPECT_EQ(deleted, 200);  // 100 equality deletes (first sight) + 100 position deletes
  CommitResults(upsert_table, to_upsert);
  CommitResults(append_table, to_append);
  auto rows = Rows(upsert_table);
  ASSERT_EQ(rows.size(), 100u);
  for (const auto& r : rows) EXPECT_NE(r.find("\"name\":\"b\""), std::string::npos) << r;
  EXPECT_EQ(Rows(append_table).size(), 100u);

  // Checkpoint 2: delete the even keys, update the odd ones.
  for (int id = 0; id < 100; ++id) {
    if (id % 2 == 0) {
      FLOE_ASSERT_OK(p.Add(upsert, RowKind::kDelete, P(id, "eu", "", 0)));
    } else {
      FLOE_ASSERT_OK(p.Add(upsert, RowKind::kUpdateAfter, P(id, "eu", "c", 3)));
    }
  }
  auto second = p.Checkpoint(2);
  ASSERT_TRUE(second) << second.error().ToString();
  for (const auto& r : *second) EXPECT_EQ(r.target, upsert);
  CommitResults(upsert_table, *second);
  rows = Rows(upsert_table);
  ASSERT_EQ(rows.size(), 50u);
  for (const auto& r : rows) EXPECT_NE(r.find("\"name\":\"c\""), std::string::npos) << r;

  // Rows after the last checkpoint are never committed: Close deletes them.
  size_t committed_files = ParquetFilesUnder(upsert_table.metadata().location);
  FLOE_ASSERT_OK(p.Add(upsert, RowKind::kInsert, P(1000, "eu", "z", 9)));
  FLOE_ASSERT_OK(p.Deliver());
  EXPECT_GT(ParquetFilesUnder(upsert_table.metadata().location), committed_files);
  for (auto& w : p.writers()) w->Close();
  EXPECT_EQ(ParquetFilesUnder(upsert_table.metadata().location), committed_files);
}

TEST(WriterOperatorTest, ErrorsNameTheTable) {
  TestTable table("wo_errors", PeopleSchema());
  auto append = MakeTarget(table, "errors", {}, false);
  SinkOptions options;
  WriterOperator w(options, nullptr, std::make_shared<io::LocalFileIO>());
  CollectingCollector<WriteResult> out;
  FLOE_ASSERT_OK(w.Open(engine::OperatorContext{"writer", 0, 1}, engine::RestoredState{}));
  RowBatch batch;
  batch.target = append;
  std::vector<Value> v = P(1, "eu", "a", 1);
  batch.rows.emplace_back(v.data(), v.size());
  batch.kinds.push_back(RowKind::kDelete);
  auto s = w.Process(std::move(batch), out);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find("db.errors"), std::string::npos);
  // No FileIO and no catalog factory.
  WriterOperator none(options, nullptr);
  EXPECT_FALSE(none.Open(engine::OperatorContext{"writer", 0, 1}, engine::RestoredState{}));
}

/// A 20-column row: id, 9 longs/ints/doubles, 10 strings.
types::Schema WideSchema() {
  std::vector<types::NestedField> fields;
  fields.push_back({1, "id", true, Type::Long(), ""});
  for (int i = 0; i < 19; ++i) {
    types::TypePtr type = i < 5 ? Type::Long() : i < 9 ? Type::Double() : Type::String();
    fields.push_back({i + 2, "c" + std::to_string(i), false, type, ""});
  }
  return types::Schema(std::move(fields), 0);
}

TEST(WriterOperatorTest, TwoThousandTablesStayUnderTheMemoryBudget) {
  constexpr int kTables = 2000;
  constexpr int kRounds = 3;
  constexpr int kRowsPerRound = 40;
  constexpr int64_t kBudget = 256LL << 20;
  TestTable table("wo_memory", WideSchema());
  // Half the tables upsert (key maps), half append.
  std::vector<TableTargetPtr> targets;
  for (int t = 0; t < kTables; ++t) {
    targets.push_back(MakeTarget(table, "t" + std::to_string(t),
                                 t % 2 == 0 ? std::vector<int32_t>{1} : std::vector<int32_t>{},
                                 t % 2 == 0));
  }
  SinkOptions options;
  options.write_parallelism = 2;
  options.memory_budget_bytes = kBudget;
  auto [rss_start, hwm_start] = RssKb();
  Pipeline p(options, std::make_shared<NoSyncFileIO>(), 256);
  std::vector<std::string> text(10);
  for (int i = 0; i < 10; ++i) text[i] = "value-" + std::to_string(i * 7919) + "-some-payload";
  std::vector<Value> row(20);
  int64_t rows = 0;
  auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds; ++round) {
    for (int t = 0; t < kTables; ++t) {
      for (int r = 0; r < kRowsPerRound; ++r) {
        int64_t id = static_cast<int64_t>(round) * kRowsPerRound + r;
        row[0] = Value::Int64(id);
        for (int c = 0; c < 5; ++c) row[1 + c] = Value::Int64(id * 31 + c + round);
        for (int c = 0; c < 4; ++c) row[6 + c] = Value::Double(static_cast<double>(id) / (c + 1));
        for (int c = 0; c < 10; ++c) row[10 + c] = Value::Bytes(text[(id + c) % 10]);
        FLOE_ASSERT_OK(p.Add(targets[t], RowKind::kInsert, row));
        ++rows;
      }
      if (t % 50 == 49) FLOE_ASSERT_OK(p.Deliver());
    }
    FLOE_ASSERT_OK(p.Deliver());
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t open_files = 0;
  int64_t flushes = 0, closes = 0;
  for (auto& w : p.writers()) {
    open_files += w->num_open_files();
    flushes += w->flushes();
    closes += w->file_closes();
  }
  auto [rss_written, hwm_written] = RssKb();
  auto results = p.Checkpoint(1);
  ASSERT_TRUE(results) << results.error().ToString();
  int64_t written = 0;
  size_t files = 0;
  std::set<std::string> tables;
  for (const auto& r : *results) {
    written += r.rows_written;
    files += r.data_files.size() + r.delete_files.size();
    tables.insert(r.target->key);
  }
  auto [rss_end, hwm_end] = RssKb();
  std::printf(
      "[memory] %d tables, %lld rows of 20 columns in %.2f s (%.0f rows/s); budget %lld MiB, "
      "peak accounted %.1f MiB, %lld row group flushes, %lld file closes, %zu open files, %zu "
      "files; RSS start %ld MiB, after writing %ld MiB, after checkpoint %ld MiB, peak RSS %ld "
      "MiB\n",
      kTables, static_cast<long long>(rows), seconds, rows / seconds,
      static_cast<long long>(kBudget >> 20), p.budget().peak_bytes() / 1048576.0,
      static_cast<long long>(flushes), static_cast<long long>(closes), open_files, files,
      rss_start / 1024, rss_written / 1024, rss_end / 1024, hwm_end / 1024);
  EXPECT_EQ(written, rows);
  EXPECT_EQ(tables.size(), static_cast<size_t>(kTables));
  EXPECT_GT(flushes + closes, 0);  // the budget was reached and enforced
  EXPECT_LE(p.budget().peak_bytes(), kBudget);
  // The accounting is an estimate of real memory: the process grew by less
  // than twice the budget (without the budget it grows by about 800 MiB).
  EXPECT_LT((hwm_end - rss_start) * 1024, 2 * kBudget);
  EXPECT_EQ(p.budget().total_bytes() > 0, true);  // key map buffers kept for reuse
  for (auto& w : p.writers()) w->Close();
  EXPECT_EQ(p.budget().total_bytes(), 0);
}

// Past max_open_files a writer completes the other tables' files: a
// checkpoint touching more tables than there are file descriptors to spare
// keeps its open files bounded, and every row still reaches the results.
TEST(WriterOperatorTest, OpenFileLimitCompletesOtherTablesFiles) {
  constexpr int kTables = 40;
  TestTable table("wo_open_files", WideSchema());
  std::vector<TableTargetPtr> targets;
  for (int t = 0; t < kTables; ++t) {
    // Upsert tables open a data and an equality delete file each.
    targets.push_back(MakeTarget(table, "t" + std::to_string(t), {1}, /*upsert=*/true));
  }
  SinkOptions options;
  options.max_open_files = 6;
  Pipeline p(options, std::make_shared<NoSyncFileIO>(), 8);
  std::vector<Value> row(20);
  for (int c = 1; c < 6; ++c) row[c] = Value::Int64(c);
  for (int c = 6; c < 10; ++c) row[c] = Value::Double(c);
  for (int c = 10; c < 20; ++c) row[c] = Value::Bytes("x");
  int64_t rows = 0;
  size_t most_open = 0;
  for (int round = 0; round < 2; ++round) {
    for (int t = 0; t < kTables; ++t) {
      for (int r = 0; r < 3; ++r) {
        row[0] = Value::Int64(r);  // the same keys again: equality deletes too
        FLOE_ASSERT_OK(p.Add(targets[t], RowKind::kInsert, row));
        ++rows;
      }
      FLOE_ASSERT_OK(p.Deliver());
      size_t open = 0;
      for (auto& w : p.writers()) open += w->num_open_files();
      most_open = std::max(most_open, open);
    }
  }
  int64_t sweeps = 0;
  for (auto& w : p.writers()) sweeps += w->open_file_sweeps();
  EXPECT_GT(sweeps, 0);
  EXPECT_LE(most_open, 6u + 2u);  // the limit, plus the files of the table just written
  auto results = p.Checkpoint(1);
  ASSERT_TRUE(results) << results.error().ToString();
  int64_t written = 0;
  std::set<std::string> tables;
  for (const auto& r : *results) {
    written += r.rows_written;
    tables.insert(r.target->key);
  }
  EXPECT_EQ(written, rows);
  EXPECT_EQ(tables.size(), static_cast<size_t>(kTables));
  for (auto& w : p.writers()) EXPECT_EQ(w->num_open_files(), 0u);
}

// The budget reached by what only a checkpoint frees (one upsert table's key
// map): the row groups are flushed, in sizeable pieces, and no file is
// completed early (completing it would free nothing: the next rows reopen one).
TEST(WriterOperatorTest, KeyMapOverTheShareFlushesRowGroupsAndKeepsTheFile) {
  TestTable table("wo_budget_keys", PeopleSchema());
  auto target = MakeTarget(table, "upsert", {1}, /*upsert=*/true);
  SinkOptions options;
  options.write_parallelism = 1;
  options.memory_budget_bytes = 4 << 20;  // share 3.5 MiB; 200,000 keys take ~10 MiB
  Pipeline p(options, std::make_shared<NoSyncFileIO>(), 1024);
  constexpr int64_t kRows = 200000;
  for (int64_t i = 0; i < kRows; ++i) {
    FLOE_ASSERT_OK(p.Add(target, RowKind::kInsert,
                         P(i, i % 2 ? "eu" : "us", "name-" + std::to_string(i % 5000), i % 70)));
    if (i % 4096 == 4095) FLOE_ASSERT_OK(p.Deliver());
  }
  FLOE_ASSERT_OK(p.Deliver());
  WriterOperator& w = *p.writers()[0];
  EXPECT_GT(w.flushes(), 0);
  EXPECT_EQ(w.file_closes(), 0);
  EXPECT_GT(w.pinned_over_target(), 0);
  // Each flush wrote at least kMinFlushBytes of buffered memory: row groups
  // of thousands of rows, not one per batch.
  EXPECT_LT(w.flushes(), kRows / 1000);
  auto results = p.Checkpoint(1);
  ASSERT_TRUE(results) << results.error().ToString();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].rows_written, kRows);
  EXPECT_EQ((*results)[0].data_files.size(), 1u);
  EXPECT_EQ((*results)[0].delete_files.size(), 1u);  // the keys' equality deletes
}

// The budget reached by the open files of many tables: the files of tables
// idle for a while are completed, least recently written first; two tables
// written in turn (never idle) keep their files however tight the budget.
TEST(WriterOperatorTest, OverTheBudgetIdleTablesFilesAreCompletedButNotBusyOnes) {
  TestTable table("wo_budget_idle", PeopleSchema());
  SinkOptions options;
  options.write_parallelism = 1;
  options.memory_budget_bytes = 256 << 10;
  {
    Pipeline p(options, std::make_shared<NoSyncFileIO>(), 64);
    auto a = MakeTarget(table, "a", {}, false);
    auto b = MakeTarget(table, "b", {}, false);
    for (int64_t i = 0; i < 20000; ++i) {
      FLOE_ASSERT_OK(p.Add(i % 128 < 64 ? a : b, RowKind::kInsert,
                           P(i, "eu", "name-" + std::to_string(i), static_cast<int32_t>(i))));
      if (i % 64 == 63) FLOE_ASSERT_OK(p.Deliver());
    }
    WriterOperator& w = *p.writers()[0];
    EXPECT_GT(p.budget().relief_count(), 0);
    EXPECT_EQ(w.file_closes(), 0);
    auto results = p.Checkpoint(1);
    ASSERT_TRUE(results) << results.error().ToString();
    size_t files = 0;
    for (const auto& r : *results) files += r.data_files.size();
    EXPECT_EQ(files, 2u);
  }
  {
    // About 2 MiB of open files' buffers; the 16 tables written last (never
    // completed) hold about 0.4 MiB of them.
    constexpr int kTables = 80;
    options.memory_budget_bytes = 1 << 20;
    Pipeline p(options, std::make_shared<NoSyncFileIO>(), 8);
    std::vector<TableTargetPtr> targets;
    for (int t = 0; t < kTables; ++t) {
      targets.push_back(MakeTarget(table, "t" + std::to_string(t), {}, false));
    }
    int64_t rows = 0;
    for (int round = 0; round < 3; ++round) {
      for (int t = 0; t < kTables; ++t) {
        for (int r = 0; r < 3; ++r)
          FLOE_ASSERT_OK(p.Add(targets[t], RowKind::kInsert, P(r, "eu", "x", r)));
        rows += 3;
        FLOE_ASSERT_OK(p.Deliver());
      }
    }
    WriterOperator& w = *p.writers()[0];
    EXPECT_GT(w.file_closes(), 0);
    EXPECT_EQ(w.flushes(), 0);  // nothing sizeable to flush
    EXPECT_LE(p.budget().peak_bytes(), options.memory_budget_bytes);
    auto results = p.Checkpoint(1);
    ASSERT_TRUE(results) << results.error().ToString();
    int64_t written = 0;
    for (const auto& r : *results) written += r.rows_written;
    EXPECT_EQ(written, rows);
  }
}

// Throughput of the writers alone, on demand:
//   floe_sink_tests --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
// (timing belongs in bench/; this prints, asserts only the row counts).
TEST(WriterOperatorTest, DISABLED_Throughput) {
  TestTable table("wo_throughput", WideSchema());
  auto append = MakeTarget(table, "append", {}, false);
  auto upsert = MakeTarget(table, "upsert", {1}, true);
  std::vector<std::string> text(10);
  for (int i = 0; i < 10; ++i) text[i] = "value-" + std::to_string(i * 7919) + "-some-payload";
  for (const auto& target : {append, upsert}) {
    SinkOptions options;
    options.write_parallelism = 1;
    Pipeline p(options, std::make_shared<io::LocalFileIO>(), 1024);
    std::vector<Value> row(20);
    const int64_t n = 300000;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) {
      // Upsert: 70% of the events update one of the keys seen before.
      int64_t id = target->upsert && i % 10 < 7 ? (i * 7919) % (i / 2 + 1) : i;
      row[0] = Value::Int64(id);
      for (int c = 0; c < 5; ++c) row[1 + c] = Value::Int64(i * 31 + c);
      for (int c = 0; c < 4; ++c) row[6 + c] = Value::Double(static_cast<double>(i) / (c + 1));
      for (int c = 0; c < 10; ++c) row[10 + c] = Value::Bytes(text[(i + c) % 10]);
      FLOE_ASSERT_OK(p.Add(target, RowKind::kInsert, row));
      if (i % 4096 == 4095) FLOE_ASSERT_OK(p.Deliver());
    }
    auto results = p.Checkpoint(1);
    ASSERT_TRUE(results) << results.error().ToString();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int64_t written = 0;
    for (const auto& r : *results) written += r.rows_written;
    EXPECT_EQ(written, n);
    std::printf("[throughput] %s: %lld rows of 20 columns in %.2f s: %.0f rows/s (one thread)\n",
                target->upsert ? "upsert, 70% updates" : "append", static_cast<long long>(n), s,
                n / s);
  }
}

}  // namespace
}  // namespace floe::sink::testing
