// Collation ids -> character sets, and conversion of column bytes to UTF-8.
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "floe/cdc/mysql/binlog_row_image.h"
#include "floe/common/utf8.h"

namespace floe::cdc::mysql {
namespace {

std::shared_mutex& RegistryMutex() {
  static std::shared_mutex m;
  return m;
}
std::unordered_map<uint32_t, std::string>& Registry() {
  static std::unordered_map<uint32_t, std::string> r;
  return r;
}

std::string_view BuiltIn(uint32_t id) {
  switch (id) {
    case 63:
      return "binary";
    case 5:
    case 8:
    case 15:
    case 31:
    case 47:
    case 48:
    case 49:
    case 94:
      return "latin1";
    case 11:
    case 65:
      return "ascii";
    case 33:
    case 83:
    case 223:
      return "utf8mb3";
    case 45:
    case 46:
      return "utf8mb4";
    case 35:
    case 90:
    case 159:
      return "ucs2";
    case 54:
    case 55:
      return "utf16";
    case 56:
    case 62:
      return "utf16le";
    case 60:
    case 61:
      return "utf32";
    default:
      break;
  }
  if (id >= 192 && id <= 215) return "utf8mb3";
  if (id >= 224 && id <= 247) return "utf8mb4";
  if (id >= 255 && id <= 323) return "utf8mb4";  // MySQL 8 *_0900_* collations
  if (id >= 128 && id <= 151) return "ucs2";
  if (id >= 101 && id <= 124) return "utf16";
  if (id >= 160 && id <= 183) return "utf32";
  if (id >= 576 && id <= 599) return "utf8mb3";            // MariaDB *_mysql561 / extra utf8mb3
  if (id >= 608 && id <= 631) return "utf8mb4";            // MariaDB *_mysql561 / extra utf8mb4
  if (id >= 1024 && id < 2048) return BuiltIn(id - 1024);  // MariaDB NO PAD variants
  return "";
}

// MySQL's latin1 is Windows-1252, with the five undefined bytes mapped to the
// C1 controls of the same value.
constexpr uint16_t kCp1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

}  // namespace

std::string_view CharsetOfCollation(uint32_t collation_id) {
  std::string_view b = BuiltIn(collation_id);
  if (!b.empty()) return b;
  std::shared_lock lock(RegistryMutex());
  auto it = Registry().find(collation_id);
  if (it == Registry().end()) return "";
  return it->second;  // entries are never erased, so the view stays valid
}

void RegisterCollation(uint32_t collation_id, std::string_view charset) {
  if (!BuiltIn(collation_id).empty()) return;
  std::unique_lock lock(RegistryMutex());
  Registry().try_emplace(collation_id, std::string(charset == "utf8" ? "utf8mb3" : charset));
}

Status ConvertToUtf8(std::string_view charset, std::string_view bytes, std::string* out) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  if (charset == "utf8mb4" || charset == "utf8mb3" || charset == "utf8" || charset == "ascii" ||
      charset == "binary") {
    out->append(bytes);
    return Ok();
  }
  if (charset == "latin1") {
    for (size_t i = 0; i < n; ++i) {
      unsigned char c = p[i];
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
      } else if (c < 0xA0) {
        AppendUtf8(kCp1252High[c - 0x80], out);
      } else {
        AppendUtf8(c, out);
      }
    }
    return Ok();
  }
  if (charset == "ucs2" || charset == "utf16" || charset == "utf16le") {
    if (n % 2 != 0) return Corruption("{} string of odd length {}", charset, n);
    bool le = charset == "utf16le";
    for (size_t i = 0; i < n; i += 2) {
      uint32_t u = le ? (p[i] | (p[i + 1] << 8)) : ((p[i] << 8) | p[i + 1]);
      if (charset != "ucs2" && u >= 0xD800 && u <= 0xDBFF && i + 3 < n) {
        uint32_t lo = le ? (p[i + 2] | (p[i + 3] << 8)) : ((p[i + 2] << 8) | p[i + 3]);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
          AppendUtf8(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00), out);
          i += 2;
          continue;
        }
      }
      AppendUtf8(u, out);
    }
    return Ok();
  }
  if (charset == "utf32") {
    if (n % 4 != 0) return Corruption("utf32 string of length {}", n);
    for (size_t i = 0; i < n; i += 4) {
      AppendUtf8((uint32_t{p[i]} << 24) | (p[i + 1] << 16) | (p[i + 2] << 8) | p[i + 3], out);
    }
    return Ok();
  }
  if (charset.empty()) return NotSupported("text in an unknown character set");
  return NotSupported(
      "character set '{}' is not supported (floe converts utf8mb4, utf8mb3, "
      "ascii, latin1, ucs2, utf16, utf16le, utf32 and binary)",
      charset);
}

}  // namespace floe::cdc::mysql
