"""One transaction per checkpoint over all tables of a pipeline (issue 14), against Apache
Iceberg's own REST catalog server (scripts/services/iceberg-rest.sh), which offers
`POST /v1/{prefix}/transactions/commit`.

`floe ingest --follow --route "{db}.{table}"` writes a row into each of tables a, b and c
for every batch, while a reader polls the tables through the REST API, loading one after
another over and over, and reads the checkpoint id (`floe.checkpoint-id`) of each table's
newest floe snapshot. Every checkpoint commits every table (`--max-continuous-empty-commits
1`), so a table loaded after another may be newer, never older. A second test lets
PyIceberg append to table a now and then: floe's transactions then conflict, and must be
retried, every table still holding every checkpoint once.

What "atomic" means on this server: its transaction handler (RESTCatalogAdapter of
Iceberg's test fixtures) checks every table's requirements first and then commits the
tables one after another, in the order of the request; floe sends them in table-name
order. So a reader that loads them in the reverse order (c, b, a) can never see a table
behind one it loaded before; loading them in floe's order can catch a transaction half
applied, for the moment between two of the server's table commits — a limit of this
server, not of the protocol (a server that backs the transaction with one database
transaction applies it at once); the test counts that and prints it. With floe's multi-table commit turned off
(`multi-table-commit: false`) the committer commits the tables one by one, in parallel,
and the same reverse-order reader catches a table behind another: that run must see it,
or the test proves nothing.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import threading
import time
import urllib.request
import uuid

import pytest

from test_rest_catalog import RestLake, TOKEN, rest_uri  # noqa: F401 - fixture

SCHEMA = {
    "type": "struct",
    "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "batch", "required": False, "type": "long"},
    ],
}
SECONDS = float(os.environ.get("FLOE_MULTI_TABLE_SECONDS", "12"))


TABLES = ("a", "b", "c")  # floe sends a transaction's tables in this (name) order


def current_checkpoint(uri: str, namespace: str, table: str) -> int:
    """The floe.checkpoint-id of the newest snapshot of the table's main branch that floe
    committed (another writer's snapshots have none), 0 without one."""
    request = urllib.request.Request(f"{uri}/v1/namespaces/{namespace}/tables/{table}",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        metadata = json.load(answer)["metadata"]
    snapshots = {s["snapshot-id"]: s for s in metadata.get("snapshots", [])}
    snapshot = snapshots.get(metadata.get("current-snapshot-id"))
    while snapshot is not None:
        if "floe.checkpoint-id" in snapshot["summary"]:
            return int(snapshot["summary"]["floe.checkpoint-id"])
        snapshot = snapshots.get(snapshot.get("parent-snapshot-id"))
    return 0


def floe_table(binary: pathlib.Path, lake: RestLake, *args: str) -> None:
    proc = subprocess.run([str(binary), "table", "--catalog-config", str(lake.config_file), *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def run_pipeline(binary: pathlib.Path, lake: RestLake, namespace: str, *, other_writer: bool = False,
                 forward_too: bool = False) -> dict:
    """Runs floe ingest over a growing input while a reader polls every table; returns
    what the reader saw and floe's log. `other_writer`: PyIceberg appends to table a now
    and then, so floe's transactions meet conflicts. `forward_too`: the reader also loads
    the tables in floe's order and counts what it sees (reported, not judged)."""
    schema_file = lake.root / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    floe_table(binary, lake, "create-namespace", namespace)
    for table in TABLES:
        floe_table(binary, lake, "create", f"{namespace}.{table}", "--schema", str(schema_file))
    input_file = lake.root / "changes.jsonl"
    input_file.touch()
    log_path = lake.root / "floe.log"
    argv = [str(binary), "ingest", str(input_file), "--catalog-config", str(lake.config_file),
            "--route", "{db}.{table}", "--state-dir", str(lake.root / "state"), "--follow",
            "--checkpoint-interval", "100ms", "--max-continuous-empty-commits", "1"]
    stop = threading.Event()
    seen = {"polls": 0, "behind": [], "forward_behind": 0, "max": 0, "other_commits": 0}

    def write():
        batch = 0
        with input_file.open("a") as out:
            while not stop.is_set():
                batch += 1
                for table in TABLES:
                    event = {"op": "c", "after": {"id": batch, "batch": batch},
                             "source": {"db": namespace, "table": table}}
                    out.write(json.dumps(event) + "\n")
                out.flush()
                time.sleep(0.01)

    def read():
        while not stop.is_set():
            # Each table loaded after one earlier in floe's order must not be behind it.
            ids = [current_checkpoint(lake.uri, namespace, t) for t in reversed(TABLES)]
            seen["polls"] += 1
            seen["max"] = max(seen["max"], ids[-1])
            if any(later < earlier for earlier, later in zip(ids, ids[1:])):
                seen["behind"].append(tuple(reversed(ids)))
            if forward_too:
                ids = [current_checkpoint(lake.uri, namespace, t) for t in TABLES]
                seen["forward_behind"] += any(later < earlier for earlier, later in zip(ids, ids[1:]))

    def other():
        import pyarrow as pa

        table = lake.py_catalog().load_table((namespace, "a"))
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("batch", pa.int64())])
        while not stop.wait(0.5):
            seen["other_commits"] += 1
            table.refresh()
            table.append(pa.table({"id": [-seen["other_commits"]], "batch": [None]}, schema=schema))

    with log_path.open("w") as log:
        floe = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        threads = [threading.Thread(target=write), threading.Thread(target=read)]
        if other_writer:
            threads.append(threading.Thread(target=other))
        for t in threads:
            t.start()
        try:
            time.sleep(SECONDS)
        finally:
            stop.set()
            for t in threads:
                t.join()
            floe.send_signal(signal.SIGTERM)
            code = floe.wait(timeout=120)
    seen["log"] = log_path.read_text()
    assert code == 0, seen["log"][-4000:]
    return seen


@pytest.fixture
def floe_rest(tmp_path, rest_uri):  # noqa: F811 - the fixture imported above
    def make(extra: str = "") -> RestLake:
        return RestLake(tmp_path / f"lake-{uuid.uuid4().hex[:6]}", rest_uri,
                        extra=f"    token: {TOKEN}\n{extra}")
    return make


def assert_same_batches_each_checkpoint_once(lake: RestLake, namespace: str) -> None:
    """Every table holds the same batches (a also another writer's rows, with negative
    ids), and no checkpoint twice."""
    catalog = lake.py_catalog()
    rows = {}
    for table in TABLES:
        loaded = catalog.load_table((namespace, table))
        rows[table] = sorted(r["id"] for r in loaded.scan().to_arrow().to_pylist() if r["id"] > 0)
        ids = [s.summary.get("floe.checkpoint-id") for s in loaded.metadata.snapshots
               if s.summary.get("floe.checkpoint-id")]
        assert len(ids) == len(set(ids)), f"{table}: a checkpoint committed twice: {ids}"
    assert rows["a"] and rows["a"] == rows["b"] == rows["c"], "the tables hold different batches"


def test_a_reader_never_sees_one_table_behind_the_other(floe_bin, floe_rest):
    namespace = f"mt_{uuid.uuid4().hex[:10]}"
    lake = floe_rest()
    seen = run_pipeline(floe_bin, lake, namespace, forward_too=True)
    print(f"{seen['polls']} polls up to checkpoint {seen['max']}; loading the tables in "
          f"floe's order saw one behind {seen['forward_behind']} times")
    assert "multi-table commits" in seen["log"], seen["log"][-4000:]
    assert seen["max"] >= 20, f"too few checkpoints to judge: {seen['max']}"
    assert not seen["behind"], f"a table behind another (a, b, c): {seen['behind'][:20]}"
    assert_same_batches_each_checkpoint_once(lake, namespace)


def test_transactions_that_conflict_with_another_writer_are_retried(floe_bin, floe_rest):
    """PyIceberg appends to table a while floe commits: a transaction whose base is stale
    is refused (409) and made again on the reloaded tables. The server also drops a
    table's changes, answering success, when the other writer commits to it in the middle
    of the transaction; floe finds its snapshot missing and commits that table again."""
    namespace = f"mt_{uuid.uuid4().hex[:10]}"
    lake = floe_rest()
    seen = run_pipeline(floe_bin, lake, namespace, other_writer=True)
    retries = seen["log"].count("retrying after a conflict")
    repaired = seen["log"].count("it was applied in part")
    print(f"up to checkpoint {seen['max']}; {seen['other_commits']} commits of another writer; "
          f"{retries} transactions retried after a conflict, {repaired} applied in part")
    assert "multi-table commits" in seen["log"], seen["log"][-4000:]
    assert seen["other_commits"] >= 3 and retries >= 1, seen["log"][-4000:]
    assert_same_batches_each_checkpoint_once(lake, namespace)


def test_without_multi_table_commits_the_reader_sees_a_table_behind(floe_bin, floe_rest):
    """The control: per-table commits, the same reader, and the cut it must catch."""
    namespace = f"mt_{uuid.uuid4().hex[:10]}"
    lake = floe_rest("    multi-table-commit: false\n")
    seen = run_pipeline(floe_bin, lake, namespace)
    print(f"{seen['polls']} polls up to checkpoint {seen['max']}; "
          f"a table behind another {len(seen['behind'])} times")
    assert "per-table commits" in seen["log"], seen["log"][-4000:]
    assert seen["behind"], "per-table commits were never caught half-way: the reader proves nothing"


def test_floe_run_commits_a_checkpoints_tables_in_one_transaction(floe_bin, make_lake, rest_uri,
                                                                   tmp_path):
    """`floe run` (an Iceberg source in a SQL catalog, the REST catalog inline as its sink)
    uses the multi-table commit too (its committer says so), and each sink table holds its
    source table's rows, committed by checkpoints of the pipeline. (The two tables need not
    have the same checkpoints: the source reads the tables in turns, so a checkpoint may
    hold rows of one table only.)"""
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    from iceberg_peers import CATALOG_NAME

    source = make_lake("sql")
    catalog = source.py_catalog()
    catalog.create_namespace("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False)])
    for name in ("a", "b"):
        table = catalog.create_table(f"db.{name}", schema=Schema(NestedField(1, "id", LongType(), required=True)))
        for start in (0, 100):
            table.append(pa.table({"id": list(range(start, start + 50))}, schema=schema))
    sink_ns = f"mt_{uuid.uuid4().hex[:10]}"
    pipeline = tmp_path / "run.yaml"
    pipeline.write_text(
        "source:\n"
        "  type: iceberg\n"
        f'  catalog: {{name: {CATALOG_NAME}, type: sql, uri: "sqlite:///{source.db}", '
        f'warehouse: "{source.warehouse_uri}"}}\n'
        r"  tables: db.\.*" "\n"
        "  changelog: false\n"
        "  streaming: false\n"
        "sink:\n"
        "  type: iceberg\n"
        f"  catalog: {{type: rest, uri: '{rest_uri}', token: {TOKEN}}}\n"
        "route:\n"
        r"  - source-table: db.\.*" "\n"
        f"    sink-table: {sink_ns}.<>\n"
        "    replace-symbol: <>\n"
        "pipeline:\n"
        "  name: multi-table\n"
        "  checkpoint.interval: 200ms\n"
        f"  state.dir: {tmp_path / 'state'}\n")
    # The sink catalog inline in the pipeline file; the peers read it through RestLake.
    lake = RestLake(tmp_path / "sink", rest_uri, extra=f"    token: {TOKEN}\n")
    run = subprocess.run([str(floe_bin), "run", str(pipeline)],
                         stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    assert "multi-table commits" in run.stderr, run.stderr[-4000:]
    checkpoints = {}
    for name in ("a", "b"):
        table = lake.py_catalog().load_table((sink_ns, name))
        assert sorted(r["id"] for r in table.scan().to_arrow().to_pylist()) == \
            list(range(0, 50)) + list(range(100, 150))
        checkpoints[name] = [s.summary.get("floe.checkpoint-id") for s in table.metadata.snapshots]
    assert all(checkpoints["a"]) and all(checkpoints["b"]), checkpoints
    assert checkpoints["a"] and checkpoints["b"], checkpoints
