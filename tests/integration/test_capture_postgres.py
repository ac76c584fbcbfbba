"""`floe capture postgres` against the test PostgreSQL.

Needs the server of scripts/services/postgres.sh (FLOE_TEST_POSTGRES_HOST/
PORT/USER/PASSWORD/DATABASE, as scripts/test.sh exports them), psql, and
build/floe (FLOE_BIN overrides). Skipped when FLOE_TEST_POSTGRES_PORT is unset.

Each test makes its own tables, publication and slot (named after the test
and the time) and drops them. The slot is created by a first, idle run of
floe; the workload follows; a second run prints it.
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
from postgres_admin import ensure_database, require_tools

ROOT = Path(__file__).resolve().parents[2]
FLOE = Path(os.environ.get("FLOE_BIN", ROOT / "build" / "floe"))
PORT = os.environ.get("FLOE_TEST_POSTGRES_PORT")
HOST = os.environ.get("FLOE_TEST_POSTGRES_HOST", "127.0.0.1")
USER = os.environ.get("FLOE_TEST_POSTGRES_USER", "floe")
PASSWORD = os.environ.get("FLOE_TEST_POSTGRES_PASSWORD", "floe")
# This file's own database on the test server (made by own_database below): the other
# PostgreSQL test file may run at the same time.
DATABASE = os.environ.get("FLOE_TEST_POSTGRES_DATABASE", "floe") + "_capture"
pytestmark = pytest.mark.skipif(PORT is None, reason="FLOE_TEST_POSTGRES_PORT is not set")


@pytest.fixture(scope="module", autouse=True)
def own_database():
    """Makes DATABASE (owned by USER) when it is not there yet."""
    ensure_database(HOST, PORT, USER, DATABASE)


def psql(sql, user=None, password=None):
    """Runs `sql` (one or more statements, each its own transaction unless
    BEGIN/COMMIT say otherwise); returns psql's unaligned output."""
    user = user or USER
    env = dict(os.environ, PGPASSWORD=password or PASSWORD)
    out = subprocess.run(
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT, "-U", user,
         "-d", DATABASE, "-c", sql] if "\n" not in sql else
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-p", PORT, "-U", user,
         "-d", DATABASE],
        input=sql if "\n" in sql else None, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def superuser(sql):
    """As the `postgres` superuser (trusted on loopback on the test server)."""
    out = subprocess.run(["psql", "-X", "-q", "-At", "-h", HOST, "-p", PORT, "-U", "postgres",
                          "-d", DATABASE, "-c", sql], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def floe(*args, user=None, timeout=120):
    env = dict(os.environ, FLOE_PW=PASSWORD)
    return subprocess.run(
        [str(FLOE), "capture", "postgres", "--host", HOST, "--port", PORT, "--user", user or USER,
         "--password-env", "FLOE_PW", "--database", DATABASE, *args],
        capture_output=True, text=True, env=env, timeout=timeout)


def events(result):
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture
def names(request):
    require_tools(FLOE)
    suffix = f"{request.node.name[5:25]}_{int(time.time() * 1000) % 10**9}".lower()
    n = {"t": f"cap_{suffix}", "pub": f"cap_pub_{suffix}", "slot": f"cap_slot_{suffix}"}
    yield n
    for _ in range(50):
        active = superuser(f"SELECT active_pid FROM pg_replication_slots WHERE slot_name = "
                           f"'{n['slot']}'")
        if not active:
            break
        time.sleep(0.1)
    superuser(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
              f"WHERE slot_name = '{n['slot']}'")
    superuser(f"DROP PUBLICATION IF EXISTS {n['pub']}")
    superuser(f"DROP TABLE IF EXISTS {n['t']}, {n['t']}_b")
    superuser(f"DROP DOMAIN IF EXISTS {n['t']}_pos")
    superuser(f"DROP TYPE IF EXISTS {n['t']}_mood")


def common(n, *extra):
    return ("--slot", n["slot"], "--publication", n["pub"], "--publication-autocreate",
            "filtered", "--tables", rf"public\.{n['t']}(_b)?", *extra)


def test_types_dml_toast_and_truncate(names):
    t = names["t"]
    psql(f"""CREATE DOMAIN {t}_pos AS numeric(6,2) CHECK (VALUE > 0);
CREATE TYPE {t}_mood AS ENUM ('sad', 'happy');
CREATE TABLE {t} (id int PRIMARY KEY, b boolean, s smallint, l bigint, r real,
  d double precision, n numeric(10,3), nn numeric, txt text, vc varchar(10), ch char(3),
  raw bytea, dt date, ts timestamp, tz timestamptz, tm time, ttz timetz, iv interval, u uuid,
  j json, jb jsonb, ip inet, mac macaddr, m money, bits bit varying(8), ints int[], texts text[],
  pos {t}_pos, mood {t}_mood, big text);
ALTER TABLE {t} REPLICA IDENTITY FULL;
ALTER TABLE {t} ALTER COLUMN big SET STORAGE EXTERNAL;
""")
    # The first run makes the publication and the slot.
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    big = "".join(f"toast-{i * 7919 % 10007};" for i in range(400))
    assert len(big) > 2048
    psql(f"""INSERT INTO {t} VALUES (1, true, -32768, 9223372036854775807, 1.5, -2.25e300,
  -1234567.891, 123456789012345678901234567890123456789012.5, 'héllo "q"', 'v', 'ab',
  '\\x00ff', '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02',
  '13:14:15.25', '10:00:00+02', '1 year 2 days 03:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  '{{"a": 1}}', '{{"b": [1, 2]}}', '10.0.0.1/8', '08:00:2b:01:02:03', 12.34, B'0101',
  '{{1,NULL,3}}', '{{x,"y z"}}', 7.5, 'happy', '{big}');
INSERT INTO {t} (id, dt, ts, n, nn) VALUES (2, 'infinity', '-infinity', NULL, 'NaN');
UPDATE {t} SET txt = 'changed' WHERE id = 1;
UPDATE {t} SET id = 3 WHERE id = 2;
DELETE FROM {t} WHERE id = 3;
TRUNCATE {t};
""")
    out = events(floe(*common(names, "--max-events", "6", "--stop-after-idle-ms", "10000")))
    assert [e["op"] for e in out] == ["c", "c", "u", "u", "d", "t"]
    for e in out:
        src = e["source"]
        assert src["connector"] == "postgresql"
        assert (src["db"], src["schema"], src["table"]) == (DATABASE, "public", t)
        assert src["lsn"] > 0 and src["txId"] > 0 and src["ts_ms"] > 1.7e12
    row = out[0]["after"]
    assert row == {
        "id": 1, "b": True, "s": -32768, "l": 9223372036854775807, "r": 1.5, "d": -2.25e300,
        "n": "-1234567.891", "nn": "123456789012345678901234567890123456789012.5",
        "txt": 'héllo "q"', "vc": "v", "ch": "ab ", "raw": "AP8=", "dt": 19782,
        "ts": 1704164645123456, "tz": "2024-01-02T01:04:05Z", "tm": 47655250000,
        "ttz": "10:00:00+02", "iv": "1 year 2 days 03:00:00",
        "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "j": '{"a": 1}', "jb": '{"b": [1, 2]}',
        "ip": "10.0.0.1/8", "mac": "08:00:2b:01:02:03", "m": "$12.34", "bits": "0101",
        "ints": [1, None, 3], "texts": ["x", "y z"], "pos": "7.50", "mood": "happy",
        "big": big}
    assert out[1]["after"]["dt"] == 2147483647
    assert out[1]["after"]["ts"] == -9223372036854775808
    assert out[1]["after"]["nn"] == "NaN"
    # The TOASTed text, unchanged by the update, is the old row's value.
    assert out[2]["before"]["txt"] == 'héllo "q"'
    assert out[2]["after"]["txt"] == "changed"
    assert out[2]["after"]["big"] == big
    assert out[3]["before"]["id"] == 2 and out[3]["after"]["id"] == 3
    assert out[4]["before"]["id"] == 3 and out[4]["after"] is None
    # Everything printed was confirmed: the slot starts after it.
    flushed = superuser(f"SELECT confirmed_flush_lsn FROM pg_replication_slots "
                        f"WHERE slot_name = '{names['slot']}'")
    assert flushed != ""
    psql(f"INSERT INTO {t} (id) VALUES (10)")
    again = events(floe(*common(names, "--max-events", "1", "--stop-after-idle-ms", "10000")))
    assert [(e["op"], e["after"]["id"]) for e in again] == [("c", 10)]


def test_streamed_transaction_is_printed_at_commit_and_an_aborted_one_never(names):
    t = names["t"]
    psql(f"CREATE TABLE {t} (k int PRIMARY KEY, v text)")
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    rows = 3000  # about 600 kB: streamed under logical_decoding_work_mem = 64kB
    psql(f"""BEGIN;
INSERT INTO {t} SELECT g, repeat('y', 200) FROM generate_series(1, {rows}) g;
ROLLBACK;
INSERT INTO {t} SELECT g, repeat('z', 200) FROM generate_series(1, {rows}) g;
INSERT INTO {t} VALUES (0, 'last');
""")
    out = events(floe(*common(names, "--max-events", str(rows + 1),
                              "--stop-after-idle-ms", "10000")))
    assert len(out) == rows + 1
    assert all(e["op"] == "c" for e in out)
    assert all(e["after"]["v"] == "z" * 200 for e in out[:rows])
    assert sorted(e["after"]["k"] for e in out[:rows]) == list(range(1, rows + 1))
    assert len({e["source"]["txId"] for e in out[:rows]}) == 1
    assert out[rows]["after"] == {"k": 0, "v": "last"}
    # The server streamed it (protocol v2): its stats count the streamed transactions.
    streamed = superuser(f"SELECT stream_txns FROM pg_stat_replication_slots "
                         f"WHERE slot_name = '{names['slot']}'")
    assert int(streamed or 0) >= 1


def test_unchanged_toast_without_replica_identity_full_fails_clearly(names):
    t = names["t"]
    psql(f"""CREATE TABLE {t} (k int PRIMARY KEY, note text, big text);
ALTER TABLE {t} ALTER COLUMN big SET STORAGE EXTERNAL;
""")
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    psql(f"""INSERT INTO {t} VALUES (1, 'a', repeat('x', 5000));
UPDATE {t} SET note = 'b' WHERE k = 1;
""")
    r = floe(*common(names, "--stop-after-idle-ms", "10000"))
    assert r.returncode == 1
    assert f"public.{t} column big" in r.stderr
    assert f"ALTER TABLE public.{t} REPLICA IDENTITY FULL" in r.stderr
    # The insert before it was printed and confirmed; the update never was.
    assert [e["op"] for e in events(subprocess.CompletedProcess([], 0, r.stdout, ""))] == ["c"]


def test_role_without_replication_is_refused(names):
    r = floe(*common(names, "--stop-after-idle-ms", "300"), user="floe_norepl")
    assert r.returncode == 1
    assert "role 'floe_norepl' has no REPLICATION attribute" in r.stderr
    assert 'ALTER ROLE "floe_norepl" REPLICATION' in r.stderr


def test_missing_publication_with_autocreate_disabled(names):
    r = floe("--slot", names["slot"], "--publication", names["pub"],
             "--publication-autocreate", "disabled", "--stop-after-idle-ms", "300")
    assert r.returncode == 1
    assert f"publication '{names['pub']}' does not exist" in r.stderr
    assert "CREATE PUBLICATION" in r.stderr


def test_publication_for_all_tables_needs_a_superuser(names):
    r = floe("--slot", names["slot"], "--publication", names["pub"],
             "--publication-autocreate", "all_tables", "--stop-after-idle-ms", "300")
    assert r.returncode == 1
    assert "FOR ALL TABLES needs a superuser" in r.stderr


def test_an_administrators_publication_works_without_autocreate(names):
    t = names["t"]
    psql(f"CREATE TABLE {t} (k int PRIMARY KEY)")
    superuser(f"CREATE PUBLICATION {names['pub']} FOR TABLE {t}")
    assert events(floe("--slot", names["slot"], "--publication", names["pub"],
                       "--publication-autocreate", "disabled",
                       "--stop-after-idle-ms", "300")) == []
    psql(f"INSERT INTO {t} VALUES (5)")
    out = events(floe("--slot", names["slot"], "--publication", names["pub"],
                      "--publication-autocreate", "disabled", "--max-events", "1",
                      "--stop-after-idle-ms", "10000"))
    assert [e["after"] for e in out] == [{"k": 5}]


def test_slot_in_use_is_refused_naming_the_pid(names):
    t = names["t"]
    psql(f"CREATE TABLE {t} (k int PRIMARY KEY)")
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    env = dict(os.environ, FLOE_PW=PASSWORD)
    first = subprocess.Popen(
        [str(FLOE), "capture", "postgres", "--host", HOST, "--port", PORT, "--user", USER,
         "--password-env", "FLOE_PW", "--database", DATABASE, *common(names)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        pid = ""
        for _ in range(100):
            pid = superuser(f"SELECT active_pid FROM pg_replication_slots "
                            f"WHERE slot_name = '{names['slot']}'")
            if pid:
                break
            time.sleep(0.1)
        assert pid, "the first capture never took the slot"
        r = floe(*common(names, "--stop-after-idle-ms", "300"))
        assert r.returncode == 1
        assert f"replication slot '{names['slot']}' is in use" in r.stderr
        assert pid in r.stderr
    finally:
        first.terminate()
        assert first.wait(timeout=30) == 0


def test_drop_slot(names):
    t = names["t"]
    psql(f"CREATE TABLE {t} (k int PRIMARY KEY)")
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    assert floe("--slot", names["slot"], "--drop-slot").returncode == 0
    assert superuser(f"SELECT count(*) FROM pg_replication_slots "
                     f"WHERE slot_name = '{names['slot']}'") == "0"
    r = floe("--slot", names["slot"], "--drop-slot")
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_sigkill_and_restart_leaves_no_gap(names, tmp_path):
    """Killed with SIGKILL at random moments and restarted on the same slot:
    every row is printed, and a restarted run repeats only what the run
    before printed after its last confirmation (a prefix of the new run)."""
    t = names["t"]
    psql(f"CREATE TABLE {t} (id int PRIMARY KEY, v text)")
    assert events(floe(*common(names, "--stop-after-idle-ms", "300"))) == []
    total = 900
    env = dict(os.environ, FLOE_PW=PASSWORD)
    cmd = [str(FLOE), "capture", "postgres", "--host", HOST, "--port", PORT, "--user", USER,
           "--password-env", "FLOE_PW", "--database", DATABASE, *common(names)]

    def workload():
        statements = []
        for start in range(1, total + 1, 3):
            rows = ", ".join(f"({i}, 'v{i}')" for i in range(start, min(start + 3, total + 1)))
            statements.append(f"INSERT INTO {t} VALUES {rows};")
            statements.append("SELECT pg_sleep(0.01);")
        psql("\n".join(statements) + "\n")

    writer = threading.Thread(target=workload)
    writer.start()
    outputs = []
    kills = 0
    while writer.is_alive() or kills < 3:
        path = tmp_path / f"out{len(outputs)}.jsonl"
        outputs.append(path)
        with open(path, "wb") as out:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env)
            time.sleep(random.uniform(0.5, 2.0))
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
    writer.join()
    path = tmp_path / "final.jsonl"
    outputs.append(path)
    with open(path, "wb") as out:
        subprocess.run(cmd + ["--stop-after-idle-ms", "3000"], stdout=out,
                       stderr=subprocess.DEVNULL, env=env, timeout=120, check=True)

    seen = set()
    duplicates = 0
    for o in outputs:
        ids = [json.loads(line)["after"]["id"] for line in o.read_text().splitlines()
               if line.strip()]
        assert ids == sorted(ids), f"{o.name}: rows out of commit order"
        repeated = [i for i in ids if i in seen]
        assert repeated == ids[:len(repeated)], f"{o.name}: a repeat after a new row"
        duplicates += len(repeated)
        seen.update(ids)
    missing = sorted(set(range(1, total + 1)) - seen)
    assert not missing, f"rows lost across {kills} SIGKILL restarts: {missing[:20]}"
    # Each transaction is confirmed as soon as it is printed: a kill repeats
    # at most the transaction whose confirmation had not reached the server
    # (3 rows), or a little more while the walsender catches up.
    assert duplicates <= 9 * kills, f"{duplicates} rows printed twice after {kills} kills"
