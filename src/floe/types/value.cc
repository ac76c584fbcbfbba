#include "floe/types/value.h"

#include <cmath>

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

}  // namespace floe::types
