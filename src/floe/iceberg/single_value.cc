#include "floe/iceberg/single_value.h"

#include <cstring>

#include "floe/common/bytes.h"
#include "floe/iceberg/murmur3.h"

namespace floe::iceberg {

using types::Type;
using types::TypeId;
using types::Value;

namespace {

template <typename T>
void AppendLE(T v, std::string* out) {
  char buf[sizeof(T)];
  StoreLittleEndian(buf, v);
  out->append(buf, sizeof(T));
}

Status Expect(const Type& type, const Value& v, Value::Kind kind) {
  if (v.kind != kind) {
    return InvalidArgument("cannot serialize a value of kind {} as {}", static_cast<int>(v.kind),
                           type.ToString());
  }
  return Ok();
}

Status ExpectSize(const Type& type, std::string_view bytes, size_t n) {
  if (bytes.size() != n) {
    return Corruption("a serialized {} value has {} bytes, expected {}", type.ToString(),
                      bytes.size(), n);
  }
  return Ok();
}

}  // namespace

Status AppendSingleValue(const Type& type, const Value& value, std::string* out) {
  if (value.is_null()) return InvalidArgument("cannot serialize a null {} value", type.ToString());
  switch (type.id()) {
    case TypeId::kBoolean:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kBool));
      out->push_back(value.b ? '\x01' : '\x00');
      return Ok();
    case TypeId::kInt:
    case TypeId::kDate:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kInt32));
      AppendLE(value.i32, out);
      return Ok();
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kInt64));
      AppendLE(value.i64, out);
      return Ok();
    case TypeId::kFloat:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kFloat));
      AppendLE(value.f32, out);
      return Ok();
    case TypeId::kDouble:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kDouble));
      AppendLE(value.f64, out);
      return Ok();
    case TypeId::kDecimal: {
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kDecimal));
      uint8_t buf[16];
      size_t n = DecimalToMinimalBigEndian(value.decimal, buf);
      out->append(reinterpret_cast<const char*>(buf), n);
      return Ok();
    }
    case TypeId::kUuid:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kBytes));
      if (value.size != 16)
        return InvalidArgument("a uuid value has {} bytes, expected 16", value.size);
      out->append(value.as_bytes());
      return Ok();
    case TypeId::kFixed:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kBytes));
      if (static_cast<int>(value.size) != type.length()) {
        return InvalidArgument("a {} value has {} bytes", type.ToString(), value.size);
      }
      out->append(value.as_bytes());
      return Ok();
    case TypeId::kString:
    case TypeId::kBinary:
      FLOE_RETURN_IF_ERROR(Expect(type, value, Value::Kind::kBytes));
      out->append(value.as_bytes());
      return Ok();
    default:
      break;
  }
  return InvalidArgument("type {} has no single-value serialization", type.ToString());
}

Result<std::string> SerializeSingleValue(const Type& type, const Value& value) {
  std::string out;
  FLOE_RETURN_IF_ERROR(AppendSingleValue(type, value, &out));
  return out;
}

Result<Value> DeserializeSingleValue(const Type& type, std::string_view bytes) {
  switch (type.id()) {
    case TypeId::kBoolean:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 1));
      return Value::Bool(bytes[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 4));
      return Value::Int32(LoadLittleEndian<int32_t>(bytes.data()));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 8));
      return Value::Int64(LoadLittleEndian<int64_t>(bytes.data()));
    case TypeId::kFloat:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 4));
      return Value::Float(LoadLittleEndian<float>(bytes.data()));
    case TypeId::kDouble:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 8));
      return Value::Double(LoadLittleEndian<double>(bytes.data()));
    case TypeId::kDecimal: {
      if (bytes.empty() || bytes.size() > 16) {
        return Corruption("a serialized {} value has {} bytes, expected 1 to 16", type.ToString(),
                          bytes.size());
      }
      // Sign-extend the big-endian two's complement bytes.
      unsigned __int128 u =
          (static_cast<uint8_t>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (char c : bytes) u = (u << 8) | static_cast<uint8_t>(c);
      return Value::Decimal(static_cast<types::int128_t>(u));
    }
    case TypeId::kUuid:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, 16));
      return Value::Bytes(bytes);
    case TypeId::kFixed:
      FLOE_RETURN_IF_ERROR(ExpectSize(type, bytes, static_cast<size_t>(type.length())));
      return Value::Bytes(bytes);
    case TypeId::kString:
    case TypeId::kBinary:
      return Value::Bytes(bytes);
    default:
      break;
  }
  return InvalidArgument("type {} has no single-value serialization", type.ToString());
}

Result<Value> DeserializeBound(const Type& current, std::string_view bytes) {
  if (bytes.size() == 4) {
    switch (current.id()) {
      case TypeId::kLong:
        return Value::Int64(LoadLittleEndian<int32_t>(bytes.data()));
      case TypeId::kDouble:
        return Value::Double(LoadLittleEndian<float>(bytes.data()));
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        return Value::Int64(int64_t{LoadLittleEndian<int32_t>(bytes.data())} * 86'400'000'000LL);
      default:
        break;
    }
  }
  return DeserializeSingleValue(current, bytes);
}

Result<Literal> DeserializeBoundLiteral(const types::TypePtr& current, std::string_view bytes) {
  FLOE_ASSIGN_OR_RETURN(Value v, DeserializeBound(*current, bytes));
  return Literal::FromValue(current, v);
}

}  // namespace floe::iceberg
