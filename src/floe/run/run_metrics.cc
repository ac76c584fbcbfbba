#include "floe/run/run_metrics.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/common/json_dump.h"
#include "floe/common/markup.h"
#include "floe/common/printable.h"

namespace floe::run {

namespace {

int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// VmRSS and VmHWM of this process in bytes (-1 when unreadable).
void ReadMemory(int64_t* resident, int64_t* peak) {
  *resident = -1;
  *peak = -1;
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return;
  char line[256];
  long long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %lld kB", &kib) == 1) *resident = kib * 1024;
    if (std::sscanf(line, "VmHWM: %lld kB", &kib) == 1) *peak = kib * 1024;
  }
  std::fclose(f);
}

/// Seconds from `ts_ms` to `now_ms` (never negative: clocks of two machines).
double SecondsSince(int64_t ts_ms, int64_t now_ms) {
  return std::max<double>(0, static_cast<double>(now_ms - ts_ms) / 1000.0);
}

std::string EscapeLabel(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

std::string EscapeHtml(std::string_view value) { return EscapeMarkup(value, Markup::kHtml); }

/// Integers exactly (snapshot ids need all 64 bits), other values in the
/// shortest form that reads back the same.
std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}
std::string Number(int64_t v) { return fmt::format("{}", v); }

/// Writes one metric family: HELP, TYPE, then its samples.
class Family {
 public:
  Family(std::string* out, std::string_view name, std::string_view type, std::string_view help)
      : out_(out), name_(name) {
    *out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  /// `labels`: pairs of name and value.
  template <typename V>
  void Sample(V value,
              std::initializer_list<std::pair<std::string_view, std::string_view>> labels = {}) {
    *out_ += name_;
    if (labels.size() > 0) {
      *out_ += '{';
      bool first = true;
      for (const auto& [k, v] : labels) {
        if (!first) *out_ += ',';
        first = false;
        *out_ += fmt::format("{}=\"{}\"", k, EscapeLabel(v));
      }
      *out_ += '}';
    }
    *out_ += ' ';
    if constexpr (std::is_integral_v<V>) {
      *out_ += Number(static_cast<int64_t>(value));
    } else {
      *out_ += Number(static_cast<double>(value));
    }
    *out_ += '\n';
  }

 private:
  std::string* out_;
  std::string name_;
};

nlohmann::json TallyJson(const TableTally& t) {
  return {{"insert", t.inserts}, {"update", t.updates}, {"delete", t.deletes}, {"read", t.reads}};
}

template <typename V>
nlohmann::json OrNull(V v, bool known) {
  return known ? nlohmann::json(v) : nlohmann::json();
}

std::string AgoText(int64_t unix_ms, int64_t now_ms) {
  if (unix_ms <= 0) return "—";
  return HumanSeconds(SecondsSince(unix_ms, now_ms)) + " ago";
}

}  // namespace

void TableTally::Add(const TableTally& other) {
  inserts += other.inserts;
  updates += other.updates;
  deletes += other.deletes;
  reads += other.reads;
  max_ts_ms = std::max(max_ts_ms, other.max_ts_ms);
}

RunMetrics::RunMetrics() { s_.started_unix_ms = UnixMs(); }

void RunMetrics::SetPipelineName(std::string name) {
  std::lock_guard lock(mu_);
  s_.pipeline = std::move(name);
}

void RunMetrics::SetSnapshotRunning(bool running) {
  std::lock_guard lock(mu_);
  s_.snapshot_running = running;
}

bool RunMetrics::snapshot_running() const {
  std::lock_guard lock(mu_);
  return s_.snapshot_running;
}

std::string RunMetrics::position() const {
  std::lock_guard lock(mu_);
  return s_.position;
}

size_t RunMetrics::table_count() const {
  std::lock_guard lock(mu_);
  return s_.tables.size();
}

TableMetrics& RunMetrics::TableLocked(const std::string& table) { return s_.tables[table]; }

void RunMetrics::PublishHandedOn(const TableTallies& tallies, int64_t changes, std::string position,
                                 int64_t last_change_ts_ms) {
  std::lock_guard lock(mu_);
  for (const auto& [table, tally] : tallies) {
    TableLocked(table).handed_on.Add(tally);
    open_[table].Add(tally);
  }
  s_.changes += changes;
  if (!position.empty()) s_.position = std::move(position);
  if (last_change_ts_ms > 0) s_.last_change_ts_ms = last_change_ts_ms;
}

void RunMetrics::CheckpointTaken(engine::CheckpointId id) {
  std::lock_guard lock(mu_);
  taken_at_[id] = Clock::now();
  while (taken_at_.size() > kKeptCheckpoints) taken_at_.erase(taken_at_.begin());
  if (!open_.empty()) {
    TableTallies& into = pending_[id];
    for (auto& [table, tally] : open_) into[table].Add(tally);
    open_.clear();
  }
  // Bounded: the oldest checkpoint's tallies join the next one, so a later
  // commit of the table still counts them.
  while (pending_.size() > kKeptCheckpoints) {
    auto oldest = pending_.begin();
    auto next = std::next(oldest);
    for (auto& [table, tally] : oldest->second) next->second[table].Add(tally);
    pending_.erase(oldest);
  }
}

void RunMetrics::Committed(const sink::CommitOutcome& outcome) {
  if (!outcome.status) {
    RecordError(fmt::format("commit of table {} at checkpoint {} failed: {}", outcome.table,
                            outcome.checkpoint_id, outcome.status.error().ToString()));
    return;
  }
  std::lock_guard lock(mu_);
  TableMetrics& t = TableLocked(outcome.table);
  TableTally committed;
  for (auto it = pending_.begin(); it != pending_.end() && it->first <= outcome.checkpoint_id;) {
    auto found = it->second.find(outcome.table);
    if (found != it->second.end()) {
      committed.Add(found->second);
      it->second.erase(found);
    }
    it = it->second.empty() ? pending_.erase(it) : std::next(it);
  }
  t.committed.Add(committed);
  if (committed.max_ts_ms > t.newest_committed_ts_ms)
    t.newest_committed_ts_ms = committed.max_ts_ms;
  ++t.commits;
  ++s_.commits;
  t.added_files += outcome.added_files;
  if (outcome.snapshot_id >= 0) t.last_snapshot_id = outcome.snapshot_id;
  t.last_checkpoint = std::max(t.last_checkpoint, outcome.checkpoint_id);
  // The commit's own end (a checkpoint's outcomes arrive together, after its
  // last table), else now.
  const Clock::time_point now = Clock::now();
  const Clock::time_point at =
      outcome.committed_at != Clock::time_point{} ? std::min(outcome.committed_at, now) : now;
  t.last_commit_unix_ms =
      UnixMs() - std::chrono::duration_cast<std::chrono::milliseconds>(now - at).count();
  if (auto taken = taken_at_.find(outcome.checkpoint_id); taken != taken_at_.end()) {
    t.last_commit_seconds = std::chrono::duration<double>(at - taken->second).count();
  }
}

void RunMetrics::SetCheckpointDir(std::string dir) {
  std::lock_guard lock(mu_);
  checkpoint_dir_ = std::move(dir);
}

void RunMetrics::CheckpointCompleted(engine::CheckpointId id) {
  std::string dir;
  {
    std::lock_guard lock(mu_);
    if (id <= s_.last_checkpoint) return;
    dir = checkpoint_dir_;
  }
  int64_t file_bytes = dir.empty() ? -1 : NewestFileBytes(dir);
  std::lock_guard lock(mu_);
  if (id <= s_.last_checkpoint) return;
  s_.last_checkpoint = id;
  ++s_.checkpoints_completed;
  s_.last_checkpoint_bytes = file_bytes;
  if (auto taken = taken_at_.find(id); taken != taken_at_.end()) {
    s_.last_checkpoint_seconds =
        std::chrono::duration<double>(Clock::now() - taken->second).count();
  }
}

void RunMetrics::RecordError(std::string message) {
  std::lock_guard lock(mu_);
  s_.last_error = std::move(message);
  s_.last_error_unix_ms = UnixMs();
}

void RunMetrics::SetFailed(std::string message) {
  std::lock_guard lock(mu_);
  s_.failed = true;
  s_.last_error = std::move(message);
  s_.last_error_unix_ms = UnixMs();
}

void RunMetrics::SetSlotWal(SlotWalMetrics slot_wal) {
  slot_wal.read_unix_ms = UnixMs();
  std::lock_guard lock(mu_);
  s_.slot_wal = std::move(slot_wal);
}

MetricsSnapshot RunMetrics::Read() const {
  MetricsSnapshot copy;
  {
    std::lock_guard lock(mu_);
    copy = s_;
  }
  copy.now_unix_ms = UnixMs();
  ReadMemory(&copy.resident_bytes, &copy.peak_resident_bytes);
  return copy;
}

std::string RenderPrometheus(const MetricsSnapshot& m) {
  std::string out;
  const int64_t now = m.now_unix_ms;
  {
    Family f(&out, "floe_pipeline_info", "gauge",
             "The pipeline (label pipeline) and the binlog position after the last transaction "
             "handed on to the writers (label position); always 1");
    f.Sample(1, {{"pipeline", m.pipeline}, {"position", m.position}});
  }
  Family(&out, "floe_start_time_seconds", "gauge", "When this process started, in Unix seconds")
      .Sample(m.started_unix_ms / 1000.0);
  Family(&out, "floe_pipeline_failed", "gauge",
         "1 once the run stopped with an error (see /status), else 0")
      .Sample(m.failed ? 1 : 0);
  Family(&out, "floe_snapshot_running", "gauge", "1 while the initial snapshot runs, else 0")
      .Sample(m.snapshot_running ? 1 : 0);
  Family(&out, "floe_source_changes_total", "counter",
         "Changes (rows and schema changes) read from the source and handed on to the writers")
      .Sample(static_cast<double>(m.changes));
  if (m.last_change_ts_ms > 0) {
    Family(&out, "floe_source_last_change_timestamp_seconds", "gauge",
           "Source commit time of the last change handed on, in Unix seconds")
        .Sample(m.last_change_ts_ms / 1000.0);
    Family(&out, "floe_source_lag_seconds", "gauge",
           "Now minus the source commit time of the last change handed on (grows while the "
           "database is idle)")
        .Sample(SecondsSince(m.last_change_ts_ms, now));
  }
  Family(&out, "floe_checkpoints_completed_total", "counter", "Checkpoints completed by this run")
      .Sample(static_cast<double>(m.checkpoints_completed));
  Family(&out, "floe_last_checkpoint_id", "gauge",
         "Id of the newest completed checkpoint (0: none)")
      .Sample(static_cast<double>(m.last_checkpoint));
  if (m.last_checkpoint_seconds >= 0) {
    Family(&out, "floe_last_checkpoint_duration_seconds", "gauge",
           "Time from the newest completed checkpoint's barrier at the source to its completion")
        .Sample(m.last_checkpoint_seconds);
  }
  if (m.last_checkpoint_bytes >= 0) {
    Family(&out, "floe_last_checkpoint_size_bytes", "gauge",
           "Size of the newest completed checkpoint's file in the state folder")
        .Sample(static_cast<double>(m.last_checkpoint_bytes));
  }
  Family(&out, "floe_commits_total", "counter", "Iceberg commits (one per table and checkpoint)")
      .Sample(static_cast<double>(m.commits));
  if (m.resident_bytes >= 0) {
    Family(&out, "floe_process_resident_memory_bytes", "gauge", "Resident memory of the process")
        .Sample(static_cast<double>(m.resident_bytes));
  }
  if (m.peak_resident_bytes >= 0) {
    Family(&out, "floe_process_peak_resident_memory_bytes", "gauge",
           "Peak resident memory of the process")
        .Sample(static_cast<double>(m.peak_resident_bytes));
  }
  if (const auto& w = m.slot_wal) {
    Family(&out, "floe_postgres_slot_retained_wal_bytes", "gauge",
           "WAL the server keeps for the source's replication slot: pg_current_wal_lsn() minus "
           "the slot's restart_lsn")
        .Sample(w->retained_bytes, {{"slot", w->slot}});
    Family(&out, "floe_postgres_slot_unconfirmed_wal_bytes", "gauge",
           "pg_current_wal_lsn() minus the slot's confirmed_flush_lsn: WAL the lake does not "
           "hold yet, or that no heartbeat has confirmed")
        .Sample(w->unconfirmed_bytes, {{"slot", w->slot}});
    Family(&out, "floe_postgres_slot_confirmed_flush_lsn", "gauge",
           "The slot's confirmed_flush_lsn as an integer (label lsn: as the server writes it)")
        .Sample(static_cast<int64_t>(w->confirmed_lsn),
                {{"slot", w->slot}, {"lsn", w->confirmed_lsn_text}});
  }
  if (m.tables.empty()) return out;

  auto by_op = [&](std::string_view name, std::string_view help, TableTally TableMetrics::*which) {
    Family f(&out, name, "counter", help);
    for (const auto& [table, t] : m.tables) {
      const TableTally& c = t.*which;
      f.Sample(static_cast<double>(c.inserts), {{"table", table}, {"op", "insert"}});
      f.Sample(static_cast<double>(c.updates), {{"table", table}, {"op", "update"}});
      f.Sample(static_cast<double>(c.deletes), {{"table", table}, {"op", "delete"}});
      f.Sample(static_cast<double>(c.reads), {{"table", table}, {"op", "read"}});
    }
  };
  by_op("floe_table_changes_read_total",
        "Row changes of the table read from the source and handed on to the writers, by op "
        "(read: rows of the initial snapshot)",
        &TableMetrics::handed_on);
  by_op("floe_table_rows_committed_total",
        "Row changes of the table in Iceberg commits of this run, by op (read: rows of the "
        "initial snapshot)",
        &TableMetrics::committed);
  {
    Family f(&out, "floe_table_commits_total", "counter", "Iceberg commits to the table");
    for (const auto& [table, t] : m.tables)
      f.Sample(static_cast<double>(t.commits), {{"table", table}});
  }
  {
    Family f(&out, "floe_table_data_files_added_total", "counter",
             "Data and delete files added to the table by its commits");
    for (const auto& [table, t] : m.tables) {
      f.Sample(static_cast<double>(t.added_files), {{"table", table}});
    }
  }
  {
    Family f(&out, "floe_table_last_snapshot_id", "gauge",
             "Iceberg snapshot id of the table's last commit");
    for (const auto& [table, t] : m.tables) {
      if (t.last_snapshot_id >= 0) f.Sample(t.last_snapshot_id, {{"table", table}});
    }
  }
  {
    Family f(&out, "floe_table_last_checkpoint_id", "gauge",
             "Checkpoint id of the table's last commit");
    for (const auto& [table, t] : m.tables) {
      if (t.commits > 0) f.Sample(t.last_checkpoint, {{"table", table}});
    }
  }
  {
    Family f(&out, "floe_table_last_commit_duration_seconds", "gauge",
             "Time from the checkpoint's barrier at the source to the end of the table's commit "
             "of it (files completed, checkpoint stored, Iceberg commit)");
    for (const auto& [table, t] : m.tables) {
      if (t.last_commit_seconds >= 0) f.Sample(t.last_commit_seconds, {{"table", table}});
    }
  }
  {
    Family f(&out, "floe_table_last_commit_timestamp_seconds", "gauge",
             "When the table's last commit ended, in Unix seconds");
    for (const auto& [table, t] : m.tables) {
      if (t.last_commit_unix_ms > 0) f.Sample(t.last_commit_unix_ms / 1000.0, {{"table", table}});
    }
  }
  {
    Family f(&out, "floe_table_freshness_seconds", "gauge",
             "Now minus the source commit time of the newest change committed to the table");
    for (const auto& [table, t] : m.tables) {
      if (t.newest_committed_ts_ms > 0) {
        f.Sample(SecondsSince(t.newest_committed_ts_ms, now), {{"table", table}});
      }
    }
  }
  return out;
}

std::string RenderStatusJson(const MetricsSnapshot& m) {
  const int64_t now = m.now_unix_ms;
  nlohmann::json j;
  j["pipeline"] = m.pipeline;
  j["state"] = m.failed ? "failed" : m.snapshot_running ? "snapshot" : "streaming";
  j["now_unix_ms"] = now;
  j["started_unix_ms"] = m.started_unix_ms;
  j["source"] = {
      {"position", m.position},
      {"changes", m.changes},
      {"snapshot_running", m.snapshot_running},
      {"last_change_unix_ms", OrNull(m.last_change_ts_ms, m.last_change_ts_ms > 0)},
      {"lag_seconds", OrNull(SecondsSince(m.last_change_ts_ms, now), m.last_change_ts_ms > 0)},
  };
  j["checkpoints"] = {
      {"completed", m.checkpoints_completed},
      {"last_id", m.last_checkpoint},
      {"last_duration_seconds", OrNull(m.last_checkpoint_seconds, m.last_checkpoint_seconds >= 0)},
      {"last_size_bytes", OrNull(m.last_checkpoint_bytes, m.last_checkpoint_bytes >= 0)},
  };
  j["commits"] = m.commits;
  if (const auto& w = m.slot_wal) {
    j["postgres_slot"] = {{"slot", w->slot},
                          {"retained_wal_bytes", w->retained_bytes},
                          {"unconfirmed_wal_bytes", w->unconfirmed_bytes},
                          {"confirmed_flush_lsn", w->confirmed_lsn_text},
                          {"read_unix_ms", w->read_unix_ms}};
  }
  j["memory"] = {
      {"resident_bytes", OrNull(m.resident_bytes, m.resident_bytes >= 0)},
      {"peak_resident_bytes", OrNull(m.peak_resident_bytes, m.peak_resident_bytes >= 0)},
  };
  if (m.last_error.empty()) {
    j["error"] = nullptr;
  } else {
    j["error"] = {{"message", m.last_error}, {"unix_ms", m.last_error_unix_ms}};
  }
  nlohmann::json tables = nlohmann::json::object();
  for (const auto& [table, t] : m.tables) {
    tables[table] = {
        {"changes_read", TallyJson(t.handed_on)},
        {"rows_committed", TallyJson(t.committed)},
        {"commits", t.commits},
        {"data_files_added", t.added_files},
        {"last_snapshot_id", OrNull(t.last_snapshot_id, t.last_snapshot_id >= 0)},
        {"last_checkpoint_id", OrNull(t.last_checkpoint, t.commits > 0)},
        {"last_commit_duration_seconds", OrNull(t.last_commit_seconds, t.last_commit_seconds >= 0)},
        {"last_commit_unix_ms", OrNull(t.last_commit_unix_ms, t.last_commit_unix_ms > 0)},
        {"freshness_seconds",
         OrNull(SecondsSince(t.newest_committed_ts_ms, now), t.newest_committed_ts_ms > 0)},
    };
  }
  j["tables"] = std::move(tables);
  return DumpJson(j);
}

std::string RenderStatusHtml(const MetricsSnapshot& m, int refresh_seconds) {
  const int64_t now = m.now_unix_ms;
  std::string state = m.failed ? "failed" : m.snapshot_running ? "initial snapshot" : "streaming";
  std::string state_class = m.failed ? "bad" : m.snapshot_running ? "warn" : "ok";
  std::string html = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{}">
<title>floe run: {}</title>
<style>
body{{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em 2em;color:#1d2630;background:#f7f8fa}}
h1{{font-size:1.4em;margin:0 0 .3em}} h1 small{{font-weight:normal;color:#667}}
.badge{{display:inline-block;padding:.15em .6em;border-radius:1em;font-size:.8em;color:#fff;vertical-align:middle}}
.ok{{background:#2e8540}} .warn{{background:#c77c02}} .bad{{background:#c62828}}
.cards{{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}}
.card{{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:.6em .9em;min-width:9em}}
.card b{{display:block;font-size:1.15em}} .card span{{color:#667;font-size:.8em}}
.wide{{overflow-x:auto;border:1px solid #dde1e6;border-radius:6px}}
table{{border-collapse:collapse;background:#fff;width:100%;font-size:.95em}}
th,td{{padding:.35em .5em;border-bottom:1px solid #eceff3;text-align:right;white-space:nowrap}}
th{{background:#eef1f5;font-weight:600}} td:first-child,th:first-child{{text-align:left}}
.error{{background:#fdecea;border:1px solid #f5c2c0;color:#8a1c1c;padding:.7em 1em;border-radius:6px;white-space:pre-wrap;font-family:monospace}}
footer{{margin-top:1em;color:#889;font-size:.8em}}
</style></head><body>
<h1>{} <span class="badge {}">{}</span> <small>floe run</small></h1>
)",
                                 refresh_seconds, EscapeHtml(m.pipeline), EscapeHtml(m.pipeline),
                                 state_class, state);
  auto card = [&](std::string_view label, const std::string& value) {
    html +=
        fmt::format("<div class=\"card\"><b>{}</b><span>{}</span></div>", EscapeHtml(value), label);
  };
  html += "<div class=\"cards\">";
  card("binlog position", m.position.empty() ? "—" : m.position);
  card("lag", m.last_change_ts_ms > 0 ? HumanSeconds(SecondsSince(m.last_change_ts_ms, now)) : "—");
  card("changes read", Thousands(m.changes));
  card("commits", Thousands(m.commits));
  card("last checkpoint",
       m.last_checkpoint > 0
           ? fmt::format("#{} ({})", m.last_checkpoint, HumanSeconds(m.last_checkpoint_seconds))
           : "—");
  card("memory",
       m.resident_bytes >= 0 ? fmt::format("{:.1f} MiB", m.resident_bytes / 1048576.0) : "—");
  if (const auto& w = m.slot_wal) {
    card("WAL retained by the slot",
         fmt::format("{:.1f} MiB ({} confirmed {})", w->retained_bytes / 1048576.0, w->slot,
                     w->confirmed_lsn_text));
  }
  card("up", HumanSeconds(SecondsSince(m.started_unix_ms, now)));
  html += "</div>\n";
  if (!m.last_error.empty()) {
    html += fmt::format("<p class=\"error\"><b>{}</b> ({}): {}</p>\n",
                        m.failed ? "Failed" : "Last warning or error",
                        AgoText(m.last_error_unix_ms, now), EscapeHtml(m.last_error));
  }
  html +=
      "<div class=\"wide\"><table><tr><th>table</th><th>freshness</th><th>inserts</th>"
      "<th>updates</th><th>deletes</th><th>snapshot rows</th><th>last commit</th>"
      "<th>checkpoint</th><th>commit took</th></tr>\n";
  if (m.tables.empty()) {
    html += "<tr><td colspan=\"9\">no table has rows yet</td></tr>\n";
  }
  for (const auto& [table, t] : m.tables) {
    const TableTally& c = t.committed;
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td title=\"snapshot {}\">{}</td><td>{}</td></tr>\n",
        EscapeHtml(table),
        t.newest_committed_ts_ms > 0 ? HumanSeconds(SecondsSince(t.newest_committed_ts_ms, now))
                                     : "—",
        Thousands(c.inserts), Thousands(c.updates), Thousands(c.deletes), Thousands(c.reads),
        AgoText(t.last_commit_unix_ms, now),
        t.last_snapshot_id >= 0 ? std::to_string(t.last_snapshot_id) : "—",
        t.commits > 0 ? std::to_string(t.last_checkpoint) : "—",
        HumanSeconds(t.last_commit_seconds));
  }
  html += fmt::format(
      "</table></div>\n<footer>{} table(s). Freshness: now minus the source commit time of the "
      "newest "
      "change committed to the table. Counts since this process started. Reloads every {} s; "
      "<a href=\"/metrics\">/metrics</a>, <a href=\"/status\">/status</a>.</footer>\n"
      "</body></html>\n",
      m.tables.size(), refresh_seconds);
  return html;
}

int64_t NewestFileBytes(const std::string& dir) {
  std::error_code ec;
  int64_t bytes = -1;
  std::filesystem::file_time_type newest{};
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (!it->is_regular_file(e)) continue;
    auto time = it->last_write_time(e);
    if (e) continue;
    auto size = it->file_size(e);
    if (e) continue;
    if (bytes < 0 || time > newest) {
      newest = time;
      bytes = static_cast<int64_t>(size);
    }
  }
  return bytes;
}

std::string HumanSeconds(double s) {
  if (s < 0 || std::isnan(s)) return "—";
  if (s < 1) return fmt::format("{} ms", static_cast<int64_t>(s * 1000));
  if (s < 60) return fmt::format("{:.1f} s", s);
  auto whole = static_cast<int64_t>(s);
  if (whole < 3600) return fmt::format("{} min {} s", whole / 60, whole % 60);
  if (whole < 86400) return fmt::format("{} h {} min", whole / 3600, whole % 3600 / 60);
  return fmt::format("{} d {} h", whole / 86400, whole % 86400 / 3600);
}

}  // namespace floe::run
