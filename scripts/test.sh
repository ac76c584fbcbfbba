#!/usr/bin/env bash
# The whole test suite (what CI runs: .ci/run calls this and nothing else).
#
#   scripts/test.sh
#
# Phases, each timed; a failing phase does not stop the later ones, and the
# script exits non-zero if any failed. The last line is "N passed, N failed",
# counting phases (suites).
#   setup        scripts/setup.sh without its build (packages, .cache/venv)
#   format       every C++ file laid out as .clang-format says (clang-format
#                --dry-run --Werror; fix with clang-format -i)
#   build        release build in build/ (the CLI at build/floe)
#   unit         ctest -L unit, except tests named *Integration*
#   services     scripts/services/mariadb.sh, postgres.sh, s3.sh, kafka.sh and
#                iceberg-rest.sh start (stopped again on exit)
#   integration  ctest -R Integration against that MariaDB, PostgreSQL, S3, Kafka and
#                REST catalog server
#   pytest       tests/ (interop with pyarrow, DuckDB, fastavro, PyIceberg;
#                integration) in .cache/venv, with FLOE_BIN=build/floe, in
#                FLOE_PYTEST_WORKERS processes (pytest-xdist, --dist loadfile:
#                a file's tests stay in one process, so each file keeps to its
#                own databases, slots, topics and buckets); then the tests
#                marked `serial` (they restart a shared server) on their own
#   fuzz         scripts/fuzz.sh (FLOE_FUZZ_SECONDS per target, default 20;
#                FLOE_FUZZ_PARALLEL targets at a time, default: cores)
#
# Environment: FLOE_JOBS (build parallelism, default: cores), FLOE_FUZZ_SECONDS,
# FLOE_PYTEST_WORKERS (pytest processes, default 2; 1 runs every test in one
# process, in file order, as before).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
exec </dev/null

JOBS="${FLOE_JOBS:-$(nproc)}"
FUZZ_SECONDS="${FLOE_FUZZ_SECONDS:-20}"
PYTEST_WORKERS="${FLOE_PYTEST_WORKERS:-2}"
VENV_PY="${ROOT}/.cache/venv/bin/python"

export FLOE_TEST_MYSQL_HOST="${FLOE_TEST_MYSQL_HOST:-127.0.0.1}"
export FLOE_TEST_MYSQL_PORT="${FLOE_TEST_MYSQL_PORT:-3307}"
export FLOE_TEST_MYSQL_USER="${FLOE_TEST_MYSQL_USER:-floe}"
export FLOE_TEST_MYSQL_PASSWORD="${FLOE_TEST_MYSQL_PASSWORD:-floe}"
# PostgreSQL 15 (scripts/services/postgres.sh); the DSN is libpq's, for the same server.
export FLOE_TEST_POSTGRES_HOST="${FLOE_TEST_POSTGRES_HOST:-127.0.0.1}"
export FLOE_TEST_POSTGRES_PORT="${FLOE_TEST_POSTGRES_PORT:-5433}"
export FLOE_TEST_POSTGRES_USER="${FLOE_TEST_POSTGRES_USER:-floe}"
export FLOE_TEST_POSTGRES_PASSWORD="${FLOE_TEST_POSTGRES_PASSWORD:-floe}"
export FLOE_TEST_POSTGRES_DATABASE="${FLOE_TEST_POSTGRES_DATABASE:-floe}"
export FLOE_TEST_POSTGRES_DSN="${FLOE_TEST_POSTGRES_DSN:-host=${FLOE_TEST_POSTGRES_HOST} port=${FLOE_TEST_POSTGRES_PORT} user=${FLOE_TEST_POSTGRES_USER} password=${FLOE_TEST_POSTGRES_PASSWORD} dbname=${FLOE_TEST_POSTGRES_DATABASE}}"
export FLOE_TEST_S3_HOST="${FLOE_TEST_S3_HOST:-127.0.0.1}"
export FLOE_TEST_S3_PORT="${FLOE_TEST_S3_PORT:-9079}"
# Iceberg's REST catalog test server; with FLOE_TEST_REST_URI set, the REST
# tests fail (never skip) when it does not answer.
export FLOE_TEST_REST_HOST="${FLOE_TEST_REST_HOST:-127.0.0.1}"
export FLOE_TEST_REST_PORT="${FLOE_TEST_REST_PORT:-9181}"
export FLOE_TEST_REST_URI="${FLOE_TEST_REST_URI:-http://${FLOE_TEST_REST_HOST}:${FLOE_TEST_REST_PORT}}"
export FLOE_TEST_REST_S3_PORT="${FLOE_TEST_REST_S3_PORT:-9182}"
export FLOE_TEST_REST_S3_URI="${FLOE_TEST_REST_S3_URI:-http://${FLOE_TEST_REST_HOST}:${FLOE_TEST_REST_S3_PORT}}"
# A Kafka broker (Java, from Maven); with FLOE_TEST_KAFKA_BOOTSTRAP set, the
# Kafka tests fail (never skip) when it does not answer.
export FLOE_TEST_KAFKA_HOST="${FLOE_TEST_KAFKA_HOST:-127.0.0.1}"
export FLOE_TEST_KAFKA_PORT="${FLOE_TEST_KAFKA_PORT:-9092}"
export FLOE_TEST_KAFKA_BOOTSTRAP="${FLOE_TEST_KAFKA_BOOTSTRAP:-${FLOE_TEST_KAFKA_HOST}:${FLOE_TEST_KAFKA_PORT}}"
export FLOE_BIN="${ROOT}/build/floe"

passed=()
failed=()
summary=()
started_services=()

stop_services() {
  local service
  for service in "${started_services[@]}"; do
    echo "[test] stopping ${service}"
    "${ROOT}/scripts/services/${service}.sh" stop || true
  done
  started_services=()
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# phase NAME COMMAND...: runs one phase, timing it and recording the outcome.
phase() {
  local name="$1"
  shift
  local start=${SECONDS}
  echo
  echo "===== ${name} ====="
  "$@"
  local rc=$?
  local took=$((SECONDS - start))
  if ((rc == 0)); then
    passed+=("${name}")
    summary+=("$(printf '  %-12s ok      %4d s' "${name}" "${took}")")
    echo "===== ${name}: ok (${took} s)"
  else
    failed+=("${name}")
    summary+=("$(printf '  %-12s FAILED  %4d s  (exit %d)' "${name}" "${took}" "${rc}")")
    echo "===== ${name}: FAILED (exit ${rc}, ${took} s)"
  fi
  return 0
}

run_setup() {
  FLOE_SETUP_SKIP_BUILD=1 "${ROOT}/scripts/setup.sh"
}

run_build() {
  if [[ ! -f build/build.ninja ]]; then
    cmake --preset release >/dev/null || return 1
  fi
  # -k 0: build everything that can be built, so later phases test what there is.
  cmake --build build --parallel "${JOBS}" -- -k 0
}

run_unit() {
  ctest --test-dir build -L unit -E Integration --output-on-failure \
    --parallel 2 --timeout 600 --no-tests=error
}

integration_tests_exist() {
  [[ -d tests/integration ]] && return 0
  ctest --test-dir build -N -R Integration 2>/dev/null | grep -qE 'Total Tests: [1-9]'
}

run_services() {
  local script="${ROOT}/scripts/services/mariadb.sh"
  if [[ ! -x "${script}" ]]; then
    if integration_tests_exist; then
      echo "integration tests exist but scripts/services/mariadb.sh does not" >&2
      return 1
    fi
    echo "no scripts/services/mariadb.sh and no integration tests: nothing to start"
    return 0
  fi
  local pid_file="${ROOT}/.cache/mariadb/mariadb.pid"
  if [[ -f "${pid_file}" ]] && kill -0 "$(cat "${pid_file}")" 2>/dev/null; then
    echo "mariadb was already running (pid $(cat "${pid_file}")); leaving it running afterwards"
  else
    started_services+=(mariadb)
  fi
  local rc=0
  "${script}" start || rc=1
  start_service postgres || rc=1  # the PostgreSQL source's tests
  start_s3 || rc=1
  start_service kafka || rc=1  # the Kafka tests
  start_iceberg_rest || rc=1
  return "${rc}"
}

# start_service NAME: starts scripts/services/NAME.sh (when there is one),
# to be stopped at the end unless it was running already.
start_service() {
  local name="$1" script="${ROOT}/scripts/services/$1.sh"
  [[ -x "${script}" ]] || return 0
  if "${script}" status >/dev/null 2>&1; then
    echo "${name} was already running; leaving it running afterwards"
  else
    started_services+=("${name}")
  fi
  "${script}" start
}

# Iceberg's REST catalog test server (Java, from Maven) for the REST catalog
# tests, and its second instance, tables on S3 (after start_s3: it uses
# moto's key).
start_iceberg_rest() {
  [[ -x "${ROOT}/scripts/services/iceberg-rest.sh" ]] || return 0
  start_service iceberg-rest || return 1
  start_service iceberg-rest-s3
}

# The S3 server of the S3FileIO tests (moto); its credentials are exported
# for the integration and pytest phases.
start_s3() {
  [[ -x "${ROOT}/scripts/services/s3.sh" ]] || return 0
  start_service s3 || return 1
  set -a
  # shellcheck disable=SC1091
  . "${ROOT}/.cache/s3/credentials.env"
  set +a
}

# Every C++ file of the tree as .clang-format lays it out.
run_format() {
  local files=()
  if git -C "${ROOT}" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git -C "${ROOT}" ls-files '*.cc' '*.h')
  else
    mapfile -t files < <(find src fuzz bench -name '*.cc' -o -name '*.h')
  fi
  ((${#files[@]} > 0)) || return 0
  clang-format --dry-run --Werror "${files[@]}"
}

run_integration() {
  ctest --test-dir build -R Integration --output-on-failure --timeout 900 --no-tests=ignore
}

run_pytest() {
  if [[ ! -x "${VENV_PY}" ]]; then
    echo "no .cache/venv; the setup phase failed" >&2
    return 1
  fi
  local workers="${PYTEST_WORKERS}"
  if ! [[ "${workers}" =~ ^[0-9]+$ ]] || ((workers < 1)); then
    echo "FLOE_PYTEST_WORKERS must be a number of processes, not '${workers}'" >&2
    return 2
  fi
  if ((workers > 1)) && ! "${VENV_PY}" -c 'import xdist' 2>/dev/null; then
    echo "pytest-xdist is not in .cache/venv (the setup phase installs it); one process" >&2
    workers=1
  fi
  local common=(tests -q -ra -p no:cacheprovider --durations=12)
  if ((workers == 1)); then
    "${VENV_PY}" -m pytest "${common[@]}"
    pytest_outcome $?
    return
  fi
  # Two passes: every test but the `serial` ones, files spread over the
  # workers; then the `serial` ones (they restart a shared server) alone.
  echo "[pytest] ${workers} processes (--dist loadfile), then the tests marked serial"
  local rc=0
  "${VENV_PY}" -m pytest "${common[@]}" -n "${workers}" --dist loadfile -m "not serial"
  pytest_outcome $? || rc=1
  "${VENV_PY}" -m pytest "${common[@]}" -m serial
  local serial_rc=$?
  ((serial_rc == 0 || serial_rc == 5)) || rc=1  # 5: no test is marked serial
  return "${rc}"
}

# pytest_outcome RC: pytest's exit code, saying so when it collected nothing.
pytest_outcome() {
  if (($1 == 5)); then
    echo "pytest collected no tests" >&2
  fi
  return "$1"
}

run_fuzz() {
  "${ROOT}/scripts/fuzz.sh" "${FUZZ_SECONDS}"
}

total_start=${SECONDS}
phase setup run_setup
phase format run_format
phase build run_build
phase unit run_unit
phase services run_services
phase integration run_integration
phase pytest run_pytest
stop_services
phase fuzz run_fuzz

echo
echo "===== summary ($((SECONDS - total_start)) s in all)"
printf '%s\n' "${summary[@]}"
echo "${#passed[@]} passed, ${#failed[@]} failed"
((${#failed[@]} == 0))
