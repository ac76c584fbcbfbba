#include "floe/cdc/postgres/slot_monitor.h"

#include <spdlog/spdlog.h>

namespace floe::cdc::postgres {
namespace {

int64_t BytesBetween(Lsn from, Lsn to) {
  return to > from ? static_cast<int64_t>(to.value - from.value) : 0;
}

}  // namespace

Result<SlotWal> SlotWalOf(std::string slot, const std::optional<std::string>& current,
                          const std::optional<std::string>& restart,
                          const std::optional<std::string>& confirmed_flush) {
  if (!current) return NotFound("slot {}: no current WAL position", slot);
  SlotWal wal;
  wal.slot = std::move(slot);
  FLOE_ASSIGN_OR_RETURN(wal.current, Lsn::Parse(*current));
  if (restart) {
    FLOE_ASSIGN_OR_RETURN(wal.restart, Lsn::Parse(*restart));
  }
  if (confirmed_flush) {
    FLOE_ASSIGN_OR_RETURN(wal.confirmed_flush, Lsn::Parse(*confirmed_flush));
  }
  if (wal.restart.valid()) wal.retained_bytes = BytesBetween(wal.restart, wal.current);
  if (wal.confirmed_flush.valid()) {
    wal.unconfirmed_bytes = BytesBetween(wal.confirmed_flush, wal.current);
  }
  return wal;
}

SlotMonitor::SlotMonitor(Options options, Report report)
    : options_(std::move(options)),
      report_(std::move(report)),
      thread_({.interval = options_.interval, .run_at_start = true}, [this] { ReadAndReport(); }) {}

Result<SlotWal> SlotMonitor::Read() {
  if (client_ == nullptr) {
    FLOE_ASSIGN_OR_RETURN(client_, ReplicationClient::ConnectForQueries(options_.client));
    FLOE_RETURN_IF_ERROR(client_->Query("SET statement_timeout = 5000"));
  }
  FLOE_ASSIGN_OR_RETURN(
      auto rows, client_->Query("SELECT pg_current_wal_lsn(), restart_lsn, confirmed_flush_lsn "
                                "FROM pg_replication_slots WHERE slot_name = " +
                                client_->QuoteLiteral(options_.client.slot)));
  if (rows.empty() || rows[0].size() < 3) {
    return NotFound("no replication slot {}", options_.client.slot);
  }
  return SlotWalOf(options_.client.slot, rows[0][0], rows[0][1], rows[0][2]);
}

void SlotMonitor::ReadAndReport() {
  Result<SlotWal> wal = Read();
  if (wal) {
    report_(*wal);
    warned_ = false;
    return;
  }
  if (wal.error().code() != ErrorCode::kNotFound) client_.reset();  // connect again
  if (!warned_) {
    spdlog::warn("postgres: reading the WAL slot {} retains: {}", options_.client.slot,
                 wal.error().message());
    warned_ = true;
  }
}

}  // namespace floe::cdc::postgres
