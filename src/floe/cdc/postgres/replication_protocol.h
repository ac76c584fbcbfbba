#pragma once
/// The framing of PostgreSQL's streaming replication protocol inside CopyData
/// messages, once START_REPLICATION has put the connection in copy-both mode
/// (PostgreSQL's "Streaming Replication Protocol"; docs/postgres.md):
///   server -> client  'w' XLogData (a pgoutput message, pgoutput.h) and
///                     'k' primary keepalive;
///   client -> server  'r' standby status update (how far the client has
///                     written, flushed and applied: the server may recycle
///                     the WAL before the flushed position).
/// Pure functions over bytes: libpq's PQgetCopyData / PQputCopyData carry them.

#include <array>
#include <cstdint>
#include <string_view>
#include <variant>

#include "floe/cdc/postgres/lsn.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// 'w': a piece of WAL; for logical replication, exactly one output plugin message.
struct XLogData {
  Lsn wal_start;          ///< where the data starts in the WAL (0 for some messages)
  Lsn wal_end;            ///< the current end of WAL on the server
  int64_t send_time = 0;  ///< microseconds since 2000-01-01 UTC
  std::string_view data;  ///< the pgoutput message; points into the frame's bytes
};

/// 'k': the server's heartbeat.
struct PrimaryKeepalive {
  Lsn wal_end;  ///< the current end of WAL on the server
  int64_t send_time = 0;
  /// The server wants a standby status update now (else it will end the
  /// connection after wal_sender_timeout).
  bool reply_requested = false;
};

using ReplicationMessage = std::variant<XLogData, PrimaryKeepalive>;

/// Decodes one CopyData payload from the server. A frame cut short, with an
/// unknown tag, or (for 'k') with bytes after its fields is kCorruption
/// naming the frame and byte offset.
Result<ReplicationMessage> DecodeReplicationMessage(std::string_view frame);

/// 'r': the client's progress. Positions are "the last byte + 1" the client
/// has written, flushed (made durable: for floe, committed to the lake) and
/// applied; the server keeps the WAL from `flushed` on and reports it as the
/// slot's confirmed_flush_lsn.
struct StandbyStatusUpdate {
  Lsn written;
  Lsn flushed;
  Lsn applied;
  int64_t client_time = 0;       ///< microseconds since 2000-01-01 UTC
  bool reply_requested = false;  ///< ask the server for a keepalive at once
};

/// The size of an encoded standby status update: tag, 3 LSNs, time, flag.
inline constexpr size_t kStandbyStatusUpdateSize = 1 + 8 + 8 + 8 + 8 + 1;

/// The CopyData payload of `update`, to send with PQputCopyData.
std::array<char, kStandbyStatusUpdateSize> EncodeStandbyStatusUpdate(
    const StandbyStatusUpdate& update);

}  // namespace floe::cdc::postgres
