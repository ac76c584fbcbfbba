#include "floe/cdc/mysql/table_schema_json.h"

#include <utility>

namespace floe::cdc::mysql {
namespace {

using nlohmann::json;

nlohmann::json ColumnToJson(const ColumnDef& c) {
  json j = json::object();
  j["name"] = c.name;
  j["type"] = std::string(MysqlTypeName(c.type));
  if (c.is_unsigned) j["unsigned"] = true;
  if (c.zerofill) j["zerofill"] = true;
  if (c.length) j["length"] = *c.length;
  if (c.precision) j["precision"] = *c.precision;
  if (c.scale) j["scale"] = *c.scale;
  if (c.fsp != 0) j["fsp"] = c.fsp;
  if (!c.charset.empty()) j["charset"] = c.charset;
  if (!c.collation.empty()) j["collation"] = c.collation;
  if (!c.enum_values.empty()) j["values"] = c.enum_values;
  j["nullable"] = c.nullable;
  if (c.default_value) j["default"] = *c.default_value;
  if (c.default_is_expression) j["default_is_expression"] = true;
  if (c.on_update) j["on_update"] = *c.on_update;
  if (c.auto_increment) j["auto_increment"] = true;
  if (!c.comment.empty()) j["comment"] = c.comment;
  if (c.generated_expr) j["generated"] = *c.generated_expr;
  if (c.generated_stored) j["stored"] = true;
  if (c.invisible) j["invisible"] = true;
  j["field_id"] = c.field_id;
  return j;
}

template <typename T>
Status Get(const json& j, const char* key, T* out, const std::string& path, bool required) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) return Corruption("{}{}: missing", path, key);
    return Ok();
  }
  try {
    *out = it->template get<T>();
  } catch (const json::exception& e) {
    return Corruption("{}{}: {}", path, key, e.what());
  }
  return Ok();
}

template <typename T>
Status GetOptional(const json& j, const char* key, std::optional<T>* out, const std::string& path) {
  if (!j.contains(key)) return Ok();
  T v{};
  FLOE_RETURN_IF_ERROR(Get(j, key, &v, path, true));
  *out = std::move(v);
  return Ok();
}

Result<ColumnDef> ColumnFromJson(const json& j, const std::string& path) {
  if (!j.is_object()) return Corruption("{}: not an object", path);
  ColumnDef c;
  std::string p = path + ".";
  FLOE_RETURN_IF_ERROR(Get(j, "name", &c.name, p, true));
  std::string type;
  FLOE_RETURN_IF_ERROR(Get(j, "type", &type, p, true));
  auto t = MysqlTypeFromName(type);
  if (!t) return Corruption("{}type: unknown type '{}'", p, type);
  c.type = *t;
  FLOE_RETURN_IF_ERROR(Get(j, "unsigned", &c.is_unsigned, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "zerofill", &c.zerofill, p, false));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "length", &c.length, p));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "precision", &c.precision, p));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "scale", &c.scale, p));
  FLOE_RETURN_IF_ERROR(Get(j, "fsp", &c.fsp, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "charset", &c.charset, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "collation", &c.collation, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "values", &c.enum_values, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "nullable", &c.nullable, p, false));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "default", &c.default_value, p));
  FLOE_RETURN_IF_ERROR(Get(j, "default_is_expression", &c.default_is_expression, p, false));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "on_update", &c.on_update, p));
  FLOE_RETURN_IF_ERROR(Get(j, "auto_increment", &c.auto_increment, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "comment", &c.comment, p, false));
  FLOE_RETURN_IF_ERROR(GetOptional(j, "generated", &c.generated_expr, p));
  FLOE_RETURN_IF_ERROR(Get(j, "stored", &c.generated_stored, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "invisible", &c.invisible, p, false));
  FLOE_RETURN_IF_ERROR(Get(j, "field_id", &c.field_id, p, true));
  return c;
}

}  // namespace

nlohmann::json TableSchemaToJson(const TableSchema& s) {
  json j = json::object();
  j["db"] = s.db;
  j["table"] = s.table;
  if (!s.charset.empty()) j["charset"] = s.charset;
  if (!s.collation.empty()) j["collation"] = s.collation;
  if (!s.comment.empty()) j["comment"] = s.comment;
  if (!s.engine.empty()) j["engine"] = s.engine;
  j["last_field_id"] = s.last_field_id;
  j["primary_key"] = s.primary_key;
  json columns = json::array();
  for (const auto& c : s.columns) columns.push_back(ColumnToJson(c));
  j["columns"] = std::move(columns);
  return j;
}

Result<TableSchema> TableSchemaFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Corruption("table schema: not an object");
  TableSchema s;
  FLOE_RETURN_IF_ERROR(Get(j, "db", &s.db, "", true));
  FLOE_RETURN_IF_ERROR(Get(j, "table", &s.table, "", true));
  FLOE_RETURN_IF_ERROR(Get(j, "charset", &s.charset, "", false));
  FLOE_RETURN_IF_ERROR(Get(j, "collation", &s.collation, "", false));
  FLOE_RETURN_IF_ERROR(Get(j, "comment", &s.comment, "", false));
  FLOE_RETURN_IF_ERROR(Get(j, "engine", &s.engine, "", false));
  FLOE_RETURN_IF_ERROR(Get(j, "last_field_id", &s.last_field_id, "", true));
  FLOE_RETURN_IF_ERROR(Get(j, "primary_key", &s.primary_key, "", false));
  auto it = j.find("columns");
  if (it == j.end() || !it->is_array()) return Corruption("columns: missing or not an array");
  for (size_t i = 0; i < it->size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(ColumnDef c, ColumnFromJson((*it)[i], fmt::format("columns[{}]", i)));
    if (c.field_id <= 0 || c.field_id > s.last_field_id) {
      return Corruption("columns[{}].field_id: {} is not in 1..last_field_id {}", i, c.field_id,
                        s.last_field_id);
    }
    s.columns.push_back(std::move(c));
  }
  return s;
}

}  // namespace floe::cdc::mysql
