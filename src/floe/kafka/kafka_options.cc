#include "floe/kafka/kafka_options.h"

#include <charconv>
#include <iterator>
#include <regex>

#include <fmt/ranges.h>

namespace floe::kafka {
namespace {

constexpr std::string_view kPropertiesPrefix = "properties.";

// librdkafka settings the source decides itself (see the header).
constexpr std::string_view kOwnedProperties[] = {"enable.auto.commit", "enable.auto.offset.store",
                                                 "auto.offset.reset"};

bool ParseInt64(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t at = s.find(separator);
    parts.push_back(Trim(s.substr(0, at)));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return parts;
}

// "partition:0,offset:42;partition:1,offset:300", as Flink writes it.
Status ParseSpecificOffsets(std::string_view text, std::map<int32_t, int64_t>* out) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument(
        "scan.startup.specific-offsets '{}': {} (expected "
        "'partition:0,offset:42;partition:1,offset:300')",
        text, why);
  };
  for (std::string_view entry : Split(text, ';')) {
    if (entry.empty()) continue;
    int64_t partition = -1;
    int64_t offset = -1;
    bool has_partition = false;
    bool has_offset = false;
    for (std::string_view field : Split(entry, ',')) {
      size_t colon = field.find(':');
      if (colon == std::string_view::npos) return bad("a field without ':'");
      std::string_view name = Trim(field.substr(0, colon));
      std::string_view value = Trim(field.substr(colon + 1));
      int64_t number = 0;
      if (!ParseInt64(value, &number) || number < 0) return bad("a value that is not a number ≥ 0");
      if (name == "partition") {
        partition = number;
        has_partition = true;
      } else if (name == "offset") {
        offset = number;
        has_offset = true;
      } else {
        return bad("an unknown field (partition and offset are known)");
      }
    }
    if (!has_partition || !has_offset) return bad("an entry without partition or offset");
    if (partition > INT32_MAX) return bad("a partition number out of range");
    if (!out->emplace(static_cast<int32_t>(partition), offset).second) {
      return bad("a partition given twice");
    }
  }
  if (out->empty()) return bad("no partition");
  return Ok();
}

}  // namespace

namespace {

/// The scan.startup.mode names, in StartupMode's order.
constexpr std::string_view kStartupModeNames[] = {
    "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets",
};
static_assert(std::size(kStartupModeNames) ==
              static_cast<size_t>(StartupMode::kSpecificOffsets) + 1);

}  // namespace

Result<StartupMode> ParseStartupMode(std::string_view text) {
  for (size_t i = 0; i < std::size(kStartupModeNames); ++i) {
    if (text == kStartupModeNames[i]) return static_cast<StartupMode>(i);
  }
  return InvalidArgument("scan.startup.mode '{}' is not one of {}", text,
                         fmt::join(kStartupModeNames, ", "));
}

std::string_view StartupModeName(StartupMode mode) {
  const auto i = static_cast<size_t>(mode);
  return i < std::size(kStartupModeNames) ? kStartupModeNames[i] : std::string_view("?");
}

bool IsSecretProperty(std::string_view name) {
  for (std::string_view marker : {"password", "secret", "token"}) {
    if (name.find(marker) != std::string_view::npos) return true;
  }
  return name == "ssl.key.pem" || name == "sasl.oauthbearer.config";
}

Result<KafkaSourceOptions> ParseKafkaSourceOptions(const std::map<std::string, std::string>& keys) {
  KafkaSourceOptions options;
  bool has_topic = false;
  bool has_pattern = false;
  std::string timestamp_text;
  std::string specific_text;
  std::string reset_text;
  for (const auto& [key, value] : keys) {
    if (key == "type" || key.starts_with("value.")) continue;
    if (key == "topic") {
      has_topic = true;
      for (std::string_view topic : Split(value, ';')) {
        if (!topic.empty()) options.topics.emplace_back(topic);
      }
      if (options.topics.empty()) return InvalidArgument("topic: no topic name in '{}'", value);
    } else if (key == "topic-pattern") {
      has_pattern = true;
      options.topic_pattern = value;
      try {
        std::regex check(value, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return InvalidArgument("topic-pattern '{}' is not a regular expression: {}", value,
                               e.what());
      }
    } else if (key == "scan.startup.mode") {
      FLOE_ASSIGN_OR_RETURN(options.startup_mode, ParseStartupMode(value));
    } else if (key == "scan.startup.timestamp-millis") {
      timestamp_text = value;
    } else if (key == "scan.startup.specific-offsets") {
      specific_text = value;
    } else if (key == "open-timeout") {
      int64_t ms = 0;
      if (!ParseInt64(value, &ms) || ms <= 0) {
        return InvalidArgument("open-timeout '{}' is not a number of milliseconds > 0", value);
      }
      options.open_timeout = std::chrono::milliseconds(ms);
    } else if (key == "scale-out.enabled") {
      if (value != "true" && value != "false") {
        return InvalidArgument("scale-out.enabled '{}' is not true or false", value);
      }
      options.scale_out = value == "true";
    } else if (key.starts_with(kPropertiesPrefix)) {
      std::string name = key.substr(kPropertiesPrefix.size());
      if (name == "bootstrap.servers") {
        options.bootstrap_servers = value;
      } else if (name == "group.id") {
        options.group_id = value;
      } else if (name == "auto.offset.reset") {
        reset_text = value;
      } else {
        for (std::string_view owned : kOwnedProperties) {
          if (name == owned) {
            return InvalidArgument(
                "{}: floe sets this itself (offsets are kept with the lake's commits; "
                "docs/kafka.md)",
                key);
          }
        }
        if (name.empty()) return InvalidArgument("'{}' names no property", key);
        options.client_properties[name] = value;
      }
    } else {
      return InvalidArgument(
          "unknown Kafka source key '{}' (known: topic, topic-pattern, scan.startup.mode, "
          "scan.startup.timestamp-millis, scan.startup.specific-offsets, open-timeout, "
          "scale-out.enabled, properties.*)",
          key);
    }
  }
  if (options.bootstrap_servers.empty()) {
    return InvalidArgument("properties.bootstrap.servers is required (host:port[,host:port])");
  }
  if (options.group_id.empty()) return InvalidArgument("properties.group.id is required");
  if (has_topic == has_pattern) {
    return InvalidArgument("give exactly one of topic and topic-pattern");
  }
  if (options.startup_mode == StartupMode::kTimestamp) {
    if (timestamp_text.empty()) {
      return InvalidArgument("scan.startup.mode timestamp needs scan.startup.timestamp-millis");
    }
    if (!ParseInt64(timestamp_text, &options.startup_timestamp_ms) ||
        options.startup_timestamp_ms < 0) {
      return InvalidArgument("scan.startup.timestamp-millis '{}' is not a number ≥ 0",
                             timestamp_text);
    }
  } else if (!timestamp_text.empty()) {
    return InvalidArgument(
        "scan.startup.timestamp-millis is only read with scan.startup.mode "
        "timestamp");
  }
  if (options.startup_mode == StartupMode::kSpecificOffsets) {
    if (specific_text.empty()) {
      return InvalidArgument(
          "scan.startup.mode specific-offsets needs scan.startup.specific-offsets");
    }
    FLOE_RETURN_IF_ERROR(ParseSpecificOffsets(specific_text, &options.specific_offsets));
  } else if (!specific_text.empty()) {
    return InvalidArgument(
        "scan.startup.specific-offsets is only read with scan.startup.mode "
        "specific-offsets");
  }
  if (!reset_text.empty()) {
    if (options.startup_mode != StartupMode::kGroupOffsets) {
      return InvalidArgument(
          "properties.auto.offset.reset is only read with scan.startup.mode group-offsets "
          "(floe sets it otherwise)");
    }
    if (reset_text == "earliest") {
      options.group_offset_reset = OffsetReset::kEarliest;
    } else if (reset_text == "latest") {
      options.group_offset_reset = OffsetReset::kLatest;
    } else if (reset_text == "none") {
      options.group_offset_reset = OffsetReset::kNone;
    } else {
      return InvalidArgument(
          "properties.auto.offset.reset '{}' is not one of earliest, latest, none", reset_text);
    }
  }
  return options;
}

}  // namespace floe::kafka
