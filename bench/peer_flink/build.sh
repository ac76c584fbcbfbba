#!/usr/bin/env bash
# Builds the Flink peer of bench/peer_flink_bench.py (bench/peer_flink/: Iceberg's
# FlinkSink on a Flink MiniCluster) and caches it under .cache/peer-flink/.
# Idempotent: when pom.xml and the sources are unchanged it only checks a hash.
#
#   bench/peer_flink/build.sh
#
# Output (git-ignored, under .cache/):
#   .cache/peer-flink/peer-flink.jar    the FlinkSinkBench program
#   .cache/peer-flink/classpath.txt     the jar, then its dependencies, ':'-separated
#   .cache/peer-flink/stamp             hash of pom.xml, the sources and this checkout's path
# Maven's repository is the one scripts/java-peer.sh uses (FLOE_CACHE, default
# ~/.cache/floe, + /maven), so both peers share their downloads (Maven Central only).
#
# Run it:  java -cp "$(cat .cache/peer-flink/classpath.txt)" dev.floe.bench.FlinkSinkBench ...
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SRC="${ROOT}/bench/peer_flink"
OUT="${ROOT}/.cache/peer-flink"
REPO="${FLOE_CACHE:-${HOME}/.cache/floe}/maven"

log() { printf '[peer-flink] %s\n' "$*"; }

for tool in java mvn; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    log "${tool} not found: install openjdk-17-jdk-headless and maven (or run scripts/java-peer.sh once)" >&2
    exit 1
  fi
done

want="$(
  {
    echo "${ROOT}"
    sha256sum "${SRC}/pom.xml"
    find "${SRC}/src" -type f -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -d' ' -f1
)"
have=""
[[ -f "${OUT}/stamp" ]] && have="$(cat "${OUT}/stamp")"
if [[ "${want}" == "${have}" && -f "${OUT}/peer-flink.jar" && -f "${OUT}/classpath.txt" ]]; then
  log "up to date (.cache/peer-flink)"
  exit 0
fi

start=${SECONDS}
log "building bench/peer_flink with Maven (repository ${REPO})"
mkdir -p "${OUT}" "${REPO}"
rm -f "${OUT}/stamp"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
# Build in a scratch folder: the checkout gets no target/.
cp -r "${SRC}/pom.xml" "${SRC}/src" "${work}/"
if ! (
  cd "${work}"
  mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="${REPO}" \
    -Dpeer.classpath.file="${work}/deps.txt" package </dev/null >"${work}/mvn.log" 2>&1
); then
  tail -n 60 "${work}/mvn.log" >&2
  log "Maven build failed" >&2
  exit 1
fi
cp "${work}/target/peer-flink.jar" "${OUT}/peer-flink.jar.tmp"
mv "${OUT}/peer-flink.jar.tmp" "${OUT}/peer-flink.jar"
printf '%s:%s\n' "${OUT}/peer-flink.jar" "$(cat "${work}/deps.txt")" >"${OUT}/classpath.txt.tmp"
mv "${OUT}/classpath.txt.tmp" "${OUT}/classpath.txt"
echo "${want}" >"${OUT}/stamp"
log "built in $((SECONDS - start)) s"
