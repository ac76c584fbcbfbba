#include "floe/source/split_reader.h"

#include <map>
#include <optional>
#include <vector>

#include "floe/common/arena.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/source/changelog.h"
#include "floe/types/row_json_writer.h"

namespace floe::source {

namespace {

/// The projection and bound filter of one snapshot schema.
struct ReadSchema {
  std::shared_ptr<const types::Schema> table;
  types::Schema projected;
  iceberg::ExprPtr filter;
  std::optional<types::JsonRowWriter> json;  ///< of `projected`
};

}  // namespace

struct IcebergSplitReader::Impl {
  std::shared_ptr<SplitEnumerator> enumerator;
  io::FileIO* io = nullptr;
  SplitReaderOptions options;
  int subtask = 0;

  std::optional<SplitAssignment> current;  ///< position: rows of it emitted
  int64_t to_skip = 0;                     ///< rows emitted before a restore
  size_t task_index = 0;
  std::unique_ptr<iceberg::DataReader> reader;
  const ReadSchema* schema = nullptr;
  std::map<int32_t, ReadSchema> schemas;
  Arena arena;
  std::vector<types::Value> values;
  std::string row_json;
  size_t last_chunk_bytes = 0;
  ChangeOrigin origin;  ///< of the current split

  void SetOrigin() {
    origin.db = options.db;
    origin.table = options.table;
    origin.snapshot_id = current->split.snapshot_id;
    origin.sequence_number = 0;
    origin.timestamp_ms = 0;
    std::shared_ptr<const iceberg::TableMetadata> metadata = enumerator->Metadata();
    const iceberg::Snapshot* s =
        metadata ? metadata->SnapshotById(current->split.snapshot_id) : nullptr;
    if (s != nullptr) {
      origin.sequence_number = s->sequence_number;
      origin.timestamp_ms = s->timestamp_ms;
    }
  }

  /// Appends one change line in the output format; returns the changes it
  /// took from `changes` (an update pair is one Debezium event).
  size_t AppendChange(size_t i, std::string* out) {
    const RowChangeLine& c = changes[i];
    if (options.format == OutputFormat::kJson) {
      AppendChangeJson(c.kind, current->split.snapshot_id, c.row, out);
      return 1;
    }
    switch (c.kind) {
      case ChangeKind::kInsert:
        AppendDebeziumEvent('c', "", c.row, origin, out);
        return 1;
      case ChangeKind::kDelete:
        AppendDebeziumEvent('d', c.row, "", origin, out);
        return 1;
      case ChangeKind::kUpdateBefore:
        if (i + 1 < changes.size() && changes[i + 1].kind == ChangeKind::kUpdateAfter) {
          AppendDebeziumEvent('u', c.row, changes[i + 1].row, origin, out);
          return 2;
        }
        AppendDebeziumEvent('d', c.row, "", origin, out);
        return 1;
      case ChangeKind::kUpdateAfter:
        AppendDebeziumEvent('c', "", c.row, origin, out);
        return 1;
    }
    return 1;
  }
  /// A changelog split's lines (computed when it is taken) and the next one.
  std::vector<RowChangeLine> changes;
  size_t next_change = 0;

  /// Emits up to one chunk of a changelog split's changes.
  Result<bool> EmitChanges(engine::Collector<RowChunk>& out) {
    if (next_change == 0 && changes.empty()) {
      std::shared_ptr<const iceberg::TableMetadata> metadata = enumerator->Metadata();
      ChangelogReads reads;
      FLOE_ASSIGN_OR_RETURN(
          changes,
          ComputeChangelog(*io, *metadata, current->split.parent, current->split.snapshot_id,
                           options.filter, options.case_sensitive, options.columns, &reads));
      if (options.counters) {
        options.counters->changelog_splits += 1;
        options.counters->data_files += reads.data_files;
        options.counters->delete_files += reads.delete_files;
      }
      const size_t skip = std::min(changes.size(), static_cast<size_t>(to_skip));
      next_change = skip;
      to_skip -= static_cast<int64_t>(skip);
    }
    RowChunk chunk;
    size_t consumed = 0;
    while (next_change < changes.size() && chunk.rows < static_cast<int64_t>(options.batch_rows)) {
      const size_t n = AppendChange(next_change, &chunk.text);
      next_change += n;
      consumed += n;
      chunk.text.push_back('\n');
      ++chunk.rows;
    }
    if (chunk.rows > 0) {
      // The position counts changes, so an update pair is never cut in two.
      current->position += static_cast<int64_t>(consumed);
      FLOE_RETURN_IF_ERROR(out.Emit(std::move(chunk)));
    }
    if (next_change >= changes.size()) {
      changes.clear();
      next_change = 0;
      current.reset();
      enumerator->Done(subtask);
    }
    return true;
  }

  Result<const ReadSchema*> SchemaFor(int32_t id) {
    auto it = schemas.find(id);
    if (it != schemas.end()) return &it->second;
    std::shared_ptr<const types::Schema> table = enumerator->Schema(id);
    if (table == nullptr) return Corruption("schema {} of a split is not in the table", id);
    ReadSchema rs;
    rs.table = table;
    FLOE_ASSIGN_OR_RETURN(rs.projected,
                          iceberg::ProjectColumns(*table, options.columns, options.case_sensitive));
    rs.filter = iceberg::Expression::True();
    if (options.filter != nullptr) {
      FLOE_ASSIGN_OR_RETURN(rs.filter,
                            iceberg::Bind(options.filter, *table, options.case_sensitive));
    }
    ReadSchema& stored = schemas.emplace(id, std::move(rs)).first->second;
    stored.json.emplace(stored.projected);  // the map's nodes do not move
    return &stored;
  }

  /// Emits up to one batch of the current split; ends it when its last file is read.
  Result<bool> ReadSome(engine::Collector<RowChunk>& out) {
    if (current->split.changelog) return EmitChanges(out);
    while (true) {
      if (reader == nullptr) {
        if (task_index >= current->split.tasks.size()) {
          current.reset();
          enumerator->Done(subtask);
          return true;
        }
        const iceberg::FileScanTask& task = current->split.tasks[task_index];
        iceberg::DataReaderOptions ro;
        ro.batch_rows = options.batch_rows;
        ro.parquet.borrow_bytes = true;  // each batch is printed before the next is read
        const FileRange range = current->split.RangeOf(task_index);
        ro.split_start = range.start;
        ro.split_end = range.end;
        FLOE_ASSIGN_OR_RETURN(
            reader, iceberg::DataReader::Open(*io, task, *schema->table, schema->projected,
                                              schema->filter, ro));
        if (options.counters) {
          options.counters->data_files += 1;
          options.counters->delete_files += static_cast<int64_t>(task.deletes.size());
        }
      }
      arena.Reset();
      values.clear();
      FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, &values));
      if (n == 0) {
        reader.reset();
        ++task_index;
        continue;
      }
      const size_t width = schema->projected.fields().size();
      RowChunk chunk;
      // About the size of the last chunk: the text is not regrown row by row.
      chunk.text.reserve(last_chunk_bytes + last_chunk_bytes / 8);
      const types::JsonRowWriter& json = *schema->json;
      for (size_t r = 0; r < n; ++r) {
        if (to_skip > 0) {
          --to_skip;
          continue;
        }
        const types::Row row(values.data() + r * width, width);
        if (options.format == OutputFormat::kDebeziumJson) {
          row_json.clear();
          json.Append(row, &row_json);
          AppendDebeziumEvent(current->split.whole_table ? 'r' : 'c', "", row_json, origin,
                              &chunk.text);
        } else if (options.changelog) {
          row_json.clear();
          json.Append(row, &row_json);
          AppendChangeJson(ChangeKind::kInsert, current->split.snapshot_id, row_json, &chunk.text);
        } else {
          json.Append(row, &chunk.text);
        }
        chunk.text.push_back('\n');
        ++chunk.rows;
      }
      if (chunk.rows == 0) continue;  // skipped rows of a restored split
      last_chunk_bytes = chunk.text.size();
      current->position += chunk.rows;
      FLOE_RETURN_IF_ERROR(out.Emit(std::move(chunk)));
      return true;
    }
  }
};

IcebergSplitReader::IcebergSplitReader(std::shared_ptr<SplitEnumerator> enumerator, io::FileIO* io,
                                       SplitReaderOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->enumerator = std::move(enumerator);
  impl_->io = io;
  impl_->options = std::move(options);
}

IcebergSplitReader::~IcebergSplitReader() = default;

Status IcebergSplitReader::Open(const engine::OperatorContext& context,
                                const engine::RestoredState& state) {
  // The restored state was handed to the enumerator before the job started.
  impl_->subtask = context.subtask;
  if (state.checkpoint_id != impl_->options.restored_checkpoint) {
    return InternalError("the job restored checkpoint {}, the split enumerator checkpoint {}",
                         state.checkpoint_id, impl_->options.restored_checkpoint);
  }
  return Ok();
}

Result<bool> IcebergSplitReader::Poll(engine::Collector<RowChunk>& out) {
  Impl& m = *impl_;
  if (!m.current) {
    bool finished = false;
    FLOE_ASSIGN_OR_RETURN(auto next, m.enumerator->Next(m.subtask, &finished));
    if (!next) {
      if (finished) return false;
      m.enumerator->Wait(m.options.idle_wait);
      return true;
    }
    FLOE_ASSIGN_OR_RETURN(m.schema, m.SchemaFor(next->split.schema_id));
    if (m.options.counters) m.options.counters->splits += 1;
    m.current = std::move(next);
    m.SetOrigin();
    m.to_skip = m.current->position;
    m.current->position = 0;
    m.task_index = 0;
    m.reader.reset();
  }
  // Skipped rows count as emitted again: the position only grows past them.
  const int64_t skip_before = m.to_skip;
  auto more = m.ReadSome(out);
  if (m.current) m.current->position += skip_before - m.to_skip;
  return more;
}

Result<std::string> IcebergSplitReader::SnapshotState(engine::CheckpointId id) {
  return impl_->enumerator->SnapshotState(impl_->subtask, id, impl_->current);
}

}  // namespace floe::source
