"""Exactly once on REST + S3 with faults between floe and the servers (issue 14).

The upsert kill test of test_rest_s3.py, with floe talking to both servers through
fault_proxy.FaultProxy: commits whose answer is lost after the server applied them, 503s
and 429s from the REST server, SlowDown and stalls from S3. `floe ingest --follow` runs
are SIGKILLed at random moments and restarted while the change stream grows; a run may
also stop on its own when a fault leaves a commit's outcome unknown twice, and is then
started again, as a supervisor would. A last run, with the faults off, finishes the
stream. Every table must equal the model row for row (Iceberg Java, reading the servers
directly), no checkpoint may be committed twice, and the faults must have been injected.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import uuid

from fault_proxy import FaultProxy
from test_rest_s3 import (  # noqa: F401 - fixtures
    S3Lake,
    S3Server,
    assert_no_checkpoint_twice,
    assert_same_rows,
    grow_and_kill,
    ingest_argv,
    java_peer_s3,
    rest_s3_uri,
    s3_server,
)
from changes import ChangeStream  # noqa: E402

KILLS = int(os.environ.get("FLOE_S3_FAULT_KILLS", "6"))
LINES = int(os.environ.get("FLOE_S3_FAULT_LINES", "20000"))
# A table's commit, or a transaction over several (floe ingest commits a checkpoint's
# tables in one when the server offers it).
COMMIT = re.compile(r"^/v1/(.+/)?(namespaces/[^/]+/tables/[^/?]+|transactions/commit)$")


def rest_faults(rnd: random.Random, method: str, path: str) -> str | None:
    draw = rnd.random()
    if method == "POST" and COMMIT.match(path):
        return "lost-answer" if draw < 0.25 else "busy" if draw < 0.30 else None
    if method in ("GET", "HEAD"):
        return "busy" if draw < 0.05 else "throttled" if draw < 0.08 else None
    return "throttled" if draw < 0.03 else None


def s3_faults(rnd: random.Random, method: str, path: str) -> str | None:
    draw = rnd.random()
    if method in ("PUT", "POST"):
        return "busy" if draw < 0.06 else "stalled" if draw < 0.07 else None
    return "busy" if draw < 0.02 else "stalled" if draw < 0.03 else None


def unknown_outcome(log: str) -> bool:
    """A run may stop when a commit's outcome stayed unknown through its retries."""
    return "error:" in log and ("state unknown" in log or "injected" in log)


def test_ingest_exactly_once_with_faults_on_rest_s3(floe_bin, tmp_path, rest_s3_uri, s3_server,
                                                     java_peer_s3):
    binary = floe_bin
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    stream = ChangeStream(seed)
    prefix = f"f{uuid.uuid4().hex[:8]}"
    for table in stream.tables:
        table.db = f"{prefix}_{table.db}"
    # floe creates the tables (unpartitioned: few files per checkpoint, so many commits
    # go through the faults in the time the runs have).
    direct = S3Lake("rest", tmp_path / "direct", s3_server, rest_uri=rest_s3_uri)

    rnd = random.Random(seed)
    input_file = tmp_path / "changes.jsonl"
    input_file.touch()
    state = tmp_path / "state"
    lines = list(stream.lines(LINES))

    def chunks():
        written = 0
        while written < len(lines):
            chunk = lines[written:written + rnd.randint(100, 600)]
            yield "".join(line + "\n" for line in chunk)
            written += len(chunk)

    with FaultProxy(rest_s3_uri, rest_faults, seed=seed) as rest, \
            FaultProxy(s3_server.endpoint, s3_faults, seed=seed + 1, s3=True, stall_seconds=0.5) as s3:
        proxied = S3Lake("rest", tmp_path / "proxied", S3Server(s3.url, s3_server.key_id, s3_server.secret),
                         rest_uri=rest.url)
        killed, logs = grow_and_kill(
            ingest_argv(binary, proxied, input_file, state, "--upsert", "--follow"), input_file, chunks(),
            kills=KILLS, pause=(3.0, 6.0), gap=0.5, rnd=rnd, logs_dir=tmp_path, may_fail=unknown_outcome)
        rest.enabled = s3.enabled = False
        final = subprocess.run(ingest_argv(binary, proxied, input_file, state, "--upsert"),
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        assert final.returncode == 0, final.stderr[-4000:]
        injected = {"rest": dict(rest.counts), "s3": dict(s3.counts)}
    print(f"{killed} kills, {len(logs)} runs; faults injected: {injected}")
    resolved = sum("commit outcome unknown" in log.read_text() for log in logs)
    print(f"{resolved} runs met a commit of unknown outcome")
    assert injected["rest"].get("lost-answer", 0) >= 2, injected
    assert sum(injected["s3"].values()) >= 2, injected
    for ident, expected in stream.expected().items():
        table = direct.py_table(ident)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        java_rows, _ = java_peer_s3.scan(direct, ident)
        assert_same_rows(java_rows, expected, schema, f"seed {seed}, faults {injected}: {ident} (Iceberg Java)")
        commits = assert_no_checkpoint_twice(direct.metadata(ident), f"seed {seed}: {ident}")
        print(f"{ident}: {len(expected)} rows, {commits} commits")
