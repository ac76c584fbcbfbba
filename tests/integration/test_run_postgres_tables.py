"""`floe run` with a postgres source: tables renamed and dropped, and the WAL its slot retains.

pgoutput says nothing of a renamed or dropped table until a row of it changes (and a
dropped table never has one): the run compares its tables with the server's catalog at the
Begin of a transaction or while the stream is idle (so a database that is never idle gets
them too), and when a Relation message names a table that another relation held.
Under schema.change.behavior evolve a renamed table is renamed in the lake (rows written
after the rename land there, none lost) and a dropped one is dropped; under lenient both
stay in the lake, as for a MySQL RENAME TABLE and DROP TABLE. With `pipeline.http`, /metrics
shows the WAL the slot makes the server keep and its confirmed LSN.

Needs the server of scripts/services/postgres.sh (FLOE_TEST_POSTGRES_*), psql, PyIceberg and
build/floe (FLOE_BIN overrides). Skipped when FLOE_TEST_POSTGRES_PORT is unset. Each test
makes its own schemas, publication and slot in this file's own database, and drops them.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import postgres_admin
import pytest
from postgres_admin import ensure_database, lsn

FLOE = Path(os.environ.get("FLOE_BIN", Path(__file__).resolve().parents[2] / "build" / "floe"))
ENV = os.environ.get
PORT, HOST = ENV("FLOE_TEST_POSTGRES_PORT"), ENV("FLOE_TEST_POSTGRES_HOST", "127.0.0.1")
USER, PASSWORD = ENV("FLOE_TEST_POSTGRES_USER", "floe"), ENV("FLOE_TEST_POSTGRES_PASSWORD", "floe")
DATABASE = ENV("FLOE_TEST_POSTGRES_DATABASE", "floe") + "_tables"  # this file's own

pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_POSTGRES_PORT is not set")


@pytest.fixture(scope="module", autouse=True)
def own_database():
    ensure_database(HOST, PORT, USER, DATABASE)


def psql(sql: str, user: str | None = None) -> str:
    return postgres_admin.psql(HOST, PORT, DATABASE, sql, user or USER, PASSWORD)


class Setup:
    """This test's schema (and a second one for WAL outside the publication), publication,
    slot, lake and pipeline file."""

    def __init__(self, tmp_path: Path):
        suffix = f"{int(time.time() * 1000) % 10**9}_{random.randrange(1000)}"
        self.schema = f"pgtables_{suffix}"
        self.slot = f"pgtables_slot_{suffix}"
        self.publication = f"pgtables_pub_{suffix}"
        self.lake = tmp_path / "lake"
        self.lake.mkdir()
        self.pipeline = tmp_path / "pg.yaml"
        self.log = tmp_path / "run.log"
        self.proc: subprocess.Popen | None = None
        psql(f"CREATE SCHEMA {self.schema}; CREATE SCHEMA {self.schema}_other;")
        psql(f"CREATE PUBLICATION {self.publication} FOR TABLES IN SCHEMA {self.schema}", user="postgres")

    def write_pipeline(self, behavior: str, http_port: int | None = None) -> None:
        http = f"  http: 127.0.0.1:{http_port}\n" if http_port else ""
        source = postgres_admin.source_yaml(HOST, PORT, USER, DATABASE, f"{self.schema}.\\.*", self.slot,
                                            self.publication, "disabled", "initial")
        self.pipeline.write_text(f"""
{source}  heartbeat.interval: 500ms
sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///{self.lake}/catalog.db", warehouse: "{self.lake}/warehouse"}}
pipeline:
  name: pg-tables
  schema.change.behavior: {behavior}
  checkpoint.interval: 300ms
  state.dir: {self.lake}/state
{http}""")

    def start(self) -> None:
        env = dict(os.environ, FLOE_TEST_POSTGRES_PASSWORD=PASSWORD)
        with open(self.log, "w") as err:
            self.proc = subprocess.Popen([str(FLOE), "run", str(self.pipeline), "--progress", "never"],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                         env=env)

    def wait_for(self, what: str, check, timeout: float = 60):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            assert self.proc.poll() is None, f"floe run exited {self.proc.returncode}:\n{self.tail()}"
            last = check()
            if last:
                return last
            time.sleep(0.2)
        pytest.fail(f"timed out waiting for {what}; last: {last}\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text()[-4000:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=60) == 0, self.tail()

    def slot_active(self) -> bool:
        return psql(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{self.slot}' "
                    f"AND active_pid IS NOT NULL", user="postgres") == "1"

    def drop(self) -> None:
        end = time.monotonic() + 30
        while self.slot_active() and time.monotonic() < end:
            time.sleep(0.1)
        psql(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
             f"WHERE slot_name = '{self.slot}'", user="postgres")
        psql(f"DROP PUBLICATION IF EXISTS {self.publication}", user="postgres")
        psql(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE; DROP SCHEMA IF EXISTS {self.schema}_other CASCADE",
             user="postgres")

    # The lake, through PyIceberg (the tables here only ever get inserts).
    def catalog(self):
        from pyiceberg.catalog.sql import SqlCatalog

        return SqlCatalog("default", uri=f"sqlite:///{self.lake}/catalog.db",
                          warehouse=f"file://{self.lake}/warehouse")

    def lake_tables(self) -> set[str]:
        if not (self.lake / "catalog.db").exists():
            return set()
        try:
            return {ident[-1] for ident in self.catalog().list_tables(self.schema)}
        except Exception:  # the namespace is not there yet
            return set()

    def lake_ids(self, table: str) -> list[int]:
        arrow = self.catalog().load_table(f"{self.schema}.{table}").scan().to_arrow()
        return sorted(arrow.column("id").to_pylist())


@pytest.fixture
def setup(tmp_path):
    postgres_admin.require_tools(FLOE)
    pytest.importorskip("pyiceberg")
    s = Setup(tmp_path)
    try:
        yield s
    finally:
        try:
            s.stop()
        finally:
            s.drop()


def make_tables(s: Setup, *tables: str) -> None:
    for t in tables:
        psql(f"CREATE TABLE {s.schema}.{t} (id int PRIMARY KEY, v text);"
             f"INSERT INTO {s.schema}.{t} SELECT g, '{t} ' || g FROM generate_series(1, 5) g;")


def test_evolve_renames_and_drops_tables_with_no_row_after(setup):
    """evolve: a table renamed with no row change after it is renamed in the lake, and rows
    written after the rename land in the renamed table with none lost; a dropped table is
    dropped; DROP TABLE c then RENAME d TO c in the transaction of c's next row drops the
    old c before d takes its name; a rename and a drop while the run is stopped are found
    when it streams again."""
    s = setup
    make_tables(s, "a", "b", "c", "d", "keep")
    s.write_pipeline("evolve")
    s.start()
    s.wait_for("the snapshot in the lake",
               lambda: s.lake_tables() == {"a", "b", "c", "d", "keep"} and s.lake_ids("a") == [1, 2, 3, 4, 5])
    psql(f"INSERT INTO {s.schema}.a VALUES (6, 'a 6');")
    s.wait_for("row 6 of a", lambda: 6 in s.lake_ids("a"))

    psql(f"ALTER TABLE {s.schema}.a RENAME TO a_renamed;")
    psql(f"DROP TABLE {s.schema}.b;")
    s.wait_for("a renamed and b dropped in the lake",
               lambda: s.lake_tables() == {"a_renamed", "c", "d", "keep"})
    assert s.lake_ids("a_renamed") == [1, 2, 3, 4, 5, 6]
    props = s.catalog().load_table(f"{s.schema}.a_renamed").properties
    assert props.get("floe.renamed-from") == f"{s.schema}.a", props

    psql(f"INSERT INTO {s.schema}.a_renamed VALUES (7, 'after the rename');"
         f"INSERT INTO {s.schema}.keep VALUES (6, 'keep 6');")
    s.wait_for("rows after the rename", lambda: 7 in s.lake_ids("a_renamed") and 6 in s.lake_ids("keep"))
    assert s.lake_ids("a_renamed") == [1, 2, 3, 4, 5, 6, 7]

    # The name c is taken by d in the transaction of its next row: the Relation message of d
    # names it, and the catalog says the old c is gone.
    psql(f"BEGIN; DROP TABLE {s.schema}.c; ALTER TABLE {s.schema}.d RENAME TO c;"
         f"INSERT INTO {s.schema}.c VALUES (100, 'd as c'); COMMIT;")
    s.wait_for("d renamed to c", lambda: s.lake_tables() == {"a_renamed", "c", "keep"} and
               100 in s.lake_ids("c"))
    assert s.lake_ids("c") == [1, 2, 3, 4, 5, 100]
    assert s.catalog().load_table(f"{s.schema}.c").properties.get("floe.renamed-from") == f"{s.schema}.d"
    s.stop()
    text = s.log.read_text()
    assert "renamed to" in text and "dropped" in text, text[-3000:]

    # Renamed and dropped while the run is stopped: the relations kept in the checkpoint are
    # compared with the catalog when it streams again.
    psql(f"ALTER TABLE {s.schema}.keep RENAME TO kept; DROP TABLE {s.schema}.a_renamed;")
    s.start()
    s.wait_for("the changes made while stopped", lambda: s.lake_tables() == {"c", "kept"})
    assert s.lake_ids("kept") == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("behavior", ["evolve", "lenient"])
def test_a_table_renamed_out_of_the_pipeline_is_a_drop(setup, behavior):
    """A table moved to a schema the pipeline's `tables` do not select leaves the pipeline as a
    DROP TABLE of its old name does (as MySQL's RENAME TABLE out of the selection), with a
    warning: evolve drops its sink table, lenient keeps it."""
    s = setup
    make_tables(s, "a", "keep")
    s.write_pipeline(behavior)
    s.start()
    s.wait_for("the snapshot in the lake",
               lambda: s.lake_tables() == {"a", "keep"} and s.lake_ids("a") == [1, 2, 3, 4, 5])
    psql(f"ALTER TABLE {s.schema}.a SET SCHEMA {s.schema}_other;")
    psql(f"INSERT INTO {s.schema}.keep VALUES (6, 'keep 6');")
    s.wait_for("the warning", lambda: "leaves the pipeline, handled as DROP TABLE" in s.log.read_text())
    s.wait_for("the row after it", lambda: 6 in s.lake_ids("keep"))
    if behavior == "evolve":
        s.wait_for("a dropped in the lake", lambda: s.lake_tables() == {"keep"})
    else:
        assert s.lake_tables() == {"a", "keep"} and s.lake_ids("a") == [1, 2, 3, 4, 5]


class BusyWriter:
    """Inserts a row into one table every few milliseconds, each its own transaction, from a
    psql session of its own, until stopped: a database that is never idle."""

    def __init__(self, table: str, first_id: int):
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        self.proc = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT,
                                      "-U", USER, "-d", DATABASE], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, env=env, text=True)
        self.table, self.next_id = table, first_id
        # Each commit flushed at once (the test server's default is off: commits would reach
        # the stream in bursts, with idle moments between them).
        self.proc.stdin.write("SET synchronous_commit = on;\n")
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop_event.wait(0.005):
            self.proc.stdin.write(f"INSERT INTO {self.table} VALUES ({self.next_id}, 'busy');\n")
            self.proc.stdin.flush()
            self.next_id += 1

    def running(self) -> bool:
        return self.thread.is_alive() and self.proc.poll() is None

    def stop(self) -> int:
        """Stops writing; returns the last id written."""
        self.stop_event.set()
        self.thread.join()
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0
        return self.next_id - 1


def test_evolve_renames_and_drops_tables_while_the_database_is_busy(setup):
    """evolve on a database that is never idle (a row committed every few milliseconds into
    another table): a table renamed with no row after it and one dropped reach the lake while
    the writes go on, from catalog readings taken at the Begin of a transaction; no row of
    the busy table is lost."""
    s = setup
    make_tables(s, "a", "b", "keep")
    s.write_pipeline("evolve")
    s.start()
    s.wait_for("the snapshot in the lake",
               lambda: s.lake_tables() == {"a", "b", "keep"} and s.lake_ids("keep") == [1, 2, 3, 4, 5])
    writer = BusyWriter(f"{s.schema}.keep", 6)
    try:
        s.wait_for("the busy rows in the lake", lambda: len(s.lake_ids("keep")) > 50)
        psql(f"ALTER TABLE {s.schema}.a RENAME TO a_busy;")
        psql(f"DROP TABLE {s.schema}.b;")
        s.wait_for("a renamed and b dropped in the lake", lambda: s.lake_tables() == {"a_busy", "keep"}, timeout=30)
        assert writer.running(), "the writer stopped: the database was idle"
    finally:
        last = writer.stop()
    assert s.lake_ids("a_busy") == [1, 2, 3, 4, 5]
    s.wait_for("every busy row", lambda: len(s.lake_ids("keep")) == last)
    assert s.lake_ids("keep") == list(range(1, last + 1))


def test_lenient_keeps_renamed_and_dropped_tables(setup):
    """lenient (the default): a dropped table stays in the lake as it was; a renamed one stays
    under its old name, and the new name gets a table of its own for the rows after it."""
    s = setup
    make_tables(s, "a", "b")
    s.write_pipeline("lenient")
    s.start()
    s.wait_for("the snapshot in the lake", lambda: s.lake_tables() == {"a", "b"} and len(s.lake_ids("b")) == 5)
    psql(f"ALTER TABLE {s.schema}.a RENAME TO a_renamed;")
    psql(f"DROP TABLE {s.schema}.b;")
    # The new name's table is made when the rename is seen, before any row of it.
    s.wait_for("a table for the new name", lambda: "a_renamed" in s.lake_tables())
    psql(f"INSERT INTO {s.schema}.a_renamed VALUES (6, 'after the rename');")
    s.wait_for("the row after the rename", lambda: s.lake_ids("a_renamed") == [6])
    assert s.lake_tables() == {"a", "a_renamed", "b"}
    assert s.lake_ids("a") == [1, 2, 3, 4, 5]
    assert s.lake_ids("b") == [1, 2, 3, 4, 5]


def metrics(port: int) -> dict[str, tuple[str, float]]:
    """The floe_postgres_slot_* samples of /metrics: name -> (labels, value)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("floe_postgres_slot_"):
            key, value = line.rsplit(" ", 1)
            name, _, labels = key.partition("{")
            out[name] = (labels.rstrip("}"), float(value))
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_metrics_show_the_wal_the_slot_retains(setup):
    """/metrics: the bytes of WAL the slot retains (pg_current_wal_lsn() - restart_lsn) and its
    confirmed_flush_lsn, read every few seconds; both move as the server writes WAL (here to a
    table outside the publication) and heartbeats confirm it."""
    s = setup
    make_tables(s, "a")
    port = free_port()
    s.write_pipeline("lenient", http_port=port)
    s.start()

    def read():
        try:
            m = metrics(port)
        except (urllib.error.URLError, ConnectionError):
            return None
        return m if "floe_postgres_slot_retained_wal_bytes" in m else None

    first = s.wait_for("the slot's WAL on /metrics", read, timeout=60)
    assert first["floe_postgres_slot_retained_wal_bytes"][0] == f'slot="{s.slot}"'
    assert first["floe_postgres_slot_retained_wal_bytes"][1] >= 0
    labels, confirmed = first["floe_postgres_slot_confirmed_flush_lsn"]
    assert labels.startswith(f'slot="{s.slot}",lsn="'), labels
    assert lsn(labels.split('lsn="')[1].rstrip('"')) == confirmed

    psql(f"CREATE TABLE {s.schema}_other.w (id int, pad text);"
         f"INSERT INTO {s.schema}_other.w SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g;")
    target = lsn(psql("SELECT pg_current_wal_lsn()"))
    moved = s.wait_for("the confirmed LSN past the new WAL", lambda: (m := read()) and
                       m["floe_postgres_slot_confirmed_flush_lsn"][1] >= target and m, timeout=60)
    assert moved["floe_postgres_slot_retained_wal_bytes"][1] != first["floe_postgres_slot_retained_wal_bytes"][1]
    # What the server says, within what it wrote since.
    row = psql(f"SELECT pg_current_wal_lsn() - restart_lsn FROM pg_replication_slots "
               f"WHERE slot_name = '{s.slot}'", user="postgres")
    assert int(row) >= 0
    print(f"retained {first['floe_postgres_slot_retained_wal_bytes'][1]:.0f} -> "
          f"{moved['floe_postgres_slot_retained_wal_bytes'][1]:.0f} bytes (server now {row}); "
          f"confirmed {confirmed:.0f} -> {moved['floe_postgres_slot_confirmed_flush_lsn'][1]:.0f}")
