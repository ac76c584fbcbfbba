#pragma once
/// How much WAL a replication slot makes the server keep, read now and then
/// on a connection of its own (docs/postgres.md, "WAL retained"), so that
/// `floe run` can show it on /metrics without ever making the stream wait.
///
/// The server may not remove WAL from the slot's `restart_lsn` on (the oldest
/// record logical decoding still needs), so the bytes retained are
/// pg_current_wal_lsn() − restart_lsn: what pg_wal holds for the slot. The
/// `confirmed_flush_lsn` is what the client confirmed (for `floe run`: what
/// the lake holds); current − confirmed is the part the pipeline has not
/// confirmed yet. restart_lsn trails confirmed_flush_lsn (it moves when the
/// server has decoded past a point it can restart from), so retained ≥
/// unconfirmed.
///
/// Threading: SlotMonitor runs one thread of its own; `report` is called on
/// it. Destroying the monitor stops the thread (waiting at most for one
/// query, bounded by a 5 s statement timeout).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "floe/cdc/postgres/lsn.h"
#include "floe/cdc/postgres/replication_client.h"
#include "floe/common/periodic_thread.h"
#include "floe/common/result.h"

namespace floe::cdc::postgres {

/// One reading of a slot.
struct SlotWal {
  std::string slot;
  Lsn current;                    ///< pg_current_wal_lsn()
  Lsn restart;                    ///< restart_lsn: the server keeps WAL from here on
  Lsn confirmed_flush;            ///< confirmed_flush_lsn: what the client confirmed
  int64_t retained_bytes = 0;     ///< current − restart (0 when restart is ahead)
  int64_t unconfirmed_bytes = 0;  ///< current − confirmed_flush (0 when ahead)
};

/// A SlotWal from the text of pg_current_wal_lsn(), restart_lsn and
/// confirmed_flush_lsn (nullopt: NULL, as for a slot not yet consistent).
/// Errors: kInvalidArgument for a value that is not an LSN; kNotFound when
/// `current` is NULL.
Result<SlotWal> SlotWalOf(std::string slot, const std::optional<std::string>& current,
                          const std::optional<std::string>& restart,
                          const std::optional<std::string>& confirmed_flush);

class SlotMonitor {
 public:
  struct Options {
    /// The server and the slot (`client.slot`).
    ReplicationClientOptions client;
    /// Time between readings. Default 5 s.
    std::chrono::milliseconds interval{5'000};
  };
  /// Called with each reading; never with a failed one (those are logged,
  /// the connection is made again at the next reading).
  using Report = std::function<void(const SlotWal&)>;

  /// Starts the thread; the first reading is taken at once.
  SlotMonitor(Options options, Report report);
  SlotMonitor(const SlotMonitor&) = delete;
  SlotMonitor& operator=(const SlotMonitor&) = delete;

 private:
  void ReadAndReport();
  Result<SlotWal> Read();

  Options options_;
  Report report_;
  std::unique_ptr<ReplicationClient> client_;  ///< on the thread only
  bool warned_ = false;                        ///< on the thread only
  PeriodicThread thread_;                      ///< last: stopped before the rest goes
};

}  // namespace floe::cdc::postgres
