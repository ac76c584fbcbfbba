"""`floe run`'s kafka source and bad input, against the test broker (issue 15): each case
ends in a clear error that says what to do, or is read as docs/kafka.md says, and nothing is
lost or skipped silently.

- no broker listens at the bootstrap address;
- a topic that does not exist;
- a message that is not JSON (on-error: fail, the default): the run stops naming topic,
  partition and offset, and commits nothing of it or after it;
- a checkpoint whose offset retention or deleteRecords removed: the run stops naming topic,
  partition and offset and saying nothing was skipped;
- Debezium messages without the schema wrapper: read with the table's schema once the table
  exists; refused, naming where, when no schema is known;
- a producer that did not key by primary key (one row's changes on two partitions): the run
  warns, naming the key and both partitions, and the table holds one row for the key, the
  change read last (docs/kafka.md, "Keys and partitions").
"""

from __future__ import annotations

import json
import socket
import subprocess
import uuid

from iceberg_rows import assert_same_rows
from test_run_kafka import (  # noqa: F401  (fixtures)
    Producer,
    Run,
    _finish,
    _judge,
    _nothing_left_running,
    _pipeline,
    _wait_for_new_commit,
    kafka_bootstrap,
    kafka_client_classpath,
)

ID_KEY = '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],' \
         '"optional":false,"name":"k"},"payload":{"id":%d}}'
ROW_SCHEMA = {"type": "struct", "optional": True, "name": "shop.plain.Value", "fields": [
    {"type": "int64", "optional": False, "field": "id"}, {"type": "string", "optional": True, "field": "name"}]}
ENVELOPE = {"type": "struct", "optional": False, "name": "shop.plain.Envelope", "fields": [
    dict(ROW_SCHEMA, field="before"), dict(ROW_SCHEMA, field="after"),
    {"type": "struct", "optional": False, "field": "source", "fields": [
        {"type": "string", "optional": False, "field": "db"}, {"type": "string", "optional": True, "field": "table"}]},
    {"type": "string", "optional": False, "field": "op"}]}


def payload(op: str, before: dict | None, after: dict | None, table: str = "plain") -> dict:
    return {"before": before, "after": after, "source": {"db": "shop", "table": table}, "op": op}


def wrapped(op: str, before: dict | None, after: dict | None) -> str:
    return json.dumps({"schema": ENVELOPE, "payload": payload(op, before, after)}, separators=(",", ":"))


def bare(op: str, before: dict | None, after: dict | None, table: str = "plain") -> str:
    return json.dumps(payload(op, before, after, table), separators=(",", ":"))


def run_once(binary, pipeline, timeout: float = 60) -> subprocess.CompletedProcess:
    """`floe run` in the foreground, for runs that must stop on their own."""
    return subprocess.run([str(binary), "run", str(pipeline), "--progress", "never"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def edit(pipeline, old: str, new: str) -> None:
    text = pipeline.read_text()
    assert old in text
    pipeline.write_text(text.replace(old, new, 1))


def test_no_broker_listens(tmp_path, make_lake, floe_ingest_ready):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pipeline = _pipeline(make_lake("sql"), tmp_path, f"127.0.0.1:{port}", "nowhere", "debezium-json")
    edit(pipeline, "  value.format:", "  open-timeout: 2000\n  value.format:")
    failed = run_once(floe_ingest_ready, pipeline)
    assert failed.returncode != 0
    assert f"no Kafka broker answered at 127.0.0.1:{port} within 2000 ms" in failed.stderr, failed.stderr[-3000:]
    assert "check properties.bootstrap.servers" in failed.stderr, failed.stderr[-3000:]


def test_topic_that_does_not_exist(tmp_path, make_lake, floe_ingest_ready, kafka_bootstrap):
    topic = f"never-made-{uuid.uuid4().hex[:8]}"
    pipeline = _pipeline(make_lake("sql"), tmp_path, kafka_bootstrap, topic, "debezium-json")
    failed = run_once(floe_ingest_ready, pipeline)
    assert failed.returncode != 0
    assert f"topic '{topic}' does not exist at {kafka_bootstrap}" in failed.stderr, failed.stderr[-3000:]
    assert "create it, or check" in failed.stderr, failed.stderr[-3000:]


def test_message_that_is_not_json_stops_the_run(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                                kafka_bootstrap, kafka_client_classpath):
    lake = make_lake("sql")
    topic = f"not-json-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    for i in range(1, 6):
        producer.send(0, ID_KEY % i, wrapped("c", None, {"id": i, "name": f"n{i}"}))
    producer.send(0, ID_KEY % 6, "{not json")
    producer.send(0, ID_KEY % 7, wrapped("c", None, {"id": 7, "name": "after the bad one"}))
    producer.flush()
    producer.close()
    failed = run_once(floe_ingest_ready, _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json"))
    assert failed.returncode != 0
    assert f"{topic}[0] offset 5: invalid JSON" in failed.stderr, failed.stderr[-3000:]
    assert "on-error: skip" in failed.stderr, failed.stderr[-3000:]
    # The rows before it may be committed (the last checkpoint before the failure), the one
    # after it never is.
    if lake.py_catalog().table_exists("shop.plain"):
        rows, _ = java_peer.scan(lake, "shop.plain")
        assert {r["id"] for r in rows} <= {1, 2, 3, 4, 5}, rows


def test_offset_no_longer_in_the_log(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                     kafka_bootstrap, kafka_client_classpath):
    lake = make_lake("sql")
    topic = f"deleted-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    for i in range(1, 11):
        producer.send(0, ID_KEY % i, wrapped("c", None, {"id": i, "name": "kept"}))
    producer.flush()
    pipeline = _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json")
    run = Run(floe_ingest_ready, pipeline, tmp_path)
    _finish(run, producer, topic)  # offset 10 of partition 0 is in the checkpoint

    for i in range(11, 21):
        producer.send(0, ID_KEY % i, wrapped("c", None, {"id": i, "name": "deleted"}))
    producer.flush()
    producer.proc.stdin.write("DELETE 0 15\n")
    producer.proc.stdin.flush()
    assert producer.proc.stdout.readline().strip() == "deleted 15"
    producer.close()

    failed = run_once(floe_ingest_ready, pipeline)
    assert failed.returncode != 0
    assert f"offset 10 of {topic}[0] is not in the log" in failed.stderr, failed.stderr[-3000:]
    assert "nothing was skipped" in failed.stderr, failed.stderr[-3000:]
    rows, _ = java_peer.scan(lake, "shop.plain")
    assert sorted(r["id"] for r in rows) == list(range(1, 11)), "rows after the gap were committed"


def test_debezium_without_the_schema_wrapper(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                             kafka_bootstrap, kafka_client_classpath):
    lake = make_lake("sql")
    # Bare payloads after a wrapped one made the table: read with the table's schema.
    topic = f"bare-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    producer.send(0, ID_KEY % 1, wrapped("c", None, {"id": 1, "name": "wrapped"}))
    producer.send(0, ID_KEY % 2, bare("c", None, {"id": 2, "name": "bare"}))
    producer.send(0, ID_KEY % 3, bare("c", None, {"id": 3, "name": "bare"}))
    producer.send(0, ID_KEY % 1, bare("u", {"id": 1, "name": "wrapped"}, {"id": 1, "name": "bare update"}))
    producer.send(0, ID_KEY % 3, bare("d", {"id": 3, "name": "bare"}, None))
    producer.flush()
    run = Run(floe_ingest_ready, _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json"), tmp_path)
    _finish(run, producer, topic)
    producer.close()
    _judge(lake, java_peer, {"shop.plain": [{"id": 1, "name": "bare update"}, {"id": 2, "name": "bare"}]},
           "bare Debezium payloads")

    # A bare payload of a table that does not exist: no schema to read it with.
    topic = f"bare-first-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    producer.send(1, ID_KEY % 1, bare("c", None, {"id": 1, "name": "x"}, table="unknown"))
    producer.flush()
    producer.close()
    failed = run_once(floe_ingest_ready, _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json"))
    assert failed.returncode != 0
    assert f"{topic}[1] offset 0:" in failed.stderr, failed.stderr[-3000:]
    assert "no schema block" in failed.stderr, failed.stderr[-3000:]


def test_one_key_on_two_partitions(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                   kafka_bootstrap, kafka_client_classpath):
    """A producer that partitions by something else than the primary key: the changes of
    one row arrive on two partitions, whose relative order Kafka does not keep. The run warns
    once, naming the key and the partitions; the table holds one row per key (an upsert by
    key), the change read last."""
    lake = make_lake("sql")
    topic = f"unkeyed-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    producer.send(0, ID_KEY % 1, wrapped("c", None, {"id": 1, "name": "v0"}))
    for version in range(1, 7):
        before = {"id": 1, "name": f"v{version - 1}"}
        producer.send(version % 2, ID_KEY % 1, wrapped("u", before, {"id": 1, "name": f"v{version}"}))
    producer.flush()
    run = Run(floe_ingest_ready, _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json"), tmp_path)
    _finish(run, producer, topic)
    producer.close()
    logs = run.stderr()
    assert logs.count("was read from partition") == 1, logs[-3000:]
    assert "did not partition topic '" + topic + "' by primary key" in logs, logs[-3000:]
    assert "Keys and partitions" in logs, logs[-3000:]
    rows, _ = java_peer.scan(lake, "shop.plain")
    assert len(rows) == 1 and rows[0]["id"] == 1, rows
    assert rows[0]["name"] in {f"v{v}" for v in range(7)}, rows
    print("one key on two partitions: the table holds", rows[0])
