# shellcheck shell=bash
# Functions shared by the scripts in scripts/services/ (sourced, never run).
# Each service keeps a pid file; it is started on loopback and stopped by that
# pid, never by name.
#
# Sourcing it sets ROOT, the checkout's root folder, and CACHE, the cache
# shared by the checkouts on this machine (FLOE_CACHE, default ~/.cache/floe;
# its maven/ is the Maven repository every Java tool and service uses).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${FLOE_CACHE:-${HOME}/.cache/floe}"

# service_files FOLDER PROGRAM: sets the files of one service: DIR, its
# git-ignored state folder ROOT/.cache/FOLDER (not created here: `start`
# does), PID, the pid file DIR/PROGRAM.pid by which it is stopped, and LOG,
# its log DIR/PROGRAM.log.
service_files() {
  DIR="${ROOT}/.cache/$1"
  PID="${DIR}/$2.pid"
  LOG="${DIR}/$2.log"
}

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

# maven_jar TAG SRC OUT JAR: builds the Maven project SRC (its pom.xml and
# src/) with `mvn package` into OUT/JAR and OUT/classpath.txt (the jar, then
# its dependencies, ':'-separated; the pom writes the dependencies to the file
# that -Dpeer.classpath.file names), with the Maven repository CACHE/maven.
# Idempotent: does nothing when OUT/stamp holds the hash of pom.xml, the
# sources and the checkout's path. Builds in a scratch folder, so the checkout
# gets no target/. Logs as [TAG]; on a Maven failure prints the end of its log
# and exits 1.
maven_jar() {
  local tag="$1" src="$2" out="$3" jar="$4" repo="${CACHE}/maven" want have="" start build_dir
  want="$(
    {
      echo "${ROOT}"
      sha256sum "${src}/pom.xml"
      find "${src}/src" -type f -print0 | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1
  )"
  [[ -f "${out}/stamp" ]] && have="$(cat "${out}/stamp")"
  if [[ "${want}" == "${have}" && -f "${out}/${jar}" && -f "${out}/classpath.txt" ]]; then
    printf '[%s] up to date (%s)\n' "${tag}" "${out#"${ROOT}"/}"
    return 0
  fi
  start=${SECONDS}
  printf '[%s] building %s with Maven (repository %s)\n' "${tag}" "${src#"${ROOT}"/}" "${repo}"
  mkdir -p "${out}" "${repo}"
  rm -f "${out}/stamp"
  build_dir="$(mktemp -d)"
  cp -r "${src}/pom.xml" "${src}/src" "${build_dir}/"
  if ! (
    cd "${build_dir}"
    mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="${repo}" \
      -Dpeer.classpath.file="${build_dir}/deps.txt" package </dev/null >"${build_dir}/mvn.log" 2>&1
  ); then
    tail -n 60 "${build_dir}/mvn.log" >&2
    rm -rf "${build_dir}"
    printf '[%s] Maven build failed\n' "${tag}" >&2
    exit 1
  fi
  cp "${build_dir}/target/${jar}" "${out}/${jar}.tmp"
  mv "${out}/${jar}.tmp" "${out}/${jar}"
  printf '%s:%s\n' "${out}/${jar}" "$(cat "${build_dir}/deps.txt")" >"${out}/classpath.txt.tmp"
  mv "${out}/classpath.txt.tmp" "${out}/classpath.txt"
  rm -rf "${build_dir}"
  echo "${want}" >"${out}/stamp"
  printf '[%s] built in %s s\n' "${tag}" "$((SECONDS - start))"
}
