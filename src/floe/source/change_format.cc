#include "floe/source/change_format.h"

#include "floe/common/json_text.h"
#include "floe/common/number_text.h"

namespace floe::source {

Result<OutputFormat> ParseOutputFormat(std::string_view text) {
  if (text == "json") return OutputFormat::kJson;
  if (text == "debezium-json") return OutputFormat::kDebeziumJson;
  return InvalidArgument("--format '{}': not one of json, debezium-json", text);
}

namespace {

void AppendInt64(int64_t v, std::string* out) {
  char text[kNumberStoreBound];
  out->append(text, WriteInt64(v, text));
}

}  // namespace

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
  AppendInt64(origin.snapshot_id, out);
  out->append(",\"sequence_number\":");
  AppendInt64(origin.sequence_number, out);
  out->append(",\"ts_ms\":");
  AppendInt64(origin.timestamp_ms, out);
  out->append("},\"ts_ms\":");
  AppendInt64(origin.timestamp_ms, out);
  out->push_back('}');
}

}  // namespace floe::source
