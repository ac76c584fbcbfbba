#include "floe/cli/log_format.h"

#include <string_view>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "floe/cli/cli_values.h"
#include "floe/common/json_text.h"
#include "floe/common/printable.h"

namespace floe::cli {
namespace {

/// spdlog flag %E: the message with control characters escaped.
class EscapedMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string out =
        EscapeControlCharacters(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(out.data(), out.data() + out.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<EscapedMessageFlag>();
  }
};

/// spdlog flag %J: the message as a JSON string literal (--log-format json).
class JsonMessageFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string out;
    AppendJsonString(std::string_view(msg.payload.data(), msg.payload.size()), &out);
    dest.append(out.data(), out.data() + out.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessageFlag>();
  }
};

std::unique_ptr<spdlog::formatter> JsonFormatter() {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<JsonMessageFlag>('J').set_pattern(
      R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","thread":%t,"message":%J})");
  return formatter;
}

}  // namespace

std::unique_ptr<spdlog::formatter> EscapedTextFormatter(const std::string& pattern) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<EscapedMessageFlag>('E').set_pattern(pattern);
  return formatter;
}

void SetUpDefaultLogging() {
  // spdlog's own default logger writes to standard output, where commands
  // print their results (a table scan's rows): a warning there would land in
  // the middle of them.
  auto logger =
      std::make_shared<spdlog::logger>("", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_formatter(EscapedTextFormatter(kDefaultLogPattern));
  spdlog::set_default_logger(std::move(logger));
}

Status SetUpCommandLogging(const CommandLogOptions& options) {
  auto level = spdlog::level::from_str(options.level);
  if (level == spdlog::level::off && options.level != "off") {
    return InvalidArgument("--log-level '{}': one of trace, debug, info, warn, error, off",
                           options.level);
  }
  if (options.format != "text" && options.format != "json") {
    return InvalidArgument("--log-format '{}': text or json", options.format);
  }
  spdlog::drop(options.name);
  auto logger = spdlog::stderr_color_mt(options.name);
  logger->set_level(level);
  if (options.format == "json") {
    logger->set_formatter(JsonFormatter());
  } else {
    logger->set_formatter(EscapedTextFormatter(
        (options.under_progress_line ? std::string("\r\033[K") : std::string()) + options.pattern));
  }
  spdlog::set_default_logger(logger);
  return Ok();
}

CLI::Option* AddLogLevelOption(CLI::App& command, std::string* level) {
  return command.add_option("--log-level", *level, "trace, debug, info, warn, error or off")
      ->capture_default_str()
      ->check(OneOf({"trace", "debug", "info", "warn", "error", "off"}));
}

}  // namespace floe::cli
