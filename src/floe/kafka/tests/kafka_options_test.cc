#include "floe/kafka/kafka_options.h"

#include <gtest/gtest.h>

namespace floe::kafka {
namespace {

std::map<std::string, std::string> Base() {
  return {{"type", "kafka"},
          {"value.format", "debezium-json"},
          {"properties.bootstrap.servers", "127.0.0.1:9092"},
          {"properties.group.id", "g"},
          {"topic", "a; b"}};
}

std::string ErrorOf(const std::map<std::string, std::string>& keys) {
  auto parsed = ParseKafkaSourceOptions(keys);
  EXPECT_FALSE(parsed);
  return parsed ? "" : parsed.error().message();
}

TEST(KafkaSourceOptionsTest, FlinkKeysAndDefaults) {
  auto keys = Base();
  keys["properties.security.protocol"] = "SASL_SSL";
  keys["properties.sasl.password"] = "hunter2";
  auto options = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(options) << options.error().ToString();
  EXPECT_EQ(options->bootstrap_servers, "127.0.0.1:9092");
  EXPECT_EQ(options->group_id, "g");
  EXPECT_EQ(options->topics, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(options->startup_mode, StartupMode::kGroupOffsets);
  EXPECT_EQ(options->group_offset_reset, OffsetReset::kNone);
  EXPECT_EQ(options->client_properties.size(), 2u);
  EXPECT_EQ(options->client_properties.at("security.protocol"), "SASL_SSL");
}

TEST(KafkaSourceOptionsTest, ScaleOutIsOffUnlessAsked) {
  auto keys = Base();
  auto alone = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(alone) << alone.error().ToString();
  EXPECT_FALSE(alone->scale_out);
  keys["scale-out.enabled"] = "true";
  auto member = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(member) << member.error().ToString();
  EXPECT_TRUE(member->scale_out);
  keys["scale-out.enabled"] = "yes";
  EXPECT_NE(ErrorOf(keys).find("scale-out.enabled 'yes' is not true or false"), std::string::npos);
}

TEST(KafkaSourceOptionsTest, StartupModes) {
  auto keys = Base();
  keys["scan.startup.mode"] = "specific-offsets";
  keys["scan.startup.specific-offsets"] = "partition:0,offset:42;partition:1,offset:300";
  auto options = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(options) << options.error().ToString();
  EXPECT_EQ(options->specific_offsets, (std::map<int32_t, int64_t>{{0, 42}, {1, 300}}));

  keys = Base();
  keys["scan.startup.mode"] = "timestamp";
  keys["scan.startup.timestamp-millis"] = "1700000000000";
  options = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->startup_timestamp_ms, 1700000000000);

  keys = Base();
  keys["properties.auto.offset.reset"] = "earliest";
  options = ParseKafkaSourceOptions(keys);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->group_offset_reset, OffsetReset::kEarliest);

  for (const char* mode : {"earliest-offset", "latest-offset", "group-offsets"}) {
    keys = Base();
    keys["scan.startup.mode"] = mode;
    options = ParseKafkaSourceOptions(keys);
    ASSERT_TRUE(options) << mode;
    EXPECT_EQ(StartupModeName(options->startup_mode), mode);
  }
}

TEST(KafkaSourceOptionsTest, ClearErrorsNamingTheKey) {
  auto keys = Base();
  keys.erase("properties.bootstrap.servers");
  EXPECT_NE(ErrorOf(keys).find("properties.bootstrap.servers is required"), std::string::npos);

  keys = Base();
  keys.erase("properties.group.id");
  EXPECT_NE(ErrorOf(keys).find("properties.group.id"), std::string::npos);

  keys = Base();
  keys["topic-pattern"] = "a.*";
  EXPECT_NE(ErrorOf(keys).find("exactly one of topic and topic-pattern"), std::string::npos);

  keys = Base();
  keys["topic"] = " ; ";
  EXPECT_NE(ErrorOf(keys).find("no topic name"), std::string::npos);

  keys = Base();
  keys.erase("topic");
  keys["topic-pattern"] = "a[";
  EXPECT_NE(ErrorOf(keys).find("not a regular expression"), std::string::npos);

  keys = Base();
  keys["scan.startup.mode"] = "earliest";
  EXPECT_NE(ErrorOf(keys).find("scan.startup.mode 'earliest'"), std::string::npos);

  keys = Base();
  keys["scan.startup.mode"] = "timestamp";
  EXPECT_NE(ErrorOf(keys).find("needs scan.startup.timestamp-millis"), std::string::npos);
  keys["scan.startup.timestamp-millis"] = "yesterday";
  EXPECT_NE(ErrorOf(keys).find("'yesterday'"), std::string::npos);

  keys = Base();
  keys["scan.startup.timestamp-millis"] = "5";
  EXPECT_NE(ErrorOf(keys).find("only read with scan.startup.mode timestamp"), std::string::npos);

  keys = Base();
  keys["scan.startup.mode"] = "specific-offsets";
  for (const char* bad : {"partition:0", "partition:0,offset:x", "partition:0,offset:1,x:2",
                          "partition:0,offset:1;partition:0,offset:2", "offset:3", "p0"}) {
    keys["scan.startup.specific-offsets"] = bad;
    EXPECT_NE(ErrorOf(keys).find("scan.startup.specific-offsets"), std::string::npos) << bad;
  }

  for (const char* owned : {"enable.auto.commit", "enable.auto.offset.store"}) {
    keys = Base();
    keys[std::string("properties.") + owned] = "true";
    EXPECT_NE(ErrorOf(keys).find("floe sets this itself"), std::string::npos) << owned;
  }

  keys = Base();
  keys["scan.startup.mode"] = "earliest-offset";
  keys["properties.auto.offset.reset"] = "earliest";
  EXPECT_NE(ErrorOf(keys).find("only read with scan.startup.mode group-offsets"),
            std::string::npos);

  keys = Base();
  keys["properties.auto.offset.reset"] = "smallest";
  EXPECT_NE(ErrorOf(keys).find("'smallest'"), std::string::npos);

  keys = Base();
  keys["scan.bounded.mode"] = "latest-offset";
  EXPECT_NE(ErrorOf(keys).find("unknown Kafka source key 'scan.bounded.mode'"), std::string::npos);
}

TEST(KafkaSourceOptionsTest, SecretsAreRecognised) {
  for (const char* name :
       {"sasl.password", "ssl.key.password", "ssl.keystore.password",
        "sasl.oauthbearer.client.secret", "ssl.key.pem", "sasl.oauthbearer.config"}) {
    EXPECT_TRUE(IsSecretProperty(name)) << name;
  }
  for (const char* name : {"sasl.username", "security.protocol", "ssl.ca.location"}) {
    EXPECT_FALSE(IsSecretProperty(name)) << name;
  }
}

}  // namespace
}  // namespace floe::kafka
