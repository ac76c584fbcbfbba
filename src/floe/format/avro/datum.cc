#include "floe/format/avro/datum.h"

#include <cstring>

#include <fmt/format.h>

namespace floe::format::avro {

Datum Datum::Boolean(bool v) { return Datum(Type::kBoolean, Scalar{.b = v}); }
Datum Datum::Int(int32_t v) { return Datum(Type::kInt, Scalar{.i = v}); }
Datum Datum::Long(int64_t v) { return Datum(Type::kLong, Scalar{.l = v}); }
Datum Datum::Float(float v) { return Datum(Type::kFloat, Scalar{.f = v}); }
Datum Datum::Double(double v) { return Datum(Type::kDouble, Scalar{.d = v}); }
Datum Datum::String(std::string v) { return Datum(Type::kString, std::move(v)); }
Datum Datum::Bytes(std::string v) { return Datum(Type::kBytes, std::move(v)); }
Datum Datum::Fixed(std::string v) { return Datum(Type::kFixed, std::move(v)); }
Datum Datum::Enum(int32_t index) { return Datum(Type::kEnum, Scalar{.i = index}); }
Datum Datum::Record(std::vector<Datum> fields) { return Datum(Type::kRecord, std::move(fields)); }
Datum Datum::Array(std::vector<Datum> items) { return Datum(Type::kArray, std::move(items)); }
Datum Datum::Map(std::vector<std::string> keys, std::vector<Datum> values) {
  Datum d(Type::kMap, std::move(values));
  d.keys_ = std::move(keys);
  return d;
}

bool operator==(const Datum& a, const Datum& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::kNull:
      return true;
    case Type::kBoolean:
      return a.scalar_.b == b.scalar_.b;
    case Type::kInt:
    case Type::kEnum:
      return a.scalar_.i == b.scalar_.i;
    case Type::kLong:
      return a.scalar_.l == b.scalar_.l;
    case Type::kFloat:
      return std::memcmp(&a.scalar_.f, &b.scalar_.f, sizeof(float)) == 0;
    case Type::kDouble:
      return std::memcmp(&a.scalar_.d, &b.scalar_.d, sizeof(double)) == 0;
    case Type::kString:
    case Type::kBytes:
    case Type::kFixed:
      return a.bytes_ == b.bytes_;
    case Type::kMap:
      if (a.keys_ != b.keys_) return false;
      [[fallthrough]];
    case Type::kRecord:
    case Type::kArray:
      return a.children_ == b.children_;
    case Type::kUnion:
      return false;
  }
  return false;
}

std::string Datum::DebugString() const {
  switch (type_) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return scalar_.b ? "true" : "false";
    case Type::kInt:
      return fmt::format("{}", scalar_.i);
    case Type::kLong:
      return fmt::format("{}L", scalar_.l);
    case Type::kFloat:
      return fmt::format("{}f", scalar_.f);
    case Type::kDouble:
      return fmt::format("{}d", scalar_.d);
    case Type::kString:
      return fmt::format("\"{}\"", bytes_);
    case Type::kBytes:
      return fmt::format("bytes[{}]", bytes_.size());
    case Type::kFixed:
      return fmt::format("fixed[{}]", bytes_.size());
    case Type::kEnum:
      return fmt::format("enum#{}", scalar_.i);
    case Type::kUnion:
      return "union?";
    case Type::kRecord:
    case Type::kArray:
    case Type::kMap: {
      std::string out = type_ == Type::kRecord ? "{" : type_ == Type::kArray ? "[" : "map{";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) out += ", ";
        if (type_ == Type::kMap) out += keys_[i] + ": ";
        out += children_[i].DebugString();
      }
      out += type_ == Type::kArray ? "]" : "}";
      return out;
    }
  }
  return "?";
}

}  // namespace floe::format::avro
