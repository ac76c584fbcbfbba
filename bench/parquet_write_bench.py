#!/usr/bin/env python3
"""floe vs pyarrow: JSON Lines -> zstd Parquet.

Generates change-data-like JSON Lines (20 columns: longs, ints, short strings,
timestamps as text, decimals as strings, 10% nulls; fixed seed), converts it
with `floe parquet write` and with pyarrow (`pyarrow.json.read_json` with an
explicit schema, then `pyarrow.parquet.write_table`), and prints throughput,
file sizes and the ratios. See bench/README.md.

Usage: bench/parquet_write_bench.py [--rows N] [--floe build/floe] [--python-only]
Needs pyarrow (the repo's .cache/venv has it).
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pyarrow as pa
import pyarrow.json as pj
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, iceberg type, arrow type, required)
COLUMNS = [
    ("id", "long", pa.int64(), True),
    ("op", "string", pa.string(), True),
    ("ts_ms", "long", pa.int64(), True),
    ("customer_id", "long", pa.int64(), False),
    ("order_id", "long", pa.int64(), False),
    ("quantity", "int", pa.int32(), False),
    ("status", "string", pa.string(), False),
    ("country", "string", pa.string(), False),
    ("city", "string", pa.string(), False),
    ("email", "string", pa.string(), False),
    ("created_at", "timestamp", pa.timestamp("us"), False),
    ("updated_at", "timestamp", pa.timestamp("us"), False),
    ("amount", "decimal(12, 2)", pa.decimal128(12, 2), False),
    ("tax", "decimal(10, 2)", pa.decimal128(10, 2), False),
    ("discount", "int", pa.int32(), False),
    ("product_code", "string", pa.string(), False),
    ("note", "string", pa.string(), False),
    ("version", "int", pa.int32(), False),
    ("score", "long", pa.int64(), False),
    ("region_id", "int", pa.int32(), False),
]


def iceberg_schema():
    return {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": i + 1, "name": n, "required": req, "type": t}
            for i, (n, t, _, req) in enumerate(COLUMNS)
        ],
    }


def arrow_schema():
    return pa.schema([pa.field(n, at, nullable=not req) for n, _, at, req in COLUMNS])


def generate(path, rows, seed=20240229):
    rng = random.Random(seed)
    statuses = ["new", "paid", "packed", "shipped", "delivered", "returned", "cancelled", "held"]
    countries = ["%c%c" % (65 + i % 26, 65 + (i * 7) % 26) for i in range(50)]
    cities = ["city_%04d" % i for i in range(1000)]
    products = ["P-%05d" % i for i in range(10000)]
    words = ["alpha", "bravo", "charlie", "delta", "echo", "fox", "golf", "hotel", "india", "juliet"]
    base = datetime(2024, 1, 1)
    with open(path, "w") as f:
        for i in range(rows):
            created = base + timedelta(seconds=i // 10, microseconds=rng.randrange(1000000))
            updated = created + timedelta(seconds=rng.randrange(86400))
            row = {
                "id": i + 1,
                "op": rng.choice("cuud"),
                "ts_ms": 1704067200000 + i * 3 + rng.randrange(3),
                "customer_id": rng.randrange(1, 100000),
                "order_id": rng.randrange(10**12),
                "quantity": rng.randrange(1, 100),
                "status": rng.choice(statuses),
                "country": rng.choice(countries),
                "city": rng.choice(cities),
                "email": "user%d@ex%d.com" % (rng.randrange(1000000), rng.randrange(100)),
                "created_at": created.isoformat(timespec="microseconds"),
                "updated_at": updated.isoformat(timespec="microseconds"),
                "amount": "%d.%02d" % (rng.randrange(100000), rng.randrange(100)),
                "tax": "%d.%02d" % (rng.randrange(1000), rng.randrange(100)),
                "discount": rng.randrange(0, 50),
                "product_code": rng.choice(products),
                "note": "%s %s %d" % (rng.choice(words), rng.choice(words), rng.randrange(1000)),
                "version": rng.randrange(1, 20),
                "score": rng.randrange(-10**9, 10**9),
                "region_id": rng.randrange(1, 500),
            }
            for name, _, _, req in COLUMNS:
                if not req and rng.random() < 0.10:
                    row[name] = None
            f.write(json.dumps(row, separators=(",", ":")))
            f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--floe", default=os.path.join(ROOT, "build", "floe"))
    ap.add_argument("--workdir", default=os.path.join(ROOT, ".cache", "bench"))
    ap.add_argument("--row-group-size", type=int, default=128 << 20)
    ap.add_argument("--floe-args", default="", help="extra arguments for floe parquet write")
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    data = os.path.join(args.workdir, "cdc_%d.jsonl" % args.rows)
    if not os.path.exists(data):
        print("generating %s ..." % data, file=sys.stderr)
        generate(data + ".tmp", args.rows)
        os.rename(data + ".tmp", data)
    schema_path = os.path.join(args.workdir, "cdc_schema.json")
    with open(schema_path, "w") as f:
        json.dump(iceberg_schema(), f)
    input_bytes = os.path.getsize(data)

    # Warm the page cache so both sides read from memory.
    with open(data, "rb") as f:
        while f.read(1 << 24):
            pass

    floe_out = os.path.join(args.workdir, "floe.parquet")
    cmd = [args.floe, "parquet", "write", "--schema", schema_path, "--codec", "zstd",
           "--row-group-size", str(args.row_group_size)] + args.floe_args.split() + [data, floe_out]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    floe_s = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    floe_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    floe_md = pq.ParquetFile(floe_out).metadata
    rows_per_group = floe_md.row_group(0).num_rows

    # pyarrow: same codec, level (zstd default 1), dictionary on, and the
    # row-group row count floe's byte limit produced (pyarrow counts rows).
    pa_out = os.path.join(args.workdir, "pyarrow.parquet")
    c0 = time.process_time()
    t0 = time.perf_counter()
    table = pj.read_json(data, parse_options=pj.ParseOptions(explicit_schema=arrow_schema()))
    pq.write_table(table, pa_out, compression="zstd", use_dictionary=True,
                   row_group_size=rows_per_group)
    pa_s = time.perf_counter() - t0
    pa_cpu = time.process_time() - c0
    del table

    assert floe_md.num_rows == args.rows
    floe_size = os.path.getsize(floe_out)
    pa_size = os.path.getsize(pa_out)
    print("input: %d rows, %.1f MiB JSON Lines, %d cpus, pyarrow %s"
          % (args.rows, input_bytes / 2**20, os.cpu_count(), pa.__version__))
    print("floe:    wall %6.2f s %9.0f rows/s  cpu %6.2f s  %8.1f MiB  (%d row groups of %d rows)"
          % (floe_s, args.rows / floe_s, floe_cpu, floe_size / 2**20, floe_md.num_row_groups,
             rows_per_group))
    print("pyarrow: wall %6.2f s %9.0f rows/s  cpu %6.2f s  %8.1f MiB  (%d row groups)"
          % (pa_s, args.rows / pa_s, pa_cpu, pa_size / 2**20,
             pq.ParquetFile(pa_out).metadata.num_row_groups))
    print("speed floe/pyarrow: wall %.2fx, cpu %.2fx   size floe/pyarrow: %.3f"
          % (pa_s / floe_s, pa_cpu / floe_cpu, floe_size / pa_size))


if __name__ == "__main__":
    main()
