#pragma once
// Helpers shared by the Debezium JSON reader's unit tests.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/common/arena.h"
#include "floe/types/schema.h"
#include "floe/types/temporal.h"
#include "floe/types/value.h"

namespace floe::cdc::test_util {

/// A value as text for failure messages.
inline std::string Describe(const types::Value& v) {
  switch (v.kind) {
    case types::Value::Kind::kNull:
      return "null";
    case types::Value::Kind::kBool:
      return v.b ? "true" : "false";
    case types::Value::Kind::kInt32:
      return std::to_string(v.i32);
    case types::Value::Kind::kInt64:
      return std::to_string(v.i64);
    case types::Value::Kind::kFloat:
      return std::to_string(v.f32);
    case types::Value::Kind::kDouble:
      return std::to_string(v.f64);
    case types::Value::Kind::kDecimal: {
      std::string s;
      types::AppendDecimal(v.decimal, 0, &s);
      return "decimal " + s;
    }
    case types::Value::Kind::kBytes:
      return "bytes '" + std::string(v.as_bytes()) + "'";
    default:
      return "nested";
  }
}

/// An event of table d.t whose schema block has the row fields `fields_json`
/// (before and after alike) and whose after image is `payload_after`.
inline std::string Wrap(std::string_view fields_json, std::string_view payload_after) {
  return fmt::format(
      R"({{"schema":{{"type":"struct","fields":[{{"type":"struct","fields":[{0}],"optional":true,)"
      R"("name":"s.d.t.Value","field":"before"}},{{"type":"struct","fields":[{0}],"optional":true,)"
      R"("name":"s.d.t.Value","field":"after"}},{{"type":"string","optional":false,"field":"op"}}],)"
      R"("optional":false,"name":"s.d.t.Envelope"}},"payload":{{"before":null,"after":{1},)"
      R"("source":{{"db":"d","table":"t"}},"op":"c","ts_ms":1}}}})",
      fields_json, payload_after);
}

/// Expects `line` to be refused with kInvalidArgument, the message holding `want`.
inline void ExpectError(DebeziumJsonReader& reader, std::string_view line,
                        const types::Schema* known, std::string_view want) {
  Arena arena;
  auto e = reader.Decode(line, known, &arena);
  ASSERT_FALSE(e) << "accepted: " << line;
  EXPECT_EQ(e.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(e.error().message().find(want), std::string::npos)
      << "message: " << e.error().message() << "\nwanted: " << want;
}

}  // namespace floe::cdc::test_util
