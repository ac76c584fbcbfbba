#include "floe/cdc/postgres/streamed_transactions.h"

namespace floe::cdc::postgres {
namespace {

// The (sub)transaction xid a decoded message carries (0 when none).
uint32_t XidOf(const PgoutputMessage& m) {
  return std::visit(
      [](const auto& x) -> uint32_t {
        if constexpr (requires { x.xid; }) {
          return x.xid;
        } else {
          return 0;
        }
      },
      m);
}

// A decoder inside a stream block of `xid`, as the held messages were read.
Result<PgoutputDecoder> DecoderInStream(uint32_t xid) {
  PgoutputDecoder decoder(PgoutputVersion::kV2);
  std::string start(6, '\0');  // Stream Start: 'S', xid, first-segment flag
  start[0] = 'S';
  for (int i = 0; i < 4; ++i) start[1 + i] = static_cast<char>(xid >> (24 - 8 * i));
  FLOE_RETURN_IF_ERROR(decoder.Decode(start));
  return decoder;
}

}  // namespace

Status StreamedTransactions::Abort(const StreamAbortMessage& abort) {
  auto it = held_.find(abort.xid);
  if (it == held_.end()) return Ok();
  if (abort.subxid == abort.xid) {
    held_.erase(it);
    return Ok();
  }
  FLOE_ASSIGN_OR_RETURN(PgoutputDecoder scan, DecoderInStream(abort.xid));
  std::vector<Held> kept;
  for (auto& h : it->second) {
    FLOE_ASSIGN_OR_RETURN(auto message, scan.Decode(h.bytes));
    if (XidOf(message) != abort.subxid) kept.push_back(std::move(h));
  }
  it->second = std::move(kept);
  return Ok();
}

Status StreamedTransactions::Commit(uint32_t xid, const Handler& handle) {
  auto it = held_.find(xid);
  if (it == held_.end()) return Ok();
  std::vector<Held> messages = std::move(it->second);
  held_.erase(it);
  FLOE_ASSIGN_OR_RETURN(PgoutputDecoder replay, DecoderInStream(xid));
  for (const Held& h : messages) {
    FLOE_ASSIGN_OR_RETURN(auto message, replay.Decode(h.bytes));
    FLOE_RETURN_IF_ERROR(handle(message, h.lsn));
  }
  return Ok();
}

}  // namespace floe::cdc::postgres
