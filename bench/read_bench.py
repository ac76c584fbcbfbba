#!/usr/bin/env python3
"""`floe read` benchmarks (issue 13): a table read as a stream, against PyIceberg.

One run, one machine, one SQL catalog (SQLite), each system in its own process:

(a) throughput: a full read of a table of --rows rows x 20 columns (the rows of
    bench/parquet_write_bench.py; zstd Parquet written by `floe ingest --parallelism 2`,
    or by PyIceberg's append with --writer pyiceberg), by
      - PyIceberg `table.scan().to_arrow()` with its default threads (pyarrow's pool and
        PyIceberg's workers, on every CPU), and with one thread (PYICEBERG_MAX_WORKERS=1,
        pyarrow's CPU and I/O pools at 1): Parquet decoded into Arrow columns in memory,
        no text;
      - PyIceberg to JSON Lines: the same scan, then `to_pylist()` and `json.dumps` per row
        to a file (what printing the rows costs in Python; --skip-json leaves it out);
      - `floe read --output FILE` at --parallelism 1 and 2, and at 2 with
        --split-target-size 16MiB (the table's files are one 128 MiB split together, so
        one reader; the smaller target gives a split per file): Parquet decoded and
        every row written as JSON Lines to a file.
    PyIceberg's figures are taken inside its process around the scan (load_table done,
    imports excluded: about a second of Python start-up is not counted against it);
    floe's are the whole process (wait4). Per run: wall time, CPU-seconds, rows/s, rows
    per CPU-second, peak RSS; then floe against PyIceberg's to_arrow at the same thread
    budget (1 and the machine's CPUs).
(b) freshness: `floe read --follow --monitor-interval 1s` on a second table while a
    PyIceberg process appends --snapshots snapshots of --snapshot-rows rows at random
    intervals of 0.3-1.2 s; per row, the time it appeared in floe's output file (polled
    every 5 ms) minus the time its append returned (the commit); p50, p99 and max.
(c) changelog of an upsert table: `floe ingest --format json --upsert --primary-key id`
    loads --changelog-rows rows of the same 20 columns, then --changelog-snapshots more
    runs of --changelog-events rows each, 30% of them updates of keys written before and
    70% new keys (one upsert snapshot per run: data files plus equality deletes);
    `floe read --changelog --stats` from the first upsert snapshot to the last: wall,
    CPU, change lines per second, peak RSS, and the data and delete files it opened
    against the ones those snapshots added (from their summaries): the extra reads are
    the changelog's cost (docs/read.md, "Changelogs").

Every measured run holds the bench lock (LOCK below, as `flock LOCK CMD` would) from
before its clock starts until it ends. This runner imports neither pyarrow
nor PyIceberg, so it stays small and a child's ru_maxrss (from wait4) is its own.

Usage: .cache/venv/bin/python bench/read_bench.py [--rows N] [--floe build/floe]
           [--writer floe|pyiceberg] [--snapshots N] [--snapshot-rows N] [--skip-json]
           [--changelog-rows N] [--changelog-snapshots N] [--changelog-events N]
           [--skip-throughput] [--skip-freshness] [--skip-changelog]
Needs pyiceberg and pyarrow (the repo's .cache/venv has them). Results: bench/README.md.
"""
import argparse
import fcntl
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
LOCK = "/tmp/floe-bench.lock"
sys.path.insert(0, BENCH)

from bench_lake import lake  # noqa: E402


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def measure(argv, out_path, env=None):
    """Runs argv (stdout to out_path) under the bench lock; returns wall s, cpu s (user +
    sys of the child and its descendants, wait4), peak RSS MiB (ru_maxrss) and stdout."""
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(out_path, "wb") as out:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, env=env)
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            err = proc.stderr.read().decode(errors="replace")
            proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("failed (exit %d): %s\n%s" % (code, " ".join(argv), err[-4000:]))
    with open(out_path, errors="replace") as f:
        head = f.read(4096)
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024.0,
            "stdout": head}


def count_lines(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            block = f.read(1 << 24)
            if not block:
                return n
            n += block.count(b"\n")


def run_python(code, *args, env=None):
    subprocess.run([sys.executable, "-c", code] + [str(a) for a in args], check=True, env=env)


GENERATE = ("import sys; sys.path.insert(0, sys.argv[1]); import parquet_write_bench as b; "
            "b.generate(sys.argv[2], int(sys.argv[3]))")
SCHEMA = ("import json, sys; sys.path.insert(0, sys.argv[1]); import parquet_write_bench as b; "
          "json.dump(b.iceberg_schema(), open(sys.argv[2], 'w'))")

PYICEBERG_APPEND = r"""
import sys
import pyarrow.json as pj
from pyiceberg.catalog.sql import SqlCatalog
sys.path.insert(0, sys.argv[4])
import parquet_write_bench as b
uri, warehouse, data = sys.argv[1], sys.argv[2], sys.argv[3]
catalog = SqlCatalog("default", uri=uri, warehouse=warehouse)
catalog.create_namespace_if_not_exists("bench")
table = catalog.create_table("bench.rows", schema=b.arrow_schema(),
                             properties={"write.parquet.compression-codec": "zstd"})
rows = pj.read_json(data, parse_options=pj.ParseOptions(explicit_schema=b.arrow_schema()))
table.append(rows.cast(b.arrow_schema()))
"""

# The scan, timed inside the process; prints rows, wall s, cpu s, peak MiB (VmHWM).
PYICEBERG_SCAN = r"""
import json, os, sys, time
threads, mode, uri, warehouse, out = sys.argv[1:6]
import pyarrow as pa
if threads == "1":
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
from pyiceberg.catalog.sql import SqlCatalog
catalog = SqlCatalog("default", uri=uri, warehouse=warehouse)
table = catalog.load_table("bench.rows")
c0, t0 = time.process_time(), time.perf_counter()
arrow = table.scan().to_arrow()
rows = arrow.num_rows
if mode == "json":
    with open(out, "w") as f:
        for row in arrow.to_pylist():
            f.write(json.dumps(row, default=str, separators=(",", ":")))
            f.write("\n")
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = float("nan")
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) / 1024
print(rows, wall, cpu, peak)
"""

# Appends N snapshots of M rows to bench.fresh; prints "snapshot commit_time" per append
# (time.time() when the append returned).
PYICEBERG_APPENDER = r"""
import random, sys, time
import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
uri, warehouse, n, m, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
catalog = SqlCatalog("default", uri=uri, warehouse=warehouse)
table = catalog.load_table("bench.fresh")
rng = random.Random(seed)
schema = pa.schema([pa.field("snap", pa.int32(), nullable=False),
                    pa.field("id", pa.int64(), nullable=False), pa.field("note", pa.string())])
for s in range(1, n + 1):
    time.sleep(rng.uniform(0.3, 1.2))
    batch = pa.table({"snap": pa.array([s] * m, pa.int32()),
                      "id": pa.array(range(s * m, (s + 1) * m), pa.int64()),
                      "note": pa.array(["row %d of snapshot %d" % (i, s) for i in range(m)])},
                     schema=schema)
    table.append(batch)
    print(s, repr(time.time()), flush=True)
"""

PYICEBERG_CREATE_FRESH = r"""
import sys
import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
catalog = SqlCatalog("default", uri=sys.argv[1], warehouse=sys.argv[2])
catalog.create_namespace_if_not_exists("bench")
schema = pa.schema([pa.field("snap", pa.int32(), nullable=False),
                    pa.field("id", pa.int64(), nullable=False), pa.field("note", pa.string())])
table = catalog.create_table("bench.fresh", schema=schema)
table.append(pa.table({"snap": pa.array([0], pa.int32()), "id": pa.array([0], pa.int64()),
                       "note": pa.array(["warm-up"])}, schema=schema))
"""


# Writes upsert batch b (1-based) of --changelog-events plain JSON rows: 30% updates of
# distinct keys written before (the base rows and earlier batches' new keys), 70% new keys; rows
# are the base file's rows with the key replaced and, for updates, version and quantity
# changed. argv: base rows file, base row count, batch, events, out path.
UPSERT_BATCH = r"""
import json, random, sys
base_path, base_rows, batch, events, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = []
with open(base_path) as f:
    for i, line in enumerate(f):
        if i >= base_rows:
            break
        rows.append(json.loads(line))
rng = random.Random(1000 + batch)
updates = sum(1 for i in range(events) if i % 10 < 3)
first_new = base_rows + (batch - 1) * (events - updates) + 1  # keys before it exist
keys = iter(rng.sample(range(1, first_new), updates))  # distinct: one update pair each
with open(out, "w") as f:
    next_new = first_new
    for i in range(events):
        if i % 10 < 3:  # an update of an existing key
            key = next(keys)
            row = dict(rows[(key - 1) % base_rows], id=key, version=rng.randrange(20, 1000),
                       quantity=rng.randrange(1, 100))
        else:
            row = dict(rows[(next_new - 1) % base_rows], id=next_new)
            next_new += 1
        f.write(json.dumps(row, separators=(",", ":")) + "\n")
"""


def snapshots_of(db, table):
    """The table's snapshots (oldest first) from its current metadata file."""
    con = sqlite3.connect(db)
    ns, name = table.split(".")
    (location,) = con.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                              "table_namespace = ? AND table_name = ?", (ns, name)).fetchone()
    con.close()
    with open(location[len("file://"):] if location.startswith("file://") else location) as f:
        meta = json.load(f)
    return sorted(meta.get("snapshots", []), key=lambda s: s["sequence-number"])


def changelog(args, root, uri, warehouse, config, data, schema_path):
    table = "bench.upserts"
    ingest = [args.floe, "ingest", "--format", "json", "--table", table, "--schema", schema_path,
              "--primary-key", "id", "--upsert", "--catalog-config", config,
              "--parallelism", "2"]
    log("writing %s: %d rows, then %d upsert snapshots of %d rows ..."
        % (table, args.changelog_rows, args.changelog_snapshots, args.changelog_events))
    base = os.path.join(root, "upsert-base.jsonl")
    with open(data, "rb") as src, open(base, "wb") as dst:
        for i, line in enumerate(src):
            if i >= args.changelog_rows:
                break
            dst.write(line)
    subprocess.run(ingest + [base, "--state-dir", os.path.join(root, "state-upsert-0")],
                   check=True, stdout=subprocess.DEVNULL)
    base_rows = min(args.changelog_rows, args.rows)
    for b in range(1, args.changelog_snapshots + 1):
        batch = os.path.join(root, "upsert-%d.jsonl" % b)
        run_python(UPSERT_BATCH, base, base_rows, b, args.changelog_events, batch)
        subprocess.run(ingest + [batch, "--state-dir", os.path.join(root, "state-upsert-%d" % b)],
                       check=True, stdout=subprocess.DEVNULL)
        os.unlink(batch)
    snaps = snapshots_of(root + "/catalog.db", table)
    upserts = snaps[1:]  # after the base load
    added_data = sum(int(s["summary"].get("added-data-files", 0)) for s in upserts)
    added_deletes = sum(int(s["summary"].get("added-delete-files", 0)) for s in upserts)
    total_records = [int(s["summary"].get("total-records", 0)) for s in snaps]
    ops = sorted(set(s["summary"]["operation"] for s in upserts))

    out = os.path.join(root, "changelog.jsonl")
    argv = [args.floe, "read", table, "--catalog-config", config, "--changelog", "--stats",
            "--starting-strategy", "incremental-from-snapshot-id", "--start-snapshot-id",
            str(upserts[0]["snapshot-id"]), "--end-snapshot-id", str(upserts[-1]["snapshot-id"]),
            "--output", out]
    m = measure_stderr(argv)
    counts = {op: 0 for op in ("insert", "delete", "update_before", "update_after")}
    lines = 0
    with open(out, "rb") as f:
        for line in f:
            lines += 1
            counts[line[7:line.index(b'"', 7)].decode()] += 1  # {"op":"NAME",...
    os.unlink(out)
    stats = [l for l in m["stderr"].splitlines() if l.startswith("floe read:")]
    if not stats:
        sys.exit("floe read --stats printed no stats line:\n" + m["stderr"][-2000:])
    nums = [int(x) for x in
            re.findall(r"(\d+) (?:readers|splits|changelog\)|data file reads|delete file reads)",
                       stats[0])]
    _, splits, changelog_splits, data_reads, delete_reads = nums
    expect_updates = args.changelog_snapshots * sum(
        1 for i in range(args.changelog_events) if i % 10 < 3)
    print()
    print("(c) changelog, floe read --changelog over %d upsert snapshots (%s) of a table of "
          "%d rows growing to %d; each snapshot %d rows: 30%% updates, 70%% new keys"
          % (len(upserts), "/".join(ops), total_records[0], total_records[-1],
             args.changelog_events))
    print("| change lines | insert | update pairs | delete | wall s | CPU s | lines/s | "
          "lines per CPU-s | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %d | %d | %d | %.2f | %.2f | %.0f | %.0f | %.0f |"
          % (lines, counts["insert"], counts["update_after"], counts["delete"], m["wall"],
             m["cpu"], lines / m["wall"], lines / m["cpu"], m["rss"]))
    print("(expected %d update pairs, %d inserts; %d changelog splits of %d)"
          % (expect_updates, args.changelog_snapshots * args.changelog_events - expect_updates,
             changelog_splits, splits))
    print("| files | data | delete |")
    print("|---|---:|---:|")
    print("| added by the %d snapshots | %d | %d |" % (len(upserts), added_data, added_deletes))
    print("| opened by the changelog | %d | %d |" % (data_reads, delete_reads))
    print("| extra (opened - added) | %d | %d |"
          % (data_reads - added_data, delete_reads - added_deletes))
    print("(%s)" % stats[0])


def measure_stderr(argv):
    """measure(), keeping the child's standard error (stdout is discarded)."""
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        err = proc.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit("failed (exit %d): %s\n%s" % (code, " ".join(argv), err[-4000:]))
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024.0,
            "stderr": err}


def throughput(args, root, uri, warehouse, config):
    results = []  # (label, threads, measurement)
    env1 = dict(os.environ, PYICEBERG_MAX_WORKERS="1")
    cpus = os.cpu_count()
    scratch = os.path.join(root, "out")
    os.makedirs(scratch, exist_ok=True)

    def pyiceberg(label, threads, mode, env=None):
        out = os.path.join(scratch, "pyiceberg.jsonl")
        m = measure([sys.executable, "-c", PYICEBERG_SCAN, threads, mode, uri, warehouse, out],
                    os.path.join(scratch, "pyiceberg.stdout"), env=env)
        rows, wall, cpu, peak = m["stdout"].split()
        if int(rows) != args.rows:
            sys.exit("%s read %s rows, expected %d" % (label, rows, args.rows))
        # In-process figures: the scan only, without Python's start-up and imports.
        m.update(wall=float(wall), cpu=float(cpu), rss=float(peak), rows=int(rows))
        if os.path.exists(out):
            os.unlink(out)
        results.append((label, 1 if threads == "1" else cpus, m))
        log("%-34s %6.2f s" % (label, m["wall"]))

    def floe(parallelism, extra=()):
        out = os.path.join(scratch, "floe.jsonl")
        m = measure([args.floe, "read", "bench.rows", "--catalog-config", config,
                     "--parallelism", str(parallelism), "--output", out] + list(extra),
                    os.path.join(scratch, "floe.stdout"))
        m["rows"] = count_lines(out)
        if m["rows"] != args.rows:
            sys.exit("floe read --parallelism %d wrote %d rows, expected %d"
                     % (parallelism, m["rows"], args.rows))
        os.unlink(out)
        label = " ".join(["floe read --parallelism %d" % parallelism] + list(extra))
        results.append((label, parallelism, m))
        log("%-34s %6.2f s" % (label, m["wall"]))

    pyiceberg("pyiceberg to_arrow (%d threads)" % cpus, "all", "arrow")
    pyiceberg("pyiceberg to_arrow (1 thread)", "1", "arrow", env=env1)
    if not args.skip_json:
        pyiceberg("pyiceberg to JSON Lines (%d threads)" % cpus, "all", "json")
    floe(1)
    floe(2)
    # The table's files together are below the 128 MiB split target: one split, so one
    # reader at any parallelism. A smaller target gives a split per file.
    floe(2, ["--split-target-size", "16MiB"])

    to_arrow = {threads: m for label, threads, m in results if "to_arrow" in label}
    print()
    print("(a) full read, %d rows x 20 columns (%s)" % (args.rows, args.table_note))
    print("| run | wall s | CPU s | rows/s | rows per CPU-s | peak RSS MiB | wall vs to_arrow | CPU vs to_arrow |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, threads, m in results:
        peer = to_arrow.get(min(threads, cpus))
        ratio = ("%.2fx" % (peer["wall"] / m["wall"]), "%.2fx" % (peer["cpu"] / m["cpu"])) \
            if peer is not None and "floe" in label else ("", "")
        print("| %s | %.2f | %.2f | %.0f | %.0f | %.0f | %s | %s |"
              % (label, m["wall"], m["cpu"], m["rows"] / m["wall"], m["rows"] / m["cpu"], m["rss"],
                 ratio[0], ratio[1]))
    print("(ratios: PyIceberg's time / floe's, against to_arrow at the same thread budget; "
          "above 1x floe is faster)")


def freshness(args, root, uri, warehouse, config):
    run_python(PYICEBERG_CREATE_FRESH, uri, warehouse)
    out_path = os.path.join(root, "fresh.jsonl")
    open(out_path, "wb").close()
    expected = args.snapshots * args.snapshot_rows
    seen = {}  # snapshot -> times its rows appeared
    got = 0
    appender = None
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        reader = subprocess.Popen(
            [args.floe, "read", "bench.fresh", "--catalog-config", config, "--follow",
             "--starting-strategy", "incremental-from-earliest-snapshot", "--monitor-interval",
             "1s", "--output", out_path], stdin=subprocess.DEVNULL)
        buf = b""
        deadline = time.time() + 60 + args.snapshots * 3

        def tail_output():
            nonlocal buf, got, appender
            with open(out_path, "rb") as f:
                while got < expected and time.time() < deadline:
                    chunk = f.read()
                    now = time.time()
                    if chunk:
                        buf += chunk
                        lines = buf.split(b"\n")
                        buf = lines.pop()
                        for line in lines:
                            snap = json.loads(line)["snap"]
                            if snap > 0:
                                seen.setdefault(snap, []).append(now)
                                got += 1
                            elif appender is None:  # the warm-up row: the reader is live
                                appender = subprocess.Popen(
                                    [sys.executable, "-c", PYICEBERG_APPENDER, uri, warehouse,
                                     str(args.snapshots), str(args.snapshot_rows), "7"],
                                    stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
                    if reader.poll() is not None:
                        sys.exit("floe read --follow exited with %d" % reader.returncode)
                    time.sleep(0.005)

        try:
            tail_output()
        finally:
            if appender is not None and appender.poll() is None and got < expected:
                appender.kill()
            reader.send_signal(signal.SIGINT)
            _, _, ru = os.wait4(reader.pid, 0)
    if appender is None:
        sys.exit("floe read --follow never printed the warm-up row")
    text = appender.communicate(timeout=60)[0].decode()
    commits = {}
    for line in text.splitlines():
        s, t = line.split()
        commits[int(s)] = float(t)
    if got < expected:
        sys.exit("freshness: %d of %d rows appeared" % (got, expected))
    lat = sorted(t - commits[s] for s, times in seen.items() for t in times)
    per_snapshot = sorted(max(times) - commits[s] for s, times in seen.items())

    def pct(xs, p):
        return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]

    print()
    print("(b) freshness, floe read --follow --monitor-interval 1s: %d snapshots x %d rows "
          "appended by PyIceberg at 0.3-1.2 s intervals" % (args.snapshots, args.snapshot_rows))
    print("| | p50 | p99 | max |")
    print("|---|---:|---:|---:|")
    print("| row in floe's output - commit (per row) | %.3f s | %.3f s | %.3f s |"
          % (pct(lat, 50), pct(lat, 99), lat[-1]))
    print("| last row of a snapshot - commit (per snapshot) | %.3f s | %.3f s | %.3f s |"
          % (pct(per_snapshot, 50), pct(per_snapshot, 99), per_snapshot[-1]))
    print("(reader: %.2f CPU-s over the run, peak RSS %.0f MiB)"
          % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--floe", default=os.path.join(ROOT, "build", "floe"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".cache", "bench"))
    ap.add_argument("--writer", choices=["floe", "pyiceberg"], default="floe",
                    help="who writes the table read in (a)")
    ap.add_argument("--snapshots", type=int, default=30)
    ap.add_argument("--snapshot-rows", type=int, default=1000)
    ap.add_argument("--skip-json", action="store_true",
                    help="leave out PyIceberg's scan to JSON Lines (the slowest run)")
    ap.add_argument("--skip-freshness", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    ap.add_argument("--skip-changelog", action="store_true")
    ap.add_argument("--changelog-rows", type=int, default=500_000,
                    help="rows of the upsert table before its upsert snapshots")
    ap.add_argument("--changelog-snapshots", type=int, default=5)
    ap.add_argument("--changelog-events", type=int, default=100_000,
                    help="rows per upsert snapshot (30%% updates)")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    data = os.path.join(args.workdir, "cdc_%d.jsonl" % args.rows)
    if not os.path.exists(data):
        log("generating %s ..." % data)
        run_python(GENERATE, BENCH, data + ".tmp", args.rows)
        os.rename(data + ".tmp", data)
    schema_path = os.path.join(args.workdir, "cdc_schema.json")
    run_python(SCHEMA, BENCH, schema_path)

    root, uri, warehouse, config = lake(args.workdir, "read-bench-lake")
    if args.skip_throughput:
        pass
    elif args.writer == "floe":
        log("writing bench.rows with floe ...")
        subprocess.run([args.floe, "ingest", data, "--format", "json", "--table", "bench.rows",
                        "--schema", schema_path, "--catalog-config", config, "--parallelism", "2",
                        "--state-dir", os.path.join(root, "state-ingest")],
                       check=True, stdout=subprocess.DEVNULL)
    else:
        log("writing bench.rows with pyiceberg ...")
        run_python(PYICEBERG_APPEND, uri, warehouse, data, BENCH)
    files = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, "warehouse"))
             for f in fs if f.endswith(".parquet")]
    args.table_note = "%d zstd Parquet files, %.1f MiB, written by %s" % (
        len(files), sum(os.path.getsize(f) for f in files) / 2**20,
        "floe ingest --parallelism 2" if args.writer == "floe" else "PyIceberg append")
    print("machine: %d cpus; %s" % (os.cpu_count(), args.table_note), flush=True)

    if not args.skip_throughput:
        throughput(args, root, uri, warehouse, config)
    if not args.skip_freshness:
        freshness(args, root, uri, warehouse, config)
    if not args.skip_changelog:
        changelog(args, root, uri, warehouse, config, data, schema_path)


if __name__ == "__main__":
    main()
