#include "floe/ingest/ingest_source.h"

#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/cdc/debezium_json_reader.h"
#include "floe/cdc/mysql/canal_json.h"
#include "floe/common/arena.h"
#include "floe/common/json_dump.h"
#include "floe/ingest/decode_pool.h"
#include "floe/ingest/line_source.h"
#include "floe/io/file_io.h"
#include "floe/sink/router.h"
#include "floe/sink/row_key.h"
#include "floe/types/row_json.h"

namespace floe::ingest {

using sink::RowKind;
using types::Row;
using types::Value;

Result<OnError> ParseOnError(std::string_view text) {
  if (text == "fail") return OnError::kFail;
  if (text == "skip") return OnError::kSkip;
  return InvalidArgument("unknown --on-error '{}' (use fail or skip)", text);
}

Status ValidateIngestSourceOptions(const IngestSourceOptions& options) {
  if (options.inputs.empty()) return InvalidArgument("no input given");
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    if (options.inputs[i] == kStandardInput && options.inputs.size() > 1) {
      return InvalidArgument("standard input ('-') cannot be combined with other inputs");
    }
  }
  if (options.on_error == OnError::kSkip && options.dead_letter_path.empty()) {
    return InvalidArgument("--on-error skip needs a dead-letter file");
  }
  if (options.format == InputFormat::kJson && !options.tables.table) {
    return InvalidArgument("--format json needs --table (plain rows name no source table)");
  }
  if (!options.sink.catalog) return InvalidArgument("no catalog");
  return ValidateTableResolverOptions(options.tables);
}

namespace {

/// Totals since the pipeline began (carried in the checkpoint state).
struct Totals {
  int64_t events = 0;
  int64_t rows = 0;
  int64_t skipped = 0;
  int64_t dead_letters = 0;
};

/// The checkpoint state of the source.
struct SourceState {
  size_t input_index = 0;
  std::string file;
  int64_t offset = 0;
  int64_t line = 0;
  int64_t dead_letter_bytes = 0;
  Totals totals;
  /// Primary keys announced by schema-change events (TableResolver::NotePrimaryKey).
  std::vector<NotedPrimaryKey> primary_keys;
};

std::string SerializeState(const SourceState& s, bool resumable) {
  nlohmann::json j;
  j["version"] = 1;
  j["input_index"] = s.input_index;
  j["file"] = s.file;
  j["offset"] = s.offset;
  j["line"] = s.line;
  // Standard input cannot be sought: a restart reads it from its start.
  j["resumable"] = resumable;
  j["dead_letter_bytes"] = s.dead_letter_bytes;
  j["counts"] = {{"events", s.totals.events},
                 {"rows", s.totals.rows},
                 {"skipped", s.totals.skipped},
                 {"dead_letters", s.totals.dead_letters}};
  if (!s.primary_keys.empty()) j["primary_keys"] = ingest::NotedPrimaryKeysToJson(s.primary_keys);
  return DumpJson(j);  // never throws on a name that is not UTF-8
}

Result<SourceState> ParseState(std::string_view text) {
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("version", 0) != 1) {
      return Corruption("ingest source state: unknown version in {}", std::string(text));
    }
    SourceState s;
    s.input_index = j.at("input_index").get<size_t>();
    s.file = j.at("file").get<std::string>();
    s.offset = j.at("offset").get<int64_t>();
    s.line = j.at("line").get<int64_t>();
    s.dead_letter_bytes = j.value("dead_letter_bytes", int64_t{0});
    if (auto c = j.find("counts"); c != j.end()) {
      s.totals.events = c->value("events", int64_t{0});
      s.totals.rows = c->value("rows", int64_t{0});
      s.totals.skipped = c->value("skipped", int64_t{0});
      s.totals.dead_letters = c->value("dead_letters", int64_t{0});
    }
    if (auto keys = j.find("primary_keys"); keys != j.end()) {
      s.primary_keys = ingest::NotedPrimaryKeysFromJson(*keys);
    }
    if (s.offset < 0 || s.line < 0 || s.dead_letter_bytes < 0) {
      return Corruption("ingest source state: negative position in {}", std::string(text));
    }
    return s;
  } catch (const std::exception& e) {
    return Corruption("ingest source state: {}", e.what());
  }
}

/// The dead-letter file: appended by the source, synced at checkpoints,
/// truncated back to the checkpointed size on restore.
class DeadLetterFile {
 public:
  Status Open(io::FileIO& file_io, const std::string& path, int64_t size) {
    auto opened = file_io.OpenAppend(path);
    if (!opened) {
      return std::unexpected(std::move(opened).error().WithContext("opening the dead-letter file"));
    }
    file_ = std::move(*opened);
    auto length = static_cast<int64_t>(file_->size());
    if (length < size) {
      spdlog::warn(
          "dead-letter file {} has {} bytes, fewer than the {} recorded at the "
          "checkpoint; keeping it as it is",
          path, length, size);
      size = length;
    }
    if (length > size) {
      // Bad events after the checkpoint are read again: drop their letters.
      FLOE_RETURN_IF_ERROR_CTX(file_->Truncate(static_cast<uint64_t>(size)), "dead-letter file {}",
                               path);
      dirty_ = true;  // the next checkpoint makes the cut durable
    }
    return Ok();
  }

  Status Append(std::string_view text) {
    FLOE_RETURN_IF_ERROR_CTX(file_->Append(text), "dead-letter file {}", file_->path());
    dirty_ = true;
    return Ok();
  }

  Status Sync() {
    if (!dirty_) return Ok();
    FLOE_RETURN_IF_ERROR_CTX(file_->Sync(), "dead-letter file {}", file_->path());
    dirty_ = false;
    return Ok();
  }

  bool is_open() const { return file_ != nullptr; }
  int64_t size() const { return static_cast<int64_t>(file_->size()); }

 private:
  std::unique_ptr<io::AppendFile> file_;
  bool dirty_ = false;
};

}  // namespace

namespace {

/// The fields a before image is limited to, for the events of one source
/// table decoded with one schema (cdc::DebeziumJsonReader::LimitBeforeImage).
struct BeforeLimit {
  std::shared_ptr<const void> keep;  ///< keeps the schema (the key) alive
  std::vector<int> fields;
};

/// The key of a BeforeLimit: the schema's address, db, NUL, table.
void BeforeLimitKey(const types::Schema* schema, std::string_view db, std::string_view table,
                    std::string* key) {
  auto address = reinterpret_cast<uintptr_t>(schema);
  key->assign(reinterpret_cast<const char*>(&address), sizeof(address));
  key->append(db);
  key->push_back('\0');
  key->append(table);
}

/// One participant of parallel decoding: its own decoders and arena, used by
/// one thread at a time.
struct Decoder {
  cdc::DebeziumJsonReader reader;
  /// The values of the lines of the current chunk (reset per chunk).
  Arena arena{4 << 20};
  std::unique_ptr<types::JsonRowParser> json_parser;
  sink::TableTargetPtr json_target;
  std::string limit_key;
  /// The BeforeLimit of the last event with a before image, and its key.
  const types::Schema* limit_schema = nullptr;
  std::string limit_db;
  std::string limit_table;
  const BeforeLimit* limit = nullptr;
  uint64_t limit_version = ~uint64_t{0};
  /// json format, rows in table order: the batches its lines were parsed
  /// into (each owning its values), and whether every line of its part of
  /// the chunk became a row (else the part goes line by line).
  std::vector<sink::RowBatch> batches;
  bool all_rows = true;
};

/// Lines [begin, end) of `n` split into `parts` contiguous ranges: range `i`.
std::pair<size_t, size_t> RangeOf(size_t n, size_t parts, size_t i) {
  size_t base = n / parts;
  size_t extra = n % parts;
  size_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

/// Chunks of fewer lines are decoded on the source's thread alone.
constexpr size_t kMinParallelLines = 64;

}  // namespace

struct IngestSource::Impl final : ChangeEventHooks {
  IngestSourceOptions options;
  std::shared_ptr<sink::CheckpointPositions> positions;
  IngestStats* stats;
  IngestStats own_stats;  // when none is given

  int subtask = 0;
  std::unique_ptr<TableResolver> resolver;
  std::unique_ptr<sink::RowBatcher> batcher;
  engine::Collector<sink::RowBatch>* out = nullptr;

  size_t input_index = 0;
  std::unique_ptr<LineSource> source;
  DeadLetterFile dead_letters;
  bool ended = false;
  Totals totals;
  int64_t bytes_counted = 0;  // of the current LineSource, already in stats

  /// debezium-json and canal-json lines (after `batcher`).
  std::unique_ptr<ChangeEventHandler> handler;
  /// The line being handled (for the hooks).
  const Line* current = nullptr;
  /// json format: the values of the line being parsed.
  Arena arena;
  /// What parallel decoders decode events without a schema block with
  /// before a table's schema is known.
  types::Schema empty_schema;
  /// json format: the parser for the fixed table's current target.
  std::unique_ptr<types::JsonRowParser> json_parser;
  sink::TableTargetPtr json_target;
  /// Rows in table order (reused: no allocation per row).
  std::vector<Value> scratch_a;

  /// Parallel decoding (null when decode_parallelism is 1).
  std::unique_ptr<DecodePool> pool;
  std::vector<std::unique_ptr<Decoder>> decoders;
  /// The lines of the current chunk, and what the decoders made of them (by
  /// line; reused, sized once).
  std::vector<Line> chunk;
  std::vector<Result<cdc::DebeziumEvent>> chunk_events;
  std::vector<Result<Row>> chunk_rows;
  std::vector<std::string_view> chunk_missing;  ///< json: a required column that is null
  std::vector<Value> chunk_values;              ///< json: mapped rows, width values per line
  /// Before-image limits learnt by the source's thread, for the decoders
  /// (read by them only while a chunk is decoded; changed only between).
  std::unordered_map<std::string, BeforeLimit> before_limits;
  uint64_t before_limits_version = 0;  ///< bumped when an entry is added
  std::string limit_key;
  const types::Schema* noted_schema = nullptr;
  std::string noted_db;
  std::string noted_table;
  BeforeLimit* noted_limit = nullptr;

  /// IngestSourceOptions::committed_until, emptied once passed, and its
  /// largest position.
  std::map<std::string, InputPosition> committed_until;
  InputPosition committed_until_max;

  Impl(IngestSourceOptions o, std::shared_ptr<sink::CheckpointPositions> p, IngestStats* s)
      : options(std::move(o)), positions(std::move(p)), stats(s != nullptr ? s : &own_stats) {
    committed_until = options.committed_until;
    for (const auto& [table, position] : committed_until) {
      committed_until_max = std::max(committed_until_max, position);
    }
  }

  bool follow_current() const { return options.follow && input_index + 1 == options.inputs.size(); }

  Status OpenInput(size_t index, int64_t offset, int64_t line) {
    input_index = index;
    LineSourceOptions lo;
    lo.path = options.inputs[index];
    lo.follow = follow_current();
    FLOE_ASSIGN_OR_RETURN(source, LineSource::Open(std::move(lo), offset, line));
    bytes_counted = 0;
    return Ok();
  }

  void PublishStats() {
    if (handler) handler->PublishTableRows();
    int64_t read = source ? source->bytes_read() : 0;
    stats->bytes_read.fetch_add(read - bytes_counted);
    bytes_counted = read;
  }

  /// A bad event: an error (fail) or a dead letter (skip).
  Status BadInput(const Line& line, const Error& error) {
    std::string reason = error.message();
    std::string where = fmt::format("{}:{} (offset {})", source->path(), line.number, line.offset);
    if (options.on_error == OnError::kFail) {
      return InvalidArgument("{}: {}", where, reason);
    }
    nlohmann::json letter;
    letter["file"] = source->path();
    letter["line"] = line.number;
    letter["offset"] = line.offset;
    letter["error"] = reason;
    letter["event"] = std::string(line.text);
    std::string text = letter.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
    FLOE_RETURN_IF_ERROR(dead_letters.Append(text));
    ++totals.dead_letters;
    stats->dead_letters.fetch_add(1);
    spdlog::warn("{}: {} (written to the dead-letter file)", where, reason);
    return Ok();
  }

  /// ChangeEventHooks, for the line `current`.
  Status BadEvent(const Error& error) override { return BadInput(*current, error); }
  Error JobError(Error error) override {
    return std::move(error).WithContext(fmt::format("{}:{}", source->path(), current->number));
  }
  bool AlreadyCommitted(const sink::TableTarget& target) override {
    return AlreadyCommitted(target, *current);
  }
  void NoteBeforeImageFields(const cdc::DebeziumEvent& event, const types::Schema* known,
                             std::span<const int> fields) override {
    if (pool) NoteBeforeLimit(event, known, fields);
  }

  /// Handles one debezium-json or canal-json line.
  Status HandleEvent(const Line& line) {
    current = &line;
    return handler->Handle(options.format, line.text, *this);
  }

  /// Remembers, for the decoders, the before-image fields of `event`'s table
  /// with the schema that decoded it (its row schema, else `known`).
  void NoteBeforeLimit(const cdc::DebeziumEvent& event, const types::Schema* known,
                       std::span<const int> fields) {
    const types::Schema* schema = event.row_schema ? event.row_schema.get() : known;
    if (schema == nullptr) return;
    if (noted_limit == nullptr || schema != noted_schema || event.db != noted_db ||
        event.table != noted_table) {
      BeforeLimitKey(schema, event.db, event.table, &limit_key);
      auto [it, inserted] = before_limits.try_emplace(limit_key);
      if (inserted) {
        if (event.row_schema) {
          it->second.keep = event.row_schema;
        } else {
          it->second.keep = handler->known_target();
        }
        ++before_limits_version;
      }
      noted_limit = &it->second;
      noted_schema = schema;
      noted_db.assign(event.db);
      noted_table.assign(event.table);
    }
    if (!std::equal(fields.begin(), fields.end(), noted_limit->fields.begin(),
                    noted_limit->fields.end())) {
      noted_limit->fields.assign(fields.begin(), fields.end());
    }
  }

  /// On decoder `d`'s thread, after it decoded `event` with `known`: limits
  /// its reader's later before images of the event's table as the source's
  /// thread learnt (NoteBeforeLimit).
  void ApplyBeforeLimit(Decoder& d, const cdc::DebeziumEvent& event, const types::Schema* known) {
    const types::Schema* schema = event.row_schema ? event.row_schema.get() : known;
    if (schema == nullptr) return;
    if (d.limit_version != before_limits_version || schema != d.limit_schema ||
        event.db != d.limit_db || event.table != d.limit_table) {
      BeforeLimitKey(schema, event.db, event.table, &d.limit_key);
      auto it = before_limits.find(d.limit_key);
      d.limit = it == before_limits.end() ? nullptr : &it->second;
      d.limit_version = before_limits_version;
      d.limit_schema = schema;
      d.limit_db.assign(event.db);
      d.limit_table.assign(event.table);
    }
    if (d.limit != nullptr) d.reader.LimitBeforeImage(event.db, event.table, d.limit->fields);
  }

  /// Whether the event at `line` is already in its table (the table is ahead
  /// of the restored checkpoint): then it is counted and skipped. Once the
  /// input has passed every such table's position, the check costs nothing.
  bool AlreadyCommitted(const sink::TableTarget& target, const Line& line) {
    if (committed_until.empty()) return false;
    InputPosition here{input_index, line.offset};
    if (here >= committed_until_max) {
      committed_until.clear();
      return false;
    }
    auto it = committed_until.find(target.key);
    if (it == committed_until.end() || here >= it->second) return false;
    stats->already_committed.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  Status ProcessJson(const Line& line) {
    arena.Reset();
    bool event_error = false;
    auto state = resolver->Resolve("", "", nullptr, &event_error);
    if (!state) return FromResolver(line, std::move(state).error(), event_error);
    if (AlreadyCommitted(*TableResolver::TargetOf(*state), line)) return Ok();
    auto mapping = resolver->MappingFor(*state, nullptr, &event_error);
    if (!mapping) return FromResolver(line, std::move(mapping).error(), event_error);
    const RowMapping& m = **mapping;
    if (json_target != m.target()) {
      json_target = m.target();
      json_parser = std::make_unique<types::JsonRowParser>(m.table_schema());
    }
    auto row = json_parser->Parse(line.text, &arena);
    if (!row) return BadInput(line, row.error());
    scratch_a.resize(m.width());
    std::span<Value> a(scratch_a);
    if (auto col = m.Map(*row, a, false); !col.empty()) {
      return BadInput(line, Error(ErrorCode::kInvalidArgument,
                                  fmt::format("table {}: column '{}' is required but null",
                                              m.target()->key, col)));
    }
    return handler->Emit(m.target(), RowKind::kInsert, a);
  }

  /// Decides whether an error from the resolver is the line's or the job's.
  Status FromResolver(const Line& line, Error error, bool event_error) {
    if (event_error) return BadInput(line, error);
    return std::unexpected(
        std::move(error).WithContext(fmt::format("{}:{}", source->path(), line.number)));
  }

  Status ProcessLine(const Line& line) {
    CountEvent();
    if (options.format == InputFormat::kJson) return ProcessJson(line);
    return HandleEvent(line);
  }

  void CountEvent() {
    ++totals.events;
    stats->events_read.fetch_add(1, std::memory_order_relaxed);
  }

  /// Starts the decoders of parallel decoding (Open).
  void StartDecoders() {
    size_t n = options.decode_parallelism != 0
                   ? options.decode_parallelism
                   : static_cast<size_t>(std::max(options.sink.write_parallelism, 1));
    // canal-json lines are decoded on the source's thread.
    if (n <= 1 || options.format == InputFormat::kCanalJson) return;
    size_t lines = std::max<size_t>(options.decode_chunk_lines, kMinParallelLines);
    chunk.reserve(lines);
    if (options.format == InputFormat::kJson) {
      chunk_rows.resize(lines);
      chunk_missing.resize(lines);
    } else {
      chunk_events.resize(lines);
    }
    for (size_t i = 0; i < n; ++i) decoders.push_back(std::make_unique<Decoder>());
    pool = std::make_unique<DecodePool>(n);
  }

  /// Handles the lines in `chunk` (all of the current input), in order.
  Status ProcessChunk() {
    if (chunk.size() < kMinParallelLines) {
      for (const Line& line : chunk) FLOE_RETURN_IF_ERROR(ProcessLine(line));
      return Ok();
    }
    return options.format == InputFormat::kJson ? ProcessJsonChunk() : ProcessDebeziumChunk();
  }

  Status ProcessDebeziumChunk() {
    const types::Schema* known = handler->KnownSchema();
    const types::Schema* decode_with = known != nullptr ? known : &empty_schema;
    const size_t n = chunk.size();
    const size_t parts = decoders.size();
    auto task = [&](size_t i) {
      Decoder& d = *decoders[i];
      d.arena.Reset();
      auto [begin, end] = RangeOf(n, parts, i);
      for (size_t k = begin; k < end; ++k) {
        chunk_events[k] = d.reader.Decode(chunk[k].text, decode_with, &d.arena);
        const auto& e = chunk_events[k];
        if (e && e->kind == cdc::DebeziumEvent::Kind::kRow && !e->before.empty()) {
          ApplyBeforeLimit(d, *e, known);
        }
      }
    };
    pool->Run(task);
    for (size_t k = 0; k < n; ++k) {
      CountEvent();
      // A line before this one changed the schema that events without a
      // schema block decode with: decode it again, as sequential decoding does.
      current = &chunk[k];
      if (handler->KnownSchema() != known) {
        FLOE_RETURN_IF_ERROR(handler->HandleDebezium(chunk[k].text, *this));
      } else {
        FLOE_RETURN_IF_ERROR(
            handler->HandleDecoded(chunk[k].text, chunk_events[k], known, false, *this));
      }
    }
    return Ok();
  }

  Status ProcessJsonChunk() {
    // Every row goes to the one table: resolve it once. When that fails, the
    // lines go the sequential way (which reports each of them).
    bool event_error = false;
    auto state = resolver->Resolve("", "", nullptr, &event_error);
    const RowMapping* mapping = nullptr;
    if (state) {
      auto m = resolver->MappingFor(*state, nullptr, &event_error);
      if (m) mapping = *m;
    }
    if (mapping == nullptr) {
      for (const Line& line : chunk) FLOE_RETURN_IF_ERROR(ProcessLine(line));
      return Ok();
    }
    const RowMapping& m = *mapping;
    if (m.identity() && committed_until.empty()) return ProcessJsonChunkInPlace(m);
    const size_t n = chunk.size();
    const size_t width = m.width();
    if (chunk_values.size() < n * width) chunk_values.resize(n * width);
    const size_t parts = decoders.size();
    auto task = [&](size_t i) {
      Decoder& d = *decoders[i];
      d.arena.Reset();
      if (d.json_target != m.target()) {
        d.json_target = m.target();
        d.json_parser = std::make_unique<types::JsonRowParser>(m.table_schema());
      }
      auto [begin, end] = RangeOf(n, parts, i);
      for (size_t k = begin; k < end; ++k) {
        chunk_rows[k] = d.json_parser->Parse(chunk[k].text, &d.arena);
        if (chunk_rows[k]) {
          std::span<Value> a(chunk_values.data() + k * width, width);
          chunk_missing[k] = m.Map(*chunk_rows[k], a, false);
        }
      }
    };
    pool->Run(task);
    for (size_t k = 0; k < n; ++k) {
      CountEvent();
      if (AlreadyCommitted(*m.target(), chunk[k])) continue;
      FLOE_RETURN_IF_ERROR(
          EmitParsed(m, k, types::Row(chunk_values.data() + k * width, chunk_rows[k] ? width : 0)));
    }
    return Ok();
  }

  /// Line `k` of the chunk as the decoders left it: a bad line (its parse
  /// error, or `chunk_missing[k]`), or `row` in table order for the batcher.
  Status EmitParsed(const RowMapping& m, size_t k, types::Row row) {
    const Line& line = chunk[k];
    if (!chunk_rows[k]) return BadInput(line, chunk_rows[k].error());
    if (!chunk_missing[k].empty()) {
      return BadInput(line, Error(ErrorCode::kInvalidArgument,
                                  fmt::format("table {}: column '{}' is required but null",
                                              m.target()->key, chunk_missing[k])));
    }
    return handler->Emit(m.target(), RowKind::kInsert, row);
  }

  /// ProcessJsonChunk for rows the table's schema decodes (`m.identity()`),
  /// when no line can be one a table already holds: each decoder parses its
  /// lines straight into batches that own their values, and a part of the
  /// chunk whose every line became a row goes to the batcher as those
  /// batches, with no copy and no mapping. A part with a bad line goes line
  /// by line, as ProcessJsonChunk does.
  Status ProcessJsonChunkInPlace(const RowMapping& m) {
    const size_t n = chunk.size();
    const size_t parts = decoders.size();
    const size_t batch_rows = std::max<size_t>(options.batch_rows, 1);
    auto task = [&](size_t i) {
      Decoder& d = *decoders[i];
      if (d.json_target != m.target()) {
        d.json_target = m.target();
        d.json_parser = std::make_unique<types::JsonRowParser>(m.table_schema());
      }
      d.batches.clear();
      d.all_rows = true;
      auto [begin, end] = RangeOf(n, parts, i);
      for (size_t k = begin; k < end; ++k) {
        if (d.batches.empty() || d.batches.back().rows.size() >= batch_rows) {
          sink::RowBatch& b = d.batches.emplace_back();
          b.target = m.target();
          b.rows.reserve(std::min(batch_rows, end - k));
          b.kinds.reserve(std::min(batch_rows, end - k));
        }
        sink::RowBatch& b = d.batches.back();
        chunk_rows[k] = d.json_parser->Parse(chunk[k].text, b.arena.get());
        if (!chunk_rows[k]) {
          d.all_rows = false;
          continue;
        }
        chunk_missing[k] = m.Missing(*chunk_rows[k], false);
        if (!chunk_missing[k].empty()) {
          d.all_rows = false;
          continue;
        }
        b.rows.push_back(*chunk_rows[k]);
        b.kinds.push_back(RowKind::kInsert);
      }
    };
    pool->Run(task);
    for (size_t i = 0; i < parts; ++i) {
      Decoder& d = *decoders[i];
      auto [begin, end] = RangeOf(n, parts, i);
      if (d.all_rows) {
        totals.events += static_cast<int64_t>(end - begin);
        stats->events_read.fetch_add(static_cast<int64_t>(end - begin), std::memory_order_relaxed);
        for (sink::RowBatch& b : d.batches) FLOE_RETURN_IF_ERROR(handler->EmitBatch(std::move(b)));
        continue;
      }
      for (size_t k = begin; k < end; ++k) {
        CountEvent();
        FLOE_RETURN_IF_ERROR(EmitParsed(m, k, chunk_rows[k] ? *chunk_rows[k] : types::Row()));
      }
    }
    for (auto& d : decoders) d->batches.clear();  // their arenas held the rows above
    return Ok();
  }
};

IngestSource::IngestSource(IngestSourceOptions options,
                           std::shared_ptr<sink::CheckpointPositions> positions, IngestStats* stats)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(positions), stats)) {}

IngestSource::~IngestSource() = default;

Status IngestSource::Open(const engine::OperatorContext& context,
                          const engine::RestoredState& state) {
  Impl& s = *impl_;
  s.subtask = context.subtask;
  FLOE_RETURN_IF_ERROR(ValidateIngestSourceOptions(s.options));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Catalog> catalog, s.options.sink.catalog());
  s.resolver = std::make_unique<TableResolver>(s.options.tables, std::move(catalog), s.stats);
  s.batcher = std::make_unique<sink::RowBatcher>(s.options.sink, s.options.batch_rows);
  s.handler = std::make_unique<ChangeEventHandler>(s.resolver.get(), s.batcher.get(), s.stats);

  SourceState restored;
  if (state.own && !state.own->empty()) {
    FLOE_ASSIGN_OR_RETURN(restored, ParseState(*state.own));
    for (auto& key : restored.primary_keys) {
      s.resolver->NotePrimaryKey(key.db, key.table, std::move(key.columns));
    }
    // The restored file must be one of the inputs (normally at the same index).
    const auto& inputs = s.options.inputs;
    size_t index = restored.input_index;
    if (index >= inputs.size() || inputs[index] != restored.file) {
      auto it = std::find(inputs.begin(), inputs.end(), restored.file);
      if (it == inputs.end()) {
        return InvalidArgument(
            "the checkpoint (checkpoint {}) was taken reading '{}', which is not among this "
            "run's inputs; use the same inputs, or another --state-dir to start afresh",
            state.checkpoint_id, restored.file);
      }
      index = static_cast<size_t>(it - inputs.begin());
    }
    restored.input_index = index;
    s.totals = restored.totals;
    s.handler->counts() = {restored.totals.rows, restored.totals.skipped};
    if (restored.file == kStandardInput) {
      spdlog::warn(
          "restarting on standard input: it cannot be sought, so it is read from its "
          "start (the position of checkpoint {} was offset {})",
          state.checkpoint_id, restored.offset);
      restored.offset = 0;
      restored.line = 0;
    }
  }
  FLOE_RETURN_IF_ERROR(s.OpenInput(restored.input_index, restored.offset, restored.line));
  if (!s.pool) s.StartDecoders();
  if (!s.options.dead_letter_path.empty()) {
    // A fresh start (no checkpoint) also truncates: nothing read before is kept.
    if (!s.options.file_io) s.options.file_io = std::make_shared<io::LocalFileIO>();
    FLOE_RETURN_IF_ERROR(s.dead_letters.Open(*s.options.file_io, s.options.dead_letter_path,
                                             restored.dead_letter_bytes));
  }
  if (state.own) {
    spdlog::info("ingest: resuming {} at offset {} (line {}) from checkpoint {}", s.source->path(),
                 s.source->position(), s.source->line_number(), state.checkpoint_id);
  }
  return Ok();
}

Result<bool> IngestSource::Poll(engine::Collector<sink::RowBatch>& out) {
  Impl& s = *impl_;
  s.out = &out;
  s.handler->set_output(&out);
  if (s.ended) return false;
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + s.options.max_poll_time;
  size_t lines = 0;
  while (lines < s.options.max_lines_per_poll) {
    auto now = (lines & 63) == 0 || s.pool ? std::chrono::steady_clock::now() : start;
    if (now >= deadline) break;
    auto wait = s.follow_current()
                    ? std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
                    : std::chrono::milliseconds(0);
    FLOE_ASSIGN_OR_RETURN(std::optional<Line> line, s.source->Next(wait));
    if (!line) {
      if (!s.source->at_end()) break;  // following: nothing new yet
      if (s.input_index + 1 < s.options.inputs.size()) {
        s.PublishStats();
        FLOE_RETURN_IF_ERROR(s.OpenInput(s.input_index + 1, 0, 0));
        continue;
      }
      s.ended = true;
      break;
    }
    if (!s.pool) {
      ++lines;
      FLOE_RETURN_IF_ERROR(s.ProcessLine(*line));
      continue;
    }
    // Parallel decoding: this line and those after it already in the buffer.
    s.chunk.clear();
    s.chunk.push_back(*line);
    size_t room = std::min(s.options.max_lines_per_poll - lines,
                           std::max<size_t>(s.options.decode_chunk_lines, kMinParallelLines));
    s.source->TakeBuffered(&s.chunk, room - 1);
    lines += s.chunk.size();
    FLOE_RETURN_IF_ERROR(s.ProcessChunk());
  }
  FLOE_RETURN_IF_ERROR(s.batcher->Flush(out));
  s.PublishStats();
  return !s.ended;
}

Result<std::string> IngestSource::SnapshotState(engine::CheckpointId id) {
  Impl& s = *impl_;
  if (s.out != nullptr) FLOE_RETURN_IF_ERROR(s.batcher->Flush(*s.out));
  s.batcher->CheckpointBoundary();
  if (s.dead_letters.is_open()) FLOE_RETURN_IF_ERROR(s.dead_letters.Sync());
  SourceState state;
  state.input_index = s.input_index;
  state.file = s.source->path();
  state.offset = s.source->position();
  state.line = s.source->line_number();
  state.dead_letter_bytes = s.dead_letters.is_open() ? s.dead_letters.size() : 0;
  state.totals = s.totals;
  state.totals.rows = s.handler->counts().rows;
  state.totals.skipped = s.handler->counts().skipped;
  state.primary_keys = s.resolver->NotedPrimaryKeys();
  if (s.positions) {
    s.positions->Put(id, s.subtask, fmt::format("{}:{}", state.file, state.offset));
  }
  return SerializeState(state, !s.source->is_stdin());
}

void IngestSource::Close() {
  Impl& s = *impl_;
  if (s.dead_letters.is_open()) (void)s.dead_letters.Sync();
  s.PublishStats();
}

}  // namespace floe::ingest
