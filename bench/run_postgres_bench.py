"""`floe run` end to end: a PostgreSQL database into Iceberg (issue 16's benchmark).

The PostgreSQL counterpart of bench/run_mysql_bench.py, whose lake readers it imports. On the
server of scripts/services/postgres.sh (FLOE_TEST_POSTGRES_*; the `postgres` superuser over
loopback makes the database floe_bench_run, owned by the test user), into a SQL catalog
(SQLite) and a local warehouse, parallelism 2, checkpoint.interval --interval:

1. snapshot, once per layout of --layouts (default "1,10": one table of --rows rows, then
   10 tables of --rows/10 rows; INT key, BIGINT, VARCHAR(40), NUMERIC(12,3), TIMESTAMPTZ),
   each a fresh schema, slot, publication and lake: from the start of `floe run` until every
   table's current Iceberg snapshot holds its rows: rows/s, floe CPU-seconds, peak RSS, and
   the PostgreSQL server's CPU-seconds over the same time (utime+stime of the postmaster and
   its live children, plus the cutime+cstime of the children it reaped, from /proc, before
   and after). floe's PostgreSQL snapshot has no parallel readers (one REPEATABLE READ
   transaction on the slot's exported snapshot, table after table; docs/postgres.md), so the
   reader count is 1;
2. streaming, on the last layout's run: pgbench (one client, no think time) runs for
   --seconds transactions of one statement over 100 rows: 70% updates, 20% inserts, 10%
   deletes, spread evenly over the tables; inserts and updates set ts to clock_timestamp().
   Events are the rows changed (pg_stat_user_tables' n_tup_ins + n_tup_upd + n_tup_del,
   before and after). Then one stamped update per table (the fence), and "all in" is the time
   from the end of the load until every table's lake holds its fence row. events/s, floe
   CPU-seconds per million events, peak RSS, PostgreSQL CPU-seconds (and the walsender's
   share, the process that decodes the WAL for the slot);
3. freshness of every change, as run_mysql_bench.py measures it: for each snapshot committed
   since the load began, the row images of the data files it added; the freshness of one is
   the snapshot's timestamp-ms minus its ts (clock_timestamp() of the row, a few ms before
   its commit): p50, p99, max. Deletes write no row image;
4. the WAL the slot retained at the end (after "all in"), and again after --idle seconds
   without changes (past heartbeat.interval, 30 s): pg_current_wal_lsn() - restart_lsn and
   - confirmed_flush_lsn from pg_replication_slots, and floe's
   floe_postgres_slot_retained_wal_bytes gauge from /metrics (read every 5 s by floe).

Each stage prints the 1-minute load average at its end (this benchmark included). Needs psql
and pgbench (postgresql-15), pyarrow and fastavro (.cache/venv has them).

    scripts/services/postgres.sh start
    .cache/venv/bin/python bench/run_postgres_bench.py --floe build/floe --rows 1000000 --seconds 30
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from many_tables_bench import free_port
from run_mysql_bench import (Floe, FenceWatch, change_freshness, cpu_seconds, peak_mib,
                             quantiles, stop, wait_snapshot)

ROOT = Path(__file__).resolve().parents[1]
HOST = os.environ.get("FLOE_TEST_POSTGRES_HOST", "127.0.0.1")
PORT = os.environ.get("FLOE_TEST_POSTGRES_PORT", "5433")
USER = os.environ.get("FLOE_TEST_POSTGRES_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_POSTGRES_PASSWORD", "floe")
DB = "floe_bench_run"
PGBENCH = "/usr/lib/postgresql/15/bin/pgbench"
ROWS_PER_CHANGE = 100


def psql(sql: str, database: str = DB, user: str = USER) -> str:
    """Runs `sql` on the bench server; returns psql's unaligned output."""
    env = dict(os.environ, PGPASSWORD=PASSWORD)
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT,
                          "-U", user, "-d", database], input=sql, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def make_schema(schema: str, rows: int, tables: int) -> None:
    """`schema` afresh with `tables` tables of rows/tables rows each, and per table a sequence
    for the ids the load inserts."""
    per_table = rows // tables
    if not psql(f"SELECT 1 FROM pg_database WHERE datname = '{DB}'", "postgres", "postgres"):
        psql(f'CREATE DATABASE "{DB}" OWNER "{USER}"', "postgres", "postgres")
    statements = [f"DROP SCHEMA IF EXISTS {schema} CASCADE;", f"CREATE SCHEMA {schema};"]
    for t in range(tables):
        statements += [
            f"CREATE TABLE {schema}.t{t} (id INT PRIMARY KEY, n BIGINT, s VARCHAR(40), "
            "d NUMERIC(12,3), ts TIMESTAMPTZ);",
            f"INSERT INTO {schema}.t{t} SELECT g, g::bigint * 7919, 'name-' || (g % 9973), (g % 100000) / 1000.0, "
            f"TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 second' "
            f"FROM generate_series(1, {per_table}) g;",
            f"CREATE SEQUENCE {schema}.t{t}_new START {per_table + 1};"]
    psql("\n".join(statements) + "\nVACUUM ANALYZE;")


class ServerCpu:
    """CPU-seconds of the PostgreSQL server: its postmaster (found as the parent of the
    checkpointer, which lives as long as the server) with the children it reaped, and its live
    children."""

    def __init__(self):
        checkpointer = int(psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'",
                                "postgres", "postgres"))
        self.postmaster = int(Path(f"/proc/{checkpointer}/stat").read_text().rsplit(")", 1)[1].split()[1])
        self.tick = os.sysconf("SC_CLK_TCK")

    def children(self) -> list[int]:
        out = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == self.postmaster:
                        out.append(int(entry.name))
                except (OSError, IndexError, ValueError):
                    pass  # ended meanwhile
        return out

    def seconds(self) -> float:
        fields = Path(f"/proc/{self.postmaster}/stat").read_text().rsplit(")", 1)[1].split()
        total = sum(int(v) for v in fields[11:15]) / self.tick  # utime stime cutime cstime
        for pid in self.children():
            try:
                total += cpu_seconds(pid)
            except OSError:
                pass  # reaped meanwhile: counted in the postmaster's cutime once it is
        return total

    def walsender_seconds(self) -> float:
        """CPU-seconds of the live walsenders (the processes that decode WAL for slots)."""
        total = 0.0
        for pid in self.children():
            try:
                if b"walsender" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    total += cpu_seconds(pid)
            except OSError:
                pass
        return total


class PostgresFloe(Floe):
    """floe run over one schema of the bench database, with /metrics on a loopback port."""

    def start(self, lake: Path, interval: str, schema: str) -> subprocess.Popen:
        self.slot, self.publication = f"{schema}_slot", f"{schema}_pub"
        self.http = f"127.0.0.1:{free_port()}"
        source = f"""source:
  type: postgres
  hostname: {HOST}
  port: {PORT}
  username: {USER}
  password: ${{BENCH_PASSWORD}}
  database-name: {DB}
  tables: {schema}.\\.*
  slot.name: {self.slot}
  publication.name: {self.publication}
  publication.autocreate.mode: filtered
  scan.startup.mode: initial
"""
        return self.launch(lake, source, interval, PASSWORD, f"  http: {self.http}\n")

    def retained_gauge(self) -> float:
        with urllib.request.urlopen(f"http://{self.http}/metrics", timeout=5) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("floe_postgres_slot_retained_wal_bytes"):
                    return float(line.rsplit(" ", 1)[1])
        return float("nan")

    def drop_slot(self, schema: str) -> None:
        slot = psql(f"SELECT active_pid FROM pg_replication_slots WHERE slot_name = '{self.slot}'")
        deadline = time.monotonic() + 30
        while slot and time.monotonic() < deadline:  # the walsender ends after floe
            time.sleep(0.1)
            slot = psql(f"SELECT active_pid FROM pg_replication_slots WHERE slot_name = '{self.slot}'")
        psql(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
             f"WHERE slot_name = '{self.slot}'; DROP PUBLICATION IF EXISTS {self.publication}; "
             f"DROP SCHEMA IF EXISTS {schema} CASCADE;")


def load_avg() -> str:
    return "%.2f %.2f %.2f" % os.getloadavg()


def events(schema: str) -> tuple[int, int]:
    """(rows inserted + updated + deleted, rows inserted + updated) in `schema` so far."""
    row = psql(f"SELECT sum(n_tup_ins + n_tup_upd + n_tup_del), sum(n_tup_ins + n_tup_upd) "
               f"FROM pg_stat_user_tables WHERE schemaname = '{schema}'")
    total, stamped = row.split("|")
    return int(total), int(stamped)


def pgbench(workdir: Path, schema: str, tables: int, per_table: int, seconds: float, rate: float) -> str:
    """Runs the load: per table an update, insert and delete script weighted 7:2:1."""
    argv = [PGBENCH, "-n", "-c", "1", "-T", str(int(seconds)), "-h", HOST, "-p", PORT, "-U", USER]
    if rate:
        argv += ["-R", str(rate / ROWS_PER_CHANGE)]
    last = per_table - ROWS_PER_CHANGE
    for t in range(tables):
        scripts = {
            "update": (7, f"\\set start random(1, {last})\nUPDATE {schema}.t{t} SET n = n + 1, "
                          f"s = 'u' || n, ts = clock_timestamp() WHERE id BETWEEN :start AND :start + 99;\n"),
            "insert": (2, f"INSERT INTO {schema}.t{t} SELECT nextval('{schema}.t{t}_new'), g, 'new', 1.5, "
                          f"clock_timestamp() FROM generate_series(1, {ROWS_PER_CHANGE}) g;\n"),
            "delete": (1, f"\\set start random(1, {last})\nDELETE FROM {schema}.t{t} "
                          f"WHERE id BETWEEN :start AND :start + 99;\n"),
        }
        for kind, (weight, text) in scripts.items():
            path = workdir / f"{kind}_t{t}.sql"
            path.write_text(text)
            argv += ["-f", f"{path}@{weight}"]
    out = subprocess.run(argv + [DB], env=dict(os.environ, PGPASSWORD=PASSWORD), capture_output=True,
                         text=True, timeout=seconds + 120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def fence(schema: str, tables: int) -> dict[str, int]:
    """One stamped update per table (its lowest id); per table its largest ts in µs since the
    epoch, the fence's own stamp."""
    psql("\n".join(f"UPDATE {schema}.t{t} SET n = n + 1, ts = clock_timestamp() "
                   f"WHERE id = (SELECT min(id) FROM {schema}.t{t});" for t in range(tables)))
    out = {}
    for t in range(tables):
        out[f"t{t}"] = int(psql(f"SELECT (extract(epoch FROM max(ts)) * 1000000)::bigint FROM {schema}.t{t}"))
    return out


def slot_wal(system: PostgresFloe) -> tuple[int, int, float]:
    """The slot's retained and unconfirmed WAL bytes (pg_replication_slots), and floe's gauge
    of the retained bytes (/metrics)."""
    row = psql(f"SELECT pg_current_wal_lsn() - restart_lsn, pg_current_wal_lsn() - confirmed_flush_lsn "
               f"FROM pg_replication_slots WHERE slot_name = '{system.slot}'")
    retained, unconfirmed = (int(v) for v in row.split("|"))
    return retained, unconfirmed, system.retained_gauge()


def run_layout(system: PostgresFloe, rows: int, tables: int, interval: str, stream: dict | None) -> None:
    """One fresh schema of `tables` tables into a fresh lake: the snapshot stage, then, when
    `stream` is given (seconds, rate), the streaming stage. Prints each stage's line."""
    per_table = rows // tables
    schema = f"bench_{tables}x{per_table}"
    make_schema(schema, rows, tables)
    server = ServerCpu()
    with tempfile.TemporaryDirectory(prefix="floe-pg-bench-") as tmp:
        lake = Path(tmp)
        pg_before = server.seconds()
        started = time.monotonic()
        proc = system.start(lake, interval, schema)
        try:
            wait_snapshot(proc, lake, tables, per_table)
            snapshot_s = time.monotonic() - started
            snapshot_cpu = cpu_seconds(proc.pid)
            pg_snapshot = server.seconds() - pg_before
            print(f"snapshot   {tables:>2} x {per_table:>9,}  readers 1  {rows / snapshot_s:10,.0f} rows/s "
                  f"({snapshot_s:5.1f} s)  floe CPU {snapshot_cpu:5.1f} s  peak RSS {peak_mib(proc.pid):5.0f} MiB  "
                  f"PostgreSQL CPU {pg_snapshot:5.1f} s  load {load_avg()}", flush=True)
            if stream is None:
                return
            seconds, rate = stream["seconds"], stream["rate"]
            events_before, stamped_before = events(schema)
            pg_before, wal_before = server.seconds(), server.walsender_seconds()
            floe_before = cpu_seconds(proc.pid)
            stream_start = time.time()
            report = pgbench(lake, schema, tables, per_table, seconds, rate)
            stream_end = time.time()
            watch = FenceWatch(lake, stream_start, fence(schema, tables))
            while not watch.poll():
                assert proc.poll() is None, (lake / "run.log").read_text()[-3000:]
                assert time.time() - stream_end < 600, "the fence rows did not arrive in 600 s"
                time.sleep(0.1)
            caught_up = max(watch.covered.values()) / 1000 - stream_end
            # Read now, seconds after pgbench's backend ended and reported them; less the fence.
            events_after, stamped_after = events(schema)
            changes = events_after - events_before - tables
            stamped = stamped_after - stamped_before - tables
            stream_cpu = cpu_seconds(proc.pid) - floe_before
            pg_stream = server.seconds() - pg_before
            walsender = server.walsender_seconds() - wal_before
            peak = peak_mib(proc.pid)
            load = load_avg()
            at_end = slot_wal(system)
            time.sleep(stream["idle"])  # past heartbeat.interval (30 s) and a SlotMonitor reading (5 s)
            after_idle = slot_wal(system)
        finally:
            stop(proc)
            system.drop_slot(schema)
        ages, commit_s = change_freshness(lake, stream_start)
    p0, p50, p99, p100 = quantiles(ages, [0, 0.5, 0.99, 1])
    latency = next((line for line in report.splitlines() if line.startswith("latency average")), "")
    print(f"streaming  {tables:>2} tables, {seconds:.0f} s: {changes:,} events = {changes / seconds:,.0f} events/s  "
          f"floe CPU {stream_cpu:.1f} s = {stream_cpu / max(1, changes) * 1e6:.1f} s per 1M events  "
          f"peak RSS {peak:.0f} MiB  PostgreSQL CPU {pg_stream:.1f} s (walsender {walsender:.1f} s)  "
          f"load {load}", flush=True)
    print(f"freshness  p50 {p50:.2f} s  p99 {p99:.2f} s  max {p100:.2f} s  min {p0:.3f} s over {len(ages):,} row "
          f"images of {stamped:,} inserted or updated; all in {caught_up:.2f} s after the load ended; "
          f"pgbench {latency}", flush=True)
    commit_p50, commit_max = quantiles(commit_s, [0.5, 1])
    print(f"           timestamp-ms to metadata file written p50 {commit_p50 * 1000:.0f} ms, "
          f"max {commit_max * 1000:.0f} ms")
    for when, (retained, unconfirmed, gauge) in (("at the end", at_end), (f"{stream['idle']:.0f} s idle", after_idle)):
        print(f"slot WAL   {when}: retained (current - restart_lsn) {retained:,} B, unconfirmed "
              f"(current - confirmed_flush_lsn) {unconfirmed:,} B; /metrics "
              f"floe_postgres_slot_retained_wal_bytes {gauge:,.0f} B", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--floe", default=str(ROOT / "build" / "floe"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--layouts", default="1,10",
                        help="table counts to snapshot, comma-separated (rows split evenly); "
                             "the streaming stage runs on the last")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--interval", default="1s", help="checkpoint.interval")
    parser.add_argument("--rate", type=float, default=0,
                        help="offer at most this many events per second (0: as fast as PostgreSQL takes them)")
    parser.add_argument("--idle", type=float, default=40,
                        help="seconds without changes after the streaming stage before the slot is read again")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="floe-pg-bench-bin-"))
    system = PostgresFloe(args.floe, scratch)
    layouts = [int(v) for v in args.layouts.split(",") if v]
    version = psql("SHOW server_version", "postgres", "postgres")
    print(f"PostgreSQL {version} on {HOST}:{PORT}; {args.rows:,} rows per layout; checkpoint.interval "
          f"{args.interval}; {os.cpu_count()} cpus, load {load_avg()} (other work shares the machine)")
    print("floe's PostgreSQL snapshot has no parallel readers: one transaction, table after table (1 reader)")
    for i, tables in enumerate(layouts):
        stream = {"seconds": args.seconds, "rate": args.rate, "idle": args.idle} if i == len(layouts) - 1 else None
        run_layout(system, args.rows, tables, args.interval, stream)
    print(f"load at the end: {load_avg()}")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
