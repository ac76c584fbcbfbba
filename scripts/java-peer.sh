#!/usr/bin/env bash
# Builds the Iceberg Java peer of the interop tests (tests/interop/java/) and
# caches it under .cache/java-peer/. Idempotent; runs with no standard input
# (CI=true works); costs a hash check when nothing changed.
#
#   scripts/java-peer.sh          # build if needed, print the run command's classpath file
#
# Output (git-ignored):
#   .cache/java-peer/iceberg-peer.jar   the IcebergPeer program
#   .cache/java-peer/classpath.txt      its dependencies (jars in .cache/maven), ':'-separated
#   .cache/java-peer/stamp              hash of pom.xml, the sources and this repository's path
# Maven's repository is .cache/maven (never ~/.m2), so a clean clone downloads
# once and later runs are offline.
#
# Run it:  java -cp "$(cat .cache/java-peer/classpath.txt)" dev.floe.interop.IcebergPeer ...
# (classpath.txt starts with the jar itself.)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="${ROOT}/tests/interop/java"
OUT="${ROOT}/.cache/java-peer"
# Maven's downloads are shared between checkouts (FLOE_CACHE, default
# ~/.cache/floe), so a fresh clone on the same machine downloads nothing.
REPO="${FLOE_CACHE:-${HOME}/.cache/floe}/maven"

log() { printf '[java-peer] %s\n' "$*"; }

# shellcheck source=scripts/services/lib.sh
. "${ROOT}/scripts/services/lib.sh"
ensure_java

want="$(
  {
    echo "${ROOT}"
    sha256sum "${SRC}/pom.xml"
    find "${SRC}/src" -type f -name '*.java' -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -d' ' -f1
)"
have=""
[[ -f "${OUT}/stamp" ]] && have="$(cat "${OUT}/stamp")"
if [[ "${want}" == "${have}" && -f "${OUT}/iceberg-peer.jar" && -f "${OUT}/classpath.txt" ]]; then
  log "up to date (.cache/java-peer)"
  exit 0
fi

start=${SECONDS}
log "building tests/interop/java with Maven (repository .cache/maven)"
mkdir -p "${OUT}" "${REPO}"
rm -f "${OUT}/stamp"
build_dir="$(mktemp -d)"
trap 'rm -rf "${build_dir}"' EXIT
# Build outside the source tree so the checkout stays clean.
cp -r "${SRC}/pom.xml" "${SRC}/src" "${build_dir}/"
if ! (
  cd "${build_dir}"
  mvn -B -ntp -Dstyle.color=never -Dmaven.repo.local="${REPO}" \
    -Dpeer.classpath.file="${build_dir}/deps.txt" package </dev/null >"${build_dir}/mvn.log" 2>&1
); then
  tail -n 60 "${build_dir}/mvn.log" >&2
  log "Maven build failed" >&2
  exit 1
fi
cp "${build_dir}/target/iceberg-peer.jar" "${OUT}/iceberg-peer.jar.tmp"
mv "${OUT}/iceberg-peer.jar.tmp" "${OUT}/iceberg-peer.jar"
printf '%s:%s\n' "${OUT}/iceberg-peer.jar" "$(cat "${build_dir}/deps.txt")" >"${OUT}/classpath.txt.tmp"
mv "${OUT}/classpath.txt.tmp" "${OUT}/classpath.txt"
echo "${want}" >"${OUT}/stamp"
log "built in $((SECONDS - start)) s"
