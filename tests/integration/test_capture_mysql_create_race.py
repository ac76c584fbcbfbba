"""`floe capture mysql --startup initial` while tables are being created: every
table is either in the snapshot or has its CREATE TABLE in the stream, and
every row appears exactly once.

Capture used to list the tables before it took the stream's start position,
so a table created in between was in neither the snapshot nor the stream
(its rows were lost, and ingest later stopped at the first delete for it).
Now the position comes first; a table created after it that the listing also
saw gets its rows from the snapshot once (the snapshot filter drops the
stream's copy) and its CREATE TABLE from the stream replaces the listed
schema instead of failing as "already exists".

Needs a MariaDB from scripts/services/mariadb.sh (FLOE_TEST_MYSQL_HOST/PORT/
USER/PASSWORD) and build/floe (FLOE_BIN overrides). Skipped only when
FLOE_TEST_MYSQL_PORT is unset.
"""
import json
import os
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

pymysql = pytest.importorskip("pymysql")

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_MYSQL_PORT")
HOST = os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")
USER = os.environ.get("FLOE_TEST_MYSQL_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe")
pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")

EARLY = 20  # tables that exist before capture starts
LATE = 30   # tables created (with a row each) while capture starts
RUNS = 5


def connect():
    return pymysql.connect(host=HOST, port=int(PORT), user=USER, password=PASSWORD,
                           autocommit=True)


def records(path):
    text = Path(path).read_text()
    out = []
    for line in text[:text.rfind("\n") + 1].splitlines():
        if line.strip():
            rec = json.loads(line)
            if rec.get("op") in ("r", "c", "u", "d"):
                out.append(rec)
    return out


def row_counts(path, prefix):
    """{table: number of row events carrying its row} for the run's tables."""
    counts = Counter()
    for rec in records(path):
        table = rec["source"]["table"]
        if table.startswith(prefix) and rec.get("after"):
            counts[table] += 1
    return counts


@pytest.mark.parametrize("run", range(RUNS))
def test_tables_created_while_the_snapshot_starts_appear_once(run, tmp_path):
    if not FLOE.exists():
        pytest.fail(f"{FLOE} not built")
    prefix = f"race{int(time.time() * 1000) % 10**8}_{run}_"
    names = [f"{prefix}{k:02d}" for k in range(EARLY + LATE)]
    admin = connect()
    # Some tables exist before capture starts: reading their schemas takes
    # the time in which the others are created.
    with admin.cursor() as c:
        for name in names[:EARLY]:
            c.execute(f"CREATE TABLE floe_test.{name} (id INT PRIMARY KEY, v INT)")
            c.execute(f"INSERT INTO floe_test.{name} VALUES (1, 1)")
    started = threading.Event()

    def create_tables():
        w = connect()
        with w.cursor() as c:
            for k, name in enumerate(names[EARLY:]):
                if k == 2:
                    started.set()
                c.execute(f"CREATE TABLE floe_test.{name} (id INT PRIMARY KEY, v INT)")
                c.execute(f"INSERT INTO floe_test.{name} VALUES (1, %s)", (k,))
                time.sleep(random.uniform(0, 0.01))
        started.set()

    out_path = tmp_path / "out.jsonl"
    err_path = tmp_path / "err.log"
    creator = threading.Thread(target=create_tables)
    creator.start()
    started.wait(timeout=30)
    env = dict(os.environ, FLOE_PW=PASSWORD)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = subprocess.Popen(
            [str(FLOE), "capture", "mysql", "--host", HOST, "--port", PORT, "--user", USER,
             "--password-env", "FLOE_PW", "--no-schema", "--startup", "initial",
             "--tables", rf"floe_test\.{prefix}.*",
             "--server-id", str(random.randint(90000, 99999) * 10)],
            stdout=out, stderr=err, env=env)
        creator.join()
        deadline = time.time() + 60
        while time.time() < deadline and p.poll() is None:
            if len(row_counts(out_path, prefix)) == len(names):
                break
            time.sleep(0.2)
        # Anything late (a duplicate) would come right after.
        time.sleep(1.0)
        exited = p.poll()
        if exited is None:
            p.send_signal(signal.SIGTERM)
            exited = p.wait(timeout=30)
    stderr = err_path.read_text(errors="replace")
    assert exited == 0, f"capture exited {exited}\n{stderr[-3000:]}"
    counts = row_counts(out_path, prefix)
    missing = [n for n in names if counts[n] == 0]
    repeated = {n: counts[n] for n in names if counts[n] > 1}
    assert not missing, f"{len(missing)} tables lost: {missing}\n{stderr[-2000:]}"
    assert not repeated, f"rows repeated: {repeated}"
    with admin.cursor() as c:
        for name in names:
            c.execute(f"DROP TABLE floe_test.{name}")
