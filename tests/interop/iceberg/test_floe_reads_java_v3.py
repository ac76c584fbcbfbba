"""floe reads format-version 3 tables that Iceberg Java writes, with deletion vectors (issue 17):
position deletes as `deletion-vector-v1` blobs in Puffin files, one vector per data file, merged
with the file's previous vector on later commits. `floe table scan` and `floe read` (the split
reader, and its changelog) must return exactly the rows Iceberg Java's reader returns, at every
snapshot."""

from __future__ import annotations

import collections
import json
import random

import pytest

from iceberg_peers import FloeTables
from iceberg_rows import TRANSFORMS, assert_same_rows
from iceberg_scenarios import java_scenario

TABLE = "db.dv"
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"}]}


def _rows(ids) -> str:
    return "".join(json.dumps({"id": i, "name": f"n{i}"}) + "\n" for i in ids)


def _deletion_vectors(floe: FloeTables, ident: str, *args) -> dict[str, dict]:
    """The deletes of `floe table scan --plan`, by data file; checks they are deletion vectors
    (Puffin blobs: an offset and size, the data file referenced), at most one per data file."""
    plan = floe.scan(ident, "--plan", *args)
    vectors = {}
    for task in plan:
        positional = [d for d in task["deletes"] if d["content"] == "position-deletes"]
        assert len(positional) <= 1, f"more than one position delete for {task['file_path']}: {positional}"
        for d in positional:
            assert d["file_path"].endswith(".puffin"), d
            assert d["referenced_data_file"] == task["file_path"], d
            assert d["content_offset"] >= 4 and d["content_size_in_bytes"] > 12, d
            vectors[task["file_path"]] = d
    return vectors


def _read(floe_run, lake, *args) -> list[dict]:
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, *args)
    assert res.code == 0, res.describe()
    return [json.loads(line) for line in res.stdout.splitlines()]


@pytest.mark.parametrize("transform", ["unpartitioned", "identity", "bucket"])
def test_floe_reads_java_v3_scenario(floe_run, java_peer, make_lake, transform):
    """The scenario of test_floe_reads_java.py (overwrites, row deltas with position and
    equality deletes, schema and partition evolution) in a v3 table: deletion vectors."""
    lake = make_lake("sql")
    written = java_scenario(java_peer, lake, TRANSFORMS[transform], seed=3000 + len(transform), format_version=3)
    assert lake.metadata(written.ident)["format-version"] == 3
    floe = FloeTables(floe_run, lake)
    assert _deletion_vectors(floe, written.ident), "the scenario's row deltas wrote no deletion vector"
    what = f"Java-written v3 table, {transform}, scanned by floe"
    requests = [{}] + [{"snapshot": s.snapshot_id} for s in written.states]
    results = java_peer.scans(lake, written.ident, requests)
    java_rows, _ = results[0]
    floe_rows = floe.scan(written.ident)
    assert_same_rows(floe_rows, written.rows, written.schema, what + " (vs the model)")
    assert_same_rows(floe_rows, java_rows, written.schema, what + " (vs Java's scan)")
    for state, (java_state, _) in zip(written.states, results[1:]):
        got = floe.scan(written.ident, "--snapshot", state.snapshot_id)
        assert_same_rows(got, java_state, state.schema, what + f" --snapshot {state.snapshot_id}")


def test_deletion_vectors_spread_and_merged(floe_run, java_peer, make_lake):
    """Six data files of ten rows; a row delta deletes rows of five of them (five vectors in
    one Puffin file); a second merges new deletes into three files' vectors (and adds one for
    the sixth file); a third merges again beside equality deletes and an added row. At every snapshot floe's
    scan, its split reader (`floe read`) and Iceberg Java's reader agree, and the plan holds
    one vector per data file with deletes."""
    lake = make_lake("sql")
    steps = [
        {"cmd": "create", "stdin": {"schema": SCHEMA, "properties": {"format-version": "3"}}},
        {"cmd": "append", "args": {"rows-per-file": 10}, "stdin": _rows(range(0, 60))},
        {"cmd": "row-delta", "stdin": {"position_delete_filter": ["in", "id", [2, 13, 14, 25, 38, 39, 51]]}},
        {"cmd": "row-delta", "stdin": {"position_delete_filter": ["in", "id", [3, 15, 44, 52, 59]]}},
        {
            "cmd": "row-delta",
            "stdin": {
                "position_delete_filter": ["in", "id", [0, 26]],
                "equality_fields": ["id"],
                "equality_deletes": [{"id": 40, "name": "n40"}, {"id": 5, "name": "n5"}],
                "add": [{"id": 100, "name": "n100"}],
            },
        },
    ]
    out = java_peer.script(lake, TABLE, steps)
    snapshots = [int(o.strip()) for s, o in zip(steps, out) if s["cmd"] != "create"]
    assert lake.metadata(TABLE)["format-version"] == 3
    floe = FloeTables(floe_run, lake)
    deleted = [{2, 13, 14, 25, 38, 39, 51}, {3, 15, 44, 52, 59}, {0, 26, 40, 5}]
    vector_counts = [0, 5, 6, 6]  # files with deletes after each commit
    cardinalities = [None, 7, 12, 14]
    states = java_peer.scans(lake, TABLE, [{"snapshot": s} for s in snapshots])
    gone: set[int] = set()
    for k, (snapshot, (java_rows, _)) in enumerate(zip(snapshots, states)):
        if k > 0:
            gone |= deleted[k - 1]
        want = [{"id": i, "name": f"n{i}"} for i in range(60) if i not in gone]
        if k == 3:
            want.append({"id": 100, "name": "n100"})
        what = f"snapshot {k} ({snapshot})"
        assert_same_rows(java_rows, want, SCHEMA, what + ": Java's scan vs the model")
        assert_same_rows(floe.scan(TABLE, "--snapshot", snapshot), java_rows, SCHEMA, what + ": floe table scan vs Java")
        vectors = _deletion_vectors(floe, TABLE, "--snapshot", snapshot)
        assert len(vectors) == vector_counts[k], (what, vectors)
        if cardinalities[k] is not None:
            assert sum(v["record_count"] for v in vectors.values()) == cardinalities[k], (what, vectors)
        # `floe read` up to the snapshot: a batch scan of it through the split reader.
        assert_same_rows(_read(floe_run, lake, "--end-snapshot-id", snapshot), java_rows, SCHEMA,
                         what + ": floe read vs Java")
    java_now = states[-1][0]
    assert_same_rows(_read(floe_run, lake), java_now, SCHEMA, "floe read vs Java")
    assert_same_rows(_read(floe_run, lake, "--parallelism", "3"), java_now, SCHEMA, "floe read --parallelism 3 vs Java")
    assert_same_rows(_read(floe_run, lake, "--where", "id >= 20"), [r for r in java_now if r["id"] >= 20], SCHEMA,
                     "floe read --where vs Java")
    # The changelog: each row delta's deletions as delete events.
    res = floe_run("read", TABLE, "--catalog-config", lake.config_file, "--changelog",
                   "--starting-strategy", "incremental-from-earliest-snapshot")
    assert res.code == 0, res.describe()
    changes: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in res.stdout.splitlines():
        event = json.loads(line)
        changes[event["snapshot_id"]][(event["op"], event["row"]["id"])] += 1
    for k in range(1, 4):
        before = {r["id"] for r in states[k - 1][0]}
        now = {r["id"] for r in states[k][0]}
        want = collections.Counter({("delete", i): 1 for i in before - now})
        want.update({("insert", i): 1 for i in now - before})
        assert changes[snapshots[k]] == want, (k, changes[snapshots[k]], want)


# Columns added to a v3 table with a default: (name, type, default, a new row's value), values
# in floe's JSON conventions.
DEFAULTS = [
    ("n", "long", 7, 70),
    ("s", "string", "dflt", "x"),
    ("d", "date", "2024-02-29", "2020-01-01"),
    ("m", "decimal(9, 2)", "-1.50", "3.25"),
    ("b", "binary", "Cv8=", "AQ=="),
    ("t", "timestamptz", "2024-01-02T03:04:05.000006+00:00", "2021-01-01T00:00:00.000000+00:00"),
    ("f", "double", 0.5, 1.5),
    ("ok", "boolean", True, False),
]


def _current_fields(lake) -> dict[str, dict]:
    metadata = lake.metadata(TABLE)
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    return {f["name"]: f for f in schema["fields"]}


def test_column_defaults(floe_run, java_peer, make_lake, tmp_path):
    """Iceberg Java adds columns with defaults to a v3 table: rows of files written before read
    each column's initial-default in floe as in Java; floe's own commit to the table keeps the
    defaults in the metadata, and both still read them."""
    lake = make_lake("sql")
    new_row = {"id": 10, "name": "n10", **{c: v for c, _, _, v in DEFAULTS}}
    steps = [
        {"cmd": "create", "stdin": {"schema": SCHEMA, "properties": {"format-version": "3"}}},
        {"cmd": "append", "stdin": _rows(range(0, 3))},
        {"cmd": "evolve-schema", "stdin": [{"op": "add", "name": c, "type": t, "default": d} for c, t, d, _ in DEFAULTS]},
        {"cmd": "append", "stdin": json.dumps(new_row) + "\n" + json.dumps({"id": 11, "name": "n11"}) + "\n"},
    ]
    java_peer.script(lake, TABLE, steps)
    fields = _current_fields(lake)
    for c, _, _, _ in DEFAULTS:
        assert "initial-default" in fields[c], fields[c]
    schema = {"type": "struct", "fields": list(fields.values())}
    old = [{"id": i, "name": f"n{i}", **{c: d for c, _, d, _ in DEFAULTS}} for i in range(3)]
    # A row written after the change without the columns gets nulls (Java's writer writes them).
    written = [new_row, {"id": 11, "name": "n11", **{c: None for c, _, _, _ in DEFAULTS}}]
    floe = FloeTables(floe_run, lake)
    (java_rows, _), = java_peer.scans(lake, TABLE, [{}])
    assert_same_rows(java_rows, old + written, schema, "Java's scan vs the model")
    assert_same_rows(floe.scan(TABLE), java_rows, schema, "floe table scan vs Java (initial-default)")
    assert_same_rows(_read(floe_run, lake), java_rows, schema, "floe read vs Java (initial-default)")
    got = floe.scan(TABLE, "--where", "n = 7 and s = 'dflt'")
    assert sorted(r["id"] for r in got) == [0, 1, 2], got

    # floe commits to the table: the defaults stay, and row lineage goes on from Java's: the
    # snapshot's first-row-id is the table's next-row-id, which grows by the rows added.
    next_row_id = lake.metadata(TABLE)["next-row-id"]
    assert next_row_id == 5, lake.metadata(TABLE)
    floe.append_rows(TABLE, [dict(new_row, id=20, name="n20")], tmp_path / "more.jsonl")
    metadata = lake.metadata(TABLE)
    current = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    assert current["first-row-id"] == next_row_id and current["added-rows"] >= 1, current
    assert metadata["next-row-id"] == next_row_id + current["added-rows"], metadata["next-row-id"]
    after = _current_fields(lake)
    for c, _, _, _ in DEFAULTS:
        for key in ("initial-default", "write-default"):
            assert after[c].get(key) == fields[c].get(key), (c, key, fields[c], after[c])
    (java_after, _), = java_peer.scans(lake, TABLE, [{}])
    assert_same_rows(java_after, old + written + [dict(new_row, id=20, name="n20")], schema,
                     "Java's scan after floe's commit")
    assert_same_rows(floe.scan(TABLE), java_after, schema, "floe table scan after its own commit")


def _upsert_batches(seed: int, keys: int, batches: int):
    """Debezium events per batch and the table after each: creates, updates (a key often
    changed several times in one batch) and deletes of keys from earlier batches and this one."""
    rng = random.Random(seed)
    state: dict[int, dict] = {}
    out = []
    for b in range(batches):
        events = []
        for n in range(keys * 2):
            k = rng.randrange(keys)
            if k in state and rng.random() < 0.2:
                events.append({"payload": {"op": "d", "before": {"id": k}, "after": None, "source": {"db": "d", "table": "up"}}})
                del state[k]
                continue
            row = {"id": k, "name": f"b{b}-{n}"}
            op = "u" if k in state else "c"
            events.append({"payload": {"op": op, "before": state.get(k), "after": row, "source": {"db": "d", "table": "up"}}})
            state[k] = row
        out.append(("".join(json.dumps(e) + "\n" for e in events), list(state.values())))
    return out


@pytest.mark.parametrize("partition_by", ["", "bucket(4, id)"])
def test_java_reads_floe_v3_upserts(floe_run, java_peer, make_lake, tmp_path, partition_by):
    """floe's upsert sink into a format-version 3 table, over several checkpoints: rows
    replaced within a checkpoint are deleted by deletion vectors (one per data file, Puffin),
    rows of earlier checkpoints by equality deletes; no Parquet position delete file is ever
    written. Iceberg Java's reader returns the expected table at every snapshot, and so do
    floe's scan and split reader."""
    lake = make_lake("sql")
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    ident = "db.up"
    floe = FloeTables(floe_run, lake)
    create = ["create", ident, "--schema", schema_file, "--property", "format-version=3"]
    if partition_by:
        create += ["--partition-by", partition_by]
    floe("create-namespace", "db")
    floe(*create)
    assert lake.metadata(ident)["format-version"] == 3
    expected_states = []
    snapshots = []
    for i, (events, expected) in enumerate(_upsert_batches(17 + len(partition_by), 40, 4)):
        data = tmp_path / f"batch{i}.jsonl"
        data.write_text(events)
        res = floe_run("ingest", data, "--table", ident, "--primary-key", "id", "--upsert",
                       "--parallelism", str(1 + i % 2), "--state-dir", tmp_path / f"state{i}",
                       "--catalog-config", lake.config_file)
        assert res.code == 0, res.describe()
        snapshots.append(lake.current_snapshot_id(ident))
        expected_states.append(expected)
    metadata = lake.metadata(ident)
    assert metadata["format-version"] == 3
    added_dvs = 0
    for snap in metadata["snapshots"]:
        summary = snap["summary"]
        assert int(summary.get("added-position-delete-files", 0)) == 0, summary
        added_dvs += int(summary.get("added-dvs", 0))
    assert added_dvs > 0, "no deletion vector was written"
    states = java_peer.scans(lake, ident, [{"snapshot": s} for s in snapshots])
    for k, (snapshot, (java_rows, _), expected) in enumerate(zip(snapshots, states, expected_states)):
        what = f"checkpoint {k} (snapshot {snapshot}, {partition_by or 'unpartitioned'})"
        assert_same_rows(java_rows, expected, SCHEMA, what + ": Iceberg Java's scan vs the expected rows")
        assert_same_rows(floe.scan(ident, "--snapshot", snapshot), expected, SCHEMA, what + ": floe table scan")
        # Every position delete is a deletion vector, one per data file (checked by the helper).
        plan = floe.scan(ident, "--plan", "--snapshot", snapshot)
        for task in plan:
            for d in task["deletes"]:
                if d["content"] == "position-deletes":
                    assert d["file_path"].endswith(".puffin"), (what, d)
        _deletion_vectors(floe, ident, "--snapshot", snapshot)
    res = floe_run("read", ident, "--catalog-config", lake.config_file)
    assert res.code == 0, res.describe()
    assert_same_rows([json.loads(line) for line in res.stdout.splitlines()], expected_states[-1], SCHEMA,
                     "floe read vs the expected rows")


def test_java_reads_floe_v3_deletes(floe_run, java_peer, make_lake, tmp_path):
    """`floe table delete` in a v3 table: deletion vectors, a data file's vector merged with its
    earlier one (and that one removed) on the next delete, a file removed whole with its vector.
    Iceberg Java reads the expected rows at every snapshot."""
    lake = make_lake("sql")
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    floe = FloeTables(floe_run, lake)
    floe("create-namespace", "db")
    floe("create", TABLE, "--schema", schema_file, "--property", "format-version=3")
    for part in range(3):
        floe.append_rows(TABLE, [{"id": i, "name": f"n{i}"} for i in range(part * 20, part * 20 + 20)],
                         tmp_path / f"rows{part}.jsonl")
    alive = set(range(60))
    thirds = [i for i in range(50) if i % 3 == 0]
    fifths = [i for i in range(60) if i % 5 == 0]
    wheres = [(f"id IN ({', '.join(map(str, thirds))})", set(thirds)),
              (f"id IN ({', '.join(map(str, fifths))})", set(fifths)),
              ("id >= 40", set(range(40, 60)))]
    snapshots, expected = [], []
    for where, gone in wheres:
        floe("delete", TABLE, "--where", where)
        alive -= gone
        snapshots.append(lake.current_snapshot_id(TABLE))
        expected.append([{"id": i, "name": f"n{i}"} for i in sorted(alive)])
        vectors = _deletion_vectors(floe, TABLE)
        assert vectors, f"no deletion vector after {where}"
    summaries = [s["summary"] for s in lake.metadata(TABLE)["snapshots"]]
    assert all(int(s.get("added-position-delete-files", 0)) == 0 for s in summaries), summaries
    assert int(summaries[4].get("removed-dvs", 0)) >= 2, summaries[4]  # merged on the second delete
    states = java_peer.scans(lake, TABLE, [{"snapshot": s} for s in snapshots])
    for (where, _), snapshot, (java_rows, _), want in zip(wheres, snapshots, states, expected):
        assert_same_rows(java_rows, want, SCHEMA, f"after delete {where!r}: Iceberg Java's scan")
        assert_same_rows(floe.scan(TABLE, "--snapshot", snapshot), want, SCHEMA, f"after delete {where!r}: floe")
