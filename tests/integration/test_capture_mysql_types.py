"""Column types through `floe capture mysql` against a real MariaDB.

- Signedness: MariaDB gives YEAR a bit in the TABLE_MAP signedness bitmap
  (MySQL 8 does not), and floe once followed MySQL's rule, so every integer
  after a YEAR took its neighbour's sign in streamed rows. Here every column
  type is placed before and after every integer column (signed and
  unsigned, alternating, with negative values and values with the top bit
  set); the streamed rows must hold the values inserted, and equal the rows
  the snapshot reads with SELECT.
- TIME is a signed duration up to +-838:59:59, not a time of day: captured and
  ingested, it is an Iceberg long of microseconds, in snapshot and streamed
  rows alike.

Needs a MariaDB from scripts/services/mariadb.sh (FLOE_TEST_MYSQL_HOST/PORT/
USER/PASSWORD) and build/floe (FLOE_BIN overrides). Skipped only when
FLOE_TEST_MYSQL_PORT is unset.
"""
import base64
import json
import os
import random
import signal
import subprocess
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


def floe_bin():
    if not FLOE.exists():
        pytest.fail(f"{FLOE} not built")
    return str(FLOE)


def start_capture(tables_regex, startup, out, err, schema=False):
    env = dict(os.environ, FLOE_PW=PASSWORD)
    args = [floe_bin(), "capture", "mysql", "--host", HOST, "--port", PORT, "--user", USER,
            "--password-env", "FLOE_PW", "--startup", startup, "--tables", tables_regex,
            "--server-id", str(random.randint(100000, 199999) * 10)]
    if not schema:
        args.append("--no-schema")
    return subprocess.Popen(args, stdout=out, stderr=err, env=env)


def records(path):
    text = Path(path).read_text()
    out = []
    for line in text[:text.rfind("\n") + 1].splitlines():
        if line.strip():
            rec = json.loads(line)
            payload = rec.get("payload", rec) if "schema" in rec else rec
            if payload.get("op") in ("r", "c", "u", "d"):
                out.append(payload)
    return out


def capture_until(tables_regex, startup, path, done, timeout=60, schema=False):
    """Runs capture until done(records) holds, then stops it with SIGTERM."""
    err_path = Path(str(path) + ".err")
    with open(path, "wb") as out, open(err_path, "wb") as err:
        p = start_capture(tables_regex, startup, out, err, schema)
        deadline = time.time() + timeout
        while time.time() < deadline and p.poll() is None:
            if done(records(path)):
                break
            time.sleep(0.2)
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        code = p.wait(timeout=30)
    stderr = err_path.read_text(errors="replace")
    assert code == 0, f"capture exited {code}\n{stderr[-3000:]}"
    return records(path), stderr


def binlog_position(conn):
    with conn.cursor() as c:
        c.execute("SHOW MASTER STATUS")
        row = c.fetchone()
    return f"{row[0]}:{row[1]}"


# --------------------------------------------------------------------------- signedness

# Integer columns, alternating signed and unsigned so that a bitmap shifted by
# one column gives each its neighbour's (opposite) flag.
INTEGERS = [
    ("ti", "TINYINT", -5, -128, 7),
    ("tu", "TINYINT UNSIGNED", 251, 255, 7),
    ("si", "SMALLINT", -7, -32768, 7),
    ("su", "SMALLINT UNSIGNED", 65529, 65535, 7),
    ("mi", "MEDIUMINT", -7, -8388608, 7),
    ("mu", "MEDIUMINT UNSIGNED", 16777209, 16777215, 7),
    ("ii", "INT", -7, -2147483648, 7),
    ("iu", "INT UNSIGNED", 4294967289, 4294967295, 7),
    ("bi", "BIGINT", -7, -9223372036854775808, 7),
    ("bu", "BIGINT UNSIGNED", 18446744073709551609, 18446744073709551615, 7),
]

# (column type, SQL expression of a value)
OTHER_TYPES = [(t, str(v1)) for _, t, v1, _, _ in INTEGERS] + [
    ("YEAR", "2001"),
    ("BIT(1)", "b'1'"),
    ("BIT(10)", "b'1000000001'"),
    ("BOOL", "-3"),
    ("DECIMAL(10,2)", "-1234.56"),
    ("DECIMAL(10,2) UNSIGNED", "1234.56"),
    ("DECIMAL(50,10)", "-12345678901234567890.0123456789"),
    ("FLOAT", "-1.5"),
    ("DOUBLE", "-2.25"),
    ("DATE", "'2024-02-29'"),
    ("TIME", "'-12:34:56'"),
    ("TIME(6)", "'-838:59:58.999999'"),
    ("DATETIME", "'2024-02-29 13:45:07'"),
    ("DATETIME(6)", "'2024-02-29 13:45:07.123456'"),
    ("TIMESTAMP(6) NULL", "'2024-02-29 13:45:07.654321'"),
    ("CHAR(5)", "'ab'"),
    ("VARCHAR(20)", "'h\u00e9llo'"),
    ("BINARY(4)", "x'0001'"),
    ("VARBINARY(8)", "x'00ff'"),
    ("TEXT", "'text'"),
    ("BLOB", "x'deadbeef'"),
    ("ENUM('a','b')", "'b'"),
    ("SET('a','b','c')", "'a,c'"),
    ("JSON", "'{\"a\": 1}'"),
    ("POINT", "ST_GeomFromText('POINT(1 2)')"),
]


def decoded(column, value):
    """A captured integer as a Python int (BIGINT UNSIGNED is a Connect Decimal)."""
    if column == "bu" and isinstance(value, str):
        return int.from_bytes(base64.b64decode(value), "big", signed=True)
    return value


def test_every_type_before_and_after_every_integer_streamed_and_snapshot(tmp_path):
    sfx = f"{int(time.time() * 1000) % 10**8}"
    prefix = f"sg{sfx}_"
    conn = connect()
    start = binlog_position(conn)
    ints = ", ".join(f"{name} {sql}" for name, sql, *_ in INTEGERS)
    tables = {}
    with conn.cursor() as c:
        for k, (sql_type, value) in enumerate(OTHER_TYPES):
            table = f"{prefix}{k:02d}"
            tables[table] = sql_type
            c.execute(f"CREATE TABLE floe_test.{table} (id BIGINT PRIMARY KEY, x1 {sql_type}, "
                      f"{ints}, x2 {sql_type}, z TINYINT)")
            names = ", ".join(name for name, *_ in INTEGERS)
            for row, pick in ((1, 2), (2, 3), (3, 4)):
                vals = ", ".join(str(i[pick]) for i in INTEGERS)
                x = "NULL" if row == 3 else value
                c.execute(f"INSERT INTO floe_test.{table} (id, x1, {names}, x2, z) "
                          f"VALUES ({row}, {x}, {vals}, {x}, -{row})")
    regex = rf"floe_test\.{prefix}.*"
    want = 3 * len(tables)

    streamed, err = capture_until(regex, start, tmp_path / "stream.jsonl",
                                  lambda rs: sum(r["op"] == "c" for r in rs) >= want)
    snapshot, err2 = capture_until(regex, "initial", tmp_path / "snapshot.jsonl",
                                   lambda rs: sum(r["op"] == "r" for r in rs) >= want)
    by_key = {}
    for r in streamed:
        assert r["op"] == "c", r
        by_key[(r["source"]["table"], r["after"]["id"])] = r["after"]
    read = {(r["source"]["table"], r["after"]["id"]): r["after"] for r in snapshot if r["op"] == "r"}
    assert len(by_key) == want, f"{len(by_key)} streamed rows of {want}\n{err[-2000:]}"
    assert len(read) == want, f"{len(read)} snapshot rows of {want}\n{err2[-2000:]}"
    problems = []
    for (table, row_id), after in sorted(by_key.items()):
        where = f"{tables[table]} table {table} row {row_id}"
        for name, _, v1, v2, v3 in INTEGERS:
            expected = {1: v1, 2: v2, 3: v3}[row_id]
            got = decoded(name, after[name])
            if got != expected:
                problems.append(f"{where}: streamed {name} = {got}, inserted {expected}")
        if after["z"] != -row_id:
            problems.append(f"{where}: streamed z = {after['z']}, inserted {-row_id}")
        if after != read[(table, row_id)]:
            diff = {k: (after[k], read[(table, row_id)].get(k)) for k in after
                    if after[k] != read[(table, row_id)].get(k)}
            problems.append(f"{where}: streamed != snapshot (streamed, snapshot): {diff}")
    assert not problems, "\n".join(problems[:40])
    with conn.cursor() as c:
        for table in tables:
            c.execute(f"DROP TABLE floe_test.{table}")


# --------------------------------------------------------------------------- TIME

TIME_VALUES = [
    (1, "25:00:00", 25 * 3600 * 10**6),
    (2, "-838:59:59", -(838 * 3600 + 59 * 60 + 59) * 10**6),
    (3, "838:59:59", (838 * 3600 + 59 * 60 + 59) * 10**6),
    (4, "00:00:00.5", 500000),
    (5, "-00:00:01.25", -1250000),
    (6, None, None),
]


def write_catalog(tmp_path):
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    config = tmp_path / "floe.yaml"
    config.write_text(f'catalog:\n  default:\n    type: hadoop\n    warehouse: "{warehouse}"\n')
    return config


def test_time_outside_a_day_is_a_long_through_capture_and_ingest(tmp_path):
    sfx = f"{int(time.time() * 1000) % 10**8}"
    snap_table, stream_table = f"tm{sfx}_snap", f"tm{sfx}_stream"
    conn = connect()

    def create_and_fill(table):
        with conn.cursor() as c:
            c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, t TIME(6) NULL, "
                      f"t0 TIME NULL)")
            for row_id, text, _ in TIME_VALUES:
                t0 = None if text is None else text.split(".")[0]
                c.execute(f"INSERT INTO floe_test.{table} VALUES (%s, %s, %s)", (row_id, text, t0))

    create_and_fill(snap_table)
    regex = rf"floe_test\.tm{sfx}_.*"
    out = tmp_path / "capture.jsonl"
    err_path = tmp_path / "capture.err"
    n = len(TIME_VALUES)
    with open(out, "wb") as o, open(err_path, "wb") as e:
        p = start_capture(regex, "initial", o, e, schema=True)
        deadline = time.time() + 60
        # The snapshot first; the second table is created afterwards, so its
        # rows come from the binlog.
        while time.time() < deadline and sum(r["op"] == "r" for r in records(out)) < n:
            assert p.poll() is None, err_path.read_text()[-3000:]
            time.sleep(0.2)
        create_and_fill(stream_table)
        while time.time() < deadline and sum(r["op"] == "c" for r in records(out)) < n:
            assert p.poll() is None, err_path.read_text()[-3000:]
            time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 0, err_path.read_text()[-3000:]
    recs = records(out)
    assert sum(r["op"] == "r" for r in recs) == n and sum(r["op"] == "c" for r in recs) == n

    config = write_catalog(tmp_path)
    ingest = subprocess.run(
        [floe_bin(), "ingest", str(out), "--catalog-config", str(config), "--route",
         "{db}.{table}", "--state-dir", str(tmp_path / "state"), "--progress", "never"],
        capture_output=True, text=True, timeout=120)
    assert ingest.returncode == 0, ingest.stderr[-3000:]
    for table in (snap_table, stream_table):
        ident = f"floe_test.{table}"
        describe = subprocess.run([floe_bin(), "table", "--catalog-config", str(config), "describe",
                                   ident], capture_output=True, text=True, timeout=60)
        assert describe.returncode == 0, describe.stderr
        scan = subprocess.run([floe_bin(), "table", "--catalog-config", str(config), "scan", ident],
                              capture_output=True, text=True, timeout=60)
        assert scan.returncode == 0, scan.stderr
        rows = {r["id"]: r for r in map(json.loads, scan.stdout.splitlines())}
        assert sorted(rows) == [row_id for row_id, _, _ in TIME_VALUES], scan.stdout
        for row_id, text, micros in TIME_VALUES:
            assert rows[row_id]["t"] == micros, (table, text, rows[row_id])
            whole = None if micros is None else int(micros / 10**6) * 10**6
            assert rows[row_id]["t0"] == whole, (table, text, rows[row_id])
        # The schema lines: "  2  t  optional  long".
        types = {parts[1]: parts[-1] for parts in map(str.split, describe.stdout.splitlines())
                 if len(parts) == 4 and parts[0].isdigit()}
        assert types.get("t") == "long" and types.get("t0") == "long", describe.stdout
    with conn.cursor() as c:
        c.execute(f"DROP TABLE floe_test.{snap_table}")
        c.execute(f"DROP TABLE floe_test.{stream_table}")
