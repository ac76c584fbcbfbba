#!/usr/bin/env bash
# Starts or stops Apache Iceberg's own REST catalog test server
# (RESTCatalogServer of iceberg-open-api's test fixtures) for floe's REST
# catalog tests, so Iceberg Java's REST implementation judges floe's client.
#
#   scripts/services/iceberg-rest.sh start    # idempotent: returns when the server answers
#   scripts/services/iceberg-rest.sh stop     # kills the server by its pid file and waits
#   scripts/services/iceberg-rest.sh status   # exit 0 if it runs and answers
#
# Environment (tests read the same variables):
#   FLOE_TEST_REST_HOST   127.0.0.1 (loopback only)
#   FLOE_TEST_REST_PORT   9181
#   FLOE_TEST_REST_URI    http://HOST:PORT (exported by scripts/test.sh)
#
# Back end: Iceberg's JdbcCatalog on SQLite (.cache/iceberg-rest/catalog.db)
# with a local warehouse folder (.cache/iceberg-rest/warehouse); tables the
# server places get locations under it. Each start begins empty (the
# database and warehouse of the last run are removed). No authentication:
# the server accepts any bearer token.
#
# The server's classpath is tests/interop/rest-server/pom.xml's dependencies,
# copied by Maven into ${FLOE_CACHE:-~/.cache/floe}/iceberg-rest/lib (the
# Maven repository is the shared ${FLOE_CACHE}/maven of scripts/java-peer.sh),
# once per pom change. Java and Maven come from Debian (installed as
# java-peer.sh does). The fixtures' main() listens on every interface, so
# tests/interop/rest-server/LoopbackRestServer.java builds the same server on
# one address. Pid file and log live under .cache/iceberg-rest/ (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${ROOT}/.cache/iceberg-rest"
PID="${DIR}/server.pid"
LOG="${DIR}/server.log"
HOST="${FLOE_TEST_REST_HOST:-127.0.0.1}"
PORT="${FLOE_TEST_REST_PORT:-9181}"
SRC="${ROOT}/tests/interop/rest-server"
CACHE="${FLOE_CACHE:-${HOME}/.cache/floe}"
REPO="${CACHE}/maven"
LIB="${CACHE}/iceberg-rest/lib"

running() {
  [[ -f "${PID}" ]] && kill -0 "$(cat "${PID}")" 2>/dev/null
}

# Probed with Python (the venv's, else the system's): setup.sh installs no curl.
answers() {
  local py="${ROOT}/.cache/venv/bin/python"
  [[ -x "${py}" ]] || py="$(command -v python3)" || return 1
  "${py}" -c "import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=2)" "http://${HOST}:${PORT}/v1/config" 2>/dev/null
}

ensure_java() {
  if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then return 0; fi
  if [[ "$(id -u)" == 0 ]]; then
    echo "installing openjdk-17-jdk-headless and maven (Debian packages)"
    apt-get update -qq </dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      openjdk-17-jdk-headless maven </dev/null
  else
    echo "java or mvn not found: install openjdk-17-jdk-headless and maven" >&2
    exit 1
  fi
}

# Copies the server's dependencies into ${LIB} when the pom changed.
ensure_classpath() {
  local want have=""
  want="$(sha256sum "${SRC}/pom.xml" | cut -d' ' -f1)"
  [[ -f "${LIB}/stamp" ]] && have="$(cat "${LIB}/stamp")"
  [[ "${want}" == "${have}" ]] && return 0
  echo "resolving the REST server's classpath with Maven"
  local build_dir
  build_dir="$(mktemp -d)"
  rm -rf "${LIB}"
  mkdir -p "${LIB}" "${REPO}"
  cp "${SRC}/pom.xml" "${build_dir}/"
  if ! (cd "${build_dir}" && mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="${REPO}" \
    dependency:copy-dependencies -DoutputDirectory="${LIB}" </dev/null >"${build_dir}/mvn.log" 2>&1); then
    tail -n 40 "${build_dir}/mvn.log" >&2
    rm -rf "${build_dir}"
    echo "Maven could not resolve tests/interop/rest-server/pom.xml" >&2
    exit 1
  fi
  rm -rf "${build_dir}"
  echo "${want}" >"${LIB}/stamp"
}

start() {
  mkdir -p "${DIR}"
  if running && answers; then
    echo "iceberg-rest already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    return 0
  fi
  if running; then stop; fi
  if answers; then
    echo "another server already answers on ${HOST}:${PORT}; stop it or set FLOE_TEST_REST_PORT" >&2
    exit 1
  fi
  ensure_java
  ensure_classpath
  rm -rf "${DIR}/catalog.db" "${DIR}/warehouse"
  mkdir -p "${DIR}/warehouse"
  CATALOG_URI="jdbc:sqlite:${DIR}/catalog.db" \
    CATALOG_WAREHOUSE="${DIR}/warehouse" \
    CATALOG_JDBC_SCHEMA__VERSION=V1 \
    nohup java -cp "${LIB}/*" "${SRC}/LoopbackRestServer.java" "${HOST}" "${PORT}" \
    </dev/null >"${LOG}" 2>&1 &
  echo $! >"${PID}"
  for _ in $(seq 1 600); do
    if ! running; then break; fi
    if answers; then break; fi
    sleep 0.1
  done
  if ! running || ! answers; then
    echo "iceberg-rest did not start; see ${LOG}" >&2
    grep -v '^\s*at ' "${LOG}" | tail -n 20 >&2 || true
    stop >/dev/null
    exit 1
  fi
  echo "iceberg-rest running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
}

stop() {
  if ! [[ -f "${PID}" ]]; then
    echo "iceberg-rest not running"
    return 0
  fi
  local pid
  pid="$(cat "${PID}")"
  if kill -0 "${pid}" 2>/dev/null; then
    kill "${pid}"
    for _ in $(seq 1 300); do
      kill -0 "${pid}" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "${pid}" 2>/dev/null; then kill -9 "${pid}" || true; fi
  fi
  rm -f "${PID}"
  echo "iceberg-rest stopped"
}

status() {
  if running && answers; then
    echo "iceberg-rest running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    return 0
  fi
  echo "iceberg-rest not running"
  return 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
