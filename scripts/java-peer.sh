#!/usr/bin/env bash
# Builds the Iceberg Java peer of the interop tests (tests/interop/java/) and
# caches it under .cache/java-peer/. Idempotent; runs with no standard input
# (CI=true works); costs a hash check when nothing changed.
#
#   scripts/java-peer.sh          # build if needed, print the run command's classpath file
#
# Output (git-ignored):
#   .cache/java-peer/iceberg-peer.jar   the IcebergPeer program
#   .cache/java-peer/classpath.txt      its dependencies (jars in the Maven repository), ':'-separated
#   .cache/java-peer/stamp              hash of pom.xml, the sources and this repository's path
# Maven's repository is ${FLOE_CACHE:-~/.cache/floe}/maven (never ~/.m2), shared
# by the checkouts on the machine, so later runs and clones are offline.
#
# Run it:  java -cp "$(cat .cache/java-peer/classpath.txt)" dev.floe.interop.IcebergPeer ...
# (classpath.txt starts with the jar itself.)
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/services/lib.sh"
ensure_java
maven_jar java-peer "${ROOT}/tests/interop/java" "${ROOT}/.cache/java-peer" iceberg-peer.jar
