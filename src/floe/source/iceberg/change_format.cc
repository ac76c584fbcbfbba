#include "floe/source/iceberg/change_format.h"

#include "floe/common/json_text.h"

namespace floe::source {

Result<OutputFormat> ParseOutputFormat(std::string_view text) {
  if (text == "json") return OutputFormat::kJson;
  if (text == "debezium-json") return OutputFormat::kDebeziumJson;
  return InvalidArgument("--format '{}': not one of json, debezium-json", text);
}

void AppendDebeziumEvent(char op, std::string_view before, std::string_view after,
                         const ChangeOrigin& origin, std::string* out) {
  out->append("{\"before\":");
  out->append(before.empty() ? std::string_view("null") : before);
  out->append(",\"after\":");
  out->append(after.empty() ? std::string_view("null") : after);
  out->append(",\"op\":\"");
  out->push_back(op);
  out->append("\",\"source\":{\"connector\":\"iceberg\",\"name\":\"floe\",\"db\":");
  AppendJsonString(origin.db, out);
  out->append(",\"table\":");
  AppendJsonString(origin.table, out);
  out->append(",\"snapshot_id\":");
  out->append(std::to_string(origin.snapshot_id));
  out->append(",\"sequence_number\":");
  out->append(std::to_string(origin.sequence_number));
  out->append(",\"ts_ms\":");
  out->append(std::to_string(origin.timestamp_ms));
  out->append("},\"ts_ms\":");
  out->append(std::to_string(origin.timestamp_ms));
  out->push_back('}');
}

}  // namespace floe::source
