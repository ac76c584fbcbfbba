"""Set-up of the PostgreSQL test server shared by the PostgreSQL test files."""
import os
import shutil
import subprocess


def ensure_database(host, port, user, database):
    """Makes `database` (owned by `user`) when it is not there yet, as the `postgres`
    superuser. Does nothing without a port or without psql (the tests then skip)."""
    if port is None or shutil.which("psql") is None:
        return

    def admin(sql):
        out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port,
                              "-U", "postgres", "-d", "postgres", "-c", sql], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    if not admin(f"SELECT 1 FROM pg_database WHERE datname = '{database}'"):
        admin(f'CREATE DATABASE "{database}" OWNER "{user}"')


def psql(host, port, database, sql, user, password):
    """Runs `sql` (one or more statements, each its own transaction unless BEGIN/COMMIT say
    otherwise) on `database` as `user`; returns psql's unaligned output."""
    env = dict(os.environ, PGPASSWORD=password)
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port,
                          "-U", user, "-d", database], input=sql, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def lsn(text):
    """An LSN's text form (16/B374D848) as an integer."""
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


def require_tools(floe):
    """Skips the calling test when the floe binary `floe` is not built or psql is missing."""
    import pytest

    if not floe.exists():
        pytest.skip(f"{floe} not built")
    if shutil.which("psql") is None:
        pytest.skip("psql is not installed")


def source_yaml(host, port, user, database, tables, slot, publication, autocreate, startup):
    """The `source:` block of a pipeline over the test server (the password from
    FLOE_TEST_POSTGRES_PASSWORD), each key on its own line, ending with a newline."""
    return f"""source:
  type: postgres
  hostname: {host}
  port: {port}
  username: {user}
  password: ${{FLOE_TEST_POSTGRES_PASSWORD}}
  database-name: {database}
  tables: {tables}
  slot.name: {slot}
  publication.name: {publication}
  publication.autocreate.mode: {autocreate}
  scan.startup.mode: {startup}
"""
