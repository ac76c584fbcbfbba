#!/usr/bin/env bash
# Starts or stops a throwaway MariaDB server for floe's integration tests.
#
#   scripts/services/mariadb.sh start   # idempotent: returns when the server answers
#   scripts/services/mariadb.sh stop    # kills the server by its pid file and waits
#
# Environment (tests read the same variables):
#   FLOE_TEST_MYSQL_HOST      127.0.0.1
#   FLOE_TEST_MYSQL_PORT      3307
#   FLOE_TEST_MYSQL_USER      floe
#   FLOE_TEST_MYSQL_PASSWORD  floe
#
# The data directory, socket, pid file and log live under .cache/mariadb/ in the
# repository (git-ignored). The server logs row-based binlogs with full row images
# and full row metadata (what `floe capture mysql` needs), server_id=1, and has a
# user floe@127.0.0.1 / floe@localhost with the grants capture needs, plus a
# database floe_test (plus floe_noprivs@127.0.0.1, password as above, with only
# SELECT on floe_test, for the missing-privilege test). Runs the server as root.
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
service_files mariadb mariadb
DATA="${DIR}/data"
SOCK="${DIR}/mariadb.sock"
HOST="${FLOE_TEST_MYSQL_HOST:-127.0.0.1}"
PORT="${FLOE_TEST_MYSQL_PORT:-3307}"
USER_NAME="${FLOE_TEST_MYSQL_USER:-floe}"
PASSWORD="${FLOE_TEST_MYSQL_PASSWORD:-floe}"

client() {
  mariadb --no-defaults --protocol=socket --socket="${SOCK}" -uroot "$@"
}

start() {
  mkdir -p "${DIR}"
  if service_running "${PID}" && client -e "SELECT 1" >/dev/null 2>&1; then
    echo "mariadb already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    setup_users
    return 0
  fi
  if [[ ! -d "${DATA}/mysql" ]]; then
    mariadb-install-db --no-defaults --user=root --datadir="${DATA}" \
      --auth-root-authentication-method=socket --skip-test-db >"${DIR}/install.log" 2>&1
  fi
  mariadbd --no-defaults --user=root --datadir="${DATA}" --socket="${SOCK}" \
    --pid-file="${PID}" --port="${PORT}" --bind-address="${HOST}" \
    --log-error="${LOG}" --log-bin=mariadb-bin --binlog-format=ROW \
    --binlog-row-image=FULL --binlog-row-metadata=FULL --server-id=1 \
    --innodb-buffer-pool-size=128M --innodb-log-file-size=64M \
    --skip-name-resolve --max-connections=200 >/dev/null 2>&1 &
  for _ in $(seq 1 300); do
    if client -e "SELECT 1" >/dev/null 2>&1; then break; fi
    sleep 0.1
  done
  if ! client -e "SELECT 1" >/dev/null 2>&1; then
    echo "mariadb did not start; see ${LOG}" >&2
    tail -n 20 "${LOG}" >&2 || true
    exit 1
  fi
  setup_users
  echo "mariadb running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
}

setup_users() {
  client <<SQL
CREATE DATABASE IF NOT EXISTS floe_test;
CREATE USER IF NOT EXISTS '${USER_NAME}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}';
CREATE USER IF NOT EXISTS '${USER_NAME}'@'localhost' IDENTIFIED BY '${PASSWORD}';
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, BINLOG MONITOR ON *.* TO '${USER_NAME}'@'127.0.0.1';
GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, BINLOG MONITOR ON *.* TO '${USER_NAME}'@'localhost';
GRANT ALL PRIVILEGES ON floe_test.* TO '${USER_NAME}'@'127.0.0.1';
GRANT ALL PRIVILEGES ON floe_test.* TO '${USER_NAME}'@'localhost';
-- Lets tests switch binlog_format to check floe's message about it.
GRANT BINLOG ADMIN ON *.* TO '${USER_NAME}'@'127.0.0.1';
GRANT BINLOG ADMIN ON *.* TO '${USER_NAME}'@'localhost';
-- A user without replication privileges, for the missing-privilege test.
CREATE USER IF NOT EXISTS 'floe_noprivs'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}';
GRANT SELECT ON floe_test.* TO 'floe_noprivs'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
}

stop() {
  stop_by_pid mariadb "${PID}" 30
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
