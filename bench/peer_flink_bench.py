#!/usr/bin/env python3
"""floe ingest against Iceberg's FlinkSink, side by side (issue 12, item 1).

Same input file, same kind of catalog (Hadoop, one folder), parallelism 2, 10 s
checkpoints, zstd Parquet, one machine, one run:

  append  JSON Lines rows (20 columns, bench/parquet_write_bench.py's generator)
          floe ingest --format json --schema ...   vs  FlinkSink append
  upsert  Debezium JSON (schema block on every event, 30% inserts, 70% updates;
          bench/ingest_bench.py's generator)
          floe ingest --upsert --primary-key id    vs  FlinkSink upsert, equality field id

The Flink side is bench/peer_flink/ (FlinkSink on a local MiniCluster, built by
bench/peer_flink/build.sh), run twice: at the JVM's default heap and with -Xmx1g.
Per run: wall time, CPU-seconds (user + sys of the process and its children, from
wait4), rows per CPU-second, peak RSS (ru_maxrss from wait4; this runner stays small,
so the maximum is the child's own), and the rows read back by Iceberg Java (the
interop peer, scripts/java-peer.sh). Then the ratios floe / Flink. Every measured
run holds /tmp/floe-bench.lock (flock, as `flock /tmp/floe-bench.lock CMD` would)
from before its clock starts until it ends.

Usage: .cache/venv/bin/python bench/peer_flink_bench.py [--rows N] [--events N]
           [--modes append,upsert] [--heaps default,1g] [--small N] [--floe build/floe]
--small (default 50000) also runs every system on a small input first, and the summary
gives the marginal rows per CPU-second, without each run's fixed cost (a JVM's start and
JIT, Flink's wait for the last checkpoint).
Results: bench/README.md.
"""
import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
LOCK = "/tmp/floe-bench.lock"

# What Flink's own launch scripts open on Java 17 (Kryo and the RPC system reflect into
# these packages); the job fails without them.
JAVA17_OPENS = ["--add-opens=java.base/" + p + "=ALL-UNNAMED" for p in (
    "java.lang", "java.lang.reflect", "java.io", "java.net", "java.nio", "sun.nio.ch",
    "java.text", "java.time", "java.util", "java.util.concurrent",
    "java.util.concurrent.atomic", "java.util.concurrent.locks")] + [
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def measure(argv, out_path):
    """Runs argv (stdout and stderr to out_path) under the bench lock; returns wall s,
    cpu s, peak RSS MiB of the child and its descendants (wait4), and the load before."""
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        load_before = load()
        with open(out_path, "wb") as out:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        with open(out_path, errors="replace") as f:
            tail = f.read()[-4000:]
        sys.exit("failed (exit %d): %s\n%s" % (proc.returncode, " ".join(argv), tail))
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024.0,
            "load": load_before, "log": out_path}


def generate(kind, path, n):
    """The generators of bench/parquet_write_bench.py and bench/ingest_bench.py, imported in
    a child process so this one stays small (its size is in every child's ru_maxrss)."""
    if os.path.exists(path):
        return
    log("generating %s ..." % path)
    call = ("parquet_write_bench.generate(sys.argv[1], int(sys.argv[2]))" if kind == "rows"
            else "ingest_bench.generate_upserts(sys.argv[1], int(sys.argv[2]))")
    code = "import sys; sys.path.insert(0, %r); import parquet_write_bench, ingest_bench; %s" % (
        BENCH, call)
    subprocess.run([sys.executable, "-c", code, path + ".tmp", str(n)], check=True)
    os.rename(path + ".tmp", path)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def expected_live_keys(events_path):
    """Keys alive after the Debezium stream: creates (and snapshot reads) minus deletes."""
    def count(pattern):
        r = subprocess.run(["grep", "-c", pattern, events_path], capture_output=True, text=True)
        return int(r.stdout.strip() or 0)
    return count('"op":"[cr]"}}$') - count('"op":"d"}}$')


def read_back(java_peer_cp, warehouse, table, scratch):
    """Rows of the table's current snapshot as Iceberg Java reads them (equality and
    position deletes applied): count, distinct ids, and an order-free digest of the rows."""
    out = os.path.join(scratch, "scan-%s.jsonl" % table.replace(".", "_"))
    with open(out, "wb") as f:
        subprocess.run(["java", "-XX:+UseSerialGC", "-cp", java_peer_cp,
                        "dev.floe.interop.IcebergPeer", "scan", "--catalog", "hadoop",
                        "--warehouse", warehouse, "--table", table],
                       stdout=f, check=True)
    rows, ids, digest = 0, set(), 0
    with open(out, "rb") as f:
        for line in f:
            rows += 1
            ids.add(json.loads(line)["id"])
            digest = (digest + int.from_bytes(hashlib.blake2b(line.rstrip(b"\n"), digest_size=8).digest(), "little")) % (1 << 64)
    os.unlink(out)
    return rows, len(ids), digest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000, help="append: JSON rows")
    ap.add_argument("--events", type=int, default=2_000_000, help="upsert: Debezium events")
    ap.add_argument("--modes", default="append,upsert")
    ap.add_argument("--heaps", default="default,1g",
                    help="Flink JVM heaps: 'default' (the JVM's choice) or an -Xmx value")
    ap.add_argument("--small", type=int, default=50_000,
                    help="also run every system on this many rows/events, to separate each"
                         " run's fixed cost from its cost per row (0: don't)")
    ap.add_argument("--parallelism", type=int, default=2)
    ap.add_argument("--checkpoint-interval", type=int, default=10, help="seconds")
    ap.add_argument("--floe", default=os.path.join(ROOT, "build", "floe"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".cache", "bench"))
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    heaps = [h for h in args.heaps.split(",") if h]
    os.makedirs(args.workdir, exist_ok=True)
    scratch = os.path.join(args.workdir, "peer-flink")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)

    # The peers (idempotent builds) and a private copy of floe (others relink build/floe).
    for script in (os.path.join(BENCH, "peer_flink", "build.sh"),
                   os.path.join(ROOT, "scripts", "java-peer.sh")):
        subprocess.run([script], check=True, stdout=sys.stderr)
    with open(os.path.join(ROOT, ".cache", "peer-flink", "classpath.txt")) as f:
        flink_cp = f.read().strip()
    with open(os.path.join(ROOT, ".cache", "java-peer", "classpath.txt")) as f:
        java_peer_cp = f.read().strip()
    floe = os.path.join(scratch, "floe")
    shutil.copy2(args.floe, floe)
    floe_version = subprocess.run([floe, "--version"], capture_output=True, text=True).stdout.strip()

    # One Hadoop catalog in one folder for every table of the run.
    warehouse = os.path.join(scratch, "warehouse")
    os.makedirs(warehouse)
    config = os.path.join(scratch, "floe.yaml")
    with open(config, "w") as f:
        f.write("catalog:\n  default:\n    type: hadoop\n    warehouse: %s\n" % warehouse)
    schema_path = os.path.join(scratch, "schema.json")
    code = ("import json, sys; sys.path.insert(0, %r); import parquet_write_bench as b; "
            "json.dump(b.iceberg_schema(), open(sys.argv[1], 'w'))" % BENCH)
    subprocess.run([sys.executable, "-c", code, schema_path], check=True)

    print("machine: %d cpus, load %s; %s; Flink 1.20.1 + iceberg-flink-runtime-1.20 1.10.1 on %s"
          % (os.cpu_count(), load(), floe_version or "floe",
             subprocess.run(["java", "-version"], capture_output=True, text=True)
             .stderr.splitlines()[0]), flush=True)

    inputs, small = {}, {}
    if "append" in modes:
        inputs["append"] = (os.path.join(args.workdir, "cdc_%d.jsonl" % args.rows), args.rows)
        generate("rows", *inputs["append"])
        if args.small:
            small["append"] = (os.path.join(args.workdir, "cdc_%d.jsonl" % args.small), args.small)
            generate("rows", *small["append"])
    if "upsert" in modes:
        inputs["upsert"] = (os.path.join(args.workdir, "upserts_%d.jsonl" % args.events),
                            args.events)
        generate("upserts", *inputs["upsert"])
        if args.small:
            small["upsert"] = (os.path.join(args.workdir, "upserts_%d.jsonl" % args.small),
                               args.small)
            generate("upserts", *small["upsert"])

    def run_all(mode, data, n, suffix):
        """floe, then Flink at every heap, on one input; [(system, table, measurement)]."""
        warm(data)
        print("%s%s: %s, %d %s, %.1f MiB" % (mode, suffix, os.path.basename(data), n,
                                               "rows" if mode == "append" else "events",
                                               os.path.getsize(data) / 2**20), flush=True)
        out = []
        table = "bench.floe_" + mode + suffix
        argv = [floe, "ingest", data, "--table", table, "--catalog-config", config,
                "--parallelism", str(args.parallelism),
                "--checkpoint-interval", "%ds" % args.checkpoint_interval,
                "--state-dir", os.path.join(scratch, "state-" + mode + suffix),
                "--progress", "never"]
        argv += (["--format", "json", "--schema", schema_path] if mode == "append"
                 else ["--upsert", "--primary-key", "id"])
        m = measure(argv, os.path.join(scratch, "floe-%s%s.log" % (mode, suffix)))
        out.append(("floe", table, m))
        report(mode, "floe", m, n)
        for heap in heaps:
            table = "bench.flink_%s_%s%s" % (mode, heap, suffix)
            jvm = ["java"] + ([] if heap == "default" else ["-Xmx" + heap]) + JAVA17_OPENS
            argv = jvm + ["-cp", flink_cp, "dev.floe.bench.FlinkSinkBench", "--mode", mode,
                          "--input", data, "--warehouse", warehouse, "--table", table,
                          "--schema", schema_path, "--key", "id",
                          "--parallelism", str(args.parallelism),
                          "--checkpoint-interval-ms", str(args.checkpoint_interval * 1000)]
            m = measure(argv, os.path.join(scratch, "flink-%s-%s%s.log" % (mode, heap, suffix)))
            out.append(("flink heap " + heap, table, m))
            report(mode, "flink heap " + heap, m, n)
        return out

    results = []  # (mode, system, table, measurement)
    fixed = {}  # (mode, system) -> measurement of the small input
    for mode in modes:
        if mode in small:
            for system, _, m in run_all(mode, *small[mode], "_small"):
                fixed[(mode, system)] = m
        for system, table, m in run_all(mode, *inputs[mode], ""):
            results.append((mode, system, table, m))

    # Read every table back with Iceberg Java (after the measured runs: the scans' memory
    # would otherwise be in the following children's ru_maxrss).
    print("read back by Iceberg Java (rows, distinct ids, row digest):", flush=True)
    digests = {}
    for mode, system, table, m in results:
        rows, distinct, digest = read_back(java_peer_cp, warehouse, table, scratch)
        m["rows"] = rows
        want = inputs[mode][1] if mode == "append" else expected_live_keys(inputs[mode][0])
        digests.setdefault(mode, set()).add(digest)
        print("  %-6s %-18s %9d rows  %9d ids  %016x  %s"
              % (mode, system, rows, distinct, digest,
                 "ok" if rows == want == distinct else "MISMATCH: expected %d" % want), flush=True)
    for mode, ds in digests.items():
        print("  %s: every system's table holds %s" % (
            mode, "the same rows" if len(ds) == 1 else "DIFFERENT rows (digests differ)"))

    print("summary (floe / Flink: rows per CPU-second higher is better, RSS lower is better):")
    for mode in modes:
        floe_m = next(m for md, s, _, m in results if md == mode and s == "floe")
        for md, system, _, m in results:
            if md != mode or system == "floe":
                continue
            n = inputs[mode][1]
            print("  %-6s floe vs %-18s rows/CPU-s %8.0f vs %7.0f = %5.2fx   peak RSS %6.0f vs %6.0f MiB"
                  " = %.2f   wall %6.1f vs %6.1f s = %.2fx faster"
                  % (mode, system, n / floe_m["cpu"], n / m["cpu"], m["cpu"] / floe_m["cpu"],
                     floe_m["rss"], m["rss"], floe_m["rss"] / m["rss"], floe_m["wall"], m["wall"],
                     m["wall"] / floe_m["wall"]))
    if fixed:
        print("marginal cost, without the fixed cost of a run (start, JIT, the last checkpoint):"
              " (N - n) / (CPU-s at N - CPU-s at n), n = %d" % args.small)
        for mode in modes:
            if mode not in small:
                continue
            n_big, n_small = inputs[mode][1], small[mode][1]
            rate = {}
            for md, system, _, m in results:
                if md == mode:
                    sm = fixed[(mode, system)]
                    rate[system] = (n_big - n_small) / max(m["cpu"] - sm["cpu"], 1e-9)
                    print("  %-6s %-18s at n: %6.2f CPU-s %6.0f MiB;  marginal %8.0f rows/CPU-s"
                          % (mode, system, sm["cpu"], sm["rss"], rate[system]))
            for system, r in rate.items():
                if system != "floe":
                    print("  %-6s floe vs %-18s marginal rows/CPU-s %.2fx"
                          % (mode, system, rate["floe"] / r))
    print("load at the end: %s" % load())


def report(mode, system, m, n):
    print("  %-6s %-18s wall %7.2f s  cpu %7.2f s  %8.0f rows/CPU-s  peak RSS %7.1f MiB  (load %s)"
          % (mode, system, m["wall"], m["cpu"], n / m["cpu"], m["rss"], m["load"]), flush=True)


if __name__ == "__main__":
    main()
