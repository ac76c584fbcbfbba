#pragma once
/// The part of reading a slot's pgoutput messages that does not depend on
/// what the changes become: each message decoded, the changes of streamed
/// transactions (protocol v2) held until Stream Commit and dropped at Stream
/// Abort, and the messages that carry nothing to act on passed over. The
/// Debezium-line capture (capture.h) and the change stream (change_stream.h)
/// both read through it.
///
/// Threading: one thread.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/cdc/postgres/streamed_transactions.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

class TransactionDecoder {
 public:
  explicit TransactionDecoder(PgoutputVersion version) : decoder_(version) {}

  /// Decodes the message of the XLogData frame at `wal_start`. Returns the
  /// message to act on (valid until the next call), or nullptr when nothing
  /// is left to do: a change inside a stream block (held for its
  /// transaction), Stream Start, Stream Stop, Stream Abort (the aborted
  /// changes dropped), Origin and logical messages.
  /// Errors: the decoder's, with the LSN as context; Stream Abort's.
  Result<const PgoutputMessage*> Next(Lsn wal_start, std::string_view bytes);

  /// Stream Commit of `xid`: hands its held changes to `handle` in the
  /// order they came, then forgets them (StreamedTransactions::Commit).
  Status CommitStream(uint32_t xid, const StreamedTransactions::Handler& handle) {
    return streams_.Commit(xid, handle);
  }

  /// Whether a stream block is open or a streamed transaction is held.
  bool busy() const { return decoder_.in_stream() || !streams_.empty(); }
  /// Streamed transactions held now (waiting for Stream Commit or Abort).
  size_t held_transactions() const { return streams_.size(); }

  /// A new replication session: forgets the stream state and the held
  /// transactions (the server sends them again).
  void Reset();

 private:
  PgoutputDecoder decoder_;
  StreamedTransactions streams_;
  PgoutputMessage message_;
};

/// kCorruption for `message` at `lsn` when no transaction is open: "Commit
/// at ... without Begin" for a Commit, "... outside a transaction" otherwise.
std::unexpected<Error> OutsideTransaction(const PgoutputMessage& message, Lsn lsn);

}  // namespace floe::cdc::postgres
