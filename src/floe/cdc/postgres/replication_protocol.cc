#include "floe/cdc/postgres/replication_protocol.h"

#include "floe/cdc/postgres/wire_reader.h"

namespace floe::cdc::postgres {
namespace {

void PutU64(char* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(v & 0xFF);
    v >>= 8;
  }
}

}  // namespace

Result<ReplicationMessage> DecodeReplicationMessage(std::string_view frame) {
  if (frame.empty()) return Corruption("replication CopyData frame: empty (no tag byte)");
  internal::WireReader in(frame.substr(1));
  switch (frame[0]) {
    case 'w': {
      XLogData m;
      if (!in.U64(&m.wal_start.value) || !in.U64(&m.wal_end.value) || !in.I64(&m.send_time)) {
        return Corruption("replication XLogData frame: {} bytes, shorter than its 25-byte header",
                          frame.size());
      }
      m.data = frame.substr(1 + in.offset());
      return m;
    }
    case 'k': {
      PrimaryKeepalive m;
      uint8_t reply = 0;
      if (!in.U64(&m.wal_end.value) || !in.I64(&m.send_time) || !in.U8(&reply)) {
        return Corruption("replication keepalive frame: {} bytes, not 18", frame.size());
      }
      if (!in.at_end()) {
        return Corruption("replication keepalive frame: {} bytes, not 18", frame.size());
      }
      if (reply > 1) {
        return Corruption("replication keepalive frame: reply-requested flag {} (0 or 1)", reply);
      }
      m.reply_requested = reply == 1;
      return m;
    }
    default:
      return Corruption("replication CopyData frame: unknown tag 0x{:02x} ({} bytes)",
                        static_cast<uint8_t>(frame[0]), frame.size());
  }
}

std::array<char, kStandbyStatusUpdateSize> EncodeStandbyStatusUpdate(
    const StandbyStatusUpdate& update) {
  std::array<char, kStandbyStatusUpdateSize> out{};
  out[0] = 'r';
  PutU64(out.data() + 1, update.written.value);
  PutU64(out.data() + 9, update.flushed.value);
  PutU64(out.data() + 17, update.applied.value);
  PutU64(out.data() + 25, static_cast<uint64_t>(update.client_time));
  out[33] = update.reply_requested ? 1 : 0;
  return out;
}

}  // namespace floe::cdc::postgres
