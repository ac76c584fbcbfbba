#include "floe/cdc/mysql/type_mapping.h"

#include <unordered_set>
#include <utility>

namespace floe::cdc::mysql {

Result<types::TypePtr> IcebergTypeOf(const ColumnDef& column) {
  using types::Type;
  switch (column.type) {
    case MysqlType::kTinyInt:
    case MysqlType::kSmallInt:
    case MysqlType::kMediumInt:
    case MysqlType::kBool:
    case MysqlType::kYear:
      return Type::Int();
    case MysqlType::kInt:
      return column.is_unsigned ? Type::Long() : Type::Int();
    case MysqlType::kBigInt:
      if (column.is_unsigned) return Type::Decimal(20, 0);
      return Type::Long();
    case MysqlType::kDecimal: {
      int p = column.precision.value_or(10);
      int s = column.scale.value_or(0);
      if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > kMaxDecimalScale || s > p) {
        return InvalidArgument("column {}: DECIMAL({},{}) is outside MySQL's and MariaDB's range",
                               column.name, p, s);
      }
      if (p <= 38) return Type::Decimal(p, s);
      return Type::String();
    }
    case MysqlType::kFloat:
      return Type::Float();
    case MysqlType::kDouble:
      return Type::Double();
    case MysqlType::kBit:
      return column.length.value_or(1) == 1 ? Type::Boolean() : Type::Binary();
    case MysqlType::kDate:
      return Type::Date();
    case MysqlType::kDateTime:
      return Type::Timestamp();
    case MysqlType::kTimestamp:
      return Type::TimestampTz();
    case MysqlType::kTime:
      return Type::Long();
    case MysqlType::kChar:
    case MysqlType::kVarChar:
    case MysqlType::kTinyText:
    case MysqlType::kText:
    case MysqlType::kMediumText:
    case MysqlType::kLongText:
    case MysqlType::kEnum:
    case MysqlType::kSet:
    case MysqlType::kJson:
    case MysqlType::kUuid:
    case MysqlType::kInet4:
    case MysqlType::kInet6:
      return Type::String();
    case MysqlType::kBinary:
    case MysqlType::kVarBinary:
    case MysqlType::kTinyBlob:
    case MysqlType::kBlob:
    case MysqlType::kMediumBlob:
    case MysqlType::kLongBlob:
    case MysqlType::kGeometry:
    case MysqlType::kPoint:
    case MysqlType::kLineString:
    case MysqlType::kPolygon:
    case MysqlType::kMultiPoint:
    case MysqlType::kMultiLineString:
    case MysqlType::kMultiPolygon:
    case MysqlType::kGeometryCollection:
    case MysqlType::kVector:
      return Type::Binary();
  }
  return InvalidArgument("column {}: unknown MySQL type {}", column.name,
                         static_cast<int>(column.type));
}

Result<types::Schema> IcebergSchemaOf(const TableSchema& table, int32_t schema_id) {
  std::vector<types::NestedField> fields;
  fields.reserve(table.columns.size());
  std::unordered_set<int32_t> seen;
  for (const auto& column : table.columns) {
    if (column.field_id <= 0) {
      return InvalidArgument("{}.{}: column has no Iceberg field id", table.QualifiedName(),
                             column.name);
    }
    if (!seen.insert(column.field_id).second) {
      return InvalidArgument("{}.{}: field id {} is used twice", table.QualifiedName(), column.name,
                             column.field_id);
    }
    auto type = IcebergTypeOf(column);
    if (!type) {
      return std::unexpected(std::move(type).error().WithContext(table.QualifiedName()));
    }
    // Primary-key columns are NOT NULL in MySQL; Iceberg identifier fields
    // must be required, so a key column is required whatever the DDL said.
    bool required = !column.nullable || table.IsPrimaryKeyColumn(column.name);
    fields.push_back(types::NestedField{column.field_id, column.name, required, std::move(*type),
                                        column.comment});
  }
  std::vector<int32_t> identifier_ids;
  for (const auto& key : table.primary_key) {
    const ColumnDef* column = table.FindColumn(key);
    if (column == nullptr) {
      return InvalidArgument("{}: primary-key column {} is not a column", table.QualifiedName(),
                             key);
    }
    identifier_ids.push_back(column->field_id);
  }
  return types::Schema(std::move(fields), schema_id, std::move(identifier_ids));
}

}  // namespace floe::cdc::mysql
