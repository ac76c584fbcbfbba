"""`floe run` on bad input: each a clear error and an exit code, nothing written (issue 10).

A broken pipeline file is a usage error (exit 2) naming the file, line and key; an
unreachable server, wrong credentials and a user without replication grants are failures
(exit 1) that say what to do; none of them leaves a table or a checkpoint behind.
Needs the MariaDB of scripts/services/mariadb.sh for the server cases.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_MYSQL_PORT")
# The replica server ids of this file's runs (other test files, running at the same time,
# have their own ranges).
SERVER_IDS = (40000, 49899)


def pipeline(tmp_path: Path, port: str, user: str = "floe", extra: str = "") -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(f"""source:
  type: mysql
  hostname: 127.0.0.1
  port: {port}
  username: {user}
  password: ${{PIPELINE_PASSWORD}}
  tables: floe_test.nothing_\\.*
  server-id: {random.randint(*SERVER_IDS)}
{extra}sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///catalog.db", warehouse: "warehouse"}}
pipeline:
  name: errors
""")
    return path


def run(path: Path, *args: str, password: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PIPELINE_PASSWORD=password or os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    return subprocess.run([str(FLOE), "run", str(path), *args], capture_output=True, text=True,
                          timeout=120, env=env, stdin=subprocess.DEVNULL)


def connect():
    """A connection to the test MariaDB (autocommit)."""
    pymysql = pytest.importorskip("pymysql")
    return pymysql.connect(host="127.0.0.1", port=int(PORT), user=os.environ.get("FLOE_TEST_MYSQL_USER", "floe"),
                           password=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"), autocommit=True)


def start(path: Path, *args: str) -> subprocess.Popen:
    """`floe run PATH ARGS` in the background, its output captured."""
    env = dict(os.environ, PIPELINE_PASSWORD=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    return subprocess.Popen([str(FLOE), "run", str(path), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, stdin=subprocess.DEVNULL)


def start_on_table(tmp_path: Path, table: str, setting: str = "") -> subprocess.Popen:
    """`floe run` in the background on floe_test.TABLE alone, checkpoints every 200 ms, and
    `setting` (one `key: value`) under `pipeline:`."""
    path = pipeline(tmp_path, PORT)
    extra = f"\n  {setting}" if setting else ""
    path.write_text(path.read_text().replace("floe_test.nothing_\\.*", f"floe_test.{table}")
                    .replace("name: errors", f"name: errors\n  checkpoint.interval: 200ms{extra}"))
    return start(path, "--progress", "never")


def wrote_nothing(tmp_path: Path) -> bool:
    return not (tmp_path / "warehouse").exists() and not list(tmp_path.glob("*.floe-state/checkpoints/*"))


@pytest.fixture(autouse=True)
def built():
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")


def test_unknown_key_names_line_and_suggests(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("source:\n  type: mysql\n  hostnme: x\n")
    proc = run(path)
    assert proc.returncode == 2, proc.stderr
    assert "p.yaml:3:3: source.hostnme: unknown key (did you mean 'hostname'?)" in proc.stderr


def test_broken_yaml_is_a_usage_error(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("source:\n  type: mysql\n   port: [1, 2\n")
    proc = run(path)
    assert proc.returncode == 2, proc.stderr
    assert "p.yaml:" in proc.stderr and "error:" in proc.stderr


def test_unset_variable_is_named(tmp_path):
    path = pipeline(tmp_path, "3307").read_text().replace("PIPELINE_PASSWORD", "NO_SUCH_VARIABLE_X")
    (tmp_path / "q.yaml").write_text(path)
    proc = run(tmp_path / "q.yaml")
    assert proc.returncode == 2, proc.stderr
    assert "NO_SUCH_VARIABLE_X" in proc.stderr


def test_not_yet_supported_keys_are_refused(tmp_path):
    proc = run(pipeline(tmp_path, "3307", extra="  server-time-zone: Europe/Paris\n"))
    assert proc.returncode == 1, proc.stderr
    assert "server-time-zone" in proc.stderr and "not supported" in proc.stderr
    assert wrote_nothing(tmp_path)


def test_unreachable_server(tmp_path):
    proc = run(pipeline(tmp_path, "1"))
    assert proc.returncode == 1, proc.stderr
    assert "cannot connect to MySQL/MariaDB at 127.0.0.1:1" in proc.stderr
    assert wrote_nothing(tmp_path)


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_wrong_password_is_not_printed(tmp_path):
    proc = run(pipeline(tmp_path, PORT), password="Wr0ngSecret!")
    assert proc.returncode == 1, proc.stderr
    assert "access denied" in proc.stderr
    assert "Wr0ngSecret!" not in proc.stderr + proc.stdout
    assert wrote_nothing(tmp_path)


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_missing_grant_says_which(tmp_path):
    proc = run(pipeline(tmp_path, PORT, user="floe_noprivs"), "--check")
    assert proc.returncode == 1, proc.stderr
    assert "GRANT REPLICATION SLAVE" in proc.stderr
    assert wrote_nothing(tmp_path)


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_check_lists_tables_and_writes_nothing(tmp_path):
    db = connect()
    keyed, keyless = f"nothing_chk_keyed_{os.getpid()}", f"nothing_chk_keyless_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"CREATE OR REPLACE TABLE floe_test.{keyed} (id INT PRIMARY KEY)")
        c.execute(f"CREATE OR REPLACE TABLE floe_test.{keyless} (id INT)")
    try:
        path = pipeline(tmp_path, PORT)
        # Only this test's tables: other files make and drop tables in floe_test meanwhile.
        text = path.read_text().replace("floe_test.nothing_\\.*", "floe_test.nothing_chk_\\.*")
        path.write_text(text)
        proc = run(path, "--check", "--set", "pipeline.parallelism=3")
    finally:
        with db.cursor() as c:
            c.execute(f"DROP TABLE IF EXISTS floe_test.{keyed}, floe_test.{keyless}")
    assert proc.returncode == 0, proc.stderr
    assert "parallelism: 3" in proc.stdout
    assert "source table(s) selected" in proc.stdout
    assert '"****"' in proc.stdout  # the password, never printed
    # A table without a primary key is marked: only its inserts can be mirrored.
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if "->" in line}
    assert "(no primary key)" in lines[f"floe_test.{keyless}"], proc.stdout
    assert "(no primary key)" not in lines[f"floe_test.{keyed}"], proc.stdout
    assert "without a primary key" in proc.stdout
    assert wrote_nothing(tmp_path)


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_exception_behaviour_stops_at_a_schema_change(tmp_path):
    """`schema.change.behavior: exception`: rows are mirrored until the first schema change
    of a mirrored table, which stops the run naming the table and the statement."""
    db = connect()
    table = f"nothing_exc_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"DROP TABLE IF EXISTS floe_test.{table}")
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v INT)")
        c.execute(f"INSERT INTO floe_test.{table} VALUES (1, 1)")
    path = pipeline(tmp_path, PORT)
    path.write_text(path.read_text().replace("name: errors", "name: errors\n  schema.change.behavior: exception\n  checkpoint.interval: 200ms"))
    proc = start(path)
    try:
        import time
        time.sleep(2)
        assert proc.poll() is None, proc.stderr.read()
        with db.cursor() as c:
            c.execute(f"ALTER TABLE floe_test.{table} ADD COLUMN w INT")
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "schema.change.behavior is exception" in err and table in err and "ADD COLUMN" in err, err


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_table_without_primary_key_is_refused_at_its_first_update(tmp_path):
    """A table without a primary key: a warning when it is first seen, its inserts mirrored,
    and its first UPDATE stops the run naming the table (a row without a key cannot be found
    in the lake) — never applied as a second copy of the row."""
    catalog_module = pytest.importorskip("pyiceberg.catalog.sql")
    db = connect()
    table = f"nothing_keyless_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"CREATE OR REPLACE TABLE floe_test.{table} (id INT, v INT)")
        c.execute(f"INSERT INTO floe_test.{table} VALUES (1, 1), (2, 2)")
    proc = start_on_table(tmp_path, table)
    try:
        import time
        time.sleep(3)
        assert proc.poll() is None, proc.stderr.read()
        with db.cursor() as c:
            c.execute(f"INSERT INTO floe_test.{table} VALUES (3, 3)")
        time.sleep(2)
        with db.cursor() as c:
            c.execute(f"UPDATE floe_test.{table} SET v = 9 WHERE id = 1")
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        with db.cursor() as c:
            c.execute(f"DROP TABLE IF EXISTS floe_test.{table}")
    assert proc.returncode == 1, err
    assert f"table floe_test.{table} has no primary key" in err, err
    assert "no identifier fields" in err and table in err and "UPDATE" in err.upper(), err
    catalog = catalog_module.SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'catalog.db'}",
                                        warehouse=f"file://{tmp_path / 'warehouse'}")
    rows = catalog.load_table(f"floe_test.{table}").scan().to_arrow().sort_by("id").to_pylist()
    assert rows == [{"id": 1, "v": 1}, {"id": 2, "v": 2}, {"id": 3, "v": 3}], rows


def run_through(tmp_path: Path, db, table: str, setting: str, statements: list[str],
                stop: bool) -> tuple[int, str]:
    """Runs floe_test.TABLE's pipeline (start_on_table), executes `statements` once it is up,
    then waits for it to end by itself or, with `stop`, stops it with SIGTERM after 3 s; drops
    the table. Returns the exit code and standard error."""
    import signal
    import time
    proc = start_on_table(tmp_path, table, setting)
    try:
        time.sleep(3)
        assert proc.poll() is None, proc.stderr.read()
        with db.cursor() as c:
            for statement in statements:
                c.execute(statement.format(t=f"floe_test.{table}"))
        if stop:
            time.sleep(3)
            proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        with db.cursor() as c:
            c.execute(f"DROP TABLE IF EXISTS floe_test.{table}")
    return proc.returncode, err


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
@pytest.mark.parametrize("behavior", ["evolve", "try_evolve"])
def test_an_added_column_with_a_default(behavior, tmp_path):
    """MySQL gives the existing rows an added column's DEFAULT without logging them, and an
    Iceberg v2 table has no initial default: `evolve` stops, naming table, column, value and
    the ways out, before it changes the lake; `try_evolve` adds the column (the older rows read
    NULL in it) and warns. An added nullable column without a default is neither."""
    db = connect()
    table = f"nothing_default_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"CREATE OR REPLACE TABLE floe_test.{table} (id INT PRIMARY KEY, v INT)")
        c.execute(f"INSERT INTO floe_test.{table} VALUES (1, 1), (2, 2)")
    returncode, err = run_through(
        tmp_path, db, table, f"schema.change.behavior: {behavior}",
        ["ALTER TABLE {t} ADD COLUMN plain INT NULL",
         "ALTER TABLE {t} ADD COLUMN status INT NOT NULL DEFAULT 7",
         "INSERT INTO {t} (id, v) VALUES (3, 3)"],
        stop=behavior == "try_evolve")
    told = f"column status was added with DEFAULT 7"
    assert "column plain was added" not in err, err
    if behavior == "evolve":
        assert returncode == 1, err
        assert told in err and table in err and "Ways out" in err and "try_evolve" in err, err
        return
    assert returncode == 0, err
    assert f"table floe_test.{table}: {told}" in err and "have NULL" in err, err


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_an_added_column_with_a_default_on_an_empty_table_is_mirrored(tmp_path):
    """A table with no rows yet (a migration that creates a table and then adds columns) has
    no row the default could be missing from: `evolve` adds the column and goes on."""
    db = connect()
    table = f"nothing_default_empty_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"CREATE OR REPLACE TABLE floe_test.{table} (id INT PRIMARY KEY, v INT)")
    returncode, err = run_through(
        tmp_path, db, table, "schema.change.behavior: evolve",
        ["ALTER TABLE {t} ADD COLUMN status INT NOT NULL DEFAULT 7",
         "INSERT INTO {t} (id, v) VALUES (1, 1)"],
        stop=True)
    assert returncode == 0, err
    assert "cannot mirror" not in err, err


@pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")
def test_snapshot_mode_copies_once_and_ends(tmp_path):
    """`scan.startup.mode: snapshot`: the tables are copied, committed, and the run ends by
    itself (exit 0); run again, it ends at once and adds nothing."""
    db = connect()
    table = f"snap_once_{os.getpid()}"
    with db.cursor() as c:
        c.execute(f"DROP TABLE IF EXISTS floe_test.{table}")
        c.execute(f"CREATE TABLE floe_test.{table} (id INT PRIMARY KEY, v VARCHAR(10))")
        c.executemany(f"INSERT INTO floe_test.{table} VALUES (%s, %s)", [(i, f"v{i}") for i in range(1500)])
    path = pipeline(tmp_path, PORT, extra="  scan.startup.mode: snapshot\n")
    path.write_text(path.read_text().replace("floe_test.nothing_\\.*", f"floe_test.{table}"))
    config = tmp_path / "catalog.yaml"
    config.write_text(f"catalog:\n  default:\n    type: sql\n    uri: sqlite:///{tmp_path}/catalog.db\n"
                      f"    warehouse: {tmp_path}/warehouse\n")

    def rows() -> list[int]:
        scan = subprocess.run([str(FLOE), "table", "--catalog-config", str(config), "scan", f"floe_test.{table}"],
                              capture_output=True, text=True, timeout=60)
        assert scan.returncode == 0, scan.stderr
        return sorted(json.loads(line)["id"] for line in scan.stdout.splitlines() if line.strip())

    first = run(path)
    assert first.returncode == 0, first.stderr[-3000:]
    assert rows() == list(range(1500))
    again = run(path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "nothing more to read" in again.stderr
    assert rows() == list(range(1500))
