"""Kafka scale-out (issue 15 item 4; docs/kafka.md, "Scale-out"): several `floe run` processes with
one pipeline file split the partitions of a topic, killed and restarted, and no row is lost or
written twice.

A random Debezium change stream over three keyed tables (inserts, updates, deletes followed by
tombstones, key changes) goes into a six-partition topic, each message keyed by its row's
primary key and sent to the partition of its row's id (all changes of a row in one partition,
in order). Three members of one consumer group (`scale-out.enabled: true`, one state folder:
each takes a slot of it) mirror the topic with short checkpoints while more messages arrive;
again and again one of them is killed with SIGKILL at a random moment (at least one always
lives) and the killed ones are started again, so the group rebalances on every death and
every return. At the end every table equals the model row for row, read by Iceberg Java and
by the spec's rules over PyIceberg's metadata; no member committed a checkpoint twice; and
every snapshot of every table is a state the stream passed through: the table's messages of
each partition up to the offsets the snapshot records (`floe.source-position`), and nothing
after them (read by Iceberg Java at each snapshot).

FLOE_TEST_SCALE_OUT_KILLS sets the number of kills (default 20), FLOE_TEST_SCALE_OUT_SNAPSHOTS
how many snapshots of each table are read (default 8, a random sample and the newest);
FLOE_TEST_SEED the seed.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
import uuid

from changes import ChangeStream
from iceberg_rows import assert_same_rows
from lake_check import assert_no_checkpoint_twice, merge_on_read
from test_run_kafka import (  # noqa: F401  (fixtures)
    Producer,
    Run,
    _debezium_key,
    _nothing_left_running,
    kafka_bootstrap,
    kafka_client_classpath,
)
from test_run_kafka_offsets_in_lake import pipeline_with

PARTITIONS = 6
MEMBERS = 3


class RecordedStream(ChangeStream):
    """ChangeStream that remembers each change as (table, key before, row after) for replay."""

    def _line(self, table, op, before, after):
        self.change = (table, None if before is None else table.key_of(before), after)
        return super()._line(table, op, before, after)


class Topic:
    """The stream, message by message, with the offset each change got."""

    def __init__(self, seed: int, producer: Producer):
        self.stream = RecordedStream(seed, schema_changes=False)
        self.producer = producer
        self.log: list[tuple[int, int, object, tuple | None, dict | None]] = []  # partition, offset, change

    def send(self, count: int) -> None:
        for line in self.stream.lines(count):
            table, before_key, after = self.stream.change
            row = after if after is not None else dict(zip(table.key, before_key))
            partition = row["id"] % PARTITIONS
            key = _debezium_key(table, row)
            self.log.append((partition, self.producer.sent[partition], table, before_key, after))
            self.producer.send(partition, key, line)
            if after is None:
                self.producer.send(partition, key, None)  # Debezium's tombstone
        self.producer.flush()

    def state_at(self, ident: str, position: dict[int, int]) -> list[dict]:
        """The rows of table `ident` after its messages below `position` (partition -> offset)."""
        rows: dict[tuple, dict] = {}
        for partition, offset, table, before_key, after in self.log:
            if table.ident != ident or offset >= position.get(partition, 0):
                continue
            if before_key is not None:
                rows.pop(before_key, None)
            if after is not None:
                rows[table.key_of(after)] = after
        return list(rows.values())


def _position(text: str, topic: str) -> dict[int, int]:
    out = {}
    for part in filter(None, text.split(",")):
        m = re.fullmatch(re.escape(topic) + r"\[(\d+)\]:(\d+)", part)
        assert m, f"position part {part!r} of {text!r}"
        out[int(m.group(1))] = int(m.group(2))
    return out


def test_members_share_the_partitions_and_lose_nothing_across_kills(
        tmp_path, make_lake, java_peer, floe_ingest_ready, kafka_bootstrap, kafka_client_classpath):
    topic = f"scale-out-{uuid.uuid4().hex[:8]}"
    group = f"floe-{topic}"
    lake = make_lake("sql")
    pipeline = pipeline_with(lake, tmp_path, kafka_bootstrap, topic, {"scale-out.enabled": "true"})
    producer = Producer(kafka_client_classpath, kafka_bootstrap, topic, PARTITIONS)
    kills_wanted = int(os.environ.get("FLOE_TEST_SCALE_OUT_KILLS", "20"))
    seed = int(os.environ.get("FLOE_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rnd = random.Random(seed)
    stream = Topic(seed, producer)
    binary = floe_ingest_ready

    stream.send(600)
    members = [Run(binary, pipeline, tmp_path) for _ in range(MEMBERS)]
    killed = [False] * MEMBERS

    def check_alive() -> None:
        for i, m in enumerate(members):
            if not killed[i]:
                m.alive()  # a member that ended on its own fails the test with its log

    kills = 0
    started = time.monotonic()
    while kills < kills_wanted:
        # Long enough, often, for the group to drop a killed member (its session times out
        # after 6 s) and hand its partitions to the others, with messages in flight.
        for _ in range(rnd.randint(1, 6)):
            stream.send(rnd.randint(20, 80))
            time.sleep(rnd.uniform(0.1, 0.8))
        check_alive()
        for i in range(MEMBERS):  # the killed come back, now or a little later
            if killed[i] and rnd.random() < 0.35:
                members[i] = Run(binary, pipeline, tmp_path)
                killed[i] = False
        living = [i for i in range(MEMBERS) if not killed[i]]
        if len(living) >= 2:
            victim = rnd.choice(living)
            members[victim].stop(signal.SIGKILL)
            killed[victim] = True
            kills += 1
    for i in range(MEMBERS):
        if killed[i]:
            members[i] = Run(binary, pipeline, tmp_path)
            killed[i] = False
    stream.send(300)
    churn_seconds = time.monotonic() - started

    # Done once the group's offsets (committed by each member after its checkpoint's commits)
    # reach the end of every partition.
    end = time.monotonic() + 150
    while (committed := producer.committed(group)) != producer.sent:
        check_alive()
        assert time.monotonic() < end, f"the group holds {committed}, not {producer.sent}"
        time.sleep(0.3)
    for m in members:
        assert m.stop() == 0, m.stderr()[-4000:]
    producer.close()

    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("run-*.txt"))
    conflicts = logs.count("reading again from the lake")
    expected = {t.ident: list(t.rows.values()) for t in stream.stream.tables}
    what = f"seed {seed}, {kills} kills, {len(stream.log)} changes"
    # The newest snapshot equals the model (the spec's rules over PyIceberg's metadata here,
    # Iceberg Java below), and every snapshot is a prefix of each partition: read at each
    # snapshot by Iceberg Java, in one JVM per table.
    commits = 0
    for ident in expected:
        table = lake.py_table(ident)
        schema = json.loads(table.schema().model_dump_json(by_alias=True))
        assert_same_rows(merge_on_read(table), expected[ident], schema, f"{what}: {ident} (PyIceberg)")
        metadata = lake.metadata(ident)
        commits += assert_no_checkpoint_twice(metadata, f"{what}: {ident}")
        snapshots = [s for s in metadata["snapshots"] if "floe.source-position" in s.get("summary", {})]
        sample = int(os.environ.get("FLOE_TEST_SCALE_OUT_SNAPSHOTS", "8"))
        if len(snapshots) > sample:  # a sample keeps the JVM's time bounded; the newest always
            picked = rnd.sample(snapshots[:-1], sample - 1)
            snapshots = sorted(picked, key=lambda s: s["sequence-number"]) + snapshots[-1:]
        results = java_peer.scans(lake, ident, [{"snapshot": s["snapshot-id"]} for s in snapshots])
        assert_same_rows(results[-1][0], expected[ident], results[-1][1], f"{what}: {ident} (Iceberg Java)")
        for snapshot, (rows, schema) in zip(snapshots, results):
            position = _position(snapshot["summary"]["floe.source-position"], topic)
            assert_same_rows(rows, stream.state_at(ident, position), schema,
                             f"{what}: {ident} at snapshot {snapshot['snapshot-id']} "
                             f"({snapshot['summary']['floe.source-position']})")
    members_seen = len(set(re.findall(r"member (\w+) of scale-out group", logs)))
    print(f"{what}: {commits} table commits, {conflicts} refused commits (conflicts), "
          f"{members_seen} member ids, {churn_seconds:.0f} s of kills")
    assert members_seen <= MEMBERS, "a restarted member takes a free slot and its id"
