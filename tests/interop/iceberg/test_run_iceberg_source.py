"""`floe run` with `source: type: iceberg` (issue 13, item 4): a mirror of a mirror.

The source tables are written by floe ingest (upserts: equality deletes) and by PyIceberg
(appends, a delete, a column added); the pipeline copies every table of the namespace `db`
into the namespace `mirror` of the same catalog while they change, and is killed with
SIGKILL several times on the way. At the end Iceberg Java reads each copy equal to its
original (PyIceberg cannot read equality deletes), so no row is lost or repeated.
"""

from __future__ import annotations

import collections
import json
import pathlib
import random
import signal
import subprocess
import time

import pyarrow as pa
import pytest

from iceberg_peers import CATALOG_NAME

_RUNNING: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_run_left_behind():
    yield
    while _RUNNING:
        proc = _RUNNING.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def _pipeline(lake, tmp: pathlib.Path, tables: str = r"\.*.\.*", extra: str = "") -> pathlib.Path:
    catalog = (f'{{name: {CATALOG_NAME}, type: sql, uri: "sqlite:///{lake.db}", '
               f'warehouse: "{lake.warehouse_uri}"}}')
    path = tmp / "mirror.yaml"
    path.write_text(
        "source:\n"
        "  type: iceberg\n"
        f"  catalog: {catalog}\n"
        f"  tables: {tables}\n"
        "  monitor-interval: 300ms\n"
        f"{extra}"
        "sink:\n"
        "  type: iceberg\n"
        f"  catalog: {catalog}\n"
        "route:\n"
        r"  - source-table: db.\.*" "\n"
        "    sink-table: mirror.<>\n"
        "    replace-symbol: <>\n"
        "pipeline:\n"
        "  name: mirror\n"
        "  checkpoint.interval: 500ms\n"
        f"  state.dir: {tmp / 'state'}\n"
    )
    return path


class Run:
    """`floe run PIPELINE` in the background."""

    def __init__(self, floe_bin, pipeline: pathlib.Path, tmp: pathlib.Path):
        self.stderr_path = tmp / f"run-{time.monotonic_ns()}.txt"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen([str(floe_bin), "run", str(pipeline)], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)
        _RUNNING.append(self.proc)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def alive(self) -> None:
        assert self.proc.poll() is None, f"floe run exited {self.proc.returncode}: {self.stderr()[-4000:]}"

    def stop(self, sig=signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=60)


def _key(row: dict) -> str:
    return json.dumps(row, sort_keys=True)


def _differences(java_peer, lake, pairs: list[tuple[str, str]]) -> list[str]:
    """What differs between each (original, copy) as Iceberg Java reads them ([] when equal)."""
    problems = []
    for original, copy in pairs:
        try:
            (a, _), = java_peer.scans(lake, original, [{}])
            (b, _), = java_peer.scans(lake, copy, [{}])
        except AssertionError as e:  # the copy does not exist yet
            problems.append(f"{copy}: {str(e)[-300:]}")
            continue
        ca, cb = collections.Counter(map(_key, a)), collections.Counter(map(_key, b))
        if ca != cb:
            problems.append(f"{copy}: {len(b)} rows vs {len(a)} in {original}; missing "
                            f"{list((ca - cb).elements())[:3]}, unexpected {list((cb - ca).elements())[:3]}")
    return problems


def _caught_up(run: Run, java_peer, lake, pairs: list[tuple[str, str]]) -> None:
    """Waits (90 s at most) until every copy equals its original as Iceberg Java reads them."""
    deadline = time.monotonic() + 90
    while True:
        run.alive()
        problems = _differences(java_peer, lake, pairs)
        if not problems:
            return
        assert time.monotonic() < deadline, f"the copies did not catch up: {problems}\n{run.stderr()[-3000:]}"
        time.sleep(1)


def _upsert(floe_run, lake, tmp: pathlib.Path, batch: int, rows: list[tuple[int, str]]) -> None:
    schema = tmp / "u-schema.json"
    schema.write_text(json.dumps({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"}]}))
    data = tmp / f"u{batch}.jsonl"
    data.write_text("".join(json.dumps({"id": k, "name": v}) + "\n" for k, v in rows))
    res = floe_run("ingest", data, "--format", "json", "--table", "db.u", "--primary-key", "id", "--upsert",
                   "--schema", schema, "--state-dir", tmp / f"ingest-state{batch}", "--catalog-config", lake.config_file)
    assert res.code == 0, res.describe()


def _events_table(lake):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    catalog = lake.py_catalog()
    return catalog.create_table("db.events", schema=Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), required=False),
        identifier_field_ids=[1]))


def _append(table, ids, extra: bool = False) -> None:
    cols = {"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids], pa.string())}
    fields = [pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())]
    if extra:
        cols["extra"] = pa.array([i * 0.25 for i in ids], pa.float64())
        fields.append(pa.field("extra", pa.float64()))
    table.append(pa.table(cols, schema=pa.schema(fields)))
    table.refresh()


def _add_extra(table) -> None:
    from pyiceberg.types import DoubleType

    with table.update_schema() as update:
        update.add_column("extra", DoubleType())
    table.refresh()


def test_mirror_of_a_mirror_survives_sigkill(floe_run, floe_bin, make_lake, tmp_path, java_peer):
    lake = make_lake("sql")
    lake.py_catalog().create_namespace("db")
    _upsert(floe_run, lake, tmp_path, 0, [(i, f"a{i}") for i in range(1, 200)])
    events = _events_table(lake)
    _append(events, list(range(1, 50)))
    pipeline = _pipeline(lake, tmp_path)

    res = floe_run("run", pipeline, "--check")
    assert res.code == 0, res.describe()
    assert "db.u" in res.stdout and "mirror.u" in res.stdout and "db.events" in res.stdout, res.stdout

    rng = random.Random(13)
    run = Run(floe_bin, pipeline, tmp_path)
    kills = 0
    steps = [
        lambda: _upsert(floe_run, lake, tmp_path, 1, [(i, f"b{i}") for i in range(100, 300)]),
        lambda: _append(events, list(range(50, 120))),
        lambda: events.delete("id < 10"),
        lambda: _upsert(floe_run, lake, tmp_path, 2, [(i, f"c{i}") for i in range(1, 400, 3)]),
        lambda: _add_extra(events),
        lambda: _append(events, list(range(120, 160)), extra=True),
        lambda: events.delete("id >= 150"),
        lambda: _upsert(floe_run, lake, tmp_path, 3, [(i, f"d{i}") for i in range(250, 500)]),
    ]
    for step in steps:
        step()
        time.sleep(rng.uniform(0.1, 1.2))
        if rng.random() < 0.7:  # killed at a random moment, started again with its state
            run.alive()
            run.stop(signal.SIGKILL)
            kills += 1
            run = Run(floe_bin, pipeline, tmp_path)
    assert kills >= 3

    pairs = [("db.u", "mirror.u"), ("db.events", "mirror.events")]
    _caught_up(run, java_peer, lake, pairs)
    assert run.stop() == 0, run.stderr()
    assert _differences(java_peer, lake, pairs) == []
    # The copies are the pipeline's own: never read back as sources.
    assert "following source table mirror." not in run.stderr()
    assert {".".join(t) for t in lake.py_catalog().list_tables("mirror")} == {"mirror.u", "mirror.events"}
    schema = lake.metadata("mirror.events")["schemas"][-1]
    assert [f["name"] for f in schema["fields"]] == ["id", "name", "extra"]
    assert schema.get("identifier-field-ids") == [1]


def _reset(lake, tmp: pathlib.Path) -> None:
    """A new start: no state, no copies."""
    import shutil

    shutil.rmtree(tmp / "state", ignore_errors=True)
    for table in lake.py_catalog().list_tables("mirror"):
        lake.py_catalog().drop_table(table)


def test_append_only_reading_refuses_a_delete_unless_skipped(floe_run, floe_bin, make_lake, tmp_path):
    lake = make_lake("sql")
    lake.py_catalog().create_namespace("db")
    events = _events_table(lake)
    _append(events, list(range(1, 20)))
    events.delete("id < 5")
    _append(events, list(range(20, 30)))
    earliest = "  starting-strategy: incremental-from-earliest-snapshot\n"
    whole = _pipeline(lake, tmp_path, tables="db.events", extra="  changelog: false\n  streaming: false\n")
    res = floe_run("run", whole)
    assert res.code == 0, res.describe()  # the table as it is now: no delete snapshot to read
    assert sorted(r["id"] for r in lake.py_table("mirror.events").scan().to_arrow().to_pylist()) == list(range(5, 30))
    _reset(lake, tmp_path)

    pipeline = _pipeline(lake, tmp_path, tables="db.events", extra="  changelog: false\n  streaming: false\n" + earliest)
    res = floe_run("run", pipeline)
    assert res.code != 0, res.describe()
    assert "db.events" in res.stderr and "streaming-skip" in res.stderr, res.stderr

    _reset(lake, tmp_path)
    pipeline = _pipeline(lake, tmp_path, tables="db.events",
                         extra="  changelog: false\n  streaming: false\n"
                               "  streaming-skip-delete-snapshots: true\n  streaming-skip-overwrite-snapshots: true\n"
                               + earliest)
    res = floe_run("run", pipeline)
    assert res.code == 0, res.describe()
    copied = sorted(r["id"] for r in lake.py_table("mirror.events").scan().to_arrow().to_pylist())
    # Append-only: every appended row, the delete skipped.
    assert copied == list(range(1, 30)), copied


def test_bad_settings_are_refused_before_anything_runs(floe_run, make_lake, tmp_path):
    lake = make_lake("sql")
    lake.py_catalog().create_namespace("db")
    _append(_events_table(lake), [1, 2])
    pipeline = _pipeline(lake, tmp_path)
    text = pipeline.read_text().replace("pipeline:\n", "pipeline:\n  schema.change.behavior: exception\n")
    pipeline.write_text(text)
    res = floe_run("run", pipeline)
    assert res.code != 0 and "exception" in res.stderr and "iceberg source" in res.stderr, res.describe()

    # A route onto the table itself in the same catalog would read its own writes.
    pipeline = _pipeline(lake, tmp_path)
    pipeline.write_text(pipeline.read_text().replace("sink-table: mirror.<>", "sink-table: db.<>"))
    res = floe_run("run", pipeline)
    assert res.code != 0 and "read and written by the pipeline" in res.stderr, res.describe()
    assert lake.current_snapshot_id("db.events") is not None
