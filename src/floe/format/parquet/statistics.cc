#include "floe/format/parquet/statistics.h"

#include <cstring>

namespace floe::format::parquet {

ColumnStatistics::ColumnStatistics(Type physical, const types::Type* type, int32_t type_length)
    : physical_(physical), type_(type), type_length_(type_length) {}

void ColumnStatistics::Reset() {
  has_min_max_ = false;
  null_count_ = 0;
  nan_count_ = 0;
  min_bytes_.clear();
  max_bytes_.clear();
}

void ColumnStatistics::Merge(const ColumnStatistics& other) {
  null_count_ += other.null_count_;
  nan_count_ += other.nan_count_;
  if (!other.has_min_max_) return;
  switch (physical_) {
    case Type::kBoolean:
    case Type::kInt32:
    case Type::kInt64:
      UpdateInt(other.min_int_);
      UpdateInt(other.max_int_);
      break;
    case Type::kFloat:
    case Type::kDouble:
      UpdateFloating(other.min_double_);
      UpdateFloating(other.max_double_);
      break;
    default:
      if (type_->id() == types::TypeId::kDecimal) {
        UpdateDecimal(other.min_decimal_);
        UpdateDecimal(other.max_decimal_);
      } else {
        UpdateBytes(other.min_bytes_);
        UpdateBytes(other.max_bytes_);
      }
  }
}

void StoreDecimalBigEndian(types::int128_t v, int length, uint8_t* out) {
  auto u = static_cast<unsigned __int128>(v);
  for (int i = length - 1; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(u);
    u >>= 8;
  }
}

void AppendDecimalBigEndian(types::int128_t v, int length, std::string* out) {
  size_t at = out->size();
  out->resize(at + static_cast<size_t>(length));
  StoreDecimalBigEndian(v, length, reinterpret_cast<uint8_t*>(out->data() + at));
}

std::string MinimalDecimalBytes(types::int128_t v) {
  int length = 1;
  // Grow until the value fits in `length` bytes of two's complement.
  while (length < 16) {
    types::int128_t lo = -(static_cast<types::int128_t>(1) << (8 * length - 1));
    types::int128_t hi = (static_cast<types::int128_t>(1) << (8 * length - 1)) - 1;
    if (v >= lo && v <= hi) break;
    ++length;
  }
  std::string out;
  AppendDecimalBigEndian(v, length, &out);
  return out;
}

std::string ColumnStatistics::Encode(bool min) const {
  std::string out;
  switch (physical_) {
    case Type::kBoolean:
      out.push_back(static_cast<char>(min ? min_int_ : max_int_));
      return out;
    case Type::kInt32: {
      int32_t v = static_cast<int32_t>(min ? min_int_ : max_int_);
      out.assign(reinterpret_cast<const char*>(&v), 4);
      return out;
    }
    case Type::kInt64: {
      int64_t v = min ? min_int_ : max_int_;
      out.assign(reinterpret_cast<const char*>(&v), 8);
      return out;
    }
    case Type::kFloat:
    case Type::kDouble: {
      double v = min ? min_double_ : max_double_;
      if (v == 0) v = min ? -0.0 : 0.0;
      if (physical_ == Type::kFloat) {
        float f = static_cast<float>(v);
        out.assign(reinterpret_cast<const char*>(&f), 4);
      } else {
        out.assign(reinterpret_cast<const char*>(&v), 8);
      }
      return out;
    }
    default:
      if (type_->id() == types::TypeId::kDecimal) {
        AppendDecimalBigEndian(min ? min_decimal_ : max_decimal_, type_length_, &out);
        return out;
      }
      return min ? min_bytes_ : max_bytes_;
  }
}

Statistics ColumnStatistics::ToThrift() const {
  Statistics stats;
  stats.null_count = null_count_;
  if (!has_min_max_) return stats;
  // uuid min/max are left out: Iceberg Java orders uuids as signed longs when
  // it filters row groups by these, and would skip groups that match.
  if (type_->id() == types::TypeId::kUuid) return stats;
  std::string lo = EncodeMin();
  std::string hi = EncodeMax();
  if (lo.size() > kMaxStatisticsSize || hi.size() > kMaxStatisticsSize) return stats;
  bool legacy_ok = physical_ == Type::kBoolean || physical_ == Type::kInt32 ||
                   physical_ == Type::kInt64 || physical_ == Type::kFloat ||
                   physical_ == Type::kDouble;
  if (legacy_ok) {
    stats.min = lo;
    stats.max = hi;
  }
  stats.min_value = std::move(lo);
  stats.max_value = std::move(hi);
  return stats;
}

}  // namespace floe::format::parquet
