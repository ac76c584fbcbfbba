"""`floe run` with many tables: 10,000 tables from one process (issue 10's scale judgement).

The goal: 10,000 tables in under 4 GiB of resident memory, with every checkpoint and every
commit round shorter than the checkpoint interval (Flink CDC never checkpointed 8,000 tables,
apache/flink-cdc #1199). Table commits per second is the number to move.

Creates (before the run) the database floe_bench_many on the server of
scripts/services/mariadb.sh: TABLES tables t00000.. of ROWS rows each
(id INT PRIMARY KEY, v VARCHAR(20), n BIGINT), 200 CREATE TABLE + INSERT per round trip
(multi-statements, as root over the server's socket). Then one `floe run` (a private copy of
--floe) into a SQL catalog (SQLite) lake in a temporary folder, with `pipeline.http` on a free
loopback port:

1. snapshot: from the start of floe until /status shows every table's snapshot rows committed
   (polled every second): seconds, tables/s, rows/s, floe CPU seconds, peak RSS;
2. steady: for --seconds, a writer (root over the socket) updates every table once per
   checkpoint interval, spread evenly: TABLES / interval statements
   `UPDATE tNNNNN SET n = n + 1 WHERE id = 1` per second, in transactions of
   --per-transaction statements (default 10; 1: each autocommit, which one connection with a
   commit fsync each cannot do 1,000 times a second on a busy 2-core machine), sent in
   multi-statement batches every 100 ms; if MariaDB cannot keep up, the statements not yet
   sent are reported as "behind". /metrics is sampled every min(2 s, interval / 4) (and on until every
   update is committed): floe_commits_total gives the table commits per second over the
   stage (and over the stage and its catch-up, below); floe_last_checkpoint_id /
   _duration_seconds each checkpoint's duration (barrier at the source to completion);
   floe_table_last_checkpoint_id / _last_commit_duration_seconds /
   _last_commit_timestamp_seconds, per checkpoint over the tables that committed it, the
   commit round: time from the checkpoint's barrier to a table's commit of it, p50 and max
   (the max is when the checkpoint's last table was committed; a table committing twice
   between two samples hides its first commit, so the tables seen per checkpoint are shown).
   Checkpoints taken before the writer started or after it stopped are marked so and left
   out of the verdicts. CPU seconds (user+sys and sys alone, /proc/PID/stat) over the stage,
   RSS and peak RSS (VmHWM);
3. check: once the writer stops, wait until /status shows for every table its ROWS snapshot
   rows and exactly the updates the writer made committed ("all in": seconds from the
   writer's stop); SIGTERM floe (final checkpoint and commit) and wait for exit 0; then a few
   tables, read back with `floe table scan`, must equal MariaDB row for row. Warnings and
   errors of floe's log are counted and the first few printed.

Every wait is capped (snapshot 30 min, catch-up and shutdown 10 min each) so a slow floe
gives a report, not a hang. The database is dropped at the end and the lake removed, unless
--keep. Run it under the benchmark lock; it needs pymysql (.cache/venv has it):

    scripts/services/mariadb.sh start
    flock /tmp/floe-bench.lock .cache/venv/bin/python bench/many_tables_bench.py
    .cache/venv/bin/python bench/many_tables_bench.py --tables 300 --seconds 20 --interval 2s
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pymysql
from pymysql.constants import CLIENT

from run_mysql_bench import PASSWORD, ROOT, SOCKET, cpu_seconds, mysql_source_block, peak_mib, root

DB = "floe_bench_many"
PER_ROUND_TRIP = 200  # CREATE TABLE + INSERT pairs per execute while making the database
SNAPSHOT_TIMEOUT_S = 30 * 60
CATCHUP_TIMEOUT_S = 10 * 60
SHUTDOWN_TIMEOUT_S = 10 * 60
GOAL_RSS_MIB = 4096
SAMPLED_TABLES = 10  # tables compared with MariaDB row for row after the run
WHEN = {"before": "   (before the writer started)", "after": "   (after the writer stopped)"}


def multi(database: str | None = None):
    """Root over the socket, several statements per execute."""
    return pymysql.connect(unix_socket=str(SOCKET), user="root", autocommit=True, database=database,
                           client_flag=CLIENT.MULTI_STATEMENTS)


def run_all(cursor, sql: str) -> None:
    """Executes a multi-statement text and reads every result."""
    cursor.execute(sql)
    while cursor.nextset():
        pass


def seconds_of(duration: str) -> float:
    """A pipeline duration (docs/pipeline.md: 500ms, 10s, 1min, 2h; a bare number is ms)."""
    m = re.fullmatch(r"\s*(\d+)\s*([a-z]*)\s*", duration.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {duration!r}")
    unit = {"": 0.001, "ms": 0.001, "s": 1, "sec": 1, "second": 1, "seconds": 1, "min": 60, "m": 60,
            "minute": 60, "minutes": 60, "h": 3600, "hour": 3600, "hours": 3600}.get(m.group(2))
    if unit is None:
        raise argparse.ArgumentTypeError(f"unknown unit in {duration!r}")
    return int(m.group(1)) * unit


def sys_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_database(names: list[str], rows: int) -> None:
    values = ",".join(f"({i},'v{i}',{i})" for i in range(1, rows + 1))
    conn = multi()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        c.execute(f"USE {DB}")
        for first in range(0, len(names), PER_ROUND_TRIP):
            run_all(c, ";".join(f"CREATE TABLE {t} (id INT PRIMARY KEY, v VARCHAR(20), n BIGINT);"
                                f"INSERT INTO {t} VALUES {values}"
                                for t in names[first:first + PER_ROUND_TRIP]))
    conn.close()


def drop_database() -> None:
    conn = root()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
    conn.close()


def http_get(url: str, timeout: float = 30) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


PIPELINE_METRICS = ("floe_commits_total", "floe_last_checkpoint_id", "floe_last_checkpoint_duration_seconds",
                    "floe_checkpoints_completed_total", "floe_process_resident_memory_bytes")
TABLE_METRICS = ("floe_table_last_checkpoint_id", "floe_table_last_commit_duration_seconds",
                 "floe_table_last_commit_timestamp_seconds")


TABLE_SAMPLE = re.compile(r'^[a-z_]+\{table="((?:[^"\\]|\\.)*)"\} (\S+)$', re.M)


def parse_metrics(text: str) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The pipeline samples named in PIPELINE_METRICS, and name -> table -> value for
    TABLE_METRICS. Only those families' parts of the page are read: with 10,000 tables it
    is some 150,000 lines, most of them per-op counters."""
    pipeline: dict[str, float] = {}
    for name in PIPELINE_METRICS:
        at = text.find(f"\n{name} ")
        if at >= 0:
            pipeline[name] = float(text[at + len(name) + 2:text.index("\n", at + 1)])
    tables: dict[str, dict[str, float]] = {}
    for name in TABLE_METRICS:
        at = text.find(f"# TYPE {name} ")
        end = text.find("# HELP ", at) if at >= 0 else -1
        part = text[at:end if end >= 0 else len(text)] if at >= 0 else ""
        tables[name] = {m.group(1): float(m.group(2)) for m in TABLE_SAMPLE.finditer(part)}
    return pipeline, tables


class Writer(threading.Thread):
    """Updates table after table, `rate` statements per second, in transactions of
    `per_transaction` statements (1: autocommit), sent in multi-statement batches every 100 ms
    (at most PER_ROUND_TRIP statements each)."""

    def __init__(self, names: list[str], rate: float, per_transaction: int):
        super().__init__(daemon=True)
        self.names, self.rate, self.per_transaction = names, rate, per_transaction
        self.updates = [0] * len(names)  # per table
        self.done = 0
        self.batch_s: list[float] = []
        self.behind = 0  # statements due but not yet sent when the writer stopped
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.elapsed_s = 0.0

    def run(self) -> None:
        try:
            conn = multi(DB)
            with conn.cursor() as c:
                began = time.monotonic()
                while not self.stop.is_set():
                    due = int((time.monotonic() - began) * self.rate) - self.done
                    if due <= 0:
                        self.stop.wait(0.1)
                        continue
                    picked = [(self.done + i) % len(self.names) for i in range(min(due, PER_ROUND_TRIP))]
                    sent = time.monotonic()
                    statements = [f"UPDATE {self.names[k]} SET n = n + 1 WHERE id = 1" for k in picked]
                    if self.per_transaction > 1:
                        statements = [";".join(["BEGIN"] + statements[i:i + self.per_transaction] + ["COMMIT"])
                                      for i in range(0, len(statements), self.per_transaction)]
                    run_all(c, ";".join(statements))
                    self.batch_s.append(time.monotonic() - sent)
                    for k in picked:
                        self.updates[k] += 1
                    self.done += len(picked)
                self.elapsed_s = time.monotonic() - began
                self.behind = max(0, int(self.elapsed_s * self.rate) - self.done)
            conn.close()
        except BaseException as e:  # reported by the main thread
            self.error = e


class Sampler(threading.Thread):
    """Reads /metrics every `period` seconds: pipeline counters, each completed checkpoint's
    duration, and per checkpoint and table the commit duration (barrier to commit end) and end
    time. At 10,000 tables the page is ~11 MB: floe renders it on each read, so reading it every
    second would load floe far more than a monitoring scrape (Prometheus: every 15 s) does."""

    def __init__(self, base: str, pid: int, period: float = 1.0):
        super().__init__(daemon=True)
        self.base, self.pid, self.period = base, pid, period
        self.max_fds = 0  # open file descriptors of floe, the most seen
        self.peak_mib = float("nan")  # VmHWM at the last sample (known even if floe dies)
        self.stop = threading.Event()
        self.checkpoint_s: dict[int, float] = {}  # checkpoint id -> duration
        self.checkpoint_seen: dict[int, float] = {}  # checkpoint id -> Unix time first seen completed
        self.commits: dict[int, dict[str, tuple[float, float]]] = {}  # id -> table -> (duration, end)
        self.first: dict[str, float] | None = None
        self.last: dict[str, float] | None = None
        self.fetch_s: list[float] = []
        self.page_bytes = 0
        self.errors = 0

    def sample(self) -> None:
        self.max_fds = max(self.max_fds, open_files(self.pid))
        try:
            peak = peak_mib(self.pid)
            if peak == peak:
                self.peak_mib = peak
        except OSError:
            pass
        began = time.monotonic()
        text = http_get(self.base + "/metrics")
        pipeline, tables = parse_metrics(text)
        self.fetch_s.append(time.monotonic() - began)
        self.page_bytes = len(text)
        if self.first is None:
            self.first = pipeline
        self.last = pipeline
        if "floe_last_checkpoint_duration_seconds" in pipeline and "floe_last_checkpoint_id" in pipeline:
            cid = int(pipeline["floe_last_checkpoint_id"])
            self.checkpoint_s.setdefault(cid, pipeline["floe_last_checkpoint_duration_seconds"])
            self.checkpoint_seen.setdefault(cid, time.time())
        ids = tables["floe_table_last_checkpoint_id"]
        durations = tables["floe_table_last_commit_duration_seconds"]
        ends = tables["floe_table_last_commit_timestamp_seconds"]
        for table, cid in ids.items():
            if table in durations and table in ends:
                self.commits.setdefault(int(cid), {})[table] = (durations[table], ends[table])

    def run(self) -> None:
        while True:
            try:
                self.sample()
            except (OSError, ValueError):
                self.errors += 1
            if self.stop.wait(max(0.0, self.period - (self.fetch_s[-1] if self.fetch_s else 0))):
                return


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def committed_counts(status: dict, names: list[str]) -> dict[str, dict[str, int]]:
    tables = status.get("tables", {})
    return {t: tables.get(f"{DB}.{t}", {}).get("rows_committed", {}) for t in names}


def floe_table_scan(floe: str, config: Path, table: str) -> list[tuple]:
    out = subprocess.run([floe, "table", "--catalog-config", str(config), "scan", f"{DB}.{table}"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return sorted((r["id"], r["v"], r["n"]) for r in rows)


def log_findings(log: Path) -> tuple[int, int, list[str]]:
    """Lines of level warning and error (or critical) in floe's log ("DATE TIME LEVEL message")."""
    warnings = errors = 0
    first: list[str] = []
    for line in log.read_text(errors="replace").splitlines():
        parts = line.split(" ", 3)
        level = parts[2].strip("[]").lower() if len(parts) > 2 else ""
        if level in ("error", "critical", "err", "crit"):
            errors += 1
        elif level in ("warning", "warn"):
            warnings += 1
        else:
            continue
        if len(first) < 5:
            first.append(line[:300])
    return warnings, errors, first


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=5, help="rows per table")
    parser.add_argument("--interval", default="10s", help="pipeline.checkpoint.interval")
    parser.add_argument("--seconds", type=float, default=60, help="length of the steady stage")
    parser.add_argument("--floe", default=str(ROOT / "build" / "floe"))
    parser.add_argument("--per-transaction", type=int, default=10,
                        help="updates per transaction in the steady stage (1: each autocommit)")
    parser.add_argument("--keep", action="store_true", help="keep the lake folder and the database")
    args = parser.parse_args()
    interval_s = seconds_of(args.interval)
    assert args.rows >= 1 and args.tables >= 1
    width = max(5, len(str(args.tables - 1)))
    names = [f"t{i:0{width}d}" for i in range(args.tables)]
    command = shlex.join(getattr(sys, "orig_argv", [sys.executable] + sys.argv))
    print(f"{args.tables:,} tables x {args.rows} rows; checkpoint.interval {args.interval}; steady "
          f"{args.seconds:.0f} s; {os.cpu_count()} cpus, load {'%.2f %.2f %.2f' % os.getloadavg()}; "
          f"open files limit {resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,}", flush=True)

    began = time.monotonic()
    make_database(names, args.rows)
    create_s = time.monotonic() - began
    print(f"created {args.tables:,} tables of {args.rows} rows in {create_s:.1f} s "
          f"({args.tables / create_s:,.0f} tables/s)", flush=True)

    work = Path(tempfile.mkdtemp(prefix="floe-many-bench-"))
    floe = str(work / "floe")
    shutil.copy2(args.floe, floe)
    lake = work / "lake"
    lake.mkdir()
    http_port = free_port()
    base = f"http://127.0.0.1:{http_port}"
    pipeline = lake / "many.yaml"
    pipeline.write_text(mysql_source_block(DB, random.randint(200000, 299999)) + f"""\
sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///catalog.db", warehouse: "warehouse"}}
pipeline:
  name: many-tables-bench
  checkpoint.interval: {args.interval}
  http: 127.0.0.1:{http_port}
""")
    log = lake / "run.log"
    env = dict(os.environ, BENCH_PASSWORD=PASSWORD)
    started = time.monotonic()
    with open(log, "w") as err:
        proc = subprocess.Popen([floe, "run", str(pipeline), "--progress", "never"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=env)
    pid = proc.pid
    problems: list[str] = []
    res: dict = {}
    writer: Writer | None = None
    sampler: Sampler | None = None
    exit_code = None

    def alive() -> bool:
        if proc.poll() is None:
            return True
        if not any(p.startswith("floe run exited") for p in problems):
            tail = "\n  ".join(log.read_text(errors="replace").splitlines()[-3:])
            problems.append(f"floe run exited {proc.returncode} early; the log ends:\n  {tail}")
        return False

    def status() -> dict | None:
        try:
            return json.loads(http_get(base + "/status"))
        except (OSError, ValueError):
            return None

    try:
        # 1. snapshot
        snapshot_ok = False
        res["snapshot_fds"] = 0
        while alive():
            res["snapshot_fds"] = max(res["snapshot_fds"], open_files(pid))
            doc = status()
            if doc is not None:
                counts = committed_counts(doc, names)
                done = sum(1 for c in counts.values() if c.get("read", 0) >= args.rows)
                if done == len(names):
                    snapshot_ok = True
                    break
            if time.monotonic() - started > SNAPSHOT_TIMEOUT_S:
                problems.append(f"snapshot not committed after {SNAPSHOT_TIMEOUT_S / 60:.0f} min "
                                f"({done if doc else 0:,} of {len(names):,} tables)")
                break
            time.sleep(1)
        res["snapshot_s"] = time.monotonic() - started
        res["snapshot_cpu"] = cpu_seconds(pid) if proc.poll() is None else float("nan")
        res["snapshot_sys"] = sys_seconds(pid) if proc.poll() is None else float("nan")
        res["snapshot_rss"] = rss_mib(pid) if proc.poll() is None else float("nan")
        res["snapshot_peak"] = peak_mib(pid) if proc.poll() is None else float("nan")
        if snapshot_ok:
            print(f"snapshot: {res['snapshot_s']:.1f} s, {len(names) / res['snapshot_s']:,.0f} tables/s, "
                  f"{len(names) * args.rows / res['snapshot_s']:,.0f} rows/s, floe CPU {res['snapshot_cpu']:.1f} s "
                  f"(sys {res['snapshot_sys']:.1f}), RSS {res['snapshot_rss']:.0f} MiB "
                  f"(peak {res['snapshot_peak']:.0f})", flush=True)

        # 2. steady
        if snapshot_ok:
            sampler = Sampler(base, pid, period=min(2.0, interval_s / 4))
            sampler.sample()  # the counters at the start
            first_checkpoint = int(sampler.first.get("floe_last_checkpoint_id", 0))
            cpu0, sys0 = cpu_seconds(pid), sys_seconds(pid)
            sampler.start()
            writer = Writer(names, len(names) / interval_s, args.per_transaction)
            stage_start_unix = time.time()
            stage_start = time.monotonic()
            writer.start()
            while time.monotonic() - stage_start < args.seconds and alive() and writer.is_alive():
                time.sleep(0.2)
            writer.stop.set()
            writer.join()
            stage_s = time.monotonic() - stage_start
            stage_end_unix = time.time()
            if writer.error:
                problems.append(f"writer failed: {writer.error!r}")
            # If floe died, the counters of the last sample.
            commits_at_end = (sampler.last or {}).get("floe_commits_total")
            if proc.poll() is None:
                cpu1, sys1 = cpu_seconds(pid), sys_seconds(pid)
                res["steady_cpu"], res["steady_sys"] = cpu1 - cpu0, sys1 - sys0
                res["steady_rss"], res["steady_peak"] = rss_mib(pid), peak_mib(pid)
                try:
                    commits_at_end = parse_metrics(http_get(base + "/metrics"))[0].get("floe_commits_total")
                except (OSError, ValueError):
                    pass
            res["stage_s"] = stage_s
            res["commits_s"] = ((commits_at_end - sampler.first["floe_commits_total"]) / stage_s
                                if commits_at_end is not None else float("nan"))
            res["updates"] = writer.done
            res["updates_s"] = writer.done / stage_s
            print(f"steady: {writer.done:,} updates in {stage_s:.1f} s ({res['updates_s']:,.0f}/s, "
                  f"{writer.behind:,} behind), {res['commits_s']:,.0f} table commits/s", flush=True)

            # 3. every update in the lake
            want = {t: {"insert": 0, "update": writer.updates[k], "delete": 0, "read": args.rows}
                    for k, t in enumerate(names)}
            res["all_in_s"] = float("nan")
            missing = len(names)
            while alive():
                doc = status()
                if doc is not None:
                    got = committed_counts(doc, names)
                    missing = sum(1 for t in names if got[t] != want[t])
                    over = [t for t in names if got[t].get("update", 0) > want[t]["update"]]
                    if over:
                        problems.append(f"more updates committed than made: {over[:5]}")
                        break
                    if missing == 0:
                        res["all_in_s"] = time.time() - stage_end_unix
                        if commits_at_end is not None:
                            res["catchup_commits_s"] = (doc["commits"] - commits_at_end) / res["all_in_s"]
                        res["overall_commits_s"] = ((doc["commits"] - sampler.first["floe_commits_total"])
                                                    / (stage_s + res["all_in_s"]))
                        break
                if time.time() - stage_end_unix > CATCHUP_TIMEOUT_S:
                    problems.append(f"{missing:,} tables still without all their updates "
                                    f"{CATCHUP_TIMEOUT_S / 60:.0f} min after the writer stopped")
                    break
                time.sleep(1)
            sampler.stop.set()
            sampler.join()
            res["status_ok"] = missing == 0
            if proc.poll() is None:
                res["peak"] = peak_mib(pid)
                res["error"] = (status() or {}).get("error")
                if "steady_cpu" in res:
                    res["catchup_cpu"], res["catchup_sys"] = cpu_seconds(pid) - cpu1, sys_seconds(pid) - sys1

            # per checkpoint taken after the stage began: duration, commit round
            rounds = []
            for cid in sorted(set(sampler.commits) | set(sampler.checkpoint_s)):
                if cid <= first_checkpoint:
                    continue
                per_table = sampler.commits.get(cid, {})
                durations = [d for d, _ in per_table.values()]
                taken = [end - d for d, end in per_table.values()]
                if taken:
                    taken_unix = statistics.median(taken)
                elif cid in sampler.checkpoint_seen:  # no table committed it: within a sample
                    taken_unix = sampler.checkpoint_seen[cid] - sampler.checkpoint_s[cid]
                else:
                    taken_unix = float("nan")
                rounds.append({"id": cid, "taken_at": taken_unix - stage_start_unix,
                               "when": ("before" if taken_unix < stage_start_unix else
                                        "after" if taken_unix > stage_end_unix else "during"),
                               "checkpoint_s": sampler.checkpoint_s.get(cid, float("nan")),
                               "tables": len(per_table), "p50": quantile(durations, 0.5),
                               "max": max(durations) if durations else float("nan")})
            res["rounds"] = rounds
            res["sampler"] = sampler
    finally:
        # SIGTERM: a final checkpoint and commit; VmHWM and CPU until the process is gone.
        final_peak, final_cpu, final_sys = res.get("peak", float("nan")), float("nan"), float("nan")
        stop_began = time.monotonic()
        if proc.poll() is None:
            final_peak, final_cpu, final_sys = peak_mib(pid), cpu_seconds(pid), sys_seconds(pid)
            cpu_at_stop, sys_at_stop = final_cpu, final_sys
            proc.send_signal(signal.SIGTERM)
            while proc.poll() is None and time.monotonic() - stop_began < SHUTDOWN_TIMEOUT_S:
                try:  # a process that has exited but is not yet reaped has no VmHWM
                    peak, cpu, sys_s = peak_mib(pid), cpu_seconds(pid), sys_seconds(pid)
                    if peak == peak:
                        final_peak, final_cpu, final_sys = peak, cpu, sys_s
                except (OSError, IndexError, ValueError):
                    pass  # exiting
                time.sleep(0.2)
            if proc.poll() is None:
                problems.append(f"floe run did not stop {SHUTDOWN_TIMEOUT_S / 60:.0f} min after SIGTERM; killed")
                proc.kill()
            exit_code = proc.wait()
            if exit_code != 0:
                problems.append(f"floe run exited {exit_code} after SIGTERM; log tail:\n{log.read_text()[-3000:]}")
        else:
            exit_code = proc.returncode
        res["stop_s"] = time.monotonic() - stop_began
        if sampler is not None and not final_peak >= sampler.peak_mib:
            final_peak = sampler.peak_mib  # floe died: its VmHWM at the last sample
        res["final_peak"], res["total_cpu"], res["total_sys"] = final_peak, final_cpu, final_sys
        if "cpu_at_stop" in locals():
            res["stop_cpu"], res["stop_sys"] = final_cpu - cpu_at_stop, final_sys - sys_at_stop
        if writer is not None:
            writer.stop.set()
        if sampler is not None:
            sampler.stop.set()

    # A few tables row for row against MariaDB.
    scanned, scan_bad = 0, []
    if exit_code == 0 and "rounds" in res:
        config = lake / "catalog.yaml"
        config.write_text(f"catalog:\n  default:\n    type: sql\n    uri: sqlite:///{lake}/catalog.db\n"
                          f"    warehouse: {lake}/warehouse\n")
        conn = root(DB)
        for t in random.Random(1).sample(names, min(SAMPLED_TABLES, len(names))):
            with conn.cursor() as c:
                c.execute(f"SELECT id, v, n FROM {t} ORDER BY id")
                source = [tuple(r) for r in c.fetchall()]
            try:
                lake_rows = floe_table_scan(floe, config, t)
            except subprocess.SubprocessError as e:
                scan_bad.append(f"{t}: floe table scan failed: {e}")
                continue
            scanned += 1
            if lake_rows != source:
                scan_bad.append(f"{t}: lake {lake_rows[:3]}... ({len(lake_rows)} rows), "
                                f"MariaDB {source[:3]}... ({len(source)} rows)")
        conn.close()
    warnings, errors, first_lines = log_findings(log)

    # The report.
    def f(v, spec: str) -> str:
        return "-".rjust(len(format(0.0, spec))) if v is None or v != v else format(v, spec)

    nan = float("nan")
    tables, rows = len(names), len(names) * args.rows
    print()
    print(f"results: {tables:,} tables x {args.rows} rows, checkpoint.interval {args.interval}, "
          f"{os.cpu_count()} cpus")
    print("stage      seconds  tables/s    rows/s  table commits/s  floe CPU-s   (sys)  RSS MiB  peak MiB")
    print(f"create    {create_s:8.1f}  {tables / create_s:8,.0f}  {rows / create_s:8,.0f}")
    if "snapshot_s" in res:
        print(f"snapshot  {res['snapshot_s']:8.1f}  {tables / res['snapshot_s']:8,.0f}  "
              f"{rows / res['snapshot_s']:8,.0f}  {'':15}  {f(res['snapshot_cpu'], '10.1f')}  "
              f"({f(res['snapshot_sys'], '5.1f')})  {f(res['snapshot_rss'], '7.0f')}  {f(res['snapshot_peak'], '8.0f')}")
    if "stage_s" in res:
        print(f"steady    {res['stage_s']:8.1f}  {'':8}  {'':8}  {f(res['commits_s'], '15,.0f')}  "
              f"{f(res.get('steady_cpu', nan), '10.1f')}  ({f(res.get('steady_sys', nan), '5.1f')})  "
              f"{f(res.get('steady_rss', nan), '7.0f')}  {f(res.get('steady_peak', nan), '8.0f')}")
        print(f"catch-up  {f(res.get('all_in_s', nan), '8.1f')}  {'':8}  {'':8}  "
              f"{f(res.get('catchup_commits_s', nan), '15,.0f')}  "
              f"{f(res.get('catchup_cpu', nan), '10.1f')}  ({f(res.get('catchup_sys', nan), '5.1f')})")
    print(f"stop      {res['stop_s']:8.1f}  {'':8}  {'':8}  {'':15}  {f(res.get('stop_cpu', nan), '10.1f')}  "
          f"({f(res.get('stop_sys', nan), '5.1f')})  {'':7}  {f(res['final_peak'], '8.0f')}  exit {exit_code}")
    print(f"total     {'':8}  {'':8}  {'':8}  {'':15}  {f(res['total_cpu'], '10.1f')}  "
          f"({f(res['total_sys'], '5.1f')})")
    rounds = res.get("rounds", [])
    if rounds:
        print()
        print(f"checkpoint  taken at  checkpoint s  tables  commit round p50     max")
        for r in rounds:
            print(f"{r['id']:10}  {f(r['taken_at'], '7.1f')}s  {f(r['checkpoint_s'], '12.2f')}  {r['tables']:6,}  "
                  f"{f(r['p50'], '16.2f')}  {f(r['max'], '6.2f')}"
                  f"{WHEN.get(r['when'], '')}")
    if "stage_s" in res:
        during = [r for r in rounds if r["when"] == "during"]
        ck = [r["checkpoint_s"] for r in during if r["checkpoint_s"] == r["checkpoint_s"]]
        rd = [r["max"] for r in during if r["max"] == r["max"]]
        sampler = res["sampler"]
        print()
        print(f"steady: {res['updates']:,} updates in {res['stage_s']:.1f} s ({res['updates_s']:,.0f}/s of "
              f"{tables / interval_s:,.0f}/s offered, {writer.behind:,} behind); "
              f"table commits/s {f(res['commits_s'], ',.0f')}, over the stage and its catch-up "
              f"{f(res.get('overall_commits_s', nan), ',.0f')}")
        print(f"checkpoints taken while the writer ran: {len(during)} (one per {interval_s:g} s: "
              f"~{res['stage_s'] / interval_s:.0f}); duration p50 {f(quantile(ck, 0.5), '.2f')} s, max "
              f"{f(max(ck, default=nan), '.2f')} s; all shorter than the interval: "
              f"{'yes' if ck and max(ck) < interval_s else 'NO'} ({len(ck)} sampled)")
        print(f"commit rounds (checkpoint to its last table commit) of those: p50 {f(quantile(rd, 0.5), '.2f')} s, "
              f"max {f(max(rd, default=nan), '.2f')} s; all shorter than the interval: "
              f"{'yes' if rd and max(rd) < interval_s else 'NO'}")
        print(f"peak RSS {f(res['final_peak'], '.0f')} MiB; under {GOAL_RSS_MIB:,} MiB: "
              f"{'yes' if res['final_peak'] < GOAL_RSS_MIB else 'NO' if res['final_peak'] >= GOAL_RSS_MIB else '-'}"
              f"{'' if exit_code == 0 else ' (at the last sample before floe died)'}")
        print(f"every update committed (/status, all {tables:,} tables): "
              f"{'yes, all in %.1f s after the writer stopped' % res['all_in_s'] if res.get('status_ok') else 'NO'}; "
              f"{scanned} sampled tables scanned = MariaDB: {'yes' if scanned and not scan_bad else 'NO'}")
        print(f"floe's open files, the most seen: snapshot {res['snapshot_fds']:,}, steady {sampler.max_fds:,} "
              f"(limit {resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,})")
        if writer.batch_s:
            print(f"writer batches (up to {PER_ROUND_TRIP} statements) p50 "
                  f"{quantile(writer.batch_s, 0.5) * 1000:.0f} ms, max {max(writer.batch_s) * 1000:.0f} ms; "
                  f"/metrics page {sampler.page_bytes / 1e6:.1f} MB, fetch+parse p50 "
                  f"{f(quantile(sampler.fetch_s, 0.5) * 1000, '.0f')} ms, {len(sampler.fetch_s)} samples, "
                  f"{sampler.errors} failed")
    if res.get("error"):
        print(f"/status error: {res['error']}")
    print(f"floe log: {warnings} warnings, {errors} errors" + "".join(f"\n  {line}" for line in first_lines))
    for p in problems + [f"MISMATCH {b}" for b in scan_bad]:
        print(f"PROBLEM: {p}")
    print(f"load at the end: {'%.2f %.2f %.2f' % os.getloadavg()}")
    print(f"command: {command}")

    if args.keep:
        os.remove(floe)
        print(f"kept the lake in {lake} and the database {DB}")
    else:
        shutil.rmtree(work, ignore_errors=True)
        drop_database()
    return 0 if not problems and not scan_bad and exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
