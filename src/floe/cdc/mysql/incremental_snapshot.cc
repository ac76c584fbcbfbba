#include "floe/cdc/mysql/incremental_snapshot.h"
#include "floe/cdc/mysql/sql_quote.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "floe/cdc/mysql/binlog_row_image.h"
#include "floe/cdc/mysql/snapshot.h"

namespace floe::cdc::mysql {
namespace {

using types::Value;

uint32_t CollationForCharset(std::string_view charset) {
  if (charset == "latin1") return 8;
  if (charset == "utf8mb3" || charset == "utf8") return 33;
  if (charset == "binary") return 63;
  if (charset == "ascii") return 11;
  if (charset == "ucs2") return 35;
  if (charset == "utf16") return 54;
  if (charset == "utf16le") return 56;
  if (charset == "utf32") return 60;
  return 45;  // utf8mb4
}

int CompareValue(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  auto as_int = [](const Value& v) -> types::int128_t {
    switch (v.kind) {
      case Value::Kind::kBool:
        return v.b ? 1 : 0;
      case Value::Kind::kInt32:
        return v.i32;
      case Value::Kind::kInt64:
        return v.i64;
      default:
        return v.decimal;
    }
  };
  switch (a.kind) {
    case Value::Kind::kBool:
    case Value::Kind::kInt32:
    case Value::Kind::kInt64:
    case Value::Kind::kDecimal:
      return cmp(as_int(a), as_int(b));
    case Value::Kind::kFloat:
      return cmp(a.f32, b.f32);
    case Value::Kind::kDouble:
      return cmp(a.f64, b.f64);
    case Value::Kind::kBytes:
      return cmp(a.as_bytes(), b.as_bytes());
    default:
      return 0;
  }
}

// The in-memory bytes of `x` (the key bytes only ever meet this process's).
template <typename T>
void AppendRaw(const T& x, std::string* out) {
  out->append(reinterpret_cast<const char*>(&x), sizeof(T));
}

// Type-tagged bytes of a key: equal keys, equal bytes.
void AppendKey(types::Row row, const std::vector<int>& pk, std::string* out) {
  out->clear();
  for (int i : pk) {
    const Value& v = row[static_cast<size_t>(i)];
    out->push_back(static_cast<char>(v.kind));
    switch (v.kind) {
      case Value::Kind::kBool:
        out->push_back(v.b ? 1 : 0);
        break;
      case Value::Kind::kInt32:
        AppendRaw(v.i32, out);
        break;
      case Value::Kind::kInt64:
        AppendRaw(v.i64, out);
        break;
      case Value::Kind::kFloat:
        AppendRaw(v.f32, out);
        break;
      case Value::Kind::kDouble:
        AppendRaw(v.f64, out);
        break;
      case Value::Kind::kDecimal:
        AppendRaw(v.decimal, out);
        break;
      case Value::Kind::kBytes:
        AppendRaw(v.size, out);
        out->append(v.as_bytes());
        break;
      default:
        break;
    }
  }
}

// Compares row[pk] with a bound (values in key order).
int CompareRowKey(types::Row row, const std::vector<int>& pk, std::span<const Value> bound) {
  for (size_t k = 0; k < pk.size(); ++k) {
    int c = CompareValue(row[static_cast<size_t>(pk[k])], bound[k]);
    if (c != 0) return c;
  }
  return 0;
}

std::vector<int> KeyIndexes(const TableSchema& schema) {
  std::vector<int> pk;
  for (const auto& k : schema.primary_key) pk.push_back(schema.FindColumnIndex(k));
  return pk;
}

// "(a > x OR (a = x AND (b > y OR (b = y AND c >= z))))" for op ">=", or the
// "<" form: the tuple comparison (a, b, c) op (x, y, z) in a shape every
// server's range optimizer understands.
std::string TupleCompare(const std::vector<std::string>& cols, const std::vector<std::string>& vals,
                         bool greater, size_t k = 0) {
  const std::string c = cols[k], v = QuoteLiteral(vals[k]);
  if (k + 1 == cols.size()) return c + (greater ? " >= " : " < ") + v;
  return "(" + c + (greater ? " > " : " < ") + v + " OR (" + c + " = " + v + " AND " +
         TupleCompare(cols, vals, greater, k + 1) + "))";
}

Result<std::vector<Value>> ParseBound(const TableSchema& schema, const std::vector<int>& pk,
                                      const std::vector<std::string>& text, Arena* arena) {
  if (text.size() != pk.size()) {
    return InvalidArgument("{}.{}: a chunk bound has {} values, the primary key {} columns",
                           schema.db, schema.table, text.size(), pk.size());
  }
  std::vector<Value> out;
  for (size_t k = 0; k < pk.size(); ++k) {
    FLOE_ASSIGN_OR_RETURN(Value v, ParseSelectedValue(schema.columns[static_cast<size_t>(pk[k])],
                                                      text[k].data(), text[k].size(), arena));
    out.push_back(v);
  }
  return out;
}

// The end of the binlog (SHOW MASTER STATUS), without GTIDs.
Result<BinlogFilePos> BinlogEnd(Connection& conn) {
  FLOE_ASSIGN_OR_RETURN(auto rows, conn.Query("SHOW MASTER STATUS"));
  if (rows.empty() || rows[0].size() < 2 || !rows[0][0] || !rows[0][1]) {
    return InvalidArgument("{}:{}: SHOW MASTER STATUS returned nothing (is log_bin on?)",
                           conn.options().host, conn.options().port);
  }
  return BinlogFilePos{*rows[0][0], std::stoull(*rows[0][1])};
}

// A low watermark: a binlog position such that every transaction before it
// is visible to a statement started afterwards. On MariaDB the position of a
// consistent snapshot (binlog_snapshot_position is consistent with what the
// snapshot sees, so no transaction written to the binlog but not yet
// committed in the engine can precede it); on MySQL the end of the binlog.
Result<BinlogFilePos> LowWatermark(Connection& conn) {
  if (!conn.is_mariadb()) return BinlogEnd(conn);
  FLOE_RETURN_IF_ERROR(conn.Execute("START TRANSACTION WITH CONSISTENT SNAPSHOT"));
  auto rows = conn.Query("SHOW STATUS LIKE 'binlog_snapshot_%'");
  FLOE_RETURN_IF_ERROR(conn.Execute("COMMIT"));
  if (!rows) return std::unexpected(rows.error());
  BinlogFilePos pos;
  for (const auto& r : *rows) {
    if (r.size() < 2 || !r[0] || !r[1]) continue;
    if (*r[0] == "Binlog_snapshot_file") pos.file = *r[1];
    if (*r[0] == "Binlog_snapshot_position") pos.pos = std::stoull(*r[1]);
  }
  if (pos.file.empty()) return BinlogEnd(conn);
  return pos;
}

struct ChunkTask {
  size_t table = 0;
  std::optional<std::vector<std::string>> lo, hi;
  bool last = false;
};

struct ChunkOutput {
  ChangeBatch batch;
  BinlogFilePos high_watermark;
  bool reconciled = false;
};

struct Worker {
  std::unique_ptr<Connection> conn;
  uint32_t server_id = 0;
  RowImageDecoder rows;
  std::string key;
};

class ChunkReader {
 public:
  ChunkReader(const IncrementalSnapshotOptions& options, const std::vector<SnapshotTable>& tables,
              std::shared_ptr<const ChangeSource> source)
      : options_(options), tables_(tables), source_(std::move(source)) {}

  Result<ChunkOutput> Read(Worker& w, const ChunkTask& task) {
    const TableSchema& schema = *tables_[task.table].schema;
    const TableDefinitionPtr& def = tables_[task.table].definition;
    const std::vector<int> pk = KeyIndexes(schema);
    std::vector<std::string> pk_cols;
    for (int i : pk) pk_cols.push_back(QuoteId(schema.columns[static_cast<size_t>(i)].name));
    std::string cols;
    for (size_t i = 0; i < schema.columns.size(); ++i) {
      if (i) cols += ", ";
      cols += QuoteId(schema.columns[i].name);
    }
    std::string sql =
        "SELECT " + cols + " FROM " + QuoteId(schema.db) + "." + QuoteId(schema.table);
    std::string where;
    if (task.lo) where = TupleCompare(pk_cols, *task.lo, true);
    if (task.hi) where += (where.empty() ? "" : " AND ") + TupleCompare(pk_cols, *task.hi, false);
    if (!where.empty()) sql += " WHERE " + where;
    sql += " ORDER BY ";
    for (size_t k = 0; k < pk_cols.size(); ++k) sql += (k ? ", " : "") + pk_cols[k];

    ChunkOutput out;
    Connection& c = *w.conn;
    FLOE_ASSIGN_OR_RETURN(BinlogFilePos low, LowWatermark(c));
    const size_t n = schema.columns.size();
    FLOE_RETURN_IF_ERROR(c.QueryStream(
        sql, [&](MYSQL_ROW row, const unsigned long* lengths, unsigned fields) -> Status {
          if (fields != n) {
            return InternalError("snapshot of {}.{}: {} columns selected, schema has {}", schema.db,
                                 schema.table, fields, n);
          }
          auto* values = out.batch.arena->AllocateArray<Value>(n);
          for (size_t i = 0; i < n; ++i) {
            FLOE_ASSIGN_OR_RETURN(Value v, ParseSelectedValue(schema.columns[i], row[i], lengths[i],
                                                              out.batch.arena.get()));
            new (&values[i]) Value(v);
          }
          RowChange rc;
          rc.op = ChangeOp::kRead;
          rc.table = def;
          rc.after = {values, n};
          rc.source = source_;
          out.batch.events.emplace_back(std::move(rc));
          return Ok();
        }));
    FLOE_ASSIGN_OR_RETURN(out.high_watermark, BinlogEnd(c));
    if (Compare(low, out.high_watermark) >= 0) return out;  // nothing committed in between
    FLOE_RETURN_IF_ERROR(Reconcile(w, schema, def, pk, task, low, &out));
    return out;
  }

 private:
  // Reads the binlog from `low` to `out->high_watermark` and patches the
  // chunk with the table's row events whose key is in [lo, hi).
  Status Reconcile(Worker& w, const TableSchema& schema, const TableDefinitionPtr& def,
                   const std::vector<int>& pk, const ChunkTask& task, const BinlogFilePos& low,
                   ChunkOutput* out) {
    Arena* arena = out->batch.arena.get();
    std::optional<std::vector<Value>> lo, hi;
    if (task.lo) {
      FLOE_ASSIGN_OR_RETURN(lo, ParseBound(schema, pk, *task.lo, arena));
    }
    if (task.hi) {
      FLOE_ASSIGN_OR_RETURN(hi, ParseBound(schema, pk, *task.hi, arena));
    }
    auto in_range = [&](types::Row row) {
      if (lo && CompareRowKey(row, pk, *lo) < 0) return false;
      if (hi && CompareRowKey(row, pk, *hi) >= 0) return false;
      return true;
    };
    // key -> the row as of the high watermark (nullopt: deleted).
    std::unordered_map<std::string, std::optional<types::Row>> patches;
    StreamOptions so{options_.connection, w.server_id, 0, true};
    SourcePosition start;
    start.binlog = low;
    FLOE_ASSIGN_OR_RETURN(auto stream, BinlogStream::Open(so, start));
    BinlogDecoderOptions dopts;
    dopts.initial_checksum = stream->server_uses_crc32() ? ChecksumAlg::kCrc32 : ChecksumAlg::kOff;
    BinlogDecoder decoder(dopts);
    decoder.set_current_file(low.file);
    const BinlogFilePos& high = out->high_watermark;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto bytes, stream->Next());
      if (!bytes) break;  // end of the binlog: the high watermark was its end
      FLOE_ASSIGN_OR_RETURN(BinlogEvent ev, decoder.Decode(*bytes));
      if (ev.header.log_pos != 0 &&
          Compare(BinlogFilePos{decoder.current_file(), ev.position}, high) >= 0) {
        break;
      }
      const uint8_t type = ev.header.type;
      if (type == event_type::kTableMap) {
        const TableMapEvent* t = std::get<const TableMapEvent*>(ev.body);
        if (t->db != schema.db || t->table != schema.table) continue;
        const std::string where = fmt::format("{}:{}", decoder.current_file(), ev.position);
        if (t->columns.size() != schema.columns.size()) {
          return SchemaIncompatible(
              "binlog {}: table {}.{} has {} columns in the binlog but had {} when its snapshot "
              "started: a DDL ran on it during the snapshot; restart the capture (a new "
              "snapshot)",
              where, schema.db, schema.table, t->columns.size(), schema.columns.size());
        }
        CompleteTableMap(decoder.MutableTable(t->table_id), schema);
        continue;
      }
      if (type == event_type::kQuery) {
        continue;
      }
      if (!std::holds_alternative<RowsEvent>(ev.body)) continue;
      const RowsEvent& re = std::get<RowsEvent>(ev.body);
      FLOE_ASSIGN_OR_RETURN(const TableMapEvent* t, decoder.FindTable(re.table_id));
      if (t->db != schema.db || t->table != schema.table) continue;
      const std::string where = fmt::format("{}:{}", decoder.current_file(), ev.position);
      FLOE_RETURN_IF_ERROR(w.rows.Reset(*t, re, where));
      while (true) {
        types::Row before, after;
        FLOE_ASSIGN_OR_RETURN(bool more, w.rows.Next(arena, &before, &after));
        if (!more) break;
        // Events in order: the last one of a key wins, whatever the SELECT saw.
        if (!before.empty() && in_range(before)) {
          AppendKey(before, pk, &w.key);
          patches[w.key] = std::nullopt;
        }
        if (!after.empty() && in_range(after)) {
          AppendKey(after, pk, &w.key);
          patches[w.key] = after;
        }
      }
    }
    if (patches.empty()) return Ok();
    out->reconciled = true;
    std::vector<ChangeEvent> events;
    events.reserve(out->batch.events.size() + patches.size());
    for (auto& e : out->batch.events) {
      auto& rc = std::get<RowChange>(e);
      AppendKey(rc.after, pk, &w.key);
      auto it = patches.find(w.key);
      if (it == patches.end()) {
        events.push_back(std::move(e));
        continue;
      }
      if (it->second) {
        rc.after = *it->second;
        events.push_back(std::move(e));
      }
      patches.erase(it);
    }
    // Keys the SELECT did not see (inserted in the window), in key order.
    std::vector<types::Row> inserted;
    for (const auto& [key, row] : patches) {
      if (row) inserted.push_back(*row);
    }
    std::sort(inserted.begin(), inserted.end(), [&](types::Row a, types::Row b) {
      for (int i : pk) {
        int c = CompareValue(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)]);
        if (c != 0) return c < 0;
      }
      return false;
    });
    for (types::Row row : inserted) {
      RowChange rc;
      rc.op = ChangeOp::kRead;
      rc.table = def;
      rc.after = row;
      rc.source = source_;
      events.emplace_back(std::move(rc));
    }
    out->batch.events = std::move(events);
    return Ok();
  }

  const IncrementalSnapshotOptions& options_;
  const std::vector<SnapshotTable>& tables_;
  std::shared_ptr<const ChangeSource> source_;
};

// A fixed pool of workers, each with its own connection, running chunk reads.
class WorkerPool {
 public:
  WorkerPool(std::vector<Worker> workers, ChunkReader* reader) : reader_(reader) {
    workers_ = std::move(workers);
    for (size_t i = 0; i < workers_.size(); ++i) {
      threads_.emplace_back([this, i] { Loop(workers_[i]); });
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  std::future<Result<ChunkOutput>> Submit(ChunkTask task) {
    std::promise<Result<ChunkOutput>> promise;
    auto future = promise.get_future();
    {
      std::lock_guard lock(mu_);
      queue_.push_back({std::move(task), std::move(promise)});
    }
    cv_.notify_one();
    return future;
  }

 private:
  struct Job {
    ChunkTask task;
    std::promise<Result<ChunkOutput>> promise;
  };
  void Loop(Worker& w) {
    while (true) {
      Job job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job.promise.set_value(reader_->Read(w, job.task));
    }
  }

  ChunkReader* reader_;
  std::vector<Worker> workers_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool stop_ = false;
};

// The key of the row `chunk_rows` rows past `lo` (or past the start), i.e.
// the upper bound of the chunk starting at `lo`; nullopt when fewer rows remain.
Result<std::optional<std::vector<std::string>>> SplitPoint(
    Connection& conn, const TableSchema& schema, const std::optional<std::vector<std::string>>& lo,
    size_t chunk_rows) {
  std::vector<std::string> pk_cols;
  for (int i : KeyIndexes(schema))
    pk_cols.push_back(QuoteId(schema.columns[static_cast<size_t>(i)].name));
  std::string list;
  for (size_t k = 0; k < pk_cols.size(); ++k) list += (k ? ", " : "") + pk_cols[k];
  std::string sql = "SELECT " + list + " FROM " + QuoteId(schema.db) + "." + QuoteId(schema.table);
  if (lo) sql += " WHERE " + TupleCompare(pk_cols, *lo, true);
  sql += fmt::format(" ORDER BY {} LIMIT 1 OFFSET {}", list, chunk_rows);
  FLOE_ASSIGN_OR_RETURN(auto rows, conn.Query(sql));
  if (rows.empty()) return std::optional<std::vector<std::string>>();
  std::vector<std::string> key;
  for (const auto& v : rows[0]) {
    if (!v) return InternalError("{}.{}: a primary-key value is NULL", schema.db, schema.table);
    key.push_back(*v);
  }
  return std::optional<std::vector<std::string>>(std::move(key));
}

}  // namespace

bool PrimaryKeyIsChunkable(const TableSchema& schema) {
  if (schema.primary_key.empty()) return false;
  for (const auto& k : schema.primary_key) {
    int i = schema.FindColumnIndex(k);
    if (i < 0) return false;
    const ColumnDef& c = schema.columns[static_cast<size_t>(i)];
    const bool decimal_as_number = c.type == MysqlType::kDecimal && c.precision.value_or(10) <= 38;
    if (!IsIntegerType(c.type) && !IsTemporalType(c.type) && !decimal_as_number) return false;
  }
  return true;
}

int CompareKeys(std::span<const Value> a, std::span<const Value> b) {
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    int c = CompareValue(a[k], b[k]);
    if (c != 0) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

void CompleteTableMap(TableMapEvent* mt, const TableSchema& s) {
  if (!mt || mt->columns.size() != s.columns.size()) return;
  for (size_t i = 0; i < s.columns.size(); ++i) {
    ColumnInfo& ci = mt->columns[i];
    const ColumnDef& cd = s.columns[i];
    ci.name = cd.name;
    if (!mt->has_signedness) ci.is_unsigned = cd.is_unsigned;
    if (ci.enum_values.empty()) ci.enum_values = cd.enum_values;
    if (ci.collation == 0 && (IsTextType(cd.type) || IsBinaryType(cd.type))) {
      ci.collation = IsBinaryType(cd.type) ? 63 : CollationForCharset(s.EffectiveCharset(cd));
    }
  }
}

// ---- SnapshotFilter ----

Status SnapshotFilter::AddTable(const TableSchema& schema, std::vector<Chunk> chunks) {
  TableChunks t;
  t.pk = KeyIndexes(schema);
  for (const auto& c : chunks) {
    if (c.hi) {
      FLOE_ASSIGN_OR_RETURN(auto v, ParseBound(schema, t.pk, *c.hi, arena_.get()));
      t.hi_values.push_back(std::move(v));
    } else {
      t.hi_values.emplace_back();
    }
    if (end_.empty() || Compare(c.high_watermark, end_) > 0) end_ = c.high_watermark;
  }
  t.chunks = std::move(chunks);
  tables_[{schema.db, schema.table}] = std::move(t);
  return Ok();
}

Status SnapshotFilter::Merge(SnapshotFilter other) {
  for (auto& [key, chunks] : other.tables_) {
    if (tables_.contains(key)) {
      return InvalidArgument("snapshot filter: table {}.{} is in both filters", key.first,
                             key.second);
    }
  }
  for (auto& [key, chunks] : other.tables_) tables_.emplace(key, std::move(chunks));
  if (!other.end_.empty() && (end_.empty() || Compare(other.end_, end_) > 0)) end_ = other.end_;
  merged_arenas_.push_back(std::move(other.arena_));
  for (auto& a : other.merged_arenas_) merged_arenas_.push_back(std::move(a));
  return Ok();
}

bool SnapshotFilter::After(const TableChunks& t, types::Row row, const BinlogFilePos& pos) const {
  // The first chunk whose upper bound is above the key (the last is unbounded).
  size_t lo = 0, hi = t.chunks.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (!t.chunks[mid].hi || CompareRowKey(row, t.pk, t.hi_values[mid]) < 0) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  if (lo >= t.chunks.size()) return true;
  return Compare(pos, t.chunks[lo].high_watermark) >= 0;
}

SnapshotFilter::Decision SnapshotFilter::Decide(std::string_view db, std::string_view table,
                                                types::Row before, types::Row after,
                                                const BinlogFilePos& pos) const {
  if (tables_.empty() || Compare(pos, end_) >= 0) return Decision::kEmit;
  auto it = tables_.find({std::string(db), std::string(table)});
  if (it == tables_.end()) return Decision::kEmit;
  const TableChunks& t = it->second;
  for (int i : t.pk) {
    if (static_cast<size_t>(i) >= std::max(before.size(), after.size())) return Decision::kEmit;
  }
  bool b = !before.empty() && After(t, before, pos);
  bool a = !after.empty() && After(t, after, pos);
  if (before.empty()) return a ? Decision::kEmit : Decision::kSkip;
  if (after.empty()) return b ? Decision::kEmit : Decision::kSkip;
  if (a && b) return Decision::kEmit;
  if (a) return Decision::kEmitInsert;
  if (b) return Decision::kEmitDelete;
  return Decision::kSkip;
}

nlohmann::json SnapshotFilter::ToJson() const {
  nlohmann::json tables = nlohmann::json::array();
  for (const auto& [name, t] : tables_) {
    nlohmann::json chunks = nlohmann::json::array();
    for (const auto& c : t.chunks) {
      nlohmann::json j;
      j["hi"] = c.hi ? nlohmann::json(*c.hi) : nlohmann::json(nullptr);
      j["hw"] = c.high_watermark.ToString();
      chunks.push_back(std::move(j));
    }
    tables.push_back({{"db", name.first}, {"table", name.second}, {"chunks", std::move(chunks)}});
  }
  return {{"tables", std::move(tables)}};
}

Result<SnapshotFilter> SnapshotFilter::FromJson(
    const nlohmann::json& json,
    const std::function<const TableSchema*(std::string_view, std::string_view)>& schema_of) {
  SnapshotFilter f;
  if (!json.is_object() || !json.contains("tables") || !json["tables"].is_array()) {
    return InvalidArgument("snapshot_filter: expected an object with a 'tables' array");
  }
  for (const auto& t : json["tables"]) {
    if (!t.is_object() || !t.contains("db") || !t.contains("table") || !t.contains("chunks") ||
        !t["db"].is_string() || !t["table"].is_string() || !t["chunks"].is_array()) {
      return InvalidArgument("snapshot_filter: a table entry lacks db, table or chunks");
    }
    std::string db = t["db"], table = t["table"];
    const TableSchema* schema = schema_of(db, table);
    if (!schema) {
      return InvalidArgument("snapshot_filter: table {}.{} has no schema in the state", db, table);
    }
    std::vector<Chunk> chunks;
    for (const auto& c : t["chunks"]) {
      Chunk chunk;
      if (!c.is_object() || !c.contains("hw") || !c["hw"].is_string()) {
        return InvalidArgument("snapshot_filter: a chunk of {}.{} lacks 'hw'", db, table);
      }
      FLOE_ASSIGN_OR_RETURN(chunk.high_watermark, BinlogFilePos::Parse(c["hw"].get<std::string>()));
      if (c.contains("hi") && c["hi"].is_array()) {
        std::vector<std::string> hi;
        for (const auto& v : c["hi"]) {
          if (!v.is_string())
            return InvalidArgument("snapshot_filter: a bound of {}.{} is not text", db, table);
          hi.push_back(v.get<std::string>());
        }
        chunk.hi = std::move(hi);
      }
      chunks.push_back(std::move(chunk));
    }
    FLOE_RETURN_IF_ERROR(f.AddTable(*schema, std::move(chunks)));
  }
  return f;
}

// ---- The snapshot ----

Result<IncrementalSnapshotResult> RunIncrementalSnapshot(
    const IncrementalSnapshotOptions& options, Connection& meta,
    const std::vector<SnapshotTable>& tables, const std::function<Status(ChangeBatch&)>& sink) {
  IncrementalSnapshotResult result;
  if (options.start) {
    result.start = *options.start;
  } else {
    FLOE_ASSIGN_OR_RETURN(result.start, CurrentPosition(meta));
  }
  spdlog::info(
      "snapshot: streaming will start at binlog {}; {} tables, {} chunk readers, {} rows "
      "per chunk",
      result.start.binlog.ToString(), tables.size(), options.parallelism, options.chunk_rows);
  auto source = std::make_shared<ChangeSource>();
  source->position = result.start;
  source->snapshot = "true";
  auto last_source = std::make_shared<ChangeSource>(*source);
  last_source->snapshot = "last_in_data_collection";

  const size_t chunk_rows = std::max<size_t>(options.chunk_rows, 1);
  const int parallelism = std::max(options.parallelism, 1);
  ChunkReader reader(options, tables, source);
  std::vector<Worker> workers;
  for (int i = 0; i < parallelism; ++i) {
    Worker w;
    FLOE_ASSIGN_OR_RETURN(w.conn, Connection::Open(options.connection));
    FLOE_RETURN_IF_ERROR(w.conn->Execute("SET SESSION time_zone = '+00:00'"));
    w.server_id = options.first_server_id + static_cast<uint32_t>(i);
    workers.push_back(std::move(w));
  }
  WorkerPool pool(std::move(workers), &reader);

  struct Pending {
    ChunkTask task;
    std::future<Result<ChunkOutput>> future;
  };
  std::deque<Pending> pending;
  // Per table: the chunks' bounds and watermarks for the filter.
  std::vector<std::vector<SnapshotFilter::Chunk>> filter_chunks(tables.size());
  std::optional<ChangeBatch> held;  // the last non-empty batch of the current table
  auto mark_last = [&](ChangeBatch& b) {
    std::get<RowChange>(b.events.back()).source = last_source;
  };
  auto emit_front = [&]() -> Status {
    Pending p = std::move(pending.front());
    pending.pop_front();
    FLOE_ASSIGN_OR_RETURN(ChunkOutput out, p.future.get());
    ++result.chunks;
    if (out.reconciled) ++result.reconciled_chunks;
    filter_chunks[p.task.table].push_back({p.task.hi, out.high_watermark});
    result.rows += out.batch.events.size();
    if (!out.batch.events.empty()) {
      if (held) FLOE_RETURN_IF_ERROR(sink(*held));
      held = std::move(out.batch);
    }
    if (p.task.last) {
      if (held) {
        mark_last(*held);
        FLOE_RETURN_IF_ERROR(sink(*held));
        held.reset();
      }
      const TableSchema& s = *tables[p.task.table].schema;
      FLOE_RETURN_IF_ERROR(result.filter.AddTable(s, std::move(filter_chunks[p.task.table])));
      spdlog::info("snapshot: {}.{} done", s.db, s.table);
    }
    return Ok();
  };
  const size_t window = static_cast<size_t>(parallelism) * 2;
  for (size_t ti = 0; ti < tables.size(); ++ti) {
    const TableSchema& schema = *tables[ti].schema;
    if (!PrimaryKeyIsChunkable(schema)) {
      while (!pending.empty()) FLOE_RETURN_IF_ERROR(emit_front());
      if (schema.primary_key.empty()) {
        spdlog::warn(
            "snapshot: table {}.{} has no primary key: reading it in one piece under a "
            "consistent-snapshot transaction (not chunked, not parallel)",
            schema.db, schema.table);
      } else {
        spdlog::warn(
            "snapshot: table {}.{}: its primary key has columns floe cannot order like "
            "the server (strings, binary, ENUM, ...): reading it under one "
            "consistent-snapshot transaction (not parallel)",
            schema.db, schema.table);
      }
      SnapshotOptions so;
      so.chunk_rows = chunk_rows;
      FLOE_ASSIGN_OR_RETURN(auto snap, Snapshot::Open(options.connection, so));
      uint64_t rows = 0;
      FLOE_RETURN_IF_ERROR(
          snap->ReadTable(schema, tables[ti].definition, [&](ChangeBatch& b) -> Status {
            rows += b.events.size();
            return sink(b);
          }));
      FLOE_RETURN_IF_ERROR(snap->Close());
      result.rows += rows;
      ++result.chunks;
      // One unbounded chunk: every event of the table before the snapshot
      // point is in the snapshot (no key needed to tell).
      FLOE_RETURN_IF_ERROR(
          result.filter.AddTable(schema, {{std::nullopt, snap->position().binlog}}));
      continue;
    }
    std::optional<std::vector<std::string>> lo;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(auto hi, SplitPoint(meta, schema, lo, chunk_rows));
      ChunkTask task{ti, lo, hi, !hi.has_value()};
      while (pending.size() >= window) FLOE_RETURN_IF_ERROR(emit_front());
      pending.push_back({task, pool.Submit(task)});
      if (!hi) break;
      lo = std::move(hi);
    }
  }
  while (!pending.empty()) FLOE_RETURN_IF_ERROR(emit_front());
  spdlog::info(
      "snapshot: {} rows in {} chunks ({} reconciled with their binlog window); "
      "streaming from {}",
      result.rows, result.chunks, result.reconciled_chunks, result.start.binlog.ToString());
  return result;
}

}  // namespace floe::cdc::mysql
