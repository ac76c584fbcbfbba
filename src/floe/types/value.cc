#include "floe/types/value.h"

#include <cmath>
#include <new>

#include "floe/common/arena.h"
#include "floe/types/type.h"

namespace floe::types {
namespace {

bool SameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

bool SameValue(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.b == b.b;
    case Value::Kind::kInt32:
      return a.i32 == b.i32;
    case Value::Kind::kInt64:
      return a.i64 == b.i64;
    case Value::Kind::kFloat:
      return SameFloat(a.f32, b.f32);
    case Value::Kind::kDouble:
      return SameFloat(a.f64, b.f64);
    case Value::Kind::kDecimal:
      return a.decimal == b.decimal;
    case Value::Kind::kBytes:
      return a.as_bytes() == b.as_bytes();
    case Value::Kind::kStruct:
    case Value::Kind::kList:
    case Value::Kind::kMap:
      if (a.size != b.size) return false;
      for (uint32_t i = 0; i < a.size; ++i) {
        if (!SameValue(a.children[i], b.children[i])) return false;
      }
      return true;
  }
  return false;
}

Value::Kind KindOf(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return Value::Kind::kBool;
    case TypeId::kInt:
    case TypeId::kDate:
      return Value::Kind::kInt32;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Value::Kind::kInt64;
    case TypeId::kFloat:
      return Value::Kind::kFloat;
    case TypeId::kDouble:
      return Value::Kind::kDouble;
    case TypeId::kDecimal:
      return Value::Kind::kDecimal;
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Value::Kind::kBytes;
    case TypeId::kStruct:
      return Value::Kind::kStruct;
    case TypeId::kList:
      return Value::Kind::kList;
    case TypeId::kMap:
      return Value::Kind::kMap;
  }
  return Value::Kind::kNull;
}

Value DeepCopyIndirect(const Value& value, Arena* arena) {
  Value out = value;
  switch (value.kind) {
    case Value::Kind::kBytes:
      if (value.size > 0) out.bytes = arena->Copy(value.as_bytes()).data();
      break;
    case Value::Kind::kStruct:
    case Value::Kind::kList:
    case Value::Kind::kMap: {
      auto* children = arena->AllocateArray<Value>(value.size);
      for (uint32_t i = 0; i < value.size; ++i) {
        new (&children[i]) Value(DeepCopy(value.children[i], arena));
      }
      out.children = children;
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace floe::types
