#include "floe/run/kafka_source.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/common/json_dump.h"
#include "floe/common/printable.h"
#include "floe/common/random.h"
#include "floe/engine/checkpoint_store.h"
#include "floe/io/file_io.h"
#include "floe/kafka/key_partition_watch.h"
#include "floe/run/capture_source.h"
#include "floe/run/run_metrics.h"
#include "floe/sink/committed_checkpoints.h"
#include "floe/sink/router.h"

namespace floe::run {

namespace {

constexpr int kStateVersion = 1;
constexpr std::string_view kDeadLetterSuffix = ".jsonl";

/// The checkpoint state of the source.
struct SourceState {
  kafka::PartitionOffsets offsets;
  int64_t messages = 0;
  int64_t dead_letters = 0;
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
  j["counts"] = {{"messages", s.messages},
                 {"rows", s.counts.rows},
                 {"skipped", s.counts.skipped},
                 {"dead_letters", s.dead_letters}};
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
      s.dead_letters = c->value("dead_letters", int64_t{0});
    }
    if (auto keys = j.find("primary_keys"); keys != j.end()) {
      s.primary_keys = ingest::NotedPrimaryKeysFromJson(*keys);
    }
    return s;
  } catch (const std::exception& e) {
    return Corruption("kafka source state: {}", e.what());
  }
}

/// The dead-letter file of checkpoint `id` in `dir`.
std::string DeadLetterPath(std::string_view dir, engine::CheckpointId id) {
  return fmt::format("{}/{:020}{}", dir, id, kDeadLetterSuffix);
}

/// The checkpoint id of a dead-letter file's path; 0 for other files.
engine::CheckpointId DeadLetterId(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  if (name.size() != 20 + kDeadLetterSuffix.size() || !name.ends_with(kDeadLetterSuffix)) return 0;
  engine::CheckpointId id = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + 20, id);
  return ec == std::errc() && end == name.data() + 20 ? id : 0;
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

Result<kafka::PartitionOffsets> ParseKafkaPositionText(std::string_view text) {
  kafka::PartitionOffsets offsets;
  while (!text.empty()) {
    size_t comma = text.find_first_of(",;");  // ';' between source subtasks
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) {
      return Corruption("Kafka source position ends in '{}'", part);
    }
    // topic[partition]:offset; a topic name holds no '[' (Kafka allows
    // letters, digits, '.', '_' and '-').
    size_t open = part.find('[');
    size_t close = part.find("]:");
    int32_t partition = -1;
    int64_t offset = -1;
    bool good = open != std::string_view::npos && open > 0 && close != std::string_view::npos &&
                close > open + 1;
    if (good) {
      auto p = std::from_chars(part.data() + open + 1, part.data() + close, partition);
      auto o = std::from_chars(part.data() + close + 2, part.data() + part.size(), offset);
      good = p.ec == std::errc() && p.ptr == part.data() + close && o.ec == std::errc() &&
             o.ptr == part.data() + part.size() && partition >= 0 && offset >= 0;
    }
    if (!good) {
      return Corruption("Kafka source position '{}' is not topic[partition]:offset", part);
    }
    offsets[kafka::TopicPartition{std::string(part.substr(0, open)), partition}] = offset;
  }
  return offsets;
}

std::string LakeDeadLetterDir(iceberg::Catalog& catalog, const std::string& pipeline_id) {
  return LakePipelineDir(catalog, pipeline_id, "dead-letters");
}

KafkaMemberSlot::~KafkaMemberSlot() {
  if (lock_fd >= 0) ::close(lock_fd);  // releases the lock
}

Result<std::unique_ptr<KafkaMemberSlot>> JoinKafkaScaleOut(const std::string& state_dir,
                                                           KafkaSourceOptions& options) {
  namespace fs = std::filesystem;
  constexpr int kMaxSlots = 1024;
  auto slot = std::make_unique<KafkaMemberSlot>();
  for (int k = 0; k < kMaxSlots && slot->lock_fd < 0; ++k) {
    fs::path dir = fs::path(state_dir) / fmt::format("member-{}", k);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return IoError("state folder {}: {}", dir.string(), ec.message());
    int fd = ::open((dir / "lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd < 0) return IoError("state folder {}: cannot open its lock file", dir.string());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);  // another member of this machine holds it
      continue;
    }
    slot->lock_fd = fd;
    slot->dir = dir.string();
  }
  if (slot->lock_fd < 0) {
    return IoError("state folder {}: all {} member slots are taken", state_dir, kMaxSlots);
  }
  const fs::path id_path = fs::path(slot->dir) / "member-id";
  std::ifstream(id_path) >> slot->member_id;
  if (slot->member_id.empty()) {
    slot->member_id = fmt::format("{:08x}", static_cast<uint32_t>(RandomU64()));
    const fs::path written = fs::path(slot->dir) / "member-id.new";
    std::ofstream(written) << slot->member_id << '\n';
    std::error_code ec;
    fs::rename(written, id_path, ec);
    if (ec) return IoError("state folder {}: {}", slot->dir, ec.message());
  }
  const std::string group = options.sink.pipeline_id;
  options.sink.pipeline_id = MemberPipelineId(group, slot->member_id);
  options.fence = std::make_shared<KafkaCommitFence>(group);
  options.sink.commit_fence = options.fence;
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, options.sink.catalog());
  options.members_lake_dir = LakePipelineDir(*catalog, group, "members");
  if (options.members_lake_dir.empty()) {
    return InvalidArgument(
        "scale-out.enabled needs a catalog with a warehouse: the members keep their offsets "
        "beside the tables");
  }
  options.lake_state_dir = fmt::format("{}/{}", options.members_lake_dir, slot->member_id);
  options.lake_state_interval = std::chrono::milliseconds(1000);
  if (options.on_error == ingest::OnError::kSkip && options.dead_letter_dir.empty()) {
    options.dead_letter_dir = LakeDeadLetterDir(*catalog, options.sink.pipeline_id);
  }
  // A member started again takes its place in the group at once, without a
  // rebalance (static membership: its id is the member's). The round-robin
  // assignor spreads the partitions of several topics; librdkafka 2.0's
  // cooperative-sticky one can abort the process when it closes.
  options.consumer.client_properties.try_emplace("partition.assignment.strategy", "roundrobin");
  options.consumer.client_properties.try_emplace("group.instance.id", slot->member_id);
  FLOE_ASSIGN_OR_RETURN(auto tables, sink::ListTablesTwoLevelsDeep(*catalog));
  FLOE_ASSIGN_OR_RETURN(slot->max_committed,
                        sink::MaxCommittedCheckpoint(*catalog, options.sink.pipeline_id, tables));
  spdlog::info(
      "kafka source: member {} of scale-out group '{}' (slot {}), committing as '{}' from "
      "checkpoint {} on; the partitions it is given start from the lake",
      slot->member_id, group, slot->dir, options.sink.pipeline_id, slot->max_committed + 1);
  return slot;
}

struct KafkaSource::Impl final : ingest::ChangeEventHooks {
  KafkaSourceOptions options;
  std::shared_ptr<sink::CheckpointPositions> positions;
  ingest::IngestStats* stats;
  ingest::IngestStats own_stats;  // when none is given

  int subtask = 0;
  std::string name;
  std::shared_ptr<iceberg::Catalog> catalog;
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

  /// KafkaSourceOptions::committed_until, emptied once every partition has
  /// passed its tables' offsets.
  std::map<std::string, kafka::PartitionOffsets> committed_until;
  kafka::PartitionOffsets committed_until_max;  ///< per partition, the highest

  /// Keys read from two partitions of a topic (warned about once per topic).
  kafka::KeyPartitionWatch key_partitions;

  /// Dead letters since the last SnapshotState (JSON lines), and the total.
  std::string letters;
  int64_t dead_letters = 0;

  /// The lake copy of the state (KafkaSourceOptions::lake_state_dir): the
  /// states of the checkpoints taken and not yet known committed everywhere,
  /// by id, and the last one written.
  std::unique_ptr<engine::CheckpointStore> lake_store;
  std::map<engine::CheckpointId, std::string> lake_candidates;
  engine::CheckpointId lake_written = 0;
  std::chrono::steady_clock::time_point next_lake_write{};

  /// Scale-out: per table key and partition, the offset of the first message
  /// handed on for the table since the last checkpoint
  /// (KafkaCommitFence::Register), and the last pair noted (most messages
  /// follow one of the same table and partition).
  std::map<std::string, kafka::PartitionOffsets> first_offsets;
  std::string last_noted_key;
  std::string last_noted_topic;
  int32_t last_noted_partition = -1;

  Impl(KafkaSourceOptions o, std::shared_ptr<sink::CheckpointPositions> p, ingest::IngestStats* s)
      : options(std::move(o)), positions(std::move(p)), stats(s != nullptr ? s : &own_stats) {}

  std::string Where() const {
    return fmt::format("{}[{}] offset {}", current->topic, current->partition, current->offset);
  }

  Status BadEvent(const Error& error) override {
    if (options.on_error == ingest::OnError::kFail) {
      return std::unexpected(
          Error(error.code(), fmt::format("{}: {} (with on-error: skip such a message becomes a "
                                          "dead letter and the run reads on)",
                                          Where(), error.message())));
    }
    nlohmann::json letter;
    letter["topic"] = std::string(current->topic);
    letter["partition"] = current->partition;
    letter["offset"] = current->offset;
    letter["key"] =
        current->has_key ? nlohmann::json(std::string(current->key)) : nlohmann::json(nullptr);
    letter["value"] = current->is_tombstone ? nlohmann::json(nullptr)
                                            : nlohmann::json(std::string(current->value));
    if (current->timestamp_ms >= 0) letter["timestamp_ms"] = current->timestamp_ms;
    letter["error"] = error.message();
    // Bytes that are not UTF-8 become U+FFFD: a letter is always one JSON line.
    letters += letter.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    letters += '\n';
    ++dead_letters;
    stats->dead_letters.fetch_add(1, std::memory_order_relaxed);
    spdlog::warn("{}: {} (a dead letter in {})", Where(), error.message(),
                 io::RedactUri(options.dead_letter_dir));
    return Ok();
  }
  Error JobError(Error error) override { return std::move(error).WithContext(Where()); }

  /// Whether the table `target` already holds the message being handled:
  /// its last commit's offset of the message's partition is beyond it.
  bool AlreadyCommitted(const sink::TableTarget& target) override {
    if (HeldByTable(target)) {
      stats->already_committed.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (options.fence) NoteFirstOffset(target);
    return false;
  }

  bool HeldByTable(const sink::TableTarget& target) const {
    if (committed_until.empty()) return false;
    auto table = committed_until.find(target.key);
    if (table == committed_until.end()) return false;
    auto until = table->second.find({std::string(current->topic), current->partition});
    return until != table->second.end() && current->offset < until->second;
  }

  /// Scale-out: notes the message as the first of its table and partition
  /// since the last checkpoint, unless one was noted.
  void NoteFirstOffset(const sink::TableTarget& target) {
    if (current->partition == last_noted_partition && current->topic == last_noted_topic &&
        target.key == last_noted_key) {
      return;
    }
    first_offsets[target.key].emplace(
        kafka::TopicPartition{std::string(current->topic), current->partition}, current->offset);
    last_noted_key = target.key;
    last_noted_topic.assign(current->topic);
    last_noted_partition = current->partition;
  }

  /// Scale-out: where the partitions the group just assigned start (the
  /// consumer's start hook). Every message of a partition below the highest
  /// offset a member's lake copy holds for it is in its table (a copy is
  /// written once everything before it is committed); each table then skips
  /// the messages its group position says it holds.
  Result<kafka::PartitionOffsets> StartFromLake(
      const std::vector<kafka::TopicPartition>& assigned) {
    const std::set<kafka::TopicPartition> wanted(assigned.begin(), assigned.end());
    kafka::PartitionOffsets start;
    io::FileIO& file_io = catalog->file_io();
    FLOE_ASSIGN_OR_RETURN(auto members, file_io.List(options.members_lake_dir));
    for (const io::FileInfo& member : members) {
      if (!member.is_directory) continue;
      engine::CheckpointStore copies(&file_io, member.path);
      std::string warning;
      FLOE_ASSIGN_OR_RETURN(auto latest, copies.LoadLatest(&warning));
      if (!latest) continue;
      for (const auto& [operator_name, text] : latest->states) {
        FLOE_ASSIGN_OR_RETURN(SourceState state, ParseState(text));
        for (const auto& [tp, offset] : state.offsets) {
          if (!wanted.contains(tp)) continue;
          auto [it, inserted] = start.emplace(tp, offset);
          if (!inserted) it->second = std::max(it->second, offset);
        }
      }
    }
    FLOE_ASSIGN_OR_RETURN(auto tables, sink::ListTablesTwoLevelsDeep(*catalog));
    size_t ahead = 0;
    for (const iceberg::TableIdentifier& id : tables) {
      auto loaded = catalog->LoadTable(id);
      if (!loaded && loaded.error().code() == ErrorCode::kNotFound) continue;
      if (!loaded) return std::unexpected(std::move(loaded).error());
      FLOE_ASSIGN_OR_RETURN(auto held, GroupPosition(loaded->metadata, options.fence->group()));
      const std::string key = id.ToString();
      kafka::PartitionOffsets& until = committed_until[key];
      for (const kafka::TopicPartition& tp : assigned) {
        auto at = held ? held->find(tp) : kafka::PartitionOffsets::const_iterator();
        auto begins = start.find(tp);
        if (held && at != held->end() && (begins == start.end() || at->second > begins->second)) {
          until[tp] = at->second;
        } else {
          until.erase(tp);
        }
      }
      if (until.empty()) {
        committed_until.erase(key);
      } else {
        ++ahead;
      }
    }
    committed_until_max.clear();
    for (const auto& [table, offsets] : committed_until) {
      for (const auto& [tp, offset] : offsets) {
        int64_t& max = committed_until_max[tp];
        max = std::max(max, offset);
      }
    }
    spdlog::info(
        "kafka source: {} partition(s) assigned start from the lake at {} (the others by "
        "scan.startup.mode); {} table(s) hold more of them and skip what they hold",
        assigned.size(), start.empty() ? std::string("(none)") : KafkaPositionText(start), ahead);
    return start;
  }

  /// Forgets committed_until once every partition it names has been read
  /// past its highest offset there.
  void MaybeForgetCommittedUntil() {
    if (committed_until.empty()) return;
    for (const auto& [tp, until] : committed_until_max) {
      auto at = offsets.find(tp);
      if (at == offsets.end() || at->second < until) return;
    }
    committed_until.clear();
    spdlog::info("kafka source: every table ahead of the restored checkpoint is caught up");
  }

  /// Deletes the dead-letter files of checkpoints after `restored`: their
  /// messages are read again.
  Status DropLettersAfter(engine::CheckpointId restored) {
    if (options.dead_letter_dir.empty()) return Ok();
    io::FileIO& file_io = catalog->file_io();
    FLOE_ASSIGN_OR_RETURN(auto files, file_io.List(options.dead_letter_dir));
    for (const io::FileInfo& file : files) {
      engine::CheckpointId id = DeadLetterId(file.path);
      if (id == 0 || id <= restored) continue;
      spdlog::info(
          "kafka source: dropping {} (checkpoint {} never completed; its messages are "
          "read again)",
          io::RedactUri(file.path), id);
      FLOE_RETURN_IF_ERROR(file_io.Delete(file.path));
    }
    return Ok();
  }

  /// Writes the dead letters since the last checkpoint as checkpoint `id`'s
  /// file, synced (durable before the checkpoint can complete).
  Status WriteLetters(engine::CheckpointId id) {
    if (letters.empty()) return Ok();
    std::string path = DeadLetterPath(options.dead_letter_dir, id);
    FLOE_RETURN_IF_ERROR_CTX(catalog->file_io().WriteAtomically(path, letters),
                             "writing the dead letters of checkpoint {} to {}", id,
                             io::RedactUri(path));
    letters.clear();
    return Ok();
  }

  /// Writes the newest checkpoint whose commits are all done
  /// (CheckpointPositions::CommittedThrough) to the lake, when it is time
  /// (or now, with `force`).
  Status MaybeCopyStateToLake(bool force = false) {
    if (!lake_store || !positions || lake_candidates.empty()) return Ok();
    auto end = lake_candidates.upper_bound(positions->CommittedThrough());
    if (end == lake_candidates.begin()) return Ok();
    auto newest = std::prev(end);
    // Older committed ones are never written: the newest supersedes them.
    lake_candidates.erase(lake_candidates.begin(), newest);
    auto now = std::chrono::steady_clock::now();
    if (newest->first <= lake_written || (now < next_lake_write && !force)) return Ok();
    engine::CompletedCheckpoint copy;
    copy.id = newest->first;
    copy.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    copy.states[fmt::format("{}/{}", name, subtask)] = std::move(newest->second);
    lake_candidates.erase(newest);
    if (Status saved = lake_store->Save(copy); !saved) {
      return std::unexpected(std::move(saved).error().WithContext(
          fmt::format("copying the source state of checkpoint {} to the lake", copy.id)));
    }
    lake_written = copy.id;
    next_lake_write = now + options.lake_state_interval;
    return Ok();
  }

  Status Handle(const kafka::KafkaMessage& message) {
    current = &message;
    ++messages;
    ++handed_on;
    stats->events_read.fetch_add(1, std::memory_order_relaxed);
    stats->bytes_read.fetch_add(static_cast<int64_t>(message.value.size()),
                                std::memory_order_relaxed);
    if (message.has_key) WatchKeyPartition(message);
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

  /// Warns when the message's key was read from another partition of its
  /// topic before (KeyPartitionWatch): the producer did not partition by
  /// primary key, so changes of one row may be applied out of order.
  void WatchKeyPartition(const kafka::KafkaMessage& message) {
    int32_t before = key_partitions.Note(message.topic, message.key, message.partition);
    if (before < 0) return;
    std::string key = PrintableMessage(message.key.substr(0, 200));
    spdlog::warn(
        "{}: the message key {} was read from partition {} of this topic before: the producer "
        "did not partition topic '{}' by primary key, so changes of one row can be applied out "
        "of order (the table keeps the change read last). Key messages by the row's primary "
        "key, as Debezium and Canal do (docs/kafka.md, \"Keys and partitions\"); warned once "
        "per topic",
        Where(), key, before, message.topic);
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
  s.name = context.name;
  FLOE_RETURN_IF_ERROR(ValidateKafkaSourceOptions(s.options));
  if (s.options.on_error == ingest::OnError::kSkip && s.options.dead_letter_dir.empty()) {
    return InvalidArgument(
        "on-error: skip needs a dead-letter folder: set dead-letter.path (the sink's catalog "
        "has no warehouse to put them beside the tables)");
  }
  FLOE_ASSIGN_OR_RETURN(s.catalog, s.options.sink.catalog());
  s.resolver = std::make_unique<ingest::TableResolver>(s.options.tables, s.catalog, s.stats);
  if (!s.options.lake_state_dir.empty()) {
    s.lake_store =
        std::make_unique<engine::CheckpointStore>(&s.catalog->file_io(), s.options.lake_state_dir);
  }
  s.committed_until = s.options.committed_until;
  for (const auto& [table, offsets] : s.committed_until) {
    for (const auto& [tp, offset] : offsets) {
      int64_t& max = s.committed_until_max[tp];
      max = std::max(max, offset);
    }
  }
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
    s.dead_letters = restored.dead_letters;
    s.handler->counts() = restored.counts;
    spdlog::info(
        "kafka source: resuming from checkpoint {} at {}", state.checkpoint_id,
        s.offsets.empty() ? std::string("(no partition yet)") : KafkaPositionText(s.offsets));
  }
  // A scale-out member restores no checkpoint: its letters stay.
  if (!s.options.fence && (state.checkpoint_id > 0 || !s.options.started_without_state)) {
    FLOE_RETURN_IF_ERROR(s.DropLettersAfter(state.checkpoint_id));
  }
  FLOE_ASSIGN_OR_RETURN(s.consumer, kafka::KafkaConsumer::Open(s.options.consumer, s.offsets));
  if (s.options.fence) {
    s.options.fence->Reset();
    s.consumer->set_start_hook([&s](const std::vector<kafka::TopicPartition>& assigned) {
      return s.StartFromLake(assigned);
    });
  }
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
  if (!s.committed_until.empty()) {
    s.UpdateOffsets();
    s.MaybeForgetCommittedUntil();
  }
  FLOE_RETURN_IF_ERROR(s.MaybeCopyStateToLake());
  return true;
}

Result<std::string> KafkaSource::SnapshotState(engine::CheckpointId id) {
  Impl& s = *impl_;
  if (s.out != nullptr) FLOE_RETURN_IF_ERROR(s.batcher->Flush(*s.out));
  s.batcher->CheckpointBoundary();
  s.UpdateOffsets();
  FLOE_RETURN_IF_ERROR(s.WriteLetters(id));
  SourceState state;
  state.offsets = s.offsets;
  state.messages = s.messages;
  state.dead_letters = s.dead_letters;
  state.counts = s.handler->counts();
  state.primary_keys = s.resolver->NotedPrimaryKeys();
  if (s.options.fence) {
    s.options.fence->Register(id, s.offsets, std::move(s.first_offsets));
    s.first_offsets.clear();
    s.last_noted_partition = -1;
  }
  if (s.positions) s.positions->Put(id, s.subtask, KafkaPositionText(s.offsets));
  s.pending[id] = s.offsets;
  s.Publish();
  if (s.options.metrics != nullptr) s.options.metrics->CheckpointTaken(id);
  std::string text = SerializeState(state);
  if (s.lake_store) s.lake_candidates[id] = text;
  return text;
}

Status KafkaSource::NotifyCheckpointComplete(engine::CheckpointId id) {
  Impl& s = *impl_;
  if (s.options.metrics != nullptr) s.options.metrics->CheckpointCompleted(id);
  s.CommitToGroup();
  if (s.options.fence && s.positions)
    s.options.fence->ForgetThrough(s.positions->CommittedThrough());
  return s.MaybeCopyStateToLake();
}

void KafkaSource::Close() {
  Impl& s = *impl_;
  if (s.handler) s.Publish();
  // After a clean stop the lake's copy is the final checkpoint's.
  if (Status copied = s.MaybeCopyStateToLake(/*force=*/true); !copied) {
    spdlog::warn("kafka source: {}", copied.error().ToString());
  }
  if (s.consumer) s.consumer->Close();
}

}  // namespace floe::run
