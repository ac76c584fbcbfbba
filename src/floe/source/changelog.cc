#include "floe/source/changelog.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "floe/common/arena.h"
#include "floe/iceberg/data/data_reader.h"
#include "floe/iceberg/data/table_scan.h"
#include "floe/types/row_json.h"
#include "floe/types/row_json_writer.h"

namespace floe::source {
namespace {

struct Row {
  std::string json;  ///< the whole row: what is compared
  std::string key;   ///< identifier field values as JSON; empty without identifier fields
  std::string out;   ///< the printed columns (empty: `json`)
};

/// The printed columns: their schema and their index in the whole row.
struct Printed {
  types::Schema schema;
  std::vector<size_t> index;  ///< empty: every column
};

/// The live data files of one snapshot, by path, with their delete files.
Result<std::map<std::string, iceberg::FileScanTask>> Plan(io::FileIO& io,
                                                          const iceberg::TableMetadata& metadata,
                                                          iceberg::SnapshotId id) {
  iceberg::TableScanOptions o;
  o.snapshot_id = id;
  FLOE_ASSIGN_OR_RETURN(iceberg::TableScan scan, iceberg::TableScan::Make(io, metadata, o));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan.PlanFiles());
  std::map<std::string, iceberg::FileScanTask> by_path;
  for (auto& t : tasks) by_path.emplace(t.data_file.file_path, std::move(t));
  return by_path;
}

std::vector<std::string> DeletePaths(const iceberg::FileScanTask& task) {
  std::vector<std::string> paths;
  for (const auto& d : task.deletes) paths.push_back(d->file.file_path);
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// Every surviving row of `task`, read in `schema`.
Result<std::vector<Row>> ReadRows(io::FileIO& io, const iceberg::FileScanTask& task,
                                  const types::Schema& schema, const iceberg::ExprPtr& filter,
                                  const Printed& printed) {
  iceberg::DataReaderOptions options;
  options.parquet.borrow_bytes = true;  // each batch is turned into text before the next is read
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        iceberg::DataReader::Open(io, task, schema, schema, filter, options));
  const types::JsonRowWriter json(schema);
  std::optional<types::JsonRowWriter> printed_json;
  if (!printed.index.empty()) printed_json.emplace(printed.schema);
  std::vector<size_t> key_columns;
  for (int32_t id : schema.identifier_field_ids()) {
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      if (schema.fields()[i].id == id) key_columns.push_back(i);
    }
  }
  const size_t width = schema.fields().size();
  std::vector<Row> rows;
  Arena arena;
  std::vector<types::Value> values;
  std::vector<types::Value> picked(printed.index.size());
  while (true) {
    arena.Reset();
    values.clear();
    FLOE_ASSIGN_OR_RETURN(size_t n, reader->ReadBatch(&arena, &values));
    if (n == 0) break;
    for (size_t r = 0; r < n; ++r) {
      Row row;
      json.Append(types::Row(values.data() + r * width, width), &row.json);
      for (size_t c : key_columns) {
        types::AppendValueJson(*schema.fields()[c].type, values[r * width + c], &row.key);
        row.key.push_back(',');
      }
      if (!printed.index.empty()) {
        for (size_t k = 0; k < printed.index.size(); ++k) {
          picked[k] = values[r * width + printed.index[k]];
        }
        printed_json->Append(types::Row(picked.data(), picked.size()), &row.out);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

/// Rows of `a` not matched by an equal row of `b` (multiset difference), in order.
std::vector<Row> Minus(const std::vector<Row>& a, const std::vector<Row>& b) {
  std::unordered_map<std::string, int64_t> count;
  for (const Row& r : b) ++count[r.json];
  std::vector<Row> out;
  for (const Row& r : a) {
    auto it = count.find(r.json);
    if (it != count.end() && it->second > 0) {
      --it->second;
      continue;
    }
    out.push_back(r);
  }
  return out;
}

/// Rows of one data file read at the parent (`old_rows`) and at the snapshot
/// (`new_rows`), both in file order: when deletes were only added, the new
/// rows are a subsequence of the old ones and the rows deleted are the old
/// rows a greedy in-order match leaves over (moved to `*deleted`) — no
/// hashing of whole rows. Returns false, touching nothing, when the new rows
/// are not such a subsequence (a row came back).
bool DeletedInOrder(std::vector<Row>& old_rows, const std::vector<Row>& new_rows,
                    std::vector<Row>* deleted) {
  size_t j = 0;
  for (const Row& r : old_rows) {
    if (j < new_rows.size() && r.json == new_rows[j].json) ++j;
  }
  if (j != new_rows.size()) return false;
  j = 0;
  for (Row& r : old_rows) {
    if (j < new_rows.size() && r.json == new_rows[j].json) {
      ++j;
    } else {
      deleted->push_back(std::move(r));
    }
  }
  return true;
}

}  // namespace

std::string_view ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kInsert:
      return "insert";
    case ChangeKind::kDelete:
      return "delete";
    case ChangeKind::kUpdateBefore:
      return "update_before";
    case ChangeKind::kUpdateAfter:
      return "update_after";
  }
  return "?";
}

void AppendChangeJson(ChangeKind kind, iceberg::SnapshotId snapshot_id, std::string_view row,
                      std::string* out) {
  out->append("{\"op\":\"");
  out->append(ChangeKindName(kind));
  out->append("\",\"snapshot_id\":");
  out->append(std::to_string(snapshot_id));
  out->append(",\"row\":");
  out->append(row);
  out->push_back('}');
}

Result<std::vector<RowChangeLine>> ComputeChangelog(
    io::FileIO& io, const iceberg::TableMetadata& metadata,
    std::optional<iceberg::SnapshotId> parent_id, iceberg::SnapshotId snapshot_id,
    const iceberg::ExprPtr& filter, bool case_sensitive, const std::vector<std::string>& columns,
    ChangelogReads* reads) {
  ChangelogReads counted;
  const iceberg::Snapshot* snapshot = metadata.SnapshotById(snapshot_id);
  if (snapshot == nullptr) {
    return NotFound("snapshot {} is no longer in the table (expired)", snapshot_id);
  }
  if (parent_id && metadata.SnapshotById(*parent_id) == nullptr) {
    return NotFound(
        "snapshot {}, the parent of snapshot {}, is no longer in the table (expired): "
        "its changes cannot be derived",
        *parent_id, snapshot_id);
  }
  const types::Schema* schema =
      metadata.SchemaById(snapshot->schema_id.value_or(metadata.current_schema_id));
  if (schema == nullptr) return Corruption("snapshot {} names no schema", snapshot_id);
  Printed printed;
  if (!columns.empty()) {
    FLOE_ASSIGN_OR_RETURN(printed.schema,
                          iceberg::ProjectColumns(*schema, columns, case_sensitive));
    for (const auto& f : printed.schema.fields()) {
      for (size_t i = 0; i < schema->fields().size(); ++i) {
        if (schema->fields()[i].id == f.id) printed.index.push_back(i);
      }
    }
  }
  iceberg::ExprPtr bound = iceberg::Expression::True();
  if (filter != nullptr) {
    FLOE_ASSIGN_OR_RETURN(bound, iceberg::Bind(filter, *schema, case_sensitive));
  }

  FLOE_ASSIGN_OR_RETURN(auto after, Plan(io, metadata, snapshot_id));
  std::map<std::string, iceberg::FileScanTask> before;
  if (parent_id) {
    FLOE_ASSIGN_OR_RETURN(before, Plan(io, metadata, *parent_id));
  }

  std::vector<Row> deleted, inserted;
  std::set<std::string> paths;
  for (const auto& [path, task] : before) paths.insert(path);
  for (const auto& [path, task] : after) paths.insert(path);
  for (const std::string& path : paths) {
    auto b = before.find(path);
    auto a = after.find(path);
    if (b != before.end() && a != after.end() && DeletePaths(b->second) == DeletePaths(a->second)) {
      continue;  // the same rows on both sides
    }
    std::vector<Row> old_rows, new_rows;
    if (b != before.end()) {
      FLOE_ASSIGN_OR_RETURN(old_rows, ReadRows(io, b->second, *schema, bound, printed));
      ++counted.data_files;
      counted.delete_files += static_cast<int64_t>(b->second.deletes.size());
    }
    if (a != after.end()) {
      FLOE_ASSIGN_OR_RETURN(new_rows, ReadRows(io, a->second, *schema, bound, printed));
      ++counted.data_files;
      counted.delete_files += static_cast<int64_t>(a->second.deletes.size());
    }
    if (b != before.end() && a != after.end() && DeletedInOrder(old_rows, new_rows, &deleted)) {
      continue;
    }
    for (Row& r : Minus(old_rows, new_rows)) deleted.push_back(std::move(r));
    for (Row& r : Minus(new_rows, old_rows)) inserted.push_back(std::move(r));
  }
  // Rows moved unchanged to another file (copy-on-write) are not changes.
  std::vector<Row> gone = Minus(deleted, inserted);
  std::vector<Row> added = Minus(inserted, deleted);

  std::vector<RowChangeLine> changes;
  std::vector<bool> paired_added(added.size(), false);
  std::vector<std::pair<size_t, size_t>> updates;
  std::vector<size_t> deletes;
  std::unordered_map<std::string, std::vector<size_t>> added_by_key;
  if (!schema->identifier_field_ids().empty()) {
    for (size_t i = added.size(); i-- > 0;) added_by_key[added[i].key].push_back(i);
  }
  for (size_t i = 0; i < gone.size(); ++i) {
    auto it = added_by_key.find(gone[i].key);
    if (it != added_by_key.end() && !it->second.empty()) {
      updates.emplace_back(i, it->second.back());
      paired_added[it->second.back()] = true;
      it->second.pop_back();
    } else {
      deletes.push_back(i);
    }
  }
  auto text = [](Row& r) { return r.out.empty() ? std::move(r.json) : std::move(r.out); };
  for (size_t i : deletes) changes.push_back({ChangeKind::kDelete, text(gone[i])});
  for (auto [g, a] : updates) {
    changes.push_back({ChangeKind::kUpdateBefore, text(gone[g])});
    changes.push_back({ChangeKind::kUpdateAfter, text(added[a])});
  }
  for (size_t i = 0; i < added.size(); ++i) {
    if (!paired_added[i]) changes.push_back({ChangeKind::kInsert, text(added[i])});
  }
  if (reads != nullptr) {
    reads->data_files += counted.data_files;
    reads->delete_files += counted.delete_files;
  }
  return changes;
}

}  // namespace floe::source
