#include "floe/cdc/mysql/table_schema.h"

#include <array>
#include <utility>

#include <fmt/format.h>

namespace floe::cdc::mysql {
namespace {

constexpr std::array<std::pair<MysqlType, std::string_view>, 42> kTypeNames = {{
    {MysqlType::kTinyInt, "TINYINT"},
    {MysqlType::kSmallInt, "SMALLINT"},
    {MysqlType::kMediumInt, "MEDIUMINT"},
    {MysqlType::kInt, "INT"},
    {MysqlType::kBigInt, "BIGINT"},
    {MysqlType::kDecimal, "DECIMAL"},
    {MysqlType::kFloat, "FLOAT"},
    {MysqlType::kDouble, "DOUBLE"},
    {MysqlType::kBit, "BIT"},
    {MysqlType::kBool, "BOOL"},
    {MysqlType::kYear, "YEAR"},
    {MysqlType::kDate, "DATE"},
    {MysqlType::kDateTime, "DATETIME"},
    {MysqlType::kTimestamp, "TIMESTAMP"},
    {MysqlType::kTime, "TIME"},
    {MysqlType::kChar, "CHAR"},
    {MysqlType::kVarChar, "VARCHAR"},
    {MysqlType::kTinyText, "TINYTEXT"},
    {MysqlType::kText, "TEXT"},
    {MysqlType::kMediumText, "MEDIUMTEXT"},
    {MysqlType::kLongText, "LONGTEXT"},
    {MysqlType::kBinary, "BINARY"},
    {MysqlType::kVarBinary, "VARBINARY"},
    {MysqlType::kTinyBlob, "TINYBLOB"},
    {MysqlType::kBlob, "BLOB"},
    {MysqlType::kMediumBlob, "MEDIUMBLOB"},
    {MysqlType::kLongBlob, "LONGBLOB"},
    {MysqlType::kEnum, "ENUM"},
    {MysqlType::kSet, "SET"},
    {MysqlType::kJson, "JSON"},
    {MysqlType::kGeometry, "GEOMETRY"},
    {MysqlType::kPoint, "POINT"},
    {MysqlType::kLineString, "LINESTRING"},
    {MysqlType::kPolygon, "POLYGON"},
    {MysqlType::kMultiPoint, "MULTIPOINT"},
    {MysqlType::kMultiLineString, "MULTILINESTRING"},
    {MysqlType::kMultiPolygon, "MULTIPOLYGON"},
    {MysqlType::kGeometryCollection, "GEOMETRYCOLLECTION"},
    {MysqlType::kUuid, "UUID"},
    {MysqlType::kInet4, "INET4"},
    {MysqlType::kInet6, "INET6"},
    {MysqlType::kVector, "VECTOR"},
}};

char LowerChar(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string QuoteSql(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

}  // namespace

std::string_view MysqlTypeName(MysqlType type) {
  for (const auto& [t, name] : kTypeNames) {
    if (t == type) return name;
  }
  return "UNKNOWN";
}

std::optional<MysqlType> MysqlTypeFromName(std::string_view name) {
  for (const auto& [t, n] : kTypeNames) {
    if (NamesEqual(n, name)) return t;
  }
  return std::nullopt;
}

bool IsIntegerType(MysqlType type) {
  return type == MysqlType::kTinyInt || type == MysqlType::kSmallInt ||
         type == MysqlType::kMediumInt || type == MysqlType::kInt || type == MysqlType::kBigInt ||
         type == MysqlType::kBool;
}

bool IsTextType(MysqlType type) {
  return type == MysqlType::kChar || type == MysqlType::kVarChar || type == MysqlType::kTinyText ||
         type == MysqlType::kText || type == MysqlType::kMediumText || type == MysqlType::kLongText;
}

bool IsBinaryType(MysqlType type) {
  return type == MysqlType::kBinary || type == MysqlType::kVarBinary ||
         type == MysqlType::kTinyBlob || type == MysqlType::kBlob ||
         type == MysqlType::kMediumBlob || type == MysqlType::kLongBlob;
}

bool IsSpatialType(MysqlType type) {
  return type >= MysqlType::kGeometry && type <= MysqlType::kGeometryCollection;
}

bool IsTemporalType(MysqlType type) {
  return type == MysqlType::kYear || type == MysqlType::kDate || type == MysqlType::kDateTime ||
         type == MysqlType::kTimestamp || type == MysqlType::kTime;
}

bool NamesEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerChar(a[i]) != LowerChar(b[i])) return false;
  }
  return true;
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = LowerChar(c);
  return out;
}

std::string ColumnDef::TypeString() const {
  std::string out(MysqlTypeName(type));
  if (type == MysqlType::kDecimal && precision) {
    out += fmt::format("({},{})", *precision, scale.value_or(0));
  } else if ((type == MysqlType::kFloat || type == MysqlType::kDouble) && precision) {
    out += fmt::format("({},{})", *precision, scale.value_or(0));
  } else if (type == MysqlType::kEnum || type == MysqlType::kSet) {
    out += '(';
    for (size_t i = 0; i < enum_values.size(); ++i) {
      if (i > 0) out += ',';
      out += QuoteSql(enum_values[i]);
    }
    out += ')';
  } else if ((type == MysqlType::kDateTime || type == MysqlType::kTimestamp ||
              type == MysqlType::kTime) &&
             fsp > 0) {
    out += fmt::format("({})", fsp);
  } else if (length) {
    out += fmt::format("({})", *length);
  }
  if (is_unsigned) out += " UNSIGNED";
  if (zerofill) out += " ZEROFILL";
  if (!charset.empty()) out += " CHARACTER SET " + charset;
  if (!collation.empty()) out += " COLLATE " + collation;
  if (generated_expr) {
    out += " AS (" + *generated_expr + ")";
    out += generated_stored ? " STORED" : " VIRTUAL";
  }
  if (!nullable) out += " NOT NULL";
  if (default_value) {
    out += " DEFAULT ";
    out += default_is_expression || *default_value == "NULL" ? *default_value
                                                             : QuoteSql(*default_value);
  }
  if (on_update) out += " ON UPDATE " + *on_update;
  if (auto_increment) out += " AUTO_INCREMENT";
  if (invisible) out += " INVISIBLE";
  if (!comment.empty()) out += " COMMENT " + QuoteSql(comment);
  return out;
}

bool ColumnDef::SameDefinition(const ColumnDef& other) const {
  ColumnDef a = *this;
  ColumnDef b = other;
  a.name.clear();
  b.name.clear();
  a.field_id = b.field_id = 0;
  return a == b;
}

int TableSchema::FindColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (NamesEqual(columns[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

const ColumnDef* TableSchema::FindColumn(std::string_view name) const {
  int i = FindColumnIndex(name);
  return i < 0 ? nullptr : &columns[static_cast<size_t>(i)];
}

ColumnDef* TableSchema::FindColumn(std::string_view name) {
  int i = FindColumnIndex(name);
  return i < 0 ? nullptr : &columns[static_cast<size_t>(i)];
}

bool TableSchema::IsPrimaryKeyColumn(std::string_view name) const {
  for (const auto& k : primary_key) {
    if (NamesEqual(k, name)) return true;
  }
  return false;
}

std::string_view TableSchema::EffectiveCharset(const ColumnDef& column) const {
  return column.charset.empty() ? std::string_view(charset) : std::string_view(column.charset);
}

std::string TableSchema::QualifiedName() const { return db.empty() ? table : db + "." + table; }

std::string TableSchema::ToString() const {
  std::string out = QualifiedName() + " (";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += columns[i].name + " " + columns[i].TypeString();
  }
  out += ")";
  if (!primary_key.empty()) {
    out += " PRIMARY KEY (";
    for (size_t i = 0; i < primary_key.size(); ++i) {
      if (i > 0) out += ", ";
      out += primary_key[i];
    }
    out += ")";
  }
  return out;
}

int MaxBytesPerChar(std::string_view charset) {
  std::string c = LowerAscii(charset);
  if (c.empty() || c == "utf8mb4" || c == "utf16" || c == "utf16le" || c == "utf32" ||
      c == "gb18030") {
    return 4;
  }
  if (c == "utf8" || c == "utf8mb3" || c == "ujis" || c == "eucjpms") return 3;
  if (c == "ucs2" || c == "big5" || c == "gbk" || c == "sjis" || c == "cp932" || c == "euckr" ||
      c == "gb2312") {
    return 2;
  }
  return 1;
}

void ResolveTextLength(ColumnDef& col, std::string_view table_charset) {
  if ((col.type != MysqlType::kText && col.type != MysqlType::kBlob) || !col.length) return;
  bool text = col.type == MysqlType::kText;
  int64_t bytes = *col.length;
  if (text) bytes *= MaxBytesPerChar(col.charset.empty() ? table_charset : col.charset);
  if (bytes <= 255) {
    col.type = text ? MysqlType::kTinyText : MysqlType::kTinyBlob;
  } else if (bytes <= 65535) {
    col.type = text ? MysqlType::kText : MysqlType::kBlob;
  } else if (bytes <= 16777215) {
    col.type = text ? MysqlType::kMediumText : MysqlType::kMediumBlob;
  } else {
    col.type = text ? MysqlType::kLongText : MysqlType::kLongBlob;
  }
  col.length.reset();
}

void AssignFieldIds(TableSchema& schema) {
  for (auto& column : schema.columns) {
    if (column.field_id > schema.last_field_id) schema.last_field_id = column.field_id;
  }
  for (auto& column : schema.columns) {
    if (column.field_id == 0) column.field_id = ++schema.last_field_id;
  }
}

}  // namespace floe::cdc::mysql
