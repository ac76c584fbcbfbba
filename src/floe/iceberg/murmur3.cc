#include "floe/iceberg/murmur3.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace floe::iceberg {

using types::TypeId;
using types::Value;

namespace {

constexpr uint32_t kC1 = 0xcc9e2d51u;
constexpr uint32_t kC2 = 0x1b873593u;

inline uint32_t MixK(uint32_t k) {
  k *= kC1;
  k = std::rotl(k, 15);
  k *= kC2;
  return k;
}

inline uint32_t MixH(uint32_t h, uint32_t k) {
  h ^= MixK(k);
  h = std::rotl(h, 13);
  return h * 5 + 0xe6546b64u;
}

inline uint32_t Finalize(uint32_t h, size_t length) {
  h ^= static_cast<uint32_t>(length);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

Status CheckKind(const types::Type& type, const Value& value, Value::Kind want) {
  if (value.kind != want) {
    return InvalidArgument("cannot hash a value of kind {} as type {}",
                           static_cast<int>(value.kind), type.ToString());
  }
  return Ok();
}

}  // namespace

int32_t Murmur3Hash32(const void* data, size_t size, uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t h = seed;
  const size_t blocks = size / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, p + 4 * i, 4);  // little-endian hosts only (see common/bytes.h)
    h = MixH(h, k);
  }
  const uint8_t* tail = p + 4 * blocks;
  uint32_t k = 0;
  switch (size & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      h ^= MixK(k);
  }
  return static_cast<int32_t>(Finalize(h, size));
}

int32_t HashLong(int64_t v) {
  uint8_t bytes[8];
  std::memcpy(bytes, &v, 8);  // little-endian host
  return Murmur3Hash32(bytes, 8);
}

size_t DecimalToMinimalBigEndian(types::int128_t unscaled, uint8_t out[16]) {
  // Full 16 big-endian bytes, then drop leading bytes that only repeat the sign.
  uint8_t full[16];
  auto u = static_cast<unsigned __int128>(unscaled);
  for (int i = 15; i >= 0; --i) {
    full[i] = static_cast<uint8_t>(u & 0xff);
    u >>= 8;
  }
  size_t start = 0;
  while (start < 15) {
    bool redundant = (full[start] == 0x00 && (full[start + 1] & 0x80) == 0) ||
                     (full[start] == 0xff && (full[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  size_t n = 16 - start;
  std::memcpy(out, full + start, n);
  return n;
}

Result<int32_t> HashValue(const types::Type& type, const Value& value) {
  if (value.is_null()) return InvalidArgument("cannot hash a null {} value", type.ToString());
  switch (type.id()) {
    case TypeId::kBoolean:
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kBool));
      return HashLong(value.b ? 1 : 0);
    case TypeId::kInt:
    case TypeId::kDate:
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kInt32));
      return HashLong(value.i32);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kInt64));
      return HashLong(value.i64);
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d;
      if (type.id() == TypeId::kFloat) {
        FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kFloat));
        d = static_cast<double>(value.f32);
      } else {
        FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kDouble));
        d = value.f64;
      }
      int64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000LL;  // canonical NaN
      } else {
        if (d == 0.0) d = 0.0;  // -0.0 hashes as 0.0
        std::memcpy(&bits, &d, 8);
      }
      return HashLong(bits);
    }
    case TypeId::kDecimal: {
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kDecimal));
      uint8_t bytes[16];
      size_t n = DecimalToMinimalBigEndian(value.decimal, bytes);
      return Murmur3Hash32(bytes, n);
    }
    case TypeId::kUuid:
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kBytes));
      if (value.size != 16) {
        return InvalidArgument("a uuid value must be 16 bytes, got {}", value.size);
      }
      return Murmur3Hash32(value.as_bytes());
    case TypeId::kString:
    case TypeId::kFixed:
    case TypeId::kBinary:
      FLOE_RETURN_IF_ERROR(CheckKind(type, value, Value::Kind::kBytes));
      return Murmur3Hash32(value.as_bytes());
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      break;
  }
  return InvalidArgument("type {} has no 32-bit hash", type.ToString());
}

Result<int32_t> BucketHash(const types::Type& type, const Value& value) {
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kFloat:
    case TypeId::kDouble:
      return NotSupported("the spec does not allow bucketing values of type {}", type.ToString());
    default:
      return HashValue(type, value);
  }
}

}  // namespace floe::iceberg
