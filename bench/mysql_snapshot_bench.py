"""Initial snapshot of a MySQL/MariaDB table by `floe capture mysql`.

Creates (once) floe_test.bench_snapshot_<rows> on the server of
scripts/services/mariadb.sh (INT primary key, BIGINT, VARCHAR(40), DECIMAL(12,3),
DATETIME(6)), then for each parallelism runs

    floe capture mysql --startup initial --no-schema --chunk-rows N
                       --snapshot-parallelism P > /dev/null

until the snapshot's summary line appears on its standard error, stops it
with SIGTERM and prints wall time to the summary, rows/s, floe's CPU seconds
(the child's rusage: user + system, all threads) and the server's CPU seconds
(mariadbd's /proc stat before and after). With --writes, another connection
updates random rows in 5-row transactions during the snapshot (the chunks'
binlog windows then have events to reconcile).

    scripts/services/mariadb.sh start
    .cache/venv/bin/python bench/mysql_snapshot_bench.py --floe build/floe
    .cache/venv/bin/python bench/mysql_snapshot_bench.py --rows 1000000 --parallelism 1,2,4 --writes
"""
import argparse
import os
import random
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pymysql

ROOT = Path(__file__).resolve().parents[1]
HOST = os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")
PORT = int(os.environ.get("FLOE_TEST_MYSQL_PORT", "3307"))
USER = os.environ.get("FLOE_TEST_MYSQL_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe")


def connect():
    return pymysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, autocommit=True)


def server_cpu():
    pid_file = ROOT / ".cache" / "mariadb" / "mariadb.pid"
    try:
        fields = Path(f"/proc/{pid_file.read_text().strip()}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def ensure_table(rows):
    table = f"bench_snapshot_{rows}"
    db = connect()
    with db.cursor() as c:
        c.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'floe_test' "
                  "AND TABLE_NAME = %s", (table,))
        if c.fetchone()[0]:
            c.execute(f"SELECT COUNT(*) FROM floe_test.{table}")
            if c.fetchone()[0] == rows:
                return table
            c.execute(f"DROP TABLE floe_test.{table}")
        print(f"creating floe_test.{table} ({rows} rows)...", flush=True)
        c.execute("SET SESSION max_recursive_iterations = 100000000")
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v BIGINT, s VARCHAR(40), "
                  f"d DECIMAL(12,3), t DATETIME(6))")
        step = 200_000
        for lo in range(0, rows, step):
            hi = min(lo + step, rows)
            c.execute(f"INSERT INTO floe_test.{table} WITH RECURSIVE seq(n) AS (SELECT {lo + 1} "
                      f"UNION ALL SELECT n + 1 FROM seq WHERE n < {hi}) SELECT n, n * 3, "
                      f"CONCAT('row-', n), n / 7, TIMESTAMPADD(SECOND, n, '2024-01-01 00:00:00.123456') "
                      f"FROM seq")
    return table


def run(floe, table, rows, parallelism, chunk_rows, writes):
    stop = threading.Event()
    written = [0]

    def writer():
        w = connect()
        rng = random.Random(1)
        with w.cursor() as c:
            while not stop.is_set():
                c.execute("BEGIN")
                for _ in range(5):
                    c.execute(f"UPDATE floe_test.{table} SET v = v + 1 WHERE id = %s",
                              (rng.randint(1, rows),))
                c.execute("COMMIT")
                written[0] += 1

    env = dict(os.environ, FLOE_PW=PASSWORD)
    cmd = [floe, "capture", "mysql", "--host", HOST, "--port", str(PORT), "--user", USER,
           "--password-env", "FLOE_PW", "--tables", rf"floe_test\.{table}", "--startup", "initial",
           "--no-schema", "--chunk-rows", str(chunk_rows), "--snapshot-parallelism",
           str(parallelism), "--server-id", str(random.randint(900000, 999999) * 10)]
    log_path = Path(f"/tmp/floe_snapshot_bench_{os.getpid()}.log")
    server_before = server_cpu()
    with open(os.devnull, "wb") as out, open(log_path, "wb") as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        t = threading.Thread(target=writer)
        if writes:
            t.start()
        summary = None
        while p.poll() is None:
            m = re.search(r"snapshot: (\d+) rows in (\d+) chunks \((\d+) reconciled", log_path.read_text())
            if m:
                summary = m
                break
            time.sleep(0.05)
        wall = time.monotonic() - start
        stop.set()
        if writes:
            t.join()
        p.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(p.pid, 0)
    server_after = server_cpu()
    if not summary:
        raise SystemExit("floe did not finish the snapshot:\n" + log_path.read_text()[-3000:])
    log_path.unlink()
    got = int(summary.group(1))
    cpu = usage.ru_utime + usage.ru_stime
    print(f"| {rows:,} | {parallelism} | {chunk_rows} | {'yes' if writes else 'no'} | {got:,} | "
          f"{wall:.1f} s | {got / wall / 1000:.0f}k | {cpu:.1f} s | {got / cpu / 1000:.0f}k | "
          f"{server_after - server_before:.1f} s | {summary.group(3)}/{summary.group(2)} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--floe", default=str(ROOT / "build" / "floe"))
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--parallelism", default="1,2,4")
    ap.add_argument("--chunk-rows", type=int, default=10_000)
    ap.add_argument("--writes", action="store_true")
    args = ap.parse_args()
    table = ensure_table(args.rows)
    print("| rows | readers | chunk rows | writes | rows read | wall | rows/s (wall) | floe CPU | "
          "rows/s per floe CPU s | server CPU | reconciled chunks |")
    print("|---:|---:|---:|:--:|---:|---:|---:|---:|---:|---:|---:|")
    for p in (int(x) for x in args.parallelism.split(",")):
        run(args.floe, table, args.rows, p, args.chunk_rows, args.writes)


if __name__ == "__main__":
    main()
