#include "floe/cdc/mysql/capture.h"

#include <charconv>
#include <chrono>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "floe/cdc/mysql/binlog_event.h"
#include "floe/cdc/mysql/binlog_row_image.h"
#include "floe/cdc/mysql/ddl_parser.h"
#include "floe/cdc/mysql/incremental_snapshot.h"
#include "floe/cdc/mysql/information_schema.h"
#include "floe/cdc/mysql/schema_tracker.h"
#include "floe/cdc/mysql/snapshot.h"
#include "floe/cdc/mysql/table_schema_json.h"
#include "floe/cdc/mysql/type_mapping.h"
#include "floe/common/json_dump.h"
#include "floe/io/file_io.h"

namespace floe::cdc::mysql {
namespace {

bool IsSystemDb(std::string_view db) {
  return db == "mysql" || db == "information_schema" || db == "performance_schema" || db == "sys";
}

std::string UpperWord(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size()) {
    if (std::isspace(static_cast<unsigned char>(sql[i]))) {
      ++i;
    } else if (sql.compare(i, 2, "/*") == 0) {
      // Keep the content of MySQL's versioned comments (/*!50001 ... */).
      if (i + 2 < sql.size() && sql[i + 2] == '!') {
        i += 3;
        while (i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i]))) ++i;
      } else {
        size_t e = sql.find("*/", i + 2);
        i = e == std::string_view::npos ? sql.size() : e + 2;
      }
    } else if (sql.compare(i, 2, "--") == 0 || sql[i] == '#') {
      size_t e = sql.find('\n', i);
      i = e == std::string_view::npos ? sql.size() : e + 1;
    } else {
      break;
    }
  }
  std::string w;
  while (i < sql.size() && (std::isalpha(static_cast<unsigned char>(sql[i])) || sql[i] == '_')) {
    w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i]))));
    ++i;
  }
  return w;
}

}  // namespace

namespace {

/// What the binlog stream keeps while one connection lasts: the decoders, the
/// transaction being read and its batch of changes.
struct StreamSession {
  StreamSession(const MySqlCapture::Sink& sink_, BinlogDecoderOptions options)
      : sink(sink_), decoder(options) {}

  const MySqlCapture::Sink& sink;
  BinlogDecoder decoder;
  RowImageDecoder rows;
  ChangeBatch batch;
  GtidSet executed;
  std::string tx_gtid;  ///< the GTID of the transaction being read, as text
  MariaDbGtid tx_maria;
  bool tx_is_maria = false;
  std::string mysql_uuid;
  uint64_t mysql_gno = 0;
  uint64_t thread_id = 0;  ///< of the last QUERY event
  std::string annotate;    ///< the statement of the next rows events
  bool standalone = false;

  /// Where an event's changes come from (its position, GTID, time, statement).
  std::shared_ptr<ChangeSource> SourceOf(const BinlogEvent& ev, uint64_t thread,
                                         std::string query) const {
    auto source = std::make_shared<ChangeSource>();
    source->position.binlog = {decoder.current_file(), ev.position};
    source->position.gtids = executed;
    source->position.server_id = ev.header.server_id;
    source->position.gtid = tx_gtid;
    source->transaction_id = tx_gtid;
    source->ts_ms = int64_t{ev.header.timestamp} * 1000;
    source->thread_id = thread;
    source->query = std::move(query);
    return source;
  }
};

}  // namespace

struct MySqlCapture::Impl {
  CaptureOptions options;
  std::regex regex;
  std::unique_ptr<Connection> meta;  // information_schema reads
  SchemaTracker tracker;
  std::map<std::pair<std::string, std::string>, TableDefinitionPtr> definitions;
  /// Tables whose schema was read from information_schema after the position
  /// streaming starts from (a past file:pos, GTID or timestamp; or the
  /// snapshot's or `latest`'s position, taken before the tables are listed):
  /// their schema as of the listing, which a CREATE or RENAME in the stream
  /// (a table that did not yet exist at the start position) replaces instead
  /// of colliding with. Only until the stream reaches `provisional_end`, the
  /// end of the binlog once the listing was done: a CREATE after it is of a
  /// table the listing could not have seen.
  std::set<std::pair<std::string, std::string>> provisional;
  BinlogFilePos provisional_end;
  /// Tables snapshotted after the stream's position (snapshot_new_tables):
  /// their events before the position given are skipped.
  std::map<std::pair<std::string, std::string>, BinlogFilePos> not_before;

  /// Whether an event of (db, table) at `pos` comes before that table's
  /// snapshot (not_before).
  bool BeforeItsSnapshot(std::string_view db, std::string_view table,
                         const BinlogFilePos& pos) const {
    if (not_before.empty()) return false;
    auto it = not_before.find(std::make_pair(std::string(db), std::string(table)));
    return it != not_before.end() && Compare(pos, it->second) < 0;
  }

  /// Whether DDL `sql` names a table whose snapshot comes after `pos`.
  bool DdlBeforeItsSnapshot(std::string_view sql, std::string_view default_db,
                            const BinlogFilePos& pos) const {
    if (not_before.empty()) return false;
    auto st = ParseDdl(sql);
    if (!st) return false;
    std::vector<TableRef> refs{st->table};
    for (const auto& [from, to] : st->renames) {
      refs.push_back(from);
      refs.push_back(to);
    }
    for (auto& r : refs) {
      if (r.db.empty()) r.db = std::string(default_db);
      if (BeforeItsSnapshot(r.db, r.table, pos)) return true;
    }
    return false;
  }
  int64_t version = 0;
  io::LocalFileIO file_io;
  SourcePosition committed;  // resume point after the last transaction
  /// After an initial snapshot, until the stream passes its largest high
  /// watermark: which events the snapshot already holds.
  SnapshotFilter filter;
  std::chrono::steady_clock::time_point last_state_write{};
  /// When the sink last got a batch that ends a transaction.
  std::chrono::steady_clock::time_point last_boundary{};
  static constexpr std::chrono::seconds kBoundaryInterval{2};

  bool Selected(std::string_view db, std::string_view table) const {
    if (IsSystemDb(db)) return false;
    if (options.selector) return options.selector(db, table);
    std::string name = std::string(db) + "." + std::string(table);
    return std::regex_match(name, regex);
  }

  Result<TableDefinitionPtr> Definition(std::string_view db, std::string_view table) {
    auto key = std::make_pair(std::string(db), std::string(table));
    auto it = definitions.find(key);
    if (it != definitions.end()) return it->second;
    const TableSchema* s = tracker.Find(db, table);
    if (!s) {
      FLOE_ASSIGN_OR_RETURN(auto loaded, ReadTableSchema(meta->handle(), db, table));
      if (!loaded)
        return NotFound(
            "table {}.{} has rows in the binlog but no longer exists, and "
            "its schema is unknown",
            db, table);
      tracker.Put(std::move(*loaded));
      s = tracker.Find(db, table);
    }
    FLOE_ASSIGN_OR_RETURN(auto def, MakeTableDefinition(*s, ++version));
    definitions[key] = def;
    return def;
  }

  /// The schemas part of the state, kept until the tracker changes.
  uint64_t schemas_generation = ~uint64_t{0};
  std::shared_ptr<const std::string> schemas_text;

  /// The state after the last transaction: `committed` and what goes with it.
  std::string StateText() { return StateParts().Text(); }

  CaptureStateText StateParts() {
    if (schemas_generation != tracker.generation() || schemas_text == nullptr) {
      nlohmann::json schemas = nlohmann::json::array();
      for (const TableSchema* t : tracker.Tables()) {
        if (Selected(t->db, t->table)) schemas.push_back(TableSchemaToJson(*t));
      }
      schemas_text = std::make_shared<const std::string>(DumpJson(schemas));
      schemas_generation = tracker.generation();
    }
    nlohmann::json j;
    j["position"] = committed.ToJson();
    if (!filter.empty()) j["snapshot_filter"] = filter.ToJson();
    if (!provisional.empty()) {
      nlohmann::json p;
      p["until"] = provisional_end.ToString();
      p["tables"] = nlohmann::json::array();
      for (const auto& [db, table] : provisional) p["tables"].push_back({db, table});
      j["provisional"] = std::move(p);
    }
    if (!not_before.empty()) {
      nlohmann::json n = nlohmann::json::array();
      for (const auto& [table, pos] : not_before)
        n.push_back({table.first, table.second, pos.ToString()});
      j["not_before"] = std::move(n);
    }
    // The schemas go last, spliced in as text (CaptureStateText::Text): no
    // re-serialization, and no copy, per call.
    return CaptureStateText{DumpJson(j), schemas_text};
  }

  Status SaveState() {
    if (options.state_file.empty()) return Ok();
    FLOE_RETURN_IF_ERROR_CTX(file_io.WriteAtomically(options.state_file, StateText()),
                             "writing the capture state {}", options.state_file);
    last_state_write = std::chrono::steady_clock::now();
    return Ok();
  }

  Result<bool> LoadState() {
    std::string text;
    std::string where = "the checkpoint's capture state";
    if (!options.initial_state.empty()) {
      text = options.initial_state;
    } else {
      if (options.state_file.empty()) return false;
      FLOE_ASSIGN_OR_RETURN(bool exists, file_io.Exists(options.state_file));
      if (!exists) return false;
      FLOE_ASSIGN_OR_RETURN(text, file_io.ReadAll(options.state_file));
      where = "state file " + options.state_file;
    }
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("position")) {
      return Corruption("{}: not a floe capture state", where);
    }
    FLOE_ASSIGN_OR_RETURN(committed, SourcePosition::FromJson(j["position"]));
    if (j.contains("schemas")) {
      for (const auto& s : j["schemas"]) {
        FLOE_ASSIGN_OR_RETURN(TableSchema t, TableSchemaFromJson(s));
        tracker.Put(std::move(t));
      }
    }
    if (j.contains("snapshot_filter")) {
      auto f = SnapshotFilter::FromJson(
          j["snapshot_filter"],
          [this](std::string_view db, std::string_view table) { return tracker.Find(db, table); });
      if (!f) {
        return std::unexpected(std::move(f).error().WithContext(fmt::format("{}", where)));
      }
      filter = std::move(*f);
    }
    if (j.contains("provisional")) {
      const auto& p = j["provisional"];
      auto bad = [&]() { return Corruption("{}: 'provisional' is not {{until, tables}}", where); };
      if (!p.is_object() || !p.contains("until") || !p["until"].is_string() ||
          !p.contains("tables") || !p["tables"].is_array()) {
        return bad();
      }
      auto until = BinlogFilePos::Parse(p["until"].get<std::string>());
      if (!until) return bad();
      provisional_end = *until;
      for (const auto& t : p["tables"]) {
        if (!t.is_array() || t.size() != 2 || !t[0].is_string() || !t[1].is_string()) return bad();
        provisional.emplace(t[0].get<std::string>(), t[1].get<std::string>());
      }
    }
    if (j.contains("not_before")) {
      const auto& n = j["not_before"];
      if (!n.is_array()) return Corruption("{}: 'not_before' is not a list", where);
      for (const auto& t : n) {
        if (!t.is_array() || t.size() != 3 || !t[0].is_string() || !t[1].is_string() ||
            !t[2].is_string()) {
          return Corruption("{}: 'not_before' entries are [db, table, position]", where);
        }
        auto pos = BinlogFilePos::Parse(t[2].get<std::string>());
        if (!pos) return Corruption("{}: 'not_before': {}", where, pos.error().message());
        not_before[{t[0].get<std::string>(), t[1].get<std::string>()}] = *pos;
      }
    }
    spdlog::info("capture: resuming from {} ({})", committed.binlog.ToString(), where);
    return true;
  }

  Result<std::vector<std::pair<std::string, std::string>>> SelectedTables(Connection& conn) {
    FLOE_ASSIGN_OR_RETURN(auto rows,
                          conn.Query("SELECT TABLE_SCHEMA, TABLE_NAME FROM "
                                     "information_schema.TABLES WHERE TABLE_TYPE = 'BASE "
                                     "TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME"));
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : rows) {
      if (r.size() < 2 || !r[0] || !r[1]) continue;
      if (Selected(*r[0], *r[1])) out.emplace_back(*r[0], *r[1]);
    }
    return out;
  }

  /// Reads the schema of every selected table the tracker does not know,
  /// after the start position was taken: each is provisional until the end of
  /// the binlog as it is once they are read.
  Status LoadSelectedSchemas(Connection& conn) {
    FLOE_ASSIGN_OR_RETURN(auto tables, SelectedTables(conn));
    for (const auto& [db, table] : tables) {
      if (tracker.Find(db, table)) continue;
      FLOE_ASSIGN_OR_RETURN(auto loaded, ReadTableSchema(conn.handle(), db, table));
      if (!loaded) continue;
      tracker.Put(std::move(*loaded));
      provisional.emplace(db, table);
    }
    return EndProvisionalWindow(conn);
  }

  /// Sets `provisional_end` to the current end of the binlog.
  Status EndProvisionalWindow(Connection& conn) {
    if (provisional.empty()) return Ok();
    FLOE_ASSIGN_OR_RETURN(auto end, CurrentPosition(conn));
    provisional_end = end.binlog;
    return Ok();
  }

  /// Before a DDL statement is applied: a provisional table that the
  /// statement creates (CREATE TABLE, the target of a RENAME) did not exist
  /// at this point of the stream, so its information_schema schema is dropped.
  void ForgetProvisionalTargets(std::string_view sql, std::string_view default_db) {
    if (provisional.empty()) return;
    auto st = ParseDdl(sql);
    if (!st) return;
    std::vector<TableRef> targets;
    // CREATE ... IF NOT EXISTS does nothing to a table that exists: if it
    // existed, the schema read from the server is right; if it is new, that
    // schema was read just after this statement.
    if ((st->kind == DdlKind::kCreateTable || st->kind == DdlKind::kCreateTableLike) &&
        !st->if_not_exists) {
      targets.push_back(st->table);
    } else if (st->kind == DdlKind::kRenameTable) {
      for (const auto& [from, to] : st->renames) targets.push_back(to);
    }
    for (auto& t : targets) {
      if (t.db.empty()) t.db = std::string(default_db);
      auto key = std::make_pair(t.db, t.table);
      if (provisional.erase(key) == 0) continue;
      tracker.Remove(t.db, t.table);
      definitions.erase(key);
    }
  }

  /// The schemas of the selected tables as the server has them now.
  Result<std::map<std::pair<std::string, std::string>, TableSchema>> ReadSelectedSchemas(
      Connection& conn) {
    std::map<std::pair<std::string, std::string>, TableSchema> out;
    FLOE_ASSIGN_OR_RETURN(auto names, SelectedTables(conn));
    for (const auto& [db, table] : names) {
      FLOE_ASSIGN_OR_RETURN(auto loaded, ReadTableSchema(conn.handle(), db, table));
      if (loaded) out.emplace(std::make_pair(db, table), std::move(*loaded));
    }
    return out;
  }

  /// kStale when a snapshotted table's schema is not the same before the
  /// stream's start (`before`, for the tables it has), when the snapshot
  /// started (`used`) and now: a DDL ran on it meanwhile, so the snapshot's
  /// rows, or the stream's replay of that DDL from the start, would not fit.
  /// `failure`, if the snapshot failed, is kept as the cause.
  Status CheckSnapshotSchemas(
      const std::map<std::pair<std::string, std::string>, TableSchema>& before,
      const std::vector<TableSchema>& used, const Error* failure) {
    FLOE_ASSIGN_OR_RETURN(auto now, ReadSelectedSchemas(*meta));
    for (const TableSchema& s : used) {
      auto key = std::make_pair(s.db, s.table);
      auto was = before.find(key);
      auto is = now.find(key);
      bool changed =
          is == now.end() || !(is->second == s) || (was != before.end() && !(was->second == s));
      if (!changed) continue;
      std::string message = fmt::format(
          "snapshot: table {}.{} changed (a DDL ran on it) while the snapshot was taken; the "
          "snapshot must be taken again",
          s.db, s.table);
      if (failure != nullptr) message += " (it failed with: " + failure->message() + ")";
      return std::unexpected(Error(ErrorCode::kStale, std::move(message)));
    }
    if (failure != nullptr) return std::unexpected(*failure);
    return Ok();
  }

  Status RunSnapshot(const Sink& sink) {
    // The schemas before the stream's start, to be compared with those after
    // the snapshot (CheckSnapshotSchemas): equal, no DDL ran on a snapshotted
    // table in between.
    FLOE_ASSIGN_OR_RETURN(auto schemas_before, ReadSelectedSchemas(*meta));
    // The stream's start first, then the tables: a table created before the
    // start is in the listing, one created after it has its CREATE TABLE in
    // the stream (and if it is in the listing too, it is provisional: the
    // CREATE replaces its schema, the snapshot filter drops its rows that the
    // snapshot holds). Listing first would lose the tables created between
    // the two.
    FLOE_ASSIGN_OR_RETURN(SourcePosition start, CurrentPosition(*meta));
    FLOE_ASSIGN_OR_RETURN(auto names, SelectedTables(*meta));
    std::vector<TableSchema> schemas;
    for (const auto& [db, table] : names) {
      FLOE_ASSIGN_OR_RETURN(auto loaded, ReadTableSchema(meta->handle(), db, table));
      if (!loaded) continue;
      tracker.Put(*loaded);
      provisional.emplace(db, table);
      schemas.push_back(std::move(*loaded));
    }
    FLOE_RETURN_IF_ERROR(EndProvisionalWindow(*meta));
    std::vector<SnapshotTable> tables;
    for (const auto& s : schemas) {
      FLOE_ASSIGN_OR_RETURN(auto def, Definition(s.db, s.table));
      tables.push_back({&s, def});
    }
    FLOE_ASSIGN_OR_RETURN(auto result,
                          SnapshotTables(sink, start, schemas_before, schemas, tables));
    committed = result.start;
    filter = std::move(result.filter);
    return EndSnapshot(sink);
  }

  /// The snapshot of `tables` (their schemas `schemas`, read after `start`):
  /// first, as Debezium's snapshot does, a CREATE schema change for every
  /// table (consumers learn the tables and their primary keys before any
  /// row; floe ingest takes identifier fields from them), then the chunks;
  /// kStale when a table changed meanwhile (CheckSnapshotSchemas).
  Result<IncrementalSnapshotResult> SnapshotTables(
      const Sink& sink, const SourcePosition& start,
      const std::map<std::pair<std::string, std::string>, TableSchema>& schemas_before,
      const std::vector<TableSchema>& schemas, const std::vector<SnapshotTable>& tables) {
    ChangeBatch creates;
    auto source = std::make_shared<ChangeSource>();
    source->snapshot = "true";
    source->ts_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    for (const auto& t : tables) {
      cdc::SchemaChange sc;
      sc.kind = cdc::SchemaChangeKind::kCreateTable;
      sc.table = {t.schema->db, t.schema->table};
      sc.table_after = t.definition;
      sc.database = t.schema->db;
      sc.source = source;
      creates.events.emplace_back(std::move(sc));
    }
    if (!creates.events.empty()) FLOE_RETURN_IF_ERROR(sink(creates));
    IncrementalSnapshotOptions so;
    so.connection = options.connection;
    so.chunk_rows = options.snapshot_chunk_rows;
    so.parallelism = options.snapshot_parallelism;
    so.first_server_id = options.server_id + 1;
    so.start = start;
    auto result = RunIncrementalSnapshot(so, *meta, tables, sink);
    // Before the boundary that lets a consumer commit the snapshot.
    FLOE_RETURN_IF_ERROR(
        CheckSnapshotSchemas(schemas_before, schemas, result ? nullptr : &result.error()));
    return result;
  }

  /// The snapshot is whole: a consumer may checkpoint here.
  Status EndSnapshot(const Sink& sink) {
    if (options.boundary_batches) {
      ChangeBatch done;
      done.ends_transaction = true;
      done.resume = committed;
      FLOE_RETURN_IF_ERROR(sink(done));
      last_boundary = std::chrono::steady_clock::now();
    }
    return SaveState();
  }

  /// snapshot_new_tables, after a resume: the selected tables the restored
  /// state does not know get a snapshot of their own now, at S'; the stream
  /// then resumes where the state was, skipping their events before S'.
  /// Ends, like the initial snapshot, with a boundary once it is whole.
  Status SnapshotNewTables(const Sink& sink) {
    FLOE_ASSIGN_OR_RETURN(auto schemas_before, ReadSelectedSchemas(*meta));
    FLOE_ASSIGN_OR_RETURN(SourcePosition start, CurrentPosition(*meta));
    FLOE_ASSIGN_OR_RETURN(auto names, SelectedTables(*meta));
    std::vector<TableSchema> schemas;
    for (const auto& [db, table] : names) {
      if (tracker.Find(db, table) != nullptr) continue;
      FLOE_ASSIGN_OR_RETURN(auto loaded, ReadTableSchema(meta->handle(), db, table));
      if (loaded) schemas.push_back(std::move(*loaded));
    }
    if (schemas.empty()) return Ok();
    std::vector<std::string> listed;
    for (const auto& s : schemas) listed.push_back(s.QualifiedName());
    spdlog::info(
        "capture: {} selected table(s) the state does not know ({}): a snapshot of them "
        "at {}, then the stream from {}",
        schemas.size(), fmt::join(listed, ", "), start.binlog.ToString(),
        committed.binlog.ToString());
    std::vector<SnapshotTable> tables;
    for (const auto& s : schemas) {
      tracker.Put(s);
      not_before[{s.db, s.table}] = start.binlog;
      definitions.erase({s.db, s.table});
      FLOE_ASSIGN_OR_RETURN(auto def, Definition(s.db, s.table));
      tables.push_back({&s, def});
    }
    FLOE_ASSIGN_OR_RETURN(auto result,
                          SnapshotTables(sink, start, schemas_before, schemas, tables));
    FLOE_RETURN_IF_ERROR(filter.Merge(std::move(result.filter)));
    return EndSnapshot(sink);
  }

  // ---- the binlog stream (one connection at a time) ----------------------
  Status Stream(const Sink& sink, const std::atomic<bool>& stop);
  /// Opens the binlog stream at `committed`; after a failure, also reopens
  /// the information_schema connection if the server restarted.
  Result<std::unique_ptr<BinlogStream>> OpenStream(int failures);
  /// Reads and handles events until the stream ends, fails or `stop`. A
  /// failure to read the stream goes to `*stream_failure` (the caller may
  /// reconnect); other errors are returned.
  Status ReadEvents(BinlogStream& stream, const Sink& sink, const std::atomic<bool>& stop,
                    int* failures, Status* stream_failure);
  Status HandleEvent(StreamSession& s, const BinlogEvent& ev);
  /// The end of a transaction at `next_pos`: the resume position, the batch
  /// to the sink, the state saved now and then.
  Status CommitTransaction(StreamSession& s, uint64_t next_pos);
  /// BEGIN/COMMIT/ROLLBACK and the other statements logged as text (DDL).
  Status HandleQuery(StreamSession& s, const BinlogEvent& ev, const QueryEvent& q);
  /// The schema changes of a DDL as events of the batch.
  Status AddSchemaChanges(StreamSession& s, const BinlogEvent& ev, const QueryEvent& q,
                          const std::vector<mysql::SchemaChange>& changes);
  Status HandleTableMap(StreamSession& s, const BinlogEvent& ev);
  Status HandleRows(StreamSession& s, const BinlogEvent& ev, const RowsEvent& re);
};

MySqlCapture::MySqlCapture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MySqlCapture::~MySqlCapture() = default;

Result<std::string> MySqlCapture::State() { return impl_->StateText(); }

Result<CaptureStateText> MySqlCapture::StateParts() { return impl_->StateParts(); }

std::string CaptureStateText::Text() const {
  if (schemas == nullptr) return head;
  std::string text;
  text.reserve(head.size() + schemas->size() + 16);
  text.append(head, 0, head.size() - 1);  // without the closing '}'
  text += head.size() > 2 ? ",\"schemas\":" : "\"schemas\":";
  text += *schemas;
  text += '}';
  return text;
}

bool MySqlCapture::Selected(std::string_view db, std::string_view table) const {
  return impl_->Selected(db, table);
}

Result<std::unique_ptr<MySqlCapture>> MySqlCapture::Open(CaptureOptions options) {
  FLOE_RETURN_IF_ERROR(CheckCaptureOptions(options));
  auto impl = std::make_unique<Impl>();
  try {
    impl->regex = std::regex(options.tables, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return InvalidArgument("--tables '{}' is not a valid regular expression: {}", options.tables,
                           e.what());
  }
  impl->options = std::move(options);
  Impl* raw = impl.get();
  impl->tracker = SchemaTracker(
      SchemaTrackerOptions{.selected = [raw](std::string_view db, std::string_view table) {
        return raw->Selected(db, table);
      }});
  FLOE_ASSIGN_OR_RETURN(impl->meta, Connection::Open(impl->options.connection));
  FLOE_RETURN_IF_ERROR(CheckServerForCapture(*impl->meta));
  // Teach the decoder the server's collation ids.
  auto collations =
      impl->meta->Query("SELECT ID, CHARACTER_SET_NAME FROM information_schema.COLLATIONS");
  if (collations) {
    for (const auto& r : *collations) {
      if (r.size() == 2 && r[0] && r[1])
        RegisterCollation(static_cast<uint32_t>(std::stoul(*r[0])), *r[1]);
    }
  }
  return std::unique_ptr<MySqlCapture>(new MySqlCapture(std::move(impl)));
}

Status MySqlCapture::Run(const Sink& sink, const std::atomic<bool>& stop) {
  Impl& m = *impl_;
  FLOE_ASSIGN_OR_RETURN(bool resumed, m.LoadState());
  if (resumed && m.options.snapshot_new_tables) FLOE_RETURN_IF_ERROR(m.SnapshotNewTables(sink));
  if (!resumed) {
    switch (m.options.startup) {
      case StartupMode::kInitial:
        FLOE_RETURN_IF_ERROR(m.RunSnapshot(sink));
        break;
      case StartupMode::kLatest: {
        FLOE_ASSIGN_OR_RETURN(m.committed, CurrentPosition(*m.meta));
        break;
      }
      case StartupMode::kPosition:
        m.committed.binlog = m.options.start_position;
        FLOE_RETURN_IF_ERROR(CheckPositionAvailable(*m.meta, m.committed.binlog));
        break;
      case StartupMode::kGtid:
        m.committed.gtids = m.options.start_gtids;
        break;
      case StartupMode::kTimestamp: {
        StreamOptions so{m.options.connection, m.options.server_id, 0, true};
        FLOE_ASSIGN_OR_RETURN(m.committed,
                              FindPositionForTimestamp(so, m.options.start_unix_seconds));
        break;
      }
    }
    if (m.options.startup != StartupMode::kInitial) {
      FLOE_RETURN_IF_ERROR(m.LoadSelectedSchemas(*m.meta));
      if (m.options.boundary_batches) {
        // The start position is known: a consumer may checkpoint from here.
        ChangeBatch start;
        start.ends_transaction = true;
        start.resume = m.committed;
        FLOE_RETURN_IF_ERROR(sink(start));
        m.last_boundary = std::chrono::steady_clock::now();
      }
    }
  }
  return m.Stream(sink, stop);
}

Status MySqlCapture::Impl::Stream(const Sink& sink, const std::atomic<bool>& stop) {
  int failures = 0;
  while (!stop.load()) {
    auto opened = OpenStream(failures);
    if (!opened) {
      if (opened.error().code() == ErrorCode::kIo && ++failures <= options.reconnect_attempts) {
        spdlog::warn("capture: {}; reconnecting in 1 s ({}/{})", opened.error().message(), failures,
                     options.reconnect_attempts);
        std::this_thread::sleep_for(std::chrono::seconds(1));
        continue;
      }
      return std::unexpected(opened.error());
    }
    Status failure = Ok();
    FLOE_RETURN_IF_ERROR(ReadEvents(**opened, sink, stop, &failures, &failure));
    if (stop.load()) return Ok();
    if (!failure) {
      if (failure.error().code() == ErrorCode::kIo && ++failures <= options.reconnect_attempts) {
        spdlog::warn("capture: {}; resuming from {} in 1 s ({}/{})", failure.error().message(),
                     committed.binlog.ToString(), failures, options.reconnect_attempts);
        std::this_thread::sleep_for(std::chrono::seconds(1));
        continue;
      }
      return failure;
    }
    return SaveState();  // the end of a non-blocking dump (until_end)
  }
  return Ok();
}

Result<std::unique_ptr<BinlogStream>> MySqlCapture::Impl::OpenStream(int failures) {
  StreamOptions so{options.connection, options.server_id, options.heartbeat_seconds,
                   options.until_end};
  auto opened = BinlogStream::Open(so, committed);
  if (opened && failures > 0 && mysql_ping(meta->handle()) != 0) {
    // The server restarted: the information_schema connection died with it.
    auto reopened = Connection::Open(options.connection);
    if (!reopened) return std::unexpected(reopened.error());
    meta = std::move(*reopened);
  }
  return opened;
}

Status MySqlCapture::Impl::ReadEvents(BinlogStream& stream, const Sink& sink,
                                      const std::atomic<bool>& stop, int* failures,
                                      Status* stream_failure) {
  BinlogDecoderOptions dopts;
  dopts.initial_checksum = stream.server_uses_crc32() ? ChecksumAlg::kCrc32 : ChecksumAlg::kOff;
  StreamSession s(sink, dopts);
  s.decoder.set_current_file(committed.binlog.file);
  s.executed = committed.gtids;
  while (!stop.load()) {
    auto next = stream.Next();
    if (!next) {
      *stream_failure = std::unexpected(next.error());
      return Ok();
    }
    if (!*next) return Ok();  // end of a non-blocking dump
    FLOE_ASSIGN_OR_RETURN(BinlogEvent ev, s.decoder.Decode(**next));
    *failures = 0;
    FLOE_RETURN_IF_ERROR(HandleEvent(s, ev));
  }
  return Ok();
}

Status MySqlCapture::Impl::HandleEvent(StreamSession& s, const BinlogEvent& ev) {
  switch (ev.header.type) {
    case event_type::kMariaGtid: {
      const auto& g = std::get<MariaDbGtidEvent>(ev.body);
      s.tx_maria = g.gtid;
      s.tx_is_maria = true;
      s.tx_gtid = g.gtid.ToString();
      s.standalone = g.standalone();
      return Ok();
    }
    case event_type::kGtid: {
      const auto& g = std::get<MySqlGtidEvent>(ev.body);
      s.mysql_uuid = g.uuid;
      s.mysql_gno = g.gno;
      s.tx_gtid = g.ToString();
      return Ok();
    }
    case event_type::kMariaAnnotateRows:
    case event_type::kRowsQuery:
      s.annotate = std::string(std::get<RowsQueryEvent>(ev.body).query);
      return Ok();
    case event_type::kXid:
      return CommitTransaction(s, ev.header.log_pos);
    case event_type::kQuery:
      return HandleQuery(s, ev, std::get<QueryEvent>(ev.body));
    case event_type::kTableMap:
      return HandleTableMap(s, ev);
    default:
      if (const auto* re = std::get_if<RowsEvent>(&ev.body)) return HandleRows(s, ev, *re);
      return Ok();
  }
}

Status MySqlCapture::Impl::CommitTransaction(StreamSession& s, uint64_t next_pos) {
  if (s.tx_is_maria) {
    (void)s.executed.AddMariaDb(s.tx_maria);
  } else if (!s.mysql_uuid.empty()) {
    (void)s.executed.AddMySql(s.mysql_uuid, s.mysql_gno);
  }
  SourcePosition resume;
  resume.binlog = {s.decoder.current_file(), next_pos};
  resume.gtids = s.executed;
  resume.server_id = committed.server_id;
  s.batch.ends_transaction = true;
  s.batch.resume = resume;
  bool had_events = !s.batch.events.empty();
  // The state after this transaction first, so that the sink can ask for it (State()).
  committed = resume;
  if (!provisional.empty() && Compare(committed.binlog, provisional_end) >= 0) {
    provisional.clear();
  }
  for (auto it = not_before.begin(); it != not_before.end();) {
    it = Compare(committed.binlog, it->second) >= 0 ? not_before.erase(it) : std::next(it);
  }
  bool filter_done = !filter.empty() && Compare(committed.binlog, filter.end()) >= 0;
  if (filter_done) {
    spdlog::info("capture: the stream passed the snapshot's last high watermark {}",
                 filter.end().ToString());
    filter = SnapshotFilter();
  }
  auto now = std::chrono::steady_clock::now();
  if (had_events ||
      (options.boundary_batches && (filter_done || now - last_boundary > kBoundaryInterval))) {
    FLOE_RETURN_IF_ERROR(s.sink(s.batch));
    last_boundary = now;
  }
  s.batch.Clear();
  s.tx_gtid.clear();
  s.tx_is_maria = false;
  s.mysql_uuid.clear();
  s.standalone = false;
  s.annotate.clear();
  if (had_events || filter_done ||
      std::chrono::steady_clock::now() - last_state_write > std::chrono::seconds(5)) {
    FLOE_RETURN_IF_ERROR(SaveState());
  }
  return Ok();
}

Status MySqlCapture::Impl::HandleQuery(StreamSession& s, const BinlogEvent& ev,
                                       const QueryEvent& q) {
  std::string word = UpperWord(q.query);
  s.thread_id = q.thread_id;
  if (word == "BEGIN" || word == "XA" || word == "SAVEPOINT") return Ok();
  if (word == "COMMIT") return CommitTransaction(s, ev.header.log_pos);
  if (word == "ROLLBACK") {
    s.batch.Clear();
    return CommitTransaction(s, ev.header.log_pos);
  }
  // A DDL (or another statement logged as text).
  bool table_ddl = word == "CREATE" || word == "ALTER" || word == "DROP" || word == "RENAME" ||
                   word == "TRUNCATE";
  const std::string where = fmt::format("{}:{}", s.decoder.current_file(), ev.position);
  if (table_ddl && DdlBeforeItsSnapshot(q.query, q.db, {s.decoder.current_file(), ev.position})) {
    // The table's snapshot, taken later, holds its effect.
    spdlog::info("capture: binlog {}: DDL before its table's snapshot, skipped: {:.200}", where,
                 q.query);
    return CommitTransaction(s, ev.header.log_pos);
  }
  if (table_ddl) ForgetProvisionalTargets(q.query, q.db);
  auto changes = tracker.Apply(q.query, q.db);
  if (!changes) {
    if (table_ddl && changes.error().code() != ErrorCode::kNotFound) {
      return std::unexpected(std::move(changes).error().WithContext(
          fmt::format("binlog {}: DDL '{}'", where, q.query.substr(0, 500))));
    }
    // Statements on other objects (users, views, routines) and DDL on tables
    // floe never saw: logged, not applied.
    spdlog::warn("capture: binlog {}: statement not applied ({}): {}", where,
                 changes.error().message(), q.query.substr(0, 200));
  } else if (!changes->empty()) {
    FLOE_RETURN_IF_ERROR(AddSchemaChanges(s, ev, q, *changes));
  }
  // DDL commits implicitly; a standalone GTID group ends with its statement.
  return CommitTransaction(s, ev.header.log_pos);
}

Status MySqlCapture::Impl::AddSchemaChanges(StreamSession& s, const BinlogEvent& ev,
                                            const QueryEvent& q,
                                            const std::vector<mysql::SchemaChange>& changes) {
  auto source = s.SourceOf(ev, q.thread_id, std::string(q.query));
  for (const auto& c : changes) {
    cdc::SchemaChange sc;
    sc.kind = c.kind;
    sc.table = {c.db, c.table};
    sc.old_table = {c.old_db, c.old_table};
    sc.column = c.column;
    sc.old_column = c.old_column;
    sc.position = c.position;
    sc.ddl = std::string(q.query);
    sc.database = std::string(q.db);
    sc.source = source;
    definitions.erase({c.db, c.table});
    if (!c.old_table.empty()) definitions.erase({c.old_db, c.old_table});
    if (c.kind != mysql::SchemaChangeKind::kDropTable) {
      FLOE_ASSIGN_OR_RETURN(auto def, MakeTableDefinition(c.after, ++version));
      definitions[{c.db, c.table}] = def;
      sc.table_after = def;
    }
    s.batch.events.emplace_back(std::move(sc));
  }
  return Ok();
}

Status MySqlCapture::Impl::HandleTableMap(StreamSession& s, const BinlogEvent& ev) {
  const TableMapEvent* t = std::get<const TableMapEvent*>(ev.body);
  if (!Selected(t->db, t->table)) return Ok();
  if (BeforeItsSnapshot(t->db, t->table, {s.decoder.current_file(), ev.position})) return Ok();
  const TableSchema* schema = tracker.Find(t->db, t->table);
  if (!schema) {
    auto def = Definition(t->db, t->table);
    if (!def) return std::unexpected(def.error());
    schema = tracker.Find(t->db, t->table);
  }
  // Complete what the server did not describe (binlog_row_metadata=MINIMAL).
  if (schema) CompleteTableMap(s.decoder.MutableTable(t->table_id), *schema);
  return Ok();
}

Status MySqlCapture::Impl::HandleRows(StreamSession& s, const BinlogEvent& ev,
                                      const RowsEvent& re) {
  FLOE_ASSIGN_OR_RETURN(const TableMapEvent* t, s.decoder.FindTable(re.table_id));
  if (!Selected(t->db, t->table)) return Ok();
  if (BeforeItsSnapshot(t->db, t->table, {s.decoder.current_file(), ev.position})) return Ok();
  FLOE_ASSIGN_OR_RETURN(auto def, Definition(t->db, t->table));
  const std::string where = fmt::format("{}:{}", s.decoder.current_file(), ev.position);
  if (def->columns.size() != t->columns.size()) {
    return SchemaIncompatible(
        "binlog {}: rows of {}.{} have {} columns but the tracked schema has {}: a DDL was "
        "not captured (restart with --startup initial)",
        where, t->db, t->table, t->columns.size(), def->columns.size());
  }
  FLOE_RETURN_IF_ERROR(s.rows.Reset(*t, re, where));
  auto source = s.SourceOf(ev, s.thread_id, s.annotate);
  ChangeOp op = re.kind == RowsKind::kWrite    ? ChangeOp::kInsert
                : re.kind == RowsKind::kUpdate ? ChangeOp::kUpdate
                                               : ChangeOp::kDelete;
  while (true) {
    types::Row before, after;
    uint32_t index = s.rows.row_index();
    FLOE_ASSIGN_OR_RETURN(bool more, s.rows.Next(s.batch.arena.get(), &before, &after));
    if (!more) break;
    RowChange rc;
    rc.op = op;
    if (!filter.empty()) {
      switch (filter.Decide(t->db, t->table, before, after, source->position.binlog)) {
        case SnapshotFilter::Decision::kEmit:
          break;
        case SnapshotFilter::Decision::kSkip:
          continue;
        case SnapshotFilter::Decision::kEmitInsert:
          rc.op = ChangeOp::kInsert;
          before = {};
          break;
        case SnapshotFilter::Decision::kEmitDelete:
          rc.op = ChangeOp::kDelete;
          after = {};
          break;
      }
    }
    rc.table = def;
    rc.before = before;
    rc.after = after;
    rc.source = source;
    rc.row_in_event = index;
    s.batch.events.emplace_back(std::move(rc));
  }
  return Ok();
}

}  // namespace floe::cdc::mysql
