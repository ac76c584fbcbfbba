"""`floe read` (issue 13, seed 000): floe follows tables that PyIceberg writes.

- follow while writing: PyIceberg appends (and evolves the schema) while `floe read --follow`
  runs; its output is, snapshot by snapshot, the rows each snapshot added as PyIceberg reads
  them (its scan of the snapshot minus its scan of the parent);
- every starting strategy and boundary, the end snapshot, an empty table, an overwrite
  (a clear failure, or skipped), usage errors;
- exactly once: a reader with --state-dir and --output is SIGKILLed at random moments
  (more than 20 times) while PyIceberg appends, restarted each time; the output file has every
  row once (the output protocol is in docs/read.md: the file is cut back to the length of the
  last checkpoint on restart).
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import random
import signal
import subprocess
import time

import pyarrow as pa
import pytest

NS = "db"
TABLE = "db.events"


def _schema():
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    return Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
    )


def _create(lake):
    catalog = lake.py_catalog()
    catalog.create_namespace(NS)
    return catalog.create_table(TABLE, schema=_schema())


def _append(table, ids, extra: bool = False):
    cols = {"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids], pa.string())}
    if extra:
        cols["extra"] = pa.array([i * 0.5 for i in ids], pa.float64())
    table.append(pa.table(cols))
    table.refresh()
    return table.current_snapshot().snapshot_id


def _rows_of(table, snapshot_id) -> list[dict]:
    """PyIceberg's rows of one snapshot (in that snapshot's schema), as floe prints them."""
    if snapshot_id is None:
        return []
    return table.scan(snapshot_id=snapshot_id).to_arrow().to_pylist()


def _added(table, snapshot_id) -> list[dict]:
    """The rows a snapshot added: its scan minus its parent's (as multisets)."""
    snap = table.snapshot_by_id(snapshot_id)
    rows = _rows_of(table, snapshot_id)
    now = collections.Counter(_key(r) for r in rows)
    columns = list(rows[0]) if rows else []
    # The parent's rows in this snapshot's schema (a column added since reads as null).
    before = collections.Counter(
        _key({c: r.get(c) for c in columns}) for r in _rows_of(table, snap.parent_snapshot_id)
    )
    return [json.loads(k) for k in (now - before).elements()]


def _key(row: dict) -> str:
    # floe prints a double with an integral value as an integer (docs/json-rows.md).
    return json.dumps({k: float(v) if k == "extra" and v is not None else v for k, v in row.items()}, sort_keys=True)


def _lines(path: pathlib.Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _same(actual: list[dict], expected: list[dict], what: str) -> None:
    a = collections.Counter(_key(r) for r in actual)
    e = collections.Counter(_key(r) for r in expected)
    missing = list((e - a).elements())[:5]
    extra = list((a - e).elements())[:5]
    assert a == e, f"{what}: {len(actual)} rows read, {len(expected)} expected; missing {missing}, unexpected {extra}"


_RUNNING: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_reader_left_behind():
    """A failed test must not leave a `floe read --follow` running."""
    yield
    while _RUNNING:
        proc = _RUNNING.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


class Reader:
    """A `floe read` process in the background."""

    def __init__(self, floe_bin, lake, tmp: pathlib.Path, *args, output: pathlib.Path | None = None):
        self.output = output or tmp / "out.jsonl"
        self.stderr_path = tmp / f"stderr-{time.monotonic_ns()}.txt"
        argv = [str(floe_bin), "read", TABLE, "--catalog-config", str(lake.config_file), "--output", str(self.output)]
        argv += [str(a) for a in args]
        self.argv = argv
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _RUNNING.append(self.proc)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def wait_rows(self, count: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(_lines(self.output)) >= count:
                return
            assert self.proc.poll() is None, f"floe read exited {self.proc.returncode}: {self.stderr()}"
            time.sleep(0.05)
        raise AssertionError(f"floe read printed {len(_lines(self.output))} of {count} rows in {timeout} s: {self.stderr()}")

    def stop(self, sig=signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)


def test_follow_while_pyiceberg_appends_and_evolves(floe_run, floe_bin, make_lake, tmp_path):
    lake = make_lake("sql")
    table = _create(lake)
    snapshots = [_append(table, list(range(0, 50)))]
    reader = Reader(
        floe_bin, lake, tmp_path, "--follow", "--starting-strategy", "incremental-from-earliest-snapshot",
        "--monitor-interval", "100ms",
    )
    snapshots.append(_append(table, list(range(50, 80))))
    snapshots.append(_append(table, list(range(80, 81))))
    with table.update_schema() as update:
        from pyiceberg.types import DoubleType

        update.add_column("extra", DoubleType())
    table.refresh()
    snapshots.append(_append(table, list(range(100, 140)), extra=True))
    snapshots.append(_append(table, list(range(140, 150)), extra=True))

    expected_blocks = [_added(table, s) for s in snapshots]
    total = sum(len(b) for b in expected_blocks)
    reader.wait_rows(total)
    time.sleep(0.3)  # nothing more may come
    assert reader.stop() == 0, reader.stderr()
    got = _lines(reader.output)
    assert len(got) == total
    # One reader: snapshot after snapshot, each one's rows as PyIceberg reads them (rows of
    # the snapshots before the schema change have no "extra": they are in their snapshot's schema).
    start = 0
    for snapshot, block in zip(snapshots, expected_blocks):
        _same(got[start : start + len(block)], block, f"rows of snapshot {snapshot}")
        start += len(block)
    assert "extra" not in got[0] and got[-1]["extra"] == 149 * 0.5


def test_every_starting_strategy(floe_run, make_lake, tmp_path):
    lake = make_lake("sql")
    table = _create(lake)
    s1 = _append(table, [1, 2])
    time.sleep(0.01)
    s2 = _append(table, [3, 4])
    s3 = _append(table, [5])
    ts2 = table.snapshot_by_id(s2).timestamp_ms
    ids = lambda rows: sorted(r["id"] for r in rows)  # noqa: E731

    def read(*args):
        res = floe_run("read", TABLE, "--catalog-config", lake.config_file, *args)
        assert res.code == 0, res.describe()
        return [json.loads(line) for line in res.stdout.splitlines()]

    assert ids(read()) == [1, 2, 3, 4, 5]  # table-scan-then-incremental, a batch read
    _same(read(), _rows_of(table, s3), "default read vs PyIceberg's scan")
    assert ids(read("--starting-strategy", "incremental-from-latest-snapshot")) == [5]
    assert ids(read("--starting-strategy", "INCREMENTAL_FROM_LATEST_SNAPSHOT_EXCLUSIVE")) == []
    assert ids(read("--starting-strategy", "incremental-from-earliest-snapshot")) == [1, 2, 3, 4, 5]
    assert ids(read("--starting-strategy", "incremental-from-snapshot-id", "--start-snapshot-id", s2)) == [3, 4, 5]
    assert ids(read("--starting-strategy", "incremental-from-snapshot-timestamp", "--start-snapshot-timestamp", ts2)) == [3, 4, 5]
    assert ids(read("--starting-strategy", "incremental-from-snapshot-timestamp", "--start-snapshot-timestamp", ts2 - 1)) == [3, 4, 5]
    assert ids(read("--starting-strategy", "incremental-from-earliest-snapshot", "--end-snapshot-id", s2)) == [1, 2, 3, 4]
    assert ids(read("--starting-strategy", "table-scan-then-incremental", "--end-snapshot-id", s1)) == [1, 2]
    assert ids(read("--where", "id >= 3", "--parallelism", "4")) == [3, 4, 5]
    assert read("--columns", "name", "--where", "id = 4") == [{"name": "n4"}]
    assert len(read("--limit", "2")) == 2
    table.manage_snapshots().create_tag(s1, "v1").create_branch(s2, "audit").commit()
    assert ids(read("--tag", "v1")) == [1, 2]
    assert ids(read("--branch", "audit", "--starting-strategy", "incremental-from-earliest-snapshot")) == [1, 2, 3, 4]

    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, "--starting-strategy", "incremental-from-snapshot-id", "--start-snapshot-id", 123)
    assert res.code == 1 and "start snapshot 123" in res.stderr, res.describe()


def test_empty_table(floe_run, floe_bin, make_lake, tmp_path):
    lake = make_lake("sql")
    table = _create(lake)
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file)
    assert res.code == 0 and res.stdout == "", res.describe()
    # Following an empty table: its first snapshot is read whole.
    reader = Reader(floe_bin, lake, tmp_path, "--follow", "--monitor-interval", "100ms")
    time.sleep(0.5)
    _append(table, [7, 8])
    reader.wait_rows(2)
    assert reader.stop() == 0, reader.stderr()
    assert sorted(r["id"] for r in _lines(reader.output)) == [7, 8]


def test_overwrite_fails_unless_skipped(floe_run, make_lake):
    lake = make_lake("sql")
    table = _create(lake)
    _append(table, [1, 2])
    # A filtered overwrite rewrites the file holding id 1: an "overwrite" snapshot, then an append.
    table.overwrite(pa.table({"id": pa.array([9], pa.int64()), "name": pa.array(["n9"], pa.string())}), overwrite_filter="id = 1")
    table.refresh()
    _append(table, [10])
    ops = [s.summary.operation.value for s in table.snapshots()]
    assert "overwrite" in ops, ops
    base = ["read", TABLE, "--catalog-config", lake.config_file, "--starting-strategy", "incremental-from-earliest-snapshot"]
    res = floe_run(*base)
    assert res.code == 1, res.describe()
    assert "an overwrite snapshot" in res.stderr and "--streaming-skip-overwrite-snapshots" in res.stderr, res.describe()
    # The rows before the overwrite were printed first.
    assert sorted(json.loads(line)["id"] for line in res.stdout.splitlines()) == [1, 2]
    res = floe_run(*base, "--streaming-skip-overwrite-snapshots", "--streaming-skip-delete-snapshots")
    assert res.code == 0, res.describe()
    assert sorted(json.loads(line)["id"] for line in res.stdout.splitlines()) == [1, 2, 9, 10]


def test_usage_errors(floe_run, make_lake, tmp_path):
    lake = make_lake("sql")
    _create(lake)
    cfg = ["--catalog-config", lake.config_file]
    for args, text in [
        (["--state-dir", tmp_path / "st"], "--output FILE"),  # stdout is a pipe here
        (["--starting-strategy", "incremental-from-snapshot-id"], "--start-snapshot-id"),
        (["--starting-strategy", "bogus"], "not one of"),
        (["--start-snapshot-id", "5"], "only for"),
        (["--where", "id >"], "--where"),
        (["--parallelism", "0"], "out of range"),
    ]:
        res = floe_run("read", TABLE, *cfg, *args)
        assert res.code == 2, res.describe()
        assert text in res.stderr, res.describe()
    res = floe_run("read", "db.missing", *cfg)
    assert res.code == 1 and "missing" in res.stderr, res.describe()


def test_sigkill_restarts_exactly_once(floe_run, floe_bin, make_lake, tmp_path):
    lake = make_lake("sql")
    table = _create(lake)
    rng = random.Random(13)
    next_id = 0
    batch = 20_000

    def append():
        nonlocal next_id
        _append(table, list(range(next_id, next_id + batch)))
        next_id += batch

    for _ in range(3):
        append()
    state = tmp_path / "state"
    output = tmp_path / "out.jsonl"
    args = [
        "--follow", "--starting-strategy", "incremental-from-earliest-snapshot", "--state-dir", state,
        "--monitor-interval", "50ms", "--checkpoint-interval", "150ms", "--parallelism", "2",
    ]
    def checkpointed_bytes() -> int:
        files = sorted((state / "checkpoints").glob("checkpoint-*.json"))
        if not files:
            return 0
        states = json.loads(files[-1].read_text())["states"]
        return json.loads(states["output/0"])["bytes"]

    killed_running = 0
    cut_back = 0  # restarts that found rows past their checkpoint in the file (and cut them)
    for i in range(22):
        if output.exists() and output.stat().st_size > checkpointed_bytes():
            cut_back += 1
        reader = Reader(floe_bin, lake, tmp_path, *args, output=output)
        if i % 2 == 0:
            append()
        time.sleep(rng.uniform(0.02, 0.5))
        if reader.proc.poll() is None:
            killed_running += 1
        code = reader.stop(signal.SIGKILL)
        assert code in (-signal.SIGKILL, 0), reader.stderr()
    assert killed_running >= 20
    assert cut_back >= 3, f"only {cut_back} kills landed between a checkpoint and the next"
    reader = Reader(floe_bin, lake, tmp_path, *args, output=output)
    reader.wait_rows(next_id, timeout=60)
    time.sleep(0.3)
    assert reader.stop() == 0, reader.stderr()
    ids = [r["id"] for r in _lines(output)]
    counts = collections.Counter(ids)
    dupes = [k for k, c in counts.items() if c > 1][:5]
    assert not dupes, f"rows written more than once after {killed_running} kills: {dupes}"
    assert len(ids) == next_id and set(ids) == set(range(next_id)), f"{len(ids)} rows, {next_id} expected"


def test_large_file_read_in_parts(floe_run, make_lake):
    """A PyIceberg file of many row groups, cut at its split offsets into parts read by
    several readers: every row once."""
    lake = make_lake("sql")
    catalog = lake.py_catalog()
    catalog.create_namespace(NS)
    table = catalog.create_table(TABLE, schema=_schema(), properties={"write.parquet.row-group-limit": "1000"})
    _append(table, list(range(20_000)))
    offsets = table.inspect.files().column("split_offsets").to_pylist()[0]
    assert offsets is not None and len(offsets) > 4, offsets
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, "--split-target-size", "16KiB", "--parallelism", "3")
    assert res.code == 0, res.describe()
    ids = sorted(json.loads(line)["id"] for line in res.stdout.splitlines())
    assert ids == list(range(20_000))


def _changes_by_snapshot(lines: list[dict]) -> dict[int, dict[str, list[dict]]]:
    out: dict[int, dict[str, list[dict]]] = {}
    for line in lines:
        out.setdefault(line["snapshot_id"], {}).setdefault(line["op"], []).append(line["row"])
    return out


def _expected_changes(table, snapshot_id) -> tuple[list[dict], list[dict]]:
    """(rows removed, rows added) by a snapshot, from PyIceberg's scans of it and its parent."""
    snap = table.snapshot_by_id(snapshot_id)
    now = collections.Counter(_key(r) for r in _rows_of(table, snapshot_id))
    before = collections.Counter(_key(r) for r in _rows_of(table, snap.parent_snapshot_id))
    return [json.loads(k) for k in (before - now).elements()], [json.loads(k) for k in (now - before).elements()]


def _check_changelog(table, lines: list[dict], what: str) -> None:
    table.refresh()
    by_snapshot = _changes_by_snapshot(lines)
    for snap in table.snapshots():
        removed, added = _expected_changes(table, snap.snapshot_id)
        ops = by_snapshot.get(snap.snapshot_id, {})
        _same(ops.get("delete", []) + ops.get("update_before", []), removed, f"{what}: rows removed by {snap.snapshot_id} ({snap.summary.operation.value})")
        _same(ops.get("insert", []) + ops.get("update_after", []), added, f"{what}: rows added by {snap.snapshot_id} ({snap.summary.operation.value})")
    # An update is a pair with the same key, before then after.
    for a, b in zip(lines, lines[1:]):
        if a["op"] == "update_before":
            assert b["op"] == "update_after" and b["row"]["id"] == a["row"]["id"], (a, b)


def test_changelog_follows_pyiceberg_deletes_and_overwrites(floe_run, floe_bin, make_lake, tmp_path):
    lake = make_lake("sql")
    table = _create(lake)
    reader = Reader(
        floe_bin, lake, tmp_path, "--follow", "--changelog", "--starting-strategy", "incremental-from-earliest-snapshot",
        "--monitor-interval", "100ms",
    )
    _append(table, list(range(50)))
    table.delete("id < 10")
    table.refresh()
    table.overwrite(pa.table({"id": pa.array(range(100, 105), pa.int64()), "name": pa.array(["o"] * 5, pa.string())}), overwrite_filter="id >= 40")
    table.refresh()
    _append(table, list(range(200, 210)))
    expected = 0
    for snap in table.snapshots():
        removed, added = _expected_changes(table, snap.snapshot_id)
        expected += len(removed) + len(added)
    reader.wait_rows(expected)
    time.sleep(0.3)
    assert reader.stop() == 0, reader.stderr()
    lines = _lines(reader.output)
    assert len(lines) == expected
    _check_changelog(table, lines, "PyIceberg writes")
    assert {line["op"] for line in lines} == {"insert", "delete"}  # no identifier fields: no updates


def test_changelog_of_floe_upserts(floe_run, make_lake, tmp_path, java_peer):
    """floe's upsert commits (equality deletes, which PyIceberg cannot read) as changes,
    checked against Iceberg Java's reads of each snapshot."""
    lake = make_lake("sql")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"}]}))
    for i, rows in enumerate([[(1, "a"), (2, "b"), (3, "c")], [(2, "b2"), (4, "d"), (3, "c2")], [(4, "d3"), (5, "e")]]):
        data = tmp_path / f"u{i}.jsonl"
        data.write_text("".join(json.dumps({"id": k, "name": v}) + "\n" for k, v in rows))
        res = floe_run("ingest", data, "--format", "json", "--table", "db.u", "--primary-key", "id", "--upsert", "--schema", schema,
                       "--state-dir", tmp_path / f"state{i}", "--catalog-config", lake.config_file)
        assert res.code == 0, res.describe()
    res = floe_run("read", "db.u", "--catalog-config", lake.config_file, "--changelog", "--starting-strategy", "incremental-from-earliest-snapshot")
    assert res.code == 0, res.describe()
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    snapshots = sorted(lake.metadata("db.u")["snapshots"], key=lambda s: s["sequence-number"])
    states = java_peer.scans(lake, "db.u", [{"snapshot": s["snapshot-id"]} for s in snapshots])
    by_snapshot = _changes_by_snapshot(lines)
    previous: list[dict] = []
    for snap, (rows, _) in zip(snapshots, states):
        now = collections.Counter(_key(r) for r in rows)
        before = collections.Counter(_key(r) for r in previous)
        ops = by_snapshot.get(snap["snapshot-id"], {})
        what = f"snapshot {snap['snapshot-id']} (vs Iceberg Java)"
        _same(ops.get("delete", []) + ops.get("update_before", []), [json.loads(k) for k in (before - now).elements()], what + ": removed")
        _same(ops.get("insert", []) + ops.get("update_after", []), [json.loads(k) for k in (now - before).elements()], what + ": added")
        previous = rows
    for a, b in zip(lines, lines[1:]):
        if a["op"] == "update_before":
            assert b["op"] == "update_after" and b["row"]["id"] == a["row"]["id"], (a, b)
    updated = [(line["row"]["id"], line["row"]["name"]) for line in lines if line["op"] == "update_after"]
    assert sorted(updated) == [(2, "b2"), (3, "c2"), (4, "d3")], lines

    # The changes as Debezium events, into floe ingest: a copy of the table.
    res = floe_run("read", "db.u", "--catalog-config", lake.config_file, "--changelog", "--format", "debezium-json",
                   "--starting-strategy", "incremental-from-earliest-snapshot")
    assert res.code == 0, res.describe()
    events = [json.loads(line) for line in res.stdout.splitlines()]
    assert [e["op"] for e in events].count("u") == 3 and all(e["source"]["table"] == "u" for e in events)
    copy = floe_run("ingest", "-", "--format", "debezium-json", "--table", "db.copy", "--primary-key", "id", "--upsert",
                    "--schema", schema, "--state-dir", tmp_path / "copy-state", "--catalog-config", lake.config_file, stdin=res.stdout)
    assert copy.code == 0, copy.describe()
    (original, _), = java_peer.scans(lake, "db.u", [{}])
    (copied, _), = java_peer.scans(lake, "db.copy", [{}])
    _same(copied, original, "db.copy (floe read --changelog --format debezium-json | floe ingest) vs db.u, by Iceberg Java")


def test_snapshots_expired_under_the_reader(floe_run, floe_bin, make_lake, tmp_path):
    """Expiring the snapshots a stopped reader has read is harmless while its last planned
    snapshot is still the parent of a retained one; when the history it needs is gone, the
    restart fails naming the snapshots (it never guesses where to go on)."""
    lake = make_lake("sql")
    table = _create(lake)
    _append(table, [1])
    state = tmp_path / "state"
    args = ["--follow", "--starting-strategy", "incremental-from-earliest-snapshot", "--state-dir", state, "--monitor-interval", "100ms"]
    output = tmp_path / "out.jsonl"

    def run_until(count):
        reader = Reader(floe_bin, lake, tmp_path, *args, output=output)
        reader.wait_rows(count)
        assert reader.stop() == 0, reader.stderr()

    run_until(1)
    _append(table, [2])
    _append(table, [3])
    # The reader's last planned snapshot (of row 1) expires; the snapshots of rows 2 and 3 stay.
    res = floe_run("table", "--catalog-config", lake.config_file, "expire", TABLE, "--older-than", "0s", "--retain-last", "2")
    assert res.code == 0, res.describe()
    run_until(3)  # the snapshot of row 1 was the parent of the retained snapshot of row 2
    assert sorted(r["id"] for r in _lines(output)) == [1, 2, 3]

    _append(table, [4])
    _append(table, [5])
    res = floe_run("table", "--catalog-config", lake.config_file, "expire", TABLE, "--older-than", "0s", "--retain-last", "1")
    assert res.code == 0, res.describe()
    reader = Reader(floe_bin, lake, tmp_path, *args, output=output)
    code = reader.proc.wait(timeout=60)
    assert code == 1, reader.stderr()
    assert "has expired" in reader.stderr(), reader.stderr()
    assert sorted(r["id"] for r in _lines(output)) == [1, 2, 3]


def test_thousands_of_small_files(floe_run, make_lake, tmp_path):
    """3,000 one-row-group files in one snapshot (PyIceberg's add_files of pyarrow-written
    files): packed into few splits by the open cost, every row read once, and as the changes of
    the snapshot with --changelog."""
    import pyarrow.parquet as pq

    lake = make_lake("sql")
    table = _create(lake)
    files = []
    for i in range(3000):
        path = tmp_path / "files" / f"f{i:05d}.parquet"
        path.parent.mkdir(exist_ok=True)
        pq.write_table(pa.table({"id": pa.array([2 * i, 2 * i + 1], pa.int64()), "name": pa.array(["s", "t"], pa.string())}), path)
        files.append(f"file://{path}")
    table.add_files(files)
    table.refresh()
    assert len(table.inspect.files()) == 3000
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, "--parallelism", "2")
    assert res.code == 0, res.describe()
    assert sorted(json.loads(line)["id"] for line in res.stdout.splitlines()) == list(range(6000))
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, "--changelog", "--starting-strategy", "incremental-from-earliest-snapshot")
    assert res.code == 0, res.describe()
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(lines) == 6000 and {line["op"] for line in lines} == {"insert"}
