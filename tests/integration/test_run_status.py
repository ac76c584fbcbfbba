"""`floe run` with `pipeline.http`: /metrics, /status and the status page over HTTP (issue 10).

A pipeline mirrors a small database of its own on the test MariaDB; after the initial
snapshot the test makes a known set of inserts, updates and deletes (and creates a
table), then reads the endpoint: /metrics must parse as the Prometheus text format with
the per-table counters equal to the changes made and a small freshness, /status must
hold every table with the same numbers, and / must be an HTML page naming the tables.

Needs the MariaDB of scripts/services/mariadb.sh: floe connects as FLOE_TEST_MYSQL_USER;
the changes are made as root over the server's socket. Skipped only when
FLOE_TEST_MYSQL_PORT is unset.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pymysql = pytest.importorskip("pymysql")

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_MYSQL_PORT")
SOCKET = Path(os.environ.get("FLOE_TEST_MYSQL_SOCKET", ROOT / ".cache" / "mariadb" / "mariadb.sock"))
DB = "floe_run_status"

pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_prometheus(text: str) -> dict[tuple[str, tuple], float]:
    """The samples of a Prometheus text page, (name, sorted labels) -> value.

    Fails on anything the text format does not allow, a sample whose family has no
    HELP and TYPE line before it, a counter not named *_total, or a name without the
    floe_ prefix."""
    assert text.endswith("\n")
    helps: set[str] = set()
    types: dict[str, str] = {}
    samples: dict[tuple[str, tuple], float] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert help_text, line
            helps.add(name)
            continue
        if line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert kind in ("counter", "gauge"), line
            assert name not in types, f"two TYPE lines for {name}"
            types[name] = kind
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        name, _, label_text, value = m.groups()
        assert name in helps and name in types, f"{name}: no HELP/TYPE before its samples"
        assert name.startswith("floe_"), name
        if types[name] == "counter":
            assert name.endswith("_total"), name
        labels = []
        if label_text:
            rest = label_text
            while rest:
                lm = LABEL.match(rest)
                assert lm, f"bad labels in {line!r}"
                labels.append((lm.group(1), lm.group(2).replace('\\"', '"').replace("\\\\", "\\")))
                rest = rest[lm.end():]
        key = (name, tuple(sorted(labels)))
        assert key not in samples, f"sample twice: {line}"
        samples[key] = float(value)
    return samples


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def root_connection():
    return pymysql.connect(unix_socket=str(SOCKET), user="root", autocommit=True)


def write_pipeline(path: Path, lake: Path, http_port: int) -> None:
    path.write_text(f"""
source:
  type: mysql
  hostname: {os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")}
  port: {PORT}
  username: {os.environ.get("FLOE_TEST_MYSQL_USER", "floe")}
  password: ${{FLOE_TEST_MYSQL_PASSWORD}}
  tables: {DB}.\\.*
  server-id: {random.randint(60000, 69899)}
sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///{lake}/catalog.db", warehouse: "{lake}/warehouse"}}
pipeline:
  name: status-test
  checkpoint.interval: 300ms
  state.dir: {lake}/state
  http: 127.0.0.1:{http_port}
""")


def start_run(pipeline: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, FLOE_TEST_MYSQL_PASSWORD=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    with open(log, "w") as err:
        return subprocess.Popen([str(FLOE), "run", str(pipeline), "--progress", "never"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)


def wait_for(what: str, check, proc: subprocess.Popen, log: Path, timeout: float = 90):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"floe run exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
        try:
            last = check()
            if last:
                return last
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}; last: {last}\n{log.read_text()[-3000:]}")


def committed(samples, table: str) -> dict[str, float]:
    return {op: samples.get(("floe_table_rows_committed_total", (("op", op), ("table", table))), -1)
            for op in ("insert", "update", "delete", "read")}


def test_run_serves_metrics_status_and_page(tmp_path):
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")
    if not SOCKET.exists():
        pytest.skip(f"no MariaDB socket at {SOCKET}")
    conn = root_connection()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        c.execute(f"CREATE TABLE {DB}.a (id INT PRIMARY KEY, v VARCHAR(20))")
        c.execute(f"CREATE TABLE {DB}.b (id INT PRIMARY KEY, n BIGINT)")
        c.executemany(f"INSERT INTO {DB}.a VALUES (%s, %s)", [(i, f"a{i}") for i in range(1, 6)])
        c.executemany(f"INSERT INTO {DB}.b VALUES (%s, %s)", [(i, i) for i in range(1, 4)])

    lake = tmp_path / "lake"
    lake.mkdir()
    http_port = free_port()
    pipeline = tmp_path / "status.yaml"
    write_pipeline(pipeline, lake, http_port)
    log = tmp_path / "run.log"
    base = f"http://127.0.0.1:{http_port}"
    proc = start_run(pipeline, log)
    try:
        # The initial snapshot: its rows are committed as op "read".
        def snapshot_committed():
            s = parse_prometheus(get(base + "/metrics")[2])
            return (s.get(("floe_snapshot_running", ())) == 0
                    and committed(s, f"{DB}.a")["read"] == 5 and committed(s, f"{DB}.b")["read"] == 3)
        wait_for("the snapshot's commit", snapshot_committed, proc, log)

        with conn.cursor() as c:
            c.executemany(f"INSERT INTO {DB}.a VALUES (%s, %s)", [(i, f"a{i}") for i in range(6, 10)])
            c.execute(f"UPDATE {DB}.a SET v = 'changed' WHERE id IN (1, 2)")
            c.execute(f"DELETE FROM {DB}.a WHERE id = 3")
            c.executemany(f"INSERT INTO {DB}.b VALUES (%s, %s)", [(10, 10), (11, 11)])
            c.execute(f"UPDATE {DB}.b SET n = n + 1")  # 5 rows
            c.execute(f"DELETE FROM {DB}.b WHERE id IN (1, 10)")
            c.execute(f"CREATE TABLE {DB}.c (id INT PRIMARY KEY, t TEXT)")
            c.execute(f"INSERT INTO {DB}.c VALUES (1, 'x'), (2, 'y')")
        expected = {
            f"{DB}.a": {"insert": 4, "update": 2, "delete": 1, "read": 5},
            f"{DB}.b": {"insert": 2, "update": 5, "delete": 2, "read": 3},
            f"{DB}.c": {"insert": 2, "update": 0, "delete": 0, "read": 0},
        }

        def all_committed():
            status, content_type, text = get(base + "/metrics")
            assert status == 200 and content_type.startswith("text/plain"), content_type
            s = parse_prometheus(text)
            got = {t: committed(s, t) for t in expected}
            return s if got == expected else None
        samples = wait_for("the changes' commits", all_committed, proc, log)

        for table, ops in expected.items():
            label = (("table", table),)
            for op, n in ops.items():
                assert samples[("floe_table_changes_read_total", (("op", op), ("table", table)))] == n
            freshness = samples[("floe_table_freshness_seconds", label)]
            assert 0 <= freshness < 30, (table, freshness)
            assert samples[("floe_table_commits_total", label)] >= 1
            assert samples[("floe_table_last_checkpoint_id", label)] >= 1
            assert samples[("floe_table_last_snapshot_id", label)] != 0
            assert samples[("floe_table_last_commit_duration_seconds", label)] >= 0
        assert 0 <= samples[("floe_source_lag_seconds", ())] < 60
        assert samples[("floe_checkpoints_completed_total", ())] >= 1
        assert samples[("floe_process_resident_memory_bytes", ())] > 1 << 20
        assert samples[("floe_pipeline_failed", ())] == 0
        info = [k for k in samples if k[0] == "floe_pipeline_info"]
        assert len(info) == 1
        labels = dict(info[0][1])
        assert labels["pipeline"] == "status-test"
        assert re.fullmatch(r".+\.\d+:\d+.*", labels["position"]), labels

        status, content_type, text = get(base + "/status")
        assert status == 200 and content_type.startswith("application/json")
        doc = json.loads(text)
        assert doc["pipeline"] == "status-test"
        assert doc["state"] == "streaming"
        assert doc["error"] is None, doc["error"]
        assert set(doc["tables"]) == set(expected)
        for table, ops in expected.items():
            assert doc["tables"][table]["rows_committed"] == ops
            assert doc["tables"][table]["freshness_seconds"] is not None
        assert doc["source"]["position"] == labels["position"]

        status, content_type, html = get(base + "/")
        assert status == 200 and content_type.startswith("text/html")
        assert html.lstrip().lower().startswith("<!doctype html>")
        assert 'http-equiv="refresh"' in html
        for table in expected:
            assert f"<td>{table}</td>" in html
        assert "src=\"http" not in html and "href=\"http" not in html  # no external assets

        with pytest.raises(urllib.error.HTTPError) as missing:
            get(base + "/nothing")
        assert missing.value.code == 404
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        conn.close()
    assert proc.returncode == 0, log.read_text()[-3000:]


def test_run_refuses_an_http_address_in_use(tmp_path):
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        lake = tmp_path / "lake"
        lake.mkdir()
        pipeline = tmp_path / "busy.yaml"
        write_pipeline(pipeline, lake, port)
        env = dict(os.environ, FLOE_TEST_MYSQL_PASSWORD=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
        proc = subprocess.run([str(FLOE), "run", str(pipeline), "--progress", "never"], capture_output=True,
                              text=True, timeout=60, env=env)
    assert proc.returncode == 1, proc.stderr
    assert f"127.0.0.1:{port}" in proc.stderr and "cannot bind" in proc.stderr, proc.stderr
