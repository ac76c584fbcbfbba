"""`floe run` end to end: a MariaDB database into Iceberg (issue 10's benchmark, floe's side).

Creates (before each run) the database floe_bench_run on the server of scripts/services/mariadb.sh:
TABLES tables of ROWS/TABLES rows each (INT key, BIGINT, VARCHAR(40), DECIMAL(12,3),
DATETIME(6)), made with MariaDB's sequence engine. Then, in one run of `floe run`:

1. snapshot: from the start until every table's current snapshot holds its rows
   (total-records in the SQL catalog's metadata): rows/s, floe CPU seconds;
2. binlog: a writer thread runs transactions of 70% updates, 20% inserts, 10% deletes
   over all tables at the rate it can (multi-row statements, 100 changes each) for
   --seconds, then stops and notes the binlog position; floe must commit a checkpoint
   covering it: changes/s, CPU seconds per million changes, and the freshness of the
   last change (time from the end of the load to the first Iceberg commit whose
   floe.source-position covers the binlog position it ended at);
3. freshness of every change: each insert and update sets the row's DATETIME(6) column
   ts to NOW(6) (session time zone UTC), MariaDB's time of the statement's start; the
   statements are autocommit and short, so it is within milliseconds of the commit (the
   client-side statement time, send to reply, bounds the gap and is printed). After the
   run, for every snapshot of every table committed during the binlog stage, the data
   files the snapshot added (manifest list and manifests read with fastavro, the ts
   column read with pyarrow) give its row images; the freshness of one is the
   snapshot's timestamp-ms minus its ts: p50, p99, max and the number of row images.
   Deletes write no row image and are not in the distribution. MariaDB and floe share
   the machine's clock. timestamp-ms is taken when floe starts the commit, before the
   manifest list, metadata file and catalog row are written: the time from it to the
   metadata file's mtime is printed too;
4. peak resident memory (VmHWM) of the floe process.

The last column, load, is the 1-minute load average at the end of the binlog stage
(this benchmark included). Needs pymysql, pyarrow and fastavro (.cache/venv has them).

5. with --peer flink, the same stages run again on a fresh database against
   bench/peer_flink's FlinkCdcBench: Flink CDC's MySqlSource (flink-sql-connector-mysql-cdc
   3.5.0, incremental snapshot, parallelism 2, server ids 6400-6409) feeding one Iceberg
   FlinkSink per table (upsert, equality field id) into a JdbcCatalog on SQLite, one JVM
   (-Xmx per --flink-heaps), checkpoints every interval. FlinkSink records no source
   position, so "all in" (both systems) is the time from the end of the load until every
   table's lake holds its fence row: one stamped update per table made right after the load.
   The JVM's CPU seconds and VmHWM are measured as floe's. Then floe / Flink ratios;
6. (with --peer, or --check yes) after each run, every table read by Iceberg Java
   (scripts/java-peer.sh, deletes applied) against MariaDB: rows, distinct ids, sum(id), sum(n).

Each stage is run with `checkpoint.interval` 1s and 10s (--intervals). --rate caps the
offered changes per second (the same load for both systems; 0, the default, offers as many
as MariaDB takes, which depends on how much CPU the system under test leaves it). The workload needs
root over the server's socket (.cache/mariadb/mariadb.sock): the test user may only write
floe_test.

    scripts/services/mariadb.sh start
    .cache/venv/bin/python bench/run_mysql_bench.py --floe build/floe
    .cache/venv/bin/python bench/run_mysql_bench.py --rows 1000000 --tables 10 --seconds 30
    .cache/venv/bin/python bench/run_mysql_bench.py --peer flink --rows 20000 --tables 4 --seconds 5
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pymysql

from peer_flink_bench import JAVA17_OPENS  # the JVM flags Flink needs on Java 17

ROOT = Path(__file__).resolve().parents[1]
PORT = int(os.environ.get("FLOE_TEST_MYSQL_PORT", "3307"))
USER = os.environ.get("FLOE_TEST_MYSQL_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe")
SOCKET = ROOT / ".cache" / "mariadb" / "mariadb.sock"
DB = "floe_bench_run"


def root(database: str | None = None):
    return pymysql.connect(unix_socket=str(SOCKET), user="root", autocommit=True, database=database)


def make_database(rows: int, tables: int) -> None:
    """The database afresh (each run's binlog load changes it)."""
    per_table = rows // tables
    conn = root()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        c.execute(f"USE {DB}")  # the sequence engine's seq_1_to_N tables need one
        for t in range(tables):
            c.execute(f"CREATE TABLE {DB}.t{t} (id INT PRIMARY KEY, n BIGINT, s VARCHAR(40), "
                      "d DECIMAL(12,3), ts DATETIME(6))")
            c.execute(f"INSERT INTO {DB}.t{t} SELECT seq, seq * 7919, CONCAT('name-', seq % 9973), "
                      f"(seq % 100000) / 1000, TIMESTAMPADD(SECOND, seq, '2024-01-01') "
                      f"FROM seq_1_to_{per_table}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def lake_state(lake: Path) -> tuple[dict[str, int], dict[str, tuple[str, int]]]:
    """Per table: total-records of the current snapshot, and (source position, commit ms)."""
    records, positions = {}, {}
    db = lake / "catalog.db"
    if not db.exists():
        return records, positions
    con = sqlite3.connect(db)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'iceberg_tables'").fetchone():
            return records, positions
        rows = con.execute("SELECT table_name, metadata_location FROM iceberg_tables").fetchall()
    finally:
        con.close()
    for name, location in rows:
        meta = json.loads(Path(local_path(location)).read_text())
        current = meta.get("current-snapshot-id")
        for s in meta.get("snapshots", []):
            if s["snapshot-id"] == current:
                records[name] = int(s["summary"].get("total-records", 0))
                positions[name] = (s["summary"].get("floe.source-position", ""), s["timestamp-ms"])
    return records, positions


def local_path(uri: str) -> str:
    """A local path from floe's file:// URIs, Hadoop's file:/ form, or a plain path."""
    if uri.startswith("file://"):
        return uri[len("file://"):]
    return uri.removeprefix("file:")


def avro_records(path: str) -> list[dict]:
    with open(local_path(path), "rb") as f:
        return list(fastavro.reader(f))


def table_metadata(lake: Path) -> dict[str, tuple[Path, dict]]:
    """Per table: the current metadata file and its JSON."""
    con = sqlite3.connect(lake / "catalog.db")
    try:
        rows = con.execute("SELECT table_name, metadata_location FROM iceberg_tables").fetchall()
    finally:
        con.close()
    out = {}
    for name, location in rows:
        path = Path(local_path(location))
        out[name] = (path, json.loads(path.read_text()))
    return out


def added_row_stamps(snapshot: dict) -> list[pa.Array]:
    """The ts column (µs since the epoch, UTC) of the data files `snapshot` added."""
    sid = snapshot["snapshot-id"]
    stamps = []
    for m in avro_records(snapshot["manifest-list"]):
        # content 0: data manifests; merged manifests written by this snapshot
        # carry older files as EXISTING (status 1 is ADDED).
        if m.get("content", 0) != 0 or m["added_snapshot_id"] != sid:
            continue
        for e in avro_records(m["manifest_path"]):
            if e["status"] != 1 or e.get("snapshot_id") not in (None, sid):
                continue
            ts = pq.read_table(local_path(e["data_file"]["file_path"]), columns=["ts"]).column("ts")
            stamps.extend(ts.cast(pa.timestamp("us")).cast(pa.int64()).chunks)
    return stamps


def change_freshness(lake: Path, since_s: float) -> tuple[pa.ChunkedArray, list[float]]:
    """Seconds from each stamped row image's ts to the timestamp-ms of the snapshot that
    added it, over the snapshots at or after `since_s`; and, per such snapshot, seconds
    from its timestamp-ms to the mtime of the first metadata file holding it as current."""
    freshness, commit_s = [], []
    for path, meta in table_metadata(lake).values():
        written: dict[int, float] = {}  # snapshot id -> mtime of its metadata file
        for f in path.parent.glob("*.metadata.json"):
            current = json.loads(f.read_text()).get("current-snapshot-id")
            mtime = f.stat().st_mtime
            if current is not None and mtime < written.get(current, float("inf")):
                written[current] = mtime
        for s in meta.get("snapshots", []):
            ms = s["timestamp-ms"]
            if ms < since_s * 1000:
                continue
            for stamps in added_row_stamps(s):
                # The snapshot stage's rows are of 2024.
                stamps = stamps.filter(pc.greater_equal(stamps, int(since_s * 1e6)))
                freshness.append(pc.divide(pc.subtract(ms * 1000, stamps).cast(pa.float64()), 1e6))
            if s["snapshot-id"] in written:
                commit_s.append(written[s["snapshot-id"]] - ms / 1000)
    return pa.chunked_array(freshness, type=pa.float64()), commit_s


def quantiles(values, qs: list[float]) -> list[float]:
    if len(values) == 0:
        return [float("nan")] * len(qs)
    return pc.quantile(values, q=qs, interpolation="linear").to_pylist()


def binlog_key(position: str) -> tuple[int, int]:
    file_pos = position.split(" ")[0]
    file, pos = file_pos.rsplit(":", 1)
    return int(file.rsplit(".", 1)[1]), int(pos)


class Writer:
    """70% updates, 20% inserts, 10% deletes, 100 row changes per statement; inserts and
    updates stamp ts with NOW(6) in UTC."""

    def __init__(self, tables: int, per_table: int, rate: float = 0):
        self.tables = tables
        self.rate = rate  # changes per second to offer at most (0: as fast as MariaDB takes them)
        self.next_id = [per_table + 1] * tables
        self.per_table = per_table
        self.changes = 0
        self.stamped = 0  # row images inserted or updated (deletes have none)
        self.statement_s: list[float] = []  # client-side, send to reply (the commit included)
        self.stop = threading.Event()

    def run(self) -> None:
        conn = root(DB)
        rnd = random.Random(7)
        with conn.cursor() as c:
            c.execute("SET time_zone = '+00:00'")
            began_s = time.perf_counter()
            while not self.stop.is_set():
                if self.rate and self.changes > self.rate * (time.perf_counter() - began_s):
                    time.sleep(min(0.01, self.changes / self.rate - (time.perf_counter() - began_s)))
                    continue
                t = rnd.randrange(self.tables)
                pick = rnd.random()
                if pick < 0.7:
                    start = rnd.randrange(1, self.per_table - 100)
                    sql = (f"UPDATE {DB}.t{t} SET n = n + 1, s = CONCAT('u', n), ts = NOW(6) "
                           f"WHERE id BETWEEN {start} AND {start + 99}")
                elif pick < 0.9:
                    first = self.next_id[t]
                    self.next_id[t] += 100
                    sql = (f"INSERT INTO {DB}.t{t} SELECT seq, seq, 'new', 1.5, NOW(6) "
                           f"FROM seq_{first}_to_{first + 99}")
                else:
                    start = rnd.randrange(1, self.per_table - 100)
                    sql = f"DELETE FROM {DB}.t{t} WHERE id BETWEEN {start} AND {start + 99}"
                began = time.perf_counter()
                c.execute(sql)
                self.statement_s.append(time.perf_counter() - began)
                self.changes += c.rowcount
                if pick < 0.9:
                    self.stamped += c.rowcount


def fence(tables: int) -> dict[str, int]:
    """After the load: one stamped update per table (its lowest id), the last change of each
    table in the binlog. Returns per table the largest ts (µs since the epoch, UTC) it holds,
    the fence's own stamp."""
    out = {}
    conn = root(DB)
    with conn.cursor() as c:
        c.execute("SET time_zone = '+00:00'")
        for t in range(tables):
            c.execute(f"UPDATE {DB}.t{t} SET n = n + 1, ts = NOW(6) ORDER BY id LIMIT 1")
        for t in range(tables):
            c.execute(f"SELECT MAX(ts) FROM {DB}.t{t}")
            ts = c.fetchone()[0]
            out[f"t{t}"] = int(ts.replace(tzinfo=datetime.timezone.utc).timestamp() * 1e6)
    conn.close()
    return out


class FenceWatch:
    """Which tables of a lake hold their fence row yet: the snapshots committed since the load
    began are read once each (the ts column of the data files they added)."""

    def __init__(self, lake: Path, since_s: float, stamps: dict[str, int]):
        self.lake, self.since_ms, self.stamps = lake, since_s * 1000, stamps
        self.seen: set[tuple[str, int]] = set()
        self.covered: dict[str, int] = {}  # table -> timestamp-ms of the snapshot holding the fence

    def poll(self) -> bool:
        for name, (_, meta) in table_metadata(self.lake).items():
            if name in self.covered:
                continue
            for snap in sorted(meta.get("snapshots", []), key=lambda x: x["timestamp-ms"]):
                key = (name, snap["snapshot-id"])
                if snap["timestamp-ms"] < self.since_ms or key in self.seen:
                    continue
                self.seen.add(key)
                if any(len(a) and pc.max(a).as_py() >= self.stamps[name] for a in added_row_stamps(snap)):
                    self.covered[name] = snap["timestamp-ms"]
                    break
        return len(self.covered) == len(self.stamps)


def mysql_source_block(db: str, server_id: int) -> str:
    """The `source:` block of a floe pipeline that reads every table of database `db` on the
    bench server, with server-id `server_id` and the password from $BENCH_PASSWORD."""
    return f"""source:
  type: mysql
  hostname: 127.0.0.1
  port: {PORT}
  username: {USER}
  password: ${{BENCH_PASSWORD}}
  tables: {db}.\\.*
  server-id: {server_id}
"""


class Floe:
    """floe run, from a private copy of the binary (others relink build/floe)."""

    name = "floe"

    def __init__(self, floe: str, scratch: Path):
        self.floe = str(scratch / "floe")
        shutil.copy2(floe, self.floe)

    def start(self, lake: Path, interval: str, run: int) -> subprocess.Popen:
        source = mysql_source_block(DB, random.randint(100000, 199999))
        return self.launch(lake, source + "  scan.incremental.snapshot.chunk.size: 20000\n", interval, PASSWORD)

    def launch(self, lake: Path, source: str, interval: str, password: str,
               pipeline_keys: str = "") -> subprocess.Popen:
        """floe run of lake/bench.yaml: `source` (a `source:` block whose password is
        ${BENCH_PASSWORD}) into a SQL catalog and warehouse in `lake`, parallelism 2, with
        `pipeline_keys` (indented lines) added to `pipeline:`; its log in lake/run.log."""
        pipeline = lake / "bench.yaml"
        pipeline.write_text(source + f"""sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///catalog.db", warehouse: "warehouse"}}
pipeline:
  name: bench
  parallelism: 2
  checkpoint.interval: {interval}
{pipeline_keys}""")
        env = dict(os.environ, BENCH_PASSWORD=password)
        return subprocess.Popen([self.floe, "run", str(pipeline)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=open(lake / "run.log", "w"), env=env)


class Flink:
    """bench/peer_flink's FlinkCdcBench: Flink CDC's MySqlSource (incremental snapshot,
    parallelism 2) into one Iceberg FlinkSink per table (upsert on id, 2 writers), JdbcCatalog
    on SQLite, on a local MiniCluster in one JVM."""

    def __init__(self, heap: str):
        subprocess.run([str(ROOT / "bench" / "peer_flink" / "build.sh")], check=True, stdout=subprocess.DEVNULL)
        self.classpath = (ROOT / ".cache" / "peer-flink" / "classpath.txt").read_text().strip()
        self.heap = heap
        self.name = "Flink CDC" if heap == "default" else f"Flink CDC -Xmx{heap}"

    def start(self, lake: Path, interval: str, run: int) -> subprocess.Popen:
        # Server ids 6400-6409, apart from floe's; two per run (parallelism 2), new per run.
        first = 6400 + (2 * run) % 10
        ms = int(float(interval.rstrip("s")) * 1000)
        jvm = ["java"] + ([] if self.heap == "default" else [f"-Xmx{self.heap}"]) + JAVA17_OPENS
        argv = jvm + ["-cp", self.classpath, "dev.floe.bench.FlinkCdcBench",
                      "--hostname", "127.0.0.1", "--port", str(PORT), "--username", USER,
                      "--password-env", "BENCH_PASSWORD", "--database", DB,
                      "--server-id", f"{first}-{first + 1}",
                      "--catalog-uri", f"jdbc:sqlite:{lake / 'catalog.db'}",
                      "--warehouse", str(lake / "warehouse"), "--parallelism", "2",
                      "--checkpoint-interval-ms", str(ms), "--chunk-size", "20000"]
        env = dict(os.environ, BENCH_PASSWORD=PASSWORD)
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=open(lake / "run.log", "w"),
                                stderr=subprocess.STDOUT, env=env)


def check_lake(lake: Path, tables: int, java_peer_cp: str) -> list[str]:
    """Every table of the lake as Iceberg Java reads it (deletes applied) against MariaDB:
    rows, distinct ids, sum of ids and of n. Returns the mismatches."""
    bad = []
    conn = root(DB)
    for t in range(tables):
        with conn.cursor() as c:
            c.execute(f"SELECT COUNT(*), COALESCE(SUM(id), 0), COALESCE(SUM(n), 0) FROM {DB}.t{t}")
            want = tuple(int(v) for v in c.fetchone())
        scan = subprocess.run(
            ["java", "-XX:+UseSerialGC", "-cp", java_peer_cp, "dev.floe.interop.IcebergPeer", "scan",
             "--catalog", "jdbc", "--uri", f"jdbc:sqlite:{lake / 'catalog.db'}",
             "--warehouse", str(lake / "warehouse"), "--table", f"{DB}.t{t}", "--columns", "id,n"],
            capture_output=True, check=True)
        ids, rows, sum_n = set(), 0, 0
        for line in scan.stdout.splitlines():
            r = json.loads(line)
            rows += 1
            ids.add(r["id"])
            sum_n += r["n"]
        got = (rows, sum(ids), sum_n)
        if got != want or len(ids) != rows:
            bad.append(f"t{t}: lake rows {rows} (distinct ids {len(ids)}), sum(id) {got[1]}, sum(n) "
                       f"{got[2]}; MariaDB {want[0]}, {want[1]}, {want[2]}")
    conn.close()
    return bad


def wait_snapshot(proc: subprocess.Popen, lake: Path, tables: int, per_table: int) -> None:
    """Returns once `tables` tables of the lake hold `per_table` rows each (their current
    snapshot's total-records); fails with the end of lake/run.log if `proc` ends first."""
    while True:
        assert proc.poll() is None, (lake / "run.log").read_text()[-3000:]
        records, _ = lake_state(lake)
        if len(records) == tables and all(v >= per_table for v in records.values()):
            return
        time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM (a final checkpoint and commit), SIGKILL after 120 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_once(system, rows: int, tables: int, seconds: float, interval: str, run: int,
             java_peer_cp: str | None, rate: float = 0) -> dict:
    per_table = rows // tables
    make_database(rows, tables)
    with tempfile.TemporaryDirectory(prefix="floe-run-bench-") as tmp:
        lake = Path(tmp)
        started = time.monotonic()
        proc = system.start(lake, interval, run)
        try:
            wait_snapshot(proc, lake, tables, per_table)
            snapshot_s = time.monotonic() - started
            snapshot_cpu = cpu_seconds(proc.pid)

            writer = Writer(tables, per_table, rate)
            thread = threading.Thread(target=writer.run)
            stream_start = time.time()
            thread.start()
            time.sleep(seconds)
            writer.stop.set()
            thread.join()
            stream_end = time.time()
            with root().cursor() as c:
                c.execute("SHOW MASTER STATUS")
                file, pos = c.fetchone()[:2]
            target = (int(file.rsplit(".", 1)[1]), int(pos))
            watch = FenceWatch(lake, stream_start, fence(tables))
            # floe: the last change's table is committed once a snapshot of it covers the end
            # (floe.source-position; FlinkSink records no source position).
            freshness = float("nan")
            while system.name == "floe":
                assert proc.poll() is None, (lake / "run.log").read_text()[-3000:]
                _, positions = lake_state(lake)
                covered = [ms for p, ms in positions.values() if p and binlog_key(p) >= target]
                if covered:
                    freshness = max(0.0, min(covered) / 1000 - stream_end)
                    break
                if time.time() - stream_end > 120:
                    break
                time.sleep(0.05)
            # Every system: all changes are in the lake once every table holds its fence row
            # (the fence is each table's last change).
            while not watch.poll():
                assert proc.poll() is None, (lake / "run.log").read_text()[-3000:]
                assert time.time() - stream_end < 600, "the fence rows did not arrive in 600 s"
                time.sleep(0.1)
            caught_up = max(watch.covered.values()) / 1000 - stream_end
            stream_cpu = cpu_seconds(proc.pid) - snapshot_cpu
            peak = peak_mib(proc.pid)
            load = os.getloadavg()[0]
        finally:
            stop(proc)
        mismatches = check_lake(lake, tables, java_peer_cp) if java_peer_cp else None
        ages, commit_s = change_freshness(lake, stream_start)
    p0, p50, p99, p100 = quantiles(ages, [0, 0.5, 0.99, 1])
    statement_p99, = quantiles(writer.statement_s, [0.99])
    commit_p50, commit_max = quantiles(commit_s, [0.5, 1])
    return {"system": system.name, "interval": interval, "snapshot_s": snapshot_s,
            "snapshot_rows_s": rows / snapshot_s, "snapshot_cpu": snapshot_cpu,
            "snapshot_rows_cpu": rows / snapshot_cpu,
            "changes": writer.changes, "seconds": seconds,
            "changes_s": writer.changes / seconds, "stream_cpu": stream_cpu,
            "cpu_per_million": stream_cpu / max(1, writer.changes) * 1e6,
            "freshness_s": freshness, "caught_up_s": caught_up, "peak_mib": peak, "load": load,
            "measured": len(ages), "stamped": writer.stamped,
            "p50_s": p50, "p99_s": p99, "max_s": p100, "min_s": p0,
            "statement_p99_s": statement_p99, "statement_max_s": max(writer.statement_s),
            "commit_p50_s": commit_p50, "commit_max_s": commit_max, "mismatches": mismatches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--floe", default=str(ROOT / "build" / "floe"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--intervals", default="1s,10s")
    parser.add_argument("--rate", type=float, default=0,
                        help="offer at most this many changes per second (0: as fast as MariaDB takes them)")
    parser.add_argument("--peer", choices=["none", "flink"], default="none",
                        help="flink: also run Flink CDC's MySQL source + Iceberg FlinkSink "
                             "(bench/peer_flink) through the same stages, and print floe/Flink")
    parser.add_argument("--flink-heaps", default="1g",
                        help="the Flink JVM's -Xmx per run, comma-separated; 'default': the JVM's choice")
    parser.add_argument("--check", choices=["auto", "yes", "no"], default="auto",
                        help="after each run compare every lake table with MariaDB through Iceberg "
                             "Java (scripts/java-peer.sh); auto: with --peer")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="floe-run-bench-bin-"))
    systems = [Floe(args.floe, scratch)]
    if args.peer == "flink":
        systems += [Flink(heap) for heap in args.flink_heaps.split(",") if heap]
    java_peer_cp = None
    if args.check == "yes" or (args.check == "auto" and args.peer != "none"):
        subprocess.run([str(ROOT / "scripts" / "java-peer.sh")], check=True, stdout=subprocess.DEVNULL)
        java_peer_cp = (ROOT / ".cache" / "java-peer" / "classpath.txt").read_text().strip()
    print(f"{args.rows:,} rows in {args.tables} tables; binlog load for {args.seconds:.0f} s"
          f"{f' at up to {args.rate:,.0f} changes/s' if args.rate else ''}; "
          f"{os.cpu_count()} cpus, load {'%.2f %.2f %.2f' % os.getloadavg()}")
    print("system             interval  snapshot rows/s  snapshot CPU-s  changes/s  CPU-s per 1M changes  "
          "freshness p50     p99     max  row images  last change  all in  peak RSS  load  lake = MariaDB")
    notes, results = [], []
    run = 0
    for interval in args.intervals.split(","):
        for system in systems:
            r = run_once(system, args.rows, args.tables, args.seconds, interval, run, java_peer_cp, args.rate)
            run += 1
            results.append(r)
            last = "-" if r["freshness_s"] != r["freshness_s"] else f"{r['freshness_s']:.2f} s"
            check = ("-" if r["mismatches"] is None else
                     "yes" if not r["mismatches"] else f"NO ({len(r['mismatches'])} tables)")
            print(f"{r['system']:<18} {r['interval']:>8}  {r['snapshot_rows_s']:15,.0f}  {r['snapshot_cpu']:14.1f}  "
                  f"{r['changes_s']:9,.0f}  {r['cpu_per_million']:20.1f}  "
                  f"{r['p50_s']:11.2f} s {r['p99_s']:5.2f} s {r['max_s']:5.2f} s  "
                  f"{r['measured']:10,}  {last:>11}  {r['caught_up_s']:5.2f} s  "
                  f"{r['peak_mib']:4.0f} MiB  {r['load']:4.1f}  {check}", flush=True)
            notes.append(f"{r['system']} {r['interval']}: {r['measured']:,} row images of {r['stamped']:,} "
                         f"inserted or updated (min freshness {r['min_s']:.3f} s); statement time p99 "
                         f"{r['statement_p99_s'] * 1000:.1f} ms, max {r['statement_max_s'] * 1000:.1f} ms; "
                         f"timestamp-ms to metadata file written p50 {r['commit_p50_s'] * 1000:.0f} ms, "
                         f"max {r['commit_max_s'] * 1000:.0f} ms")
            notes.extend(f"  MISMATCH {m}" for m in r["mismatches"] or [])
    for n in notes:
        print(n)
    if len(systems) > 1:
        print("floe / peer (rows or changes per CPU-second and snapshot rows/s: higher is better for "
              "floe above 1; peak RSS and freshness: floe below 1 is better):")
        for floe_r in (r for r in results if r["system"] == "floe"):
            for peer in (r for r in results if r["system"] != "floe" and r["interval"] == floe_r["interval"]):
                print(f"  {floe_r['interval']:>4} vs {peer['system']:<18} "
                      f"snapshot rows/s {floe_r['snapshot_rows_s'] / peer['snapshot_rows_s']:5.2f}x  "
                      f"snapshot rows/CPU-s {floe_r['snapshot_rows_cpu']:9,.0f} vs {peer['snapshot_rows_cpu']:8,.0f} "
                      f"= {floe_r['snapshot_rows_cpu'] / peer['snapshot_rows_cpu']:5.2f}x  "
                      f"changes/CPU-s {1e6 / floe_r['cpu_per_million']:9,.0f} vs {1e6 / peer['cpu_per_million']:8,.0f} "
                      f"= {peer['cpu_per_million'] / floe_r['cpu_per_million']:5.2f}x  "
                      f"peak RSS {floe_r['peak_mib']:.0f} vs {peer['peak_mib']:.0f} MiB "
                      f"= {floe_r['peak_mib'] / peer['peak_mib']:.2f}  "
                      f"freshness p50 {floe_r['p50_s']:.2f} vs {peer['p50_s']:.2f} s "
                      f"= {floe_r['p50_s'] / peer['p50_s']:.2f}, "
                      f"p99 {floe_r['p99_s']:.2f} vs {peer['p99_s']:.2f} s "
                      f"= {floe_r['p99_s'] / peer['p99_s']:.2f}")
    print(f"load at the end: {'%.2f %.2f %.2f' % os.getloadavg()}")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
