#pragma once
/// PostgreSQL's WAL position (XLogRecPtr) and its text form, and the
/// server's timestamps (TimestampTz: microseconds since 2000-01-01 UTC).
/// docs/postgres.md describes the protocol these come from.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// A byte position in the server's write-ahead log. 0 (`0/0`) is
/// InvalidXLogRecPtr: "no position", or "from the slot's confirmed position"
/// in START_REPLICATION.
struct Lsn {
  uint64_t value = 0;

  friend auto operator<=>(const Lsn&, const Lsn&) = default;
  bool valid() const { return value != 0; }

  /// PostgreSQL's text form: the high and low 32 bits in upper-case hex
  /// without leading zeros, separated by '/' ("16/B374D848", "0/0").
  std::string ToString() const;

  /// Reads the text form: 1 to 8 hex digits (either case), '/', 1 to 8 hex
  /// digits, nothing else. Anything else is kInvalidArgument quoting `text`.
  static Result<Lsn> Parse(std::string_view text);
};

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 00:00:00 UTC).
inline constexpr int64_t kPostgresEpochUnixMicros = 946'684'800'000'000;

/// A server timestamp (microseconds since 2000-01-01 UTC) as microseconds
/// since 1970-01-01 UTC. Saturates instead of overflowing.
int64_t PostgresTimeToUnixMicros(int64_t postgres_micros);
/// The reverse of PostgresTimeToUnixMicros. Saturates instead of overflowing.
int64_t UnixMicrosToPostgresTime(int64_t unix_micros);

}  // namespace floe::cdc::postgres
