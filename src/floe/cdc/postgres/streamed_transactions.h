#pragma once
/// Streamed transactions (pgoutput protocol v2, `streaming 'on'`): the
/// server sends a large transaction in blocks between Stream Start and
/// Stream Stop before it commits; its messages are held here, per top-level
/// transaction, until Stream Commit hands them on in order, or Stream Abort
/// drops the transaction (or one of its subtransactions). Held in memory.
///
/// Threading: one thread.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/pgoutput.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

class StreamedTransactions {
 public:
  using Handler = std::function<Status(const PgoutputMessage& message, Lsn lsn)>;

  /// Keeps message `bytes` (at `lsn`) of top-level transaction `xid`, read
  /// inside one of its Stream Start / Stream Stop blocks.
  void Hold(uint32_t xid, Lsn lsn, std::string_view bytes) {
    held_[xid].push_back({lsn, std::string(bytes)});
  }

  /// Stream Abort: drops the transaction, or only the messages of the
  /// subtransaction that rolled back. Errors: a held message that no longer
  /// decodes (kCorruption).
  Status Abort(const StreamAbortMessage& abort);

  /// Stream Commit of `xid`: decodes its held messages again and hands each
  /// to `handle` in the order they came, then forgets them. Errors: the
  /// decoder's and the handler's.
  Status Commit(uint32_t xid, const Handler& handle);

  bool empty() const { return held_.empty(); }
  size_t size() const { return held_.size(); }

 private:
  struct Held {
    Lsn lsn;
    std::string bytes;
  };
  std::map<uint32_t, std::vector<Held>> held_;  // by top-level xid
};

}  // namespace floe::cdc::postgres
