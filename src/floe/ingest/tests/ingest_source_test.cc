#include "floe/ingest/ingest_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "floe/ingest/tests/test_catalog.h"

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

}  // namespace
}  // namespace floe::ingest
