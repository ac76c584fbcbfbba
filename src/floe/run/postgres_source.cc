#include "floe/run/postgres_source.h"

#include <algorithm>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "floe/cdc/postgres/slot_monitor.h"
#include "floe/run/run_metrics.h"

namespace floe::run {
namespace {

/// How often the WAL the slot retains is read for /metrics.
constexpr std::chrono::seconds kSlotWalInterval{5};

/// A PostgresChangeStream as CaptureSource's change stream.
class PostgresStream final : public ChangeStream {
 public:
  PostgresStream(std::unique_ptr<cdc::postgres::PostgresChangeStream> stream,
                 cdc::postgres::ReplicationClientOptions client)
      : stream_(std::move(stream)), client_(std::move(client)) {}
  /// The slot's WAL is read on a connection and thread of its own, so the
  /// stream never waits for it.
  void ReportTo(RunMetrics* metrics) override {
    if (metrics == nullptr || monitor_ != nullptr) return;
    monitor_ = std::make_unique<cdc::postgres::SlotMonitor>(
        cdc::postgres::SlotMonitor::Options{client_, kSlotWalInterval},
        [metrics](const cdc::postgres::SlotWal& wal) {
          SlotWalMetrics m;
          m.slot = wal.slot;
          m.retained_bytes = wal.retained_bytes;
          m.unconfirmed_bytes = wal.unconfirmed_bytes;
          m.confirmed_lsn = wal.confirmed_flush.value;
          m.confirmed_lsn_text = wal.confirmed_flush.ToString();
          metrics->SetSlotWal(std::move(m));
        });
  }
  Status Run(const Sink& sink, const std::atomic<bool>& stop) override {
    return stream_->Run(sink, stop);
  }
  Result<cdc::mysql::CaptureStateText> StateParts() override {
    auto [head, relations] = stream_->StateParts();
    return cdc::mysql::CaptureStateText{std::move(head), std::move(relations)};
  }
  void Committed(const cdc::SourcePosition& position) override {
    if (auto lsn = cdc::postgres::LsnOfPosition(position.binlog)) stream_->Committed(*lsn);
  }

 private:
  std::unique_ptr<cdc::postgres::PostgresChangeStream> stream_;
  cdc::postgres::ReplicationClientOptions client_;
  std::unique_ptr<cdc::postgres::SlotMonitor> monitor_;
};

std::function<bool(std::string_view, std::string_view)> SelectorOf(
    const pipeline::PostgresSourceDefinition& source) {
  auto tables = source.tables;
  std::optional<std::regex> schema;
  if (!source.schema_name.empty()) schema = std::regex(source.schema_name);
  return [tables, schema](std::string_view ns, std::string_view table) {
    if (schema && !std::regex_match(ns.begin(), ns.end(), *schema)) return false;
    return pipeline::MatchesSourceTable(tables, ns, table);
  };
}

cdc::postgres::ReplicationClientOptions ClientOf(const pipeline::PostgresSourceDefinition& source) {
  cdc::postgres::ReplicationClientOptions c;
  c.host = source.hostname;
  c.port = static_cast<uint16_t>(source.port);
  c.user = source.username;
  c.password = source.password.value;
  c.database = source.database_name;
  c.slot = source.slot_name;
  c.publication = source.publication_name;
  c.connect_timeout_seconds = static_cast<int>(std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::seconds>(source.connect_timeout).count()));
  return c;
}

}  // namespace

Result<cdc::postgres::ChangeStreamOptions> PostgresStreamOptions(
    const pipeline::PostgresSourceDefinition& source) {
  cdc::postgres::ChangeStreamOptions options;
  options.client = ClientOf(source);
  FLOE_ASSIGN_OR_RETURN(options.client.autocreate, cdc::postgres::ParsePublicationAutocreate(
                                                       source.publication_autocreate_mode));
  options.selector = SelectorOf(source);
  options.heartbeat_interval = source.heartbeat_interval;
  options.snapshot = source.startup_mode == pipeline::StartupMode::kInitial;
  return options;
}

std::function<Result<std::unique_ptr<ChangeStream>>(const std::string& state)> PostgresStreamOpener(
    cdc::postgres::ChangeStreamOptions options) {
  return [options](const std::string& state) -> Result<std::unique_ptr<ChangeStream>> {
    cdc::postgres::ChangeStreamOptions o = options;
    o.initial_state = state;
    FLOE_ASSIGN_OR_RETURN(auto stream, cdc::postgres::PostgresChangeStream::Open(std::move(o)));
    return std::unique_ptr<ChangeStream>(
        std::make_unique<PostgresStream>(std::move(stream), options.client));
  };
}

Result<std::vector<TableRoute>> CheckPostgresSource(
    const pipeline::PipelineDefinition& definition) {
  const pipeline::PostgresSourceDefinition& source = definition.source.postgres;
  FLOE_ASSIGN_OR_RETURN(auto client, cdc::postgres::ReplicationClient::Connect(ClientOf(source)));
  FLOE_ASSIGN_OR_RETURN(
      auto rows,
      client->Query("SELECT n.nspname, c.relname, EXISTS (SELECT 1 FROM pg_index i WHERE "
                    "i.indrelid = c.oid AND i.indisprimary) FROM pg_class c JOIN pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND NOT "
                    "c.relispartition AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                    "AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 1, 2"));
  auto selector = SelectorOf(source);
  std::vector<TableRoute> routes;
  for (const auto& r : rows) {
    if (r.size() < 3 || !r[0] || !r[1]) continue;
    if (!selector(*r[0], *r[1])) continue;
    FLOE_ASSIGN_OR_RETURN(auto sink, definition.RouteFor(*r[0], *r[1]));
    routes.push_back({*r[0] + "." + *r[1], sink.ToString(), r[2].value_or("f") == "t"});
  }
  return routes;
}

Status DropPostgresSlot(const pipeline::PipelineDefinition& definition) {
  FLOE_ASSIGN_OR_RETURN(
      auto client, cdc::postgres::ReplicationClient::Connect(ClientOf(definition.source.postgres)));
  return client->DropSlot();
}

}  // namespace floe::run
