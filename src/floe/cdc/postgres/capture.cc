#include "floe/cdc/postgres/capture.h"

#include <cmath>
#include <limits>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "floe/cdc/postgres/row_errors.h"
#include "floe/cdc/postgres/type_mapping.h"
#include "floe/common/base64.h"
#include "floe/common/float_text.h"
#include "floe/common/json_text.h"
#include "floe/types/temporal.h"

namespace floe::cdc::postgres {
namespace {

using types::TypeId;
using types::Value;

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void AppendTimestampTz(int64_t micros, std::string* out) {
  if (micros == std::numeric_limits<int64_t>::max()) {
    out->append("\"infinity\"");
    return;
  }
  if (micros == std::numeric_limits<int64_t>::min()) {
    out->append("\"-infinity\"");
    return;
  }
  constexpr int64_t kDay = 86'400'000'000;
  int64_t days = micros >= 0 ? micros / kDay : -((-micros + kDay - 1) / kDay);
  int64_t rest = micros - days * kDay;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  types::CivilFromDays(days, &y, &m, &d);
  int64_t secs = rest / 1'000'000, frac = rest % 1'000'000;
  fmt::format_to(std::back_inserter(*out), "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", y, m, d,
                 secs / 3600, secs / 60 % 60, secs % 60);
  if (frac) fmt::format_to(std::back_inserter(*out), ".{:06}", frac);
  out->append("Z\"");
}

void AppendValue(const types::Type& type, const Value& v, std::string* out) {
  if (v.is_null()) {
    out->append("null");
    return;
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      out->append(v.b ? "true" : "false");
      return;
    case TypeId::kInt:
    case TypeId::kDate:
      fmt::format_to(std::back_inserter(*out), "{}", v.i32);
      return;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
      fmt::format_to(std::back_inserter(*out), "{}", v.i64);
      return;
    case TypeId::kTimestampTz:
      AppendTimestampTz(v.i64, out);
      return;
    case TypeId::kFloat:
      AppendJsonFloating(v.f32, out);
      return;
    case TypeId::kDouble:
      AppendJsonFloating(v.f64, out);
      return;
    case TypeId::kDecimal:
      out->push_back('"');
      types::AppendDecimal(v.decimal, type.scale(), out);
      out->push_back('"');
      return;
    case TypeId::kUuid:
      out->push_back('"');
      types::AppendUuid(v.as_bytes(), out);
      out->push_back('"');
      return;
    case TypeId::kBinary:
    case TypeId::kFixed:
      out->push_back('"');
      Base64Encode(v.as_bytes(), out);
      out->push_back('"');
      return;
    case TypeId::kList: {
      out->push_back('[');
      const types::Type& element = *type.element().type;
      auto children = v.as_children();
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) out->push_back(',');
        AppendValue(element, children[i], out);
      }
      out->push_back(']');
      return;
    }
    default:
      AppendJsonString(v.as_bytes(), out);
      return;
  }
}

}  // namespace

ChangeAssembler::ChangeAssembler(PgoutputVersion version, Options options)
    : version_(version),
      options_(std::move(options)),
      transactions_(version),
      domains_(options_.resolve_type) {
  if (!options_.now_ms) options_.now_ms = SystemNowMs;
}

void ChangeAssembler::OnRelation(const RelationMessage& m) {
  Relation rel;
  rel.schema = m.namespace_name;
  rel.name = m.name;
  rel.identity = m.replica_identity;
  int32_t next_id = 1;
  for (const RelationColumn& c : m.columns) {
    Column col;
    col.name = c.name;
    std::tie(col.type_oid, col.type_modifier) = domains_.Resolve(c.type_oid, c.type_modifier);
    col.key = c.is_key();
    rel.columns.push_back(std::move(col));
  }
  // Field ids: top-level columns first, list elements after.
  next_id = static_cast<int32_t>(rel.columns.size()) + 1;
  for (Column& col : rel.columns) {
    col.type = IcebergTypeOf(col.type_oid, col.type_modifier, &next_id);
  }
  if (options_.tables) {
    rel.printed = std::regex_match(rel.schema + "." + rel.name, *options_.tables);
  }
  relations_[m.relation_id] = std::move(rel);
}

Status ChangeAssembler::AppendRow(const Relation& rel, const TupleData& tuple, const TupleData* old,
                                  OldTupleKind old_kind, Lsn lsn, std::string* out) {
  FLOE_RETURN_IF_ERROR(CheckRowWidth(rel.schema, rel.name, lsn, tuple, old, rel.columns.size()));
  out->push_back('{');
  for (size_t i = 0; i < rel.columns.size(); ++i) {
    const Column& col = rel.columns[i];
    if (i) out->push_back(',');
    AppendJsonString(col.name, out);
    out->push_back(':');
    const ColumnValue* cv = &tuple.columns[i];
    if (cv->kind == ColumnValue::Kind::kUnchangedToast) {
      if (old && old_kind == OldTupleKind::kOld &&
          old->columns[i].kind != ColumnValue::Kind::kUnchangedToast) {
        cv = &old->columns[i];
      } else {
        return UnchangedToastWithoutOldRow(rel.schema, rel.name, col.name, lsn);
      }
    }
    switch (cv->kind) {
      case ColumnValue::Kind::kNull:
        out->append("null");
        break;
      case ColumnValue::Kind::kText: {
        auto v = ParseTextValue(col.type_oid, col.type_modifier, cv->data, &arena_);
        if (!v) return UnreadableValue(rel.schema, rel.name, col.name, lsn, v.error());
        AppendValue(*col.type, *v, out);
        break;
      }
      case ColumnValue::Kind::kBinary:
        return BinaryValue(rel.schema, rel.name, col.name, lsn);
      case ColumnValue::Kind::kUnchangedToast:
        break;  // handled above
    }
  }
  out->push_back('}');
  return Ok();
}

void ChangeAssembler::AppendEnvelopeEnd(const Relation& rel, const Transaction& txn, Lsn lsn,
                                        char op, std::string* out) {
  out->append(",\"source\":{\"version\":");
  AppendJsonString(options_.version, out);
  out->append(",\"connector\":\"postgresql\",\"name\":");
  AppendJsonString(options_.server_name, out);
  fmt::format_to(std::back_inserter(*out), ",\"ts_ms\":{},\"snapshot\":\"false\",\"db\":",
                 PostgresTimeToUnixMicros(txn.commit_time) / 1000);
  AppendJsonString(options_.database, out);
  out->append(",\"schema\":");
  AppendJsonString(rel.schema, out);
  out->append(",\"table\":");
  AppendJsonString(rel.name, out);
  fmt::format_to(std::back_inserter(*out),
                 ",\"txId\":{},\"lsn\":{}}},\"op\":\"{}\",\"ts_ms\":{},\"transaction\":null}}\n",
                 txn.xid, lsn.value, op, options_.now_ms());
  ++out_events_;
}

Status ChangeAssembler::Handle(const PgoutputMessage& message, Lsn lsn, const Transaction& txn) {
  if (const auto* m = std::get_if<RelationMessage>(&message)) {
    OnRelation(*m);
  } else if (const auto* m = std::get_if<InsertMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Insert", lsn));
    if (!rel->printed) return Ok();
    out_.append("{\"before\":null,\"after\":");
    FLOE_RETURN_IF_ERROR(AppendRow(*rel, m->new_tuple, nullptr, OldTupleKind::kNone, lsn, &out_));
    AppendEnvelopeEnd(*rel, txn, lsn, 'c', &out_);
  } else if (const auto* m = std::get_if<UpdateMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Update", lsn));
    if (!rel->printed) return Ok();
    const TupleData* old = m->old_kind == OldTupleKind::kNone ? nullptr : &m->old_tuple;
    out_.append("{\"before\":");
    if (old) {
      FLOE_RETURN_IF_ERROR(AppendRow(*rel, *old, nullptr, OldTupleKind::kNone, lsn, &out_));
    } else {
      out_.append("null");
    }
    out_.append(",\"after\":");
    FLOE_RETURN_IF_ERROR(AppendRow(*rel, m->new_tuple, old, m->old_kind, lsn, &out_));
    AppendEnvelopeEnd(*rel, txn, lsn, 'u', &out_);
  } else if (const auto* m = std::get_if<DeleteMessage>(&message)) {
    FLOE_ASSIGN_OR_RETURN(const Relation* rel,
                          FindRelation(relations_, m->relation_id, "Delete", lsn));
    if (!rel->printed) return Ok();
    out_.append("{\"before\":");
    FLOE_RETURN_IF_ERROR(AppendRow(*rel, m->old_tuple, nullptr, OldTupleKind::kNone, lsn, &out_));
    out_.append(",\"after\":null");
    AppendEnvelopeEnd(*rel, txn, lsn, 'd', &out_);
  } else if (const auto* m = std::get_if<TruncateMessage>(&message)) {
    for (uint32_t id : m->relation_ids) {
      FLOE_ASSIGN_OR_RETURN(const Relation* rel, FindRelation(relations_, id, "Truncate", lsn));
      if (!rel->printed) continue;
      out_.append("{\"before\":null,\"after\":null");
      AppendEnvelopeEnd(*rel, txn, lsn, 't', &out_);
    }
  }
  // Type, Origin and logical messages print nothing.
  arena_.Reset();
  return Ok();
}

Status ChangeAssembler::Commit(uint32_t xid, Lsn end_lsn, const Sink& sink) {
  CommittedLines c{out_, out_events_, xid, end_lsn};
  Status s = sink(c);
  events_ += static_cast<int64_t>(out_events_);
  out_.clear();
  out_events_ = 0;
  return s;
}

Status ChangeAssembler::Feed(Lsn wal_start, std::string_view bytes, const Sink& sink) {
  FLOE_ASSIGN_OR_RETURN(const PgoutputMessage* message, transactions_.Next(wal_start, bytes));
  if (message == nullptr) return Ok();
  if (const auto* m = std::get_if<BeginMessage>(message)) {
    open_ = Transaction{m->xid, m->commit_time};
    out_.clear();
    out_events_ = 0;
    return Ok();
  }
  if (const auto* m = std::get_if<StreamCommitMessage>(message)) {
    Transaction txn{m->xid, m->commit_time};
    out_.clear();
    out_events_ = 0;
    FLOE_RETURN_IF_ERROR(transactions_.CommitStream(
        m->xid, [&](const PgoutputMessage& held, Lsn lsn) { return Handle(held, lsn, txn); }));
    return Commit(m->xid, m->end_lsn, sink);
  }
  if (!open_) return OutsideTransaction(*message, wal_start);
  if (const auto* m = std::get_if<CommitMessage>(message)) {
    uint32_t xid = open_->xid;
    open_.reset();
    return Commit(xid, m->end_lsn, sink);
  }
  return Handle(*message, wal_start, *open_);
}

Result<std::unique_ptr<PostgresCapture>> PostgresCapture::Open(CaptureOptions options) {
  auto capture = std::unique_ptr<PostgresCapture>(new PostgresCapture());
  capture->options_ = std::move(options);
  std::regex tables;
  try {
    tables = std::regex(capture->options_.tables);
  } catch (const std::regex_error& e) {
    return InvalidArgument("--tables '{}': not a regular expression: {}", capture->options_.tables,
                           e.what());
  }
  FLOE_ASSIGN_OR_RETURN(capture->client_, ReplicationClient::Connect(capture->options_.client));
  ReplicationClient& c = *capture->client_;
  FLOE_RETURN_IF_ERROR(
      c.SelectPublicationTables([&tables](std::string_view schema, std::string_view table) {
        return std::regex_match(std::string(schema) + "." + std::string(table), tables);
      }));
  FLOE_ASSIGN_OR_RETURN(SlotInfo slot, c.Prepare());
  spdlog::info("slot {}: {} at {}", c.options().slot, slot.created ? "created" : "found",
               slot.confirmed_flush_lsn.ToString());
  return capture;
}

Status PostgresCapture::Run(const ChangeAssembler::Sink& sink, const std::atomic<bool>& stop) {
  ReplicationClient& c = *client_;
  FLOE_RETURN_IF_ERROR(c.StartStreaming(options_.start_lsn));
  ChangeAssembler::Options ao;
  ao.database = c.options().database;
  ao.server_name = options_.server_name;
  if (options_.tables != ".*") ao.tables = std::regex(options_.tables);
  ao.resolve_type = [&c](uint32_t oid) { return c.DomainBase(oid); };
  ChangeAssembler assembler(c.protocol_version(), std::move(ao));
  using Clock = std::chrono::steady_clock;
  auto last_message = Clock::now();
  auto on_commit = [&](const CommittedLines& lines) -> Status {
    FLOE_RETURN_IF_ERROR(sink(lines));
    // The lines are out and flushed: the slot may let this transaction go.
    // Said at once, so that a capture killed later repeats as little as
    // possible (one small message per transaction, beside its fflush).
    c.set_flushed(lines.end_lsn);
    FLOE_RETURN_IF_ERROR(c.SendStatus());
    return Ok();
  };
  Status result = Ok();
  while (!stop.load()) {
    auto frame = c.Next(std::chrono::milliseconds(200));
    if (!frame) {
      result = std::unexpected(std::move(frame).error());
      break;
    }
    if (!*frame) {
      if (options_.stop_after_idle.count() > 0 &&
          Clock::now() - last_message >= options_.stop_after_idle) {
        spdlog::info("no change for {} ms: stopping", options_.stop_after_idle.count());
        break;
      }
      continue;
    }
    last_message = Clock::now();
    if (auto s = assembler.Feed((*frame)->wal_start, (*frame)->data, on_commit); !s) {
      result = s;
      break;
    }
    if (options_.max_events > 0 && assembler.events() >= options_.max_events) break;
  }
  // The last word to the server: what is flushed (never more).
  result = c.SendFinalStatus(std::move(result));
  spdlog::info("stopped: {} row events; flushed up to {}", assembler.events(),
               c.flushed().ToString());
  return result;
}

}  // namespace floe::cdc::postgres
