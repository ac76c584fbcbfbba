# shellcheck shell=bash
# Functions shared by the scripts in scripts/services/ (sourced, never run).
# Each service keeps a pid file; it is started on loopback and stopped by that
# pid, never by name.

# service_running PID_FILE: exit 0 if the pid file names a live process.
service_running() {
  [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

# stop_by_pid NAME PID_FILE [SECONDS]: sends TERM to the process of the pid
# file, waits up to SECONDS (default 30) for it to end, then KILL; removes the
# pid file.
stop_by_pid() {
  local name="$1" pid_file="$2" seconds="${3:-30}" pid
  if ! [[ -f "${pid_file}" ]]; then
    echo "${name} not running"
    return 0
  fi
  pid="$(cat "${pid_file}")"
  if kill -0 "${pid}" 2>/dev/null; then
    kill "${pid}"
    for _ in $(seq 1 $((seconds * 10))); do
      kill -0 "${pid}" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "${pid}" 2>/dev/null; then kill -9 "${pid}" || true; fi
  fi
  rm -f "${pid_file}"
  echo "${name} stopped"
}

# service_status NAME ADDRESS PID_FILE: the `status` command of a service
# script that defines `running` (its process is alive) and `answers` (it
# serves): prints whether NAME runs on ADDRESS, with its pid; exit 0 if so.
service_status() {
  local name="$1" address="$2" pid_file="$3"
  if running && answers; then
    echo "${name} running on ${address} (pid $(cat "${pid_file}"))"
    return 0
  fi
  echo "${name} not running"
  return 1
}

# service_command USAGE COMMAND: runs the script's start, stop or status
# function as COMMAND says; anything else prints "usage: SCRIPT USAGE" and
# exits 2.
service_command() {
  local usage="$1"
  case "${2:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: $0 ${usage}" >&2; exit 2 ;;
  esac
}

# services_python ROOT: the Python that probes services (the test venv's, else
# the system's); setup.sh installs no curl.
services_python() {
  local py="$1/.cache/venv/bin/python"
  [[ -x "${py}" ]] || py="$(command -v python3)" || return 1
  echo "${py}"
}

# http_answers ROOT URL: exit 0 if URL answers an HTTP GET within 2 s.
http_answers() {
  local py
  py="$(services_python "$1")" || return 1
  "${py}" -c "import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=2)" "$2" 2>/dev/null
}

# ensure_java: Java 17 and Maven from Debian (installed when missing and root).
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

# maven_classpath POM LIB REPO: copies the dependencies of the pom file POM
# into the folder LIB (a Java classpath of LIB/*) with the Maven repository
# REPO, once per change of the pom (a hash stamp in LIB).
maven_classpath() {
  local pom="$1" lib="$2" repo="$3" want have="" build_dir
  want="$(sha256sum "${pom}" | cut -d' ' -f1)"
  [[ -f "${lib}/stamp" ]] && have="$(cat "${lib}/stamp")"
  [[ "${want}" == "${have}" ]] && return 0
  echo "resolving the classpath of ${pom#"${ROOT:-}"/} with Maven"
  build_dir="$(mktemp -d)"
  rm -rf "${lib}"
  mkdir -p "${lib}" "${repo}"
  cp "${pom}" "${build_dir}/pom.xml"
  if ! (cd "${build_dir}" && mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="${repo}" \
    dependency:copy-dependencies -DoutputDirectory="${lib}" </dev/null >"${build_dir}/mvn.log" 2>&1); then
    tail -n 40 "${build_dir}/mvn.log" >&2
    rm -rf "${build_dir}"
    echo "Maven could not resolve ${pom}" >&2
    exit 1
  fi
  rm -rf "${build_dir}"
  echo "${want}" >"${lib}/stamp"
}
