"""`floe run`'s kafka source: offsets belong to the lake, and dead letters (issue 15).

A random Debezium change stream over three keyed tables, and an append-only table whose
messages carry no key (a row written twice would show as two rows), go into a two-partition
topic. The state folder of `floe run` is deleted twice — once after a clean stop, once after
a SIGKILL at a random moment (possibly between two tables' commits of one checkpoint) — and
each time the run resumes from the lake: the copy of the source state that the lake holds
(the second time an older copy, so that every table holds more than it), with every table
that committed more than that copy skipping the messages it holds. A third time the lake copy
is deleted too: the topic is read again from the earliest offset, every table skipping what
it holds. The lake then equals the model, read by Iceberg Java, every row once.

Then `on-error: skip`: poison messages (not JSON, an unknown op, a value of the wrong type)
among good ones, under SIGKILL: the good ones all land, every poison message is in the
dead-letter files exactly once, with its topic, partition, offset, key, value and reason —
also when the newer checkpoint files are lost after a kill, so that the run restores an older
checkpoint whose later dead-letter files hold letters of messages it reads again.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import signal
import time
import uuid

from changes import Column, SourceTable, envelope_schema
from test_run_kafka import (  # noqa: F401  (fixtures)
    PARTITIONS,
    DebeziumTopic,
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

AUDIT = SourceTable("shop", "audit", [], [Column("n", "int64", optional=False), Column("what", "string")])
AUDIT_SCHEMA = json.dumps(envelope_schema(AUDIT), separators=(",", ":"))


def pipeline_with(lake, tmp: pathlib.Path, bootstrap: str, topic: str, source_keys: dict[str, str]) -> pathlib.Path:
    """The test pipeline of test_run_kafka.py with more keys in its `source:` section."""
    path = _pipeline(lake, tmp, bootstrap, topic, "debezium-json")
    extra = "".join(f"  {key}: {value}\n" for key, value in source_keys.items())
    path.write_text(path.read_text().replace("sink:\n", extra + "sink:\n", 1))
    return path


class Mixed:
    """DebeziumTopic's keyed tables plus unkeyed inserts into shop.audit."""

    def __init__(self, seed: int, producer: Producer):
        self.rnd = random.Random(seed + 1)
        self.keyed = DebeziumTopic(seed, producer)
        self.producer = producer
        self.audit: list[dict] = []

    def send(self, count: int) -> None:
        for _ in range(count // 10 + 1):
            self.keyed.send(9)
            n = len(self.audit) + 1
            row = {"n": n, "what": self.rnd.choice([None, "ping", "pöng"])}
            payload = {"before": None, "after": row, "source": {"db": "shop", "table": "audit", "ts_ms": n},
                       "op": "c", "ts_ms": n}
            self.producer.send(self.rnd.randrange(PARTITIONS), None,
                               '{"schema":' + AUDIT_SCHEMA + ',"payload":' + json.dumps(payload) + "}")
            self.audit.append(row)
        self.producer.flush()

    def expected(self) -> dict[str, list[dict]]:
        return dict(self.keyed.expected(), **{"shop.audit": list(self.audit)})


def _logs(tmp: pathlib.Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(tmp.glob("run-*.txt")))


def test_state_folder_lost_resumes_from_the_lakes_offsets(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                                         kafka_bootstrap, kafka_client_classpath):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    topic = f"lake-offsets-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    stream = Mixed(seed, producer)
    pipeline = _pipeline(lake, tmp_path, kafka_bootstrap, topic, "debezium-json")
    state = tmp_path / f"state-{topic}"

    stream.send(400)
    idents = list(stream.expected())
    run = Run(binary, pipeline, tmp_path)
    _wait_for_new_commit(run, lake, idents, lambda: stream.send(20))
    stream.send(200)
    _finish(run, producer, topic)  # everything committed, a clean stop

    # 1. The state folder is lost after a clean stop.
    shutil.rmtree(state)
    stream.send(200)
    run = Run(binary, pipeline, tmp_path)
    _wait_for_new_commit(run, lake, idents, lambda: stream.send(20))
    # 2. More messages, a SIGKILL at a random moment, and the state folder lost again.
    for _ in range(rnd.randint(2, 4)):
        stream.send(rnd.randint(50, 200))
        time.sleep(rnd.uniform(0.05, 0.3))
    time.sleep(rnd.uniform(0, 0.6))
    run.alive()
    run.stop(signal.SIGKILL)
    shutil.rmtree(state)
    # The lake copy is written at most every 10 s: keep only its oldest checkpoint, so that
    # the tables surely hold more than the copy and must skip what they hold.
    copies = sorted(lake.warehouse.rglob("source-state/checkpoint-*.json"))
    assert copies, "no lake copy of the source state"
    for copy in copies[1:]:
        copy.unlink()
    stream.send(200)
    run = Run(binary, pipeline, tmp_path)
    stream.send(100)
    _finish(run, producer, topic)

    # 3. The state folder and the lake copy are both lost: the partitions start by the startup
    # mode (earliest-offset), every table skipping what it holds.
    shutil.rmtree(state)
    for copies in lake.warehouse.rglob("source-state"):
        shutil.rmtree(copies)
    stream.send(100)
    run = Run(binary, pipeline, tmp_path)
    _finish(run, producer, topic)
    producer.close()

    logs = _logs(tmp_path)
    assert logs.count("resuming from the lake's copy of checkpoint") == 2, logs[-6000:]
    assert "already hold are skipped" in logs, logs[-6000:]
    assert "no checkpoint: the partitions start by scan.startup.mode" in logs, logs[-6000:]
    _judge(lake, java_peer, stream.expected(), f"seed {seed}, state folder lost twice")


# ----------------------------------------------------------------------------- dead letters


def _dead_letters(lake) -> list[dict]:
    files = sorted(lake.warehouse.rglob("dead-letters/*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_dead_letters_once_across_sigkill(tmp_path, make_lake, java_peer, floe_ingest_ready,
                                          kafka_bootstrap, kafka_client_classpath):
    binary = floe_ingest_ready
    lake = make_lake("sql")
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    topic = f"dead-letters-{uuid.uuid4().hex[:8]}"
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic)
    stream = DebeziumTopic(seed, producer)
    pipeline = pipeline_with(lake, tmp_path, kafka_bootstrap, topic, {"on-error": "skip"})
    poison: dict[tuple[int, int], tuple[str | None, str, str]] = {}  # (partition, offset) -> key, value, reason

    def send(count: int) -> None:
        stream.send(count)
        for _ in range(rnd.randint(1, 3)):
            partition = rnd.randrange(PARTITIONS)
            n = len(poison)
            key, value, reason = rnd.choice([
                (f'{{"id":{n}}}', f"not json {n} {{", "invalid JSON"),
                (None, json.dumps({"op": "x", "before": None, "after": {"id": n},
                                   "source": {"db": "shop", "table": "items"}}), "unknown op 'x'"),
                (f"k{n}", '{"schema":' + AUDIT_SCHEMA + ',"payload":' + json.dumps(
                    {"before": None, "after": {"n": "many", "what": "x"}, "op": "c",
                     "source": {"db": "shop", "table": "audit"}}) + "}", "after.n"),
            ])
            poison[(partition, producer.sent[partition])] = (key, value, reason)
            producer.send(partition, key, value)
        producer.flush()

    send(300)
    idents = list(stream.expected())
    run = Run(binary, pipeline, tmp_path)
    kills = 0
    for kill in range(2):
        _wait_for_new_commit(run, lake, idents, lambda: send(20))
        for _ in range(rnd.randint(2, 3)):
            send(rnd.randint(50, 150))
            time.sleep(rnd.uniform(0.05, 0.3))
        run.alive()
        run.stop(signal.SIGKILL)
        kills += 1
        if kill == 1:
            # The newer checkpoint files are lost: the run restores an older checkpoint,
            # whose later dead-letter files hold letters of messages it reads again.
            checkpoints = sorted((tmp_path / f"state-{topic}" / "checkpoints").glob("checkpoint-*.json"))
            assert len(checkpoints) > 1, checkpoints
            for newer in checkpoints[1:]:
                newer.unlink()
        run = Run(binary, pipeline, tmp_path)
    send(100)
    _finish(run, producer, topic)
    producer.close()

    _judge(lake, java_peer, stream.expected(), f"seed {seed}, {kills} kills, {len(poison)} poison messages")
    letters = _dead_letters(lake)
    seen: dict[tuple[int, int], dict] = {}
    for letter in letters:
        assert letter["topic"] == topic, letter
        where = (letter["partition"], letter["offset"])
        assert where not in seen, f"dead letter twice: {letter}"
        seen[where] = letter
    assert set(seen) == set(poison), (f"missing {sorted(set(poison) - set(seen))}, "
                                      f"unexpected {sorted(set(seen) - set(poison))}")
    for where, (key, value, reason) in poison.items():
        letter = seen[where]
        assert letter["key"] == key and letter["value"] == value, letter
        assert reason in letter["error"], letter
    print(f"{len(poison)} dead letters, each once, {kills} kills")
