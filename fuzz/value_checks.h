#pragma once
// Checks shared by the fuzz targets that decode rows: an accepted value must
// fit its Iceberg type (the kind of Value the type maps to, within the type's
// range, nested values likewise). A failed check traps, so libFuzzer reports
// the input.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checks.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::fuzz {

/// Traps unless `v` (or null) fits `type`. With `check_required`, a null in
/// a required struct field, list element or map value traps too.
inline void CheckValue(const types::Type& type, const types::Value& v, bool check_required) {
  using types::TypeId;
  if (v.is_null()) return;
  Check(v.kind == types::KindOf(type.id()));
  switch (type.id()) {
    case TypeId::kTime:
      Check(v.i64 >= 0 && v.i64 < 86400LL * 1000000);
      break;
    case TypeId::kDecimal: {
      unsigned __int128 limit = 1;
      for (int k = 0; k < type.precision(); ++k) limit *= 10;
      unsigned __int128 magnitude = v.decimal < 0 ? -static_cast<unsigned __int128>(v.decimal)
                                                  : static_cast<unsigned __int128>(v.decimal);
      Check(magnitude < limit);
      break;
    }
    case TypeId::kUuid:
      Check(v.size == 16);
      break;
    case TypeId::kFixed:
      Check(v.size == static_cast<uint32_t>(type.length()));
      break;
    case TypeId::kStruct:
      Check(v.size == type.fields().size());
      for (size_t i = 0; i < v.size; ++i) {
        const auto& f = type.fields()[i];
        if (check_required && f.required) Check(!v.children[i].is_null());
        CheckValue(*f.type, v.children[i], check_required);
      }
      break;
    case TypeId::kList:
      for (size_t i = 0; i < v.size; ++i) {
        if (check_required && type.element().required) Check(!v.children[i].is_null());
        CheckValue(*type.element().type, v.children[i], check_required);
      }
      break;
    case TypeId::kMap:
      Check(v.size % 2 == 0);
      for (size_t i = 0; i < v.size; i += 2) {
        Check(!v.children[i].is_null());
        if (check_required && type.value().required) Check(!v.children[i + 1].is_null());
        CheckValue(*type.key().type, v.children[i], check_required);
        CheckValue(*type.value().type, v.children[i + 1], check_required);
      }
      break;
    default:
      break;  // the kind is all the other types ask of a value
  }
}

/// Traps unless `row` has one value per field of `schema`, each fitting its
/// field's type (CheckValue of the row as a struct of the schema's fields:
/// with `check_required`, a null in a required field traps too).
inline void CheckRow(const types::Schema& schema, types::Row row, bool check_required) {
  Check(row.size() == schema.fields().size());
  CheckValue(*schema.as_struct(), types::Value::Struct(row.data(), row.size()), check_required);
}

/// Fields 1 to 14, one of every primitive Iceberg type: "id" (required
/// long, the key), then b, i, f, d, dec (decimal(9,2)), day, t, ts, tz, s,
/// u, fx (fixed(4)) and bin, optional.
inline std::vector<types::NestedField> EveryPrimitiveField() {
  using types::Type;
  return {
      {1, "id", true, Type::Long(), ""},       {2, "b", false, Type::Boolean(), ""},
      {3, "i", false, Type::Int(), ""},        {4, "f", false, Type::Float(), ""},
      {5, "d", false, Type::Double(), ""},     {6, "dec", false, *Type::Decimal(9, 2), ""},
      {7, "day", false, Type::Date(), ""},     {8, "t", false, Type::Time(), ""},
      {9, "ts", false, Type::Timestamp(), ""}, {10, "tz", false, Type::TimestampTz(), ""},
      {11, "s", false, Type::String(), ""},    {12, "u", false, Type::Uuid(), ""},
      {13, "fx", false, *Type::Fixed(4), ""},  {14, "bin", false, Type::Binary(), ""},
  };
}

}  // namespace floe::fuzz
