// KafkaConsumer against a real Kafka broker (scripts/services/kafka.sh), at
// FLOE_TEST_KAFKA_BOOTSTRAP. Skipped when that variable is unset; when it is
// set (scripts/test.sh sets it) and the broker does not answer, the tests fail.

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <cstdlib>
#include <random>
#include <set>
#include <thread>

#include "floe/kafka/kafka_consumer.h"

namespace floe::kafka {
namespace {

using std::chrono::milliseconds;

class KafkaConsumerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bootstrap = std::getenv("FLOE_TEST_KAFKA_BOOTSTRAP");
    if (bootstrap == nullptr) GTEST_SKIP() << "FLOE_TEST_KAFKA_BOOTSTRAP is not set";
    bootstrap_ = bootstrap;
    std::random_device rd;
    suffix_ = std::to_string(rd()) + std::to_string(rd());
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    ASSERT_EQ(rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err),
              RD_KAFKA_CONF_OK);
    ASSERT_EQ(rd_kafka_conf_set(conf, "enable.idempotence", "true", err, sizeof err),
              RD_KAFKA_CONF_OK);
    producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    ASSERT_NE(producer_, nullptr) << err;
  }

  void TearDown() override {
    if (producer_ != nullptr) rd_kafka_destroy(producer_);
  }

  // Creates a topic with `partitions` partitions; returns its name.
  std::string CreateTopic(const std::string& base, int partitions) {
    std::string name = base + "_" + suffix_;
    char err[512];
    rd_kafka_NewTopic_t* topic =
        rd_kafka_NewTopic_new(name.c_str(), partitions, 1, err, sizeof err);
    rd_kafka_queue_t* queue = rd_kafka_queue_new(producer_);
    rd_kafka_CreateTopics(producer_, &topic, 1, nullptr, queue);
    rd_kafka_event_t* event = rd_kafka_queue_poll(queue, 30000);
    EXPECT_NE(event, nullptr);
    if (event != nullptr) {
      size_t count = 0;
      const rd_kafka_topic_result_t** results =
          rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
      EXPECT_EQ(count, 1u);
      if (count == 1) {
        EXPECT_EQ(rd_kafka_topic_result_error(results[0]), RD_KAFKA_RESP_ERR_NO_ERROR)
            << rd_kafka_topic_result_error_string(results[0]);
      }
      rd_kafka_event_destroy(event);
    }
    rd_kafka_queue_destroy(queue);
    rd_kafka_NewTopic_destroy(topic);
    return name;
  }

  // Produces "v<i>" with key "k<i>" to partition i % partitions (a null
  // value when `tombstone_every` divides i), and waits until all are acked.
  void Produce(const std::string& topic, int partitions, int from, int to,
               int tombstone_every = 0) {
    for (int i = from; i < to; ++i) {
      std::string key = "k" + std::to_string(i);
      std::string value = "v" + std::to_string(i);
      bool tombstone = tombstone_every > 0 && i % tombstone_every == 0;
      rd_kafka_resp_err_t err = rd_kafka_producev(
          producer_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(i % partitions),
          RD_KAFKA_V_KEY(key.data(), key.size()),
          RD_KAFKA_V_VALUE(tombstone ? nullptr : value.data(), tombstone ? 0 : value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
    }
    ASSERT_EQ(rd_kafka_flush(producer_, 30000), RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  KafkaSourceOptions Options(const std::string& topic, const std::string& group) {
    KafkaSourceOptions options;
    options.bootstrap_servers = bootstrap_;
    options.topics = {topic};
    options.group_id = group + "_" + suffix_;
    options.startup_mode = StartupMode::kEarliestOffset;
    options.client_properties["session.timeout.ms"] = "6000";
    options.client_properties["heartbeat.interval.ms"] = "500";
    return options;
  }

  struct Seen {
    std::string topic;
    int32_t partition;
    int64_t offset;
    std::string key;
    std::string value;
    bool tombstone;
  };

  // Polls until `want` messages arrived or `limit` passed.
  static std::vector<Seen> Drain(KafkaConsumer& consumer, size_t want, milliseconds limit) {
    std::vector<Seen> seen;
    auto end = std::chrono::steady_clock::now() + limit;
    while (seen.size() < want && std::chrono::steady_clock::now() < end) {
      auto polled = consumer.Poll(milliseconds(200), 1000, [&](const KafkaMessage& m) {
        seen.push_back({std::string(m.topic), m.partition, m.offset, std::string(m.key),
                        std::string(m.value), m.is_tombstone});
        return Ok();
      });
      EXPECT_TRUE(polled) << polled.error().ToString();
      if (!polled) break;
    }
    return seen;
  }

  std::string bootstrap_;
  std::string suffix_;
  rd_kafka_t* producer_ = nullptr;
};

TEST_F(KafkaConsumerIntegrationTest, ReadsEveryMessageInPartitionOrderAndResumesFromOffsets) {
  std::string topic = CreateTopic("orders", 3);
  Produce(topic, 3, 0, 30, /*tombstone_every=*/10);
  auto consumer = KafkaConsumer::Open(Options(topic, "all"));
  ASSERT_TRUE(consumer) << consumer.error().ToString();
  auto seen = Drain(**consumer, 30, milliseconds(30000));
  ASSERT_EQ(seen.size(), 30u);
  std::map<int32_t, int64_t> next;
  std::set<std::string> keys;
  for (const Seen& s : seen) {
    EXPECT_EQ(s.offset, next[s.partition]) << "partition " << s.partition;
    next[s.partition] = s.offset + 1;
    int i = std::stoi(s.key.substr(1));
    EXPECT_EQ(s.partition, i % 3);
    EXPECT_EQ(s.tombstone, i % 10 == 0) << s.key;
    if (!s.tombstone) {
      EXPECT_EQ(s.value, "v" + std::to_string(i));
    }
    keys.insert(s.key);
  }
  EXPECT_EQ(keys.size(), 30u);
  PartitionOffsets expected;
  for (int32_t p = 0; p < 3; ++p) expected[{topic, p}] = 10;
  EXPECT_EQ((*consumer)->positions(), expected);

  // A member of another group restored at offsets 7, 8, 9 reads exactly the rest.
  Produce(topic, 3, 30, 36);
  PartitionOffsets restored;
  for (int32_t p = 0; p < 3; ++p) restored[{topic, p}] = 7 + p;
  auto resumed = KafkaConsumer::Open(Options(topic, "resumed"), restored);
  ASSERT_TRUE(resumed) << resumed.error().ToString();
  auto rest = Drain(**resumed, 3 + 2 + 1 + 6, milliseconds(30000));
  EXPECT_EQ(rest.size(), 12u);
  for (const Seen& s : rest) EXPECT_GE(s.offset, 7 + s.partition);
  for (int32_t p = 0; p < 3; ++p) expected[{topic, p}] = 12;
  EXPECT_EQ((*resumed)->positions(), expected);
}

TEST_F(KafkaConsumerIntegrationTest, StartupModes) {
  std::string topic = CreateTopic("modes", 1);
  Produce(topic, 1, 0, 5);

  // latest-offset: only what comes after the assignment.
  auto options = Options(topic, "latest");
  options.startup_mode = StartupMode::kLatestOffset;
  auto latest = KafkaConsumer::Open(options);
  ASSERT_TRUE(latest) << latest.error().ToString();
  for (int i = 0; i < 50 && (*latest)->positions().empty(); ++i) {
    ASSERT_TRUE((*latest)->Poll(milliseconds(100), 10, [](const KafkaMessage&) { return Ok(); }));
  }
  ASSERT_EQ((*latest)->positions().size(), 1u);
  EXPECT_EQ((*latest)->positions().begin()->second, 5);
  Produce(topic, 1, 5, 7);
  auto after = Drain(**latest, 2, milliseconds(20000));
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].key, "k5");

  // specific-offsets.
  options = Options(topic, "specific");
  options.startup_mode = StartupMode::kSpecificOffsets;
  options.specific_offsets = {{0, 3}};
  auto specific = KafkaConsumer::Open(options);
  ASSERT_TRUE(specific);
  auto from3 = Drain(**specific, 4, milliseconds(20000));
  ASSERT_EQ(from3.size(), 4u);
  EXPECT_EQ(from3[0].offset, 3);

  // timestamp: a time before every message starts at the first; one after
  // every message at the end of the partition.
  options = Options(topic, "since");
  options.startup_mode = StartupMode::kTimestamp;
  options.startup_timestamp_ms = 0;
  auto since = KafkaConsumer::Open(options);
  ASSERT_TRUE(since);
  auto all = Drain(**since, 7, milliseconds(20000));
  ASSERT_EQ(all.size(), 7u);
  EXPECT_EQ(all[0].offset, 0);
  options = Options(topic, "future");
  options.startup_mode = StartupMode::kTimestamp;
  options.startup_timestamp_ms = 32503680000000;  // the year 3000
  auto future = KafkaConsumer::Open(options);
  ASSERT_TRUE(future);
  for (int i = 0; i < 50 && (*future)->positions().empty(); ++i) {
    ASSERT_TRUE((*future)->Poll(milliseconds(100), 10, [](const KafkaMessage&) { return Ok(); }));
  }
  ASSERT_EQ((*future)->positions().size(), 1u);
  EXPECT_EQ((*future)->positions().begin()->second, 7);

  // group-offsets: none committed and no reset is an error naming the partition.
  options = Options(topic, "grouped");
  options.startup_mode = StartupMode::kGroupOffsets;
  auto grouped = KafkaConsumer::Open(options);
  ASSERT_TRUE(grouped);
  Status failed = Ok();
  for (int i = 0; i < 100 && failed; ++i) {
    auto polled = (*grouped)->Poll(milliseconds(100), 10, [](const KafkaMessage&) { return Ok(); });
    if (!polled) failed = std::unexpected(polled.error());
  }
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("no committed offset for " + topic + "[0]"),
            std::string::npos)
      << failed.error().message();
  (*grouped)->Close();

  // ... and with a committed offset (monitoring commit of another member), starts there.
  options.startup_mode = StartupMode::kSpecificOffsets;
  options.specific_offsets = {{0, 0}};
  auto committer = KafkaConsumer::Open(options);
  ASSERT_TRUE(committer);
  ASSERT_EQ(Drain(**committer, 7, milliseconds(20000)).size(), 7u);
  ASSERT_TRUE((*committer)->CommitToGroup({{{topic, 0}, 4}}));
  (*committer)->Close();  // the asynchronous commit is sent before leaving
  options.startup_mode = StartupMode::kGroupOffsets;
  auto regrouped = KafkaConsumer::Open(options);
  ASSERT_TRUE(regrouped);
  auto from4 = Drain(**regrouped, 3, milliseconds(20000));
  ASSERT_EQ(from4.size(), 3u);
  EXPECT_EQ(from4[0].offset, 4);
}

TEST_F(KafkaConsumerIntegrationTest, TwoMembersSplitThePartitionsAndHandOver) {
  std::string topic = CreateTopic("split", 4);
  Produce(topic, 4, 0, 40);
  auto options = Options(topic, "pair");
  auto first = KafkaConsumer::Open(options);
  ASSERT_TRUE(first);
  auto a = Drain(**first, 40, milliseconds(30000));
  ASSERT_EQ(a.size(), 40u);
  EXPECT_EQ((*first)->Assignment().size(), 4u);

  // A second member joins: the partitions are split, and the first member is
  // told which ones it lost, with its positions in them.
  PartitionOffsets restored = (*first)->positions();
  auto second = KafkaConsumer::Open(options, restored);
  ASSERT_TRUE(second);
  auto noop = [](const KafkaMessage&) { return Ok(); };
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE((*first)->Poll(milliseconds(50), 100, noop));
    ASSERT_TRUE((*second)->Poll(milliseconds(50), 100, noop));
    if ((*first)->Assignment().size() + (*second)->Assignment().size() == 4 &&
        !(*first)->Assignment().empty() && !(*second)->Assignment().empty()) {
      break;
    }
  }
  auto one = (*first)->Assignment();
  auto two = (*second)->Assignment();
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(two.empty());
  std::set<TopicPartition> all(one.begin(), one.end());
  all.insert(two.begin(), two.end());
  EXPECT_EQ(all.size(), 4u);
  PartitionOffsets revoked = (*first)->TakeRevoked();
  EXPECT_FALSE(revoked.empty());
  for (const auto& [tp, offset] : revoked) EXPECT_EQ(offset, 10) << TopicPartitionName(tp);
  // The second member resumed at the restored offsets: nothing read twice.
  for (const auto& [tp, offset] : (*second)->positions()) EXPECT_EQ(offset, 10);
  Produce(topic, 4, 40, 48);
  size_t got = 0;
  for (int i = 0; i < 200 && got < 8; ++i) {
    auto count = [&](const KafkaMessage& m) {
      EXPECT_GE(m.offset, 10);
      ++got;
      return Ok();
    };
    ASSERT_TRUE((*first)->Poll(milliseconds(50), 100, count));
    ASSERT_TRUE((*second)->Poll(milliseconds(50), 100, count));
  }
  EXPECT_EQ(got, 8u);
}

TEST_F(KafkaConsumerIntegrationTest, ClearErrors) {
  std::string topic = CreateTopic("errors", 1);
  Produce(topic, 1, 0, 3);

  auto options = Options("no_such_topic_" + suffix_, "errors");
  auto missing = KafkaConsumer::Open(options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("topic 'no_such_topic_"), std::string::npos);

  options = Options(topic, "errors");
  options.bootstrap_servers = "127.0.0.1:1";
  options.open_timeout = milliseconds(1500);
  auto unreachable = KafkaConsumer::Open(options);
  ASSERT_FALSE(unreachable);
  EXPECT_NE(unreachable.error().message().find("no Kafka broker answered at 127.0.0.1:1"),
            std::string::npos)
      << unreachable.error().message();

  options = Options(topic, "errors");
  options.client_properties["no.such.setting"] = "1";
  auto bad_setting = KafkaConsumer::Open(options);
  ASSERT_FALSE(bad_setting);
  EXPECT_NE(bad_setting.error().message().find("properties.no.such.setting"), std::string::npos);

  // SASL against a plaintext listener: the broker never answers the
  // handshake; the error names the servers, never the password.
  options = Options(topic, "errors");
  options.client_properties["security.protocol"] = "SASL_PLAINTEXT";
  options.client_properties["sasl.mechanisms"] = "PLAIN";
  options.client_properties["sasl.username"] = "floe";
  options.client_properties["sasl.password"] = "hunter2";
  options.open_timeout = milliseconds(2000);
  auto secret = KafkaConsumer::Open(options);
  ASSERT_FALSE(secret);
  EXPECT_NE(secret.error().message().find(bootstrap_), std::string::npos)
      << secret.error().message();
  EXPECT_EQ(secret.error().message().find("hunter2"), std::string::npos);

  // A restored offset that is not in the log fails; nothing is skipped.
  auto gone = KafkaConsumer::Open(Options(topic, "gone"), {{{topic, 0}, 1000}});
  ASSERT_TRUE(gone);
  Status failed = Ok();
  for (int i = 0; i < 100 && failed; ++i) {
    auto polled = (*gone)->Poll(milliseconds(100), 10, [](const KafkaMessage&) { return Ok(); });
    if (!polled) failed = std::unexpected(polled.error());
  }
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("offset 1000 of " + topic + "[0] is not in the log"),
            std::string::npos)
      << failed.error().message();

  // An error from the handler stops the poll; the position stays before it.
  auto stop = KafkaConsumer::Open(Options(topic, "stop"));
  ASSERT_TRUE(stop);
  Status handler_error = Ok();
  int handled = 0;
  for (int i = 0; i < 100 && handler_error; ++i) {
    auto polled = (*stop)->Poll(milliseconds(100), 10, [&](const KafkaMessage& m) -> Status {
      if (m.offset == 1) return InvalidArgument("bad message");
      ++handled;
      return Ok();
    });
    if (!polled) handler_error = std::unexpected(polled.error());
  }
  ASSERT_FALSE(handler_error);
  EXPECT_EQ(handled, 1);
  EXPECT_EQ((*stop)->positions().at({topic, 0}), 1);
}

}  // namespace
}  // namespace floe::kafka
