#include "floe/cdc/postgres/lsn.h"

#include <limits>

#include <fmt/format.h>

namespace floe::cdc::postgres {
namespace {

// Reads 1 to 8 hex digits; false on anything else.
bool ParseHalf(std::string_view s, uint32_t* out) {
  if (s.empty() || s.size() > 8) return false;
  uint32_t v = 0;
  for (char c : s) {
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<uint32_t>(c - 'A' + 10);
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else {
      return false;
    }
    v = (v << 4) | d;
  }
  *out = v;
  return true;
}

}  // namespace

std::string Lsn::ToString() const {
  return fmt::format("{:X}/{:X}", static_cast<uint32_t>(value >> 32),
                     static_cast<uint32_t>(value & 0xFFFFFFFFu));
}

Result<Lsn> Lsn::Parse(std::string_view text) {
  size_t slash = text.find('/');
  uint32_t high = 0, low = 0;
  if (slash == std::string_view::npos || !ParseHalf(text.substr(0, slash), &high) ||
      !ParseHalf(text.substr(slash + 1), &low)) {
    return InvalidArgument("'{}' is not an LSN (expected two hex numbers like 16/B374D848)", text);
  }
  return Lsn{(uint64_t{high} << 32) | low};
}

int64_t PostgresTimeToUnixMicros(int64_t postgres_micros) {
  if (postgres_micros > std::numeric_limits<int64_t>::max() - kPostgresEpochUnixMicros) {
    return std::numeric_limits<int64_t>::max();
  }
  return postgres_micros + kPostgresEpochUnixMicros;
}

int64_t UnixMicrosToPostgresTime(int64_t unix_micros) {
  if (unix_micros < std::numeric_limits<int64_t>::min() + kPostgresEpochUnixMicros) {
    return std::numeric_limits<int64_t>::min();
  }
  return unix_micros - kPostgresEpochUnixMicros;
}

}  // namespace floe::cdc::postgres
