#include "floe/cdc/postgres/transaction_decoder.h"

#include <utility>
#include <variant>

#include <fmt/format.h>

namespace floe::cdc::postgres {

Result<const PgoutputMessage*> TransactionDecoder::Next(Lsn wal_start, std::string_view bytes) {
  const bool was_in_stream = decoder_.in_stream();
  const uint32_t stream_xid = decoder_.stream_xid();
  auto decoded = decoder_.Decode(bytes);
  if (!decoded) {
    return std::unexpected(std::move(decoded).error().WithContext(
        fmt::format("pgoutput message at {}", wal_start.ToString())));
  }
  message_ = *decoded;
  if (was_in_stream) {
    // A change of streamed transaction `stream_xid`: kept until it commits.
    if (!std::holds_alternative<StreamStopMessage>(message_)) {
      streams_.Hold(stream_xid, wal_start, bytes);
    }
    return nullptr;
  }
  if (const auto* m = std::get_if<StreamAbortMessage>(&message_)) {
    FLOE_RETURN_IF_ERROR(streams_.Abort(*m));
    return nullptr;
  }
  if (std::holds_alternative<StreamStartMessage>(message_) ||
      std::holds_alternative<OriginMessage>(message_) ||
      std::holds_alternative<LogicalMessage>(message_)) {
    return nullptr;
  }
  return &message_;
}

void TransactionDecoder::Reset() {
  decoder_.Reset();
  streams_ = StreamedTransactions();
}

std::unexpected<Error> OutsideTransaction(const PgoutputMessage& message, Lsn lsn) {
  if (std::holds_alternative<CommitMessage>(message)) {
    return Corruption("Commit at {} without Begin", lsn.ToString());
  }
  return Corruption("{} at {} outside a transaction", PgoutputMessageName(message), lsn.ToString());
}

}  // namespace floe::cdc::postgres
