#!/usr/bin/env bash
# Starts or stops Apache Iceberg's own REST catalog test server
# (RESTCatalogServer of iceberg-open-api's test fixtures) for floe's REST
# catalog tests, so Iceberg Java's REST implementation judges floe's client.
#
#   scripts/services/iceberg-rest.sh start    # idempotent: returns when the server answers
#   scripts/services/iceberg-rest.sh stop     # kills the server by its pid file and waits
#   scripts/services/iceberg-rest.sh status   # exit 0 if it runs and answers
#   scripts/services/iceberg-rest.sh start s3 # the second instance, tables on S3 (below)
#
# Environment (tests read the same variables):
#   FLOE_TEST_REST_HOST   127.0.0.1 (loopback only)
#   FLOE_TEST_REST_PORT   9181
#   FLOE_TEST_REST_URI    http://HOST:PORT (exported by scripts/test.sh)
#   FLOE_TEST_REST_S3_PORT    9182 (the s3 instance)
#   FLOE_TEST_REST_S3_URI     http://HOST:PORT of the s3 instance (exported by scripts/test.sh)
#   FLOE_TEST_REST_S3_BUCKET  floe-rest (its warehouse: s3://BUCKET/warehouse)
#
# Back end: Iceberg's JdbcCatalog on SQLite (.cache/iceberg-rest/catalog.db)
# with a local warehouse folder (.cache/iceberg-rest/warehouse); tables the
# server places get locations under it. Each start begins empty (the
# database and warehouse of the last run are removed). No authentication:
# the server accepts any bearer token.
#
# The s3 instance (scripts/services/iceberg-rest-s3.sh is the same with `s3`)
# is a second server, state in .cache/iceberg-rest-s3/, whose JdbcCatalog
# writes through Iceberg's S3FileIO to the moto server of
# scripts/services/s3.sh (which must be running: its key is read from
# .cache/s3/credentials.env), warehouse s3://BUCKET/warehouse; the bucket is
# created at start when missing. It vends that key to its clients in each
# load-table answer's `config` (include-credentials), as catalogs that hand
# out storage credentials do. Its classpath adds pom-s3.xml's jars
# (iceberg-aws, iceberg-aws-bundle) to pom.xml's.
#
# The server's classpath is tests/interop/rest-server/pom.xml's dependencies,
# copied by Maven into ${FLOE_CACHE:-~/.cache/floe}/iceberg-rest/lib (the
# Maven repository is the shared ${FLOE_CACHE}/maven of scripts/java-peer.sh),
# once per pom change. Java and Maven come from Debian (installed as
# java-peer.sh does). The fixtures' main() listens on every interface, so
# tests/interop/rest-server/LoopbackRestServer.java builds the same server on
# one address. Pid file and log live under .cache/iceberg-rest/ (git-ignored).
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
INSTANCE="${2:-file}"
HOST="${FLOE_TEST_REST_HOST:-127.0.0.1}"
SRC="${ROOT}/tests/interop/rest-server"
REPO="${CACHE}/maven"
LIB="${CACHE}/iceberg-rest/lib"
LIB_S3="${CACHE}/iceberg-rest/lib-s3"
case "${INSTANCE}" in
  file)
    NAME="iceberg-rest"
    service_files iceberg-rest server
    PORT="${FLOE_TEST_REST_PORT:-9181}"
    ;;
  s3)
    NAME="iceberg-rest (s3)"
    service_files iceberg-rest-s3 server
    PORT="${FLOE_TEST_REST_S3_PORT:-9182}"
    BUCKET="${FLOE_TEST_REST_S3_BUCKET:-floe-rest}"
    S3_ENV="${ROOT}/.cache/s3/credentials.env"
    ;;
  *)
    echo "unknown instance '${INSTANCE}' (file or s3)" >&2
    exit 2
    ;;
esac

running() { service_running "${PID}"; }

answers() { http_answers "${ROOT}" "http://${HOST}:${PORT}/v1/config"; }

# copy_dependencies POM LIB: copies a pom's dependencies into LIB when the pom changed.
copy_dependencies() { maven_classpath "$1" "$2" "${REPO}"; }

ensure_classpath() {
  copy_dependencies "${SRC}/pom.xml" "${LIB}"
  CLASSPATH_ALL="${LIB}/*"
  if [[ "${INSTANCE}" == s3 ]]; then
    copy_dependencies "${SRC}/pom-s3.xml" "${LIB_S3}"
    CLASSPATH_ALL="${LIB}/*:${LIB_S3}/*"
  fi
}

# The s3 instance's moto key and endpoint (FLOE_TEST_S3_*), and its bucket.
ensure_bucket() {
  if [[ ! -s "${S3_ENV}" ]]; then
    echo "no ${S3_ENV}: start the S3 server first (scripts/services/s3.sh start)" >&2
    exit 1
  fi
  set -a
  # shellcheck disable=SC1090
  . "${S3_ENV}"
  set +a
  "${ROOT}/.cache/venv/bin/python" - "${BUCKET}" <<'PY'
import os, sys
import boto3
s3 = boto3.client("s3", endpoint_url=os.environ["FLOE_TEST_S3_ENDPOINT"], region_name="us-east-1",
                  aws_access_key_id=os.environ["FLOE_TEST_S3_ACCESS_KEY_ID"],
                  aws_secret_access_key=os.environ["FLOE_TEST_S3_SECRET_ACCESS_KEY"])
names = {b["Name"] for b in s3.list_buckets().get("Buckets", [])}
if sys.argv[1] not in names:
    s3.create_bucket(Bucket=sys.argv[1])
PY
}

start() {
  mkdir -p "${DIR}"
  if running && answers; then
    echo "${NAME} already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
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
  if [[ "${INSTANCE}" == s3 ]]; then
    ensure_bucket
    CATALOG_URI="jdbc:sqlite:${DIR}/catalog.db" \
      CATALOG_WAREHOUSE="s3://${BUCKET}/warehouse" \
      CATALOG_JDBC_SCHEMA__VERSION=V1 \
      CATALOG_IO__IMPL=org.apache.iceberg.aws.s3.S3FileIO \
      CATALOG_S3_ENDPOINT="${FLOE_TEST_S3_ENDPOINT}" \
      CATALOG_S3_PATH__STYLE__ACCESS=true \
      CATALOG_S3_ACCESS__KEY__ID="${FLOE_TEST_S3_ACCESS_KEY_ID}" \
      CATALOG_S3_SECRET__ACCESS__KEY="${FLOE_TEST_S3_SECRET_ACCESS_KEY}" \
      CATALOG_CLIENT_REGION=us-east-1 \
      CATALOG_INCLUDE__CREDENTIALS=true \
      AWS_REGION=us-east-1 \
      nohup java -cp "${CLASSPATH_ALL}" "${SRC}/LoopbackRestServer.java" "${HOST}" "${PORT}" \
      </dev/null >"${LOG}" 2>&1 &
  else
    CATALOG_URI="jdbc:sqlite:${DIR}/catalog.db" \
      CATALOG_WAREHOUSE="${DIR}/warehouse" \
      CATALOG_JDBC_SCHEMA__VERSION=V1 \
      nohup java -cp "${CLASSPATH_ALL}" "${SRC}/LoopbackRestServer.java" "${HOST}" "${PORT}" \
      </dev/null >"${LOG}" 2>&1 &
  fi
  echo $! >"${PID}"
  for _ in $(seq 1 600); do
    if ! running; then break; fi
    if answers; then break; fi
    sleep 0.1
  done
  if ! running || ! answers; then
    echo "${NAME} did not start; see ${LOG}" >&2
    grep -v '^\s*at ' "${LOG}" | tail -n 20 >&2 || true
    stop >/dev/null
    exit 1
  fi
  echo "${NAME} running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
}

stop() {
  stop_by_pid "${NAME}" "${PID}" 30
}

status() { service_status "${NAME}" "${HOST}:${PORT}" "${PID}"; }

service_command "start|stop|status [file|s3]" "${1:-}"
