#include "floe/cdc/mysql/information_schema.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "floe/cdc/mysql/ddl_parser.h"

namespace floe::cdc::mysql {
namespace {

std::string Escape(MYSQL* conn, std::string_view s) {
  std::string out(s.size() * 2 + 1, '\0');
  unsigned long n =
      mysql_real_escape_string(conn, out.data(), s.data(), static_cast<unsigned long>(s.size()));
  out.resize(n);
  return out;
}

bool ContainsCi(std::string_view haystack, std::string_view needle) {
  return LowerAscii(haystack).find(LowerAscii(needle)) != std::string::npos;
}

using Row = std::vector<std::optional<std::string>>;

Result<std::vector<Row>> Query(MYSQL* conn, const std::string& sql) {
  if (mysql_real_query(conn, sql.data(), static_cast<unsigned long>(sql.size())) != 0) {
    return IoError("information_schema query failed: {} ({}): {}", mysql_error(conn),
                   mysql_errno(conn), sql);
  }
  MYSQL_RES* res = mysql_store_result(conn);
  if (res == nullptr) {
    if (mysql_field_count(conn) == 0) return std::vector<Row>{};
    return IoError("information_schema result failed: {}", mysql_error(conn));
  }
  std::vector<Row> rows;
  unsigned int n = mysql_num_fields(res);
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    unsigned long* lengths = mysql_fetch_lengths(res);
    Row r;
    for (unsigned int i = 0; i < n; ++i) {
      if (row[i] == nullptr) {
        r.emplace_back();
      } else {
        r.emplace_back(std::string(row[i], lengths[i]));
      }
    }
    rows.push_back(std::move(r));
  }
  mysql_free_result(res);
  return rows;
}

// current_timestamp(), CURRENT_TIMESTAMP(3), now() -> CURRENT_TIMESTAMP[(n)].
std::optional<std::string> CurrentTimestampText(std::string_view v) {
  std::string l = LowerAscii(v);
  for (std::string_view f : {"current_timestamp", "now", "localtimestamp", "localtime"}) {
    if (l.rfind(f, 0) != 0) continue;
    std::string_view rest = std::string_view(l).substr(f.size());
    if (rest.empty() || rest == "()" || rest == "(0)") return std::string("CURRENT_TIMESTAMP");
    if (rest.size() == 3 && rest[0] == '(' && rest[2] == ')' && rest[1] >= '1' && rest[1] <= '6') {
      return "CURRENT_TIMESTAMP(" + std::string(1, rest[1]) + ")";
    }
  }
  return std::nullopt;
}

}  // namespace

void NormalizeInformationSchemaDefault(const char* column_default, bool mariadb,
                                       std::string_view extra, ColumnDef* column) {
  column->default_value.reset();
  column->default_is_expression = false;
  if (column_default == nullptr) return;
  std::string_view v(column_default);
  if (auto now = CurrentTimestampText(v)) {
    column->default_value = *now;
    column->default_is_expression = true;
    return;
  }
  if (mariadb) {
    if (v == "NULL") return;
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
      std::string out;
      for (size_t i = 1; i + 1 < v.size(); ++i) {
        if (v[i] == '\'' && i + 2 < v.size() && v[i + 1] == '\'') ++i;
        if (v[i] == '\\' && i + 2 < v.size()) {
          ++i;
          char e = v[i];
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? '\0' : e;
          continue;
        }
        out += v[i];
      }
      column->default_value = std::move(out);
      return;
    }
    // Unquoted: a number, or an expression (function call, operator).
    bool number = !v.empty();
    for (char c : v) {
      if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
        number = false;
      }
    }
    column->default_value = std::string(v);
    column->default_is_expression = !number;
    return;
  }
  if (ContainsCi(extra, "DEFAULT_GENERATED")) {
    column->default_value = "(" + std::string(v) + ")";
    column->default_is_expression = true;
    return;
  }
  column->default_value = std::string(v);
}

Result<std::optional<TableSchema>> ReadTableSchema(MYSQL* conn, std::string_view db,
                                                   std::string_view table) {
  const bool mariadb = ContainsCi(mysql_get_server_info(conn), "mariadb");
  const std::string where =
      "TABLE_SCHEMA = '" + Escape(conn, db) + "' AND TABLE_NAME = '" + Escape(conn, table) + "'";
  FLOE_ASSIGN_OR_RETURN(
      auto tables,
      Query(conn,
            "SELECT ENGINE, TABLE_COLLATION, TABLE_COMMENT FROM information_schema.TABLES "
            "WHERE " +
                where));
  if (tables.empty()) return std::optional<TableSchema>();
  TableSchema schema;
  schema.db = std::string(db);
  schema.table = std::string(table);
  const Row& t = tables[0];
  if (t[0]) schema.engine = LowerAscii(*t[0]);
  if (t[1]) {
    schema.collation = LowerAscii(*t[1]);
    schema.charset = schema.collation.substr(0, schema.collation.find('_'));
  }
  if (t[2]) schema.comment = *t[2];

  FLOE_ASSIGN_OR_RETURN(
      auto columns,
      Query(conn,
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, "
            "CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_COMMENT, GENERATION_EXPRESSION "
            "FROM information_schema.COLUMNS WHERE " +
                where + " ORDER BY ORDINAL_POSITION"));
  for (const Row& r : columns) {
    std::string name = r[0].value_or("");
    std::string type = r[1].value_or("");
    auto parsed = ParseColumnDefinition(name, type);
    if (!parsed) {
      return NotSupported("{}.{}.{}: cannot read COLUMN_TYPE '{}': {}", db, table, name, type,
                          parsed.error().message());
    }
    ColumnDef c = std::move(*parsed);
    c.nullable = r[2].value_or("YES") == "YES";
    std::string extra = r[4].value_or("");
    NormalizeInformationSchemaDefault(r[3] ? r[3]->c_str() : nullptr, mariadb, extra, &c);
    c.auto_increment = ContainsCi(extra, "auto_increment");
    c.invisible = ContainsCi(extra, "INVISIBLE");
    std::string lextra = LowerAscii(extra);
    if (size_t on = lextra.find("on update "); on != std::string::npos) {
      std::string rest = lextra.substr(on + 10);
      rest = rest.substr(0, rest.find(' '));
      if (auto now = CurrentTimestampText(rest)) c.on_update = *now;
    }
    if (r[8] && !r[8]->empty() &&
        (ContainsCi(extra, "GENERATED") || ContainsCi(extra, "VIRTUAL") ||
         ContainsCi(extra, "PERSISTENT") || ContainsCi(extra, "STORED"))) {
      c.generated_expr = *r[8];
      c.generated_stored = ContainsCi(extra, "STORED") || ContainsCi(extra, "PERSISTENT");
      if (c.default_value) c.default_value.reset();
    }
    if (r[5]) c.charset = LowerAscii(*r[5]);
    if (r[6]) c.collation = LowerAscii(*r[6]);
    if (r[7]) c.comment = *r[7];
    schema.columns.push_back(std::move(c));
  }

  FLOE_ASSIGN_OR_RETURN(
      auto keys, Query(conn, "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE " +
                                 where + " AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX"));
  for (const Row& r : keys) {
    if (r[0]) schema.primary_key.push_back(*r[0]);
  }
  return std::optional<TableSchema>(std::move(schema));
}

}  // namespace floe::cdc::mysql
