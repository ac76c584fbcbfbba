"""`floe run` routes sharded source tables into one sink table (issue 10, item 5).

Two shards with overlapping keys go to one Iceberg table through a route with
`source-table-column: src`: every row carries its source table in `src`, the key is
(id, src), so the shards' rows stay apart through updates, deletes, key changes and
SIGKILLs. Read back by Iceberg Java and `floe table scan`. Needs the MariaDB of
scripts/services/mariadb.sh (see test_run_mysql.py).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_run_mysql import (CLASSPATH, FLOE, MARKER_ID, PORT, ROOT, Workload, preflight,
                            root_connection, start_run, write_pipeline)

pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")

SHARDS = ("s1", "s2")
# Its own database and replica server ids: test_run_mysql.py may run at the same time.
DB = "floe_run_routes"
SERVER_IDS = (50000, 59899)


def lake_rows_java(lake: Path, ident: str) -> list[dict]:
    sys.path.insert(0, str(ROOT / "examples"))
    import mirror_check  # noqa: E402

    rows = mirror_check.read_java(str(CLASSPATH), str(lake / "catalog.db"), str(lake / "warehouse"),
                                  [ident])[ident]
    if isinstance(rows, Exception):
        raise rows
    return rows


def lake_rows_floe(lake: Path, ident: str) -> list[dict]:
    out = subprocess.run([str(FLOE), "table", "--catalog-config", str(lake / "catalog.yaml"), "scan",
                          ident], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line]


def test_sharded_tables_into_one_sink_table_with_a_source_column(tmp_path):
    preflight()
    if not CLASSPATH.exists():
        pytest.skip("the Iceberg Java peer is not built")
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "catalog.yaml").write_text(
        f"catalog:\n  default:\n    type: sql\n    uri: sqlite:///{lake}/catalog.db\n"
        f"    warehouse: {lake}/warehouse\n")
    pipeline = tmp_path / "shards.yaml"
    write_pipeline(pipeline, lake, db=DB, server_ids=SERVER_IDS)
    pipeline.write_text(pipeline.read_text() + f"""route:
  - source-table: {DB}.s\\.*
    sink-table: {DB}.shards
    source-table-column: src
""")
    workload = Workload(11, DB)
    workload.tables = {}
    conn = root_connection()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        for shard in SHARDS:
            workload.create(c, shard, 1_500)  # ids 1..1500 in both

    logs = []
    for kill in range(4):
        logs.append(tmp_path / f"run{kill}.log")
        proc = start_run(pipeline, logs[-1])
        with conn.cursor() as c:
            for _ in range(150):
                c.execute("BEGIN")
                for shard in SHARDS:
                    workload.statement(c, shard)
                c.execute("COMMIT")
        time.sleep(0.5 + 0.3 * kill)
        assert proc.poll() is None, logs[-1].read_text()[-3000:]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with conn.cursor() as c:
        c.execute(f"INSERT INTO {DB}.s2 (id, v) VALUES ({MARKER_ID}, 'the end')")
    logs.append(tmp_path / "final.log")
    proc = start_run(pipeline, logs[-1])
    deadline = time.monotonic() + 300
    while not any(r.get("id") == MARKER_ID for r in lake_rows_floe(lake, f"{DB}.shards")):
        assert proc.poll() is None, logs[-1].read_text()[-3000:]
        assert time.monotonic() < deadline, "the lake did not catch up"
        time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 0, logs[-1].read_text()[-3000:]

    expected = set()
    with conn.cursor() as c:
        for shard in SHARDS:
            c.execute(f"SELECT id, v, n FROM {DB}.{shard}")
            expected |= {(row[0], f"{DB}.{shard}", row[1], row[2]) for row in c.fetchall()}
    assert len({(r[0], r[1]) for r in expected}) == len(expected)
    assert len({r[0] for r in expected}) < len(expected), "the shards' keys should overlap"
    for reader, rows in (("Iceberg Java", lake_rows_java(lake, f"{DB}.shards")),
                         ("floe table scan", lake_rows_floe(lake, f"{DB}.shards"))):
        got = [(r["id"], r["src"], r["v"], r["n"]) for r in rows]
        assert len(got) == len(set(got)), f"{reader}: duplicated rows"
        assert set(got) == expected, (f"{reader}: {len(set(got) - expected)} rows only in the lake, "
                                      f"{len(expected - set(got))} only in MariaDB")

    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog("default", uri=f"sqlite:///{lake}/catalog.db", warehouse=f"file://{lake}/warehouse")
    schema = catalog.load_table(f"{DB}.shards").schema()
    assert [f.name for f in schema.fields] == ["id", "v", "n", "d", "ts", "src"]
    assert sorted(schema.identifier_field_names()) == ["id", "src"]
    assert not any(f"{DB}.{shard}" in {".".join(i) for i in catalog.list_tables(DB)} for shard in SHARDS)
