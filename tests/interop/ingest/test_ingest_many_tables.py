"""Memory with many tables (issue 4): 2,000 tables receiving events at once, interleaved,
through one `floe ingest`, stay under a stated memory budget, and every table gets its
rows. The stated budget: `--memory-budget 64MiB` for buffered rows, and a process peak
(resident memory, as floe reports it) under MAX_RSS_MIB for the whole run."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import time

from iceberg_rows import assert_same_rows
from lake_check import merge_on_read

TABLES = 2000
ROWS_PER_TABLE = 40
MAX_RSS_MIB = 512


def test_two_thousand_tables_under_budget(tmp_path, make_lake, floe_ingest_ready):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    rnd = random.Random(2000)
    schema = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
        {"id": 3, "name": "amount", "required": False, "type": "decimal(12, 2)"},
        {"id": 4, "name": "at", "required": False, "type": "timestamp"},
    ]}
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(schema))
    order = [t for t in range(TABLES) for _ in range(ROWS_PER_TABLE)]
    rnd.shuffle(order)
    counters = [0] * TABLES
    expected: dict[int, list[dict]] = {t: [] for t in range(TABLES)}
    input_file = tmp_path / "events.jsonl"
    with open(input_file, "w") as out:
        for t in order:
            counters[t] += 1
            row = {"id": counters[t], "name": f"n{rnd.randrange(10**6)}" * rnd.randint(1, 4),
                   "amount": f"{rnd.randrange(10**8) / 100:.2f}",
                   "at": f"2024-01-01T00:00:{counters[t] % 60:02d}.000000"}
            expected[t].append(row)
            event = {"payload": {"op": "c", "before": None, "after": row,
                                 "source": {"db": "many", "table": f"t{t:04d}"}}}
            out.write(json.dumps(event) + "\n")

    argv = [str(binary), "ingest", str(input_file), "--catalog-config", str(lake.config_file),
            "--route", "{db}.{table}", "--schema", str(schema_file), "--memory-budget", "64MiB",
            "--state-dir", str(tmp_path / "state"), "--checkpoint-interval", os.environ.get("FLOE_MANY_TABLES_INTERVAL", "5s")]
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    # floe's own peak (VmHWM): the rusage of a child keeps the peak of the forking
    # (large) test process from before exec.
    match = re.search(r"peak memory ([0-9.]+) MiB", proc.stdout)
    assert match, proc.stdout
    peak_mib = float(match.group(1))
    print(f"{TABLES} tables x {ROWS_PER_TABLE} rows: {elapsed:.1f} s, peak memory {peak_mib:.0f} MiB")
    assert peak_mib < MAX_RSS_MIB, f"peak memory {peak_mib:.0f} MiB over the stated {MAX_RSS_MIB} MiB"

    catalog = lake.py_catalog()
    tables = catalog.list_tables("many")
    assert len(tables) == TABLES
    for t in rnd.sample(range(TABLES), 25):
        table = catalog.load_table(f"many.t{t:04d}")
        schema_json = json.loads(table.schema().model_dump_json(by_alias=True))
        assert_same_rows(merge_on_read(table), expected[t], schema_json, f"many.t{t:04d}")
