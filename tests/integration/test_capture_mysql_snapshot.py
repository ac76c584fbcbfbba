"""`floe capture mysql`: the incremental (watermark) snapshot under concurrent
writes, GTID start, and resume after a server restart.

Needs a MariaDB from scripts/services/mariadb.sh (FLOE_TEST_MYSQL_HOST/PORT/
USER/PASSWORD) and build/floe (FLOE_BIN overrides). Skipped only when
FLOE_TEST_MYSQL_PORT is unset. The restart test stops and starts the server
with scripts/services/mariadb.sh and leaves it running.
"""
import json
import os
import random
import re
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
HOST = os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")
USER = os.environ.get("FLOE_TEST_MYSQL_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe")
pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")


def connect():
    return pymysql.connect(host=HOST, port=int(PORT), user=USER, password=PASSWORD,
                           autocommit=True)


def floe(args, out, err=subprocess.DEVNULL):
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")
    env = dict(os.environ, FLOE_PW=PASSWORD)
    return subprocess.Popen(
        [str(FLOE), "capture", "mysql", "--host", HOST, "--port", PORT, "--user", USER,
         "--password-env", "FLOE_PW", "--no-schema",
         "--server-id", str(random.randint(80000, 89999) * 10)] + args,
        stdout=out, stderr=err, env=env)


def records(path):
    out = []
    text = Path(path).read_text()
    # While floe runs the last line may be half written: only whole lines count.
    for line in text[:text.rfind("\n") + 1].splitlines():
        if line.strip():
            rec = json.loads(line)
            if "op" in rec:
                out.append(rec)
    return out


def apply(model, rec, key="id"):
    """Applies one Debezium record to {key: after}."""
    op = rec["op"]
    if op in ("r", "c"):
        model[rec["after"][key]] = rec["after"]
    elif op == "u":
        if rec["before"][key] != rec["after"][key]:
            model.pop(rec["before"][key], None)
        model[rec["after"][key]] = rec["after"]
    elif op == "d":
        model.pop(rec["before"][key], None)


def wait_for(path, predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate(records(path)):
            return True
        time.sleep(0.2)
    return False


def snapshot_of(table, tmp_path, name):
    """The table as a fresh floe snapshot prints it: {id: after}."""
    path = tmp_path / f"{name}.jsonl"
    with open(path, "wb") as out:
        p = floe(["--tables", rf"floe_test\.{table}", "--startup", "initial"], out)
        ok = wait_for(path, lambda rs: any(r["source"].get("snapshot") == "last_in_data_collection"
                                           for r in rs), 120)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    assert ok, "the reference snapshot did not finish"
    model = {}
    for r in records(path):
        apply(model, r)
    return model


def test_snapshot_with_concurrent_writes_equals_final_table(tmp_path):
    """200k rows, 4 chunk readers, 5000-row chunks, while another connection
    updates, inserts, deletes and changes keys in multi-statement
    transactions: the snapshot plus the stream, applied in order, equals the
    final table; and some chunks were reconciled with their binlog window."""
    rows = 200_000
    table = f"isnap_{int(time.time() * 1000) % 10**9}"
    db = connect()
    with db.cursor() as c:
        c.execute("SET SESSION max_recursive_iterations = 1000000")
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v BIGINT, "
                  f"s VARCHAR(40), d DECIMAL(12,3))")
        c.execute(f"INSERT INTO floe_test.{table} WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL "
                  f"SELECT n + 1 FROM seq WHERE n < {rows}) "
                  f"SELECT n, n * 3, CONCAT('row-', n), n / 7 FROM seq")
    out_path = tmp_path / "capture.jsonl"
    err_path = tmp_path / "capture.log"
    stop = threading.Event()
    transactions = [0]

    def writer():
        w = connect()
        rng = random.Random(7)
        with w.cursor() as c:
            while not stop.is_set():
                c.execute("BEGIN")
                for _ in range(5):
                    i = rng.randint(1, rows + 20_000)
                    kind = rng.random()
                    if kind < 0.4:
                        c.execute(f"UPDATE floe_test.{table} SET v = v + 1, s = %s WHERE id = %s",
                                  (f"upd-{transactions[0]}", i))
                    elif kind < 0.65:
                        c.execute(f"INSERT INTO floe_test.{table} VALUES (%s, %s, 'ins', 1.5) "
                                  f"ON DUPLICATE KEY UPDATE d = d + 1", (i, transactions[0]))
                    elif kind < 0.9:
                        c.execute(f"DELETE FROM floe_test.{table} WHERE id = %s", (i,))
                    else:
                        # A key change, often across chunks.
                        c.execute(f"UPDATE IGNORE floe_test.{table} SET id = %s WHERE id = %s",
                                  (rng.randint(1, rows + 20_000), i))
                c.execute("COMMIT")
                transactions[0] += 1

    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = floe(["--tables", rf"floe_test\.{table}", "--startup", "initial", "--chunk-rows", "5000",
                  "--snapshot-parallelism", "4", "--state", str(tmp_path / "state.json")], out, err)
        t = threading.Thread(target=writer)
        t.start()
        try:
            done = wait_for(out_path, lambda rs: any(
                r["source"].get("snapshot") == "last_in_data_collection" for r in rs), 300)
            time.sleep(1.0)  # a little more streaming after the snapshot
        finally:
            stop.set()
            t.join()
        assert done, "the snapshot did not finish: " + err_path.read_text()[-2000:]
        with db.cursor() as c:
            c.execute(f"INSERT INTO floe_test.{table} VALUES (-1, 0, 'sentinel', 0)")
        seen = wait_for(out_path, lambda rs: any(r.get("after") and r["after"]["id"] == -1
                                                 for r in rs), 60)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    assert seen, "the stream did not reach the end of the workload"
    log = err_path.read_text()
    m = re.search(r"(\d+) rows in (\d+) chunks \((\d+) reconciled", log)
    assert m, log[-2000:]
    assert int(m.group(2)) >= rows // 5000
    # The writer ran during the snapshot: some chunk windows had its events.
    assert transactions[0] > 0
    assert int(m.group(3)) > 0, f"no chunk was reconciled ({transactions[0]} transactions): {m.group(0)}"

    model = {}
    for r in records(out_path):
        apply(model, r)
    with db.cursor() as c:
        c.execute(f"SELECT id FROM floe_test.{table}")
        ids = {row[0] for row in c.fetchall()}
    assert set(model) == ids, (f"{len(set(model) - ids)} extra, {len(ids - set(model))} missing, "
                               f"e.g. {sorted(set(model) ^ ids)[:10]}")
    reference = snapshot_of(table, tmp_path, "reference")
    assert reference.keys() == ids
    wrong = [k for k in ids if model[k] != reference[k]]
    assert not wrong, f"{len(wrong)} rows differ, e.g. {[(model[k], reference[k]) for k in wrong[:3]]}"
    with db.cursor() as c:
        c.execute(f"DROP TABLE floe_test.{table}")


def test_snapshot_composite_key_and_no_key_tables(tmp_path):
    """A composite (INT, DATE) key is chunked; a table without a key and one
    with a string key are read whole (and logged as such); all equal SELECT."""
    suffix = int(time.time() * 1000) % 10**9
    db = connect()
    with db.cursor() as c:
        c.execute(f"CREATE TABLE floe_test.ck_{suffix} (a INT, b DATE, v INT, PRIMARY KEY (a, b))")
        c.execute(f"CREATE TABLE floe_test.nk_{suffix} (a INT, v VARCHAR(10))")
        c.execute(f"CREATE TABLE floe_test.sk_{suffix} (k VARCHAR(10) PRIMARY KEY, v INT)")
        for a in range(50):
            c.executemany(f"INSERT INTO floe_test.ck_{suffix} VALUES (%s, %s, %s)",
                          [(a, f"2024-01-{d:02d}", a * 100 + d) for d in range(1, 29)])
        c.executemany(f"INSERT INTO floe_test.nk_{suffix} VALUES (%s, %s)",
                      [(i % 7, f"x{i}") for i in range(300)])
        c.executemany(f"INSERT INTO floe_test.sk_{suffix} VALUES (%s, %s)",
                      [(f"k{i}", i) for i in range(300)])
    out_path = tmp_path / "out.jsonl"
    err_path = tmp_path / "err.log"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = floe(["--tables", rf"floe_test\.(ck|nk|sk)_{suffix}", "--chunk-rows", "97",
                  "--snapshot-parallelism", "3"], out, err)
        ok = wait_for(out_path, lambda rs: sum(r["source"].get("snapshot") == "last_in_data_collection"
                                               for r in rs) == 3, 60)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    assert ok, err_path.read_text()[-2000:]
    log = err_path.read_text()
    assert f"nk_{suffix} has no primary key" in log
    assert f"sk_{suffix}: its primary key has columns" in log
    by_table = {}
    for r in records(out_path):
        assert r["op"] == "r"
        by_table.setdefault(r["source"]["table"], []).append(r["after"])
    ck = by_table[f"ck_{suffix}"]
    assert len(ck) == 50 * 28
    assert len({(x["a"], x["b"]) for x in ck}) == 50 * 28
    assert sorted(x["v"] for x in ck) == sorted(a * 100 + d for a in range(50) for d in range(1, 29))
    assert sorted(x["v"] for x in by_table[f"nk_{suffix}"]) == sorted(f"x{i}" for i in range(300))
    assert sorted(x["v"] for x in by_table[f"sk_{suffix}"]) == list(range(300))
    with db.cursor() as c:
        for t in ("ck", "nk", "sk"):
            c.execute(f"DROP TABLE floe_test.{t}_{suffix}")


def test_mariadb_gtid_start_streams_exactly_the_later_transactions(tmp_path):
    table = f"gtid_{int(time.time() * 1000) % 10**9}"
    db = connect()
    with db.cursor() as c:
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v INT)")
        c.execute(f"INSERT INTO floe_test.{table} VALUES (1, 1), (2, 2)")
        c.execute("SELECT @@GLOBAL.gtid_binlog_pos")
        start = c.fetchone()[0]
        for i in range(3, 13):
            c.execute(f"INSERT INTO floe_test.{table} VALUES (%s, %s)", (i, i))
        c.execute(f"UPDATE floe_test.{table} SET v = 100 WHERE id = 1")
    out_path = tmp_path / "out.jsonl"
    with open(out_path, "wb") as out:
        p = floe(["--tables", rf"floe_test\.{table}", "--startup", f"gtid:{start}"], out)
        ok = wait_for(out_path, lambda rs: len(rs) >= 11, 30)
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    assert ok
    recs = records(out_path)
    assert [r["after"]["id"] for r in recs if r["op"] == "c"] == list(range(3, 13))
    assert [(r["before"]["id"], r["after"]["v"]) for r in recs if r["op"] == "u"] == [(1, 100)]
    assert len(recs) == 11
    # Every event names its transaction's GTID, after the start position.
    domain, server, seq = (int(x) for x in start.split(",")[0].split("-"))
    for r in recs:
        d, s, n = (int(x) for x in r["source"]["gtid"].split("-"))
        assert d == domain and n > seq
    with db.cursor() as c:
        c.execute(f"DROP TABLE floe_test.{table}")


def test_mysql_gtid_set_on_mariadb_says_why(tmp_path):
    err_path = tmp_path / "err.log"
    with open(tmp_path / "out.jsonl", "wb") as out, open(err_path, "wb") as err:
        p = floe(["--tables", r"floe_test\.none", "--startup",
                  "gtid:3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"], out, err)
        assert p.wait(timeout=30) == 1
    msg = err_path.read_text()
    assert "is MariaDB" in msg and "MySQL set" in msg and "gtid_binlog_pos" in msg, msg


def mariadb_service(action):
    subprocess.run([str(ROOT / "scripts" / "services" / "mariadb.sh"), action], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


# It stops and starts the test MariaDB, which every MySQL test file shares.
@pytest.mark.serial
def test_capture_survives_a_server_restart_without_loss_or_duplicates(tmp_path):
    """Rows 1..300 are committed while floe streams, the server is stopped
    right after the last commit and started again, rows 301..600 follow: floe
    (the same process) reconnects and resumes at its last transaction
    boundary; every row arrives exactly once. Leaves the server running."""
    table = f"restart_{int(time.time() * 1000) % 10**9}"
    db = connect()
    with db.cursor() as c:
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v VARCHAR(20))")
    db.close()
    out_path = tmp_path / "out.jsonl"
    err_path = tmp_path / "err.log"

    def write(lo, hi):
        w = connect()
        with w.cursor() as c:
            for start in range(lo, hi, 3):
                c.execute("BEGIN")
                for i in range(start, min(start + 3, hi)):
                    c.execute(f"INSERT INTO floe_test.{table} VALUES (%s, %s)", (i, f"v{i}"))
                c.execute("COMMIT")
        w.close()

    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = floe(["--tables", rf"floe_test\.{table}", "--startup", "latest",
                  "--state", str(tmp_path / "state.json")], out, err)
        try:
            time.sleep(1.5)
            write(1, 301)
            mariadb_service("stop")
            time.sleep(1.0)
            assert p.poll() is None, "floe exited when the server stopped: " + err_path.read_text()
        finally:
            mariadb_service("start")
        write(301, 601)
        ok = wait_for(out_path, lambda rs: any(r["after"] and r["after"]["id"] == 600 for r in rs), 60)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    log = err_path.read_text()
    assert ok, log[-2000:]
    ids = [r["after"]["id"] for r in records(out_path) if r["op"] == "c"]
    assert sorted(ids) == list(range(1, 601)), (
        f"missing {sorted(set(range(1, 601)) - set(ids))[:10]}, "
        f"{len(ids) - len(set(ids))} duplicates")
    assert "reconnecting" in log or "resuming from" in log, log[-2000:]
    db = connect()
    with db.cursor() as c:
        c.execute(f"DROP TABLE floe_test.{table}")
