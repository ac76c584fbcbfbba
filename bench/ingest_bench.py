#!/usr/bin/env python3
"""`floe ingest` benchmarks (issue 4), one run, same machine, same catalog:

(a) append: plain JSON rows (20 columns, the rows of parquet_write_bench.py) into an
    Iceberg table with `floe ingest --format json`, against PyIceberg `table.append` of the
    same rows read with pyarrow's JSON reader, into the same SQL catalog;
(b) upsert: a Debezium JSON stream (schema block on every event, 70% updates of existing
    keys, 30% inserts) with `floe ingest --upsert`: events/s and CPU-seconds per million;
(c) peak memory of every run (VmHWM, as each process reports it).
Each side runs in its own process; CPU time is the children's rusage.

Usage: bench/ingest_bench.py [--rows N] [--events N] [--floe build/floe] [--parallelism P]
                             [--memory-budget SIZE]
Needs pyiceberg and pyarrow (the repo's .cache/venv has them). Results: bench/README.md.
"""
import argparse
import base64
import json
import os
import random
import re
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import parquet_write_bench as rows_bench  # noqa: E402
from bench_lake import lake  # noqa: E402


def run_measured(argv, env=None):
    """Runs argv; returns (wall s, cpu s, peak resident MiB, stdout). The peak is what the
    program reports as "peak memory N MiB" (its VmHWM): the rusage of a child would keep
    the peak of this (forking) process from before exec. CPU is the children's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), proc.stderr.decode(errors="replace")[-3000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = proc.stdout.decode(errors="replace")
    m = re.search(r"peak memory ([0-9.]+) MiB", text)
    return wall, cpu, float(m.group(1)) if m else float("nan"), text


PYICEBERG_APPEND = r"""
import json, sys
import pyarrow.json as pj
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
sys.path.insert(0, sys.argv[4])
import parquet_write_bench as b
uri, warehouse, data = sys.argv[1], sys.argv[2], sys.argv[3]
catalog = SqlCatalog("default", uri=uri, warehouse=warehouse)
catalog.create_namespace_if_not_exists("bench")
table = catalog.create_table("bench.pyiceberg_rows", schema=b.arrow_schema())
rows = pj.read_json(data, parse_options=pj.ParseOptions(explicit_schema=b.arrow_schema()))
table.append(rows.cast(b.arrow_schema()))
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        print("peak memory %.1f MiB" % (int(line.split()[1]) / 1024))
"""


def rows_input(workdir, rows):
    """The append input: ROWS rows of parquet_write_bench.py's 20 columns as JSON Lines, made
    once and cached in workdir, and their Iceberg schema file; the file is read once to warm
    the page cache. Returns (JSON Lines path, schema path)."""
    data = os.path.join(workdir, "cdc_%d.jsonl" % rows)
    if not os.path.exists(data):
        print("generating %s ..." % data, file=sys.stderr)
        rows_bench.generate(data + ".tmp", rows)
        os.rename(data + ".tmp", data)
    schema_path = os.path.join(workdir, "cdc_schema.json")
    with open(schema_path, "w") as f:
        json.dump(rows_bench.iceberg_schema(), f)
    with open(data, "rb") as f:
        while f.read(1 << 24):
            pass
    return data, schema_path


def generate_upserts(path, events, seed=7):
    """Debezium JSON: 30% inserts, 70% updates of a random existing key; 20 columns."""
    rng = random.Random(seed)
    columns = rows_bench.COLUMNS
    connect = {"long": ("int64", None), "int": ("int32", None), "string": ("string", None),
               "timestamp": ("int64", "io.debezium.time.MicroTimestamp")}
    fields = []
    for name, itype, _, req in columns:
        if itype.startswith("decimal"):
            p, s = [int(x) for x in itype[8:-1].split(",")]
            f = {"type": "bytes", "optional": not req, "field": name,
                 "name": "org.apache.kafka.connect.data.Decimal",
                 "parameters": {"scale": str(s), "connect.decimal.precision": str(p)}}
        else:
            t, logical = connect[itype]
            f = {"type": t, "optional": not req, "field": name}
            if logical:
                f["name"] = logical
        fields.append(f)
    value = {"type": "struct", "optional": True, "name": "bench.db.upserts.Value", "fields": fields}
    schema = json.dumps({"type": "struct", "optional": False, "name": "bench.db.upserts.Envelope",
                         "fields": [dict(value, field="before"), dict(value, field="after"),
                                    {"type": "struct", "optional": False, "field": "source",
                                     "fields": [{"type": "string", "optional": False, "field": "db"},
                                                {"type": "string", "optional": False, "field": "table"}]},
                                    {"type": "string", "optional": False, "field": "op"}]},
                        separators=(",", ":"))
    tmp = path + ".rows.tmp"
    rows_bench.generate(tmp, max(1, events // 3))
    base_rows = []
    with open(tmp) as f:
        for line in f:
            base_rows.append(json.loads(line))
    os.unlink(tmp)

    def wire(row):
        out = dict(row)
        for name, itype, _, _ in columns:
            v = out[name]
            if v is None:
                continue
            if itype.startswith("decimal"):
                s = int(itype[8:-1].split(",")[1])
                unscaled = int(round(float(v) * 10**s))
                out[name] = base64.b64encode(unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8),
                                                               "big", signed=True)).decode()
            elif itype == "timestamp":
                d, t = v.split("T")
                from datetime import datetime
                out[name] = int((datetime.fromisoformat(v) - datetime(1970, 1, 1)).total_seconds() * 1e6)
        return out

    live = []
    inserted = 0
    with open(path, "w") as f:
        for i in range(events):
            if not live or rng.random() < 0.3:
                row = dict(base_rows[inserted % len(base_rows)], id=inserted + 1)
                inserted += 1
                live.append(row)
                before, after, op = None, row, "c"
            else:
                k = rng.randrange(len(live))
                before = live[k]
                after = dict(before, version=(before["version"] or 0) + 1, quantity=rng.randrange(1, 100))
                live[k] = after
                op = "u"
            payload = {"before": wire(before) if before else None, "after": wire(after),
                       "source": {"db": "db", "table": "upserts"}, "op": op}
            f.write('{"schema":' + schema + ',"payload":' + json.dumps(payload, separators=(",", ":")) + "}\n")
    return len(live)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--parallelism", type=int, default=2)
    ap.add_argument("--floe", default=os.path.join(ROOT, "build", "floe"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".cache", "bench"))
    ap.add_argument("--skip-pyiceberg", action="store_true")
    ap.add_argument("--memory-budget", default=None,
                    help="passed to both floe ingest runs (e.g. 64MiB); default: floe's")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    data, schema_path = rows_input(args.workdir, args.rows)

    print("machine: %d cpus; input %d rows x %d columns, %.1f MiB JSON Lines"
          % (os.cpu_count(), args.rows, len(rows_bench.COLUMNS), os.path.getsize(data) / 2**20))
    root, uri, warehouse, config = lake(args.workdir, "ingest-bench-lake")
    budget = ["--memory-budget", args.memory_budget] if args.memory_budget else []
    floe = run_measured([args.floe, "ingest", data, "--format", "json", "--table", "bench.floe_rows",
                         "--schema", schema_path, "--catalog-config", config,
                         "--parallelism", str(args.parallelism), "--state-dir",
                         os.path.join(root, "state-append")] + budget)
    print("(a) append  floe ingest:       wall %7.2f s %9.0f rows/s  cpu %7.2f s  peak mem %7.1f MiB"
          % (floe[0], args.rows / floe[0], floe[1], floe[2]))
    if not args.skip_pyiceberg:
        py = run_measured([sys.executable, "-c", PYICEBERG_APPEND, uri, warehouse, data,
                           os.path.join(ROOT, "bench")])
        print("(a) append  pyiceberg append:  wall %7.2f s %9.0f rows/s  cpu %7.2f s  peak mem %7.1f MiB"
              % (py[0], args.rows / py[0], py[1], py[2]))
        print("(a) floe/pyiceberg: wall %.2fx faster, cpu %.2fx less, memory %.2fx less"
              % (py[0] / floe[0], py[1] / floe[1], py[2] / floe[2]))

    events = os.path.join(args.workdir, "upserts_%d.jsonl" % args.events)
    if not os.path.exists(events):
        print("generating %s ..." % events, file=sys.stderr)
        generate_upserts(events + ".tmp", args.events)
        os.rename(events + ".tmp", events)
    with open(events, "rb") as f:
        while f.read(1 << 24):
            pass
    up = run_measured([args.floe, "ingest", events, "--table", "bench.floe_upserts", "--upsert",
                       "--primary-key", "id", "--catalog-config", config,
                       "--parallelism", str(args.parallelism), "--state-dir",
                       os.path.join(root, "state-upsert")] + budget)
    print("(b) upsert  floe ingest:       wall %7.2f s %9.0f events/s  cpu %7.2f s (%.2f cpu-s per million)"
          "  peak mem %7.1f MiB  (%d events, 70%% updates, %.1f MiB)"
          % (up[0], args.events / up[0], up[1], up[1] / args.events * 1e6, up[2], args.events,
             os.path.getsize(events) / 2**20))


if __name__ == "__main__":
    main()
