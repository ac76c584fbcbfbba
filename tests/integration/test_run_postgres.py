"""`floe run` with `source: type: postgres` mirrors a changing PostgreSQL schema exactly once.

Under schema.change.behavior evolve, a random workload runs on the test PostgreSQL
(inserts, updates, deletes, primary-key changes, rolled-back transactions; 3 kB TOASTed
values left unchanged and replaced under REPLICA IDENTITY FULL, 3000-row transactions the
server streams before they commit or roll back, truncates, an added column, renamed
columns, new tables) while `floe run` is killed with SIGKILL at random moments
(FLOE_RUN_POSTGRES_KILLS, default 8) and started again; twice the server ends its
replication connection and once PostgreSQL restarts (the run connects again and streams
on). All along the slot's confirmed_flush_lsn may not be past the newest
`floe.source-position` the lake holds: the slot lets go only of what is committed. At the
end every table equals its Iceberg table row for row (read by Iceberg Java) and column for
column, and no checkpoint was committed twice.

Also: `floe run --check` lists the tables and their sink tables, and bad settings are
refused before anything runs (an unknown key, a decoding plugin other than pgoutput, a
role without REPLICATION — with what to do).

Needs the server of scripts/services/postgres.sh (FLOE_TEST_POSTGRES_*), psql, Java with
the Iceberg peer (.cache/java-peer) and build/floe (FLOE_BIN overrides). Skipped when
FLOE_TEST_POSTGRES_PORT is unset. Each test makes its own schema, publication and slot and
drops them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import postgres_admin
import pytest
from postgres_admin import ensure_database, lsn

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_POSTGRES_PORT")
HOST = os.environ.get("FLOE_TEST_POSTGRES_HOST", "127.0.0.1")
USER = os.environ.get("FLOE_TEST_POSTGRES_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_POSTGRES_PASSWORD", "floe")
# This file's own database on the test server (made by own_database below): the other
# PostgreSQL test file may run at the same time.
DATABASE = os.environ.get("FLOE_TEST_POSTGRES_DATABASE", "floe") + "_run"
CLASSPATH = ROOT / ".cache" / "java-peer" / "classpath.txt"
KILLS = int(os.environ.get("FLOE_RUN_POSTGRES_KILLS", "8"))

pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_POSTGRES_PORT is not set")

sys.path.insert(0, str(ROOT / "examples"))
from mirror_check import read_java  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def own_database():
    """Makes DATABASE (owned by USER) when it is not there yet."""
    ensure_database(HOST, PORT, USER, DATABASE)


def psql(sql: str, user: str | None = None) -> str:
    return postgres_admin.psql(HOST, PORT, DATABASE, sql, user or USER, PASSWORD)


def superuser(sql: str) -> str:
    return psql(sql, user="postgres")


class Names:
    def __init__(self):
        suffix = f"{int(time.time() * 1000) % 10**9}_{random.randrange(1000)}"
        self.schema = f"runpg_{suffix}"
        self.slot = f"runpg_slot_{suffix}"
        self.publication = f"runpg_pub_{suffix}"

    def slot_row(self) -> tuple[str, str] | None:
        """(active_pid or '', confirmed_flush_lsn) of the slot, None when there is none."""
        row = superuser(f"SELECT coalesce(active_pid::text, ''), coalesce(confirmed_flush_lsn::text, '') "
                        f"FROM pg_replication_slots WHERE slot_name = '{self.slot}'")
        return tuple(row.split("|")) if row else None

    def wait_slot_idle(self, limit: float = 30) -> None:
        end = time.monotonic() + limit
        while (row := self.slot_row()) is not None and row[0]:
            assert time.monotonic() < end, f"slot {self.slot} still active: {row}"
            time.sleep(0.05)

    def drop(self) -> None:
        try:
            self.wait_slot_idle()
        finally:
            superuser(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                      f"WHERE slot_name = '{self.slot}'")
            superuser(f"DROP PUBLICATION IF EXISTS {self.publication}")
            superuser(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")


@pytest.fixture
def names():
    postgres_admin.require_tools(FLOE)
    n = Names()
    yield n
    n.drop()


def write_pipeline(path: Path, lake: Path, n: Names, extra: str = "", behavior: str = "lenient",
                   autocreate: str = "filtered", startup: str = "latest-offset") -> None:
    source = postgres_admin.source_yaml(HOST, PORT, USER, DATABASE, f"{n.schema}.\\.*", n.slot,
                                        n.publication, autocreate, startup)
    path.write_text(f"""
{source}{extra}sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///{lake}/catalog.db", warehouse: "{lake}/warehouse"}}
pipeline:
  name: pg-mirror
  schema.change.behavior: {behavior}
  parallelism: 2
  checkpoint.interval: 300ms
  state.dir: {lake}/state
""")


def run_floe(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, FLOE_TEST_POSTGRES_PASSWORD=PASSWORD)
    return subprocess.run([str(FLOE), *args], capture_output=True, text=True, env=env, timeout=timeout)


def start_run(pipeline: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, FLOE_TEST_POSTGRES_PASSWORD=PASSWORD)
    with open(log, "w") as err:
        return subprocess.Popen([str(FLOE), "run", str(pipeline), "--progress", "never"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)


def lake_catalog(lake: Path):
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog("default", uri=f"sqlite:///{lake}/catalog.db", warehouse=f"file://{lake}/warehouse")


def lake_positions(lake: Path, schema: str) -> tuple[int, dict[str, int]]:
    """The newest floe.source-position (as an LSN) over the schema's tables, and the commits per
    table; fails when a checkpoint id appears twice in a table. Reads the SQL catalog's SQLite
    file and the tables' metadata JSON directly (fast enough to sample while floe writes)."""
    db = lake / "catalog.db"
    if not db.exists():
        return 0, {}
    with closing(sqlite3.connect(db, timeout=10)) as connection:
        try:
            rows = connection.execute("SELECT table_name, metadata_location FROM iceberg_tables "
                                      "WHERE table_namespace = ?", (schema,)).fetchall()
        except sqlite3.OperationalError as e:  # no table yet
            if "no such table" in str(e):
                return 0, {}
            raise
    newest, commits = 0, {}
    for name, location in rows:
        metadata = json.loads(Path(location.removeprefix("file://")).read_text())
        seen: set[str] = set()
        for snapshot in metadata.get("snapshots", []):
            summary = snapshot.get("summary", {})
            checkpoint = summary.get("floe.checkpoint-id")
            if checkpoint is None:
                continue
            assert checkpoint not in seen, f"{schema}.{name}: checkpoint {checkpoint} committed twice"
            seen.add(checkpoint)
            position = summary.get("floe.source-position", "")
            assert position.startswith("lsn:"), f"{schema}.{name}: floe.source-position {position!r}"
            newest = max(newest, int(position[4:].split(" ")[0]))
        commits[f"{schema}.{name}"] = len(seen)
    return newest, commits


class Workload:
    """Random transactions through one psql connection until stopped.

    The test's thread asks for one-off changes (ask()): a 3000-row transaction the server
    streams ("big"; "big_abort" rolls it back), a truncate, a column added, columns renamed,
    new tables. The statements follow the renamed columns and take in the new tables."""

    def __init__(self, schema: str, seed: int):
        self.s = schema
        self.random = random.Random(seed)
        self.next_id = {"t1": 1, "t2": 1, "t3": 1, "t4": 1}
        # Each table's columns by their first name: the name they have now.
        self.names = {t: {"v": "v", "n": "n", "d": "d"} for t in ("t1", "t2", "t4")}
        self.names["t3"] = {"n": "n", "body": "body"}
        self.renames = 0
        self.transactions = 0
        self.extra = False
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.done_special: list[str] = []
        self.asked: list[str] = []
        self.proc = None
        self.syncs = 0
        self.connect()

    def connect(self) -> None:
        """A new psql session (after close(), e.g. across a server restart)."""
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        self.proc = subprocess.Popen(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT,
                                      "-U", USER, "-d", DATABASE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True)
        self.stop.clear()
    def send(self, sql: str) -> None:
        self.proc.stdin.write(sql + "\n")

    def sync(self) -> None:
        self.syncs += 1
        self.send(f"\\echo sync {self.syncs}")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, "the workload's psql ended (an SQL error)"
            if line.strip() == f"sync {self.syncs}":
                return

    def new_id(self, table: str) -> int:
        i = self.next_id[table]
        self.next_id[table] += 1
        return i

    def some_id(self, table: str) -> int:
        return self.random.randrange(1, self.next_id[table]) if self.next_id[table] > 1 else 1

    def row_values(self, table: str) -> str:
        r = self.random
        i = self.new_id(table)
        if table == "t3":  # a 3 kB value stored out of line (STORAGE EXTERNAL)
            return f"({i}, {r.randint(0, 9)}, repeat(md5('{i}-{r.random()}'), 100))"
        extra = f", 'x{r.randint(0, 999)}'" if table == "t1" and self.extra else ""
        n = "NULL" if r.random() < 0.1 else str(r.randint(-2**40, 2**40))
        return f"({i}, 'v{r.randint(0, 10**6)}', {n}, {r.randint(-10**6, 10**6)}.{r.randint(0, 99):02d}{extra})"

    def columns(self, table: str) -> str:
        c = self.names[table]
        if table == "t3":
            return f"(id, {c['n']}, {c['body']})"
        extra = ", extra" if table == "t1" and self.extra else ""
        return f"(id, {c['v']}, {c['n']}, {c['d']}{extra})"

    def statement(self) -> str:
        r = self.random
        table = r.choice(sorted(self.names))
        c = self.names[table]
        pick = r.random()
        s = self.s
        if pick < 0.4:
            return f"INSERT INTO {s}.{table} {self.columns(table)} VALUES {self.row_values(table)};"
        if pick < 0.7:
            if table == "t3":  # the TOASTed body is left as it is, or now and then replaced
                if r.random() < 0.2:
                    return (f"UPDATE {s}.t3 SET {c['body']} = repeat(md5('{r.random()}'), 110) "
                            f"WHERE id = {self.some_id(table)};")
                return f"UPDATE {s}.t3 SET {c['n']} = {c['n']} + 1 WHERE id = {self.some_id(table)};"
            return f"UPDATE {s}.{table} SET {c['v']} = 'u{r.randint(0, 10**6)}', " \
                   f"{c['n']} = coalesce({c['n']}, 0) + 1 WHERE id = {self.some_id(table)};"
        if pick < 0.85:
            return f"DELETE FROM {s}.{table} WHERE id = {self.some_id(table)};"
        return f"UPDATE {s}.{table} SET id = {self.new_id(table)} WHERE id = {self.some_id(table)};"

    def special(self) -> tuple[str, bool] | None:
        """The next of the asked-for one-off changes (ask() from the test's thread), and
        whether its transaction rolls back."""
        if not self.asked:
            return None
        kind = self.asked.pop(0)
        self.done_special.append(kind)
        s = self.s
        if kind in ("big", "big_abort"):  # streamed by the server (logical_decoding_work_mem is 64kB)
            first = self.next_id["t2"]
            self.next_id["t2"] += 3000
            c = self.names["t2"]
            return (f"INSERT INTO {s}.t2 (id, {c['v']}, {c['n']}, {c['d']}) SELECT g, 'big' || g, g, "
                    f"g / 100.0 FROM generate_series({first}, {first + 2999}) g;", kind == "big_abort")
        if kind == "truncate":
            return f"TRUNCATE {s}.t4;", False
        if kind == "add":
            self.extra = True
            return f"ALTER TABLE {s}.t1 ADD COLUMN extra text;", False
        if kind.startswith("rename:"):  # rename:TABLE:COLUMN (its first name)
            _, table, column = kind.split(":")
            self.renames += 1
            old, new = self.names[table][column], f"{column}_r{self.renames}"
            self.names[table][column] = new
            return f"ALTER TABLE {s}.{table} RENAME COLUMN {old} TO {new};", False
        if kind.startswith("create:"):  # create:TABLE, then rows of it
            table = kind.split(":")[1]
            self.names[table] = {"v": "v", "n": "n", "d": "d"}
            self.next_id[table] = 1
            return (f"CREATE TABLE {s}.{table} (id bigint PRIMARY KEY, v text NOT NULL, n bigint, "
                    f"d numeric(12,2)); INSERT INTO {s}.{table} (id, v, n, d) VALUES "
                    f"{self.row_values(table)};"), False
        raise AssertionError(f"unknown special change {kind}")

    def ask(self, kind: str) -> None:
        if kind:
            self.asked.append(kind)

    def transaction(self) -> None:
        r = self.random
        special = self.special()
        body = [self.statement() for _ in range(r.randint(1, 4))]
        rollback = r.random() < 0.05
        if special is not None:  # first: the statements after it use what it makes
            body.insert(0, special[0])
            rollback = special[1]
        self.send("BEGIN;\n" + "\n".join(body) + "\n" + ("ROLLBACK;" if rollback else "COMMIT;"))
        self.transactions += 1

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                for _ in range(5):
                    self.transaction()
                self.sync()
                time.sleep(self.random.uniform(0.01, 0.05))
        except BaseException as e:  # reported by the test
            self.error = e

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        self.proc.stdout.close()


def create_tables(schema: str) -> None:
    psql(f"""
CREATE SCHEMA {schema};
CREATE TABLE {schema}.t1 (id bigint PRIMARY KEY, v text NOT NULL, n bigint, d numeric(12,2));
CREATE TABLE {schema}.t2 (id bigint PRIMARY KEY, v text NOT NULL, n bigint, d numeric(12,2));
CREATE TABLE {schema}.t3 (id int PRIMARY KEY, n int, body text);
ALTER TABLE {schema}.t3 ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE {schema}.t3 REPLICA IDENTITY FULL;
CREATE TABLE {schema}.t4 (id bigint PRIMARY KEY, v text NOT NULL, n bigint, d numeric(12,2));
""")


def source_rows(schema: str, table: str) -> tuple[list[str], dict[str, tuple]]:
    """The table's columns and rows by id, every value as text (None for NULL)."""
    columns = psql(f"SELECT attname FROM pg_attribute WHERE attrelid = '{schema}.{table}'::regclass "
                   f"AND attnum > 0 AND NOT attisdropped ORDER BY attnum").splitlines()
    values = ", ".join(f"{c}::text" for c in columns)
    text = psql(f"SELECT coalesce(json_agg(json_build_array({values})), '[]') FROM {schema}.{table}")
    return columns, {row[0]: tuple(row) for row in json.loads(text)}


def lake_rows(records: list[dict], columns: list[str]) -> dict[str, tuple]:
    def text(v):
        return None if v is None else str(v)
    return {text(r["id"]): tuple(text(r.get(c)) for c in columns) for r in records}


def restart_postgres() -> None:
    """Stops the test server (a fast shutdown: every connection is ended) and starts it again,
    with the service script of this checkout (which started it)."""
    script = ROOT / "scripts" / "services" / "postgres.sh"
    for action in ("stop", "start"):
        done = subprocess.run(["bash", str(script), action], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"postgres.sh {action}: {done.stdout}{done.stderr}"


class SlotWatch:
    """Samples the slot's confirmed_flush_lsn, then the newest floe.source-position of the lake,
    until stopped. The lake only grows, so a sample whose confirmed LSN is past the lake read
    after it means the slot let go of WAL the lake did not hold."""

    def __init__(self, names: Names, lake: Path, first_confirmed: int):
        self.names, self.lake, self.first = names, lake, first_confirmed
        self.samples = 0
        self.passed: list[tuple[int, int]] = []
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            while not self.stop.wait(0.2):
                try:
                    row = self.names.slot_row()
                except AssertionError:  # the server is restarting
                    continue
                if row is None or not row[1]:
                    continue
                confirmed = lsn(row[1])
                newest, _ = lake_positions(self.lake, self.names.schema)
                self.samples += 1
                if confirmed != self.first and confirmed > newest:
                    self.passed.append((confirmed, newest))
        except BaseException as e:  # reported by the test
            self.error = e

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        assert self.error is None, self.error
        assert not self.passed, "the slot confirmed past the lake's newest position: " + \
            ", ".join(f"{c:X} > {n:X}" for c, n in self.passed[:5])


# It restarts the test PostgreSQL, which every PostgreSQL test file shares.
@pytest.mark.serial
def test_postgres_evolve_exactly_once_under_sigkill_and_a_server_restart(tmp_path, names):
    """schema.change.behavior evolve over an administrator's FOR TABLES IN SCHEMA publication:
    a random workload (inserts, updates, deletes, key changes, rolled-back transactions, 3 kB
    TOASTed values left unchanged and replaced under REPLICA IDENTITY FULL, 3000-row
    transactions the server streams, committed and rolled back, truncates, an added column,
    renamed columns, new tables) while `floe run` is SIGKILLed FLOE_RUN_POSTGRES_KILLS times
    (default 8) and started again, the server ends the replication connection twice, and
    PostgreSQL is restarted once under the running pipeline. All along, the slot's
    confirmed_flush_lsn is never past what the lake holds (sampled while it runs, and after
    each kill). At the end every table equals PostgreSQL's row for row (Iceberg Java) and
    column for column (names and order), and no checkpoint was committed twice."""
    if not CLASSPATH.exists() or shutil.which("java") is None:
        pytest.skip("no Iceberg Java peer (.cache/java-peer) or no java")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    lake = tmp_path / "lake"
    lake.mkdir()
    s = names.schema
    create_tables(s)
    superuser(f"CREATE PUBLICATION {names.publication} FOR TABLES IN SCHEMA {s}")
    pipeline = tmp_path / "pg.yaml"
    write_pipeline(pipeline, lake, names, behavior="evolve", autocreate="disabled")
    logs: list[Path] = []

    def start() -> subprocess.Popen:
        logs.append(tmp_path / f"run{len(logs)}.log")
        return start_run(pipeline, logs[-1])

    def alive(proc: subprocess.Popen) -> None:
        assert proc.poll() is None, f"floe run exited {proc.returncode}:\n{logs[-1].read_text()[-3000:]}"

    def wait_streaming(proc: subprocess.Popen, what: str) -> None:
        end = time.monotonic() + 40
        while not (names.slot_row() or ("", ""))[0]:
            alive(proc)
            assert time.monotonic() < end, f"the run did not {what}"
            time.sleep(0.1)

    proc = start()
    # The first run makes the slot; the workload starts after it.
    end = time.monotonic() + 30
    while names.slot_row() is None:
        alive(proc)
        assert time.monotonic() < end, "the slot was not made"
        time.sleep(0.1)
    first_confirmed = lsn(names.slot_row()[1])
    workload = Workload(s, seed)
    writer = threading.Thread(target=workload.run, daemon=True)
    writer.start()
    watch = SlotWatch(names, lake, first_confirmed)
    # The one-off changes, spread over the kills (scaled to their number).
    specials = ["big", "add", "rename:t1:v", "create:t5", "truncate", "rename:t3:body", "big_abort",
                "rename:t2:n", "create:t6", "rename:t1:d", "big", "truncate", "rename:t2:n",
                "rename:t5:v"]
    asks: dict[int, list[str]] = {}
    for k, kind in enumerate(specials):
        asks.setdefault(k * KILLS // len(specials), []).append(kind)
    restart_at = KILLS // 2
    checks = []
    try:
        for kill in range(KILLS):
            for kind in asks.get(kill, []):
                workload.ask(kind)
            time.sleep(rnd.uniform(0.6, 2.5))
            if kill in (2, 6):  # the server ends the replication connection: the run connects again
                superuser(f"SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                          f"WHERE slot_name = '{names.slot}' AND active_pid IS NOT NULL")
                wait_streaming(proc, "connect again")
                time.sleep(rnd.uniform(0.3, 1.0))
            if kill == restart_at:  # PostgreSQL itself restarts under the running pipeline
                workload.stop.set()
                writer.join()
                assert workload.error is None, workload.error
                workload.close()
                restart_postgres()
                workload.connect()
                writer = threading.Thread(target=workload.run, daemon=True)
                writer.start()
                wait_streaming(proc, "connect again after the server restarted")
                time.sleep(rnd.uniform(0.5, 1.5))
            alive(proc)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            assert workload.error is None, workload.error
            names.wait_slot_idle()
            confirmed = lsn(names.slot_row()[1])
            newest, _ = lake_positions(lake, s)
            if confirmed != first_confirmed:
                assert confirmed <= newest, \
                    f"the slot confirmed {confirmed:X}, past the lake's newest position {newest:X}"
            checks.append((confirmed, newest))
            proc = start()
    finally:
        workload.stop.set()
        writer.join()
    assert workload.error is None, workload.error
    # The last transaction: once the lake holds a position past where it starts, it holds all.
    before_last = lsn(psql("SELECT pg_current_wal_insert_lsn()"))
    workload.send(f"INSERT INTO {s}.t4 (id, {workload.names['t4']['v']}) VALUES (2000000000, 'the end');")
    workload.sync()
    workload.close()
    end = time.monotonic() + 90
    while lake_positions(lake, s)[0] <= before_last:
        alive(proc)
        assert time.monotonic() < end, "the lake did not catch up in 90 s"
        time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0, logs[-1].read_text()[-3000:]
    watch.close()
    names.wait_slot_idle()
    newest, commits = lake_positions(lake, s)
    assert lsn(names.slot_row()[1]) <= newest

    texts = [log.read_text() for log in logs]
    assert sum(1 for t in texts if "resuming the capture" in t) >= KILLS // 2
    assert sum(t.count("connecting again in") for t in texts) >= min(3, KILLS // 3)
    tables = sorted(workload.names)
    assert "t5" in tables or KILLS < 4
    java = read_java(str(CLASSPATH), str(lake / "catalog.db"), str(lake / "warehouse"),
                     [f"{s}.{t}" for t in tables])
    catalog = lake_catalog(lake)
    for table in tables:
        columns, expected = source_rows(s, table)
        lake_columns = [f.name for f in catalog.load_table(f"{s}.{table}").schema().fields]
        assert lake_columns == columns, f"seed {seed}: {table}: columns {lake_columns}, in PostgreSQL {columns}"
        records = java[f"{s}.{table}"]
        assert not isinstance(records, Exception), records
        actual = lake_rows(records, columns)
        missing = sorted(set(expected) - set(actual))[:5]
        extra = sorted(set(actual) - set(expected))[:5]
        differ = [(k, expected[k], actual[k]) for k in expected if k in actual and expected[k] != actual[k]][:3]
        assert not missing and not extra and not differ, \
            f"seed {seed}: {table}: missing {missing}, extra {extra}, differ {differ}"
    rows = {t: len(source_rows(s, t)[1]) for t in tables}
    print(f"{KILLS} kills, PostgreSQL restarted once, {workload.transactions} transactions, "
          f"one-off changes {workload.done_special}, rows {rows}, commits per table {commits}, "
          f"{watch.samples} samples of the slot during the run, none past the lake; "
          f"slot/lake after each kill {[(f'{c:X}', f'{n:X}') for c, n in checks]}")
    assert not workload.asked, f"one-off changes not made: {workload.asked}"


def test_check_lists_tables_and_bad_settings_are_refused(tmp_path, names):
    lake = tmp_path / "lake"
    lake.mkdir()
    create_tables(names.schema)
    psql(f"CREATE TABLE {names.schema}.nokey (v text)")
    pipeline = tmp_path / "pg.yaml"
    write_pipeline(pipeline, lake, names)
    check = run_floe("run", str(pipeline), "--check")
    assert check.returncode == 0, check.stderr
    assert "type: postgres" in check.stdout, check.stdout
    assert "5 source table(s) selected" in check.stdout, check.stdout
    for table in ("t1", "t2", "t3", "t4"):
        assert f"{names.schema}.{table}" in check.stdout
    assert f"{names.schema}.nokey" in check.stdout and "(no primary key)" in check.stdout
    assert 'password: "****"' in check.stdout, check.stdout
    # --check writes nothing: no slot, no publication.
    assert names.slot_row() is None
    assert psql(f"SELECT count(*) FROM pg_publication WHERE pubname = '{names.publication}'") == "0"

    def refused(extra: str, *expected: str, user: str | None = None) -> None:
        bad = tmp_path / "bad.yaml"
        write_pipeline(bad, lake, names, extra)
        text = bad.read_text()
        if user is not None:
            text = text.replace(f"username: {USER}", f"username: {user}")
        bad.write_text(text)
        for args in (["run", str(bad), "--check"], ["run", str(bad)]):
            out = run_floe(*args, timeout=60)
            assert out.returncode != 0, out.stdout
            for part in expected:
                assert part in out.stderr, out.stderr
        assert names.slot_row() is None

    refused("  slot-name: x\n", "slot-name", "slot.name")
    refused("  decoding.plugin.name: decoderbufs\n", "decoderbufs", "pgoutput")
    refused("", "REPLICATION", "ALTER ROLE", user="floe_norepl")


def test_an_idle_slot_is_confirmed_up_to_the_servers_position(tmp_path, names):
    """heartbeat.interval: with nothing of the pipeline's tables changing, the slot still moves
    on with the server's WAL (written here by a table outside the publication); then
    `floe run --drop-slot` drops the slot."""
    lake = tmp_path / "lake"
    lake.mkdir()
    create_tables(names.schema)
    pipeline = tmp_path / "pg.yaml"
    write_pipeline(pipeline, lake, names, "  heartbeat.interval: 500ms\n")
    log = tmp_path / "run.log"
    proc = start_run(pipeline, log)
    try:
        end = time.monotonic() + 30
        while names.slot_row() is None:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < end, "the slot was not made"
            time.sleep(0.1)
        # A table made after the publication is not in it: its rows are WAL the slot skips.
        psql(f"CREATE TABLE {names.schema}.unpublished (id int);"
             f"INSERT INTO {names.schema}.unpublished SELECT generate_series(1, 1000);")
        target = lsn(psql("SELECT pg_current_wal_lsn()"))
        end = time.monotonic() + 20
        while lsn(names.slot_row()[1]) < target:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < end, f"the slot stayed at {names.slot_row()[1]}, not past {target:X}"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()[-3000:]
    # --drop-slot lets the server drop the WAL the slot kept.
    names.wait_slot_idle()
    dropped = run_floe("run", str(pipeline), "--drop-slot")
    assert dropped.returncode == 0, dropped.stderr
    assert f"dropped replication slot {names.slot}" in dropped.stdout
    assert names.slot_row() is None
    again = run_floe("run", str(pipeline), "--drop-slot")
    assert again.returncode != 0 and "does not exist" in again.stderr, again.stderr


def test_evolve_follows_renamed_dropped_added_and_retyped_columns(tmp_path, names):
    """schema.change.behavior evolve: a column renamed (told from a drop and an add by its
    attribute number), one dropped, one added and one widened (int to bigint) reach the
    Iceberg schema before the rows that follow them; a table created in the publication's
    schema appears with its first rows. The publication is an administrator's (FOR TABLES IN
    SCHEMA, autocreate disabled). The tables equal PostgreSQL's, column for column (Iceberg
    Java)."""
    if not CLASSPATH.exists() or shutil.which("java") is None:
        pytest.skip("no Iceberg Java peer (.cache/java-peer) or no java")
    lake = tmp_path / "lake"
    lake.mkdir()
    create_tables(names.schema)
    pipeline = tmp_path / "pg.yaml"
    s = names.schema
    superuser(f"CREATE PUBLICATION {names.publication} FOR TABLES IN SCHEMA {s}")
    write_pipeline(pipeline, lake, names, behavior="evolve", autocreate="disabled")
    log = tmp_path / "run.log"
    proc = start_run(pipeline, log)
    try:
        end = time.monotonic() + 30
        while names.slot_row() is None:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < end, "the slot was not made"
            time.sleep(0.1)
        first = lsn(psql("SELECT pg_current_wal_insert_lsn()"))
        psql(f"INSERT INTO {s}.t1 SELECT g, 'v' || g, g * 10, g / 4.0 FROM generate_series(1, 20) g;"
             f"INSERT INTO {s}.t3 VALUES (1, 7, 'short');")
        # The stream reads a relation's attribute numbers when it first sees it: the rename
        # comes after that (a column renamed before is seen as dropped and added).
        end = time.monotonic() + 30
        while lake_positions(lake, s)[0] <= first:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < end, "the first rows were not committed in 30 s"
            time.sleep(0.2)
        psql(f"ALTER TABLE {s}.t1 RENAME COLUMN v TO label;")
        psql(f"INSERT INTO {s}.t1 (id, label, n, d) VALUES (21, 'after rename', 1, 2.50);"
             f"UPDATE {s}.t1 SET label = 'renamed ' || id WHERE id <= 3;")
        psql(f"ALTER TABLE {s}.t1 DROP COLUMN n;")
        psql(f"INSERT INTO {s}.t1 (id, label, d) VALUES (22, 'after drop', 3.25);")
        psql(f"ALTER TABLE {s}.t1 ADD COLUMN note text;")
        psql(f"INSERT INTO {s}.t1 (id, label, d, note) VALUES (23, 'after add', 4.00, 'a note');"
             f"UPDATE {s}.t1 SET note = 'noted' WHERE id IN (1, 22); DELETE FROM {s}.t1 WHERE id = 2;")
        psql(f"ALTER TABLE {s}.t3 ALTER COLUMN n TYPE bigint;")
        psql(f"INSERT INTO {s}.t3 VALUES (2, 5000000000, 'wide');")
        psql(f"CREATE TABLE {s}.t5 (id int PRIMARY KEY, v text);"
             f"INSERT INTO {s}.t5 SELECT g, 'new ' || g FROM generate_series(1, 5) g;")
        before_last = lsn(psql("SELECT pg_current_wal_insert_lsn()"))
        psql(f"INSERT INTO {s}.t2 (id, v) VALUES (1, 'the end');")
        end = time.monotonic() + 60
        while lake_positions(lake, s)[0] <= before_last:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < end, "the lake did not catch up in 60 s"
            time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()[-3000:]
    schema = lake_catalog(lake).load_table(f"{s}.t1").schema()
    assert [f.name for f in schema.fields] == ["id", "label", "d", "note"], schema
    assert schema.find_field("label").field_id == 2  # renamed in place: the same field
    assert str(lake_catalog(lake).load_table(f"{s}.t3").schema().find_field("n").field_type) == "long"
    tables = ["t1", "t3", "t5"]
    java = read_java(str(CLASSPATH), str(lake / "catalog.db"), str(lake / "warehouse"), [f"{s}.{t}" for t in tables])
    for table in tables:
        columns, expected = source_rows(s, table)
        records = java[f"{s}.{table}"]
        assert not isinstance(records, Exception), records
        assert lake_rows(records, columns) == expected, table
    print(log.read_text()[-3000:])


def test_initial_snapshot_then_stream_under_sigkill(tmp_path, names):
    """scan.startup.mode initial: the rows the tables hold are read in the snapshot the slot
    exports, then the stream follows from its consistent point, while a workload runs and
    the run is SIGKILLed (the first time soon after it starts: during the snapshot, which is
    then taken again from a new slot). The tables equal PostgreSQL's (Iceberg Java)."""
    if not CLASSPATH.exists() or shutil.which("java") is None:
        pytest.skip("no Iceberg Java peer (.cache/java-peer) or no java")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    lake = tmp_path / "lake"
    lake.mkdir()
    s = names.schema
    create_tables(s)
    psql(f"INSERT INTO {s}.t1 SELECT g, 'pre' || g, g, g / 8.0 FROM generate_series(1, 20000) g;"
         f"INSERT INTO {s}.t2 SELECT g, 'pre' || g, NULL, 0 FROM generate_series(1, 500) g;"
         f"INSERT INTO {s}.t3 SELECT g, g, repeat(md5(g::text), 100) FROM generate_series(1, 30) g;")
    pipeline = tmp_path / "pg.yaml"
    write_pipeline(pipeline, lake, names, startup="initial")
    logs: list[Path] = []

    def start() -> subprocess.Popen:
        logs.append(tmp_path / f"run{len(logs)}.log")
        return start_run(pipeline, logs[-1])

    workload = Workload(s, seed)
    workload.next_id.update({"t1": 20001, "t2": 501, "t3": 31})
    writer = threading.Thread(target=workload.run, daemon=True)
    proc = start()
    writer.start()
    try:
        for kill in range(3):
            time.sleep(rnd.uniform(0.2, 0.5) if kill == 0 else rnd.uniform(0.8, 2.0))
            assert proc.poll() is None, f"floe run exited {proc.returncode}:\n{logs[-1].read_text()[-3000:]}"
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            assert workload.error is None, workload.error
            names.wait_slot_idle()
            proc = start()
    finally:
        workload.stop.set()
        writer.join()
    assert workload.error is None, workload.error
    before_last = lsn(psql("SELECT pg_current_wal_insert_lsn()"))
    workload.send(f"INSERT INTO {s}.t2 (id, v) VALUES (2000000000, 'the end');")
    workload.sync()
    workload.close()
    end = time.monotonic() + 60
    while lake_positions(lake, s)[0] <= before_last:
        assert proc.poll() is None, f"floe run exited {proc.returncode}:\n{logs[-1].read_text()[-3000:]}"
        assert time.monotonic() < end, "the lake did not catch up in 60 s"
        time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0, logs[-1].read_text()[-3000:]
    text = "".join(log.read_text() for log in logs)
    assert "snapshot read" in text, text[-3000:]
    tables = ["t1", "t2", "t3", "t4"]
    java = read_java(str(CLASSPATH), str(lake / "catalog.db"), str(lake / "warehouse"), [f"{s}.{t}" for t in tables])
    for table in tables:
        columns, expected = source_rows(s, table)
        records = java[f"{s}.{table}"]
        assert not isinstance(records, Exception), records
        actual = lake_rows(records, columns)
        missing = sorted(set(expected) - set(actual))[:5]
        extra = sorted(set(actual) - set(expected))[:5]
        differ = [(k, expected[k], actual[k]) for k in expected if k in actual and expected[k] != actual[k]][:3]
        assert not missing and not extra and not differ, \
            f"seed {seed}: {table}: missing {missing}, extra {extra}, differ {differ}"
    print(f"{len(logs) - 1} kills, {workload.transactions} transactions, "
          f"snapshots taken: {text.count('snapshot read')}, slots made again: {text.count('dropped and made again')}")


def test_unchanged_toast_without_the_old_row_stops_the_run(tmp_path, names):
    """An update that leaves a TOASTed value unchanged on a table without REPLICA IDENTITY FULL:
    the server does not send the value, so the run stops, naming the table, the column and the
    fix, and commits nothing of that transaction."""
    lake = tmp_path / "lake"
    lake.mkdir()
    create_tables(names.schema)
    s = names.schema
    psql(f"ALTER TABLE {s}.t3 REPLICA IDENTITY DEFAULT")
    pipeline = tmp_path / "pg.yaml"
    write_pipeline(pipeline, lake, names)
    log = tmp_path / "run.log"
    proc = start_run(pipeline, log)
    end = time.monotonic() + 30
    while names.slot_row() is None:
        assert proc.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < end, "the slot was not made"
        time.sleep(0.1)
    psql(f"INSERT INTO {s}.t3 VALUES (1, 1, repeat(md5('x'), 100));")
    psql(f"UPDATE {s}.t3 SET n = 2 WHERE id = 1;")
    assert proc.wait(timeout=60) != 0
    text = log.read_text()
    assert f"{s}.t3 column body" in text and f"ALTER TABLE {s}.t3 REPLICA IDENTITY FULL" in text, text[-3000:]
    names.wait_slot_idle()
