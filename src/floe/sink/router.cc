#include "floe/sink/router.h"

#include <algorithm>
#include <new>
#include <random>
#include <unordered_map>

#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/table_properties.h"
#include "floe/sink/row_key.h"

namespace floe::sink {

namespace {

/// Rows sampled per table between two checkpoints for range boundaries.
constexpr size_t kReservoirSize = 1024;
constexpr size_t kMinArenaBlock = 4 << 10;
constexpr size_t kMaxArenaBlock = 1 << 20;

}  // namespace

struct RowBatcher::Impl {
  struct Table {
    TableTargetPtr target;
    DistributionMode mode = DistributionMode::kNone;
    bool keyed = false;
    KeyEncoder encoder;
    std::optional<iceberg::PartitionTransformer> partitioner;  // hash mode, partitioned
    std::vector<types::Value> partition_values;
    std::vector<size_t> range_columns;    // range mode: positions in a row
    std::vector<std::string> boundaries;  // range mode: n - 1 upper bounds, ascending
    std::vector<std::string> sample;
    uint64_t seen = 0;              // rows offered to the sample since the last boundary
    std::vector<RowBatch> pending;  // per writer subtask (one only for round-robin)
    size_t block_size = kMinArenaBlock;
    bool listed = false;  // in with_rows
  };

  Impl(const SinkOptions& options, size_t batch_rows)
      : options(options),
        subtasks(static_cast<uint32_t>(std::max(1, options.write_parallelism))),
        batch_rows(std::max<size_t>(1, batch_rows)),
        rng(0x5eed) {}

  Result<Table*> TableFor(const TableTargetPtr& target, engine::Collector<RowBatch>& out);
  Status Configure(Table& t, const TableTargetPtr& target);
  Result<uint32_t> Route(Table& t, types::Row row);
  uint32_t RangeRoute(Table& t, types::Row row);
  Status Emit(Table& t, size_t slot, engine::Collector<RowBatch>& out);
  void Rebalance(Table& t);

  SinkOptions options;
  uint32_t subtasks;
  size_t batch_rows;
  std::unordered_map<std::string, Table> tables;
  /// Tables that got rows since the last Flush: Flush visits these only (a
  /// pipeline of 10,000 tables flushes after every poll of its source).
  std::vector<Table*> with_rows;
  std::string scratch;
  uint32_t next_round_robin = 0;
  std::mt19937_64 rng;
};

Status RowBatcher::Impl::Configure(Table& t, const TableTargetPtr& target) {
  const iceberg::TableMetadata& m = *target->metadata;
  const types::Schema* schema = m.CurrentSchema();
  const iceberg::PartitionSpec* spec = m.DefaultSpec();
  if (schema == nullptr || spec == nullptr) {
    return InvalidArgument("table {}: no current schema or default partition spec", target->key);
  }
  if (options.distribution_mode) {
    t.mode = *options.distribution_mode;
  } else {
    std::string text = m.Property(iceberg::table_properties::kWriteDistributionMode, "none");
    auto mode = ParseDistributionMode(text);
    if (!mode) {
      return std::unexpected(
          std::move(mode).error().WithContext(fmt::format("table {}", target->key)));
    }
    t.mode = *mode;
  }
  t.keyed = !target->equality_field_ids.empty();
  if (t.keyed) {
    FLOE_ASSIGN_OR_RETURN(t.encoder,
                          KeyEncoder::Make(*schema, target->equality_field_ids, target->key));
  }
  t.partitioner.reset();
  if (t.mode == DistributionMode::kHash && !spec->is_unpartitioned()) {
    auto p = iceberg::PartitionTransformer::Make(*spec, *schema);
    if (!p)
      return std::unexpected(
          std::move(p).error().WithContext(fmt::format("table {}", target->key)));
    t.partitioner = std::move(*p);
    t.partition_values.assign(t.partitioner->num_fields(), types::Value());
  }
  std::vector<size_t> range_columns;
  if (t.mode == DistributionMode::kRange) {
    if (t.keyed) {
      range_columns = t.encoder.positions();
    } else {
      const auto& fields = schema->fields();
      if (const iceberg::SortOrder* order = m.SortOrderById(m.default_sort_order_id)) {
        for (const auto& sf : order->fields()) {
          for (size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].id == sf.source_id) range_columns.push_back(i);
          }
        }
      }
      if (range_columns.empty() && !fields.empty()) range_columns.push_back(0);
    }
  }
  if (range_columns != t.range_columns) {
    // New range columns: earlier boundaries and samples do not apply.
    t.boundaries.clear();
    t.sample.clear();
    t.seen = 0;
  }
  t.range_columns = std::move(range_columns);
  t.target = target;
  const size_t slots = (!t.keyed && t.mode == DistributionMode::kNone) ? 1 : subtasks;
  t.pending.resize(slots);
  return Ok();
}

Result<RowBatcher::Impl::Table*> RowBatcher::Impl::TableFor(const TableTargetPtr& target,
                                                            engine::Collector<RowBatch>& out) {
  if (!target || !target->metadata) return InvalidArgument("row for a table without a target");
  auto it = tables.find(target->key);
  if (it != tables.end() && it->second.target == target) return &it->second;
  if (it == tables.end()) {
    it = tables.emplace(target->key, Table{}).first;
  } else {
    // A new target (schema change): the table's pending rows go first.
    for (size_t s = 0; s < it->second.pending.size(); ++s) {
      FLOE_RETURN_IF_ERROR(Emit(it->second, s, out));
    }
  }
  if (auto s = Configure(it->second, target); !s) {
    if (it->second.listed) std::erase(with_rows, &it->second);
    tables.erase(it);
    return std::unexpected(s.error());
  }
  return &it->second;
}

uint32_t RowBatcher::Impl::RangeRoute(Table& t, types::Row row) {
  scratch.clear();
  for (size_t c : t.range_columns) AppendOrderedKey(row[c], &scratch);
  // Reservoir sample (Algorithm R) of this checkpoint's keys.
  ++t.seen;
  if (t.sample.size() < kReservoirSize) {
    t.sample.push_back(scratch);
  } else {
    uint64_t j = rng() % t.seen;
    if (j < kReservoirSize) t.sample[j].assign(scratch);
  }
  if (t.boundaries.empty()) {
    if (t.keyed) return static_cast<uint32_t>(HashKey(scratch) % subtasks);
    return UINT32_MAX;  // append: round-robin until the first boundaries
  }
  auto at = std::upper_bound(t.boundaries.begin(), t.boundaries.end(), scratch);
  return static_cast<uint32_t>(at - t.boundaries.begin());
}

Result<uint32_t> RowBatcher::Impl::Route(Table& t, types::Row row) {
  switch (t.mode) {
    case DistributionMode::kNone:
      if (!t.keyed) return 0u;
      scratch.clear();
      t.encoder.Encode(row, &scratch);
      return static_cast<uint32_t>(HashKey(scratch) % subtasks);
    case DistributionMode::kHash: {
      scratch.clear();
      if (t.partitioner) {
        FLOE_RETURN_IF_ERROR_CTX(t.partitioner->Apply(row, t.partition_values.data()), "table {}",
                                 t.target->key);
        scratch.append(t.target->key);
        for (const auto& v : t.partition_values) AppendValueKey(v, &scratch);
      } else if (t.keyed) {
        // Unpartitioned: the key spreads the rows (still a function of the key).
        t.encoder.Encode(row, &scratch);
      } else {
        scratch.append(t.target->key);
      }
      return static_cast<uint32_t>(HashKey(scratch) % subtasks);
    }
    case DistributionMode::kRange:
      return RangeRoute(t, row);
  }
  return 0u;
}

Status RowBatcher::Impl::Emit(Table& t, size_t slot, engine::Collector<RowBatch>& out) {
  RowBatch& batch = t.pending[slot];
  if (batch.rows.empty()) return Ok();
  if (t.pending.size() == 1 && subtasks > 1) {
    batch.route = next_round_robin++ % subtasks;
  } else {
    batch.route = static_cast<uint32_t>(slot);
  }
  // Size the next arena after this batch's.
  t.block_size = std::clamp(batch.arena->capacity() / 2, kMinArenaBlock, kMaxArenaBlock);
  RowBatch sent = std::move(batch);
  batch = RowBatch();
  return out.Emit(std::move(sent));
}

void RowBatcher::Impl::Rebalance(Table& t) {
  if (t.mode != DistributionMode::kRange || t.sample.empty() || subtasks <= 1) return;
  std::sort(t.sample.begin(), t.sample.end());
  t.boundaries.clear();
  for (uint32_t i = 1; i < subtasks; ++i) {
    t.boundaries.push_back(t.sample[i * t.sample.size() / subtasks]);
  }
  t.sample.clear();
  t.seen = 0;
}

RowBatcher::RowBatcher(const SinkOptions& options, size_t batch_rows)
    : impl_(std::make_unique<Impl>(options, batch_rows)) {}

RowBatcher::~RowBatcher() = default;

Status RowBatcher::Add(const TableTargetPtr& target, RowKind kind, types::Row row,
                       engine::Collector<RowBatch>& out) {
  FLOE_ASSIGN_OR_RETURN(Impl::Table * t, impl_->TableFor(target, out));
  const size_t width = target->metadata->CurrentSchema()->fields().size();
  if (row.size() != width) {
    return InvalidArgument("table {}: row has {} values, the schema has {} columns", target->key,
                           row.size(), width);
  }
  if (t->keyed) {
    if (target->upsert || kind == RowKind::kDelete || kind == RowKind::kUpdateBefore) {
      int null_at = t->encoder.NullKeyColumn(row);
      if (null_at >= 0) {
        return InvalidArgument("table {}: equality field '{}' is null in a {} row", target->key,
                               t->encoder.name(static_cast<size_t>(null_at)),
                               target->upsert ? "upsert" : "delete");
      }
    }
  } else if (kind == RowKind::kDelete || kind == RowKind::kUpdateBefore) {
    return InvalidArgument(
        "table {}: has no identifier fields (equality fields), so deletes cannot be applied",
        target->key);
  }
  size_t slot = 0;
  if (t->pending.size() > 1) {
    FLOE_ASSIGN_OR_RETURN(uint32_t route, impl_->Route(*t, row));
    if (route == UINT32_MAX) {
      // Append-only range table before its first boundaries: round-robin.
      slot = impl_->next_round_robin++ % impl_->subtasks;
    } else {
      slot = route;
    }
  }
  RowBatch& batch = t->pending[slot];
  if (batch.rows.empty()) {
    if (!t->listed) {
      t->listed = true;
      impl_->with_rows.push_back(t);
    }
    batch.target = target;
    batch.arena = std::make_unique<Arena>(t->block_size);
    batch.rows.reserve(impl_->batch_rows);
    batch.kinds.reserve(impl_->batch_rows);
  }
  Arena& arena = *batch.arena;
  types::Value* values = arena.AllocateArray<types::Value>(width);
  for (size_t i = 0; i < width; ++i) new (&values[i]) types::Value(types::DeepCopy(row[i], &arena));
  batch.rows.emplace_back(values, width);
  batch.kinds.push_back(kind);
  if (batch.rows.size() >= impl_->batch_rows) return impl_->Emit(*t, slot, out);
  return Ok();
}

Status RowBatcher::AddBatch(RowBatch batch, engine::Collector<RowBatch>& out) {
  if (batch.rows.empty()) return Ok();
  FLOE_ASSIGN_OR_RETURN(Impl::Table * t, impl_->TableFor(batch.target, out));
  const size_t width = batch.target->metadata->CurrentSchema()->fields().size();
  bool whole = !t->keyed && t->pending.size() == 1 && batch.kinds.size() == batch.rows.size();
  for (size_t i = 0; whole && i < batch.rows.size(); ++i) {
    whole = batch.rows[i].size() == width && batch.kinds[i] == RowKind::kInsert;
  }
  if (!whole) {
    for (size_t i = 0; i < batch.rows.size(); ++i) {
      FLOE_RETURN_IF_ERROR(Add(batch.target, batch.kinds[i], batch.rows[i], out));
    }
    return Ok();
  }
  FLOE_RETURN_IF_ERROR(impl_->Emit(*t, 0, out));  // the rows added before go first
  RowBatch& slot = t->pending[0];
  slot = std::move(batch);
  slot.truncate = false;
  return impl_->Emit(*t, 0, out);
}

Status RowBatcher::Truncate(const TableTargetPtr& target, engine::Collector<RowBatch>& out) {
  FLOE_ASSIGN_OR_RETURN(Impl::Table * t, impl_->TableFor(target, out));
  for (size_t s = 0; s < t->pending.size(); ++s) FLOE_RETURN_IF_ERROR(impl_->Emit(*t, s, out));
  for (uint32_t route = 0; route < impl_->subtasks; ++route) {
    RowBatch batch;
    batch.target = target;
    batch.route = route;
    batch.truncate = true;
    FLOE_RETURN_IF_ERROR(out.Emit(std::move(batch)));
  }
  return Ok();
}

Status RowBatcher::Flush(engine::Collector<RowBatch>& out) {
  std::vector<Impl::Table*>& listed = impl_->with_rows;
  while (!listed.empty()) {
    Impl::Table& t = *listed.back();
    for (size_t s = 0; s < t.pending.size(); ++s) FLOE_RETURN_IF_ERROR(impl_->Emit(t, s, out));
    t.listed = false;
    listed.pop_back();
  }
  return Ok();
}

void RowBatcher::CheckpointBoundary() {
  for (auto& [key, t] : impl_->tables) impl_->Rebalance(t);
}

size_t RouteOf(const RowBatch& batch, size_t num_subtasks) {
  return num_subtasks == 0 ? 0 : batch.route % num_subtasks;
}

}  // namespace floe::sink
