#include "floe/cli/log_format.h"

#include <string_view>

#include <spdlog/pattern_formatter.h>

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

}  // namespace

std::unique_ptr<spdlog::formatter> EscapedTextFormatter(const std::string& pattern) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<EscapedMessageFlag>('E').set_pattern(pattern);
  return formatter;
}

}  // namespace floe::cli
