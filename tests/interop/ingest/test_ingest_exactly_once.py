"""Exactly once under SIGKILL (issue 4's first judgement).

A random change stream over three tables (one partitioned by a key column and, in
changelog mode, one by a column outside the key, so updates move rows between partitions; inserts, updates, deletes, several changes to one key within and
across checkpoints, schema changes mid-stream, now and then a table truncated with op "t") grows in a file while `floe ingest --follow`
runs; the test kills it with SIGKILL at random moments at least 20 times, restarting it
each time with the same arguments, then lets a last run finish the file. Every table must
then equal the model row for row, read by Iceberg Java and by the spec's rules over
PyIceberg's metadata, and no checkpoint id may be committed twice to a table.
"""

from __future__ import annotations

import os
import random
import subprocess

import pytest

from changes import ChangeStream
from ingest_runs import change_chunks, check_lake, create_tables, grow_and_kill, ingest_argv

KILLS = int(os.environ.get("FLOE_INGEST_KILLS", "22"))


@pytest.mark.parametrize("mode", ["changelog", "upsert"])
def test_exactly_once_under_sigkill(mode, tmp_path, make_lake, java_peer, floe_ingest_ready):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    create_tables(binary, lake, tmp_path, changelog=mode == "changelog")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    # Truncations (op "t") now and then: a kill may land between a truncation and its commit.
    stream = ChangeStream(seed, truncates=True, truncate_rate=0.00015)
    rnd = random.Random(seed)
    input_file = tmp_path / "changes.jsonl"
    input_file.touch()
    state = tmp_path / "state"
    extra = ["--upsert"] if mode == "upsert" else []
    kills = KILLS if mode == "changelog" else max(5, KILLS // 4)
    total = 60_000 if mode == "changelog" else 20_000

    # Some chunks are left half-written for a moment, as a writer does. Runs live long
    # enough for some to commit several checkpoints, short enough that many die
    # mid-checkpoint or mid-commit.
    killed, logs = grow_and_kill(
        ingest_argv(binary, lake, input_file, state, "--follow", *extra), input_file,
        change_chunks(stream, total), kills=kills, pause=(0.2, 1.6), gap=0.03, rnd=rnd, logs_dir=tmp_path,
        half_written=lambda text: rnd.randrange(len(text)) if rnd.random() < 0.2 else len(text))
    final = subprocess.run(ingest_argv(binary, lake, input_file, state, *extra), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr[-4000:]
    commits = check_lake(lake, stream, java_peer, f"{mode}, seed {seed}, {killed} kills")
    resumed = sum(1 for log in logs if "from checkpoint" in log.read_text())
    print(f"{mode}: {killed} kills, {resumed} runs resumed from a checkpoint, {stream.truncated} truncations, "
          f"commits per table {commits}")
    # The kills must have landed after commits too, not only before the first one.
    assert resumed >= killed // 2, f"only {resumed} of {killed} runs resumed from a checkpoint"
    assert all(n >= 3 for n in commits.values()), commits
