// Row images of WRITE/UPDATE/DELETE_ROWS events: one value decoder per MySQL
// column-type family, and DECIMAL's binary form.
#include <fmt/format.h>

#include <cstring>
#include <iterator>

#include "floe/cdc/mysql/binlog_internal.h"
#include "floe/cdc/mysql/binlog_row_image.h"
#include "floe/common/bytes.h"
#include "floe/types/temporal.h"

namespace floe::cdc::mysql {

using binlog_internal::BigEndian;
using binlog_internal::IsEnumOrSet;
using types::Value;

std::unexpected<Error> RowImageDecoder::Corrupt(std::string_view what) const {
  return Corruption("binlog {}: rows event for {}.{}, row {}: {}", where_, table_->db,
                    table_->table, row_index_, what);
}

Status RowImageDecoder::Reset(const TableMapEvent& table, const RowsEvent& rows,
                              std::string_view where) {
  table_ = &table;
  rows_ = rows;
  where_.assign(where);
  offset_ = 0;
  row_index_ = 0;
  if (rows.column_count != table.columns.size()) {
    return Corrupt(
        fmt::format("{} columns, the table map has {}", rows.column_count, table.columns.size()));
  }
  auto full = [&](std::span<const uint8_t> bits) {
    for (uint32_t i = 0; i < rows.column_count; ++i) {
      if (!((bits[i / 8] >> (i % 8)) & 1)) return false;
    }
    return true;
  };
  if (!full(rows.columns_before) || !full(rows.columns_after)) {
    return NotSupported(
        "binlog {}: rows event for {}.{} has a partial row image; floe needs full row images: "
        "SET GLOBAL binlog_row_image = 'FULL' (and in the server configuration)",
        where_, table.db, table.table);
  }
  return Ok();
}

Result<bool> RowImageDecoder::Next(Arena* arena, types::Row* before, types::Row* after) {
  if (offset_ >= rows_.rows.size()) return false;
  *before = {};
  *after = {};
  switch (rows_.kind) {
    case RowsKind::kWrite:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_after, arena, after));
      break;
    case RowsKind::kDelete:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_before, arena, before));
      break;
    case RowsKind::kUpdate:
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_before, arena, before));
      FLOE_RETURN_IF_ERROR(DecodeImage(rows_.columns_after, arena, after));
      break;
  }
  ++row_index_;
  return true;
}

Status RowImageDecoder::DecodeImage(std::span<const uint8_t> present, Arena* arena,
                                    types::Row* out) {
  const size_t n = table_->columns.size();
  const size_t null_bytes = (n + 7) / 8;  // full images: every column is present
  if (rows_.rows.size() - offset_ < null_bytes) return Corrupt("truncated NULL bitmap");
  const uint8_t* nulls = rows_.rows.data() + offset_;
  offset_ += null_bytes;
  auto* values = arena->AllocateArray<Value>(n);
  for (size_t i = 0; i < n; ++i) {
    new (&values[i]) Value();
    if ((nulls[i / 8] >> (i % 8)) & 1) continue;
    FLOE_RETURN_IF_ERROR(DecodeValue(table_->columns[i], arena, &values[i]));
  }
  *out = {values, n};
  return Ok();
}

namespace {

constexpr int kDigitsToBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

// Bytes of the fractional seconds of TIME2/DATETIME2/TIMESTAMP2 for an fsp.
size_t FracBytes(uint32_t fsp) { return (fsp + 1) / 2; }

// Those fractional seconds in microseconds.
int64_t FracMicros(uint64_t frac, size_t frac_bytes) {
  return frac_bytes == 1   ? static_cast<int64_t>(frac) * 10000
         : frac_bytes == 2 ? static_cast<int64_t>(frac) * 100
                           : static_cast<int64_t>(frac);
}

// TIME2's signed packed value (hours/minutes/seconds << 24 | microseconds),
// from its 3 integer bytes and `frac_bytes` fraction bytes.
int64_t Time2Packed(const uint8_t* p, size_t frac_bytes) {
  if (frac_bytes == 0) {
    return (static_cast<int64_t>(BigEndian(p, 3)) - 0x800000) * (int64_t{1} << 24);
  }
  if (frac_bytes == 1) {
    int64_t intpart = static_cast<int64_t>(BigEndian(p, 3)) - 0x800000;
    int64_t frac = p[3];
    if (intpart < 0 && frac) {
      intpart++;
      frac -= 0x100;
    }
    return intpart * (int64_t{1} << 24) + frac * 10000;
  }
  if (frac_bytes == 2) {
    int64_t intpart = static_cast<int64_t>(BigEndian(p, 3)) - 0x800000;
    int64_t frac = static_cast<int64_t>(BigEndian(p + 3, 2));
    if (intpart < 0 && frac) {
      intpart++;
      frac -= 0x10000;
    }
    return intpart * (int64_t{1} << 24) + frac * 100;
  }
  return static_cast<int64_t>(BigEndian(p, 6)) - 0x800000000000LL;
}

std::string_view CopyToArena(Arena* arena, std::string_view bytes) { return arena->Copy(bytes); }

std::string_view CopyToArena(Arena* arena, const uint8_t* p, size_t n) {
  return arena->Copy({reinterpret_cast<const char*>(p), n});
}

}  // namespace

Result<size_t> DecodeBinaryDecimal(std::span<const uint8_t> bytes, int precision, int scale,
                                   types::int128_t* unscaled, std::string* text) {
  if (precision < 1 || precision > 65 || scale < 0 || scale > precision) {
    return Corruption("DECIMAL({},{}) is out of range", precision, scale);
  }
  const int intg = precision - scale;
  const int intg0 = intg / 9, intg0x = intg % 9;
  const int frac0 = scale / 9, frac0x = scale % 9;
  const size_t size =
      static_cast<size_t>(intg0 * 4 + kDigitsToBytes[intg0x] + frac0 * 4 + kDigitsToBytes[frac0x]);
  if (bytes.size() < size) return Corruption("DECIMAL needs {} bytes, {} left", size, bytes.size());
  uint8_t buf[40];
  std::memcpy(buf, bytes.data(), size);
  const bool negative = (buf[0] & 0x80) == 0;
  buf[0] ^= 0x80;
  if (negative) {
    for (size_t i = 0; i < size; ++i) buf[i] = static_cast<uint8_t>(~buf[i]);
  }
  size_t p = 0;
  auto group = [&](int digits) -> uint32_t {
    int nb = digits == 9 ? 4 : kDigitsToBytes[digits];
    uint32_t v = static_cast<uint32_t>(BigEndian(buf + p, static_cast<size_t>(nb)));
    p += static_cast<size_t>(nb);
    return v;
  };
  if (precision <= 38) {
    types::int128_t v = 0;
    auto mul = [](int digits) {
      types::int128_t m = 1;
      for (int i = 0; i < digits; ++i) m *= 10;
      return m;
    };
    if (intg0x) v = group(intg0x) % static_cast<uint32_t>(mul(intg0x));
    for (int i = 0; i < intg0; ++i) v = v * 1000000000 + group(9) % 1000000000u;
    for (int i = 0; i < frac0; ++i) v = v * 1000000000 + group(9) % 1000000000u;
    if (frac0x) v = v * mul(frac0x) + group(frac0x) % static_cast<uint32_t>(mul(frac0x));
    *unscaled = negative ? -v : v;
    return size;
  }
  std::string digits;
  auto append = [&](uint32_t v, int width) {
    uint32_t limit = 1;
    for (int i = 0; i < width; ++i) limit *= 10;
    fmt::format_to(std::back_inserter(digits), "{:0{}d}", v % limit, width);
  };
  if (intg0x) append(group(intg0x), intg0x);
  for (int i = 0; i < intg0; ++i) append(group(9), 9);
  std::string int_part = digits.substr(0, digits.find_first_not_of('0'));
  size_t nz = digits.find_first_not_of('0');
  std::string ip = nz == std::string::npos ? "0" : digits.substr(nz);
  digits.clear();
  for (int i = 0; i < frac0; ++i) append(group(9), 9);
  if (frac0x) append(group(frac0x), frac0x);
  text->clear();
  bool zero = ip == "0" && digits.find_first_not_of('0') == std::string::npos;
  if (negative && !zero) text->push_back('-');
  *text += ip;
  if (scale > 0) {
    text->push_back('.');
    *text += digits;
  }
  return size;
}

std::unexpected<Error> RowImageDecoder::Truncated(const char* what, const ColumnInfo& c) const {
  return Corrupt(fmt::format("truncated {} value of column '{}'", what, c.name));
}

Status RowImageDecoder::DecodeValue(const ColumnInfo& c, Arena* arena, Value* out) {
  switch (c.type) {
    case column_type::kTiny:
    case column_type::kShort:
    case column_type::kInt24:
    case column_type::kLong:
    case column_type::kLongLong:
    case column_type::kYear:
      return DecodeInteger(c, out);
    case column_type::kFloat:
    case column_type::kDouble:
      return DecodeFloating(c, out);
    case column_type::kNewDecimal:
      return DecodeNewDecimal(c, arena, out);
    case column_type::kBit:
      return DecodeBit(c, arena, out);
    case column_type::kDate:
    case column_type::kNewDate:
      return DecodeDate(c, out);
    case column_type::kTimestamp:
    case column_type::kTimestamp2:
      return DecodeTimestamp(c, out);
    case column_type::kDateTime:
    case column_type::kDateTime2:
      return DecodeDateTime(c, out);
    case column_type::kTime:
    case column_type::kTime2:
      return DecodeTime(c, out);
    case column_type::kVarchar:
    case column_type::kVarString:
    case column_type::kString:
      if (IsEnumOrSet(c)) return DecodeEnumOrSet(c, arena, out);
      return DecodeString(c, arena, out);
    case column_type::kBlob:
    case column_type::kTinyBlob:
    case column_type::kMediumBlob:
    case column_type::kLongBlob:
    case column_type::kGeometry:
    case column_type::kJson:
      return DecodeBlob(c, arena, out);
    case column_type::kEnum:
    case column_type::kSet:
      return DecodeEnumOrSet(c, arena, out);
    default:
      return Corrupt(fmt::format("column '{}' has unknown type {}", c.name, c.type));
  }
}

Status RowImageDecoder::DecodeInteger(const ColumnInfo& c, Value* out) {
  const uint8_t* p = rows_.rows.data() + offset_;
  switch (c.type) {
    case column_type::kTiny: {
      FLOE_RETURN_IF_ERROR(Need(1, "TINYINT", c));
      uint8_t v = p[0];
      *out = Value::Int32(c.is_unsigned ? int32_t{v} : int32_t{static_cast<int8_t>(v)});
      offset_ += 1;
      return Ok();
    }
    case column_type::kShort: {
      FLOE_RETURN_IF_ERROR(Need(2, "SMALLINT", c));
      uint16_t v = LoadLittleEndian<uint16_t>(p);
      *out = Value::Int32(c.is_unsigned ? int32_t{v} : int32_t{static_cast<int16_t>(v)});
      offset_ += 2;
      return Ok();
    }
    case column_type::kInt24: {
      FLOE_RETURN_IF_ERROR(Need(3, "MEDIUMINT", c));
      uint32_t v = p[0] | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16);
      *out =
          Value::Int32(c.is_unsigned ? static_cast<int32_t>(v) : static_cast<int32_t>(v << 8) >> 8);
      offset_ += 3;
      return Ok();
    }
    case column_type::kLong: {
      FLOE_RETURN_IF_ERROR(Need(4, "INT", c));
      uint32_t v = LoadLittleEndian<uint32_t>(p);
      *out = c.is_unsigned ? Value::Int64(int64_t{v}) : Value::Int32(static_cast<int32_t>(v));
      offset_ += 4;
      return Ok();
    }
    case column_type::kLongLong: {
      FLOE_RETURN_IF_ERROR(Need(8, "BIGINT", c));
      uint64_t v = LoadLittleEndian<uint64_t>(p);
      *out = c.is_unsigned ? Value::Decimal(static_cast<types::int128_t>(v))
                           : Value::Int64(static_cast<int64_t>(v));
      offset_ += 8;
      return Ok();
    }
    default: {  // YEAR: years since 1900, 0 for the zero year
      FLOE_RETURN_IF_ERROR(Need(1, "YEAR", c));
      uint8_t v = p[0];
      *out = Value::Int32(v == 0 ? 0 : 1900 + v);
      offset_ += 1;
      return Ok();
    }
  }
}

Status RowImageDecoder::DecodeFloating(const ColumnInfo& c, Value* out) {
  const uint8_t* p = rows_.rows.data() + offset_;
  if (c.type == column_type::kFloat) {
    FLOE_RETURN_IF_ERROR(Need(4, "FLOAT", c));
    *out = Value::Float(LoadLittleEndian<float>(p));
    offset_ += 4;
    return Ok();
  }
  FLOE_RETURN_IF_ERROR(Need(8, "DOUBLE", c));
  *out = Value::Double(LoadLittleEndian<double>(p));
  offset_ += 8;
  return Ok();
}

Status RowImageDecoder::DecodeNewDecimal(const ColumnInfo& c, Arena* arena, Value* out) {
  types::int128_t unscaled = 0;
  auto used = DecodeBinaryDecimal(rows_.rows.subspan(offset_), static_cast<int>(c.length), c.scale,
                                  &unscaled, &scratch_);
  if (!used) return Corrupt(fmt::format("column '{}': {}", c.name, used.error().message()));
  offset_ += *used;
  if (c.length <= 38) {
    *out = Value::Decimal(unscaled);
  } else {
    *out = Value::Bytes(arena->Copy(scratch_));
    if (scratch_.empty()) *out = Value::Bytes({});
  }
  return Ok();
}

Status RowImageDecoder::DecodeBit(const ColumnInfo& c, Arena* arena, Value* out) {
  size_t n = (c.length + 7) / 8;
  FLOE_RETURN_IF_ERROR(Need(n, "BIT", c));
  const uint8_t* p = rows_.rows.data() + offset_;
  if (c.length == 1) {
    *out = Value::Bool(p[0] & 1);
  } else {
    *out = Value::Bytes(CopyToArena(arena, p, n));
  }
  offset_ += n;
  return Ok();
}

Status RowImageDecoder::DecodeDate(const ColumnInfo& c, Value* out) {
  FLOE_RETURN_IF_ERROR(Need(3, "DATE", c));
  const uint8_t* p = rows_.rows.data() + offset_;
  uint32_t v = p[0] | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16);
  offset_ += 3;
  unsigned day = v & 31, month = (v >> 5) & 15;
  int64_t year = v >> 9;
  if (month == 0 || day == 0 || month > 12) {
    *out = Value::Null();
  } else {
    *out = Value::Int32(static_cast<int32_t>(types::DaysFromCivil(year, month, day)));
  }
  return Ok();
}

Status RowImageDecoder::DecodeTimestamp(const ColumnInfo& c, Value* out) {
  const uint8_t* p = rows_.rows.data() + offset_;
  if (c.type == column_type::kTimestamp) {
    FLOE_RETURN_IF_ERROR(Need(4, "TIMESTAMP", c));
    uint32_t secs = LoadLittleEndian<uint32_t>(p);
    offset_ += 4;
    *out = secs == 0 ? Value::Null() : Value::Int64(int64_t{secs} * 1000000);
    return Ok();
  }
  size_t fb = FracBytes(c.length);
  FLOE_RETURN_IF_ERROR(Need(4 + fb, "TIMESTAMP", c));
  uint64_t secs = BigEndian(p, 4);
  int64_t micros = FracMicros(BigEndian(p + 4, fb), fb);
  offset_ += 4 + fb;
  *out = secs == 0 && micros == 0 ? Value::Null()
                                  : Value::Int64(static_cast<int64_t>(secs) * 1000000 + micros);
  return Ok();
}

Status RowImageDecoder::DecodeDateTime(const ColumnInfo& c, Value* out) {
  const uint8_t* p = rows_.rows.data() + offset_;
  if (c.type == column_type::kDateTime) {
    FLOE_RETURN_IF_ERROR(Need(8, "DATETIME", c));
    uint64_t v = LoadLittleEndian<uint64_t>(p);
    offset_ += 8;
    uint64_t date = v / 1000000, time = v % 1000000;
    unsigned day = date % 100, month = (date / 100) % 100;
    int64_t year = static_cast<int64_t>(date / 10000);
    if (month == 0 || day == 0 || month > 12) {
      *out = Value::Null();
      return Ok();
    }
    if (year > 9999 || day > 31) {
      return Corruption("binlog: DATETIME value {} is out of range", v);
    }
    int64_t secs = types::DaysFromCivil(year, month, day) * 86400 +
                   static_cast<int64_t>(time / 10000) * 3600 +
                   static_cast<int64_t>((time / 100) % 100) * 60 + static_cast<int64_t>(time % 100);
    *out = Value::Int64(secs * 1000000);
    return Ok();
  }
  size_t fb = FracBytes(c.length);
  FLOE_RETURN_IF_ERROR(Need(5 + fb, "DATETIME", c));
  int64_t packed = static_cast<int64_t>(BigEndian(p, 5)) - 0x8000000000LL;
  int64_t micros = FracMicros(BigEndian(p + 5, fb), fb);
  offset_ += 5 + fb;
  if (packed < 0) packed = -packed;
  int64_t ymd = packed >> 17, hms = packed & ((1 << 17) - 1);
  int64_t ym = ymd >> 5;
  unsigned day = static_cast<unsigned>(ymd & 31), month = static_cast<unsigned>(ym % 13);
  int64_t year = ym / 13;
  if (month == 0 || day == 0) {
    *out = Value::Null();
    return Ok();
  }
  int64_t secs = types::DaysFromCivil(year, month, day) * 86400 + (hms >> 12) * 3600 +
                 ((hms >> 6) & 63) * 60 + (hms & 63);
  *out = Value::Int64(secs * 1000000 + micros);
  return Ok();
}

Status RowImageDecoder::DecodeTime(const ColumnInfo& c, Value* out) {
  const uint8_t* p = rows_.rows.data() + offset_;
  if (c.type == column_type::kTime) {
    FLOE_RETURN_IF_ERROR(Need(3, "TIME", c));
    uint32_t u = p[0] | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16);
    offset_ += 3;
    int32_t v = static_cast<int32_t>(u << 8) >> 8;
    bool neg = v < 0;
    int64_t a = neg ? -int64_t{v} : v;
    int64_t micros = ((a / 10000) * 3600 + ((a / 100) % 100) * 60 + a % 100) * 1000000;
    *out = Value::Int64(neg ? -micros : micros);
    return Ok();
  }
  size_t fb = FracBytes(c.length);
  FLOE_RETURN_IF_ERROR(Need(3 + fb, "TIME", c));
  offset_ += 3 + fb;
  int64_t packed = Time2Packed(p, fb);
  bool neg = packed < 0;
  if (neg) packed = -packed;
  int64_t hms = packed >> 24, frac = packed % (int64_t{1} << 24);
  int64_t micros =
      (((hms >> 12) & 1023) * 3600 + ((hms >> 6) & 63) * 60 + (hms & 63)) * 1000000 + frac;
  *out = Value::Int64(neg ? -micros : micros);
  return Ok();
}

Status RowImageDecoder::TextValue(const ColumnInfo& c, std::string_view cs, std::string_view raw,
                                  Arena* arena, Value* out) {
  if (cs == "utf8mb4" || cs == "utf8mb3" || cs == "ascii") {
    *out = Value::Bytes(CopyToArena(arena, raw));
    return Ok();
  }
  scratch_.clear();
  auto st = ConvertToUtf8(cs, raw, &scratch_);
  if (!st) return Corrupt(fmt::format("column '{}': {}", c.name, st.error().message()));
  *out = Value::Bytes(arena->Copy(scratch_));
  return Ok();
}

Status RowImageDecoder::DecodeString(const ColumnInfo& c, Arena* arena, Value* out) {
  const uint8_t* base = rows_.rows.data();
  size_t len_bytes = c.length > 255 ? 2 : 1;
  FLOE_RETURN_IF_ERROR(Need(len_bytes, "string length", c));
  size_t len = len_bytes == 1 ? base[offset_] : LoadLittleEndian<uint16_t>(base + offset_);
  offset_ += len_bytes;
  FLOE_RETURN_IF_ERROR(Need(len, "string", c));
  std::string_view raw(reinterpret_cast<const char*>(base + offset_), len);
  offset_ += len;
  if (c.is_text()) {
    return TextValue(c, CharsetOfCollation(c.collation == 0 ? 45 : c.collation), raw, arena, out);
  }
  if (c.type == column_type::kString && len < c.length) {
    // BINARY(n): the server drops trailing zero bytes; restore the padding.
    char* p = static_cast<char*>(arena->Allocate(c.length, 1));
    std::memcpy(p, raw.data(), len);
    std::memset(p + len, 0, c.length - len);
    *out = Value::Bytes({p, c.length});
    return Ok();
  }
  *out = Value::Bytes(CopyToArena(arena, raw));
  return Ok();
}

Status RowImageDecoder::DecodeBlob(const ColumnInfo& c, Arena* arena, Value* out) {
  const uint8_t* base = rows_.rows.data();
  size_t lb = c.length;
  if (lb < 1 || lb > 4) return Corrupt(fmt::format("column '{}': length size {}", c.name, lb));
  FLOE_RETURN_IF_ERROR(Need(lb, "BLOB length", c));
  uint64_t len = 0;
  for (size_t i = 0; i < lb; ++i) len |= uint64_t{base[offset_ + i]} << (8 * i);
  offset_ += lb;
  FLOE_RETURN_IF_ERROR(Need(len, "BLOB", c));
  std::string_view raw(reinterpret_cast<const char*>(base + offset_), len);
  offset_ += len;
  if (c.type == column_type::kJson) {
    scratch_.clear();
    if (len == 0) {
      scratch_ = "null";
    } else {
      auto st =
          MySqlJsonToText({reinterpret_cast<const uint8_t*>(raw.data()), raw.size()}, &scratch_);
      if (!st) return Corrupt(fmt::format("column '{}': {}", c.name, st.error().message()));
    }
    *out = Value::Bytes(arena->Copy(scratch_));
    return Ok();
  }
  if (c.type == column_type::kGeometry) {
    if (len < 4) return Corrupt(fmt::format("column '{}': GEOMETRY shorter than its SRID", c.name));
    *out = Value::Bytes(CopyToArena(arena, raw.substr(4)));
    return Ok();
  }
  if (c.is_text()) return TextValue(c, CharsetOfCollation(c.collation), raw, arena, out);
  *out = Value::Bytes(CopyToArena(arena, raw));
  return Ok();
}

Status RowImageDecoder::DecodeEnumOrSet(const ColumnInfo& c, Arena* arena, Value* out) {
  size_t n = c.length;
  if (n < 1 || n > 8) return Corrupt(fmt::format("column '{}': ENUM/SET size {}", c.name, n));
  FLOE_RETURN_IF_ERROR(Need(n, "ENUM/SET", c));
  const uint8_t* p = rows_.rows.data() + offset_;
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  offset_ += n;
  if (c.real_type == column_type::kEnum) {
    if (v == 0 || c.enum_values.empty()) {
      *out = v == 0 ? Value::Bytes({}) : Value::Bytes(arena->Copy(std::to_string(v)));
    } else if (v > c.enum_values.size()) {
      return Corrupt(
          fmt::format("column '{}': ENUM index {} of {}", c.name, v, c.enum_values.size()));
    } else {
      *out = Value::Bytes(arena->Copy(c.enum_values[v - 1]));
    }
    return Ok();
  }
  scratch_.clear();
  if (c.enum_values.empty()) {
    scratch_ = std::to_string(v);
  } else {
    for (size_t i = 0; i < 64 && i < c.enum_values.size(); ++i) {
      if ((v >> i) & 1) {
        if (!scratch_.empty()) scratch_.push_back(',');
        scratch_ += c.enum_values[i];
      }
    }
  }
  *out = Value::Bytes(arena->Copy(scratch_));
  return Ok();
}

}  // namespace floe::cdc::mysql
