"""`floe run` with `source: type: kafka` (issue 15): change topics into Iceberg, exactly once.

A random Debezium change stream over three tables (inserts, updates, deletes followed by
tombstones, columns added mid-stream) is produced into a two-partition topic, each message
keyed by its row's primary key (Debezium's key, which names the key columns) and sent to
the partition of its row's id, so the changes of one row stay in order. `floe run` mirrors
the topic with short checkpoints and is killed with SIGKILL several times while more
messages arrive; restarted each time, it resumes from its checkpoint's offsets. At the end
every table equals the model row for row, read by Iceberg Java (the judge of equality
deletes) and by the spec's rules over PyIceberg's metadata, and no checkpoint was committed
twice, and the group's committed offsets (for monitoring) reached the end of the topic. A
shorter canal-json run, and a message that cannot be read (the run stops naming its topic,
partition and offset), follow.

The broker is scripts/services/kafka.sh's (FLOE_TEST_KAFKA_BOOTSTRAP; scripts/test.sh
starts it); messages are produced with the broker's own Java client
(tests/interop/kafka-broker/KafkaProduce.java).
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import time
import uuid

import pytest

from changes import ChangeStream, SourceTable
from iceberg_peers import CATALOG_NAME
from iceberg_rows import assert_same_rows
from lake_check import assert_no_checkpoint_twice, merge_on_read

REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]
PRODUCER_SOURCE = REPO_ROOT / "tests" / "interop" / "kafka-broker" / "KafkaProduce.java"
PARTITIONS = 2

_RUNNING: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _nothing_left_running():
    yield
    while _RUNNING:
        proc = _RUNNING.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    """The test broker: FLOE_TEST_KAFKA_BOOTSTRAP (it must answer), else one on the default
    port if it runs (else the tests are skipped)."""
    given = os.environ.get("FLOE_TEST_KAFKA_BOOTSTRAP")
    bootstrap = given or f"127.0.0.1:{os.environ.get('FLOE_TEST_KAFKA_PORT', '9092')}"
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError as e:
        if given:
            pytest.fail(f"FLOE_TEST_KAFKA_BOOTSTRAP={given} does not answer: {e}")
        pytest.skip("no Kafka broker (start one with scripts/services/kafka.sh start)")
    return bootstrap


@pytest.fixture(scope="session")
def kafka_client_classpath() -> str:
    lib = pathlib.Path(os.environ.get("FLOE_CACHE", pathlib.Path.home() / ".cache" / "floe")) / "kafka" / "lib"
    if not (lib / "stamp").exists() or shutil.which("java") is None:
        pytest.fail(f"no Kafka client jars in {lib} or no java: scripts/services/kafka.sh start fills them")
    return str(lib / "*")


class Producer:
    """KafkaProduce.java in the background: messages to explicit partitions."""

    def __init__(self, classpath: str, bootstrap: str, topic: str, partitions: int = PARTITIONS):
        self.proc = subprocess.Popen(
            ["java", "-cp", classpath, str(PRODUCER_SOURCE), bootstrap, topic, str(partitions)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
        _RUNNING.append(self.proc)
        assert self.proc.stdout.readline().strip() == "ready", "the producer did not start"
        self.sent = [0] * partitions

    def send(self, partition: int, key: str | None, value: str | None) -> None:
        for text in (key, value):
            assert text is None or ("\t" not in text and "\n" not in text)
        self.proc.stdin.write(f"{partition}\t{'-' if key is None else key}\t{'-' if value is None else value}\n")
        self.sent[partition] += 1

    def flush(self) -> None:
        self.proc.stdin.write("FLUSH\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().strip()
        assert line == f"ok {sum(self.sent)}", f"producer: {line!r}"

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(timeout=60) == 0

    def committed(self, group: str) -> list[int]:
        """The offsets `group` committed, per partition (-1: none)."""
        self.proc.stdin.write(f"COMMITTED {group}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().strip()
        assert line.startswith("committed "), f"producer: {line!r}"
        return [int(part.split(":")[1]) for part in line[len("committed "):].split(",")]


class Run:
    """`floe run PIPELINE` in the background."""

    def __init__(self, binary: pathlib.Path, pipeline: pathlib.Path, logs: pathlib.Path):
        self.stderr_path = logs / f"run-{time.monotonic_ns()}.txt"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen([str(binary), "run", str(pipeline), "--progress", "never"],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _RUNNING.append(self.proc)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def alive(self) -> None:
        assert self.proc.poll() is None, f"floe run exited {self.proc.returncode}: {self.stderr()[-4000:]}"

    def stop(self, sig=signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=120)


def _pipeline(lake, tmp: pathlib.Path, bootstrap: str, topic: str, value_format: str) -> pathlib.Path:
    catalog = (f'{{name: {CATALOG_NAME}, type: sql, uri: "sqlite:///{lake.db}", '
               f'warehouse: "{lake.warehouse_uri}"}}')
    path = tmp / f"{topic}.yaml"
    path.write_text(
        "source:\n"
        "  type: kafka\n"
        f"  properties.bootstrap.servers: {bootstrap}\n"
        f"  topic: {topic}\n"
        f"  properties.group.id: floe-{topic}\n"
        "  scan.startup.mode: earliest-offset\n"
        f"  value.format: {value_format}\n"
        "  properties.session.timeout.ms: 6000\n"
        "  properties.heartbeat.interval.ms: 500\n"
        "sink:\n"
        "  type: iceberg\n"
        f"  catalog: {catalog}\n"
        "pipeline:\n"
        f"  name: {topic}\n"
        "  parallelism: 2\n"
        "  checkpoint.interval: 300ms\n"
        f"  state.dir: {tmp / ('state-' + topic)}\n"
    )
    return path


def _newest_position(lake, idents) -> set[str]:
    """The floe.source-position of each table's newest snapshot."""
    out = set()
    for ident in idents:
        try:
            metadata = lake.metadata(ident)
        except Exception:  # not created yet
            continue
        snapshots = sorted(metadata.get("snapshots", []), key=lambda s: s["sequence-number"])
        if snapshots:
            out.add(snapshots[-1].get("summary", {}).get("floe.source-position", ""))
    return out


def _finish(run: Run, producer: Producer, topic: str, limit: float = 90) -> None:
    """Waits until the run has committed to the group the offsets after every message sent
    (it does after each completed checkpoint, also one that committed no table), then stops
    it (SIGTERM: a last checkpoint and commit) and checks that it ended well."""
    end = time.monotonic() + limit
    while (committed := producer.committed(f"floe-{topic}")) != producer.sent:
        run.alive()
        assert time.monotonic() < end, \
            f"the group holds {committed}, not {producer.sent}: {run.stderr()[-3000:]}"
        time.sleep(0.2)
    assert run.stop() == 0, run.stderr()[-4000:]


def _wait_for_new_commit(run: Run, lake, idents, send, limit: float = 60) -> None:
    """Calls `send` now and then until a table commits a position it did not hold before
    (a restarted member waits for the group to drop the killed one, up to the session
    timeout, before it is assigned its partitions)."""
    before = _newest_position(lake, idents)
    end = time.monotonic() + limit
    while not (_newest_position(lake, idents) - before):
        run.alive()
        assert time.monotonic() < end, f"no new commit within {limit} s: {run.stderr()[-3000:]}"
        send()
        time.sleep(0.5)


def _judge(lake, java_peer, expected: dict[str, list[dict]], what: str) -> None:
    for ident, rows in expected.items():
        table = lake.py_table(ident)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        assert_same_rows(merge_on_read(table), rows, schema, f"{what}: {ident} (spec rules over PyIceberg metadata)")
        java_rows, _ = java_peer.scan(lake, ident)
        assert_same_rows(java_rows, rows, schema, f"{what}: {ident} (Iceberg Java)")
        assert_no_checkpoint_twice(lake.metadata(ident), f"{what}: {ident}")


# ----------------------------------------------------------------------------- debezium-json

_KEY_TYPES = {"id": "int64", "region": "string"}


def _debezium_key(table: SourceTable, row: dict) -> str:
    """Debezium's message key: the key columns, with their Connect schema."""
    fields = [{"field": k, "type": _KEY_TYPES[k], "optional": False} for k in table.key]
    return json.dumps({"schema": {"type": "struct", "name": f"{table.db}.{table.name}.Key", "optional": False,
                                  "fields": fields},
                       "payload": {k: row[k] for k in table.key}}, separators=(",", ":"))


class DebeziumTopic:
    """The change stream, sent message by message: partition by row id, Debezium key, and a
    tombstone after each delete, as Debezium writes them."""

    def __init__(self, seed: int, producer: Producer):
        self.stream = ChangeStream(seed)
        self.tables = {(t.db, t.name): t for t in self.stream.tables}
        self.producer = producer
        self.messages = 0

    def send(self, count: int) -> None:
        for line in self.stream.lines(count):
            payload = json.loads(line)["payload"]
            source = payload["source"]
            table = self.tables[(source["db"], source["table"])]
            row = payload["after"] or payload["before"]
            partition = row["id"] % PARTITIONS
            key = _debezium_key(table, row)
            self.producer.send(partition, key, line)
            if payload["op"] == "d":
                self.producer.send(partition, key, None)
            self.messages += 1
        self.producer.flush()

    def expected(self) -> dict[str, list[dict]]:
        return self.stream.expected()


def test_debezium_topic_exactly_once_under_sigkill(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                                   kafka_bootstrap, kafka_client_classpath):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    topic = f"shop-changes-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    stream = DebeziumTopic(seed, producer)
    pipeline = _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json")

    stream.send(500)
    idents = list(stream.expected())
    kills = 0
    run = Run(binary, pipeline, tmp_path)
    for _ in range(4):
        # Once the run reads (it has joined the group: a commit past where it started), more
        # messages while it reads and commits, and a kill at a random moment among them.
        _wait_for_new_commit(run, lake, idents, lambda: stream.send(rnd.randint(20, 100)))
        for _ in range(rnd.randint(2, 4)):
            stream.send(rnd.randint(50, 300))
            time.sleep(rnd.uniform(0.05, 0.3))
        time.sleep(rnd.uniform(0, 0.6))
        run.alive()
        run.stop(signal.SIGKILL)
        kills += 1
        run = Run(binary, pipeline, tmp_path)
    stream.send(300)
    _finish(run, producer, topic)
    producer.close()
    assert "resuming from checkpoint" in "".join(p.read_text(errors="replace")
                                                 for p in tmp_path.glob("run-*.txt"))
    _judge(lake, java_peer, stream.expected(), f"seed {seed}, {kills} kills, {stream.messages} changes")
    # The keys came from the messages' keys.
    items = lake.py_table("shop.items").schema()
    assert sorted(items.find_field(i).name for i in items.identifier_field_ids) == ["id", "region"]


# ----------------------------------------------------------------------------- canal-json

_CANAL_TYPES = {"id": "bigint(20)", "name": "varchar(20)", "qty": "int(11)", "price": "decimal(10,2)"}


def _canal(kind: str, data: list[dict], old: list[dict] | None = None, types=None) -> str:
    types = types or _CANAL_TYPES
    return json.dumps({"data": data, "database": "shop", "table": "stock", "pkNames": ["id"], "isDdl": False,
                       "type": kind, "es": 1700000000000, "ts": 1700000000000, "id": 1, "sql": "",
                       "mysqlType": types, "sqlType": {n: 12 for n in types}, "old": old}, separators=(",", ":"))


def test_canal_topic_and_a_message_that_cannot_be_read(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                                       kafka_bootstrap, kafka_client_classpath):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    topic = f"canal-changes-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    rows: dict[int, dict] = {}
    next_id = [0]

    def row() -> dict:
        next_id[0] += 1
        return {"id": str(next_id[0]), "name": rnd.choice([None, "bolt", "nut ü", 'q"uote']),
                "qty": str(rnd.randint(-100, 100)), "price": f"{rnd.randint(0, 9999)}.{rnd.randint(0, 99):02d}"}

    def send(count: int) -> None:
        for _ in range(count):
            pick = rnd.random()
            if pick < 0.5 or len(rows) < 3:
                new = row()
                rows[int(new["id"])] = new
                producer.send(int(new["id"]) % PARTITIONS, new["id"], _canal("INSERT", [new]))
            elif pick < 0.85:
                key = rnd.choice(list(rows))
                after = dict(rows[key], qty=str(rnd.randint(0, 9)))
                producer.send(key % PARTITIONS, str(key),
                              _canal("UPDATE", [after], [{"qty": rows[key]["qty"]}]))
                rows[key] = after
            else:
                key = rnd.choice(list(rows))
                producer.send(key % PARTITIONS, str(key), _canal("DELETE", [rows.pop(key)]))
        producer.flush()

    def expected() -> dict[str, list[dict]]:
        return {"shop.stock": [{"id": int(r["id"]), "name": r["name"], "qty": int(r["qty"]), "price": r["price"]}
                               for r in rows.values()]}

    pipeline = _pipeline(lake, tmp_path, kafka_bootstrap, topic, "canal-json")
    send(300)
    run = Run(binary, pipeline, tmp_path)
    _wait_for_new_commit(run, lake, ["shop.stock"], lambda: send(20))
    send(200)
    time.sleep(rnd.uniform(0, 0.5))
    run.alive()
    run.stop(signal.SIGKILL)
    run = Run(binary, pipeline, tmp_path)
    send(200)
    _finish(run, producer, topic)
    _judge(lake, java_peer, expected(), f"seed {seed}, canal-json")

    # A message whose value does not fit its column stops the run, naming where it is.
    poison_partition = 1
    poison_offset = producer.sent[poison_partition]
    producer.send(poison_partition, "x", _canal("INSERT", [{"id": "x", "name": "a", "qty": "1", "price": "1.00"}]))
    producer.flush()
    producer.close()
    failed = subprocess.run([str(binary), "run", str(pipeline), "--progress", "never"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode != 0
    assert f"{topic}[{poison_partition}] offset {poison_offset}" in failed.stderr, failed.stderr[-3000:]
    assert "data[0].id" in failed.stderr, failed.stderr[-3000:]
    # Nothing after the last good message was committed: the tables are as before.
    _judge(lake, java_peer, expected(), f"seed {seed}, canal-json after the bad message")
