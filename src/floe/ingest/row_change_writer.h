#pragma once
/// RowChangeWriter: one source row change (insert, update, delete or
/// snapshot read, with its before and after images in the source's column
/// order) turned into the rows the sink's writers take, through the table's
/// RowMapping. The one place that decides what a change becomes; both
/// `floe ingest` (Debezium JSON) and `floe run` (change batches from a
/// capture) use it.
///
///   insert, read -> kInsert(after)
///   update       -> kUpdateBefore(before), kUpdateAfter(after); without a
///                   before image, a table with identifier fields (not
///                   upsert) gets kUpdateBefore(after): the row with the same
///                   key. Upsert tables get only kUpdateAfter (it replaces its
///                   key), plus kDelete(before) when the update changed the key
///   delete       -> kDelete(before)
///
/// Errors carry `*event_error`: true when the change itself is at fault (a
/// missing image, a null in a required column, an update or delete for a
/// table without identifier fields), false for the job's own failures (the
/// batcher's output was cancelled).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "floe/cdc/change.h"
#include "floe/common/result.h"
#include "floe/engine/operator.h"
#include "floe/ingest/table_resolver.h"
#include "floe/sink/record.h"
#include "floe/sink/router.h"

namespace floe::ingest {

class RowChangeWriter {
 public:
  explicit RowChangeWriter(sink::RowBatcher* batcher) : batcher_(batcher) {}

  /// Adds the rows of one change of `m`'s table to the batcher. An absent
  /// image is an empty row. Returns the number of rows added (0 to 2).
  /// Allocates nothing per change once its scratch rows have grown.
  Result<int> Write(const RowMapping& m, cdc::ChangeOp op, types::Row before, types::Row after,
                    engine::Collector<sink::RowBatch>& out, bool* event_error);

 private:
  /// Whether rows `before` and `after` (table order) differ in an equality field.
  bool KeyChanged(const RowMapping& m, std::span<const types::Value> before,
                  std::span<const types::Value> after);

  sink::RowBatcher* batcher_;
  std::vector<types::Value> scratch_a_;
  std::vector<types::Value> scratch_b_;
  std::string key_before_;
  std::string key_after_;
};

}  // namespace floe::ingest
