#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL 15 server for floe's integration tests.
#
#   scripts/services/postgres.sh start    # idempotent: returns when the server accepts connections
#   scripts/services/postgres.sh stop     # fast shutdown by its pid file, then waits
#   scripts/services/postgres.sh status   # exit 0 if it runs and answers
#
# Environment (tests read the same variables):
#   FLOE_TEST_POSTGRES_HOST      127.0.0.1
#   FLOE_TEST_POSTGRES_PORT      5433
#   FLOE_TEST_POSTGRES_USER      floe
#   FLOE_TEST_POSTGRES_PASSWORD  floe
#   FLOE_TEST_POSTGRES_DATABASE  floe
#
# Debian's PostgreSQL 15 (package postgresql-15). The data directory lives in
# .cache/postgres/data (git-ignored), the server log in .cache/postgres/postgres.log.
# It listens on 127.0.0.1 only (no Unix socket), with wal_level=logical, room
# for 20 replication slots and WAL senders, logical_decoding_work_mem at its
# 64 kB minimum (so that modest transactions are already streamed in protocol
# v2), and fsync off (a test server: a machine crash may lose it).
#
# Roles and authentication (pg_hba.conf, loopback only):
#   postgres      superuser, trust: the script's own administration, and tests
#                 that need a superuser (never use it for what a user would do)
#   floe          LOGIN REPLICATION, password FLOE_TEST_POSTGRES_PASSWORD
#                 (scram-sha-256), owner of the database floe
#   floe_norepl   LOGIN without REPLICATION, same password, for the
#                 missing-privilege tests
#
# PostgreSQL refuses to run as root: as root the server runs as the system
# user `postgres` (which the Debian package creates; created here if missing),
# which owns the data directory. If that user cannot reach .cache/postgres
# (a checkout under a private home directory), the data directory goes to
# /tmp/floe-postgres-<hash of the checkout path> instead, linked from
# .cache/postgres/data.
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BIN="/usr/lib/postgresql/15/bin"
service_files postgres postgres
DATA="${DIR}/data"
HOST="${FLOE_TEST_POSTGRES_HOST:-127.0.0.1}"
PORT="${FLOE_TEST_POSTGRES_PORT:-5433}"
USER_NAME="${FLOE_TEST_POSTGRES_USER:-floe}"
PASSWORD="${FLOE_TEST_POSTGRES_PASSWORD:-floe}"
DATABASE="${FLOE_TEST_POSTGRES_DATABASE:-floe}"
SERVER_USER=""

# as_server COMMAND...: runs COMMAND as the user that owns the data directory.
as_server() {
  if [[ -n "${SERVER_USER}" ]]; then
    runuser -u "${SERVER_USER}" -- "$@"
  else
    "$@"
  fi
}

# psql as the superuser, over TCP (trust on loopback for `postgres`).
admin_psql() {
  "${BIN}/psql" -X -q -v ON_ERROR_STOP=1 -h "${HOST}" -p "${PORT}" -U postgres "$@"
}

answers() {
  "${BIN}/pg_isready" -q -h "${HOST}" -p "${PORT}" -t 2 >/dev/null 2>&1
}

pick_server_user() {
  if [[ "$(id -u)" != 0 ]]; then
    SERVER_USER=""
    return 0
  fi
  SERVER_USER=postgres
  if ! getent passwd postgres >/dev/null; then
    echo "creating the system user postgres"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres
  fi
}

# Makes DATA a directory the server user may use (see the header).
prepare_data_dir() {
  mkdir -p "${DIR}"
  if [[ -z "${SERVER_USER}" ]]; then
    mkdir -p "${DATA}"
    chmod 700 "${DATA}"
    return 0
  fi
  if [[ ! -e "${DATA}" ]]; then
    if runuser -u "${SERVER_USER}" -- test -x "${DIR}" 2>/dev/null; then
      mkdir -p "${DATA}"
    else
      local outside
      outside="/tmp/floe-postgres-$(printf '%s' "${ROOT}" | sha256sum | cut -c1-12)"
      echo "user ${SERVER_USER} cannot reach ${DIR}; data directory in ${outside}"
      mkdir -p "${outside}"
      ln -sfn "${outside}" "${DATA}"
    fi
  fi
  DATA="$(readlink -f "${DATA}")"
  chown -R "${SERVER_USER}:" "${DATA}"
  chmod 700 "${DATA}"
}

write_hba() {
  cat >"${DATA}/pg_hba.conf" <<'HBA'
# Written by scripts/services/postgres.sh: loopback TCP only.
host  all          postgres  127.0.0.1/32  trust
host  replication  postgres  127.0.0.1/32  trust
host  all          all       127.0.0.1/32  scram-sha-256
host  replication  all       127.0.0.1/32  scram-sha-256
HBA
  if [[ -n "${SERVER_USER}" ]]; then chown "${SERVER_USER}:" "${DATA}/pg_hba.conf"; fi
}

setup_roles() {
  # Passwords go through psql variables (:'password'), quoted by psql.
  admin_psql -d postgres -v user="${USER_NAME}" -v password="${PASSWORD}" \
    -v database="${DATABASE}" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN REPLICATION', :'user')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'user') \gexec
ALTER ROLE :"user" LOGIN REPLICATION PASSWORD :'password';
SELECT 'CREATE ROLE floe_norepl LOGIN'
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'floe_norepl') \gexec
ALTER ROLE floe_norepl LOGIN NOREPLICATION PASSWORD :'password';
SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'user')
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database') \gexec
GRANT CONNECT ON DATABASE :"database" TO floe_norepl;
SQL
}

# Adopts a server whose pid file was lost (its own postmaster.pid names a live process).
adopt_running() {
  local pid
  [[ -f "${DATA}/postmaster.pid" ]] || return 1
  pid="$(head -n 1 "${DATA}/postmaster.pid")"
  [[ "${pid}" =~ ^[0-9]+$ ]] && kill -0 "${pid}" 2>/dev/null || return 1
  echo "${pid}" >"${PID}"
}

# The server runs when its pid file, or the one it keeps in the data
# directory (then adopted), names a live process.
running() { service_running "${PID}" || adopt_running; }

start() {
  pick_server_user
  prepare_data_dir
  if running && answers; then
    echo "postgres already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    setup_roles
    return 0
  fi
  if [[ ! -f "${DATA}/PG_VERSION" ]]; then
    if ! as_server "${BIN}/initdb" -D "${DATA}" -U postgres --auth=trust -E UTF8 \
      --locale=C --no-sync >"${DIR}/initdb.log" 2>&1; then
      echo "initdb failed; see ${DIR}/initdb.log" >&2
      tail -n 20 "${DIR}/initdb.log" >&2 || true
      exit 1
    fi
  fi
  write_hba
  # The log is opened here (by this shell), so the server user needs no access to DIR.
  as_server "${BIN}/postgres" -D "${DATA}" -p "${PORT}" \
    -c listen_addresses="${HOST}" -c unix_socket_directories= \
    -c wal_level=logical -c max_replication_slots=20 -c max_wal_senders=20 \
    -c logical_decoding_work_mem=64kB -c max_connections=100 -c shared_buffers=64MB \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c log_min_messages=warning -c log_line_prefix='%m [%p] ' \
    </dev/null >>"${LOG}" 2>&1 &
  local launcher=$!
  for _ in $(seq 1 300); do
    if answers; then break; fi
    kill -0 "${launcher}" 2>/dev/null || break
    sleep 0.1
  done
  if ! answers || ! adopt_running; then
    echo "postgres did not start on ${HOST}:${PORT}; see ${LOG}" >&2
    tail -n 20 "${LOG}" >&2 || true
    exit 1
  fi
  setup_roles
  echo "postgres running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
}

stop() {
  # A server whose pid file was lost is found by its own postmaster.pid.
  service_running "${PID}" || adopt_running || true
  # SIGINT is PostgreSQL's fast shutdown (SIGTERM, its smart shutdown, would
  # wait for replication clients to leave); stop_by_pid then waits for it.
  if service_running "${PID}"; then kill -INT "$(cat "${PID}")" 2>/dev/null || true; fi
  stop_by_pid postgres "${PID}" 30
}

status() { service_status "postgres" "${HOST}:${PORT}" "${PID}"; }

service_command "start|stop|status" "${1:-}"
