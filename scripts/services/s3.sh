#!/usr/bin/env bash
# Starts or stops a throwaway S3-compatible server (moto's server mode) for
# floe's S3 tests.
#
#   scripts/services/s3.sh start    # idempotent: returns when the server answers
#   scripts/services/s3.sh stop     # kills the server by its pid file and waits
#   scripts/services/s3.sh status   # exit 0 if it runs
#
# Environment (tests read the same variables):
#   FLOE_TEST_S3_HOST   127.0.0.1 (loopback only)
#   FLOE_TEST_S3_PORT   9079
#
# moto (PyPI, pinned below) is installed into .cache/venv if it is missing.
# The server checks SigV4 signatures: it starts with authentication off for
# three requests, which create an IAM user `floe` with an access key and a
# policy allowing everything; from then on every request must be signed with
# that key. The key is written to .cache/s3/credentials.env as
#   FLOE_TEST_S3_ENDPOINT=http://127.0.0.1:9079
#   FLOE_TEST_S3_ACCESS_KEY_ID=...
#   FLOE_TEST_S3_SECRET_ACCESS_KEY=...
# for tests to source (scripts/test.sh does). State is in memory: a restart
# forgets every bucket. Pid file and log live under .cache/s3/ (git-ignored).
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
service_files s3 moto
ENV_FILE="${DIR}/credentials.env"
HOST="${FLOE_TEST_S3_HOST:-127.0.0.1}"
PORT="${FLOE_TEST_S3_PORT:-9079}"
PY="${ROOT}/.cache/venv/bin/python"
MOTO_REQUIREMENT="moto[server]==5.2.5"

running() { service_running "${PID}"; }

answers() { http_answers "${ROOT}" "http://${HOST}:${PORT}/moto-api/"; }

ensure_moto() {
  if [[ ! -x "${PY}" ]]; then
    echo "no .cache/venv: run scripts/setup.sh first" >&2
    exit 1
  fi
  if ! "${PY}" -c "import moto.server, flask_cors" 2>/dev/null; then
    echo "installing ${MOTO_REQUIREMENT} into .cache/venv"
    "${PY}" -m pip install --quiet --disable-pip-version-check --no-input \
      "${MOTO_REQUIREMENT}" </dev/null
  fi
}

# Creates the IAM user and its key with the three unauthenticated requests.
create_user() {
  "${PY}" - "http://${HOST}:${PORT}" "${ENV_FILE}" <<'PY'
import os, sys
import boto3
endpoint, env_file = sys.argv[1], sys.argv[2]
iam = boto3.client("iam", endpoint_url=endpoint, region_name="us-east-1",
                   aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam.create_user(UserName="floe")
key = iam.create_access_key(UserName="floe")["AccessKey"]
iam.put_user_policy(UserName="floe", PolicyName="all",
                    PolicyDocument='{"Version":"2012-10-17","Statement":'
                                   '[{"Effect":"Allow","Action":"*","Resource":"*"}]}')
fd = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as f:
    f.write(f"FLOE_TEST_S3_ENDPOINT={endpoint}\n")
    f.write(f"FLOE_TEST_S3_ACCESS_KEY_ID={key['AccessKeyId']}\n")
    f.write(f"FLOE_TEST_S3_SECRET_ACCESS_KEY={key['SecretAccessKey']}\n")
PY
}

start() {
  mkdir -p "${DIR}"
  if running && answers && [[ -s "${ENV_FILE}" ]]; then
    echo "s3 (moto) already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    return 0
  fi
  if running; then stop; fi
  ensure_moto
  rm -f "${ENV_FILE}"
  INITIAL_NO_AUTH_ACTION_COUNT=3 MOTO_PORT="${PORT}" \
    nohup "${PY}" -m moto.server -H "${HOST}" -p "${PORT}" >"${LOG}" 2>&1 </dev/null &
  echo $! >"${PID}"
  for _ in $(seq 1 150); do
    if answers; then break; fi
    if ! running; then break; fi
    sleep 0.1
  done
  if ! answers; then
    echo "moto did not start on ${HOST}:${PORT}; see ${LOG}" >&2
    tail -n 20 "${LOG}" >&2 || true
    stop >/dev/null || true
    exit 1
  fi
  create_user
  echo "s3 (moto) running on ${HOST}:${PORT} (pid $(cat "${PID}")); credentials in ${ENV_FILE#"${ROOT}"/}"
}

stop() {
  stop_by_pid "s3 (moto)" "${PID}" 10
  rm -f "${ENV_FILE}"
}

status() { service_status "s3 (moto)" "${HOST}:${PORT}" "${PID}"; }

service_command "start|stop|status" "${1:-}"
