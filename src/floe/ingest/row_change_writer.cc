#include "floe/ingest/row_change_writer.h"

#include <fmt/format.h>

#include "floe/sink/row_key.h"

namespace floe::ingest {

using sink::RowKind;
using types::Value;

bool RowChangeWriter::KeyChanged(const RowMapping& m, std::span<const Value> before,
                                 std::span<const Value> after) {
  key_before_.clear();
  key_after_.clear();
  for (int position : m.equality_positions()) {
    sink::AppendValueKey(before[position], &key_before_);
    sink::AppendValueKey(after[position], &key_after_);
  }
  return key_before_ != key_after_;
}

Result<int> RowChangeWriter::Write(const RowMapping& m, cdc::ChangeOp op, types::Row before,
                                   types::Row after, engine::Collector<sink::RowBatch>& out,
                                   bool* event_error) {
  *event_error = false;
  const sink::TableTargetPtr& target = m.target();
  scratch_a_.resize(m.width());
  scratch_b_.resize(m.width());
  std::span<Value> a(scratch_a_);
  std::span<Value> b(scratch_b_);
  int rows = 0;
  auto emit = [&](RowKind kind, types::Row row) -> Status {
    FLOE_RETURN_IF_ERROR(batcher_->Add(target, kind, row, out));
    ++rows;
    return Ok();
  };
  auto bad = [&](std::string message) -> Result<int> {
    *event_error = true;
    return InvalidArgument("{}", message);
  };
  auto need_key = [&](std::string_view what) {
    return bad(
        fmt::format("{} for table {}, which has no identifier fields (primary key): give "
                    "--primary-key",
                    what, target->key));
  };
  auto missing = [&](std::string_view column, std::string_view image) {
    return bad(
        fmt::format("table {}: column '{}' is null in the {} image but is required "
                    "(an identifier field or NOT NULL)",
                    target->key, column, image));
  };

  std::string_view col;
  switch (op) {
    case cdc::ChangeOp::kInsert:
    case cdc::ChangeOp::kRead: {
      if (after.empty()) return bad("op c/r without an \"after\" image");
      types::Row row = m.View(after, a, false, &col);
      if (!col.empty()) return missing(col, "after");
      FLOE_RETURN_IF_ERROR(emit(RowKind::kInsert, row));
      return rows;
    }
    case cdc::ChangeOp::kUpdate: {
      if (after.empty()) return bad("op u without an \"after\" image");
      types::Row new_row = m.View(after, b, false, &col);
      if (!col.empty()) return missing(col, "after");
      if (!before.empty()) {
        if (target->equality_field_ids.empty()) return need_key("an update");
        types::Row old_row = m.View(before, a, true, &col);
        if (!col.empty()) return missing(col, "before");
        if (!target->upsert) {
          FLOE_RETURN_IF_ERROR(emit(RowKind::kUpdateBefore, old_row));
        } else if (KeyChanged(m, old_row, new_row)) {
          // Upsert replaces rows by the after image's key; when the update
          // changed the key, the row under the old key must go too.
          FLOE_RETURN_IF_ERROR(emit(RowKind::kDelete, old_row));
        }
      } else if (!target->upsert && !target->equality_field_ids.empty()) {
        // No before image (PostgreSQL's REPLICA IDENTITY DEFAULT when the key
        // did not change): the old row is the one with the after image's key,
        // which is all an update-before deletes by.
        FLOE_RETURN_IF_ERROR(emit(RowKind::kUpdateBefore, new_row));
      }
      FLOE_RETURN_IF_ERROR(emit(RowKind::kUpdateAfter, new_row));
      return rows;
    }
    case cdc::ChangeOp::kDelete: {
      if (before.empty()) return bad("op d without a \"before\" image");
      if (target->equality_field_ids.empty()) return need_key("a delete");
      types::Row old_row = m.View(before, a, true, &col);
      if (!col.empty()) return missing(col, "before");
      FLOE_RETURN_IF_ERROR(emit(RowKind::kDelete, old_row));
      return rows;
    }
  }
  return bad("unknown op");
}

}  // namespace floe::ingest
