"""A state folder behind the lake never means rows appended twice (issue 9, D1).

The tables record what a pipeline committed (`floe.committed-checkpoint.<pipeline>`, and
`floe.checkpoint-id` with `floe.source-position` in each snapshot). When the newest
checkpoint file is truncated or garbage, the `checkpoints/` folder is deleted, or the whole
state folder is deleted (the pipeline id is recomputed from its path), a restart must see
that the tables hold more than the checkpoint it restores, and skip for each table what it
already holds. The same when an old copy of the state folder is put back. Where it cannot know what a table holds (standard input), it stops with an
error and appends nothing.
"""

from __future__ import annotations

import json
import pathlib
import random
import shutil
import signal
import subprocess
import threading
import time

import pytest

from changes import ChangeStream
from ingest_runs import change_chunks, check_lake, create_tables, grow, ingest_argv

SCHEMA = {
    "type": "struct", "schema-id": 0,
    "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "payload", "required": False, "type": "string"},
    ],
}
ROWS = 400_000


def _json_ingest(binary, lake, input_arg, state, *extra, stdin=None):
    argv = [str(binary), "ingest", str(input_arg), "--format", "json", "--table", "cp.a", "--schema",
            str(state.parent / "schema.json"), "--catalog-config", str(lake.config_file),
            "--state-dir", str(state), "--checkpoint-interval", "50ms", *extra]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=300)


def _checkpoint_files(state: pathlib.Path) -> list[pathlib.Path]:
    return sorted((state / "checkpoints").glob("checkpoint-*.json"))


def _committed_checkpoint(lake, ident: str) -> int:
    """The highest checkpoint id committed to the table (0 before it exists)."""
    try:
        props = lake.metadata(ident).get("properties", {})
    except Exception:  # not created yet, or the catalog is being written
        return 0
    ids = [int(v) for k, v in props.items() if k.startswith("floe.committed-checkpoint.")]
    return max(ids, default=0)


def _damage(kind: str, state: pathlib.Path, committed: int) -> None:
    """Leaves the state folder with nothing readable at or above `committed`."""
    if kind in ("truncated", "garbage"):
        for path in _checkpoint_files(state):
            if int(path.stem.split("-")[1]) >= committed:
                if kind == "truncated":
                    with open(path, "r+b") as f:
                        f.truncate(min(100, path.stat().st_size // 2))
                else:
                    path.write_bytes(bytes(random.Random(7).randrange(256) for _ in range(300)))
    elif kind == "checkpoints-deleted":
        shutil.rmtree(state / "checkpoints")
    elif kind == "state-deleted":
        shutil.rmtree(state)
    elif kind == "older":
        # An old copy of the state folder put back (a backup restored).
        shutil.rmtree(state)
        shutil.copytree(state.parent / "state-copy", state)
    else:
        raise AssertionError(kind)


def _ids(lake, ident: str) -> list[int]:
    return lake.py_table(ident).scan().to_arrow().column("id").to_pylist()


@pytest.mark.parametrize("kind", ["truncated", "garbage", "checkpoints-deleted", "state-deleted"])
def test_json_rerun_after_damaged_state(kind, tmp_path, make_lake, floe_ingest_ready):
    """The issue's reproducer, made deterministic: a complete run commits every row; the
    state is damaged; the same command again must add nothing (it used to append the rows
    after the restored, older checkpoint a second time)."""
    binary = floe_ingest_ready
    lake = make_lake("sql")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    input_file = tmp_path / "rows.jsonl"
    input_file.write_text("".join(json.dumps({"id": i, "payload": f"row {i} " + "x" * (i % 50)}) + "\n"
                                  for i in range(ROWS)))
    state = tmp_path / "state"
    first = _json_ingest(binary, lake, input_file, state, "--parallelism", "2")
    assert first.returncode == 0, first.stderr[-3000:]
    committed = _committed_checkpoint(lake, "cp.a")
    assert committed >= 2, f"the first run committed only checkpoint {committed}"
    assert len(_checkpoint_files(state)) >= 2

    _damage(kind, state, committed)
    again = _json_ingest(binary, lake, input_file, state, "--parallelism", "2")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "behind the lake" in again.stderr, again.stderr[-3000:]
    ids = _ids(lake, "cp.a")
    assert len(ids) == ROWS and len(set(ids)) == ROWS, (
        f"{kind}: {len(ids)} rows for {ROWS} ids after the rerun\n{again.stderr[-3000:]}")
    assert _committed_checkpoint(lake, "cp.a") >= committed


def _total_records(lake, ident: str) -> int:
    try:
        meta = lake.metadata(ident)
    except Exception:  # not created yet, or the catalog is being written
        return 0
    current = meta.get("current-snapshot-id")
    for snap in meta.get("snapshots", []):
        if snap["snapshot-id"] == current:
            return int(snap["summary"].get("total-records", 0))
    return 0


def test_json_kill_then_damaged_state_resumes_from_the_lake(tmp_path, make_lake, floe_ingest_ready):
    """`--follow` killed with SIGKILL, its newest checkpoints truncated, more rows appended:
    the rerun skips what the table holds and adds only the new rows."""
    binary = floe_ingest_ready
    lake = make_lake("sql")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    input_file = tmp_path / "rows.jsonl"
    first_rows, more_rows = 200_000, 100_000
    with open(input_file, "w") as out:
        for i in range(first_rows):
            out.write(json.dumps({"id": i, "payload": f"row {i}"}) + "\n")
    state = tmp_path / "state"
    argv = [str(binary), "ingest", str(input_file), "--format", "json", "--table", "cp.a", "--schema",
            str(tmp_path / "schema.json"), "--catalog-config", str(lake.config_file),
            "--state-dir", str(state), "--checkpoint-interval", "50ms", "--follow"]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if _total_records(lake, "cp.a") == first_rows:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode(errors="replace")[-3000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    committed = _committed_checkpoint(lake, "cp.a")
    assert len(_ids(lake, "cp.a")) == first_rows
    _damage("truncated", state, committed)
    with open(input_file, "a") as out:
        for i in range(first_rows, first_rows + more_rows):
            out.write(json.dumps({"id": i, "payload": f"row {i}"}) + "\n")

    again = _json_ingest(binary, lake, input_file, state)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "behind the lake" in again.stderr, again.stderr[-3000:]
    ids = _ids(lake, "cp.a")
    total = first_rows + more_rows
    assert len(ids) == total and len(set(ids)) == total, f"{len(ids)} rows for {total} ids"


def test_standard_input_behind_the_lake_stops(tmp_path, make_lake, floe_ingest_ready):
    """Standard input cannot be read again from a table's position: a restart whose state
    is behind the lake stops with an error and appends nothing."""
    binary = floe_ingest_ready
    lake = make_lake("sql")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    text = "".join(json.dumps({"id": i, "payload": "p"}) + "\n" for i in range(5000))
    state = tmp_path / "state"
    first = _json_ingest(binary, lake, "-", state, stdin=text)
    assert first.returncode == 0, first.stderr[-3000:]
    shutil.rmtree(state / "checkpoints")
    again = _json_ingest(binary, lake, "-", state, stdin=text)
    assert again.returncode != 0
    assert "standard input cannot be read again" in again.stderr, again.stderr[-3000:]
    assert "cp.a" in again.stderr
    assert len(_ids(lake, "cp.a")) == 5000


@pytest.mark.parametrize("kind", ["truncated", "checkpoints-deleted", "state-deleted", "older"])
def test_debezium_changelog_kills_and_lost_state(kind, tmp_path, make_lake, java_peer, floe_ingest_ready):
    """A changelog over several tables (updates, deletes, partitions) grows while `floe
    ingest --follow` is killed; once the state is damaged between two kills. Every table
    must still equal the model, read by Iceberg Java, with no checkpoint id twice."""
    binary = floe_ingest_ready
    lake = make_lake("sql")
    create_tables(binary, lake, tmp_path, changelog=True)
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    stream = ChangeStream(seed)
    rnd = random.Random(seed)
    input_file = tmp_path / "changes.jsonl"
    input_file.touch()
    state = tmp_path / "state"
    stop = threading.Event()
    # About 10,000 events a second: the input still grows when the state is damaged.
    grower = threading.Thread(
        target=grow, args=(input_file, change_chunks(stream, 80_000), stop, 0.03, random.Random(seed + 1)),
        kwargs={"half_written": lambda text: stream.random.randrange(len(text))
                if stream.random.random() < 0.2 else len(text)}, daemon=True)
    grower.start()
    damaged = False
    logs = []
    try:
        for run in range(6):
            logs.append(tmp_path / f"run{run}.log")
            with open(logs[-1], "w") as err:
                proc = subprocess.Popen(ingest_argv(binary, lake, input_file, state, "--follow"),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            time.sleep(rnd.uniform(0.8, 1.6))
            assert proc.poll() is None, f"run {run} exited {proc.returncode}:\n{logs[-1].read_text()[-3000:]}"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            if run == 1:
                shutil.copytree(state, tmp_path / "state-copy")
            if run == 3:
                committed = max(_committed_checkpoint(lake, ident) for ident in ("shop.items", "shop.orders"))
                assert committed > 0, "nothing committed after four runs"
                _damage(kind, state, committed)
                damaged = True
    finally:
        stop.set()
        grower.join()
    assert damaged
    # The first run after the damage saw the tables ahead of its state.
    assert "behind the lake" in logs[4].read_text(), logs[4].read_text()[-3000:]
    final = subprocess.run(ingest_argv(binary, lake, input_file, state), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr[-4000:]
    check_lake(lake, stream, java_peer, f"{kind}, seed {seed}")
