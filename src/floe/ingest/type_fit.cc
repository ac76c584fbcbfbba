#include "floe/ingest/type_fit.h"

namespace floe::ingest {

using types::Type;
using types::TypeId;

bool SameType(const Type& a, const Type& b) {
  if (a.id() != b.id()) return false;
  switch (a.id()) {
    case TypeId::kDecimal:
      return a.precision() == b.precision() && a.scale() == b.scale();
    case TypeId::kFixed:
      return a.length() == b.length();
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      if (a.fields().size() != b.fields().size()) return false;
      for (size_t i = 0; i < a.fields().size(); ++i) {
        if (a.fields()[i].name != b.fields()[i].name) return false;
        if (!SameType(*a.fields()[i].type, *b.fields()[i].type)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

TypeFit FitOf(const Type& table, const Type& source) {
  if (SameType(table, source)) return TypeFit::kSame;
  TypeId t = table.id();
  TypeId s = source.id();
  if (t == TypeId::kLong && s == TypeId::kInt) return TypeFit::kNarrower;
  if (t == TypeId::kDouble && s == TypeId::kFloat) return TypeFit::kNarrower;
  if (t == TypeId::kInt && s == TypeId::kLong) return TypeFit::kWider;
  if (t == TypeId::kFloat && s == TypeId::kDouble) return TypeFit::kWider;
  if (t == TypeId::kDecimal && s == TypeId::kDecimal && table.scale() == source.scale()) {
    return source.precision() < table.precision() ? TypeFit::kNarrower : TypeFit::kWider;
  }
  return TypeFit::kIncompatible;
}

}  // namespace floe::ingest
