#include "floe/cdc/debezium_json.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/types/temporal.h"

namespace floe::cdc {
namespace {

using types::Value;

/// `s` as a JSON string, or null when it is empty (as Debezium writes text it does not have).
void AppendJsonStringOrNull(std::string_view s, std::string* out) {
  if (s.empty()) {
    out->append("null");
  } else {
    AppendJsonString(s, out);
  }
}

enum class Dbz : uint8_t {
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kBoolean,
  kBits,
  kDecimal,
  kYear,
  kDate,
  kMicroTime,
  kTimestampMs,
  kMicroTimestamp,
  kZonedTimestamp,
  kString,
  kEnum,
  kEnumSet,
  kJson,
  kBytes,
  kGeometry,
};

Dbz Classify(const SourceColumn& c) {
  const std::string& t = c.type_name;
  if (t == "TINYINT") return c.is_unsigned ? Dbz::kInt16 : Dbz::kInt16;
  if (t == "BOOL" || t == "BOOLEAN") return Dbz::kInt16;
  if (t == "SMALLINT") return c.is_unsigned ? Dbz::kInt32 : Dbz::kInt16;
  if (t == "MEDIUMINT") return Dbz::kInt32;
  if (t == "INT" || t == "INTEGER") return c.is_unsigned ? Dbz::kInt64 : Dbz::kInt32;
  if (t == "BIGINT") return c.is_unsigned ? Dbz::kDecimal : Dbz::kInt64;
  if (t == "DECIMAL" || t == "NUMERIC") return Dbz::kDecimal;
  if (t == "FLOAT") return Dbz::kFloat32;
  if (t == "DOUBLE" || t == "REAL") return Dbz::kFloat64;
  if (t == "BIT") return c.length == 1 ? Dbz::kBoolean : Dbz::kBits;
  if (t == "YEAR") return Dbz::kYear;
  if (t == "DATE") return Dbz::kDate;
  if (t == "TIME") return Dbz::kMicroTime;
  if (t == "DATETIME") return c.fsp <= 3 ? Dbz::kTimestampMs : Dbz::kMicroTimestamp;
  if (t == "TIMESTAMP") return Dbz::kZonedTimestamp;
  if (t == "ENUM") return Dbz::kEnum;
  if (t == "SET") return Dbz::kEnumSet;
  if (t == "JSON") return Dbz::kJson;
  if (t == "BINARY" || t == "VARBINARY" || t == "TINYBLOB" || t == "BLOB" || t == "MEDIUMBLOB" ||
      t == "LONGBLOB" || t == "VECTOR")
    return Dbz::kBytes;
  if (t == "GEOMETRY" || t == "POINT" || t == "LINESTRING" || t == "POLYGON" || t == "MULTIPOINT" ||
      t == "MULTILINESTRING" || t == "MULTIPOLYGON" || t == "GEOMETRYCOLLECTION" ||
      t == "GEOMCOLLECTION")
    return Dbz::kGeometry;
  return Dbz::kString;
}

// Debezium's jdbcType codes (java.sql.Types).
int JdbcType(const SourceColumn& c) {
  const std::string& t = c.type_name;
  if (t == "TINYINT") return -6;
  if (t == "BOOL" || t == "BOOLEAN") return 16;
  if (t == "SMALLINT") return 5;
  if (t == "MEDIUMINT" || t == "INT" || t == "INTEGER") return 4;
  if (t == "BIGINT") return -5;
  if (t == "DECIMAL" || t == "NUMERIC") return 3;
  if (t == "FLOAT") return 7;
  if (t == "DOUBLE" || t == "REAL") return 8;
  if (t == "BIT") return -7;
  if (t == "YEAR") return 4;
  if (t == "DATE") return 91;
  if (t == "TIME") return 92;
  if (t == "DATETIME") return 93;
  if (t == "TIMESTAMP") return 2014;
  if (t == "CHAR" || t == "ENUM" || t == "SET") return 1;
  if (t == "VARCHAR" || t == "JSON") return 12;
  if (t == "TINYTEXT" || t == "TEXT" || t == "MEDIUMTEXT" || t == "LONGTEXT") return -1;
  if (t == "BINARY") return -2;
  if (t == "VARBINARY") return -3;
  if (t == "TINYBLOB" || t == "BLOB" || t == "MEDIUMBLOB" || t == "LONGBLOB") return 2004;
  if (Classify(c) == Dbz::kGeometry) return 1111;
  return 1111;
}

void AppendDigits(std::string* out, int64_t v, int width) {
  fmt::format_to(std::back_inserter(*out), "{:0{}d}", v, width);
}

// "2018-06-20T13:37:03[.ffffff]Z" with `fsp` fraction digits.
void AppendZoned(int64_t micros, int fsp, std::string* out) {
  int64_t secs = micros >= 0 ? micros / 1000000 : -((-micros + 999999) / 1000000);
  int64_t frac = micros - secs * 1000000;
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t sod = secs - days * 86400;
  int64_t y;
  unsigned m, d;
  types::CivilFromDays(days, &y, &m, &d);
  AppendDigits(out, y, 4);
  out->push_back('-');
  AppendDigits(out, m, 2);
  out->push_back('-');
  AppendDigits(out, d, 2);
  out->push_back('T');
  AppendDigits(out, sod / 3600, 2);
  out->push_back(':');
  AppendDigits(out, (sod / 60) % 60, 2);
  out->push_back(':');
  AppendDigits(out, sod % 60, 2);
  if (fsp > 0) {
    int64_t f = frac;
    for (int i = fsp; i < 6; ++i) f /= 10;
    out->push_back('.');
    AppendDigits(out, f, fsp);
  }
  out->push_back('Z');
}

void AppendBase64(std::string_view bytes, std::string* out) {
  out->push_back('"');
  Base64Encode(bytes, out);
  out->push_back('"');
}

void AppendInt128(types::int128_t v, std::string* out) {
  if (v == 0) {
    out->push_back('0');
    return;
  }
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int n = 0;
  while (u > 0) {
    buf[n++] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) out->push_back('-');
  while (n > 0) out->push_back(buf[--n]);
}

/// Kafka Connect's schema type and Debezium's logical name (empty: none) of
/// each Dbz kind, in the enum's order.
struct DbzSchema {
  std::string_view type;
  std::string_view name;
};
constexpr DbzSchema kDbzSchemas[] = {
    {"int16", ""},                                       // kInt16
    {"int32", ""},                                       // kInt32
    {"int64", ""},                                       // kInt64
    {"float", ""},                                       // kFloat32
    {"double", ""},                                      // kFloat64
    {"boolean", ""},                                     // kBoolean
    {"bytes", "io.debezium.data.Bits"},                  // kBits
    {"bytes", "org.apache.kafka.connect.data.Decimal"},  // kDecimal
    {"int32", "io.debezium.time.Year"},                  // kYear
    {"int32", "io.debezium.time.Date"},                  // kDate
    // MySQL TIME is a signed duration up to 838:59:59, not a time of day:
    // Debezium's duration in microseconds, which readers keep as a long.
    {"int64", "io.debezium.time.MicroDuration"},       // kMicroTime
    {"int64", "io.debezium.time.Timestamp"},           // kTimestampMs
    {"int64", "io.debezium.time.MicroTimestamp"},      // kMicroTimestamp
    {"string", "io.debezium.time.ZonedTimestamp"},     // kZonedTimestamp
    {"string", ""},                                    // kString
    {"string", "io.debezium.data.Enum"},               // kEnum
    {"string", "io.debezium.data.EnumSet"},            // kEnumSet
    {"string", "io.debezium.data.Json"},               // kJson
    {"bytes", ""},                                     // kBytes
    {"struct", "io.debezium.data.geometry.Geometry"},  // kGeometry
};
static_assert(std::size(kDbzSchemas) == static_cast<size_t>(Dbz::kGeometry) + 1);

std::string FieldSchemaJson(const SourceColumn& c, const types::NestedField* field) {
  const Dbz kind = Classify(c);
  const DbzSchema& schema = kDbzSchemas[static_cast<size_t>(kind)];
  std::string s = "{";
  if (kind == Dbz::kGeometry) {
    s += "\"type\":\"struct\",\"fields\":[{\"type\":\"bytes\",\"optional\":false,\"field\":"
         "\"wkb\"},{\"type\":\"int32\",\"optional\":true,\"field\":\"srid\"}]";
  } else {
    fmt::format_to(std::back_inserter(s), "\"type\":\"{}\"", schema.type);
  }
  std::string_view name = schema.name;
  std::string params;
  switch (kind) {
    case Dbz::kBits:
      params = fmt::format("\"length\":\"{}\"", c.length);
      break;
    case Dbz::kDecimal: {
      int scale = c.type_name == "BIGINT" ? 0 : std::max(c.scale, 0);
      int64_t precision = c.type_name == "BIGINT" ? 20 : c.length;
      params =
          fmt::format("\"scale\":\"{}\",\"connect.decimal.precision\":\"{}\"", scale, precision);
      break;
    }
    case Dbz::kEnum:
    case Dbz::kEnumSet: {
      std::string allowed;
      for (size_t i = 0; i < c.enum_values.size(); ++i) {
        if (i) allowed += ',';
        allowed += c.enum_values[i];
      }
      params = "\"allowed\":";
      AppendJsonString(allowed, &params);
      break;
    }
    default:
      break;
  }
  bool optional = field ? !field->required : c.nullable;
  fmt::format_to(std::back_inserter(s), ",\"optional\":{}", optional ? "true" : "false");
  if (!name.empty()) fmt::format_to(std::back_inserter(s), ",\"name\":\"{}\"", name);
  if (!name.empty() && kind != Dbz::kGeometry) s += ",\"version\":1";
  if (!params.empty()) fmt::format_to(std::back_inserter(s), ",\"parameters\":{{{}}}", params);
  s += ",\"field\":";
  AppendJsonString(c.name, &s);
  s += "}";
  return s;
}

constexpr std::string_view kSourceSchema =
    "{\"type\":\"struct\",\"fields\":["
    "{\"type\":\"string\",\"optional\":false,\"field\":\"version\"},"
    "{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},"
    "{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},"
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
    "{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.data.Enum\",\"version\":1,"
    "\"parameters\":{\"allowed\":\"true,last,false,incremental\"},\"default\":\"false\","
    "\"field\":\"snapshot\"},"
    "{\"type\":\"string\",\"optional\":false,\"field\":\"db\"},"
    "{\"type\":\"string\",\"optional\":true,\"field\":\"sequence\"},"
    "{\"type\":\"string\",\"optional\":true,\"field\":\"table\"},"
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"server_id\"},"
    "{\"type\":\"string\",\"optional\":true,\"field\":\"gtid\"},"
    "{\"type\":\"string\",\"optional\":false,\"field\":\"file\"},"
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"pos\"},"
    "{\"type\":\"int32\",\"optional\":false,\"field\":\"row\"},"
    "{\"type\":\"int64\",\"optional\":true,\"field\":\"thread\"},"
    "{\"type\":\"string\",\"optional\":true,\"field\":\"query\"}],"
    "\"optional\":false,\"name\":\"io.debezium.connector.mysql.Source\",\"field\":\"source\"}";

constexpr std::string_view kTransactionSchema =
    "{\"type\":\"struct\",\"fields\":["
    "{\"type\":\"string\",\"optional\":false,\"field\":\"id\"},"
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"total_order\"},"
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"data_collection_order\"}],"
    "\"optional\":true,\"name\":\"event.block\",\"version\":1,\"field\":\"transaction\"}";

}  // namespace

std::string DecimalToBigEndianBytes(types::int128_t unscaled) {
  unsigned char buf[16];
  auto u = static_cast<unsigned __int128>(unscaled);
  for (int i = 15; i >= 0; --i) {
    buf[i] = static_cast<unsigned char>(u & 0xFF);
    u >>= 8;
  }
  int start = 0;
  // Drop redundant sign bytes, keeping the sign bit right.
  while (start < 15) {
    if (buf[start] == 0x00 && (buf[start + 1] & 0x80) == 0) {
      ++start;
    } else if (buf[start] == 0xFF && (buf[start + 1] & 0x80) != 0) {
      ++start;
    } else {
      break;
    }
  }
  return std::string(reinterpret_cast<const char*>(buf + start), 16 - start);
}

Result<std::string> DecimalTextToBigEndianBytes(std::string_view text, int scale) {
  bool neg = false;
  std::string_view t = text;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  std::string digits;
  int frac = -1;
  for (char c : t) {
    if (c == '.') {
      if (frac >= 0) return InvalidArgument("'{}' is not a decimal", text);
      frac = 0;
    } else if (c >= '0' && c <= '9') {
      digits.push_back(c);
      if (frac >= 0) ++frac;
    } else {
      return InvalidArgument("'{}' is not a decimal", text);
    }
  }
  if (digits.empty()) return InvalidArgument("'{}' is not a decimal", text);
  if (frac < 0) frac = 0;
  if (frac > scale) return InvalidArgument("'{}' has more than {} fraction digits", text, scale);
  digits.append(static_cast<size_t>(scale - frac), '0');
  // Base-256 magnitude, little-endian.
  std::vector<uint8_t> mag;
  for (char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (auto& b : mag) {
      unsigned v = b * 10u + carry;
      b = static_cast<uint8_t>(v & 0xFF);
      carry = v >> 8;
    }
    while (carry) {
      mag.push_back(static_cast<uint8_t>(carry & 0xFF));
      carry >>= 8;
    }
  }
  if (mag.empty()) mag.push_back(0);
  mag.push_back(0);  // room for the sign bit
  if (neg) {
    unsigned carry = 1;
    for (auto& b : mag) {
      unsigned v = static_cast<uint8_t>(~b) + carry;
      b = static_cast<uint8_t>(v & 0xFF);
      carry = v >> 8;
    }
  }
  // Trim redundant sign bytes at the top.
  while (mag.size() > 1) {
    uint8_t top = mag.back(), next = mag[mag.size() - 2];
    if ((top == 0x00 && !(next & 0x80)) || (top == 0xFF && (next & 0x80))) {
      mag.pop_back();
    } else {
      break;
    }
  }
  return std::string(mag.rbegin(), mag.rend());
}

DebeziumJsonWriter::DebeziumJsonWriter(DebeziumJsonOptions options)
    : options_(std::move(options)) {}

const std::string& DebeziumJsonWriter::EnvelopeSchema(const TableDefinitionPtr& table_ptr) {
  const TableDefinition& table = *table_ptr;
  auto it = schema_cache_.find(&table);
  if (it != schema_cache_.end()) return it->second.second;
  std::string prefix = fmt::format("{}.{}.{}", options_.server_name, table.id.db, table.id.table);
  std::string fields;
  const auto& schema_fields = table.schema.fields();
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (i) fields += ',';
    fields +=
        FieldSchemaJson(table.columns[i], i < schema_fields.size() ? &schema_fields[i] : nullptr);
  }
  std::string value_struct = fmt::format(
      "{{\"type\":\"struct\",\"fields\":[{}],\"optional\":true,\"name\":\"{}.Value\",\"field\":",
      fields, prefix);
  std::string s = "{\"type\":\"struct\",\"fields\":[";
  s += value_struct + "\"before\"},";
  s += value_struct + "\"after\"},";
  s += kSourceSchema;
  s += ",{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
       "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"},";
  s += kTransactionSchema;
  fmt::format_to(std::back_inserter(s),
                 "],\"optional\":false,\"name\":\"{}.Envelope\",\"version\":1}}", prefix);
  // The cache holds the definition so its address is not reused while cached.
  if (schema_cache_.size() >= 4096) schema_cache_.clear();
  auto& entry = schema_cache_[&table];
  entry.first = table_ptr;
  entry.second = std::move(s);
  return entry.second;
}

void DebeziumJsonWriter::AppendSource(const ChangeSource* source, const TableId& table,
                                      uint32_t row, std::string* out) {
  static const ChangeSource kEmpty;
  const ChangeSource& s = source ? *source : kEmpty;
  out->append("{\"version\":");
  AppendJsonString(options_.version, out);
  out->append(",\"connector\":\"mysql\",\"name\":");
  AppendJsonString(options_.server_name, out);
  fmt::format_to(std::back_inserter(*out), ",\"ts_ms\":{},\"snapshot\":", s.ts_ms);
  AppendJsonString(s.snapshot, out);
  out->append(",\"db\":");
  AppendJsonString(table.db, out);
  out->append(",\"sequence\":null,\"table\":");
  AppendJsonStringOrNull(table.table, out);
  fmt::format_to(std::back_inserter(*out), ",\"server_id\":{},\"gtid\":", s.position.server_id);
  AppendJsonStringOrNull(s.position.gtid, out);
  out->append(",\"file\":");
  AppendJsonString(s.position.binlog.file, out);
  fmt::format_to(std::back_inserter(*out),
                 ",\"pos\":{},\"row\":{},\"thread\":", s.position.binlog.pos, row);
  if (s.thread_id) {
    fmt::format_to(std::back_inserter(*out), "{}", s.thread_id);
  } else {
    out->append("null");
  }
  out->append(",\"query\":");
  AppendJsonStringOrNull(s.query, out);
  out->push_back('}');
}

void DebeziumJsonWriter::AppendRow(const TableDefinition& table, types::Row row, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const SourceColumn& c = table.columns[i];
    if (i) out->push_back(',');
    AppendJsonString(c.name, out);
    out->push_back(':');
    if (i >= row.size() || row[i].is_null()) {
      out->append("null");
      continue;
    }
    const Value& v = row[i];
    switch (Classify(c)) {
      case Dbz::kInt16:
      case Dbz::kInt32:
      case Dbz::kInt64:
      case Dbz::kYear:
      case Dbz::kDate:
      case Dbz::kMicroTime:
      case Dbz::kMicroTimestamp:
        if (v.kind == Value::Kind::kInt32) {
          fmt::format_to(std::back_inserter(*out), "{}", v.i32);
        } else if (v.kind == Value::Kind::kInt64) {
          fmt::format_to(std::back_inserter(*out), "{}", v.i64);
        } else if (v.kind == Value::Kind::kBool) {
          out->push_back(v.b ? '1' : '0');
        } else if (v.kind == Value::Kind::kDecimal) {
          AppendInt128(v.decimal, out);
        } else {
          out->append("null");
        }
        break;
      case Dbz::kTimestampMs: {
        int64_t micros = v.kind == Value::Kind::kInt64 ? v.i64 : 0;
        int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
        fmt::format_to(std::back_inserter(*out), "{}", ms);
        break;
      }
      case Dbz::kZonedTimestamp:
        out->push_back('"');
        AppendZoned(v.kind == Value::Kind::kInt64 ? v.i64 : 0, c.fsp, out);
        out->push_back('"');
        break;
      case Dbz::kFloat32:
        if (v.kind == Value::Kind::kFloat) {
          AppendJsonFloating(v.f32, out);
        } else {
          AppendJsonFloating(v.kind == Value::Kind::kDouble ? v.f64 : 0, out);
        }
        break;
      case Dbz::kFloat64:
        AppendJsonFloating(v.kind == Value::Kind::kDouble  ? v.f64
                           : v.kind == Value::Kind::kFloat ? v.f32
                                                           : 0,
                           out);
        break;
      case Dbz::kBoolean:
        if (v.kind == Value::Kind::kBool) {
          out->append(v.b ? "true" : "false");
        } else if (v.kind == Value::Kind::kBytes) {
          bool any = false;
          for (char ch : v.as_bytes()) any |= ch != 0;
          out->append(any ? "true" : "false");
        } else {
          out->append(v.i64 ? "true" : "false");
        }
        break;
      case Dbz::kBits: {
        // Big-endian in floe, little-endian in Debezium.
        std::string le(v.as_bytes().rbegin(), v.as_bytes().rend());
        AppendBase64(le, out);
        break;
      }
      case Dbz::kDecimal:
        if (v.kind == Value::Kind::kDecimal) {
          AppendBase64(DecimalToBigEndianBytes(v.decimal), out);
        } else if (v.kind == Value::Kind::kBytes) {
          auto bytes = DecimalTextToBigEndianBytes(v.as_bytes(), std::max(c.scale, 0));
          if (bytes) {
            AppendBase64(*bytes, out);
          } else {
            out->append("null");
          }
        } else {
          out->append("null");
        }
        break;
      case Dbz::kBytes:
        AppendBase64(v.as_bytes(), out);
        break;
      case Dbz::kGeometry:
        out->append("{\"wkb\":");
        AppendBase64(v.as_bytes(), out);
        out->append(",\"srid\":null}");
        break;
      case Dbz::kString:
      case Dbz::kEnum:
      case Dbz::kEnumSet:
      case Dbz::kJson:
        AppendJsonString(v.as_bytes(), out);
        break;
    }
  }
  out->push_back('}');
}

void DebeziumJsonWriter::AppendRowChange(const RowChange& change, int64_t ts_ms, std::string* out) {
  const TableDefinition& table = *change.table;
  if (options_.include_schema) {
    out->append("{\"schema\":");
    out->append(EnvelopeSchema(change.table));
    out->append(",\"payload\":");
  }
  out->append("{\"before\":");
  if (change.op == ChangeOp::kUpdate || change.op == ChangeOp::kDelete) {
    AppendRow(table, change.before, out);
  } else {
    out->append("null");
  }
  out->append(",\"after\":");
  if (change.op != ChangeOp::kDelete) {
    AppendRow(table, change.after, out);
  } else {
    out->append("null");
  }
  out->append(",\"source\":");
  AppendSource(change.source.get(), table.id, change.row_in_event, out);
  fmt::format_to(std::back_inserter(*out), ",\"op\":\"{}\",\"ts_ms\":{},\"transaction\":null}}",
                 ChangeOpLetter(change.op), ts_ms);
  if (options_.include_schema) out->push_back('}');
}

void DebeziumJsonWriter::AppendSchemaChange(const SchemaChange& change, int64_t ts_ms,
                                            std::string* out) {
  if (options_.include_schema) {
    out->append("{\"schema\":{\"type\":\"struct\",\"fields\":[");
    out->append(kSourceSchema);
    out->append(
        ",{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
        "{\"type\":\"string\",\"optional\":true,\"field\":\"databaseName\"},"
        "{\"type\":\"string\",\"optional\":true,\"field\":\"schemaName\"},"
        "{\"type\":\"string\",\"optional\":true,\"field\":\"ddl\"},"
        "{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":["
        "{\"type\":\"string\",\"optional\":false,\"field\":\"type\"},"
        "{\"type\":\"string\",\"optional\":false,\"field\":\"id\"},"
        "{\"type\":\"struct\",\"optional\":true,\"name\":\"io.debezium.connector.schema.Table\","
        "\"version\":1,\"field\":\"table\"},"
        "{\"type\":\"string\",\"optional\":true,\"field\":\"comment\"}],"
        "\"optional\":false,\"name\":\"io.debezium.connector.schema.Change\",\"version\":1},"
        "\"optional\":false,\"field\":\"tableChanges\"}],"
        "\"optional\":false,\"name\":\"io.debezium.connector.mysql.SchemaChangeValue\","
        "\"version\":1},\"payload\":");
  }
  out->append("{\"source\":");
  TableId source_table = change.table;
  AppendSource(change.source.get(), source_table, 0, out);
  fmt::format_to(std::back_inserter(*out), ",\"ts_ms\":{},\"databaseName\":", ts_ms);
  AppendJsonString(change.database.empty() ? change.table.db : change.database, out);
  out->append(",\"schemaName\":null,\"ddl\":");
  AppendJsonString(change.ddl, out);
  // floe's own detail of the change, for consumers that want it structured.
  out->append(",\"floe\":{\"kind\":");
  AppendJsonString(SchemaChangeKindName(change.kind), out);
  if (!change.old_table.table.empty()) {
    out->append(",\"old_table\":");
    AppendJsonString(change.old_table.ToString(), out);
  }
  if (!change.column.empty()) {
    out->append(",\"column\":");
    AppendJsonString(change.column, out);
  }
  if (!change.old_column.empty()) {
    out->append(",\"old_column\":");
    AppendJsonString(change.old_column, out);
  }
  if (change.position >= 0)
    fmt::format_to(std::back_inserter(*out), ",\"position\":{}", change.position);
  out->append("},\"tableChanges\":[{\"type\":");
  const char* type = change.kind == SchemaChangeKind::kCreateTable ? "CREATE"
                     : change.kind == SchemaChangeKind::kDropTable ? "DROP"
                                                                   : "ALTER";
  fmt::format_to(std::back_inserter(*out), "\"{}\",\"id\":", type);
  AppendJsonString(fmt::format("\"{}\".\"{}\"", change.table.db, change.table.table), out);
  out->append(",\"table\":");
  if (!change.table_after) {
    out->append("null");
  } else {
    const TableDefinition& t = *change.table_after;
    out->append("{\"defaultCharsetName\":");
    AppendJsonStringOrNull(t.charset, out);
    out->append(",\"primaryKeyColumnNames\":[");
    for (size_t i = 0; i < t.primary_key.size(); ++i) {
      if (i) out->push_back(',');
      AppendJsonString(t.primary_key[i], out);
    }
    out->append("],\"columns\":[");
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const SourceColumn& c = t.columns[i];
      if (i) out->push_back(',');
      out->append("{\"name\":");
      AppendJsonString(c.name, out);
      fmt::format_to(std::back_inserter(*out), ",\"jdbcType\":{},\"typeName\":", JdbcType(c));
      std::string type_name = c.type_name + (c.is_unsigned ? " UNSIGNED" : "");
      AppendJsonString(type_name, out);
      out->append(",\"typeExpression\":");
      AppendJsonString(type_name, out);
      out->append(",\"charsetName\":");
      AppendJsonStringOrNull(c.charset, out);
      out->append(",\"length\":");
      int64_t length = c.length;
      if (length < 0 &&
          (c.type_name == "DATETIME" || c.type_name == "TIMESTAMP" || c.type_name == "TIME") &&
          c.fsp > 0)
        length = c.fsp;
      if (length >= 0) {
        fmt::format_to(std::back_inserter(*out), "{}", length);
      } else {
        out->append("null");
      }
      out->append(",\"scale\":");
      if (c.scale >= 0) {
        fmt::format_to(std::back_inserter(*out), "{}", c.scale);
      } else {
        out->append("null");
      }
      fmt::format_to(std::back_inserter(*out),
                     ",\"position\":{},\"optional\":{},\"autoIncremented\":{},"
                     "\"generated\":{},\"comment\":",
                     i + 1, c.nullable ? "true" : "false", c.auto_increment ? "true" : "false",
                     c.auto_increment ? "true" : "false");
      AppendJsonStringOrNull(c.comment, out);
      fmt::format_to(std::back_inserter(*out),
                     ",\"hasDefaultValue\":{},\"defaultValueExpression\":",
                     c.default_value ? "true" : "false");
      if (c.default_value) {
        AppendJsonString(*c.default_value, out);
      } else {
        out->append("null");
      }
      out->append(",\"enumValues\":");
      if (c.enum_values.empty()) {
        out->append("null");
      } else {
        out->push_back('[');
        for (size_t k = 0; k < c.enum_values.size(); ++k) {
          if (k) out->push_back(',');
          AppendJsonString(c.enum_values[k], out);
        }
        out->push_back(']');
      }
      out->push_back('}');
    }
    out->append("],\"attributes\":[]}");
  }
  out->append(",\"comment\":null}]}");
  if (options_.include_schema) out->push_back('}');
}

}  // namespace floe::cdc
