#include "floe/run/kafka_source.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/common/json_dump.h"
#include "floe/run/run_metrics.h"
#include "floe/sink/router.h"

namespace floe::run {

namespace {

constexpr int kStateVersion = 1;

/// The checkpoint state of the source.
struct SourceState {
  kafka::PartitionOffsets offsets;
  int64_t messages = 0;
  ingest::ChangeCounts counts;
  /// Primary keys announced by schema-change events and canal's pkNames.
  std::vector<ingest::NotedPrimaryKey> primary_keys;
};

std::string SerializeState(const SourceState& s) {
  nlohmann::json j;
  j["version"] = kStateVersion;
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& [tp, offset] : s.offsets) {
    offsets.push_back({{"topic", tp.topic}, {"partition", tp.partition}, {"offset", offset}});
  }
  j["offsets"] = std::move(offsets);
  j["counts"] = {{"messages", s.messages}, {"rows", s.counts.rows}, {"skipped", s.counts.skipped}};
  if (!s.primary_keys.empty()) j["primary_keys"] = ingest::NotedPrimaryKeysToJson(s.primary_keys);
  return DumpJson(j);  // never throws on a name that is not UTF-8
}

Result<SourceState> ParseState(std::string_view text) {
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("version", 0) != kStateVersion) {
      return Corruption("kafka source state: unknown version in {}", std::string(text));
    }
    SourceState s;
    for (const auto& o : j.at("offsets")) {
      kafka::TopicPartition tp{o.at("topic").get<std::string>(), o.at("partition").get<int32_t>()};
      int64_t offset = o.at("offset").get<int64_t>();
      if (tp.partition < 0 || offset < 0) {
        return Corruption("kafka source state: a negative partition or offset in {}",
                          std::string(text));
      }
      s.offsets[std::move(tp)] = offset;
    }
    if (auto c = j.find("counts"); c != j.end()) {
      s.messages = c->value("messages", int64_t{0});
      s.counts.rows = c->value("rows", int64_t{0});
      s.counts.skipped = c->value("skipped", int64_t{0});
    }
    if (auto keys = j.find("primary_keys"); keys != j.end()) {
      s.primary_keys = ingest::NotedPrimaryKeysFromJson(*keys);
    }
    return s;
  } catch (const std::exception& e) {
    return Corruption("kafka source state: {}", e.what());
  }
}

}  // namespace

Status ValidateKafkaSourceOptions(const KafkaSourceOptions& options) {
  if (options.format != ingest::InputFormat::kDebeziumJson &&
      options.format != ingest::InputFormat::kCanalJson) {
    return InvalidArgument("value.format '{}' is not supported (use debezium-json or canal-json)",
                           ingest::InputFormatName(options.format));
  }
  if (!options.sink.catalog) return InvalidArgument("no catalog");
  return ingest::ValidateTableResolverOptions(options.tables);
}

std::string KafkaPositionText(const kafka::PartitionOffsets& offsets) {
  std::string text;
  for (const auto& [tp, offset] : offsets) {
    if (!text.empty()) text += ',';
    text += fmt::format("{}:{}", kafka::TopicPartitionName(tp), offset);
  }
  return text;
}

struct KafkaSource::Impl final : ingest::ChangeEventHooks {
  KafkaSourceOptions options;
  std::shared_ptr<sink::CheckpointPositions> positions;
  ingest::IngestStats* stats;
  ingest::IngestStats own_stats;  // when none is given

  int subtask = 0;
  std::unique_ptr<ingest::TableResolver> resolver;
  std::unique_ptr<sink::RowBatcher> batcher;
  std::unique_ptr<ingest::ChangeEventHandler> handler;
  std::unique_ptr<kafka::KafkaConsumer> consumer;
  engine::Collector<sink::RowBatch>* out = nullptr;

  /// Every partition's next offset as far as this member knows: restored,
  /// owned now, or owned before a rebalance took it away.
  kafka::PartitionOffsets offsets;
  /// The offsets of checkpoints taken and not yet completed, by id.
  std::map<engine::CheckpointId, kafka::PartitionOffsets> pending;
  int64_t messages = 0;
  int64_t handed_on = 0;  ///< messages since the last metrics publication
  /// Row changes per sink table since then, and the newest source commit
  /// time among them (for /metrics).
  TableTallies tallies;
  int64_t last_ts_ms = 0;
  /// The last message key read, and its fields (ReadKeyFields).
  std::string last_key;
  std::vector<std::string> key_fields;
  /// The message being handled (for the hooks).
  const kafka::KafkaMessage* current = nullptr;

  Impl(KafkaSourceOptions o, std::shared_ptr<sink::CheckpointPositions> p, ingest::IngestStats* s)
      : options(std::move(o)), positions(std::move(p)), stats(s != nullptr ? s : &own_stats) {}

  std::string Where() const {
    return fmt::format("{}[{}] offset {}", current->topic, current->partition, current->offset);
  }

  Status BadEvent(const Error& error) override {
    return std::unexpected(Error(error.code(), fmt::format("{}: {}", Where(), error.message())));
  }
  Error JobError(Error error) override { return std::move(error).WithContext(Where()); }

  Status Handle(const kafka::KafkaMessage& message) {
    current = &message;
    ++messages;
    ++handed_on;
    stats->events_read.fetch_add(1, std::memory_order_relaxed);
    stats->bytes_read.fetch_add(static_cast<int64_t>(message.value.size()),
                                std::memory_order_relaxed);
    if (message.is_tombstone || message.value.empty()) {
      handler->CountSkipped();
      return Ok();
    }
    if (options.format == ingest::InputFormat::kDebeziumJson && message.has_key) {
      ReadKeyFields(message.key);
      return handler->HandleDebezium(message.value, *this, &key_fields);
    }
    return handler->Handle(options.format, message.value, *this);
  }

  /// The field names of a Debezium message key — {"schema": …, "payload":
  /// {"id": 1}} or, without a schema, {"id": 1} — into `key_fields`, in
  /// their order: the table's primary key. A key of another shape (not
  /// JSON, a plain value) names no field.
  void ReadKeyFields(std::string_view key) {
    if (key == last_key) return;
    last_key.assign(key);
    key_fields.clear();
    auto j = nlohmann::ordered_json::parse(key, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return;
    const nlohmann::ordered_json* fields = &j;
    if (auto payload = j.find("payload"); payload != j.end() && j.contains("schema")) {
      fields = &*payload;
    }
    if (!fields->is_object()) return;
    for (const auto& [name, value] : fields->items()) key_fields.push_back(name);
  }

  /// Takes in the consumer's positions (and those of revoked partitions).
  void UpdateOffsets() {
    for (const auto& [tp, offset] : consumer->TakeRevoked()) offsets[tp] = offset;
    for (const auto& [tp, offset] : consumer->positions()) offsets[tp] = offset;
  }

  /// Commits to the group the offsets of the newest checkpoint whose Iceberg
  /// commits are all done (CheckpointPositions::CommittedThrough), for the
  /// partitions this member owns now (the group refuses the others). A
  /// failure is logged: the group's offsets are for monitoring only.
  void CommitToGroup() {
    if (!positions || pending.empty()) return;
    const engine::CheckpointId through = positions->CommittedThrough();
    auto end = pending.upper_bound(through);
    if (end == pending.begin()) return;
    const auto& [id, done] = *std::prev(end);
    kafka::PartitionOffsets owned;
    for (const kafka::TopicPartition& tp : consumer->Assignment()) {
      if (auto o = done.find(tp); o != done.end()) owned.insert(*o);
    }
    if (!owned.empty()) {
      if (Status committed = consumer->CommitToGroup(owned); !committed) {
        spdlog::warn("kafka source: committing checkpoint {}'s offsets to the group failed: {}", id,
                     committed.error().ToString());
      }
    }
    pending.erase(pending.begin(), end);
  }

  void Publish() {
    handler->PublishTableRows();
    if (options.metrics == nullptr || (handed_on == 0 && tallies.empty())) return;
    UpdateOffsets();
    options.metrics->PublishHandedOn(tallies, handed_on, KafkaPositionText(offsets), last_ts_ms);
    tallies.clear();
    handed_on = 0;
  }
};

KafkaSource::KafkaSource(KafkaSourceOptions options,
                         std::shared_ptr<sink::CheckpointPositions> positions,
                         ingest::IngestStats* stats)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(positions), stats)) {}

KafkaSource::~KafkaSource() = default;

Status KafkaSource::Open(const engine::OperatorContext& context,
                         const engine::RestoredState& state) {
  Impl& s = *impl_;
  s.subtask = context.subtask;
  FLOE_RETURN_IF_ERROR(ValidateKafkaSourceOptions(s.options));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, s.options.sink.catalog());
  s.resolver =
      std::make_unique<ingest::TableResolver>(s.options.tables, std::move(catalog), s.stats);
  s.batcher = std::make_unique<sink::RowBatcher>(s.options.sink, s.options.batch_rows);
  s.handler =
      std::make_unique<ingest::ChangeEventHandler>(s.resolver.get(), s.batcher.get(), s.stats);
  if (s.options.metrics != nullptr) {
    s.handler->set_change_observer(
        [&s](const sink::TableTarget& target, cdc::ChangeOp op, int64_t ts_ms) {
          s.tallies[target.key].Count(op, ts_ms);
          s.last_ts_ms = std::max(s.last_ts_ms, ts_ms);
        });
  }
  if (state.own && !state.own->empty()) {
    FLOE_ASSIGN_OR_RETURN(SourceState restored, ParseState(*state.own));
    for (auto& key : restored.primary_keys) {
      s.resolver->NotePrimaryKey(key.db, key.table, std::move(key.columns));
    }
    s.offsets = std::move(restored.offsets);
    s.messages = restored.messages;
    s.handler->counts() = restored.counts;
    spdlog::info(
        "kafka source: resuming from checkpoint {} at {}", state.checkpoint_id,
        s.offsets.empty() ? std::string("(no partition yet)") : KafkaPositionText(s.offsets));
  }
  FLOE_ASSIGN_OR_RETURN(s.consumer, kafka::KafkaConsumer::Open(s.options.consumer, s.offsets));
  return Ok();
}

Result<bool> KafkaSource::Poll(engine::Collector<sink::RowBatch>& out) {
  Impl& s = *impl_;
  s.out = &out;
  s.handler->set_output(&out);
  auto polled = s.consumer->Poll(s.options.max_poll_time, s.options.max_messages_per_poll,
                                 [&s](const kafka::KafkaMessage& m) { return s.Handle(m); });
  if (!polled) return std::unexpected(std::move(polled).error());
  FLOE_RETURN_IF_ERROR(s.batcher->Flush(out));
  s.Publish();
  s.CommitToGroup();
  return true;
}

Result<std::string> KafkaSource::SnapshotState(engine::CheckpointId id) {
  Impl& s = *impl_;
  if (s.out != nullptr) FLOE_RETURN_IF_ERROR(s.batcher->Flush(*s.out));
  s.batcher->CheckpointBoundary();
  s.UpdateOffsets();
  SourceState state;
  state.offsets = s.offsets;
  state.messages = s.messages;
  state.counts = s.handler->counts();
  state.primary_keys = s.resolver->NotedPrimaryKeys();
  if (s.positions) s.positions->Put(id, s.subtask, KafkaPositionText(s.offsets));
  s.pending[id] = s.offsets;
  s.Publish();
  if (s.options.metrics != nullptr) s.options.metrics->CheckpointTaken(id);
  return SerializeState(state);
}

Status KafkaSource::NotifyCheckpointComplete(engine::CheckpointId id) {
  Impl& s = *impl_;
  if (s.options.metrics != nullptr) s.options.metrics->CheckpointCompleted(id);
  s.CommitToGroup();
  return Ok();
}

void KafkaSource::Close() {
  Impl& s = *impl_;
  if (s.handler) s.Publish();
  if (s.consumer) s.consumer->Close();
}

}  // namespace floe::run
