"""`floe capture mysql --state` killed with SIGKILL and restarted leaves no gap.

Needs a MariaDB from scripts/services/mariadb.sh (FLOE_TEST_MYSQL_HOST/PORT/
USER/PASSWORD) and build/floe (FLOE_BIN overrides). Skipped only when
FLOE_TEST_MYSQL_PORT is unset.

The workload inserts rows 1..N in small transactions while floe runs; floe is
killed (-9) at random moments and restarted with the same state file. Every
row must appear in the union of the outputs (no gap); duplicates are allowed
only for the transaction whose lines were printed before its state was
written (at-least-once on stdout), and are counted.
"""
import json
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

pymysql = pytest.importorskip("pymysql")

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_MYSQL_PORT")
pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")


def connect():
    return pymysql.connect(host=os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1"),
                           port=int(PORT), user=os.environ.get("FLOE_TEST_MYSQL_USER", "floe"),
                           password=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"),
                           autocommit=True)


def start_floe(table, state, out):
    env = dict(os.environ, FLOE_PW=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    return subprocess.Popen(
        [str(FLOE), "capture", "mysql", "--host", os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1"),
         "--port", PORT, "--user", os.environ.get("FLOE_TEST_MYSQL_USER", "floe"),
         "--password-env", "FLOE_PW", "--tables", rf"floe_test\.{table}", "--state", str(state),
         "--no-schema", "--server-id", str(random.randint(70000, 79899))],
        stdout=out, stderr=subprocess.DEVNULL, env=env)


def test_sigkill_and_restart_leaves_no_gap(tmp_path):
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")
    table = f"kill_{int(time.time() * 1000) % 10**9}"
    db = connect()
    with db.cursor() as c:
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v VARCHAR(20))")
        c.execute(f"INSERT INTO floe_test.{table} VALUES (0, 'seed')")
    state = tmp_path / "state.json"
    outputs = []
    total = 600

    def workload():
        w = connect()
        with w.cursor() as c:
            for start in range(1, total + 1, 3):
                c.execute("BEGIN")
                for i in range(start, min(start + 3, total + 1)):
                    c.execute(f"INSERT INTO floe_test.{table} VALUES (%s, %s)", (i, f"v{i}"))
                c.execute("COMMIT")
                time.sleep(0.005)

    writer = threading.Thread(target=workload)
    writer.start()
    kills = 0
    while writer.is_alive() or kills < 3:
        path = tmp_path / f"out{len(outputs)}.jsonl"
        outputs.append(path)
        with open(path, "wb") as out:
            p = start_floe(table, state, out)
            time.sleep(random.uniform(0.5, 1.5))
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
    writer.join()
    # A final run that catches up, then stops.
    path = tmp_path / "final.jsonl"
    outputs.append(path)
    with open(path, "wb") as out:
        p = start_floe(table, state, out)
        deadline = time.time() + 20
        while time.time() < deadline:
            time.sleep(0.5)
            seen = set()
            for o in outputs:
                for line in o.read_text().splitlines():
                    if line.strip():
                        rec = json.loads(line)
                        if rec.get("after"):
                            seen.add(rec["after"]["id"])
            if all(i in seen for i in range(1, total + 1)):
                break
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)

    ids = []
    for o in outputs:
        for line in o.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec.get("op") in ("c", "r") and rec.get("after"):
                    ids.append(rec["after"]["id"])
    missing = [i for i in range(0, total + 1) if i not in set(ids)]
    assert not missing, f"rows lost across SIGKILL restarts: {missing[:20]}"
    duplicates = len(ids) - len(set(ids))
    # At most one transaction (3 rows) can repeat per kill.
    assert duplicates <= 3 * kills, f"{duplicates} duplicate rows after {kills} kills"
    with db.cursor() as c:
        c.execute(f"DROP TABLE floe_test.{table}")
