"""The writer scenarios of the interop tests, each with the model of what it should leave.

A scenario makes one table through one writer (floe, Iceberg Java or PyIceberg) and returns
a `Written`: the rows and schema it should now hold, and the same for earlier snapshots
(for time travel). The model is computed in Python from the writer's operations; the
reference peers are checked against it in test_reference_peers.py, so the same scenario
judges floe with a model the references agree with.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any

from iceberg_peers import (
    FloeTables,
    JavaPeer,
    Lake,
    _partition_value,
    parse_partition_field,
    py_arrow_table,
    py_schema,
    py_spec,
    py_transform,
    schema_json,
    split_partition_by,
)
from iceberg_rows import (
    BASE_SCHEMA,
    SCHEMA_CHANGES,
    decimal_columns,
    evolve_rows,
    evolve_schema,
    field_type,
    filter_sql,
    floe_evolve_args,
    generate_rows,
    matches,
    to_python,
)

IDENT = "ns.t"


@dataclasses.dataclass
class State:
    snapshot_id: int
    rows: list[dict]
    schema: dict


@dataclasses.dataclass
class Written:
    lake: Lake
    ident: str
    partition_by: str
    rows: list[dict]
    schema: dict
    states: list[State]  # snapshots written before the schema changed (time travel)
    notes: dict[str, Any] = dataclasses.field(default_factory=dict)


def partition_key(row: dict, schema: dict, partition_by: str) -> tuple:
    """The partition tuple of a model row under a spec, via PyIceberg's transforms."""
    pys = py_schema(schema)
    key = []
    for text in split_partition_by(partition_by):
        kind, arg, source = parse_partition_field(text)
        t = field_type(schema, source)
        v = to_python(row.get(source), t)
        if v is None:
            key.append(None)
            continue
        fn = py_transform(kind, arg).transform(pys.find_field(source).field_type)
        key.append(_partition_value(fn(_partition_value(v))))
    return tuple(key)


def _delete_where(rows: list[dict], f: list, schema: dict) -> list[dict]:
    return [r for r in rows if not matches(r, f, schema)]


def _renamed(partition_by: str, renames: dict[str, str]) -> str:
    out = []
    for text in split_partition_by(partition_by):
        kind, arg, source = parse_partition_field(text)
        source = renames.get(source, source)
        out.append(source if kind == "identity" else f"{kind}({arg}, {source})" if arg else f"{kind}({source})")
    return ", ".join(out)


RENAMES = {c["name"]: c["to"] for c in SCHEMA_CHANGES if c["op"] == "rename"}


# ----------------------------------------------------------------------------- floe writes


FLOE_DELETE_1 = ["or", ["and", [">=", "id", 10], ["<", "id", 16]], ["<", "dec", "-50.000"]]
FLOE_DELETE_2 = ["in", "id", [3, 104, 205, 206]]


def floe_scenario(floe: FloeTables, partition_by: str, seed: int, workdir: pathlib.Path, expire: bool) -> Written:
    """floe creates, appends twice, deletes (position deletes), evolves the schema, appends,
    deletes again and (if `expire`) expires all but the last snapshot."""
    lake = floe.lake
    schema_file = workdir / "schema.json"
    schema_file.write_text(json.dumps(BASE_SCHEMA))
    floe("create-namespace", "ns")
    create = ["create", IDENT, "--schema", schema_file]
    if partition_by:
        create += ["--partition-by", partition_by]
    floe(*create)

    schema = BASE_SCHEMA
    a = generate_rows(seed, 40, 1)
    b = generate_rows(seed + 1, 40, 101)
    states = []
    floe.append_rows(IDENT, a, workdir / "a.jsonl")
    states.append(State(lake.current_snapshot_id(IDENT), list(a), schema))
    floe.append_rows(IDENT, b, workdir / "b.jsonl")
    rows = a + b
    states.append(State(lake.current_snapshot_id(IDENT), list(rows), schema))
    floe("delete", IDENT, "--where", filter_sql(FLOE_DELETE_1, decimal_columns(schema)))
    rows = _delete_where(rows, FLOE_DELETE_1, schema)
    states.append(State(lake.current_snapshot_id(IDENT), list(rows), schema))

    floe("evolve", IDENT, *floe_evolve_args(SCHEMA_CHANGES))
    schema, _ = evolve_schema(schema, SCHEMA_CHANGES, 24)
    rows = evolve_rows(rows, SCHEMA_CHANGES)
    c = generate_rows(seed + 2, 30, 201, schema=schema)
    floe.append_rows(IDENT, c, workdir / "c.jsonl")
    rows += c
    floe("delete", IDENT, "--where", filter_sql(FLOE_DELETE_2, decimal_columns(schema)))
    rows = _delete_where(rows, FLOE_DELETE_2, schema)
    written = Written(lake, IDENT, partition_by, rows, schema, states)
    written.notes["snapshots_before_expire"] = [s["snapshot-id"] for s in lake.metadata(IDENT)["snapshots"]]
    if expire:
        meta = lake.metadata(IDENT)
        written.notes["expired_manifest_lists"] = [
            s["manifest-list"] for s in meta["snapshots"] if s["snapshot-id"] != meta["current-snapshot-id"]
        ]
        floe("expire", IDENT, "--older-than", "0s", "--retain-last", "1")
        written.states = []
    return written


# ----------------------------------------------------------------------------- Java writes


JAVA_POS_DELETE_1 = ["or", ["<", "i", -100], ["in", "id", [3, 4, 5, 105]]]
JAVA_EQ_DELETE_IDS_1 = [10, 11, 110, 201]
JAVA_READD_IDS = [10, 110]
JAVA_POS_DELETE_2 = ["in", "id", [302, 20, 120, 205]]
JAVA_EQ_DELETE_IDS_2 = [303, 310]


def _evolved_partition(partition_by: str) -> tuple[list[dict], str]:
    """The partition change of the Java and PyIceberg scenarios and the spec after it."""
    fields = split_partition_by(_renamed(partition_by, RENAMES))
    if not fields:
        return [{"op": "add", "field": "day(tz)"}], "day(tz)"
    ops = [{"op": "remove", "field": fields[0]}, {"op": "add", "field": "bucket(5, id)"}]
    return ops, ", ".join(fields[1:] + ["bucket(5, id)"])


def java_scenario(java: JavaPeer, lake: Lake, partition_by: str, seed: int, format_version: int = 2) -> Written:
    """Iceberg Java creates, appends (several files per partition), overwrites (by filter on
    an identity partition, else dynamic), commits a row delta with position and equality
    deletes (and re-adds rows with deleted keys in the same commit, which must survive),
    evolves the schema and the partition spec, appends, and commits another row delta.
    With format_version 3 the position deletes are deletion vectors."""
    schema = BASE_SCHEMA
    parts = split_partition_by(partition_by)
    a = generate_rows(seed, 40, 1)
    b = generate_rows(seed + 1, 40, 101)
    c = generate_rows(seed + 2, 8, 201)
    create = {"schema": schema, "partition": parts, "properties": {"format-version": str(format_version)}}
    steps: list[dict] = [
        {"cmd": "create", "stdin": create},
        {"cmd": "append", "args": {"rows-per-file": 7}, "stdin": "".join(json.dumps(r) + "\n" for r in a)},
        {"cmd": "append", "args": {"rows-per-file": 7}, "stdin": "".join(json.dumps(r) + "\n" for r in b)},
    ]
    rows = a + b
    overwrite = None
    if "bo" in [parse_partition_field(p)[2] for p in parts if parse_partition_field(p)[0] == "identity"]:
        overwrite = "filter"
        f = ["=", "bo", True]
        steps.append(
            {"cmd": "overwrite", "args": {"filter": json.dumps(f)}, "stdin": "".join(json.dumps(r) + "\n" for r in c)}
        )
        rows = [r for r in rows if not matches(r, f, schema)] + c
    elif parts:
        overwrite = "dynamic"
        steps.append({"cmd": "overwrite", "flags": ["dynamic"], "stdin": "".join(json.dumps(r) + "\n" for r in c)})
        replaced = {partition_key(r, schema, partition_by) for r in c}
        rows = [r for r in rows if partition_key(r, schema, partition_by) not in replaced] + c
    # Row delta 1: position deletes by filter, equality deletes by id (rows given in full so
    # the peer puts each delete in its row's partition), and rows re-added with deleted ids.
    by_id = {r["id"]: r for r in a + b + c}
    readd = {i: dict(r, id=i) for i, r in zip(JAVA_READD_IDS, generate_rows(seed + 9, len(JAVA_READD_IDS), 0))}
    steps.append(
        {
            "cmd": "row-delta",
            "stdin": {
                "position_delete_filter": JAVA_POS_DELETE_1,
                "equality_fields": ["id"],
                "equality_deletes": [by_id[i] for i in JAVA_EQ_DELETE_IDS_1],
                "add": list(readd.values()),
            },
        }
    )
    rows = _delete_where(rows, JAVA_POS_DELETE_1, schema)
    rows = [r for r in rows if r["id"] not in JAVA_EQ_DELETE_IDS_1] + list(readd.values())
    n_before = len(steps)
    spec_ops, new_partition_by = _evolved_partition(partition_by)
    steps.append({"cmd": "evolve-schema", "stdin": SCHEMA_CHANGES})
    steps.append({"cmd": "evolve-partition", "stdin": spec_ops})
    new_schema, _ = evolve_schema(schema, SCHEMA_CHANGES, 24)
    rows = evolve_rows(rows, SCHEMA_CHANGES)
    d = generate_rows(seed + 3, 12, 301, schema=new_schema)
    steps.append({"cmd": "append", "args": {"rows-per-file": 5}, "stdin": "".join(json.dumps(r) + "\n" for r in d)})
    rows += d
    d_by_id = {r["id"]: r for r in d}
    steps.append(
        {
            "cmd": "row-delta",
            "stdin": {
                "position_delete_filter": JAVA_POS_DELETE_2,
                "equality_fields": ["id"],
                "equality_deletes": [d_by_id[i] for i in JAVA_EQ_DELETE_IDS_2],
                "equality_delete_full_rows": True,
            },
        }
    )
    rows = _delete_where(rows, JAVA_POS_DELETE_2, new_schema)
    rows = [r for r in rows if r["id"] not in JAVA_EQ_DELETE_IDS_2]
    out = java.script(lake, IDENT, steps)
    snapshot_ids = [int(o.strip()) for s, o in zip(steps, out) if s["cmd"] in ("append", "overwrite", "row-delta")]
    states = [
        State(snapshot_ids[0], list(a), schema),
        State(snapshot_ids[1], a + b, schema),
    ]
    written = Written(lake, IDENT, partition_by, rows, new_schema, states)
    written.notes.update(
        overwrite=overwrite, new_partition_by=new_partition_by, snapshot_ids=snapshot_ids, steps_before_evolve=n_before
    )
    return written


# ----------------------------------------------------------------------------- PyIceberg writes

# PyIceberg's copy-on-write delete keeps every row in which a column the filter names is
# null (it cannot negate a filter under SQL's three-valued logic), so its filters name only
# `id`, which is never null.
PY_OVERWRITE = ["or", ["<", "id", 15], ["and", [">", "id", 130], ["<", "id", 136]]]
PY_DELETE_1 = ["or", ["in", "id", [40, 41, 42, 120]], [">=", "id", 137]]
PY_DELETE_2 = ["in", "id", [302, 20, 121]]


def pyiceberg_scenario(lake: Lake, partition_by: str, seed: int) -> Written:
    """PyIceberg (SqlCatalog) creates, appends twice, overwrites by filter, deletes by
    filter, evolves the schema (update_schema) and the spec (update_spec), appends, deletes."""
    from pyiceberg import types as T

    catalog = lake.py_catalog()
    catalog.create_namespace("ns")
    schema = BASE_SCHEMA
    table = catalog.create_table(IDENT, schema=py_schema(schema), partition_spec=py_spec(schema, partition_by))
    assert schema_json(table.schema())["fields"] == schema["fields"], "PyIceberg changed the field ids"
    a = generate_rows(seed, 40, 1)
    b = generate_rows(seed + 1, 40, 101)
    c = generate_rows(seed + 2, 10, 201)
    states = []
    table.append(py_arrow_table(table, a))
    states.append(State(table.current_snapshot().snapshot_id, list(a), schema))
    table.append(py_arrow_table(table, b))
    rows = a + b
    states.append(State(table.current_snapshot().snapshot_id, list(rows), schema))
    dec = decimal_columns(schema)
    table.overwrite(py_arrow_table(table, c), overwrite_filter=filter_sql(PY_OVERWRITE, dec))
    rows = _delete_where(rows, PY_OVERWRITE, schema) + c
    table.delete(filter_sql(PY_DELETE_1, dec))
    rows = _delete_where(rows, PY_DELETE_1, schema)
    states.append(State(table.current_snapshot().snapshot_id, list(rows), schema))

    with table.update_schema() as update:
        for ch in SCHEMA_CHANGES:
            if ch["op"] == "add":
                update.add_column(ch["name"], {"string": T.StringType(), "long": T.LongType()}[ch["type"]])
            elif ch["op"] == "rename":
                update.rename_column(ch["name"], ch["to"])
            elif ch["op"] == "drop":
                update.delete_column(ch["name"])
            elif ch["op"] == "widen":
                update.update_column(ch["name"], field_type={"long": T.LongType(), "double": T.DoubleType()}[ch["type"]])
            elif ch["op"] == "optional":
                update.make_column_optional(ch["name"])
    new_schema, _ = evolve_schema(schema, SCHEMA_CHANGES, 24)
    rows = evolve_rows(rows, SCHEMA_CHANGES)
    spec_ops, new_partition_by = _evolved_partition(partition_by)
    with table.update_spec() as update:
        for op in spec_ops:
            kind, arg, source = parse_partition_field(op["field"])
            if op["op"] == "add":
                update.add_field(source, py_transform(kind, arg), f"{source}_{kind}{arg or ''}_v2")
            else:
                current = {
                    (type(pf.transform).__name__, pf.source_id): pf.name for pf in table.spec().fields
                }
                sid = table.schema().find_field(source).field_id
                update.remove_field(current[(type(py_transform(kind, arg)).__name__, sid)])
    table = lake.py_table(IDENT)
    d = generate_rows(seed + 3, 12, 301, schema=new_schema)
    table.append(py_arrow_table(table, d))
    rows += d
    table.delete(filter_sql(PY_DELETE_2, decimal_columns(new_schema)))
    rows = _delete_where(rows, PY_DELETE_2, new_schema)
    written = Written(lake, IDENT, partition_by, rows, new_schema, states)
    written.notes["new_partition_by"] = new_partition_by
    return written


# ----------------------------------------------------------------------------- filters to try

def probe_filters(written: Written) -> list[list]:
    """Filters for --where comparisons: a range on id, null checks, and an equality and a
    range on each current partition source (which exercises pruning by partition values)."""
    schema = written.schema
    rows = written.rows
    filters: list[list] = [
        ["and", [">=", "id", 20], ["<", "id", 130]],
        ["or", ["is_null", "i"], ["<", "id", 8]],
        ["not", ["in", "id", [1, 2, 101, 102]]],
    ]
    sources = []
    for spec in (_renamed(written.partition_by, RENAMES), written.notes.get("new_partition_by", "")):
        for text in split_partition_by(spec):
            sources.append(parse_partition_field(text)[2])
    for col in dict.fromkeys(sources):
        t = field_type(schema, col)
        if not isinstance(t, str) or t.startswith("fixed") or t == "binary":
            continue
        values = [r[col] for r in rows if r.get(col) is not None]
        if not values:
            continue
        v = values[len(values) // 2]
        filters.append(["=", col, v])
        if t not in ("boolean", "uuid"):
            filters.append(["and", [">=", col, v], ["not_null", col]])
    return filters


def filter_columns(f: list) -> set[str]:
    if f[0] in ("and", "or"):
        return filter_columns(f[1]) | filter_columns(f[2])
    if f[0] == "not":
        return filter_columns(f[1])
    return set() if f[0] == "true" else {f[1]}


def pyiceberg_can_filter(f: list, schema: dict) -> bool:
    """PyIceberg 0.12 cannot evaluate a filter on a uuid column (pyarrow has no kernel for
    its uuid extension type); such filters are checked against the model only."""
    return all(field_type(schema, c) != "uuid" for c in filter_columns(f))
