#include "floe/kafka/kafka_consumer.h"

#include <librdkafka/rdkafka.h>
#include <spdlog/spdlog.h>

#include <optional>
#include <set>
#include <utility>

namespace floe::kafka {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kQueryTimeoutMs = 10000;

int ToMs(std::chrono::milliseconds d) {
  return static_cast<int>(std::min<int64_t>(d.count(), INT32_MAX));
}

struct PartitionList {
  rd_kafka_topic_partition_list_t* list;
  explicit PartitionList(int size) : list(rd_kafka_topic_partition_list_new(size)) {}
  ~PartitionList() { rd_kafka_topic_partition_list_destroy(list); }
  PartitionList(const PartitionList&) = delete;
  PartitionList& operator=(const PartitionList&) = delete;
};

// librdkafka's log levels are syslog's.
void LogToSpdlog(const rd_kafka_t*, int level, const char* facility, const char* text) {
  if (level <= 3) {
    spdlog::error("kafka {}: {}", facility, text);
  } else if (level == 4) {
    spdlog::warn("kafka {}: {}", facility, text);
  } else if (level <= 6) {
    spdlog::info("kafka {}: {}", facility, text);
  } else {
    spdlog::debug("kafka {}: {}", facility, text);
  }
}

bool IsAuthorizationError(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED ||
         err == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED ||
         err == RD_KAFKA_RESP_ERR__AUTHENTICATION;
}

}  // namespace

std::string TopicPartitionName(const TopicPartition& tp) {
  return tp.topic + "[" + std::to_string(tp.partition) + "]";
}

struct KafkaConsumer::Impl {
  KafkaSourceOptions options;
  PartitionOffsets restored;
  rd_kafka_t* rk = nullptr;
  bool closed = false;

  PartitionOffsets positions;
  PartitionOffsets revoked;
  KafkaConsumer::StartHook start_hook;
  // Revoked by the rebalance under way: given back, they go on where they were.
  std::set<TopicPartition> just_revoked;
  // An error met inside a callback, returned by the next Poll.
  std::optional<Error> pending;
  std::optional<Clock::time_point> brokers_down_since;
  std::chrono::milliseconds broker_down_timeout{60000};

  // The partition of the last message, to skip the map lookup per message.
  rd_kafka_topic_t* last_topic = nullptr;
  int32_t last_partition = -1;
  int64_t* last_position = nullptr;

  ~Impl() { CloseClient(); }

  void CloseClient() {
    if (rk == nullptr) return;
    if (!closed) rd_kafka_consumer_close(rk);
    closed = true;
    rd_kafka_destroy(rk);
    rk = nullptr;
  }

  std::string Servers() const { return options.bootstrap_servers; }

  void Fail(Error error) {
    if (!pending) pending = std::move(error);
  }

  Status SetProperty(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
    char err[512];
    rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err);
    if (res == RD_KAFKA_CONF_OK) return Ok();
    if (IsSecretProperty(name)) {
      return InvalidArgument("properties.{}: librdkafka refused the value (not shown: a secret)",
                             name);
    }
    return InvalidArgument("properties.{}: {}", name, err);
  }

  // The concrete start offset of a newly assigned partition (see the header).
  Result<int64_t> StartOffset(const TopicPartition& tp, int64_t committed) {
    if (auto it = restored.find(tp); it != restored.end()) return it->second;
    // The partition's first offset (kEarliest) or the one after its last message (kLatest).
    auto offset_at = [&](OffsetReset end) -> Result<int64_t> {
      int64_t low = 0;
      int64_t high = 0;
      rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(rk, tp.topic.c_str(), tp.partition,
                                                                 &low, &high, kQueryTimeoutMs);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return IoError("reading the offsets of {} from {}: {}", TopicPartitionName(tp), Servers(),
                       rd_kafka_err2str(err));
      }
      return end == OffsetReset::kLatest ? high : low;
    };
    switch (options.startup_mode) {
      case StartupMode::kEarliestOffset:
        return offset_at(OffsetReset::kEarliest);
      case StartupMode::kLatestOffset:
        return offset_at(OffsetReset::kLatest);
      case StartupMode::kSpecificOffsets:
        if (auto it = options.specific_offsets.find(tp.partition);
            it != options.specific_offsets.end()) {
          return it->second;
        }
        return offset_at(OffsetReset::kEarliest);
      case StartupMode::kTimestamp: {
        PartitionList query(1);
        rd_kafka_topic_partition_list_add(query.list, tp.topic.c_str(), tp.partition)->offset =
            options.startup_timestamp_ms;
        rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk, query.list, kQueryTimeoutMs);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) err = query.list->elems[0].err;
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          return IoError("finding the offset of time {} in {}: {}", options.startup_timestamp_ms,
                         TopicPartitionName(tp), rd_kafka_err2str(err));
        }
        if (query.list->elems[0].offset >= 0) return query.list->elems[0].offset;
        return offset_at(OffsetReset::kLatest);
      }
      case StartupMode::kGroupOffsets:
        if (committed >= 0) return committed;
        if (options.group_offset_reset != OffsetReset::kNone) {
          return offset_at(options.group_offset_reset);
        }
        return InvalidArgument(
            "group '{}' has no committed offset for {} (scan.startup.mode group-offsets): set "
            "properties.auto.offset.reset to earliest or latest, or choose another "
            "scan.startup.mode",
            options.group_id, TopicPartitionName(tp));
    }
    return InternalError("unknown startup mode");
  }

  Status Assign(rd_kafka_topic_partition_list_t* partitions, bool incremental) {
    // The group's committed offsets, read only when a partition needs them.
    bool need_committed = options.startup_mode == StartupMode::kGroupOffsets;
    if (need_committed) {
      rd_kafka_resp_err_t err = rd_kafka_committed(rk, partitions, kQueryTimeoutMs);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return IoError("reading the committed offsets of group '{}' from {}: {}", options.group_id,
                       Servers(), rd_kafka_err2str(err));
      }
    }
    PartitionOffsets hooked;
    if (start_hook) {
      std::vector<TopicPartition> assigned;
      for (int i = 0; i < partitions->cnt; ++i) {
        TopicPartition tp{partitions->elems[i].topic, partitions->elems[i].partition};
        if (!just_revoked.contains(tp)) assigned.push_back(std::move(tp));
      }
      if (!assigned.empty()) {
        FLOE_ASSIGN_OR_RETURN(hooked, start_hook(assigned));
      }
    }
    just_revoked.clear();
    for (int i = 0; i < partitions->cnt; ++i) {
      rd_kafka_topic_partition_t& p = partitions->elems[i];
      TopicPartition tp{p.topic, p.partition};
      int64_t committed = need_committed && p.err == RD_KAFKA_RESP_ERR_NO_ERROR ? p.offset : -1;
      auto from_hook = hooked.find(tp);
      FLOE_ASSIGN_OR_RETURN(int64_t start, from_hook != hooked.end()
                                               ? Result<int64_t>(from_hook->second)
                                               : StartOffset(tp, committed));
      p.offset = start;
      positions[tp] = start;
      spdlog::info("kafka: assigned {} from offset {}", TopicPartitionName(tp), start);
    }
    ForgetLastPartition();
    if (incremental) {
      rd_kafka_error_t* error = rd_kafka_incremental_assign(rk, partitions);
      if (error != nullptr) {
        std::string text = rd_kafka_error_string(error);
        rd_kafka_error_destroy(error);
        return IoError("assigning partitions: {}", text);
      }
      return Ok();
    }
    rd_kafka_resp_err_t err = rd_kafka_assign(rk, partitions);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return IoError("assigning partitions: {}", rd_kafka_err2str(err));
    }
    return Ok();
  }

  void Revoke(rd_kafka_topic_partition_list_t* partitions, bool incremental) {
    for (int i = 0; i < partitions->cnt; ++i) {
      TopicPartition tp{partitions->elems[i].topic, partitions->elems[i].partition};
      if (auto it = positions.find(tp); it != positions.end()) {
        revoked[tp] = it->second;
        restored[tp] = it->second;
        just_revoked.insert(tp);
        positions.erase(it);
      }
      spdlog::info("kafka: revoked {}", TopicPartitionName(tp));
    }
    ForgetLastPartition();
    if (incremental) {
      rd_kafka_error_t* error = rd_kafka_incremental_unassign(rk, partitions);
      if (error != nullptr) rd_kafka_error_destroy(error);
    } else {
      rd_kafka_assign(rk, nullptr);
    }
  }

  void ForgetLastPartition() {
    last_topic = nullptr;
    last_partition = -1;
    last_position = nullptr;
  }

  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    bool incremental = std::string_view(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      if (auto status = self->Assign(partitions, incremental); !status) {
        self->Fail(std::move(status.error()));
      }
    } else {
      self->Revoke(partitions, incremental);
    }
  }

  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    auto code = static_cast<rd_kafka_resp_err_t>(err);
    if (code == RD_KAFKA_RESP_ERR__FATAL) {
      char text[512];
      rd_kafka_fatal_error(rk, text, sizeof text);
      self->Fail(Error(ErrorCode::kIo, fmt::format("Kafka client failed: {}", text)));
      return;
    }
    if (IsAuthorizationError(code)) {
      self->Fail(Error(ErrorCode::kInvalidArgument,
                       fmt::format("Kafka at {} refused floe: {} (check the credentials and "
                                   "ACLs of properties.sasl.* / properties.ssl.*)",
                                   self->Servers(), reason)));
      return;
    }
    if (code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN && !self->brokers_down_since) {
      self->brokers_down_since = Clock::now();
    }
    spdlog::warn("kafka: {}", reason);
  }

  // Fails when the brokers have been down too long; clears the mark once a
  // metadata request is answered again.
  Status CheckBrokers() {
    if (!brokers_down_since) return Ok();
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, nullptr, &md, 1000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
      brokers_down_since.reset();
      return Ok();
    }
    auto down =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - *brokers_down_since);
    if (down >= broker_down_timeout) {
      return IoError("no Kafka broker at {} has answered for {} s", Servers(), down.count() / 1000);
    }
    return Ok();
  }

  Status MessageError(const rd_kafka_message_t* m) {
    std::string where = m->rkt != nullptr
                            ? TopicPartitionName({rd_kafka_topic_name(m->rkt), m->partition})
                            : std::string("the consumer");
    std::string text = rd_kafka_message_errstr(m);
    switch (m->err) {
      case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
      case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE: {
        int64_t at = -1;
        if (m->rkt != nullptr) {
          auto it = positions.find({rd_kafka_topic_name(m->rkt), m->partition});
          if (it != positions.end()) at = it->second;
        }
        return InvalidArgument(
            "offset {} of {} is not in the log ({}): retention or compaction removed "
            "messages floe has not read, or the topic was recreated; nothing was skipped. "
            "Restore the data, or start the pipeline anew from another scan.startup.mode",
            at, where, text);
      }
      case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
      case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
        return NotFound("topic of {} does not exist at {}: {}", where, Servers(), text);
      default:
        break;
    }
    if (IsAuthorizationError(m->err)) {
      return InvalidArgument("Kafka at {} refused reading {}: {} (check the ACLs of the user)",
                             Servers(), where, text);
    }
    spdlog::warn("kafka: {}: {}", where, text);
    return Ok();
  }
};

KafkaConsumer::KafkaConsumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KafkaConsumer::~KafkaConsumer() = default;

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Open(const KafkaSourceOptions& options,
                                                           PartitionOffsets restored) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->restored = std::move(restored);
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  auto set_all = [&]() -> Status {
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "client.id", "floe"));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "isolation.level", "read_committed"));
    for (const auto& [name, value] : options.client_properties) {
      FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, name, value));
    }
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "bootstrap.servers", options.bootstrap_servers));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "group.id", options.group_id));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "enable.auto.commit", "false"));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "enable.auto.offset.store", "false"));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "auto.offset.reset", "error"));
    FLOE_RETURN_IF_ERROR(impl->SetProperty(conf, "enable.partition.eof", "false"));
    return Ok();
  };
  if (auto status = set_all(); !status) {
    rd_kafka_conf_destroy(conf);
    return std::unexpected(std::move(status.error()));
  }
  rd_kafka_conf_set_opaque(conf, impl.get());
  rd_kafka_conf_set_rebalance_cb(conf, &Impl::OnRebalance);
  rd_kafka_conf_set_error_cb(conf, &Impl::OnError);
  rd_kafka_conf_set_log_cb(conf, &LogToSpdlog);
  char err[512];
  impl->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (impl->rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return InvalidArgument("creating the Kafka consumer: {}", err);
  }
  rd_kafka_poll_set_consumer(impl->rk);

  // The cluster answers, and every listed topic exists.
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t md_err =
      rd_kafka_metadata(impl->rk, 1, nullptr, &md, ToMs(options.open_timeout));
  if (md_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (impl->pending) return std::unexpected(std::move(*impl->pending));
    return IoError(
        "no Kafka broker answered at {} within {} ms ({}): check "
        "properties.bootstrap.servers and that the brokers run",
        options.bootstrap_servers, options.open_timeout.count(), rd_kafka_err2str(md_err));
  }
  for (const std::string& topic : options.topics) {
    bool found = false;
    for (int i = 0; i < md->topic_cnt; ++i) {
      if (topic == md->topics[i].topic) {
        found = md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR;
        if (IsAuthorizationError(md->topics[i].err)) {
          std::string reason = rd_kafka_err2str(md->topics[i].err);
          rd_kafka_metadata_destroy(md);
          return InvalidArgument("Kafka at {} refused describing topic '{}': {}",
                                 options.bootstrap_servers, topic, reason);
        }
      }
    }
    if (!found) {
      rd_kafka_metadata_destroy(md);
      return NotFound("topic '{}' does not exist at {} (create it, or check `topic`)", topic,
                      options.bootstrap_servers);
    }
  }
  rd_kafka_metadata_destroy(md);

  PartitionList subscription(static_cast<int>(std::max<size_t>(1, options.topics.size())));
  if (options.topic_pattern.empty()) {
    for (const std::string& topic : options.topics) {
      rd_kafka_topic_partition_list_add(subscription.list, topic.c_str(), RD_KAFKA_PARTITION_UA);
    }
  } else {
    // librdkafka reads a subscribed name starting with '^' as a regular
    // expression; Flink's pattern matches whole names.
    std::string pattern = options.topic_pattern;
    if (!pattern.starts_with('^')) pattern.insert(0, "^");
    if (!pattern.ends_with('$')) pattern.push_back('$');
    rd_kafka_topic_partition_list_add(subscription.list, pattern.c_str(), RD_KAFKA_PARTITION_UA);
  }
  rd_kafka_resp_err_t sub_err = rd_kafka_subscribe(impl->rk, subscription.list);
  if (sub_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return IoError("subscribing to the topics at {}: {}", options.bootstrap_servers,
                   rd_kafka_err2str(sub_err));
  }
  return std::unique_ptr<KafkaConsumer>(new KafkaConsumer(std::move(impl)));
}

Result<size_t> KafkaConsumer::Poll(std::chrono::milliseconds wait, size_t max_messages,
                                   const std::function<Status(const KafkaMessage&)>& handle) {
  Impl& s = *impl_;
  if (s.rk == nullptr) return InvalidArgument("the Kafka consumer is closed");
  const auto deadline = Clock::now() + wait;
  size_t handed = 0;
  while (handed < max_messages) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    int timeout = handed == 0 ? ToMs(std::max(left, std::chrono::milliseconds(0))) : 0;
    rd_kafka_message_t* m = rd_kafka_consumer_poll(s.rk, timeout);
    if (s.pending) {
      if (m != nullptr) rd_kafka_message_destroy(m);
      Error error = std::move(*s.pending);
      s.pending.reset();
      return std::unexpected(std::move(error));
    }
    if (m == nullptr) {
      FLOE_RETURN_IF_ERROR(s.CheckBrokers());
      if (Clock::now() >= deadline || handed > 0) break;
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      Status status = s.MessageError(m);
      rd_kafka_message_destroy(m);
      if (!status) return std::unexpected(std::move(status.error()));
      continue;
    }
    s.brokers_down_since.reset();
    if (m->rkt != s.last_topic || m->partition != s.last_partition) {
      TopicPartition tp{rd_kafka_topic_name(m->rkt), m->partition};
      auto it = s.positions.find(tp);
      if (it == s.positions.end()) {
        // A message of a partition revoked meanwhile: not ours any more.
        rd_kafka_message_destroy(m);
        continue;
      }
      s.last_topic = m->rkt;
      s.last_partition = m->partition;
      s.last_position = &it->second;
    }
    KafkaMessage message;
    message.topic = rd_kafka_topic_name(m->rkt);
    message.partition = m->partition;
    message.offset = m->offset;
    message.has_key = m->key != nullptr;
    if (message.has_key) message.key = {static_cast<const char*>(m->key), m->key_len};
    message.is_tombstone = m->payload == nullptr;
    if (!message.is_tombstone) message.value = {static_cast<const char*>(m->payload), m->len};
    rd_kafka_timestamp_type_t type;
    message.timestamp_ms = rd_kafka_message_timestamp(m, &type);
    Status status = handle(message);
    const int64_t next = m->offset + 1;
    rd_kafka_message_destroy(m);
    if (!status) return std::unexpected(std::move(status.error()));
    *s.last_position = next;
    ++handed;
  }
  return handed;
}

std::vector<TopicPartition> KafkaConsumer::Assignment() const {
  std::vector<TopicPartition> out;
  out.reserve(impl_->positions.size());
  for (const auto& [tp, offset] : impl_->positions) out.push_back(tp);
  return out;
}

const PartitionOffsets& KafkaConsumer::positions() const { return impl_->positions; }

PartitionOffsets KafkaConsumer::TakeRevoked() { return std::exchange(impl_->revoked, {}); }

Status KafkaConsumer::CommitToGroup(const PartitionOffsets& offsets) {
  if (offsets.empty() || impl_->rk == nullptr) return Ok();
  PartitionList list(static_cast<int>(offsets.size()));
  for (const auto& [tp, offset] : offsets) {
    rd_kafka_topic_partition_list_add(list.list, tp.topic.c_str(), tp.partition)->offset = offset;
  }
  rd_kafka_resp_err_t err = rd_kafka_commit(impl_->rk, list.list, 1);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return IoError("committing offsets to group '{}': {}", impl_->options.group_id,
                   rd_kafka_err2str(err));
  }
  return Ok();
}

void KafkaConsumer::Restore(const PartitionOffsets& offsets) {
  for (const auto& [tp, offset] : offsets) impl_->restored[tp] = offset;
}

void KafkaConsumer::set_start_hook(StartHook hook) { impl_->start_hook = std::move(hook); }

void KafkaConsumer::Close() { impl_->CloseClient(); }

void KafkaConsumer::set_broker_down_timeout(std::chrono::milliseconds timeout) {
  impl_->broker_down_timeout = timeout;
}

}  // namespace floe::kafka
