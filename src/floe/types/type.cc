#include "floe/types/type.h"

#include <charconv>

#include <fmt/format.h>

namespace floe::types {
namespace {

TypePtr MakePrimitive(TypeId id) { return std::make_shared<const Type>(id); }

std::string_view PrimitiveName(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kString:
      return "string";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kBinary:
      return "binary";
    default:
      return "";
  }
}

bool ParseIntIn(std::string_view s, int* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

// Primitive singletons: immutable, shared by every schema.
#define FLOE_PRIMITIVE_(Name, Id)                      \
  TypePtr Type::Name() {                               \
    static const TypePtr instance = MakePrimitive(Id); \
    return instance;                                   \
  }
FLOE_PRIMITIVE_(Boolean, TypeId::kBoolean)
FLOE_PRIMITIVE_(Int, TypeId::kInt)
FLOE_PRIMITIVE_(Long, TypeId::kLong)
FLOE_PRIMITIVE_(Float, TypeId::kFloat)
FLOE_PRIMITIVE_(Double, TypeId::kDouble)
FLOE_PRIMITIVE_(Date, TypeId::kDate)
FLOE_PRIMITIVE_(Time, TypeId::kTime)
FLOE_PRIMITIVE_(Timestamp, TypeId::kTimestamp)
FLOE_PRIMITIVE_(TimestampTz, TypeId::kTimestampTz)
FLOE_PRIMITIVE_(String, TypeId::kString)
FLOE_PRIMITIVE_(Uuid, TypeId::kUuid)
FLOE_PRIMITIVE_(Binary, TypeId::kBinary)
#undef FLOE_PRIMITIVE_

Result<TypePtr> Type::Decimal(int precision, int scale) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    return InvalidArgument(
        "invalid decimal({}, {}): need 1 <= precision <= 38 and 0 <= scale <= "
        "precision",
        precision, scale);
  }
  auto t = std::make_shared<Type>(TypeId::kDecimal);
  t->precision_ = precision;
  t->scale_ = scale;
  return t;
}

Result<TypePtr> Type::Fixed(int length) {
  if (length < 1) return InvalidArgument("invalid fixed[{}]: length must be at least 1", length);
  auto t = std::make_shared<Type>(TypeId::kFixed);
  t->length_ = length;
  return t;
}

TypePtr Type::Struct(std::vector<NestedField> fields) {
  auto t = std::make_shared<Type>(TypeId::kStruct);
  t->fields_ = std::move(fields);
  return t;
}

TypePtr Type::List(int32_t element_id, bool element_required, TypePtr element) {
  auto t = std::make_shared<Type>(TypeId::kList);
  t->fields_.push_back(
      NestedField{element_id, "element", element_required, std::move(element), {}});
  return t;
}

TypePtr Type::Map(int32_t key_id, TypePtr key, int32_t value_id, bool value_required,
                  TypePtr value) {
  auto t = std::make_shared<Type>(TypeId::kMap);
  t->fields_.push_back(NestedField{key_id, "key", true, std::move(key), {}});
  t->fields_.push_back(NestedField{value_id, "value", value_required, std::move(value), {}});
  return t;
}

Result<TypePtr> Type::ParsePrimitive(std::string_view name) {
  static const std::pair<std::string_view, TypePtr (*)()> kSimple[] = {
      {"boolean", &Type::Boolean},     {"int", &Type::Int},
      {"integer", &Type::Int},         {"long", &Type::Long},
      {"float", &Type::Float},         {"double", &Type::Double},
      {"date", &Type::Date},           {"time", &Type::Time},
      {"timestamp", &Type::Timestamp}, {"timestamptz", &Type::TimestampTz},
      {"string", &Type::String},       {"uuid", &Type::Uuid},
      {"binary", &Type::Binary},
  };
  for (auto [n, make] : kSimple) {
    if (name == n) return make();
  }
  if (name.starts_with("decimal(") && name.ends_with(")")) {
    std::string_view inner = name.substr(8, name.size() - 9);
    size_t comma = inner.find(',');
    int p = 0, s = 0;
    if (comma != std::string_view::npos && ParseIntIn(inner.substr(0, comma), &p) &&
        ParseIntIn(inner.substr(comma + 1), &s)) {
      return Decimal(p, s);
    }
  }
  if (name.starts_with("fixed[") && name.ends_with("]")) {
    int length = 0;
    if (ParseIntIn(name.substr(6, name.size() - 7), &length)) return Fixed(length);
  }
  return InvalidArgument("unknown type '{}'", name);
}

std::string Type::ToString() const {
  switch (id_) {
    case TypeId::kDecimal:
      return fmt::format("decimal({}, {})", precision_, scale_);
    case TypeId::kFixed:
      return fmt::format("fixed[{}]", length_);
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        const auto& f = fields_[i];
        if (i > 0) out += ", ";
        out += fmt::format("{}: {}: {} {}", f.id, f.name, f.required ? "required" : "optional",
                           f.type->ToString());
      }
      return out + ">";
    }
    case TypeId::kList:
      return fmt::format("list<{}>", element().type->ToString());
    case TypeId::kMap:
      return fmt::format("map<{}, {}>", key().type->ToString(), value().type->ToString());
    default:
      return std::string(PrimitiveName(id_));
  }
}

bool Type::Equals(const Type& other) const {
  if (id_ != other.id_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      length_ != other.length_ || fields_.size() != other.fields_.size()) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    const auto& a = fields_[i];
    const auto& b = other.fields_[i];
    if (a.id != b.id || a.name != b.name || a.required != b.required || !a.type->Equals(*b.type)) {
      return false;
    }
  }
  return true;
}

}  // namespace floe::types
