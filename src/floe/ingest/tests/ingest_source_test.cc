#include "floe/ingest/ingest_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/ingest/tests/test_catalog.h"
#include "floe/testing/fault_file_io.h"

namespace floe::ingest {
namespace {

using sink::RowKind;

/// Keeps every batch the source emits.
class Recorder : public engine::Collector<sink::RowBatch> {
 public:
  Status Emit(sink::RowBatch batch) override {
    batches.push_back(std::move(batch));
    return Ok();
  }
  /// "table kind id" per row (id: the first column, a long).
  std::vector<std::string> Rows() const {
    std::vector<std::string> out;
    for (const auto& b : batches) {
      for (size_t i = 0; i < b.size(); ++i) {
        static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
        const auto& v = b.rows[i][0];
        out.push_back(b.target->key + " " + kKinds[static_cast<int>(b.kinds[i])] + " " +
                      (v.is_null() ? "null" : std::to_string(v.i64)));
      }
    }
    return out;
  }
  std::vector<sink::RowBatch> batches;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A Debezium event with the Kafka Connect schema block (id long, name string).
std::string Debezium(std::string_view op, std::string_view before, std::string_view after,
                     std::string_view table = "t", bool with_schema = true) {
  std::string row_schema =
      R"({"type":"struct","optional":true,"fields":[{"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"string","optional":true,"field":"name"}],"name":"db.t.Value","field":"FIELD"})";
  auto field = [&](std::string_view name) {
    std::string s = row_schema;
    s.replace(s.find("FIELD"), 5, name);
    return s;
  };
  std::string schema =
      R"({"type":"struct","name":"db.t.Envelope","optional":false,"fields":[)" + field("before") +
      "," + field("after") +
      R"(,{"type":"struct","optional":false,"field":"source","fields":[)"
      R"({"type":"string","optional":false,"field":"db"},{"type":"string","optional":false,"field":"table"}]},)"
      R"({"type":"string","optional":false,"field":"op"},{"type":"int64","optional":true,"field":"ts_ms"}]})";
  std::string payload = fmt::format(
      R"({{"before":{},"after":{},"source":{{"db":"db","table":"{}"}},"op":"{}","ts_ms":1}})",
      before, after, table, op);
  if (!with_schema) return payload;
  return R"({"schema":)" + schema + R"(,"payload":)" + payload + "}";
}

class IngestSourceTest : public ::testing::Test {
 protected:
  IngestSourceTest() : catalog_(testing::MakeHadoopCatalog(dir_ / "warehouse")) {
    input_ = dir_ / "events.jsonl";
    dead_letters_ = dir_ / "dead.jsonl";
  }

  void WriteInput(const std::vector<std::string>& lines) {
    std::ofstream out(input_, std::ios::binary | std::ios::trunc);
    for (const auto& l : lines) out << l << "\n";
  }

  IngestSourceOptions JsonOptions() {
    IngestSourceOptions o;
    o.inputs = {input_};
    o.format = InputFormat::kJson;
    o.tables.table = iceberg::TableIdentifier{{"ns"}, "rows"};
    o.tables.schema = std::make_shared<const types::Schema>(std::vector<types::NestedField>{
        {1, "id", true, types::Type::Long(), ""}, {2, "name", false, types::Type::String(), ""}});
    o.sink.catalog = [c = catalog_]() -> Result<std::shared_ptr<iceberg::Catalog>> { return c; };
    return o;
  }

  IngestSourceOptions DebeziumOptions() {
    IngestSourceOptions o;
    o.inputs = {input_};
    o.tables.route = "{db}.{table}";
    o.tables.primary_key = {"id"};
    o.sink.catalog = [c = catalog_]() -> Result<std::shared_ptr<iceberg::Catalog>> { return c; };
    return o;
  }

  std::unique_ptr<IngestSource> Open(IngestSourceOptions options,
                                     std::optional<std::string> state = std::nullopt) {
    auto source = std::make_unique<IngestSource>(std::move(options), positions_, &stats_);
    engine::RestoredState restored;
    restored.own = std::move(state);
    restored.checkpoint_id = restored.own ? 1 : 0;
    auto s = source->Open(engine::OperatorContext{"source", 0, 1}, restored);
    EXPECT_TRUE(s.has_value()) << s.error().ToString();
    return source;
  }

  /// Polls until the end of input; returns the first error, if any.
  static Status Drain(IngestSource& source, Recorder& out) {
    for (int i = 0; i < 1000; ++i) {
      FLOE_ASSIGN_OR_RETURN(bool more, source.Poll(out));
      if (!more) return Ok();
    }
    return InternalError("no end of input");
  }

  testing::TempDir dir_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  std::shared_ptr<sink::CheckpointPositions> positions_ =
      std::make_shared<sink::CheckpointPositions>();
  IngestStats stats_;
  std::string input_;
  std::string dead_letters_;
};

TEST_F(IngestSourceTest, JsonRowsStateAndPosition) {
  WriteInput({R"({"id": 1, "name": "a"})", "", R"({"id": 2})", R"({"id": 3, "name": "c"})"});
  auto options = JsonOptions();
  options.max_lines_per_poll = 2;
  auto source = Open(options);
  Recorder out;
  auto more = source->Poll(out);
  ASSERT_TRUE(more.has_value()) << more.error().ToString();
  EXPECT_TRUE(*more);
  // Poll flushes: the rows read are emitted before it returns.
  EXPECT_EQ(out.Rows(), (std::vector<std::string>{"ns.rows +I 1", "ns.rows +I 2"}));

  auto state = source->SnapshotState(7);
  ASSERT_TRUE(state.has_value());
  auto j = nlohmann::json::parse(*state);
  EXPECT_EQ(j["file"], input_);
  EXPECT_EQ(j["offset"], 34);  // after line 3 ({"id": 2})
  EXPECT_EQ(j["line"], 3);
  EXPECT_EQ(j["counts"]["rows"], 2);
  EXPECT_EQ(positions_->Get(7), input_ + ":34");

  // A restart from that state reads only what follows.
  auto resumed = Open(options, *state);
  Recorder rest;
  ASSERT_TRUE(Drain(*resumed, rest).has_value());
  EXPECT_EQ(rest.Rows(), (std::vector<std::string>{"ns.rows +I 3"}));
  auto final_state = nlohmann::json::parse(*resumed->SnapshotState(8));
  EXPECT_EQ(final_state["offset"], std::filesystem::file_size(input_));
  EXPECT_EQ(final_state["counts"]["rows"], 3);  // totals carry over restarts
  EXPECT_EQ(stats_.RowsPerTable()["ns.rows"], 3);
}

TEST_F(IngestSourceTest, StateForAnotherInputIsRefused) {
  WriteInput({R"({"id": 1})"});
  auto source = std::make_unique<IngestSource>(JsonOptions(), positions_, &stats_);
  engine::RestoredState restored;
  restored.own = R"({"version":1,"input_index":0,"file":"/elsewhere.jsonl","offset":3,"line":1})";
  auto s = source->Open(engine::OperatorContext{"source", 0, 1}, restored);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("/elsewhere.jsonl"), std::string::npos);
}

TEST_F(IngestSourceTest, OnErrorFailNamesFileLineOffsetAndReason) {
  WriteInput({R"({"id": 1})", R"({"id": "one"})", R"({"id": 3})"});
  auto source = Open(JsonOptions());
  Recorder out;
  Status s = Drain(*source, out);
  ASSERT_FALSE(s.has_value());
  const std::string& message = s.error().message();
  EXPECT_NE(message.find(input_ + ":2 (offset 10): "), std::string::npos) << message;
  EXPECT_NE(message.find("id"), std::string::npos) << message;
}

TEST_F(IngestSourceTest, OnErrorSkipWritesDeadLettersOnceAcrossRestarts) {
  WriteInput(
      {R"({"id": 1})", R"({"id": 2})", R"({"id": "bad"})", R"({"id": 4})", R"({"name": "no id"})"});
  auto options = JsonOptions();
  options.on_error = OnError::kSkip;
  options.dead_letter_path = dead_letters_;
  options.max_lines_per_poll = 2;
  std::string checkpoint;
  {
    auto source = Open(options);
    Recorder out;
    ASSERT_TRUE(source->Poll(out).has_value());
    checkpoint = *source->SnapshotState(1);  // after line 2: no dead letter yet
    EXPECT_EQ(nlohmann::json::parse(checkpoint)["dead_letter_bytes"], 0);
    ASSERT_TRUE(Drain(*source, out).has_value());
    EXPECT_EQ(out.Rows(),
              (std::vector<std::string>{"ns.rows +I 1", "ns.rows +I 2", "ns.rows +I 4"}));
    // Crash without a checkpoint: the letters written after it are replayed.
  }
  EXPECT_EQ(stats_.dead_letters.load(), 2);
  auto resumed = Open(options, checkpoint);
  Recorder out;
  ASSERT_TRUE(Drain(*resumed, out).has_value());
  EXPECT_EQ(out.Rows(), (std::vector<std::string>{"ns.rows +I 4"}));
  auto state = nlohmann::json::parse(*resumed->SnapshotState(2));
  EXPECT_EQ(state["counts"]["dead_letters"], 2);

  std::string letters = ReadFile(dead_letters_);
  EXPECT_EQ(state["dead_letter_bytes"], letters.size());
  std::vector<nlohmann::json> parsed;
  std::istringstream lines(letters);
  for (std::string l; std::getline(lines, l);) parsed.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(parsed.size(), 2u) << letters;  // not 4: the restore truncated the file
  EXPECT_EQ(parsed[0]["file"], input_);
  EXPECT_EQ(parsed[0]["line"], 3);
  EXPECT_EQ(parsed[0]["offset"], 20);
  EXPECT_EQ(parsed[0]["event"], R"({"id": "bad"})");
  EXPECT_FALSE(parsed[0]["error"].get<std::string>().empty());
  EXPECT_EQ(parsed[1]["line"], 5);
  EXPECT_NE(parsed[1]["error"].get<std::string>().find("id"), std::string::npos);
}

// The dead-letter file is written through IngestSourceOptions::file_io: a
// power loss after a checkpoint keeps the letters that checkpoint synced,
// the restore cuts nothing it needs, and the letters after it are written
// again once, not twice.
TEST_F(IngestSourceTest, DeadLettersSyncedAtACheckpointSurviveAPowerLoss) {
  WriteInput(
      {R"({"id": 1})", R"({"id": "bad"})", R"({"id": 3})", R"({"id": 4})", R"({"name": "no id"})"});
  auto faulty = std::make_shared<::floe::testing::FaultyFileIO>();
  auto options = JsonOptions();
  options.on_error = OnError::kSkip;
  options.dead_letter_path = dead_letters_;
  options.max_lines_per_poll = 3;
  options.file_io = faulty;
  std::string checkpoint;
  {
    auto source = Open(options);
    Recorder out;
    ASSERT_TRUE(source->Poll(out).has_value());
    checkpoint = *source->SnapshotState(1);  // after line 3: one letter, synced
    ASSERT_TRUE(Drain(*source, out).has_value());
    EXPECT_EQ(stats_.dead_letters.load(), 2);
  }
  faulty->LoseUnsyncedWrites();  // the second letter was never synced
  size_t synced = nlohmann::json::parse(checkpoint)["dead_letter_bytes"].get<size_t>();
  ASSERT_GT(synced, 0u);
  EXPECT_EQ(ReadFile(dead_letters_).size(), synced);

  options.file_io = nullptr;  // the restart writes local files itself
  auto resumed = Open(options, checkpoint);
  Recorder out;
  ASSERT_TRUE(Drain(*resumed, out).has_value());
  auto state = nlohmann::json::parse(*resumed->SnapshotState(2));
  std::string letters = ReadFile(dead_letters_);
  EXPECT_EQ(state["dead_letter_bytes"], letters.size());
  EXPECT_EQ(std::count(letters.begin(), letters.end(), '\n'), 2) << letters;
}

TEST_F(IngestSourceTest, AFailedSyncOfTheDeadLetterFileFailsTheCheckpoint) {
  WriteInput({R"({"id": "bad"})", R"({"id": 2})"});
  auto faulty = std::make_shared<::floe::testing::FaultyFileIO>();
  auto options = JsonOptions();
  options.on_error = OnError::kSkip;
  options.dead_letter_path = dead_letters_;
  options.file_io = faulty;
  auto source = Open(options);
  Recorder out;
  ASSERT_TRUE(Drain(*source, out).has_value());
  faulty->Arm(
      {.contains = "dead", .suffix = "", .step = ::floe::testing::FaultStep::kCall, .nth = 1});
  auto state = source->SnapshotState(1);
  ASSERT_FALSE(state.has_value());
  EXPECT_NE(state.error().ToString().find("dead-letter file"), std::string::npos)
      << state.error().ToString();
}

TEST_F(IngestSourceTest, DebeziumOpsBecomeRowKinds) {
  WriteInput({
      Debezium("c", "null", R"({"id":1,"name":"a"})"),
      Debezium("r", "null", R"({"id":2,"name":"b"})"),
      "null",  // tombstone
      Debezium("u", R"({"id":1,"name":"a"})", R"({"id":1,"name":"A"})"),
      Debezium("d", R"({"id":2,"name":"b"})", "null"),
      // No before image: the row with the after image's key is replaced.
      Debezium("u", "null", R"({"id":1,"name":"B"})"),
  });
  auto source = Open(DebeziumOptions());
  Recorder out;
  Status s = Drain(*source, out);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(out.Rows(),
            (std::vector<std::string>{"db.t +I 1", "db.t +I 2", "db.t -U 1", "db.t +U 1",
                                      "db.t -D 2", "db.t -U 1", "db.t +U 1"}));
  EXPECT_EQ(stats_.events_skipped.load(), 1);
  EXPECT_EQ(stats_.events_read.load(), 6);
  auto table = catalog_->LoadTable({{"db"}, "t"});
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->metadata.CurrentSchema()->identifier_field_ids().size(), 1u);
}

TEST_F(IngestSourceTest, DebeziumBadEvents) {
  struct Case {
    std::string line;
    std::string reason;
  };
  std::vector<Case> cases = {
      {R"({"payload": {"op": "c", "after": {"id": 1)", "JSON"},
      {Debezium("x", "null", R"({"id":1,"name":"a"})"), "op"},
      {Debezium("c", "null", R"({"id":"one","name":"a"})"), "id"},
      {Debezium("d", R"({"id":5})", "null", "never_seen", /*with_schema=*/false), "never_seen"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    WriteInput({Debezium("c", "null", R"({"id":1,"name":"a"})"), c.line});
    auto source = Open(DebeziumOptions());
    Recorder out;
    Status s = Drain(*source, out);
    ASSERT_FALSE(s.has_value());
    const std::string& message = s.error().message();
    size_t first_line = ReadFile(input_).find('\n') + 1;
    EXPECT_NE(message.find(fmt::format("{}:2 (offset {}): ", input_, first_line)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(c.reason), std::string::npos) << message;
  }
}

TEST_F(IngestSourceTest, DebeziumWithoutSchemaBlockUsesTheTableSchema) {
  WriteInput({
      Debezium("c", "null", R"({"id":1,"name":"a"})"),  // creates db.t
      Debezium("c", "null", R"({"name":"b","id":2})", "t", /*with_schema=*/false),
      Debezium("d", R"({"id":1})", "null", "t", /*with_schema=*/false),
  });
  auto source = Open(DebeziumOptions());
  Recorder out;
  Status s = Drain(*source, out);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(out.Rows(), (std::vector<std::string>{"db.t +I 1", "db.t +I 2", "db.t -D 1"}));
}

TEST_F(IngestSourceTest, FollowReturnsWithinThePollBudget) {
  WriteInput({R"({"id": 1})"});
  auto options = JsonOptions();
  options.follow = true;
  options.max_poll_time = std::chrono::milliseconds(100);
  auto source = Open(options);
  Recorder out;
  auto start = std::chrono::steady_clock::now();
  auto more = source->Poll(out);
  ASSERT_TRUE(more.has_value());
  EXPECT_TRUE(*more);  // following never ends
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_EQ(out.Rows(), (std::vector<std::string>{"ns.rows +I 1"}));
  {
    std::ofstream append(input_, std::ios::app);
    append << R"({"id": 2})"
           << "\n";
  }
  ASSERT_TRUE(source->Poll(out).has_value());
  EXPECT_EQ(out.Rows().size(), 2u);
}

// ------------------------------------------------------------ parallel decoding

/// Every batch as text: "T table" for a truncation, else one
/// "table kind v1 v2 ..." per row: every column of an insert or update-after,
/// the first (the key) of a before image (-U, -D), whose other columns the
/// writers do not read and the reader may leave null
/// (cdc::DebeziumJsonReader::LimitBeforeImage).
std::vector<std::string> Everything(const Recorder& r) {
  std::vector<std::string> out;
  for (const auto& b : r.batches) {
    if (b.truncate) out.push_back("T " + b.target->key);
    for (size_t i = 0; i < b.size(); ++i) {
      static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
      std::string row = b.target->key + " " + kKinds[static_cast<int>(b.kinds[i])];
      bool before_image = b.kinds[i] == RowKind::kUpdateBefore || b.kinds[i] == RowKind::kDelete;
      for (const types::Value& v : b.rows[i]) {
        if (before_image && &v != &b.rows[i][0]) break;
        switch (v.kind) {
          case types::Value::Kind::kNull:
            row += " null";
            break;
          case types::Value::Kind::kInt32:
            row += " " + std::to_string(v.i32);
            break;
          case types::Value::Kind::kInt64:
            row += " " + std::to_string(v.i64);
            break;
          case types::Value::Kind::kBytes:
            row += " '" + std::string(v.as_bytes()) + "'";
            break;
          default:
            row += " ?";
            break;
        }
      }
      out.push_back(std::move(row));
    }
  }
  return out;
}

/// A Debezium event whose schema block has a third column, "age" (int32).
std::string DebeziumWithAge(std::string_view op, std::string_view before, std::string_view after,
                            std::string_view table = "t") {
  std::string line = Debezium(op, before, after, table);
  const std::string name_field = R"({"type":"string","optional":true,"field":"name"})";
  const std::string age_field = R"(,{"type":"int32","optional":true,"field":"age"})";
  for (size_t at = line.find(name_field); at != std::string::npos;
       at = line.find(name_field, at + 1)) {
    line.insert(at + name_field.size(), age_field);
  }
  return line;
}

/// What one run of the source over the fixture's input made.
struct Outcome {
  std::vector<std::string> rows;
  std::string dead_letters;
  nlohmann::json state;
  std::string error;
};

/// The rows of each table, in the order they were emitted ("T db.t" is a
/// truncation of db.t). Parallel decoding keeps the order within a table; how
/// the batches of different tables interleave depends on when polls end.
std::map<std::string, std::vector<std::string>> RowsByTable(const std::vector<std::string>& rows) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& row : rows) {
    std::string table = row.substr(0, row.find(' '));
    if (table == "T") table = row.substr(2);
    out[table].push_back(row);
  }
  return out;
}

class ParallelDecodeTest : public IngestSourceTest {
 protected:
  /// Drains the input with `decode_parallelism` decoders into a fresh
  /// warehouse; with `restart_after_first_poll`, takes a checkpoint after the
  /// first Poll, drops the source (a crash) and resumes from it.
  Outcome DrainWith(IngestSourceOptions options, size_t decode_parallelism,
                    bool restart_after_first_poll = false) {
    auto catalog = testing::MakeHadoopCatalog(dir_ / ("warehouse" + std::to_string(++runs_)));
    options.sink.catalog = [catalog]() -> Result<std::shared_ptr<iceberg::Catalog>> {
      return catalog;
    };
    options.decode_parallelism = decode_parallelism;
    options.decode_chunk_lines = 100;
    options.max_lines_per_poll = 250;
    options.dead_letter_path = dir_ / ("dead" + std::to_string(runs_) + ".jsonl");
    Outcome run;
    Recorder out;
    std::optional<std::string> checkpoint;
    auto source = Open(options);
    if (restart_after_first_poll) {
      auto more = source->Poll(out);
      EXPECT_TRUE(more.has_value());
      checkpoint = *source->SnapshotState(1);
      // Rows after the checkpoint and dead letters written since are lost.
      Recorder lost;
      (void)IngestSourceTest::Drain(*source, lost);
      source = Open(options, checkpoint);
    }
    Status s = IngestSourceTest::Drain(*source, out);
    if (!s) run.error = s.error().message();
    run.rows = Everything(out);
    run.dead_letters = ReadFile(options.dead_letter_path);
    run.state = nlohmann::json::parse(*source->SnapshotState(2));
    return run;
  }

  int runs_ = 0;
};

TEST_F(ParallelDecodeTest, JsonRowsAreTheSameInOrderWithDeadLettersAndPositions) {
  std::vector<std::string> lines;
  int bad = 0;
  for (int i = 0; i < 1000; ++i) {
    if (i % 97 == 13) {
      lines.push_back(R"({"id": "bad"})");
      ++bad;
    } else if (i % 89 == 5) {
      lines.push_back(R"({"name": "no id"})");
      ++bad;
    } else if (i % 101 == 7) {
      lines.push_back("");
    } else {
      lines.push_back(fmt::format(R"({{"id": {}, "name": "n{}"}})", i, i));
    }
  }
  WriteInput(lines);
  auto options = JsonOptions();
  options.on_error = OnError::kSkip;
  Outcome sequential = DrainWith(options, 1);
  ASSERT_EQ(sequential.error, "");
  Outcome parallel = DrainWith(options, 3);
  ASSERT_EQ(parallel.error, "");
  EXPECT_EQ(parallel.rows, sequential.rows);
  EXPECT_GT(sequential.rows.size(), 950u);
  EXPECT_EQ(sequential.rows[1], "ns.rows +I 1 'n1'");
  EXPECT_EQ(parallel.dead_letters, sequential.dead_letters);
  EXPECT_EQ(std::count(parallel.dead_letters.begin(), parallel.dead_letters.end(), '\n'), bad);
  EXPECT_EQ(parallel.state["offset"], std::filesystem::file_size(input_));
  EXPECT_EQ(parallel.state, sequential.state);

  // A crash after the first checkpoint: with the rows emitted before it, the
  // resumed run emits every row once, and the dead-letter file holds each
  // bad line once.
  Outcome restarted = DrainWith(options, 3, /*restart_after_first_poll=*/true);
  ASSERT_EQ(restarted.error, "");
  EXPECT_EQ(restarted.dead_letters, sequential.dead_letters);
  EXPECT_EQ(restarted.state["counts"], sequential.state["counts"]);
  EXPECT_EQ(restarted.rows, sequential.rows);
}

TEST_F(ParallelDecodeTest, JsonBadLineFailsWithItsFileLineAndOffset) {
  std::vector<std::string> lines;
  for (int i = 0; i < 500; ++i) lines.push_back(fmt::format(R"({{"id": {}}})", i));
  lines[321] = R"({"id": 1.5})";
  WriteInput(lines);
  Outcome sequential = DrainWith(JsonOptions(), 1);
  Outcome parallel = DrainWith(JsonOptions(), 2);
  EXPECT_NE(sequential.error.find(input_ + ":322 (offset "), std::string::npos) << sequential.error;
  EXPECT_EQ(parallel.error, sequential.error);
}

TEST_F(ParallelDecodeTest, DebeziumChangesKeepTheirOrderAcrossTablesSchemasAndTruncations) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1200; ++i) {
    std::string table = i % 3 == 0 ? "u" : "t";
    int id = i % 17;
    std::string row = fmt::format(R"({{"id":{},"name":"v{}"}})", id, i);
    std::string old_row = fmt::format(R"({{"id":{},"name":"x"}})", id);
    switch (i % 11) {
      case 0:
        lines.push_back(Debezium("c", "null", row, table));
        break;
      case 1:
        lines.push_back(Debezium("u", old_row, row, table));
        break;
      case 2:
        lines.push_back(Debezium("d", old_row, "null", table));
        break;
      // Without a schema block: decoded with the table's schema, which the
      // lines before it may have changed.
      case 3:
        lines.push_back(Debezium("u", "null", row, table, false));
        break;
      case 4:
        lines.push_back(Debezium("d", old_row, "null", table, false));
        break;
      case 5:
        lines.push_back("null");
        break;
      case 6:
        lines.push_back(Debezium("c", "null", fmt::format(R"({{"id":"bad{}"}})", i), table));
        break;
      case 7:
        lines.push_back(R"({"payload": {"op": "c", "after": {)");
        break;
      case 8:
        if (i > 600) {  // the table gains a column
          lines.push_back(DebeziumWithAge(
              "u", old_row, fmt::format(R"({{"id":{},"name":"a{}","age":{}}})", id, i, i), table));
        } else {
          lines.push_back(Debezium("r", "null", row, table));
        }
        break;
      case 9:
        if (i % 4 == 1) {
          lines.push_back(fmt::format(
              R"({{"payload":{{"op":"t","before":null,"after":null,"source":{{"db":"db","table":"{}"}},"ts_ms":1}}}})",
              table));
        } else {
          lines.push_back(Debezium("u", old_row, row, table));
        }
        break;
      default:
        lines.push_back(Debezium("c", "null", row, table));
        break;
    }
  }
  WriteInput(lines);
  auto options = DebeziumOptions();
  options.on_error = OnError::kSkip;
  Outcome sequential = DrainWith(options, 1);
  ASSERT_EQ(sequential.error, "");
  EXPECT_NE(std::find(sequential.rows.begin(), sequential.rows.end(), "T db.u"),
            sequential.rows.end());
  EXPECT_GT(sequential.rows.size(), 900u);
  for (size_t decoders : {2, 3}) {
    SCOPED_TRACE(decoders);
    Outcome parallel = DrainWith(options, decoders);
    ASSERT_EQ(parallel.error, "");
    EXPECT_EQ(RowsByTable(parallel.rows), RowsByTable(sequential.rows));
    EXPECT_EQ(parallel.dead_letters, sequential.dead_letters);
    EXPECT_EQ(parallel.state, sequential.state);
  }
  Outcome restarted = DrainWith(options, 2, /*restart_after_first_poll=*/true);
  ASSERT_EQ(restarted.error, "");
  EXPECT_EQ(restarted.dead_letters, sequential.dead_letters);
  EXPECT_EQ(restarted.state["counts"], sequential.state["counts"]);
  // Every change once, in order per table. (The run that crashed evolved
  // the table, so the resumed run's rows before the evolution have one more
  // column, and its batches of the two tables interleave differently.)
  auto restarted_tables = RowsByTable(restarted.rows);
  auto sequential_tables = RowsByTable(sequential.rows);
  ASSERT_EQ(restarted_tables.size(), sequential_tables.size());
  for (const auto& [table, rows] : sequential_tables) {
    SCOPED_TRACE(table);
    const auto& resumed = restarted_tables[table];
    ASSERT_EQ(resumed.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
      EXPECT_EQ(resumed[i].substr(0, rows[i].size()), rows[i]);
  }
}

TEST_F(ParallelDecodeTest, FollowDecodesWhatIsBuffered) {
  std::vector<std::string> lines;
  for (int i = 0; i < 300; ++i) lines.push_back(fmt::format(R"({{"id": {}}})", i));
  WriteInput(lines);
  auto options = JsonOptions();
  options.follow = true;
  options.decode_parallelism = 2;
  options.max_poll_time = std::chrono::milliseconds(100);
  auto source = Open(options);
  Recorder out;
  for (int i = 0; i < 5 && out.Rows().size() < 300; ++i) ASSERT_TRUE(source->Poll(out).has_value());
  ASSERT_EQ(out.Rows().size(), 300u);
  {
    std::ofstream append(input_, std::ios::app);
    append << R"({"id": 300})"
           << "\n"
           << R"({"id": 301})";  // the last line is partial
  }
  ASSERT_TRUE(source->Poll(out).has_value());
  auto rows = out.Rows();
  ASSERT_EQ(rows.size(), 301u);
  EXPECT_EQ(rows[299], "ns.rows +I 299");
  EXPECT_EQ(rows[300], "ns.rows +I 300");
}

}  // namespace
}  // namespace floe::ingest
