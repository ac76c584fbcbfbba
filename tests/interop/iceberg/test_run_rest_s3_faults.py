"""`floe run` mirrors MariaDB into the REST catalog on S3 exactly once, through faults
between floe and the servers and through SIGKILLs (issue 14).

The lenient workload of tests/integration/test_run_mysql.py runs on MariaDB: three tables,
then random transactions of inserts, updates, deletes and primary-key changes, and now and
then (a quarter as often as there) an ADD COLUMN, a new table or a TRUNCATE; one ADD COLUMN
is forced halfway, so every seed has a schema change. Meanwhile `floe run` mirrors the database into the REST catalog
whose warehouse is on S3 (the s3 instance of scripts/services/iceberg-rest.sh), given
inline in `sink.catalog`, and talks to both servers through fault_proxy.FaultProxy with the
faults of test_rest_s3_faults.py: commits (of a table or a transaction over several) whose
answer is lost after the server applied them, or that are lost before it (the client cannot
tell the two apart), 503s and 429s from the REST server, SlowDown
and stalled uploads from S3. Runs are SIGKILLed at random moments (FLOE_RUN_FAULT_KILLS
times, default 10: the first two in the snapshot or before their first commit, the others
up to 2.5 s after their first commit) and started again with the same pipeline file; a run
may also stop on its own when a commit's outcome stays unknown through its retries (or a
request keeps being refused), and is then started again, as a supervisor would. A last
run, with the faults off, catches up to an end marker and stops on SIGTERM.

Every table of the database must then equal its Iceberg table row for row, read from the
servers directly by Iceberg Java (every table: updates leave equality deletes, which
PyIceberg cannot read) and by PyIceberg where it can; no checkpoint may be committed twice;
the faults must have been injected and commits of unknown outcome resolved. It prints the
faults injected by kind and the unknown outcomes met and resolved.

Needs the servers of test_rest_s3.py and the MariaDB of scripts/services/mariadb.sh (the
workload runs as root over its socket, FLOE_TEST_MYSQL_SOCKET); skipped when
FLOE_TEST_MYSQL_PORT is unset. Each run mirrors a database of its own name under a pipeline
name of its own (the REST server keeps its catalog across runs, and a pipeline without
state refuses to start while tables of the catalog hold its checkpoints); the database and
its Iceberg tables are dropped at the end.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
sys.path.insert(0, str(ROOT / "tests" / "interop" / "ingest"))
sys.path.insert(0, str(ROOT / "examples"))

pymysql = pytest.importorskip("pymysql")

import mirror_check  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402
from lake_check import assert_no_checkpoint_twice  # noqa: E402
from test_rest_s3 import S3Lake, S3Server, java_peer_s3, rest_s3_uri, s3_server  # noqa: E402,F401
from test_rest_s3_faults import rest_faults, s3_faults, unknown_outcome  # noqa: E402
from test_run_mysql import SOCKET, Workload, root_connection  # noqa: E402

KILLS = int(os.environ.get("FLOE_RUN_FAULT_KILLS", "10"))
ROWS_PER_TABLE = 3_000
SERVER_IDS = (110000, 119899)
MARKER_ID = 2_000_000_000
UNKNOWN = "commit outcome unknown"
COMMITTED = re.compile(r"committed table \S+ checkpoint \d+")  # at --log-level debug
GAVE_UP = re.compile(r"answered 'state unknown' twice")

pytestmark = pytest.mark.skipif(os.environ.get("FLOE_TEST_MYSQL_PORT") is None,
                                reason="FLOE_TEST_MYSQL_PORT is not set")


class SparseDdlWorkload(Workload):
    """The workload with a quarter of its DDL: each new table is one more to create and
    commit through the faults, and one more for every start to read."""

    def ddl(self, c) -> None:
        if self.random.random() < 0.25:
            super().ddl(c)


def write_pipeline(path: pathlib.Path, db: str, rest_uri: str, s3: S3Server, state: pathlib.Path) -> None:
    """Every table of `db` into the REST catalog at `rest_uri`, its files through `s3`."""
    catalog = ", ".join(f'{k}: "{v}"' for k, v in {"type": "rest", "uri": rest_uri, **s3.properties()}.items())
    path.write_text(f"""
source:
  type: mysql
  hostname: {os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")}
  port: {os.environ["FLOE_TEST_MYSQL_PORT"]}
  username: {os.environ.get("FLOE_TEST_MYSQL_USER", "floe")}
  password: ${{FLOE_TEST_MYSQL_PASSWORD}}
  tables: {db}.\\.*
  server-id: {random.randint(*SERVER_IDS)}
  scan.incremental.snapshot.chunk.size: 1000
sink:
  type: iceberg
  catalog: {{{catalog}}}
pipeline:
  name: {db}-faults
  parallelism: 2
  checkpoint.interval: 300ms
  state.dir: {state}
""")


def tallied(lost: collections.Counter):
    """The REST faults of test_rest_s3_faults.py, where a commit whose answer is lost was not
    always applied (a lost request: floe cannot tell the two apart, so taking a commit
    without an answer for done, or for not done, loses or repeats rows), counting in `lost`
    the commits left without an answer, by kind."""
    def choose(rnd: random.Random, method: str, path: str) -> str | None:
        fault = rest_faults(rnd, method, path)
        if fault == "lost-answer" and rnd.random() < 0.4:
            fault = "lost-request"
        if fault in ("lost-answer", "lost-request"):
            kind = "transaction" if path.endswith("/transactions/commit") else "table commit"
            lost[f"{kind} {fault}"] += 1
        return fault
    return choose


def start_run(binary: str, pipeline: pathlib.Path, log: pathlib.Path) -> subprocess.Popen:
    env = dict(os.environ, FLOE_TEST_MYSQL_PASSWORD=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    with open(log, "w") as err:
        return subprocess.Popen([binary, "run", "--log-level", "debug", str(pipeline)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=env)


def wait_for_commit(proc: subprocess.Popen, log: pathlib.Path) -> None:
    """Until the run commits a checkpoint or stops. A start reads every table of the catalog
    (for the pipeline's commits): through the faults that takes seconds, so a run killed
    at a fixed pause could die before its first commit every time."""
    deadline = time.monotonic() + 90
    while proc.poll() is None and not COMMITTED.search(log.read_text()):
        assert time.monotonic() < deadline, f"no commit in 90 s:\n{log.read_text()[-3000:]}"
        time.sleep(0.1)


def lake_has_marker(binary: str, lake: S3Lake, ident: str) -> bool:
    proc = subprocess.run([binary, "table", "--catalog-config", str(lake.config_file), "scan", ident,
                           "--where", f"id = {MARKER_ID}"], capture_output=True, text=True, timeout=120)
    return proc.returncode == 0 and str(MARKER_ID) in proc.stdout


def java_rows(java_peer, lake: S3Lake, idents: list[str]) -> dict[str, list[dict]]:
    """Every table's rows as Iceberg Java reads them, all in one JVM."""
    steps = [{"cmd": "scan", "args": {"table": ident}} for ident in idents]
    outputs = json.loads(java_peer.run(lake, "script", stdin=json.dumps(steps)))
    return {ident: [json.loads(line) for line in out.splitlines() if line] for ident, out in zip(idents, outputs)}


def pyiceberg_rows(lake: S3Lake, ident: str) -> list[dict] | None:
    """The table's rows as PyIceberg reads them, or None when it cannot (equality deletes)."""
    try:
        return lake.py_table(ident).scan().to_arrow().to_pylist()
    except (ValueError, NotImplementedError) as e:
        if "equality delete" not in str(e).lower():
            raise
        return None


def test_run_exactly_once_with_faults_on_rest_s3(floe_bin, tmp_path, rest_s3_uri, s3_server, java_peer_s3):
    binary = str(floe_bin)
    if not SOCKET.exists():
        pytest.skip(f"no MariaDB socket at {SOCKET}")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    started = time.monotonic()
    db = f"rf_{uuid.uuid4().hex[:8]}"
    workload = SparseDdlWorkload(seed, db=db)
    conn = root_connection()
    with conn.cursor() as c:
        c.execute(f"CREATE DATABASE {db}")
        for table in ("t1", "t2", "t3"):
            workload.create(c, table, ROWS_PER_TABLE)
    direct = S3Lake("rest", tmp_path / "direct", s3_server, rest_uri=rest_s3_uri)
    pipeline = tmp_path / "mirror.yaml"
    logs: list[pathlib.Path] = []
    killed = stopped = 0
    writer = threading.Thread(target=workload.run, daemon=True)
    try:
        lost: collections.Counter[str] = collections.Counter()
        with FaultProxy(rest_s3_uri, tallied(lost), seed=seed) as rest, \
                FaultProxy(s3_server.endpoint, s3_faults, seed=seed + 1, s3=True, stall_seconds=0.5) as s3:
            write_pipeline(pipeline, db, rest.url, S3Server(s3.url, s3_server.key_id, s3_server.secret),
                           tmp_path / "state")
            writer.start()
            try:
                while killed < KILLS:
                    logs.append(tmp_path / f"run{len(logs)}.log")
                    proc = start_run(binary, pipeline, logs[-1])
                    if killed < 2:  # in the snapshot or before the first commit
                        time.sleep(rnd.uniform(0.5, 1.5))
                    else:  # mid-stream: at a random moment after the run's first commit
                        wait_for_commit(proc, logs[-1])
                        time.sleep(rnd.uniform(0.0, 2.5))
                    code = proc.poll()
                    if code is not None:
                        text = logs[-1].read_text()
                        assert code != 0 and unknown_outcome(text), f"floe run exited {code} on its own:\n{text[-3000:]}"
                        stopped += 1
                        assert stopped <= 2 * KILLS + 10, f"{stopped} runs stopped on their own:\n{text[-3000:]}"
                        continue
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    killed += 1
                    assert workload.error is None, workload.error
                    if killed == KILLS // 2:  # a schema change whatever the seed draws
                        with conn.cursor() as c:
                            c.execute(f"ALTER TABLE {db}.t2 ADD COLUMN forced INT NULL AFTER v")
                            c.execute(f"UPDATE {db}.t2 SET forced = id % 89 WHERE id % 4 = 1")
            finally:
                workload.stop.set()
                writer.join()
            assert workload.error is None, workload.error
            injected = {"rest": dict(rest.counts), "s3": dict(s3.counts)}
            rest.enabled = s3.enabled = False
            with conn.cursor() as c:
                c.execute(f"INSERT INTO {db}.t1 (id, v) VALUES ({MARKER_ID}, 'the end')")
            logs.append(tmp_path / "final.log")
            proc = start_run(binary, pipeline, logs[-1])
            deadline = time.monotonic() + 300
            while not lake_has_marker(binary, direct, f"{db}.t1"):
                assert proc.poll() is None, f"floe run exited {proc.returncode}:\n{logs[-1].read_text()[-3000:]}"
                assert time.monotonic() < deadline, "the lake did not catch up in 5 minutes"
                time.sleep(1)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=120) == 0, logs[-1].read_text()[-3000:]

        texts = [log.read_text() for log in logs]
        unknown = sum(text.count(UNKNOWN) for text in texts)
        gave_up = sum(len(GAVE_UP.findall(text)) for text in texts)
        resumed = sum("resuming the capture" in text for text in texts)
        print(f"{killed} kills, {stopped} runs stopped on their own, {resumed} runs resumed from a "
              f"checkpoint, {workload.transactions} transactions, {len(workload.tables)} tables; "
              f"faults injected: {injected}, commits without an answer {dict(lost)}; {unknown} commits of unknown outcome met, "
              f"{unknown - gave_up} resolved by reloading, {gave_up} left unknown twice (the run stopped)")

        source = mirror_check.Mariadb(f"mariadb --no-defaults --protocol=socket --socket={SOCKET} -uroot", db)
        tables = source.tables()
        idents = [f"{db}.{table}" for table in tables]
        in_lake = {".".join(ident) for ident in direct.py_catalog().list_tables(db)}
        assert in_lake == set(idents), f"seed {seed}: the lake has tables {sorted(in_lake)}, MariaDB {idents}"
        java = java_rows(java_peer_s3, direct, idents)
        problems, by_pyiceberg = [], 0
        for table, ident in zip(tables, idents):
            columns = source.columns(table)
            names = [name for name, _ in columns]
            want = source.rows(table, columns)
            readers = [("Iceberg Java", java[ident]), ("PyIceberg", pyiceberg_rows(direct, ident))]
            for reader, records in readers:
                if records is None:
                    continue
                by_pyiceberg += reader == "PyIceberg"
                got, source_only, lake_only = mirror_check.to_rows(records, names)
                differences = mirror_check.compare(want, got, names)
                if source_only or lake_only:
                    differences.insert(0, f"columns only in MariaDB {source_only}, only in the lake {lake_only}")
                problems += [f"{ident} ({reader}): {d}" for d in differences]
            commits = assert_no_checkpoint_twice(direct.metadata(ident), f"seed {seed}: {ident}")
            print(f"{ident}: {len(want)} rows, {commits} commits")
        print(f"Iceberg Java read {len(idents)} tables, PyIceberg {by_pyiceberg}; "
              f"{time.monotonic() - started:.0f} s")
        assert not problems, f"seed {seed}, faults {injected}:\n" + "\n".join(problems[:30])
        assert "forced" in [name for name, _ in source.columns("t2")]
        assert resumed >= killed // 2, f"only {resumed} of {killed} runs resumed from a checkpoint"
        assert injected["rest"].get("lost-answer", 0) + injected["rest"].get("lost-request", 0) >= 2, injected
        assert sum(injected["s3"].values()) >= 2, injected
        assert unknown - gave_up >= 1, f"no commit of unknown outcome was resolved (faults {injected})"
    finally:
        workload.stop.set()
        with conn.cursor() as c:
            c.execute(f"DROP DATABASE IF EXISTS {db}")
        conn.close()
        drop_namespace(direct, db)


def drop_namespace(lake: S3Lake, namespace: str) -> None:
    """Drops the test's tables from the REST server: every start of a floe run or ingest
    there loads every table of the catalog, so tables left behind slow the other tests."""
    try:
        catalog = lake.py_catalog()
        for ident in catalog.list_tables(namespace):
            catalog.drop_table(ident)
        catalog.drop_namespace(namespace)
    except Exception as e:  # noqa: BLE001 - a failed clean-up must not hide the test's outcome
        print(f"could not drop namespace {namespace}: {e}")
