#!/usr/bin/env bash
# Starts or stops a throwaway Apache Kafka broker (KRaft mode: one process is
# both broker and controller) for floe's Kafka tests.
#
#   scripts/services/kafka.sh start    # idempotent: returns when the broker answers
#   scripts/services/kafka.sh stop     # kills the broker by its pid file and waits
#   scripts/services/kafka.sh status   # exit 0 if it runs and answers
#
# Environment (tests read the same variables):
#   FLOE_TEST_KAFKA_HOST        127.0.0.1 (loopback only)
#   FLOE_TEST_KAFKA_PORT        9092 (the client listener)
#   FLOE_TEST_KAFKA_CONTROLLER_PORT  FLOE_TEST_KAFKA_PORT + 1 (the KRaft controller)
#   FLOE_TEST_KAFKA_BOOTSTRAP   HOST:PORT (exported by scripts/test.sh)
#
# The broker is Apache Kafka 4.4.0 from Maven Central
# (tests/interop/kafka-broker/pom.xml), copied into
# ${FLOE_CACHE:-~/.cache/floe}/kafka/lib once per pom change (the Maven
# repository is the shared ${FLOE_CACHE}/maven). Java and Maven come from
# Debian. Each start begins empty: the log folder is formatted anew with
# kafka.tools.StorageTool and a fresh cluster id. Topics are created on
# first use with 1 partition unless a test creates them; internal topics have
# replication factor 1; transactions and idempotent producers work. The data,
# config, pid file and log live under .cache/kafka/ (git-ignored).
set -euo pipefail

# shellcheck source=scripts/services/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

service_files kafka kafka
DATA="${DIR}/data"
CONFIG="${DIR}/server.properties"
HOST="${FLOE_TEST_KAFKA_HOST:-127.0.0.1}"
PORT="${FLOE_TEST_KAFKA_PORT:-9092}"
CONTROLLER_PORT="${FLOE_TEST_KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
LIB="${CACHE}/kafka/lib"

running() { service_running "${PID}"; }

# The broker answers once a Metadata request (v1) lists at least one broker:
# then it has joined its own KRaft quorum and serves clients.
answers() {
  local py
  py="$(services_python "${ROOT}")" || return 1
  "${py}" - "${HOST}" "${PORT}" <<'PY' 2>/dev/null
import socket, struct, sys
host, port = sys.argv[1], int(sys.argv[2])
client = b"floe-probe"
# Metadata v1: api key 3, version 1, correlation id 7, client id; topics = null (all).
body = struct.pack(">hhih", 3, 1, 7, len(client)) + client + struct.pack(">i", -1)
with socket.create_connection((host, port), timeout=2) as s:
    s.settimeout(2)
    s.sendall(struct.pack(">i", len(body)) + body)
    head = b""
    while len(head) < 12:
        chunk = s.recv(12 - len(head))
        if not chunk:
            sys.exit(1)
        head += chunk
_, correlation, brokers = struct.unpack(">iii", head)
sys.exit(0 if correlation == 7 and brokers >= 1 else 1)
PY
}

write_config() {
  cat >"${CONFIG}" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${HOST}:${CONTROLLER_PORT}
listeners=PLAINTEXT://${HOST}:${PORT},CONTROLLER://${HOST}:${CONTROLLER_PORT}
advertised.listeners=PLAINTEXT://${HOST}:${PORT}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=${DATA}
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
CONF
}

start() {
  mkdir -p "${DIR}"
  if service_running "${PID}" && answers; then
    echo "kafka already running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
    return 0
  fi
  if service_running "${PID}"; then stop; fi
  if answers; then
    echo "another broker already answers on ${HOST}:${PORT}; stop it or set FLOE_TEST_KAFKA_PORT" >&2
    exit 1
  fi
  ensure_java
  maven_classpath "${ROOT}/tests/interop/kafka-broker/pom.xml" "${LIB}" "${CACHE}/maven"
  rm -rf "${DATA}"
  mkdir -p "${DATA}"
  write_config
  local cluster_id
  cluster_id="$(java -cp "${LIB}/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)"
  if ! java -cp "${LIB}/*" kafka.tools.StorageTool format -t "${cluster_id}" -c "${CONFIG}" \
    >"${LOG}" 2>&1 </dev/null; then
    echo "formatting the Kafka log folder failed; see ${LOG}" >&2
    tail -n 20 "${LOG}" >&2 || true
    exit 1
  fi
  nohup java -Xms128m -Xmx512m -XX:+UseSerialGC -cp "${LIB}/*" kafka.Kafka "${CONFIG}" \
    </dev/null >>"${LOG}" 2>&1 &
  echo $! >"${PID}"
  for _ in $(seq 1 600); do
    if ! service_running "${PID}"; then break; fi
    if answers; then break; fi
    sleep 0.1
  done
  if ! service_running "${PID}" || ! answers; then
    echo "kafka did not start; see ${LOG}" >&2
    grep -v '^\s*at ' "${LOG}" | tail -n 20 >&2 || true
    stop >/dev/null
    exit 1
  fi
  echo "kafka running on ${HOST}:${PORT} (pid $(cat "${PID}"))"
}

stop() {
  stop_by_pid kafka "${PID}" 30
}

status() { service_status "kafka" "${HOST}:${PORT}" "${PID}"; }

service_command "start|stop|status" "${1:-}"
