"""Set-up of the PostgreSQL test server shared by the PostgreSQL test files."""
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
