#include "floe/cdc/mysql/canal_json.h"

#include <simdjson.h>

#include <charconv>
#include <optional>
#include <unordered_map>

#include "floe/cdc/mysql/ddl_parser.h"
#include "floe/cdc/mysql/snapshot.h"
#include "floe/cdc/mysql/type_mapping.h"

namespace floe::cdc::mysql {
namespace {

namespace dom = simdjson::dom;

// The columns of one `mysqlType` block, and the schema they map to.
struct ColumnSet {
  std::vector<std::pair<std::string, std::string>> declared;  // name, type text
  std::vector<ColumnDef> columns;
  std::unordered_map<std::string, size_t> index;
  std::shared_ptr<const types::Schema> schema;
};

Result<ColumnDef> ParseColumnType(std::string_view name, std::string_view type) {
  auto column = ParseColumnDefinition(name, type);
  if (!column) {
    return InvalidArgument("mysqlType.{}: '{}' is not a MySQL column type: {}", name, type,
                           column.error().message());
  }
  column->nullable = true;
  return column;
}

// Canal writes binary values one character per byte (ISO-8859-1): the
// UTF-8 of the JSON string is turned back into those bytes.
Result<std::string_view> Latin1Bytes(std::string_view utf8, Arena* arena) {
  char* out = static_cast<char*>(arena->Allocate(utf8.size() + 1, 1));
  size_t n = 0;
  for (size_t i = 0; i < utf8.size(); ++i) {
    auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out[n++] = static_cast<char>(c);
    } else if ((c == 0xC2 || c == 0xC3) && i + 1 < utf8.size() &&
               (static_cast<unsigned char>(utf8[i + 1]) & 0xC0) == 0x80) {
      out[n++] =
          static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3F));
    } else {
      return InvalidArgument(
          "a binary value with a character above U+00FF (expected one "
          "ISO-8859-1 character per byte)");
    }
  }
  return std::string_view(out, n);
}

// BIT(n) as Canal writes it (the number in decimal) -> the big-endian bytes
// a SELECT returns.
Result<std::string_view> BitBytes(std::string_view text, Arena* arena) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument("a BIT value '{}' that is not a number", text.substr(0, 64));
  }
  char* out = static_cast<char*>(arena->Allocate(8, 1));
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
  return std::string_view(out, 8);
}

}  // namespace

struct CanalJsonReader::Impl {
  dom::parser parser;
  ColumnSet columns;
  std::vector<std::pair<std::string, std::string>> scratch_declared;
  std::string number_text;
  std::string key_scratch;

  Status LoadColumns(dom::object mysql_type) {
    scratch_declared.clear();
    for (auto [key, value] : mysql_type) {
      std::string_view type;
      if (value.get_string().get(type)) {
        return InvalidArgument("mysqlType.{}: expected a string", std::string_view(key));
      }
      scratch_declared.emplace_back(std::string(key), std::string(type));
    }
    if (scratch_declared == columns.declared && columns.schema) return Ok();
    ColumnSet next;
    std::vector<types::NestedField> fields;
    int32_t id = 1;
    for (const auto& [name, type] : scratch_declared) {
      FLOE_ASSIGN_OR_RETURN(ColumnDef column, ParseColumnType(name, type));
      auto iceberg = IcebergTypeOf(column);
      if (!iceberg) {
        return InvalidArgument("mysqlType.{}: {}", name, iceberg.error().message());
      }
      if (!next.index.emplace(name, next.columns.size()).second) {
        return InvalidArgument("mysqlType.{}: the column is given twice", name);
      }
      fields.push_back(types::NestedField{id++, name, false, *iceberg, ""});
      next.columns.push_back(std::move(column));
    }
    next.declared = scratch_declared;
    next.schema = std::make_shared<const types::Schema>(std::move(fields), 0);
    columns = std::move(next);
    return Ok();
  }

  Result<types::Value> ParseValue(const ColumnDef& column, dom::element value, Arena* arena) {
    std::string_view text;
    switch (value.type()) {
      case dom::element_type::NULL_VALUE:
        return types::Value::Null();
      case dom::element_type::STRING:
        text = value.get_string().value_unsafe();
        break;
      case dom::element_type::INT64:
        number_text = std::to_string(value.get_int64().value_unsafe());
        text = number_text;
        break;
      case dom::element_type::UINT64:
        number_text = std::to_string(value.get_uint64().value_unsafe());
        text = number_text;
        break;
      case dom::element_type::DOUBLE:
        number_text = fmt::format("{}", value.get_double().value_unsafe());
        text = number_text;
        break;
      case dom::element_type::BOOL:
        text = value.get_bool().value_unsafe() ? "1" : "0";
        break;
      default:
        return InvalidArgument("expected a string, number, boolean or null");
    }
    if (IsBinaryType(column.type)) {
      FLOE_ASSIGN_OR_RETURN(text, Latin1Bytes(text, arena));
    } else if (column.type == MysqlType::kBit && column.length.value_or(1) > 1) {
      FLOE_ASSIGN_OR_RETURN(text, BitBytes(text, arena));
    }
    return ParseSelectedValue(column, text.data(), text.size(), arena);
  }

  // The values of one `data`/`old` object in column order; `base` (may be
  // empty) gives the values of columns the object does not name.
  Result<types::Row> ParseRow(dom::element element, std::string_view where, types::Row base,
                              Arena* arena) {
    dom::object object;
    if (element.get_object().get(object)) {
      return InvalidArgument("{}: expected an object", where);
    }
    const size_t n = columns.columns.size();
    auto* values = arena->AllocateArray<types::Value>(n);
    for (size_t i = 0; i < n; ++i) values[i] = base.empty() ? types::Value::Null() : base[i];
    // Canal writes the members of `data` in the order of `mysqlType`: the
    // column after the previous one is tried first, the name map only when
    // that misses (a reordered or partial `old` object).
    size_t next = 0;
    for (auto [key, value] : object) {
      size_t column = next;
      if (column >= n || columns.columns[column].name != key) {
        key_scratch.assign(key);
        auto it = columns.index.find(key_scratch);
        if (it == columns.index.end()) {
          return InvalidArgument("{}.{}: the column has no type in mysqlType", where,
                                 std::string_view(key));
        }
        column = it->second;
      }
      next = column + 1;
      auto parsed = ParseValue(columns.columns[column], value, arena);
      if (!parsed) {
        return InvalidArgument("{}.{}: {}", where, std::string_view(key), parsed.error().message());
      }
      values[column] = *parsed;
    }
    return types::Row(values, n);
  }
};

namespace {

// The fields of a Canal message's envelope; elements are the JSON values.
struct CanalEnvelope {
  std::string_view type;
  std::string_view database;
  std::string_view table;
  bool is_ddl = false;
  int64_t es = 0;
  /// Absent when the message leaves them out or gives null.
  std::optional<dom::element> data;
  std::optional<dom::element> old;
  std::optional<dom::element> mysql_type;
  std::optional<dom::element> pk_names;
};

// `value`, or nothing when it is null.
std::optional<dom::element> UnlessNull(dom::element value) {
  if (value.is_null()) return std::nullopt;
  return value;
}

// A field that may be null (then `*out` keeps its default); `error` when
// its JSON type is not T's.
template <typename T>
Status ReadNullable(dom::element value, T* out, std::string_view error) {
  if (!value.is_null() && value.get(*out)) return InvalidArgument("{}", error);
  return Ok();
}

Status ReadEnvelope(dom::object root, CanalEnvelope* e) {
  for (auto [key, value] : root) {
    if (key == "type") {
      if (value.get_string().get(e->type)) return InvalidArgument("type: expected a string");
    } else if (key == "database") {
      FLOE_RETURN_IF_ERROR(ReadNullable(value, &e->database, "database: expected a string"));
    } else if (key == "table") {
      FLOE_RETURN_IF_ERROR(ReadNullable(value, &e->table, "table: expected a string"));
    } else if (key == "isDdl") {
      FLOE_RETURN_IF_ERROR(ReadNullable(value, &e->is_ddl, "isDdl: expected true or false"));
    } else if (key == "es") {
      FLOE_RETURN_IF_ERROR(ReadNullable(value, &e->es, "es: expected a number of milliseconds"));
    } else if (key == "data") {
      e->data = UnlessNull(value);
    } else if (key == "old") {
      e->old = UnlessNull(value);
    } else if (key == "mysqlType") {
      e->mysql_type = UnlessNull(value);
    } else if (key == "pkNames") {
      e->pk_names = UnlessNull(value);
    }
  }
  if (e->type.empty()) return InvalidArgument("type: missing");
  return Ok();
}

// A DDL message (isDdl, or a type other than INSERT/UPDATE/DELETE): one
// truncate or schema-change event.
Status DecodeDdl(const CanalEnvelope& e, DebeziumEvent::TableKey key,
                 std::vector<DebeziumEvent>* out) {
  static constexpr std::string_view kDdlTypes[] = {"CREATE",   "ALTER", "ERASE",  "RENAME",
                                                   "TRUNCATE", "QUERY", "CINDEX", "DINDEX"};
  bool known = false;
  for (std::string_view t : kDdlTypes) known = known || t == e.type;
  if (!known) {
    return InvalidArgument(
        "type '{}' is not one of INSERT, UPDATE, DELETE or a DDL type "
        "(CREATE, ALTER, ERASE, RENAME, TRUNCATE, QUERY, CINDEX, DINDEX)",
        e.type.substr(0, 64));
  }
  DebeziumEvent& event = out->emplace_back();
  event.db = key.db;
  event.table = key.table;
  event.ts_ms = e.es;
  if (e.type == "TRUNCATE") {
    if (e.table.empty()) return InvalidArgument("table: missing on a TRUNCATE");
    event.kind = DebeziumEvent::Kind::kTruncate;
    event.schema_change_kind = "truncate_table";
  } else {
    event.kind = DebeziumEvent::Kind::kSchemaChange;
    if (!e.table.empty()) event.table_keys.push_back(std::move(key));
  }
  return Ok();
}

}  // namespace

CanalJsonReader::CanalJsonReader() : impl_(std::make_unique<Impl>()) {}
CanalJsonReader::~CanalJsonReader() = default;

Status CanalJsonReader::Decode(std::string_view message, Arena* arena,
                               std::vector<DebeziumEvent>* out) {
  out->clear();
  Impl& s = *impl_;
  dom::element doc;
  if (auto error = s.parser.parse(message.data(), message.size(), true).get(doc)) {
    return InvalidArgument("not JSON: {}", simdjson::error_message(error));
  }
  dom::object root;
  if (doc.get_object().get(root)) return InvalidArgument("expected a JSON object");

  CanalEnvelope e;
  FLOE_RETURN_IF_ERROR(ReadEnvelope(root, &e));
  const std::string_view type = e.type;

  DebeziumEvent::TableKey key{std::string(e.database), std::string(e.table), {}};
  if (e.pk_names) {
    dom::array names;
    if (e.pk_names->get_array().get(names)) return InvalidArgument("pkNames: expected an array");
    for (dom::element name : names) {
      std::string_view text;
      if (name.get_string().get(text)) return InvalidArgument("pkNames: expected strings");
      key.primary_key.emplace_back(text);
    }
  }

  if (e.is_ddl || !(type == "INSERT" || type == "UPDATE" || type == "DELETE")) {
    return DecodeDdl(e, std::move(key), out);
  }

  if (e.table.empty()) return InvalidArgument("table: missing on a {} event", type);
  if (e.database.empty()) return InvalidArgument("database: missing on a {} event", type);
  if (!e.mysql_type) return InvalidArgument("mysqlType: missing (the column types)");
  dom::object mysql_object;
  if (e.mysql_type->get_object().get(mysql_object)) {
    return InvalidArgument("mysqlType: expected an object");
  }
  FLOE_RETURN_IF_ERROR(s.LoadColumns(mysql_object));

  dom::array rows;
  if (!e.data || e.data->get_array().get(rows)) {
    return InvalidArgument("data: expected an array of rows on a {} event", type);
  }
  dom::array old_rows;
  size_t old_count = 0;
  const bool update = type == "UPDATE";
  if (update && e.old) {
    if (e.old->get_array().get(old_rows)) return InvalidArgument("old: expected an array");
    old_count = old_rows.size();
    if (old_count != rows.size()) {
      return InvalidArgument("old: {} rows for {} rows of data", old_count, rows.size());
    }
  }
  const ChangeOp op = type == "INSERT" ? ChangeOp::kInsert
                      : update         ? ChangeOp::kUpdate
                                       : ChangeOp::kDelete;
  size_t i = 0;
  std::string where;
  auto old_row = old_count > 0 ? old_rows.begin() : dom::array::iterator();
  for (dom::element row : rows) {
    where = fmt::format("data[{}]", i);
    FLOE_ASSIGN_OR_RETURN(types::Row values, s.ParseRow(row, where, {}, arena));
    DebeziumEvent& event = out->emplace_back();
    event.kind = DebeziumEvent::Kind::kRow;
    event.op = op;
    event.db = key.db;
    event.table = key.table;
    event.ts_ms = e.es;
    event.row_schema = s.columns.schema;
    event.table_keys.push_back(key);
    if (op == ChangeOp::kDelete) {
      event.before = values;
    } else {
      event.after = values;
    }
    if (update) {
      if (old_count > 0) {
        where = fmt::format("old[{}]", i);
        FLOE_ASSIGN_OR_RETURN(event.before, s.ParseRow(*old_row, where, values, arena));
        ++old_row;
      } else {
        event.before = values;
      }
    }
    ++i;
  }
  return Ok();
}

}  // namespace floe::cdc::mysql
