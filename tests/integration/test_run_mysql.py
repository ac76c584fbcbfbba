"""`floe run` mirrors a changing MariaDB database exactly once through SIGKILLs (issue 10).

A randomized workload (inserts, updates, deletes, primary-key changes, multi-statement
transactions; with `schema.change.behavior: evolve` every DDL — columns added anywhere,
dropped, renamed, widened, primary keys changed, tables created, renamed, dropped, truncated;
with lenient ADD COLUMN, new tables, truncations) runs on a real MariaDB while `floe run`
is killed with SIGKILL at random moments — during the initial snapshot, between a DDL and
its rows, during commits — and started again with the same pipeline file. At the end
every table of the database must equal its Iceberg table row for row and column for
column, read by Iceberg Java and by `floe table scan` (examples/mirror_check.py), and no
checkpoint id may be committed twice to a table.

Needs the MariaDB of scripts/services/mariadb.sh: floe connects as FLOE_TEST_MYSQL_USER;
the workload runs as root over the server's socket (.cache/mariadb/mariadb.sock), since
the test user may write only floe_test. Skipped only when FLOE_TEST_MYSQL_PORT is unset.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pymysql = pytest.importorskip("pymysql")

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_MYSQL_PORT")
SOCKET = Path(os.environ.get("FLOE_TEST_MYSQL_SOCKET", ROOT / ".cache" / "mariadb" / "mariadb.sock"))
CLASSPATH = ROOT / ".cache" / "java-peer" / "classpath.txt"
KILLS = int(os.environ.get("FLOE_RUN_KILLS", "50"))
DB = "floe_run_mirror"
SERVER_IDS = (80000, 89899)
MARKER_ID = 2_000_000_000

pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_MYSQL_PORT is not set")


def root_connection():
    # Bounded lock waits: a statement of the test never waits for ever on a lock.
    return pymysql.connect(unix_socket=str(SOCKET), user="root", autocommit=True,
                           init_command="SET SESSION lock_wait_timeout = 60, "
                                        "innodb_lock_wait_timeout = 30")


def write_pipeline(path: Path, lake: Path, behavior: str = "lenient", db: str = DB,
                   server_ids: tuple[int, int] = SERVER_IDS) -> None:
    """The pipeline of `db`'s tables into `lake`, as a replica whose server id is drawn from
    `server_ids` (each test file its own range: files run side by side)."""
    path.write_text(f"""
source:
  type: mysql
  hostname: {os.environ.get("FLOE_TEST_MYSQL_HOST", "127.0.0.1")}
  port: {PORT}
  username: {os.environ.get("FLOE_TEST_MYSQL_USER", "floe")}
  password: ${{FLOE_TEST_MYSQL_PASSWORD}}
  tables: {db}.\\.*
  server-id: {random.randint(*server_ids)}
  scan.incremental.snapshot.chunk.size: 2000
sink:
  type: iceberg
  catalog: {{type: sql, uri: "sqlite:///{lake}/catalog.db", warehouse: "{lake}/warehouse"}}
pipeline:
  name: mirror-test
  schema.change.behavior: {behavior}
  parallelism: 2
  checkpoint.interval: 300ms
  state.dir: {lake}/state
""")


class Workload:
    """Random transactions on the database until stopped; DDL now and then."""

    def __init__(self, seed: int, db: str = DB):
        self.db = db
        self.random = random.Random(seed)
        self.tables = {"t1": 1, "t2": 1, "t3": 1}  # table -> next id
        self.extra_columns: dict[str, int] = {}
        self.stop = threading.Event()
        self.transactions = 0
        self.reconnects = 0
        self.failures: list[str] = []
        self.error: BaseException | None = None

    def create(self, c, table: str, rows: int) -> None:
        c.execute(f"CREATE TABLE {self.db}.{table} (id INT PRIMARY KEY, v VARCHAR(32) NOT NULL, "
                  "n BIGINT, d DECIMAL(12,2), ts DATETIME(6) NULL)")
        self.tables[table] = 1
        for start in range(0, rows, 1000):
            values = [self.row(table) for _ in range(min(1000, rows - start))]
            c.executemany(f"INSERT INTO {self.db}.{table} (id, v, n, d, ts) VALUES (%s, %s, %s, %s, %s)", values)

    def row(self, table: str):
        i = self.tables[table]
        self.tables[table] += 1
        r = self.random
        ts = None if r.random() < 0.2 else f"2024-0{r.randint(1, 9)}-1{r.randint(0, 9)} 12:3{r.randint(0, 9)}:00.{r.randint(0, 999999):06d}"
        return (i, f"v{r.randint(0, 10**6)}", r.randint(-2**40, 2**40), f"{r.randint(-10**8, 10**8)}.{r.randint(0, 99):02d}", ts)

    def statement(self, c, table: str) -> None:
        r = self.random
        top = self.tables[table]
        pick = r.random()
        if pick < 0.4:
            c.execute(f"INSERT INTO {self.db}.{table} (id, v, n, d, ts) VALUES (%s, %s, %s, %s, %s)", self.row(table))
        elif pick < 0.75:
            c.execute(f"UPDATE {self.db}.{table} SET v = %s, n = n + 1, d = %s WHERE id = %s",
                      (f"u{r.randint(0, 10**6)}", f"{r.randint(0, 9999)}.{r.randint(0, 99):02d}", r.randrange(1, top)))
        elif pick < 0.9:
            c.execute(f"DELETE FROM {self.db}.{table} WHERE id = %s", (r.randrange(1, top),))
        else:  # a primary-key change
            new_id = self.tables[table]
            self.tables[table] += 1
            c.execute(f"UPDATE {self.db}.{table} SET id = %s WHERE id = %s", (new_id, r.randrange(1, top)))

    def ddl(self, c) -> None:
        r = self.random
        pick = r.random()
        table = r.choice(sorted(self.tables))
        if pick < 0.5:
            n = self.extra_columns.get(table, 0) + 1
            self.extra_columns[table] = n
            c.execute(f"ALTER TABLE {self.db}.{table} ADD COLUMN x{n} INT NULL")
            c.execute(f"UPDATE {self.db}.{table} SET x{n} = id % 97 WHERE id % 3 = 0")
        elif pick < 0.8:
            self.create(c, f"n{len(self.tables)}", r.randint(0, 300))
        else:
            c.execute(f"TRUNCATE TABLE {self.db}.{table}")

    def run(self) -> None:
        # The test compares the lake with the database as it ends up, so a
        # statement that fails (a dropped connection, a lock timeout, ...) does
        # not matter: roll back, count it, go on with a new connection.
        try:
            while not self.stop.is_set():
                try:
                    conn = root_connection()
                except pymysql.err.MySQLError as e:  # the server is restarting
                    self.reconnects += 1
                    self.failures.append(repr(e))
                    time.sleep(0.2)
                    continue
                try:
                    with conn.cursor() as c:
                        while not self.stop.is_set():
                            if self.random.random() < 0.004:  # DDL from the start: during the snapshot too
                                self.ddl(c)
                            else:
                                c.execute("BEGIN")
                                for _ in range(self.random.randint(1, 5)):
                                    self.statement(c, self.random.choice(sorted(self.tables)))
                                c.execute("COMMIT")
                            self.transactions += 1
                            time.sleep(self.random.uniform(0, 0.004))
                except pymysql.err.MySQLError as e:
                    self.reconnects += 1
                    self.failures.append(repr(e))
                finally:
                    try:
                        conn.rollback()
                        conn.close()
                    except pymysql.err.MySQLError:
                        pass
        except BaseException as e:  # reported by the test
            self.error = e


class EvolveWorkload(Workload):
    """The workload with every DDL `schema.change.behavior: evolve` mirrors: columns added
    (at the end, FIRST, AFTER), dropped, renamed and widened, primary keys changed, tables
    created, renamed, dropped and truncated. t1 (which gets the end marker) is never renamed
    or dropped."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.extra: dict[str, list[str]] = {}  # table -> its added columns, in no order
        self.columns_made = 0
        self.keyed_by_v: set[str] = set()
        self.widened: dict[str, int] = {}  # table -> the precision of d
        self.ddl_counts: dict[str, int] = {}
        self.dropped: list[str] = []
        self.every_ddl_now = threading.Event()
        self.every_ddl_done = False

    KINDS = [("add column", 22), ("drop column", 10), ("rename column", 12), ("widen column", 8),
             ("primary key", 8), ("create table", 14), ("rename table", 10), ("drop table", 8),
             ("truncate", 8)]

    def ddl(self, c) -> None:
        if self.every_ddl_now.is_set() and not self.every_ddl_done:
            # Once, on request: every kind in a row (so each is covered whatever the seed).
            for kind, _ in self.KINDS:
                self.one_ddl(c, kind, "t2" if kind in ("rename table", "drop table") else "t1")
            self.every_ddl_done = True
            return
        kinds, weights = zip(*self.KINDS)
        self.one_ddl(c, self.random.choices(kinds, weights)[0], self.random.choice(sorted(self.tables)))

    def one_ddl(self, c, kind: str, table: str) -> None:
        r = self.random
        if table not in self.tables:
            return
        extra = self.extra.setdefault(table, [])
        if kind in ("drop column", "rename column") and not extra:
            kind = "add column"
        if kind in ("rename table", "drop table") and (table == "t1" or len(self.tables) <= 3):
            kind = "truncate"
        if kind == "add column":
            self.columns_made += 1
            name = f"x{self.columns_made}"
            where = r.choice(["", " FIRST", " AFTER v", " AFTER id"])
            c.execute(f"ALTER TABLE {self.db}.{table} ADD COLUMN {name} INT NULL{where}")
            extra.append(name)
            c.execute(f"UPDATE {self.db}.{table} SET {name} = id % 97 WHERE id % 3 = 0")
        elif kind == "drop column":
            name = extra.pop(r.randrange(len(extra)))
            c.execute(f"ALTER TABLE {self.db}.{table} DROP COLUMN {name}")
        elif kind == "rename column":
            i = r.randrange(len(extra))
            self.columns_made += 1
            new = f"r{self.columns_made}"
            if r.random() < 0.5:
                c.execute(f"ALTER TABLE {self.db}.{table} RENAME COLUMN {extra[i]} TO {new}")
            else:  # CHANGE renames and widens at once
                c.execute(f"ALTER TABLE {self.db}.{table} CHANGE COLUMN {extra[i]} {new} BIGINT NULL")
            extra[i] = new
        elif kind == "widen column":
            if extra and r.random() < 0.5:
                c.execute(f"ALTER TABLE {self.db}.{table} MODIFY COLUMN {r.choice(extra)} BIGINT NULL")
            else:
                precision = self.widened.get(table, 12) + 1
                self.widened[table] = precision
                c.execute(f"ALTER TABLE {self.db}.{table} MODIFY COLUMN d DECIMAL({precision},2)")
        elif kind == "primary key":
            if table in self.keyed_by_v:
                c.execute(f"ALTER TABLE {self.db}.{table} DROP PRIMARY KEY, ADD PRIMARY KEY (id)")
                self.keyed_by_v.discard(table)
            else:
                c.execute(f"ALTER TABLE {self.db}.{table} DROP PRIMARY KEY, ADD PRIMARY KEY (id, v)")
                self.keyed_by_v.add(table)
        elif kind == "create table":
            if self.dropped and r.random() < 0.4:  # a name the lake had before
                name = self.dropped.pop(r.randrange(len(self.dropped)))
            else:
                self.columns_made += 1
                name = f"n{self.columns_made}"
            self.create(c, name, r.randint(0, 300))
        elif kind == "rename table":
            self.columns_made += 1
            new = f"{table.split('_')[0]}_{self.columns_made}"
            c.execute(f"RENAME TABLE {self.db}.{table} TO {self.db}.{new}")
            self.tables[new] = self.tables.pop(table)
            self.extra[new] = self.extra.pop(table, [])
            if table in self.keyed_by_v:
                self.keyed_by_v.discard(table)
                self.keyed_by_v.add(new)
            if table in self.widened:
                self.widened[new] = self.widened.pop(table)
            self.dropped.append(table)  # its name is free again
        elif kind == "drop table":
            c.execute(f"DROP TABLE {self.db}.{table}")
            del self.tables[table]
            self.extra.pop(table, None)
            self.keyed_by_v.discard(table)
            self.widened.pop(table, None)
            self.dropped.append(table)
        else:
            c.execute(f"TRUNCATE TABLE {self.db}.{table}")
        self.ddl_counts[kind] = self.ddl_counts.get(kind, 0) + 1


def start_run(pipeline: Path, log: Path) -> subprocess.Popen:
    env = dict(os.environ, FLOE_TEST_MYSQL_PASSWORD=os.environ.get("FLOE_TEST_MYSQL_PASSWORD", "floe"))
    with open(log, "w") as err:
        return subprocess.Popen([str(FLOE), "run", str(pipeline)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=env)


def lake_has_marker(lake: Path) -> bool:
    config = lake / "catalog.yaml"
    proc = subprocess.run([str(FLOE), "table", "--catalog-config", str(config), "scan", f"{DB}.t1",
                           "--where", f"id = {MARKER_ID}"], capture_output=True, text=True, timeout=120)
    return proc.returncode == 0 and str(MARKER_ID) in proc.stdout


def checkpoint_ids_once(lake: Path) -> dict[str, int]:
    """Commits per table; fails when a checkpoint id of the pipeline appears twice."""
    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog("default", uri=f"sqlite:///{lake}/catalog.db", warehouse=f"file://{lake}/warehouse")
    commits = {}
    for ident in catalog.list_tables(DB):
        table = catalog.load_table(ident)
        seen: set[str] = set()
        for snapshot in table.metadata.snapshots:
            summary = snapshot.summary.additional_properties if snapshot.summary else {}
            checkpoint = summary.get("floe.checkpoint-id")
            if checkpoint is None:
                continue
            assert checkpoint not in seen, f"{ident}: checkpoint {checkpoint} committed twice"
            seen.add(checkpoint)
        commits[".".join(ident)] = len(seen)
    return commits


def make_lake(tmp_path: Path) -> Path:
    """An empty lake folder with floe's catalog config for its SQL catalog."""
    lake = tmp_path / "lake"
    lake.mkdir()
    (lake / "catalog.yaml").write_text(
        f"catalog:\n  default:\n    type: sql\n    uri: sqlite:///{lake}/catalog.db\n"
        f"    warehouse: {lake}/warehouse\n")
    return lake


def check_mirror(lake: Path, exact_schema: bool) -> subprocess.CompletedProcess:
    """examples/mirror_check.py over the database and the lake (Iceberg Java and floe)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mirror_check.py"), "--database", DB,
         "--mariadb", f"mariadb --no-defaults --protocol=socket --socket={SOCKET} -uroot",
         "--floe", str(FLOE), "--catalog-config", str(lake / "catalog.yaml"),
         "--sqlite", str(lake / "catalog.db"), "--warehouse", str(lake / "warehouse"),
         "--java-classpath", str(CLASSPATH)] + (["--exact-schema"] if exact_schema else []),
        capture_output=True, text=True, timeout=600)


class Mirror:
    """A database under a random workload, its pipeline file and its lake."""

    def __init__(self, tmp_path: Path, rows_per_table: int = 20_000, behavior: str = "lenient"):
        self.tmp = tmp_path
        self.seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
        print(f"seed {self.seed}")
        self.random = random.Random(self.seed)
        self.lake = make_lake(tmp_path)
        self.pipeline = tmp_path / "mirror.yaml"
        write_pipeline(self.pipeline, self.lake, behavior)
        self.behavior = behavior
        self.workload = EvolveWorkload(self.seed) if behavior == "evolve" else Workload(self.seed)
        self.conn = root_connection()
        with self.conn.cursor() as c:
            c.execute(f"DROP DATABASE IF EXISTS {DB}")
            c.execute(f"CREATE DATABASE {DB}")
            for table in ("t1", "t2", "t3"):
                self.workload.create(c, table, rows_per_table)
        self.writer = threading.Thread(target=self.workload.run, daemon=True)
        self.logs: list[Path] = []

    @property
    def state(self) -> Path:
        return self.lake / "state"

    def kill_runs(self, kills: int, after_kill=None, early_kills: int = 5, during_run=None) -> None:
        """Starts the workload, then `kills` runs of floe, each killed with SIGKILL (the first
        `early_kills` soon after the start: in the snapshot or before the first commit).
        `during_run(kill)`, called while a run runs, returns True when that run may end on
        its own (e.g. its server went away)."""
        self.writer.start()
        try:
            for kill in range(kills):
                self.logs.append(self.tmp / f"run{kill}.log")
                proc = start_run(self.pipeline, self.logs[-1])
                # Short runs die in the snapshot or before the first commit, long ones mid-stream.
                early = kill < early_kills
                time.sleep(self.random.uniform(0.2, 0.8) if early else self.random.uniform(0.8, 2.5))
                may_end = during_run is not None and during_run(kill)
                code = proc.poll()
                assert code is None or may_end, \
                    f"floe run exited {code} on its own:\n{self.logs[-1].read_text()[-3000:]}"
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                assert self.workload.error is None, self.workload.error
                if after_kill is not None:
                    after_kill(kill)
        finally:
            self.workload.stop.set()
            self.writer.join()
        assert self.workload.error is None, self.workload.error

    def finish(self) -> None:
        """One more run until the lake holds the last change, then SIGTERM (final commit)."""
        conn = root_connection()  # a fresh one: the server may have restarted
        with conn.cursor() as c:
            c.execute(f"INSERT INTO {DB}.t1 (id, v) VALUES ({MARKER_ID}, 'the end')")
        conn.close()
        self.logs.append(self.tmp / "final.log")
        proc = start_run(self.pipeline, self.logs[-1])
        deadline = time.monotonic() + 300
        while not lake_has_marker(self.lake):
            assert proc.poll() is None, f"floe run exited {proc.returncode}:\n{self.logs[-1].read_text()[-3000:]}"
            assert time.monotonic() < deadline, "the lake did not catch up in 5 minutes"
            time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, self.logs[-1].read_text()[-3000:]

    def check(self) -> None:
        """Every table equals MariaDB (Iceberg Java and floe table scan); no checkpoint twice."""
        commits = checkpoint_ids_once(self.lake)
        resumed = sum(1 for log in self.logs if "resuming the capture" in log.read_text())
        print(f"{len(self.logs) - 1} kills, {resumed} runs resumed from a checkpoint, "
              f"{self.workload.transactions} transactions ({self.workload.reconnects} failed statements: "
              f"{self.workload.failures[:3]}), "
              f"{len(self.workload.tables)} tables, commits per table {commits}, "
              f"DDL {getattr(self.workload, 'ddl_counts', {})}")
        check = check_mirror(self.lake, exact_schema=self.behavior == "evolve")
        print(check.stdout[-6000:])
        assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
        assert "Iceberg Java" in check.stdout, "Iceberg Java did not read the mirror"
        assert resumed >= (len(self.logs) - 1) // 2, f"only {resumed} runs resumed from a checkpoint"


def committed_checkpoint(lake: Path) -> int:
    """The highest checkpoint id committed to any table of the database."""
    from pyiceberg.catalog.sql import SqlCatalog

    catalog = SqlCatalog("default", uri=f"sqlite:///{lake}/catalog.db", warehouse=f"file://{lake}/warehouse")
    best = 0
    for ident in catalog.list_tables(DB):
        props = catalog.load_table(ident).metadata.properties
        best = max([best] + [int(v) for k, v in props.items() if k.startswith("floe.committed-checkpoint.")])
    return best


def preflight() -> None:
    if not FLOE.exists():
        pytest.skip(f"{FLOE} not built")
    if not SOCKET.exists():
        pytest.skip(f"no MariaDB socket at {SOCKET}")


def restart_mariadb() -> None:
    script = ROOT / "scripts" / "services" / "mariadb.sh"
    for action in ("stop", "start"):
        done = subprocess.run(["bash", str(script), action], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"mariadb.sh {action}: {done.stdout}{done.stderr}"


# It restarts the test MariaDB, which every MySQL test file shares.
@pytest.mark.serial
def test_run_evolve_exactly_once_under_sigkill(tmp_path):
    """schema.change.behavior evolve: every DDL, 50 SIGKILLs, the state folder deleted once
    and MariaDB restarted once under a running pipeline; the lake equals MariaDB row for row
    and column for column (names, order, types, key)."""
    preflight()
    mirror = Mirror(tmp_path, behavior="evolve")
    restart_at, lose_state_at = KILLS // 3, (3 * KILLS) // 4

    def after_kill(kill: int) -> None:
        if kill == KILLS // 2:
            mirror.workload.every_ddl_now.set()
        if kill == lose_state_at:
            shutil.rmtree(mirror.state)

    def during_run(kill: int) -> bool:
        if kill != restart_at:
            return False
        restart_mariadb()
        time.sleep(3)
        return True  # the run may give up on the server, or reconnect

    mirror.kill_runs(KILLS, after_kill, during_run=during_run)
    assert mirror.workload.every_ddl_done, "the round of every DDL did not run"
    text = mirror.logs[lose_state_at + 1].read_text()
    assert "resuming from the lake's copy" in text, text[-3000:]
    mirror.finish()
    mirror.check()


def test_run_lenient_exactly_once_under_sigkill(tmp_path):
    """schema.change.behavior lenient (the default): added columns, new tables, truncations."""
    preflight()
    mirror = Mirror(tmp_path)
    mirror.kill_runs(max(KILLS // 3, 5))
    mirror.finish()
    mirror.check()


@pytest.mark.parametrize("damage", ["truncated", "older"])
def test_run_state_behind_the_lake(damage, tmp_path):
    """The newest checkpoint files truncated, or an old copy of the state folder put back:
    the tables that hold more than the restored checkpoint skip what they hold."""
    preflight()
    mirror = Mirror(tmp_path, rows_per_table=5_000)

    def after_kill(kill: int) -> None:
        if kill == 1:
            assert list((mirror.state / "checkpoints").glob("checkpoint-*.json")), "no checkpoint yet"
            shutil.copytree(mirror.state, tmp_path / "state-copy")
        if kill == 5:
            committed = committed_checkpoint(mirror.lake)
            assert committed > 0
            if damage == "truncated":
                for path in (mirror.state / "checkpoints").glob("checkpoint-*.json"):
                    if int(path.stem.split("-")[1]) >= committed:
                        with open(path, "r+b") as f:
                            f.truncate(50)
            else:
                shutil.rmtree(mirror.state)
                shutil.copytree(tmp_path / "state-copy", mirror.state)

    # Runs long enough that the copy taken after the second has a checkpoint, and the
    # tables commit more before the damage.
    mirror.kill_runs(8, after_kill, early_kills=0)
    assert "behind the lake" in mirror.logs[6].read_text(), mirror.logs[6].read_text()[-3000:]
    mirror.finish()
    mirror.check()


def lake_state_copies(lake: Path) -> list[Path]:
    """The folders of the lake's copy of the source state (beside the tables)."""
    return [p for p in (lake / "warehouse").rglob("source-state") if p.is_dir()]


def test_run_state_folder_lost_resumes_from_the_lake(tmp_path):
    """The state folder deleted between two runs: the run resumes from the lake's copy of the
    source state, the tables ahead of it skip what they hold, and the mirror is exact."""
    preflight()
    mirror = Mirror(tmp_path, rows_per_table=5_000, behavior="evolve")

    def after_kill(kill: int) -> None:
        if kill == 4:
            assert lake_state_copies(mirror.lake), "no copy of the source state in the lake"
            shutil.rmtree(mirror.state)

    mirror.kill_runs(8, after_kill, early_kills=0)
    assert "resuming from the lake's copy" in mirror.logs[5].read_text(), mirror.logs[5].read_text()[-3000:]
    mirror.finish()
    mirror.check()


def test_run_state_folder_lost_stops_without_writing(tmp_path):
    """With the state folder and the lake's copy of the source state both gone the binlog
    cannot be read from where the tables are: the run stops with an error naming a table,
    and the lake is left as it was."""
    preflight()
    mirror = Mirror(tmp_path, rows_per_table=2_000)
    mirror.kill_runs(3, early_kills=0)
    if committed_checkpoint(mirror.lake) == 0:
        # A loaded machine can kill every run before its first commit: one more run,
        # killed once the lake has a commit.
        mirror.logs.append(tmp_path / "until-commit.log")
        proc = start_run(mirror.pipeline, mirror.logs[-1])
        deadline = time.monotonic() + 180
        while committed_checkpoint(mirror.lake) == 0:
            assert proc.poll() is None, mirror.logs[-1].read_text()[-3000:]
            assert time.monotonic() < deadline, "no commit in 3 minutes"
            time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert committed_checkpoint(mirror.lake) > 0
    shutil.rmtree(mirror.state)
    for copy in lake_state_copies(mirror.lake):
        shutil.rmtree(copy)
    before = sorted(p.name for p in (mirror.lake / "warehouse").rglob("*") if p.is_file())
    log = tmp_path / "lost.log"
    proc = start_run(mirror.pipeline, log)
    assert proc.wait(timeout=120) == 1, log.read_text()[-3000:]
    text = log.read_text()
    assert "the state folder has no checkpoint" in text and "Restore the state folder" in text, text[-3000:]
    after = sorted(p.name for p in (mirror.lake / "warehouse").rglob("*") if p.is_file())
    assert before == after, "a run that refused to start wrote to the lake"


@pytest.mark.parametrize("ddl", [
    "ALTER TABLE {t} ADD COLUMN extra INT NULL AFTER v",
    "ALTER TABLE {t} DROP COLUMN ts",
    "ALTER TABLE {t} RENAME COLUMN n TO amount",
    "ALTER TABLE {t} MODIFY COLUMN d DECIMAL(14,2)",
])
def test_run_ddl_during_the_initial_snapshot(ddl, tmp_path):
    """A DDL on a table while the initial snapshot reads it: the snapshot is taken again
    (nothing of the first one was committed) and the mirror is exact."""
    preflight()
    lake = make_lake(tmp_path)
    pipeline = tmp_path / "mirror.yaml"
    write_pipeline(pipeline, lake, "evolve")
    pipeline.write_text(pipeline.read_text().replace("chunk.size: 2000", "chunk.size: 100"))
    workload = Workload(1)
    conn = root_connection()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        workload.create(c, "t1", 100_000)
    log = tmp_path / "run.log"
    proc = start_run(pipeline, log)
    try:
        deadline = time.monotonic() + 60
        while "streaming will start" not in log.read_text():
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the snapshot did not start"
            time.sleep(0.01)
        with conn.cursor() as c:
            c.execute(ddl.format(t=f"{DB}.t1"))
            c.execute(f"UPDATE {DB}.t1 SET v = 'after the ddl' WHERE id % 1000 = 7")
            c.execute(f"INSERT INTO {DB}.t1 (id, v) VALUES ({MARKER_ID}, 'the end')")
        deadline = time.monotonic() + 300
        while not lake_has_marker(lake):
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the lake did not catch up in 5 minutes"
            time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    text = log.read_text()
    print([line for line in text.splitlines() if "snapshot again" in line][:3])
    check = check_mirror(lake, exact_schema=True)
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]


def test_run_newly_added_table_is_snapshotted_on_restart(tmp_path):
    """scan.newly-added-table.enabled: a table added to `tables` of a stopped pipeline is
    snapshotted on restart (a SIGKILL in that snapshot only repeats it) while the others
    resume where they were; its changes made while the pipeline was stopped — a DDL among
    them — are in the snapshot, not replayed."""
    preflight()
    lake = make_lake(tmp_path)
    pipeline = tmp_path / "mirror.yaml"
    write_pipeline(pipeline, lake, "evolve")
    text = pipeline.read_text().replace("chunk.size: 2000", "chunk.size: 200")
    text = text.replace("server-id:", "scan.newly-added-table.enabled: true\n  server-id:")
    pipeline.write_text(text.replace(f"tables: {DB}.\\.*", f"tables: {DB}.t1"))
    workload = Workload(7)
    conn = root_connection()
    with conn.cursor() as c:
        c.execute(f"DROP DATABASE IF EXISTS {DB}")
        c.execute(f"CREATE DATABASE {DB}")
        workload.create(c, "t1", 2_000)
        workload.create(c, "t2", 30_000)

    def run_until(marker_table: str, log: Path) -> None:
        with conn.cursor() as c:
            c.execute(f"DELETE FROM {DB}.{marker_table} WHERE id = {MARKER_ID}")
            c.execute(f"INSERT INTO {DB}.{marker_table} (id, v) VALUES ({MARKER_ID}, 'the end')")
        proc = start_run(pipeline, log)
        deadline = time.monotonic() + 300
        config = lake / "catalog.yaml"
        while True:
            scan = subprocess.run([str(FLOE), "table", "--catalog-config", str(config), "scan",
                                   f"{DB}.{marker_table}", "--where", f"id = {MARKER_ID}"],
                                  capture_output=True, text=True, timeout=120)
            if scan.returncode == 0 and str(MARKER_ID) in scan.stdout:
                break
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the lake did not catch up in 5 minutes"
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, log.read_text()[-3000:]

    run_until("t1", tmp_path / "first.log")
    with conn.cursor() as c:  # while the pipeline is stopped
        for _ in range(200):
            workload.statement(c, "t1")
            workload.statement(c, "t2")
        c.execute(f"ALTER TABLE {DB}.t2 ADD COLUMN added INT NULL AFTER v")
        c.execute(f"UPDATE {DB}.t2 SET added = id % 13 WHERE id % 5 = 0")
    pipeline.write_text(pipeline.read_text().replace(f"tables: {DB}.t1", f"tables: {DB}.t1, {DB}.t2"))
    # Killed in the new table's snapshot: the next run takes it again.
    killed_log = tmp_path / "killed.log"
    proc = start_run(pipeline, killed_log)
    deadline = time.monotonic() + 60
    while "the state does not know" not in killed_log.read_text():
        assert proc.poll() is None, killed_log.read_text()[-3000:]
        assert time.monotonic() < deadline, killed_log.read_text()[-3000:]
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with conn.cursor() as c:
        for _ in range(100):
            workload.statement(c, "t1")
            workload.statement(c, "t2")
    run_until("t2", tmp_path / "second.log")
    text = (tmp_path / "second.log").read_text()
    assert "the state does not know (floe_run_mirror.t2)" in text, text[-3000:]
    assert "resuming the capture" in text, text[-3000:]
    check = check_mirror(lake, exact_schema=True)
    print(check.stdout[-3000:])
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr[-3000:]
