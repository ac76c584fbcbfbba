// MySQL's binary JSON format (sql/json_binary.h in MySQL) -> JSON text.
//
//   doc     := type value
//   type    := 0x00 small object | 0x01 large object | 0x02 small array |
//              0x03 large array | 0x04 literal | 0x05 int16 | 0x06 uint16 |
//              0x07 int32 | 0x08 uint32 | 0x09 int64 | 0x0a uint64 |
//              0x0b double | 0x0c string | 0x0f opaque
//   object  := count size key-entry* value-entry* key* value*
//              (count/size/offsets: 2 bytes in small, 4 in large)
//   key-entry   := offset(2|4) length(2)
//   value-entry := type offset-or-inlined-value(2|4)
//   string  := variable-length length (7 bits a byte, low first) bytes
//   opaque  := field-type variable-length length bytes
#include <cmath>
#include <cstring>
#include <iterator>

#include "floe/cdc/debezium_json.h"
#include "floe/cdc/mysql/binlog_row_image.h"
#include "floe/common/base64.h"
#include "floe/common/bytes.h"

namespace floe::cdc::mysql {
namespace {

constexpr int kMaxDepth = 100;

bool ReadVarLength(std::span<const uint8_t> b, size_t* off, uint64_t* len) {
  uint64_t v = 0;
  for (int i = 0; i < 5; ++i) {
    if (*off >= b.size()) return false;
    uint8_t c = b[(*off)++];
    v |= uint64_t{c & 0x7Fu} << (7 * i);
    if (!(c & 0x80)) {
      *len = v;
      return true;
    }
  }
  return false;
}

void AppendTwoDigits(std::string* out, int64_t v) {
  out->push_back(static_cast<char>('0' + (v / 10) % 10));
  out->push_back(static_cast<char>('0' + v % 10));
}

// MySQL's packed temporal format inside JSON opaque values (my_time.h
// TIME_to_longlong_*_packed): int part << 24 | microseconds.
void AppendPackedTemporal(uint8_t field_type, int64_t packed, std::string* out) {
  bool neg = packed < 0;
  // Negate through unsigned: INT64_MIN (hostile input) has no positive twin.
  if (neg) packed = static_cast<int64_t>((~static_cast<uint64_t>(packed) + 1) & INT64_MAX);
  int64_t frac = packed % (1 << 24);
  int64_t ip = packed >> 24;
  out->push_back('"');
  if (field_type == column_type::kTime) {
    if (neg) out->push_back('-');
    int64_t hour = (ip >> 12) % (1 << 10);
    fmt::format_to(std::back_inserter(*out), "{:02d}:{:02d}:{:02d}", hour, (ip >> 6) % 64, ip % 64);
  } else {
    int64_t ymd = ip >> 17, hms = ip % (1 << 17);
    int64_t ym = ymd >> 5;
    fmt::format_to(std::back_inserter(*out), "{:04d}-", ym / 13);
    AppendTwoDigits(out, ym % 13);
    out->push_back('-');
    AppendTwoDigits(out, ymd % 32);
    if (field_type != column_type::kDate) {
      fmt::format_to(std::back_inserter(*out), " {:02d}:{:02d}:{:02d}", hms >> 12, (hms >> 6) % 64,
                     hms % 64);
    }
  }
  if (field_type != column_type::kDate && frac)
    fmt::format_to(std::back_inserter(*out), ".{:06d}", frac);
  out->push_back('"');
}

Status AppendValue(std::span<const uint8_t> c, uint8_t type, size_t entry, bool large, int depth,
                   std::string* out);

// An object (types 0x00 small, 0x01 large) or array (0x02, 0x03): a count and
// a size, key entries (objects), value entries, then keys and values.
Status AppendContainer(std::span<const uint8_t> b, uint8_t type, int depth, std::string* out) {
  size_t off = 0;
  auto need = [&](size_t n) { return b.size() - off >= n; };
  bool large = type == 0x01 || type == 0x03;
  bool object = type <= 0x01;
  size_t w = large ? 4 : 2;
  if (!need(2 * w)) return Corruption("truncated JSON container header");
  uint64_t count =
      large ? LoadLittleEndian<uint32_t>(b.data()) : LoadLittleEndian<uint16_t>(b.data());
  uint64_t size =
      large ? LoadLittleEndian<uint32_t>(b.data() + w) : LoadLittleEndian<uint16_t>(b.data() + w);
  if (size > b.size()) return Corruption("JSON container size {} > {} bytes", size, b.size());
  std::span<const uint8_t> c = b.subspan(0, size);
  size_t header = 2 * w;
  size_t key_entry = w + 2, value_entry = 1 + w;
  if (count > size || header + count * ((object ? key_entry : 0) + value_entry) > size) {
    return Corruption("JSON container of {} elements does not fit {} bytes", count, size);
  }
  out->push_back(object ? '{' : '[');
  for (uint64_t i = 0; i < count; ++i) {
    if (i) out->push_back(',');
    if (object) {
      size_t ke = header + i * key_entry;
      uint64_t koff = large ? LoadLittleEndian<uint32_t>(c.data() + ke)
                            : LoadLittleEndian<uint16_t>(c.data() + ke);
      uint64_t klen = LoadLittleEndian<uint16_t>(c.data() + ke + w);
      if (koff > size || klen > size - koff) return Corruption("JSON key out of bounds");
      AppendJsonString({reinterpret_cast<const char*>(c.data() + koff), klen}, out);
      out->push_back(':');
    }
    size_t ve = header + (object ? count * key_entry : 0) + i * value_entry;
    uint8_t vt = c[ve];
    FLOE_RETURN_IF_ERROR(AppendValue(c, vt, ve + 1, large, depth + 1, out));
  }
  out->push_back(object ? '}' : ']');
  return Ok();
}

// An opaque value (0x0f): a MySQL column type, a length and the field's
// binary form; DECIMAL and temporal types as text, others as base64.
Status AppendOpaque(std::span<const uint8_t> b, std::string* out) {
  size_t off = 0;
  auto need = [&](size_t n) { return b.size() - off >= n; };
  if (!need(1)) return Corruption("truncated JSON opaque");
  uint8_t ft = b[off++];
  uint64_t len = 0;
  if (!ReadVarLength(b, &off, &len) || len > b.size() - off)
    return Corruption("truncated JSON opaque");
  std::span<const uint8_t> data = b.subspan(off, len);
  if (ft == column_type::kNewDecimal && len >= 2) {
    types::int128_t unscaled = 0;
    std::string text;
    int precision = data[0], scale = data[1];
    auto used = DecodeBinaryDecimal(data.subspan(2), precision, scale, &unscaled, &text);
    if (!used) return std::unexpected(used.error());
    if (precision <= 38) {
      text.clear();
      bool neg = unscaled < 0;
      unsigned __int128 u = neg ? -static_cast<unsigned __int128>(unscaled)
                                : static_cast<unsigned __int128>(unscaled);
      std::string digits;
      do {
        digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
      } while (u > 0);
      while (static_cast<int>(digits.size()) <= scale) digits.push_back('0');
      std::string r(digits.rbegin(), digits.rend());
      if (scale > 0) r.insert(r.size() - static_cast<size_t>(scale), ".");
      text = (neg ? "-" : "") + r;
    }
    out->append(text);
    return Ok();
  }
  if ((ft == column_type::kDate || ft == column_type::kTime || ft == column_type::kDateTime ||
       ft == column_type::kTimestamp) &&
      len >= 8) {
    AppendPackedTemporal(ft, LoadLittleEndian<int64_t>(data.data()), out);
    return Ok();
  }
  std::string s = fmt::format("base64:type{}:", ft);
  Base64Encode({reinterpret_cast<const char*>(data.data()), data.size()}, &s);
  AppendJsonString(s, out);
  return Ok();
}

// An int16 .. uint64 value (`name` for the error): little-endian, as text.
template <typename T>
Status AppendInteger(std::span<const uint8_t> b, std::string_view name, std::string* out) {
  if (b.size() < sizeof(T)) return Corruption("truncated JSON {}", name);
  fmt::format_to(std::back_inserter(*out), "{}", LoadLittleEndian<T>(b.data()));
  return Ok();
}

Status AppendScalarOrContainer(std::span<const uint8_t> b, uint8_t type, int depth,
                               std::string* out) {
  if (depth > kMaxDepth) return Corruption("JSON nested deeper than {}", kMaxDepth);
  size_t off = 0;
  auto need = [&](size_t n) { return b.size() - off >= n; };
  switch (type) {
    case 0x00:
    case 0x01:
    case 0x02:
    case 0x03:
      return AppendContainer(b, type, depth, out);
    case 0x04:
      if (!need(1)) return Corruption("truncated JSON literal");
      if (b[0] == 0)
        out->append("null");
      else if (b[0] == 1)
        out->append("true");
      else if (b[0] == 2)
        out->append("false");
      else
        return Corruption("bad JSON literal {}", b[0]);
      return Ok();
    case 0x05:
      return AppendInteger<int16_t>(b, "int16", out);
    case 0x06:
      return AppendInteger<uint16_t>(b, "uint16", out);
    case 0x07:
      return AppendInteger<int32_t>(b, "int32", out);
    case 0x08:
      return AppendInteger<uint32_t>(b, "uint32", out);
    case 0x09:
      return AppendInteger<int64_t>(b, "int64", out);
    case 0x0a:
      return AppendInteger<uint64_t>(b, "uint64", out);
    case 0x0b: {
      if (!need(8)) return Corruption("truncated JSON double");
      double d = LoadLittleEndian<double>(b.data());
      if (!std::isfinite(d)) return Corruption("JSON double is not finite");
      std::string s = fmt::format("{}", d);
      // Keep a double recognizable as one ("1.0" rather than "1").
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      out->append(s);
      return Ok();
    }
    case 0x0c: {
      uint64_t len = 0;
      if (!ReadVarLength(b, &off, &len) || len > b.size() - off)
        return Corruption("truncated JSON string");
      AppendJsonString({reinterpret_cast<const char*>(b.data() + off), len}, out);
      return Ok();
    }
    case 0x0f:
      return AppendOpaque(b, out);
    default:
      return Corruption("unknown JSON value type 0x{:02x}", type);
  }
}

// A value entry of a container: inlined (literal, int16, uint16; in large
// containers also int32, uint32) or an offset into the container.
Status AppendValue(std::span<const uint8_t> c, uint8_t type, size_t entry, bool is_large,
                   int real_depth, std::string* out) {
  size_t w = is_large ? 4 : 2;
  if (entry + w > c.size()) return Corruption("JSON value entry out of bounds");
  const uint8_t* p = c.data() + entry;
  switch (type) {
    case 0x04:
      return AppendScalarOrContainer({p, 1}, type, real_depth, out);
    case 0x05:
    case 0x06:
      return AppendScalarOrContainer({p, 2}, type, real_depth, out);
    case 0x07:
    case 0x08:
      if (is_large) return AppendScalarOrContainer({p, 4}, type, real_depth, out);
      break;
    default:
      break;
  }
  uint64_t voff = is_large ? LoadLittleEndian<uint32_t>(p) : LoadLittleEndian<uint16_t>(p);
  if (voff >= c.size()) return Corruption("JSON value offset {} out of bounds", voff);
  return AppendScalarOrContainer(c.subspan(voff), type, real_depth, out);
}

}  // namespace

Status MySqlJsonToText(std::span<const uint8_t> bytes, std::string* out) {
  if (bytes.empty()) return Corruption("empty binary JSON");
  return AppendScalarOrContainer(bytes.subspan(1), bytes[0], 0, out);
}

}  // namespace floe::cdc::mysql
