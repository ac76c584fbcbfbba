#include "floe/types/row_json.h"
#include "floe/common/json_text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "floe/common/base64.h"
#include "floe/types/row_json_backend.h"
#include "floe/types/temporal.h"

namespace floe::types {

// ---------------------------------------------------------------------------
// Writing

namespace {


template <typename T>
void AppendNumber(T v, std::string* out) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

template <typename F>
void AppendFloating(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    AppendNumber(v, out);  // shortest text that reads back to the same value
  }
}

}  // namespace

void AppendValueJson(const Type& type, const Value& v, std::string* out) {
  if (v.is_null()) {
    out->append("null");
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean: out->append(v.b ? "true" : "false"); return;
    case TypeId::kInt: AppendNumber(v.i32, out); return;
    case TypeId::kLong: AppendNumber(v.i64, out); return;
    case TypeId::kFloat: AppendFloating(v.f32, out); return;
    case TypeId::kDouble: AppendFloating(v.f64, out); return;
    case TypeId::kDecimal:
      out->push_back('"');
      AppendDecimal(v.decimal, type.scale(), out);
      out->push_back('"');
      return;
    case TypeId::kDate:
      out->push_back('"');
      AppendDate(v.i32, out);
      out->push_back('"');
      return;
    case TypeId::kTime:
      out->push_back('"');
      AppendTime(v.i64, out);
      out->push_back('"');
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      out->push_back('"');
      AppendTimestamp(v.i64, type.id() == TypeId::kTimestampTz, out);
      out->push_back('"');
      return;
    case TypeId::kString: AppendJsonString(v.as_bytes(), out); return;
    case TypeId::kUuid:
      out->push_back('"');
      AppendUuid(v.as_bytes(), out);
      out->push_back('"');
      return;
    case TypeId::kFixed:
    case TypeId::kBinary:
      out->push_back('"');
      Base64Encode(v.as_bytes(), out);
      out->push_back('"');
      return;
    case TypeId::kStruct: {
      out->push_back('{');
      const auto& fields = type.fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(fields[i].name, out);
        out->push_back(':');
        AppendValueJson(*fields[i].type, i < v.size ? v.children[i] : Value::Null(), out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {
      out->push_back('[');
      for (uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) out->push_back(',');
        AppendValueJson(*type.element().type, v.children[i], out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {
      out->push_back('[');
      for (size_t i = 0; i < v.map_size(); ++i) {
        if (i > 0) out->push_back(',');
        out->append("{\"key\":");
        AppendValueJson(*type.key().type, v.children[2 * i], out);
        out->append(",\"value\":");
        AppendValueJson(*type.value().type, v.children[2 * i + 1], out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    }
  }
}

void AppendRowJson(const Schema& schema, Row row, std::string* out) {
  Value root = Value::Struct(row.data(), row.size());
  AppendValueJson(*schema.as_struct(), root, out);
}

// ---------------------------------------------------------------------------
// Parsing: dispatch to the simdjson kernel this CPU runs best.

JsonRowParser::JsonRowParser(const Schema& schema) {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("bmi2")) {
    backend_ = haswell_backend::MakeBackend(schema);
    return;
  }
#endif
  backend_ = fallback_backend::MakeBackend(schema);
}

JsonRowParser::~JsonRowParser() = default;

Result<Row> JsonRowParser::Parse(std::string_view json, Arena* arena) {
  return backend_->Parse(json, arena);
}

}  // namespace floe::types
