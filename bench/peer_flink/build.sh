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

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/services/lib.sh"

for tool in java mvn; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    echo "[peer-flink] ${tool} not found: install openjdk-17-jdk-headless and maven (or run scripts/java-peer.sh once)" >&2
    exit 1
  fi
done
maven_jar peer-flink "${ROOT}/bench/peer_flink" "${ROOT}/.cache/peer-flink" peer-flink.jar
