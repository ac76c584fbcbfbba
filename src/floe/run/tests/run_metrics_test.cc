#include "floe/run/run_metrics.h"

#include <map>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace floe::run {
namespace {

sink::CommitOutcome Commit(const std::string& table, engine::CheckpointId id, int64_t snapshot) {
  sink::CommitOutcome o{table, id, Ok()};
  o.snapshot_id = snapshot;
  o.added_files = 2;
  return o;
}

TableTallies Tally(const std::string& table, int inserts, int updates, int deletes, int64_t ts_ms) {
  TableTally t;
  for (int i = 0; i < inserts; ++i) t.Count(cdc::ChangeOp::kInsert, ts_ms);
  for (int i = 0; i < updates; ++i) t.Count(cdc::ChangeOp::kUpdate, ts_ms - 5);
  for (int i = 0; i < deletes; ++i) t.Count(cdc::ChangeOp::kDelete, ts_ms);
  return {{table, t}};
}

/// The samples of a Prometheus text page, "name{labels}" -> value; checks
/// that every sample's family has HELP and TYPE lines before it.
std::map<std::string, double> ParseSamples(const std::string& text) {
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      EXPECT_TRUE(type == "counter" || type == "gauge") << line;
      types[name] = type;
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) continue;
    EXPECT_FALSE(line.empty());
    size_t space = line.rfind(' ');
    std::string key = line.substr(0, space);
    std::string name = key.substr(0, key.find('{'));
    EXPECT_TRUE(types.contains(name)) << "no TYPE before " << line;
    EXPECT_EQ(name.rfind("floe_", 0), 0u) << name;
    if (types[name] == "counter") {
      EXPECT_TRUE(name.ends_with("_total")) << name;
    }
    samples[key] = std::stod(line.substr(space + 1));
  }
  return samples;
}

TEST(RunMetrics, CommittedRowsAreThoseOfTheCommittedCheckpoints) {
  RunMetrics m;
  m.SetPipelineName("shop");
  m.PublishHandedOn(Tally("db.a", 3, 1, 1, 1000), 5, "bin.000001:100", 1000);
  m.PublishHandedOn(Tally("db.b", 2, 0, 0, 2000), 2, "bin.000001:200", 2000);
  m.CheckpointTaken(1);
  m.PublishHandedOn(Tally("db.a", 10, 0, 0, 3000), 10, "bin.000001:300", 3000);
  m.CheckpointTaken(2);

  m.Committed(Commit("db.a", 1, 77));
  MetricsSnapshot s = m.Read();
  EXPECT_EQ(s.position, "bin.000001:300");
  EXPECT_EQ(s.changes, 17);
  EXPECT_EQ(s.tables["db.a"].handed_on.inserts, 13);
  EXPECT_EQ(s.tables["db.a"].committed.inserts, 3);
  EXPECT_EQ(s.tables["db.a"].committed.updates, 1);
  EXPECT_EQ(s.tables["db.a"].committed.deletes, 1);
  EXPECT_EQ(s.tables["db.a"].newest_committed_ts_ms, 1000);
  EXPECT_EQ(s.tables["db.a"].last_snapshot_id, 77);
  EXPECT_EQ(s.tables["db.a"].last_checkpoint, 1);
  EXPECT_GE(s.tables["db.a"].last_commit_seconds, 0);
  EXPECT_EQ(s.tables["db.b"].committed.total(), 0);

  // A commit of a later checkpoint takes the earlier ones the table had not
  // committed yet (db.b's checkpoint 1 with its checkpoint 2).
  m.Committed(Commit("db.b", 2, 78));
  m.Committed(Commit("db.a", 2, 79));
  s = m.Read();
  EXPECT_EQ(s.tables["db.b"].committed.inserts, 2);
  EXPECT_EQ(s.tables["db.b"].newest_committed_ts_ms, 2000);
  EXPECT_EQ(s.tables["db.a"].committed.inserts, 13);
  EXPECT_EQ(s.tables["db.a"].newest_committed_ts_ms, 3000);
  EXPECT_EQ(s.tables["db.a"].commits, 2);
  EXPECT_EQ(s.commits, 3);
  // Nothing is left pending: a second commit of the same id adds nothing.
  m.Committed(Commit("db.a", 2, 80));
  EXPECT_EQ(m.Read().tables["db.a"].committed.inserts, 13);
}

TEST(RunMetrics, EachTableCommitKeepsItsOwnTime) {
  // The outcomes of one checkpoint arrive together, after its last table:
  // each table's duration and time are those of its own commit.
  RunMetrics m;
  m.CheckpointTaken(1);
  const auto taken = std::chrono::steady_clock::now();
  sink::CommitOutcome early = Commit("db.a", 1, 1);
  early.committed_at = taken + std::chrono::milliseconds(100);
  sink::CommitOutcome late = Commit("db.b", 1, 2);
  late.committed_at = taken + std::chrono::milliseconds(900);
  std::this_thread::sleep_until(late.committed_at + std::chrono::milliseconds(200));
  m.Committed(early);
  m.Committed(late);
  MetricsSnapshot s = m.Read();
  const TableMetrics& a = s.tables["db.a"];
  const TableMetrics& b = s.tables["db.b"];
  EXPECT_LT(a.last_commit_seconds, 0.5);
  EXPECT_GE(b.last_commit_seconds, 0.8);
  EXPECT_LT(b.last_commit_seconds, 1.05);
  EXPECT_NEAR(static_cast<double>(b.last_commit_unix_ms - a.last_commit_unix_ms), 800.0, 50.0);
}

TEST(RunMetrics, KeepsTalliesOfABoundedNumberOfCheckpointsWithoutLosingCounts) {
  RunMetrics m;
  const int n = static_cast<int>(RunMetrics::kKeptCheckpoints) * 3;
  for (int id = 1; id <= n; ++id) {
    m.PublishHandedOn(Tally("db.slow", 1, 0, 0, 1000 + id), 1, "", 0);
    m.CheckpointTaken(id);
  }
  m.Committed(Commit("db.slow", n, 5));
  MetricsSnapshot s = m.Read();
  EXPECT_EQ(s.tables["db.slow"].committed.inserts, n);
  EXPECT_EQ(s.tables["db.slow"].newest_committed_ts_ms, 1000 + n);
}

TEST(RunMetrics, AFailedCommitIsTheLastError) {
  RunMetrics m;
  sink::CommitOutcome failed{"db.a", 4, IoError("disk full")};
  m.Committed(failed);
  MetricsSnapshot s = m.Read();
  EXPECT_NE(s.last_error.find("db.a"), std::string::npos);
  EXPECT_NE(s.last_error.find("disk full"), std::string::npos);
  EXPECT_FALSE(s.failed);
  m.SetFailed("run failed");
  EXPECT_TRUE(m.Read().failed);
}

TEST(RunMetrics, CheckpointsCompletedCountOnceEach) {
  RunMetrics m;
  m.CheckpointTaken(3);
  m.CheckpointCompleted(3);
  m.CheckpointCompleted(3);
  m.CheckpointCompleted(0);
  MetricsSnapshot s = m.Read();
  EXPECT_EQ(s.checkpoints_completed, 1);
  EXPECT_EQ(s.last_checkpoint, 3);
  EXPECT_EQ(s.last_checkpoint_bytes, -1);  // no checkpoint folder given
  EXPECT_GE(s.last_checkpoint_seconds, 0);
}

TEST(RenderPrometheus, FollowsTheTextFormatAndNamingRules) {
  RunMetrics m;
  m.SetPipelineName("shop \"mirror\"");
  m.SetSnapshotRunning(true);
  m.PublishHandedOn(Tally("db.a", 3, 2, 1, 1000), 6, "bin.000002:4", 1000);
  m.CheckpointTaken(1);
  m.Committed(Commit("db.a", 1, 123456789));
  MetricsSnapshot s = m.Read();
  std::string text = RenderPrometheus(s);
  auto samples = ParseSamples(text);
  EXPECT_EQ(samples.at("floe_table_rows_committed_total{table=\"db.a\",op=\"insert\"}"), 3);
  EXPECT_EQ(samples.at("floe_table_rows_committed_total{table=\"db.a\",op=\"update\"}"), 2);
  EXPECT_EQ(samples.at("floe_table_rows_committed_total{table=\"db.a\",op=\"delete\"}"), 1);
  EXPECT_EQ(samples.at("floe_table_changes_read_total{table=\"db.a\",op=\"insert\"}"), 3);
  EXPECT_EQ(samples.at("floe_table_last_snapshot_id{table=\"db.a\"}"), 123456789);
  EXPECT_EQ(samples.at("floe_table_last_checkpoint_id{table=\"db.a\"}"), 1);
  EXPECT_EQ(samples.at("floe_snapshot_running"), 1);
  EXPECT_EQ(samples.at("floe_commits_total"), 1);
  EXPECT_EQ(samples.at("floe_source_changes_total"), 6);
  // Source commit time 1970 + 1 s: a freshness and a lag of decades.
  EXPECT_GT(samples.at("floe_table_freshness_seconds{table=\"db.a\"}"), 1e9);
  EXPECT_GT(samples.at("floe_source_lag_seconds"), 1e9);
  // A quote in a label value is escaped.
  EXPECT_EQ(
      samples.at("floe_pipeline_info{pipeline=\"shop \\\"mirror\\\"\",position=\"bin.000002:4\"}"),
      1);
  EXPECT_TRUE(samples.contains("floe_process_resident_memory_bytes"));
  EXPECT_TRUE(text.ends_with("\n"));
  // A 64-bit snapshot id is printed whole, not rounded through a double.
  m.Committed(Commit("db.a", 1, 5264139349340655123));
  EXPECT_NE(RenderPrometheus(m.Read()).find(
                "floe_table_last_snapshot_id{table=\"db.a\"} 5264139349340655123\n"),
            std::string::npos);
}

TEST(RenderStatus, JsonAndHtmlHoldEveryTable) {
  RunMetrics m;
  m.SetPipelineName("p");
  m.PublishHandedOn(Tally("db.<b>", 1, 0, 0, 1000), 1, "bin.000001:9", 1000);
  m.PublishHandedOn(Tally("db.c", 1, 0, 0, 1000), 1, "bin.000001:10", 1000);
  m.RecordError("commit of table db.c failed");
  MetricsSnapshot s = m.Read();
  auto j = nlohmann::json::parse(RenderStatusJson(s));
  EXPECT_EQ(j["pipeline"], "p");
  EXPECT_EQ(j["tables"].size(), 2u);
  EXPECT_EQ(j["tables"]["db.c"]["changes_read"]["insert"], 1);
  EXPECT_TRUE(j["tables"]["db.c"]["freshness_seconds"].is_null());
  EXPECT_EQ(j["error"]["message"], "commit of table db.c failed");
  EXPECT_EQ(j["source"]["position"], "bin.000001:10");
  std::string html = RenderStatusHtml(s);
  EXPECT_NE(html.find("db.&lt;b&gt;"), std::string::npos);  // escaped
  EXPECT_EQ(html.find("db.<b>"), std::string::npos);
  EXPECT_NE(html.find("db.c"), std::string::npos);
  EXPECT_NE(html.find("http-equiv=\"refresh\""), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(RenderPrometheus, APostgresSlotsWalIsShownOnceRead) {
  RunMetrics m;
  EXPECT_EQ(RenderPrometheus(m.Read()).find("floe_postgres_slot"), std::string::npos);
  SlotWalMetrics w;
  w.slot = "floe";
  w.retained_bytes = 123456;
  w.unconfirmed_bytes = 4096;
  w.confirmed_lsn = 0x1'6B37'4D48;  // past 2^32: the integer is printed whole
  w.confirmed_lsn_text = "1/6B374D48";
  m.SetSlotWal(w);
  MetricsSnapshot s = m.Read();
  auto samples = ParseSamples(RenderPrometheus(s));
  EXPECT_EQ(samples.at("floe_postgres_slot_retained_wal_bytes{slot=\"floe\"}"), 123456);
  EXPECT_EQ(samples.at("floe_postgres_slot_unconfirmed_wal_bytes{slot=\"floe\"}"), 4096);
  EXPECT_NE(RenderPrometheus(s).find("floe_postgres_slot_confirmed_flush_lsn{slot=\"floe\",lsn="
                                     "\"1/6B374D48\"} 6093753672\n"),
            std::string::npos);
  auto j = nlohmann::json::parse(RenderStatusJson(s));
  EXPECT_EQ(j["postgres_slot"]["retained_wal_bytes"], 123456);
  EXPECT_EQ(j["postgres_slot"]["confirmed_flush_lsn"], "1/6B374D48");
  EXPECT_GT(j["postgres_slot"]["read_unix_ms"].get<int64_t>(), 0);
  EXPECT_NE(RenderStatusHtml(s).find("0.1 MiB (floe confirmed 1/6B374D48)"), std::string::npos);
}

TEST(HumanSeconds, PicksAReadableUnit) {
  EXPECT_EQ(HumanSeconds(0.012), "12 ms");
  EXPECT_EQ(HumanSeconds(3.44), "3.4 s");
  EXPECT_EQ(HumanSeconds(125), "2 min 5 s");
  EXPECT_EQ(HumanSeconds(-1), "—");
}

}  // namespace
}  // namespace floe::run
