#include "floe/ingest/change_event_handler.h"

#include <optional>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace floe::ingest {

using sink::RowKind;
using types::Row;
using types::Value;

Result<InputFormat> ParseInputFormat(std::string_view text) {
  if (text == "debezium-json" || text == "debezium") return InputFormat::kDebeziumJson;
  if (text == "json") return InputFormat::kJson;
  if (text == "canal-json" || text == "canal") return InputFormat::kCanalJson;
  return InvalidArgument("unknown input format '{}' (use debezium-json or json)", text);
}

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kJson:
      return "json";
    case InputFormat::kCanalJson:
      return "canal-json";
    case InputFormat::kDebeziumJson:
      break;
  }
  return "debezium-json";
}

ChangeEventHandler::ChangeEventHandler(TableResolver* resolver, sink::RowBatcher* batcher,
                                       IngestStats* stats)
    : resolver_(resolver), batcher_(batcher), stats_(stats), changes_(batcher) {}

ChangeEventHandler::~ChangeEventHandler() = default;

const types::Schema* ChangeEventHandler::KnownSchema() const {
  return known_target_ ? known_target_->metadata->CurrentSchema() : nullptr;
}

Status ChangeEventHandler::Handle(InputFormat format, std::string_view text,
                                  ChangeEventHooks& hooks,
                                  const std::vector<std::string>* key_fields) {
  if (format == InputFormat::kCanalJson) return HandleCanal(text, hooks);
  return HandleDebezium(text, hooks, key_fields);
}

Status ChangeEventHandler::HandleDebezium(std::string_view text, ChangeEventHooks& hooks,
                                          const std::vector<std::string>* key_fields) {
  arena_.Reset();
  const types::Schema* known = KnownSchema();
  auto decoded = reader_.Decode(text, known != nullptr ? known : &empty_schema_, &arena_);
  key_fields_ = key_fields;
  Status handled = HandleDecoded(text, decoded, known, true, hooks);
  key_fields_ = nullptr;
  return handled;
}

void ChangeEventHandler::NoteKeyFields(const cdc::DebeziumEvent& event) {
  if (key_fields_ == nullptr || key_fields_->empty()) return;
  if (event.db == key_noted_.db && event.table == key_noted_.table &&
      *key_fields_ == key_noted_.primary_key) {
    return;
  }
  key_noted_.db.assign(event.db);
  key_noted_.table.assign(event.table);
  key_noted_.primary_key = *key_fields_;
  resolver_->NotePrimaryKey(event.db, event.table, *key_fields_);
}

Status ChangeEventHandler::HandleDecoded(std::string_view text, Result<cdc::DebeziumEvent>& decoded,
                                         const types::Schema* known, bool own_reader,
                                         ChangeEventHooks& hooks) {
  if (!decoded) return hooks.BadEvent(decoded.error());
  cdc::DebeziumEvent* event = &*decoded;
  if (event->kind == cdc::DebeziumEvent::Kind::kTruncate) return Truncate(*event, hooks);
  if (event->kind != cdc::DebeziumEvent::Kind::kRow) {
    // A schema change names its tables' primary keys: the identifier
    // fields of those tables when they are created.
    for (auto& key : event->table_keys) {
      resolver_->NotePrimaryKey(key.db, key.table, std::move(key.primary_key));
    }
    CountSkipped();
    return Ok();
  }
  NoteKeyFields(*event);
  bool event_error = false;
  auto state = resolver_->Resolve(event->db, event->table, event->row_schema, &event_error);
  if (!state) return FromResolver(std::move(state).error(), event_error, hooks);
  if (hooks.AlreadyCommitted(*TableResolver::TargetOf(*state))) return Ok();

  std::optional<cdc::DebeziumEvent> redecoded;
  if (!event->row_schema) {
    // Decoded with the schema of another table (or none): decode again
    // with this table's.
    const sink::TableTargetPtr& target = TableResolver::TargetOf(*state);
    if (known != target->metadata->CurrentSchema()) {
      known_target_ = target;
      known = known_target_->metadata->CurrentSchema();
      arena_.Reset();
      auto again = reader_.Decode(text, known, &arena_);
      if (!again) return hooks.BadEvent(again.error());
      redecoded = std::move(*again);
      event = &*redecoded;
      own_reader = true;
    }
  }
  auto mapping = resolver_->MappingFor(*state, event->row_schema, &event_error);
  if (!mapping) return FromResolver(std::move(mapping).error(), event_error, hooks);
  const RowMapping& m = **mapping;
  if (!event->before.empty()) {
    std::span<const int> fields = BeforeImageFields(m);
    if (own_reader) reader_.LimitBeforeImage(event->db, event->table, fields);
    hooks.NoteBeforeImageFields(*event, known, fields);
  }
  auto rows = changes_.Write(m, event->op, event->before, event->after, *out_, &event_error);
  if (!rows) {
    if (event_error) return hooks.BadEvent(rows.error());
    return std::unexpected(std::move(rows).error());
  }
  CountEmitted(*m.target(), *rows);
  if (observer_) observer_(*m.target(), event->op, event->ts_ms);
  return Ok();
}

Status ChangeEventHandler::HandleCanal(std::string_view text, ChangeEventHooks& hooks) {
  arena_.Reset();
  Status decoded = canal_reader_.Decode(text, &arena_, &canal_events_);
  if (!decoded) return hooks.BadEvent(decoded.error());
  // pkNames comes with every row message: the identifier fields of a table
  // that is created (noted again only when it changes).
  if (!canal_events_.empty() && canal_events_[0].kind == cdc::DebeziumEvent::Kind::kRow &&
      !canal_events_[0].table_keys.empty()) {
    cdc::DebeziumEvent::TableKey& key = canal_events_[0].table_keys[0];
    if (key.db != canal_noted_.db || key.table != canal_noted_.table ||
        key.primary_key != canal_noted_.primary_key) {
      resolver_->NotePrimaryKey(key.db, key.table, key.primary_key);
      canal_noted_ = key;
    }
  }
  // Each row is a Debezium event with a schema block (canal's mysqlType), so
  // none is decoded again.
  for (cdc::DebeziumEvent& event : canal_events_) {
    Result<cdc::DebeziumEvent> one(std::move(event));
    FLOE_RETURN_IF_ERROR(HandleDecoded(text, one, nullptr, /*own_reader=*/false, hooks));
  }
  return Ok();
}

/// A truncation of the event's table: the rows before it go to their
/// writers, then every writer discards what it holds of the table and the
/// committers remove the table's files in this checkpoint's commit.
Status ChangeEventHandler::Truncate(const cdc::DebeziumEvent& event, ChangeEventHooks& hooks) {
  bool event_error = false;
  auto state = resolver_->Resolve(event.db, event.table, nullptr, &event_error);
  if (!state) {
    if (event_error && state.error().code() == ErrorCode::kNotFound) {
      CountSkipped();
      return Ok();
    }
    return FromResolver(std::move(state).error(), event_error, hooks);
  }
  if (hooks.AlreadyCommitted(*TableResolver::TargetOf(*state))) return Ok();
  FLOE_RETURN_IF_ERROR(batcher_->Truncate(TableResolver::TargetOf(*state), *out_));
  stats_->truncates.fetch_add(1, std::memory_order_relaxed);
  return Ok();
}

/// Decides whether an error from the resolver is the event's or the job's.
Status ChangeEventHandler::FromResolver(Error error, bool event_error, ChangeEventHooks& hooks) {
  if (event_error) return hooks.BadEvent(error);
  return std::unexpected(hooks.JobError(std::move(error)));
}

/// The event row fields a before image is read for: the writers use it
/// only for its key, and a changelog's equality delete for the partition
/// source columns too (sink::TableWriter), so later before images of the
/// table decode only these.
std::span<const int> ChangeEventHandler::BeforeImageFields(const RowMapping& m) {
  before_fields_.clear();
  for (int position : m.equality_positions()) {
    before_fields_.push_back(m.source_of(static_cast<size_t>(position)));
  }
  const auto& columns = m.table_schema().fields();
  if (const iceberg::PartitionSpec* spec = m.target()->metadata->DefaultSpec()) {
    for (const iceberg::PartitionField& pf : spec->fields()) {
      for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].id == pf.source_id) before_fields_.push_back(m.source_of(i));
      }
    }
  }
  return before_fields_;
}

Status ChangeEventHandler::Emit(const sink::TableTargetPtr& target, RowKind kind, Row row) {
  FLOE_RETURN_IF_ERROR(batcher_->Add(target, kind, row, *out_));
  CountEmitted(*target, 1);
  return Ok();
}

Status ChangeEventHandler::EmitBatch(sink::RowBatch batch) {
  sink::TableTargetPtr target = batch.target;
  const auto n = static_cast<int64_t>(batch.rows.size());
  FLOE_RETURN_IF_ERROR(batcher_->AddBatch(std::move(batch), *out_));
  CountEmitted(*target, n);
  return Ok();
}

void ChangeEventHandler::CountEmitted(const sink::TableTarget& target, int64_t n) {
  counts_.rows += n;
  stats_->rows_emitted.fetch_add(n, std::memory_order_relaxed);
  if (last_table_key_ == nullptr || *last_table_key_ != target.key) {
    auto [it, inserted] = rows_per_table_.try_emplace(target.key, 0);
    last_table_key_ = &it->first;
    last_table_count_ = &it->second;
  }
  *last_table_count_ += n;
}

void ChangeEventHandler::CountSkipped() {
  ++counts_.skipped;
  stats_->events_skipped.fetch_add(1, std::memory_order_relaxed);
}

void ChangeEventHandler::PublishTableRows() {
  for (auto& [table, n] : rows_per_table_) {
    if (n != 0) stats_->AddTableRows(table, n);
    n = 0;
  }
}

nlohmann::json NotedPrimaryKeysToJson(const std::vector<NotedPrimaryKey>& keys) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : keys) {
    out.push_back({{"db", k.db}, {"table", k.table}, {"columns", k.columns}});
  }
  return out;
}

std::vector<NotedPrimaryKey> NotedPrimaryKeysFromJson(const nlohmann::json& keys) {
  std::vector<NotedPrimaryKey> out;
  for (const auto& k : keys) {
    out.push_back({k.at("db").get<std::string>(), k.at("table").get<std::string>(),
                   k.at("columns").get<std::vector<std::string>>()});
  }
  return out;
}

}  // namespace floe::ingest
