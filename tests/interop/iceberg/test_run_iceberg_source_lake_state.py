"""`floe run` with `source: type: iceberg`: the source's position belongs to the lake (issue 13).

Three source tables — `db.u` written by floe upserts (equality deletes), `db.events` (keyed)
and `db.log` (no key: a row handed on twice would be a second row) by PyIceberg appends and
deletes — are copied into the namespace `mirror`. The state folder of `floe run` is deleted
three times: after a clean stop (the lake copy of the source state is the final
checkpoint's), after a SIGKILL at a random moment with only the lake's oldest copy kept (so
every table holds more than it and skips what it holds), and after a SIGKILL with the lake
copy deleted too (every source table is read again from where its read began, each sink
table skipping what it holds). Each time more changes follow, and Iceberg Java reads every
copy equal to its original, row for row.
"""

from __future__ import annotations

import pathlib
import random
import shutil
import signal
import time

from test_run_iceberg_source import (  # noqa: F401  (fixture)
    Run,
    _append,
    _caught_up,
    _differences,
    _events_table,
    _no_run_left_behind,
    _pipeline,
    _upsert,
)

PAIRS = [("db.u", "mirror.u"), ("db.events", "mirror.events"), ("db.log", "mirror.log")]


def _log_table(lake):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    return lake.py_catalog().create_table("db.log", schema=Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType(), required=False)))


class Writer:
    """The source tables' writers: each call commits one more change somewhere."""

    def __init__(self, floe_run, lake, tmp: pathlib.Path):
        self.floe_run, self.lake, self.tmp = floe_run, lake, tmp
        self.events, self.log = _events_table(lake), _log_table(lake)
        self.next_id, self.batch = 1, 0
        self.rng = random.Random(1313)

    def change(self) -> None:
        ids = list(range(self.next_id, self.next_id + self.rng.randint(20, 200)))
        self.next_id = ids[-1] + 1
        kind = self.rng.choice(["upsert", "append", "log", "delete"])
        if kind == "upsert":
            self.batch += 1
            keys = [self.rng.randint(1, self.next_id) for _ in range(50)] + ids
            _upsert(self.floe_run, self.lake, self.tmp, self.batch,
                    [(k, f"v{self.batch}-{k}") for k in dict.fromkeys(keys)])
        elif kind == "append":
            _append(self.events, ids)
        elif kind == "log":
            _append(self.log, ids)
        else:
            low = self.rng.randint(-50, self.next_id)
            self.events.delete(f"id >= {low} and id < {low + 30}")
            self.events.refresh()

    def changes(self, n: int, pause: float = 0.2) -> None:
        for _ in range(n):
            self.change()
            time.sleep(self.rng.uniform(0, pause))


def _lose_state(run: Run, lake, state: pathlib.Path, rnd: random.Random, keep_oldest_copy: bool) -> None:
    """A SIGKILL at a random moment; then the state folder is deleted, and of the lake's copies of
    the source state only the oldest is kept, or none."""
    time.sleep(rnd.uniform(0, 0.8))
    run.alive()
    run.stop(signal.SIGKILL)
    shutil.rmtree(state)
    copies = sorted(lake.warehouse.rglob("source-state/checkpoint-*.json"))
    assert copies, "no lake copy of the source state"
    for copy in copies[1:] if keep_oldest_copy else copies:
        copy.unlink()


def test_a_lost_state_folder_resumes_from_the_lake(floe_run, floe_bin, make_lake, tmp_path, java_peer):
    lake = make_lake("sql")
    lake.py_catalog().create_namespace("db")
    _upsert(floe_run, lake, tmp_path, 0, [(i, f"a{i}") for i in range(1, 300)])
    writer = Writer(floe_run, lake, tmp_path)
    _append(writer.log, list(range(-100, 0)))
    _append(writer.events, list(range(-50, 0)))
    pipeline = _pipeline(lake, tmp_path)
    state = tmp_path / "state"
    rnd = random.Random(13)

    # 1. A clean stop: the lake's copy is the final checkpoint's; the state folder is lost.
    run = Run(floe_bin, pipeline, tmp_path)
    writer.changes(6)
    _caught_up(run, java_peer, lake, PAIRS)
    assert run.stop() == 0, run.stderr()
    copies = sorted(lake.warehouse.rglob("source-state/checkpoint-*.json"))
    assert copies, "no lake copy of the source state after a clean stop"
    shutil.rmtree(state)
    writer.changes(3)
    run = Run(floe_bin, pipeline, tmp_path)
    writer.changes(4)
    _caught_up(run, java_peer, lake, PAIRS)
    assert "resuming from the lake's copy of checkpoint" in run.stderr(), run.stderr()[-3000:]

    # 2. More changes for longer than the copy's interval (10 s), a SIGKILL at a random
    # moment, and only the lake's oldest copy kept: every table holds more than it.
    end = time.monotonic() + 12
    while time.monotonic() < end:
        writer.changes(1, pause=0.5)
    _lose_state(run, lake, state, rnd, keep_oldest_copy=True)
    writer.changes(3)
    run = Run(floe_bin, pipeline, tmp_path)
    writer.changes(4)
    _caught_up(run, java_peer, lake, PAIRS)
    err = run.stderr()
    assert "resuming from the lake's copy of checkpoint" in err and "already hold are skipped" in err, err[-3000:]

    # 3. The state folder and the lake copy both lost: every source table is read again from
    # where its read began, each sink table skipping the rows it holds.
    writer.changes(3)
    _lose_state(run, lake, state, rnd, keep_oldest_copy=False)
    writer.changes(2)
    run = Run(floe_bin, pipeline, tmp_path)
    writer.changes(3)
    _caught_up(run, java_peer, lake, PAIRS)
    assert "the tables are read from where they began" in run.stderr(), run.stderr()[-3000:]
    assert run.stop() == 0, run.stderr()
    assert _differences(java_peer, lake, PAIRS) == []
